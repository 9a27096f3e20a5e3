//! Rewriting a parsed specification back to QTL text, for the metamorphic
//! tests and the name-reusing generator (issue 16): consistent renaming of
//! bound variables (to unique names, or to as few names as the language
//! allows), of properties, macros, rules and events; expansion of macro
//! calls by substitution, done here independently of the checker; dropping
//! properties; the statements and rules of two properties as one.
//!
//! Scoping is handled by construction: the printer keeps, per body, the
//! names in scope with the text that replaces each, and the printed names of
//! every enclosing binder (also those of a caller when a macro is expanded in
//! place), so a new binder never hides an enclosing one and never captures a
//! substituted argument.
//!
//! Formulas are printed fully parenthesised. Assumption (true of the
//! generated specifications): a macro body calls no rule, unless macros are
//! expanded (then a call resolves exactly as the checker resolves it: a rule
//! of the property, else a macro, else an event).

use std::collections::HashMap;
use std::fmt::Write;

use hindsight::syntax::{Def, Form, FormId, Ident, RelOp, Rule, Spec, Term, parse};
use hindsight::value::compare_values;

/// How binders (quantified variables, rule and macro parameters) are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binders {
    /// As written (not with [`Renaming::expand_macros`]).
    Keep,
    /// Every binder its own name, unique in the whole specification.
    Fresh,
    /// Each binder the first of `x, y, z, u, v, t, x1, x2, ...` that no
    /// enclosing binder of its body uses: as much reuse as the language allows.
    Reuse,
}

/// What to rewrite.
#[derive(Clone, Debug)]
pub struct Renaming {
    /// How binders are named.
    pub binders: Binders,
    /// Expand macro calls by substitution (and leave out the macro definitions).
    pub expand_macros: bool,
    /// New names of events, macros, rules and properties (absent: unchanged).
    /// Used for every call name, so an event and a rule of the same name get
    /// the same new name.
    pub names: HashMap<String, String>,
    /// Rename the rules of property `i` to `name_i` (so that the rules of two
    /// properties can be put together); needs `expand_macros`.
    pub rules_per_property: bool,
}

impl Renaming {
    /// Binders named as given, nothing else changed.
    pub fn binders(binders: Binders) -> Renaming {
        Renaming {
            binders,
            expand_macros: false,
            names: HashMap::new(),
            rules_per_property: false,
        }
    }
}

/// A parsed specification with its macros, ready to print.
pub struct Rewriter<'r> {
    spec: Spec,
    r: &'r Renaming,
    macros: HashMap<String, (Vec<Ident>, FormId)>,
    fresh: usize,
}

/// Where a body is printed.
struct Scope {
    /// Source name → printed text (a variable's new name or, in an expanded
    /// macro, the argument), innermost last.
    names: Vec<(String, String)>,
    /// The printed names of every enclosing binder, also of callers.
    taken: Vec<String>,
    /// The property whose rules calls may refer to.
    prop: Option<usize>,
    /// The rule names of that property.
    rules: Vec<String>,
}

