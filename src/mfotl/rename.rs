//! Quantified variables renamed where they hide another variable of the same
//! name: MFOTL lets `s(n) AND EXISTS n . r(y, n)` quantify a name that is
//! free elsewhere (or bound further out), QTL does not. The inner variable
//! is renamed `n_2` (the first `n_K` not used in the formula) within its
//! quantifier, which changes no meaning.

use std::collections::{HashMap, HashSet};

use crate::syntax::{Arena, Form, FormId, Ident, Term};

/// `f` with every quantified variable that hides another renamed; `free`
/// are the free variables of `f`. Returns the new root and the renamings
/// (new name, original name).
pub(super) fn unshadow(
    arena: &mut Arena,
    f: FormId,
    free: &[String],
) -> (FormId, Vec<(String, String)>) {
    let mut taken: HashSet<String> = free.iter().cloned().collect();
    collect_names(arena, f, &mut taken);
    let mut r = Rename {
        free: free.iter().cloned().collect(),
        taken,
        scope: Vec::new(),
        renamed: Vec::new(),
    };
    if !r.needed(arena, f) {
        return (f, Vec::new());
    }
    let root = r.copy(arena, f, &HashMap::new());
    (root, r.renamed)
}

/// Every variable name of `f`.
fn collect_names(arena: &Arena, f: FormId, out: &mut HashSet<String>) {
    let mut stack = vec![f];
    while let Some(f) = stack.pop() {
        let form = arena.form(f);
        for v in form.used_vars() {
            out.insert(v.name.clone());
        }
        match form {
            Form::Quant(_, v, _) => {
                out.insert(v.name.clone());
            }
            Form::Agg(g, _) => {
                out.insert(g.of.name.clone());
            }
            Form::Let(d, ..) => out.extend(d.params.iter().map(|p| p.name.clone())),
            _ => {}
        }
        stack.extend(form.children());
    }
}

struct Rename {
    free: HashSet<String>,
    taken: HashSet<String>,
    /// The names bound around the current node (original names).
    scope: Vec<String>,
    renamed: Vec<(String, String)>,
}

