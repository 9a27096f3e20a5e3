//! Variable scopes of one definition body: free variables, quantifiers hiding
//! an outer variable, and variables introduced but never used; and, on the
//! same walk, future operators without a finite upper bound.
//!
//! These checks do not depend on what calls resolve to (every argument of a
//! call is a use of its variables), so each body is checked once, as written.

use std::collections::HashMap;

use crate::syntax::walk::{self, Fold, Kids, Step};
use crate::syntax::{Aggregation, Arena, Diagnostic, Form, FormId, Ident, Span, Term};

/// What a body belongs to, for the messages.
#[derive(Clone, Copy)]
pub(crate) enum Owner<'s> {
    /// The statement of the named property.
    Prop(&'s str),
    /// The body of the named rule.
    Rule(&'s str),
    /// The body of the named macro.
    Macro(&'s str),
    /// The definition of the named `LET`.
    Let(&'s str),
}

struct Binder<'a> {
    name: &'a str,
    span: Span,
    used: bool,
    param: bool,
}

struct Scopes<'a> {
    binders: Vec<Binder<'a>>,
    /// For each name, the binders in scope, innermost last.
    in_scope: HashMap<&'a str, Vec<usize>>,
    owner: Owner<'a>,
}

/// The walk over one body: uses resolve to the innermost binder of their
/// name; a quantifier opens a binder on entry and closes it on exit.
struct Walk<'a, 'd> {
    arena: &'a Arena,
    s: Scopes<'a>,
    /// The binders of the quantifiers around the current node, innermost last.
    open: Vec<usize>,
    /// Per aggregation around the current node: how many binders it opened.
    agg_marks: Vec<usize>,
    diags: &'d mut Vec<Diagnostic>,
}

impl<'a> Walk<'a, '_> {
    /// Opens a binder for `v` (named `what` in the message if it hides an
    /// outer variable of the same name); `used` for one that is used by
    /// construction.
    fn open_binder(&mut self, v: &'a Ident, what: &str, used: bool) {
        let s = &mut self.s;
        let slot = s.in_scope.entry(&v.name).or_default();
        if let Some(&outer) = slot.last() {
            let outer = &s.binders[outer];
            let kind = if outer.param { "parameter" } else { "variable" };
            self.diags.push(
                Diagnostic::error(
                    v.span,
                    format!(
                        "{what} hides the outer {kind} `{}` of the same name; give one of them another name",
                        v.name
                    ),
                )
                .with_note(outer.span, format!("the outer `{}` is introduced here", v.name)),
            );
        }
        slot.push(s.binders.len());
        self.open.push(s.binders.len());
        s.binders.push(Binder {
            name: &v.name,
            span: v.span,
            used,
            param: false,
        });
    }

    /// Checks the variables of aggregation `g` over `body`; returns the
    /// variables it binds: those of the operand other than the group.
    fn aggregation(&mut self, g: &'a Aggregation, body: FormId) -> Vec<&'a Ident> {
        let free = self.arena.free_occurrences(body);
        let diags = &mut *self.diags;
        let is_free = |v: &Ident| free.iter().any(|f| f.name == v.name);
        if !is_free(&g.of) {
            diags.push(Diagnostic::error(
                g.of.span,
                format!(
                    "the aggregated variable `{}` does not occur free in the aggregation's operand",
                    g.of.name
                ),
            ));
        }
        for (i, v) in g.group.iter().enumerate() {
            if g.group[..i].iter().any(|w| w.name == v.name) {
                diags.push(Diagnostic::error(
                    v.span,
                    format!("group variable `{}` is listed twice", v.name),
                ));
            } else if !is_free(v) {
                diags.push(Diagnostic::error(
                    v.span,
                    format!(
                        "group variable `{}` does not occur free in the aggregation's operand",
                        v.name
                    ),
                ));
            }
        }
        if g.group.iter().any(|w| w.name == g.result.name) {
            diags.push(Diagnostic::error(
                g.result.span,
                format!(
                    "the result variable `{}` of the aggregation is also a group variable",
                    g.result.name
                ),
            ));
        }
        free.into_iter()
            .filter(|f| !g.group.iter().any(|w| w.name == f.name))
            .collect()
    }
}

impl<'a> Fold for Walk<'a, '_> {
    type Node = FormId;
    type Ctx = ();
    type Out = ();

    fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), ()> {
        let (s, diags) = (&mut self.s, &mut *self.diags);
        let form: &'a Form = self.arena.form(id);
        match form {
            Form::Call { args, .. } => {
                for a in args {
                    if let Term::Var(v) = a {
                        s.use_var(v, diags);
                    }
                }
                Step::Done(())
            }
            Form::Cmp { .. } | Form::Rel { .. } => {
                for v in form.used_vars() {
                    s.use_var(v, diags);
                }
                Step::Done(())
            }
            Form::Quant(q, v, _) => {
                let what = format!("`{} {}`", q.keyword(), v.name);
                self.open_binder(v, &what, false);
                Step::Into(Kids::of(form), ())
            }
            Form::Agg(g, body) => {
                for v in form.used_vars() {
                    self.s.use_var(v, self.diags);
                }
                let locals = self.aggregation(g, *body);
                for v in &locals {
                    let what = format!("the variable `{}` of this aggregation", v.name);
                    self.open_binder(v, &what, true);
                }
                self.agg_marks.push(locals.len());
                Step::Into(Kids::of(form), ())
            }
            Form::Let(d, def, body) => {
                // The definition is a body of its own, over its parameters.
                let owner = Owner::Let(&d.name.name);
                check(self.arena, *def, &d.params, owner, self.diags);
                Step::Into(Kids::one(*body), ())
            }
            form => {
                if let Some(d) = unbounded_future(form, self.arena.span(id)) {
                    self.diags.push(d);
                }
                Step::Into(Kids::of(form), ())
            }
        }
    }

    fn leave(&mut self, id: FormId, _: &(), _: [(); 2]) {
        if let Form::Agg(..) = self.arena.form(id) {
            for _ in 0..self.agg_marks.pop().unwrap_or_default() {
                if let Some(b) = self.open.pop() {
                    let name = self.s.binders[b].name;
                    if let Some(slot) = self.s.in_scope.get_mut(name) {
                        slot.pop();
                    }
                }
            }
            return;
        }
        if !matches!(self.arena.form(id), Form::Quant(..)) {
            return;
        }
        let Some(b) = self.open.pop() else { return };
        let binder = &self.s.binders[b];
        if let Some(slot) = self.s.in_scope.get_mut(binder.name) {
            slot.pop();
        }
        if !binder.used {
            self.diags.push(Diagnostic::error(
                binder.span,
                format!(
                    "variable `{}` is quantified but never used in the quantified formula; remove the quantifier or use the variable",
                    binder.name
                ),
            ));
        }
    }
}