impl<'r> Rewriter<'r> {
    /// Parses `text`; `None` when it does not parse.
    pub fn new(text: &str, r: &'r Renaming) -> Option<Rewriter<'r>> {
        let spec = parse(text).ok()?;
        let macros = spec
            .defs
            .iter()
            .filter_map(|d| match d {
                Def::Macro { name, params, body } => {
                    Some((name.name.clone(), (params.clone(), *body)))
                }
                _ => None,
            })
            .collect();
        Some(Rewriter {
            spec,
            r,
            macros,
            fresh: 0,
        })
    }

    /// The number of properties.
    pub fn properties(&self) -> usize {
        self.spec
            .defs
            .iter()
            .filter(|d| matches!(d, Def::Prop { .. }))
            .count()
    }

    /// The whole specification, with the properties for which `keep` holds
    /// (given their index among the properties).
    pub fn text(&mut self, keep: &dyn Fn(usize) -> bool) -> String {
        let mut out = String::new();
        let defs = self.spec.defs.clone();
        let mut pi = 0;
        for d in &defs {
            match d {
                Def::Events(decls) => {
                    let decls: Vec<String> = decls
                        .iter()
                        .map(|e| {
                            let params: Vec<&str> =
                                e.params.iter().map(|p| p.name.as_str()).collect();
                            format!("{}{}", self.name(&e.name.name), list(&params))
                        })
                        .collect();
                    let _ = writeln!(out, "pred {}", decls.join(", "));
                }
                Def::Macro { name, params, body } => {
                    if self.r.expand_macros {
                        continue;
                    }
                    let mut scope = Scope {
                        names: Vec::new(),
                        taken: Vec::new(),
                        prop: None,
                        rules: Vec::new(),
                    };
                    let params = self.bind_params(params, &mut scope);
                    let body = self.form(*body, &mut scope);
                    let _ = writeln!(
                        out,
                        "pred {}{} = {body}",
                        self.name(&name.name),
                        list(&params)
                    );
                }
                Def::Prop { name, .. } => {
                    if keep(pi) {
                        let (statement, rules) = self.property(pi);
                        let _ = write!(out, "prop {} : {statement}", self.name(&name.name));
                        write_rules(&mut out, &rules);
                    }
                    pi += 1;
                }
            }
        }
        out
    }

    /// The statement and the rules (`name(params) := body`) of property `pi`.
    pub fn property(&mut self, pi: usize) -> (String, Vec<String>) {
        let Some((body, rules)) = self
            .spec
            .defs
            .iter()
            .filter_map(|d| match d {
                Def::Prop { body, rules, .. } => Some((*body, rules.clone())),
                _ => None,
            })
            .nth(pi)
        else {
            return ("true".into(), Vec::new());
        };
        let rule_names: Vec<String> = rules.iter().map(|r| r.name.name.clone()).collect();
        let mut scope = Scope {
            names: Vec::new(),
            taken: Vec::new(),
            prop: Some(pi),
            rules: rule_names.clone(),
        };
        let statement = self.form(body, &mut scope);
        let printed = rules
            .iter()
            .map(|Rule { name, params, body }| {
                let mut scope = Scope {
                    names: Vec::new(),
                    taken: Vec::new(),
                    prop: Some(pi),
                    rules: rule_names.clone(),
                };
                let params = self.bind_params(params, &mut scope);
                let body = self.form(*body, &mut scope);
                format!(
                    "{}{} := {body}",
                    self.rule_name(pi, &name.name),
                    list(&params)
                )
            })
            .collect();
        (statement, printed)
    }

    fn name(&self, n: &str) -> String {
        self.r
            .names
            .get(n)
            .cloned()
            .unwrap_or_else(|| n.to_string())
    }

    fn rule_name(&self, pi: usize, n: &str) -> String {
        if self.r.rules_per_property {
            format!("{}_{pi}", self.name(n))
        } else {
            self.name(n)
        }
    }

    /// A new binder for `x` in `scope`: its printed name.
    fn binder(&mut self, x: &str, scope: &Scope) -> String {
        match self.r.binders {
            Binders::Keep => x.to_string(),
            Binders::Fresh => {
                self.fresh += 1;
                format!("v{}", self.fresh)
            }
            Binders::Reuse => {
                let pool = ["x", "y", "z", "u", "v", "t"];
                pool.iter()
                    .map(|s| s.to_string())
                    .chain((1..).map(|k| format!("x{k}")))
                    .find(|n| !scope.taken.contains(n))
                    .unwrap_or_default()
            }
        }
    }

    fn bind_params(&mut self, params: &[Ident], scope: &mut Scope) -> Vec<String> {
        params
            .iter()
            .map(|p| {
                let new = self.binder(&p.name, scope);
                scope.names.push((p.name.clone(), new.clone()));
                scope.taken.push(new.clone());
                new
            })
            .collect()
    }

    fn term(t: &Term, scope: &Scope) -> String {
        match t {
            Term::Var(v) => scope
                .names
                .iter()
                .rev()
                .find(|(n, _)| *n == v.name)
                .map(|(_, t)| t.clone())
                // A free variable (the spec is not well-formed): as written.
                .unwrap_or_else(|| v.name.clone()),
            Term::Const(c) => quote(&c.text),
        }
    }

    fn form(&mut self, id: FormId, scope: &mut Scope) -> String {
        // A copy, so that the printer may change its own counters.
        let form = self.spec.arena.form(id).clone();
        let bound =
            |b: Option<hindsight::syntax::TimeBound>| b.map(|b| b.to_string()).unwrap_or_default();
        match form {
            Form::True => "true".into(),
            Form::False => "false".into(),
            Form::Call { name, args } => self.call(&name.name, &args, scope),
            Form::Cmp { op, left, right } => {
                let l = Self::term(&Term::Var(left), scope);
                let r = Self::term(&right, scope);
                match (is_const(&l), is_const(&r)) {
                    (false, _) => format!("({l} {} {r})", op.symbol()),
                    (true, false) => format!("({r} {} {l})", flip(op).symbol()),
                    (true, true) => {
                        let (a, b) = (unquote(&l), unquote(&r));
                        let ord = compare_values(a.as_bytes(), b.as_bytes());
                        let holds = match op {
                            RelOp::Eq => a == b,
                            RelOp::Lt => ord.is_lt(),
                            RelOp::Le => ord.is_le(),
                            RelOp::Gt => ord.is_gt(),
                            RelOp::Ge => ord.is_ge(),
                        };
                        holds.to_string()
                    }
                }
            }
            Form::Not(a) => format!("(! {})", self.form(a, scope)),
            Form::Prev(a) => format!("(@ {})", self.form(a, scope)),
            Form::PrevIn(t, a) => format!("(@{t} {})", self.form(a, scope)),
            Form::Once(b, a) => format!("(P{} {})", bound(b), self.form(a, scope)),
            Form::Hist(b, a) => format!("(H{} {})", bound(b), self.form(a, scope)),
            Form::Bin(op, a, b) => {
                let a = self.form(a, scope);
                let b = self.form(b, scope);
                format!("({a} {} {b})", op.symbol())
            }
            Form::Since(t, a, b) => {
                let a = self.form(a, scope);
                let b = self.form(b, scope);
                format!("({a} S{} {b})", bound(t))
            }
            Form::Zince(d, a, b) => {
                let a = self.form(a, scope);
                let b = self.form(b, scope);
                format!("({a} Z[<={d}] {b})")
            }
            Form::Interval(a, b) => {
                let a = self.form(a, scope);
                let b = self.form(b, scope);
                format!("[{a}, {b})")
            }
            Form::Next(t, a) => format!("(X{} {})", bound(t), self.form(a, scope)),
            Form::Eventually(t, a) => format!("(F{} {})", bound(t), self.form(a, scope)),
            Form::Always(t, a) => format!("(G{} {})", bound(t), self.form(a, scope)),
            Form::Until(t, a, b) => {
                let a = self.form(a, scope);
                let b = self.form(b, scope);
                format!("({a} U{} {b})", bound(t))
            }
            Form::Quant(q, x, body) => {
                let new = self.binder(&x.name, scope);
                scope.names.push((x.name.clone(), new.clone()));
                scope.taken.push(new.clone());
                let body = self.form(body, scope);
                scope.names.pop();
                scope.taken.pop();
                format!("({} {new} . {body})", q.keyword())
            }
            Form::Rel { op, left, right } => {
                let l = Self::expr(&left, scope);
                let r = Self::expr(&right, scope);
                format!("({l} {} {r})", op.symbol())
            }
            Form::Agg(g, body) => {
                let y = Self::term(&Term::Var(g.result.clone()), scope);
                let group: Vec<String> = (g.group.iter())
                    .map(|v| Self::term(&Term::Var(v.clone()), scope))
                    .collect();
                // The operand's other variables are bound here.
                let locals: Vec<String> = (self.spec.arena.free_vars(body).into_iter())
                    .map(|v| v.name)
                    .filter(|n| !g.group.iter().any(|w| w.name == *n))
                    .collect();
                for l in &locals {
                    let new = self.binder(l, scope);
                    scope.names.push((l.clone(), new.clone()));
                    scope.taken.push(new);
                }
                let x = Self::term(&Term::Var(g.of.clone()), scope);
                let body = self.form(body, scope);
                for _ in &locals {
                    scope.names.pop();
                    scope.taken.pop();
                }
                let group = if group.is_empty() {
                    String::new()
                } else {
                    format!("; {}", group.join(", "))
                };
                format!("({y} <- {} {x}{group} . {body})", g.op.keyword())
            }
            Form::Let(d, def, body) => {
                let saved = std::mem::take(&mut scope.names);
                scope.names = d
                    .params
                    .iter()
                    .map(|p| (p.name.clone(), p.name.clone()))
                    .collect();
                let def = self.form(def, scope);
                scope.names = saved;
                let params: Vec<&str> = d.params.iter().map(|p| p.name.as_str()).collect();
                let body = self.form(body, scope);
                format!("(LET {}{} = {def} IN {body})", d.name.name, list(&params))
            }
        }
    }

    /// An arithmetic term with the names of `scope`.
    fn expr(e: &hindsight::syntax::Expr, scope: &Scope) -> String {
        e.map_vars(|v| {
            let printed = Self::term(&Term::Var(v.clone()), scope);
            if is_const(&printed) {
                Term::Const(hindsight::syntax::Const {
                    text: unquote(&printed),
                    span: v.span,
                })
            } else {
                Term::Var(Ident {
                    name: printed,
                    span: v.span,
                })
            }
        })
        .show(true)
    }

    fn call(&mut self, name: &str, args: &[Term], scope: &mut Scope) -> String {
        let args: Vec<String> = args.iter().map(|a| Self::term(a, scope)).collect();
        if let Some(pi) = scope.prop
            && scope.rules.iter().any(|r| r == name)
        {
            return format!("{}{}", self.rule_name(pi, name), list(&args));
        }
        if self.r.expand_macros
            && let Some((params, body)) = self.macros.get(name).cloned()
        {
            // The macro body sees its parameters only; its binders must
            // avoid every enclosing name, the caller's included.
            let saved = std::mem::take(&mut scope.names);
            scope.names = params
                .iter()
                .map(|p| p.name.clone())
                .zip(args.iter().cloned())
                .collect();
            let text = self.form(body, scope);
            scope.names = saved;
            return text;
        }
        format!("{}{}", self.name(name), list(&args))
    }
}

fn write_rules(out: &mut String, rules: &[String]) {
    for (k, r) in rules.iter().enumerate() {
        let sep = if k == 0 { "\n  where " } else { ",\n    " };
        let _ = write!(out, "{sep}{r}");
    }
    out.push('\n');
}

/// `prop NAME : statement where rules`, from parts made by [`Rewriter::property`].
pub fn property_text(name: &str, statement: &str, rules: &[String]) -> String {
    let mut out = format!("prop {name} : {statement}");
    write_rules(&mut out, rules);
    out
}

fn list(items: &[impl AsRef<str>]) -> String {
    if items.is_empty() {
        String::new()
    } else {
        let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
        format!("({})", items.join(", "))
    }
}

fn quote(text: &str) -> String {
    format!("\"{text}\"")
}

fn is_const(printed: &str) -> bool {
    printed.starts_with('"')
}

fn unquote(printed: &str) -> String {
    printed.trim_matches('"').to_string()
}

/// `c op x` is `x (flip op) c`.
fn flip(op: RelOp) -> RelOp {
    match op {
        RelOp::Lt => RelOp::Gt,
        RelOp::Le => RelOp::Ge,
        RelOp::Eq => RelOp::Eq,
        RelOp::Gt => RelOp::Lt,
        RelOp::Ge => RelOp::Le,
    }
}

/// `text` with every binder renamed as in [`Binders::Reuse`]; `None` when it
/// does not parse.
pub fn reusing_names(text: &str) -> Option<String> {
    let r = Renaming::binders(Binders::Reuse);
    Some(Rewriter::new(text, &r)?.text(&|_| true))
}