impl Rename {
    /// Whether some quantifier of `f` hides another variable.
    fn needed(&mut self, arena: &Arena, f: FormId) -> bool {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.needed_at(arena, f))
    }

    fn needed_at(&mut self, arena: &Arena, f: FormId) -> bool {
        if let Form::Agg(g, body) = arena.form(f) {
            let locals = locals(arena, g, *body);
            if locals
                .iter()
                .any(|v| self.free.contains(v) || self.scope.contains(v))
            {
                return true;
            }
            let n = self.scope.len();
            self.scope.extend(locals);
            let found = self.needed(arena, *body);
            self.scope.truncate(n);
            return found;
        }
        if let Form::Quant(_, v, body) = arena.form(f) {
            if self.free.contains(&v.name) || self.scope.contains(&v.name) {
                return true;
            }
            self.scope.push(v.name.clone());
            let found = self.needed(arena, *body);
            self.scope.pop();
            return found;
        }
        let kids: Vec<FormId> = arena.form(f).children().collect();
        kids.into_iter().any(|k| self.needed(arena, k))
    }

    /// Binds `name` for a body (pushed on the scope): renamed, in `map`,
    /// when it hides another variable. Returns the name it gets.
    fn bind(&mut self, name: &str, map: &mut HashMap<String, String>) -> String {
        let hides = self.free.contains(name) || self.scope.iter().any(|s| s == name);
        let fresh = if hides {
            let fresh = (2..)
                .map(|k| format!("{name}_{k}"))
                .find(|n| !self.taken.contains(n))
                .unwrap_or_else(|| name.to_string());
            self.taken.insert(fresh.clone());
            self.renamed.push((fresh.clone(), name.to_string()));
            fresh
        } else {
            name.to_string()
        };
        map.insert(name.to_string(), fresh.clone());
        self.scope.push(name.to_string());
        fresh
    }

    /// A copy of `f` with the names of `map` replaced.
    fn copy(&mut self, arena: &mut Arena, f: FormId, map: &HashMap<String, String>) -> FormId {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || {
            let span = arena.span(f);
            let name = |v: &Ident| Ident {
                name: map.get(&v.name).cloned().unwrap_or_else(|| v.name.clone()),
                span: v.span,
            };
            let term = |t: &Term| match t {
                Term::Var(v) => Term::Var(name(v)),
                c => c.clone(),
            };
            let form = match arena.form(f).clone() {
                Form::Call { name: n, args } => Form::Call {
                    name: n,
                    args: args.iter().map(term).collect(),
                },
                Form::Cmp { op, left, right } => Form::Cmp {
                    op,
                    left: name(&left),
                    right: term(&right),
                },
                Form::Quant(q, v, body) => {
                    let mut inner = map.clone();
                    let fresh = self.bind(&v.name, &mut inner);
                    let body = self.copy(arena, body, &inner);
                    self.scope.pop();
                    Form::Quant(
                        q,
                        Ident {
                            name: fresh,
                            span: v.span,
                        },
                        body,
                    )
                }
                Form::Rel { op, left, right } => Form::Rel {
                    op,
                    left: left.map_vars(|v| Term::Var(name(v))),
                    right: right.map_vars(|v| Term::Var(name(v))),
                },
                Form::Agg(g, body) => {
                    let mut inner = map.clone();
                    let locals = locals(arena, &g, body);
                    for v in &locals {
                        self.bind(v, &mut inner);
                    }
                    let body = self.copy(arena, body, &inner);
                    self.scope.truncate(self.scope.len() - locals.len());
                    let inner_name = |v: &Ident| Ident {
                        name: inner
                            .get(&v.name)
                            .cloned()
                            .unwrap_or_else(|| v.name.clone()),
                        span: v.span,
                    };
                    let g = crate::syntax::Aggregation {
                        op: g.op,
                        result: name(&g.result),
                        of: inner_name(&g.of),
                        group: g.group.iter().map(name).collect(),
                    };
                    Form::Agg(Box::new(g), body)
                }
                Form::Let(d, def, body) => {
                    // The definition's variables are its parameters.
                    let mut inner = HashMap::new();
                    let n = self.scope.len();
                    self.scope.extend(d.params.iter().map(|p| p.name.clone()));
                    for p in &d.params {
                        inner.insert(p.name.clone(), p.name.clone());
                    }
                    let def = self.copy(arena, def, &inner);
                    self.scope.truncate(n);
                    Form::Let(d, def, self.copy(arena, body, map))
                }
                Form::Not(a) => Form::Not(self.copy(arena, a, map)),
                Form::Prev(a) => Form::Prev(self.copy(arena, a, map)),
                Form::PrevIn(t, a) => Form::PrevIn(t, self.copy(arena, a, map)),
                Form::Once(t, a) => Form::Once(t, self.copy(arena, a, map)),
                Form::Hist(t, a) => Form::Hist(t, self.copy(arena, a, map)),
                Form::Bin(op, a, b) => {
                    let a = self.copy(arena, a, map);
                    Form::Bin(op, a, self.copy(arena, b, map))
                }
                Form::Since(t, a, b) => {
                    let a = self.copy(arena, a, map);
                    Form::Since(t, a, self.copy(arena, b, map))
                }
                Form::Zince(d, a, b) => {
                    let a = self.copy(arena, a, map);
                    Form::Zince(d, a, self.copy(arena, b, map))
                }
                Form::Interval(a, b) => {
                    let a = self.copy(arena, a, map);
                    Form::Interval(a, self.copy(arena, b, map))
                }
                Form::Next(t, a) => Form::Next(t, self.copy(arena, a, map)),
                Form::Eventually(t, a) => Form::Eventually(t, self.copy(arena, a, map)),
                Form::Always(t, a) => Form::Always(t, self.copy(arena, a, map)),
                Form::Until(t, a, b) => {
                    let a = self.copy(arena, a, map);
                    Form::Until(t, a, self.copy(arena, b, map))
                }
                leaf @ (Form::True | Form::False) => leaf,
            };
            arena.push(form, span)
        })
    }
}

/// The variables aggregation `g` over `body` binds: those of the operand
/// other than the group.
fn locals(arena: &Arena, g: &crate::syntax::Aggregation, body: FormId) -> Vec<String> {
    arena
        .free_vars(body)
        .into_iter()
        .map(|v| v.name)
        .filter(|n| !g.group.iter().any(|w| w.name == *n))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::mfotl::{Reading, translate};

    #[test]
    fn a_quantifier_that_hides_a_variable_is_renamed() {
        let t = translate(
            "s(n) AND (EXISTS n . r(y, n)) AND EXISTS y . EXISTS y . r(y, 2)",
            "s(int) r(string, int)",
            "t",
            Reading::Violations,
        )
        .expect("renamed, then well-formed");
        assert!(
            t.qtl.contains("Exists n_2 . r(y,n_2)")
                && t.qtl.contains("Exists y_2 . Exists y_3 . r(y_3,\"2\")"),
            "{}",
            t.qtl
        );
        assert_eq!(t.free, vec!["n".to_string(), "y".to_string()]);
    }
}