/// The error of a future operator whose interval has no finite upper bound:
/// its verdict at an event could only be given at the end of the trace.
fn unbounded_future(form: &Form, span: Span) -> Option<Diagnostic> {
    let (name, bound) = match form {
        Form::Eventually(b, _) => ("F", b),
        Form::Always(b, _) => ("G", b),
        Form::Until(b, ..) => ("U", b),
        _ => return None,
    };
    if bound.is_some_and(|b| b.hi.is_some()) {
        return None;
    }
    let how = match bound {
        None => "has no time bound",
        Some(_) => "has no upper bound",
    };
    let always = if name == "G" {
        "; an outer \"always\" goes without saying, since every property is checked at every event"
    } else {
        ""
    };
    Some(Diagnostic::error(
        span,
        format!(
            "the future operator `{name}` {how}: whether it holds at an event could only be known at the end of the trace; give it a finite interval, e.g. `{name}[<=10]` (within 10 time units, or 10 events in an untimed trace){always}"
        ),
    ))
}

/// Checks the variables of `body`, where `params` are bound (the parameters of
/// a macro or rule; repeated ones were reported already and bind once).
pub(crate) fn check(
    arena: &Arena,
    body: FormId,
    params: &[Ident],
    owner: Owner<'_>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut s = Scopes {
        binders: Vec::new(),
        in_scope: HashMap::new(),
        owner,
    };
    for p in params {
        let slot = s.in_scope.entry(&p.name).or_default();
        if slot.is_empty() {
            slot.push(s.binders.len());
            s.binders.push(Binder {
                name: &p.name,
                span: p.span,
                used: false,
                param: true,
            });
        }
    }
    let mut s = Walk {
        arena,
        s,
        open: Vec::new(),
        agg_marks: Vec::new(),
        diags,
    };
    walk::fold(&mut s, body, ());
    let Walk { s, diags, .. } = s;
    for b in s.binders.iter().filter(|b| b.param && !b.used) {
        let whose = match owner {
            Owner::Rule(r) => format!("rule `{r}`"),
            Owner::Macro(m) => format!("macro `{m}`"),
            Owner::Let(m) => format!("`LET {m}`"),
            Owner::Prop(p) => format!("property `{p}`"),
        };
        diags.push(Diagnostic::error(
            b.span,
            format!(
                "parameter `{}` of {whose} is never used in its body; remove it or use it",
                b.name
            ),
        ));
    }
}

impl<'a> Scopes<'a> {
    fn use_var(&mut self, v: &Ident, diags: &mut Vec<Diagnostic>) {
        if let Some(&b) = self
            .in_scope
            .get(v.name.as_str())
            .and_then(|slot| slot.last())
        {
            self.binders[b].used = true;
            return;
        }
        let why = match self.owner {
            Owner::Prop(p) => format!(
                "no quantifier around it introduces it (in property `{p}`; write e.g. `Forall {} . ...`)",
                v.name
            ),
            Owner::Rule(r) => format!(
                "it is not a parameter of rule `{r}` and no quantifier around it introduces it"
            ),
            Owner::Macro(m) => format!(
                "it is not a parameter of macro `{m}` and no quantifier around it introduces it"
            ),
            Owner::Let(m) => format!(
                "it is not a parameter of `LET {m}` and no quantifier around it introduces it"
            ),
        };
        diags.push(Diagnostic::error(
            v.span,
            format!("free variable `{}`: {why}", v.name),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_formula;

    fn run(text: &str, params: &[&str], owner: Owner<'_>) -> Vec<(usize, String)> {
        let (arena, root) = parse_formula(text).unwrap_or_else(|d| panic!("{}", d.message));
        let params: Vec<Ident> = params
            .iter()
            .map(|p| Ident {
                name: p.to_string(),
                span: Span::new(1000, 1001),
            })
            .collect();
        let mut diags = Vec::new();
        check(&arena, root, &params, owner, &mut diags);
        diags.sort_by_key(|d| d.span.start);
        diags
            .iter()
            .map(|d| (d.span.start, d.message.clone()))
            .collect()
    }

    #[test]
    fn closed_formulas_pass() {
        assert!(
            run(
                "Forall x . Exists y . p(x, y) & x < y",
                &[],
                Owner::Prop("p")
            )
            .is_empty()
        );
        assert!(
            run(
                "Forall x . p(x) -> Forall y . q(y, x)",
                &[],
                Owner::Prop("p")
            )
            .is_empty()
        );
        assert!(run("@ r(x, y) | q(y, \"c\")", &["x", "y"], Owner::Rule("r")).is_empty());
    }

    #[test]
    fn free_variables_in_calls_and_comparisons() {
        let e = run("Forall x . p(x, y) & z < x & x = w", &[], Owner::Prop("p"));
        let at: Vec<usize> = e.iter().map(|(i, _)| *i).collect();
        assert_eq!(at, vec![16, 21, 33]);
        assert!(e.iter().all(|(_, m)| m.starts_with("free variable")));
        let e = run("q(x, y)", &["x"], Owner::Macro("m"));
        assert_eq!(e.len(), 1);
        assert!(e[0].1.contains("`y`: it is not a parameter of macro `m`"));
    }

    #[test]
    fn hiding_and_unused() {
        let e = run("Forall x . p(x) -> Exists x . q(x)", &[], Owner::Prop("p"));
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, 26);
        assert!(e[0].1.contains("hides the outer variable `x`"));
        let e = run("Exists y . q(x)", &["x", "y"], Owner::Rule("r"));
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].1.contains("hides the outer parameter `y`"));
        assert!(e[1].1.contains("quantified but never used"));
        assert!(e[2].1.contains("parameter `y` of rule `r` is never used"));
        // Sibling quantifiers over the same name do not hide each other.
        assert!(
            run(
                "(Exists x . p(x)) & (Exists x . q(x))",
                &[],
                Owner::Prop("p")
            )
            .is_empty()
        );
    }

    #[test]
    fn deep_quantifier_chain_is_iterative() {
        let n = 100_000;
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("Forall x{i} . "));
        }
        text.push_str("p(x0)");
        for i in 1..n {
            text.push_str(&format!(" & p(x{i})"));
        }
        let (arena, root) = parse_formula(&text).unwrap_or_else(|d| panic!("{}", d.message));
        let mut diags = Vec::new();
        check(&arena, root, &[], Owner::Prop("p"), &mut diags);
        assert!(diags.is_empty());
        let (arena, root) = parse_formula(&text.replace("p(x7)", "p(y7)"))
            .unwrap_or_else(|d| panic!("{}", d.message));
        check(&arena, root, &[], Owner::Prop("p"), &mut diags);
        assert_eq!(diags.len(), 2);
    }
}
