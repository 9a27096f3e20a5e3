//! Macro expansion and name resolution of calls.
//!
//! Every property statement and rule body is rebuilt with its macro calls
//! replaced by the macro bodies, arguments substituted for parameters. On the
//! way every call is resolved (rule of the property, else macro, else event)
//! and the checks that depend on that are made: arities of macro and rule
//! calls, undeclared events, and rules referenced outside `@` in rule bodies
//! (also inside macro bodies, at the call in the macro body). The walk uses an
//! explicit stack, so nesting depth is not limited by the thread's stack.

use std::collections::{BTreeMap, HashMap};

use super::arguments;
use super::defs::Table;
use crate::check::compare_values;
use crate::syntax::{Arena, Const, Diagnostic, Form, FormId, Ident, RelOp, Span, Term};

/// Macro expansion may create at most this many formula nodes plus
/// [`EXPANSION_FACTOR`] times the parsed ones: macros calling others several
/// times grow exponentially, and the limit turns that into an error.
const EXPANSION_BUDGET: usize = 2_000_000;
/// See [`EXPANSION_BUDGET`].
const EXPANSION_FACTOR: usize = 16;

/// Where a formula is expanded.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'s> {
    /// The property whose rules calls may refer to; `None` checks a macro body
    /// on its own, without expanding the macros it calls.
    pub prop: Option<usize>,
    /// The rule whose body this is; `None` for a statement.
    pub rule: Option<&'s Ident>,
}

/// A macro expansion in progress (frame 0 is the formula being expanded).
struct Frame {
    /// Parameters and renamed quantified variables → what replaces them.
    subst: HashMap<String, Term>,
    /// The macro call expanded, for notes (`None` for frame 0).
    call: Option<(Span, usize)>,
}

enum Task {
    Enter {
        id: FormId,
        frame: usize,
        under_prev: bool,
    },
    Build {
        id: FormId,
        frame: usize,
        var: Option<Ident>,
    },
    Restore {
        frame: usize,
        name: String,
        old: Option<Term>,
    },
    EndFrame,
}

/// What the walks found, besides the expanded formulas.
pub(crate) struct Found {
    /// Every use of an event anywhere: name → (place, number of arguments).
    pub uses: HashMap<String, Vec<(Span, usize)>>,
    /// Events used by the properties, with their number of arguments.
    pub events: BTreeMap<String, usize>,
    /// Per macro: called (directly or through macros) by a property.
    pub macro_used: Vec<bool>,
}

/// Expands formulas one after the other into one arena.
pub(crate) struct Expander<'t, 's> {
    table: &'t Table<'s>,
    arena: &'t mut Arena,
    diags: &'t mut Vec<Diagnostic>,
    found: Found,
    visited: Vec<bool>,
    fresh: u64,
    created: usize,
    budget: usize,
    aborted: bool,
    frames: Vec<Frame>,
    tasks: Vec<Task>,
    out: Vec<FormId>,
}

impl<'t, 's> Expander<'t, 's> {
    pub fn new(table: &'t Table<'s>, arena: &'t mut Arena, diags: &'t mut Vec<Diagnostic>) -> Self {
        let n = table.macros.len();
        let budget = EXPANSION_BUDGET.saturating_add(arena.len().saturating_mul(EXPANSION_FACTOR));
        let budget = budget.min((u32::MAX as usize / 2).saturating_sub(arena.len()));
        Expander {
            table,
            arena,
            diags,
            found: Found {
                uses: HashMap::new(),
                events: BTreeMap::new(),
                macro_used: vec![false; n],
            },
            visited: vec![false; n],
            fresh: 0,
            created: 0,
            budget,
            aborted: false,
            frames: Vec::new(),
            tasks: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Whether the body of macro `mi` was walked by some expansion.
    pub fn visited(&self, mi: usize) -> bool {
        self.visited[mi]
    }

    pub fn finish(self) -> Found {
        self.found
    }

    /// Expands `root` in context `ctx` and returns the macro-free formula.
    pub fn expand(&mut self, root: FormId, ctx: Ctx<'s>) -> FormId {
        self.frames.clear();
        self.frames.push(Frame {
            subst: HashMap::new(),
            call: None,
        });
        self.out.clear();
        self.tasks.push(Task::Enter {
            id: root,
            frame: 0,
            under_prev: false,
        });
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Enter {
                    id,
                    frame,
                    under_prev,
                } => self.enter(id, frame, under_prev, ctx),
                Task::Build { id, frame, var } => self.build(id, frame, var),
                Task::Restore { frame, name, old } => {
                    let subst = &mut self.frames[frame].subst;
                    match old {
                        Some(t) => subst.insert(name, t),
                        None => subst.remove(&name),
                    };
                }
                Task::EndFrame => {
                    self.frames.pop();
                }
            }
        }
        self.out.pop().unwrap_or(root)
    }

    fn enter(&mut self, id: FormId, frame: usize, under_prev: bool, ctx: Ctx<'s>) {
        match self.arena.form(id) {
            Form::Call { .. } => self.call(id, frame, under_prev, ctx),
            Form::Cmp { .. } => self.compare(id, frame),
            Form::True | Form::False => self.build(id, frame, None),
            Form::Quant(_, v, body) => {
                let body = *body;
                if frame == 0 {
                    self.tasks.push(Task::Build {
                        id,
                        frame,
                        var: None,
                    });
                } else {
                    // Capture avoidance: a fresh name per expansion.
                    self.fresh += 1;
                    let fresh = Ident {
                        name: format!("{}'{}", v.name, self.fresh),
                        span: v.span,
                    };
                    let name = v.name.clone();
                    let old = self.frames[frame]
                        .subst
                        .insert(name.clone(), Term::Var(fresh.clone()));
                    self.tasks.push(Task::Build {
                        id,
                        frame,
                        var: Some(fresh),
                    });
                    self.tasks.push(Task::Restore { frame, name, old });
                }
                self.tasks.push(Task::Enter {
                    id: body,
                    frame,
                    under_prev,
                });
            }
            form => {
                let prev = under_prev || matches!(form, Form::Prev(_));
                let kids: Vec<FormId> = form.children().collect();
                self.tasks.push(Task::Build {
                    id,
                    frame,
                    var: None,
                });
                for &k in kids.iter().rev() {
                    self.tasks.push(Task::Enter {
                        id: k,
                        frame,
                        under_prev: prev,
                    });
                }
            }
        }
    }

    /// Rebuilds node `id` from the results of its children (on `out`). Frame 0
    /// keeps unchanged nodes; inside a macro every node is a fresh copy.
    fn build(&mut self, id: FormId, frame: usize, var: Option<Ident>) {
        let node = self.arena.node(id);
        let n = node.form.children().count();
        let mut kids = [FormId(0); 2];
        for k in kids[..n].iter_mut().rev() {
            *k = self.out.pop().unwrap_or(id);
        }
        let same = node.form.children().eq(kids[..n].iter().copied());
        if frame == 0 && same && var.is_none() {
            self.out.push(id);
            return;
        }
        let span = node.span;
        let (a, b) = (kids[0], kids[1]);
        let form = match &node.form {
            Form::Not(_) => Form::Not(a),
            Form::Prev(_) => Form::Prev(a),
            Form::Once(t, _) => Form::Once(*t, a),
            Form::Hist(t, _) => Form::Hist(*t, a),
            Form::Bin(op, _, _) => Form::Bin(*op, a, b),
            Form::Since(t, _, _) => Form::Since(*t, a, b),
            Form::Zince(d, _, _) => Form::Zince(*d, a, b),
            Form::Interval(_, _) => Form::Interval(a, b),
            Form::Quant(q, v, _) => Form::Quant(*q, var.unwrap_or_else(|| v.clone()), a),
            leaf => leaf.clone(),
        };
        self.push(form, span);
    }

    fn push(&mut self, form: Form, span: Span) {
        self.created += 1;
        let id = self.arena.push(form, span);
        self.out.push(id);
    }

    fn subst(&self, frame: usize, v: &Ident) -> Term {
        match self.frames[frame].subst.get(&v.name) {
            Some(Term::Var(x)) => Term::Var(Ident {
                name: x.name.clone(),
                span: v.span,
            }),
            Some(Term::Const(c)) => Term::Const(Const {
                text: c.text.clone(),
                span: v.span,
            }),
            None => Term::Var(v.clone()),
        }
    }

    fn subst_term(&self, frame: usize, t: &Term) -> Term {
        match t {
            Term::Var(v) => self.subst(frame, v),
            Term::Const(c) => Term::Const(c.clone()),
        }
    }

    /// A note pointing at the macro call being expanded, if any.
    fn in_macro(&self, frame: usize, d: Diagnostic) -> Diagnostic {
        match self.frames[frame].call {
            Some((span, mi)) => d.with_note(
                span,
                format!("in this use of macro `{}`", self.table.macros[mi].name.name),
            ),
            None => d,
        }
    }

    fn compare(&mut self, id: FormId, frame: usize) {
        if frame == 0 {
            self.out.push(id);
            return;
        }
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Cmp { op, left, right } = &node.form else {
            return;
        };
        let op = *op;
        let form = match (self.subst(frame, left), self.subst_term(frame, right)) {
            (Term::Var(left), right) => Form::Cmp { op, left, right },
            (Term::Const(c), Term::Var(right)) => Form::Cmp {
                op: flip(op),
                left: right,
                right: Term::Const(c),
            },
            (Term::Const(a), Term::Const(b)) => {
                if holds(op, &a.text, &b.text) {
                    Form::True
                } else {
                    Form::False
                }
            }
        };
        self.push(form, span);
    }

    fn call(&mut self, id: FormId, frame: usize, under_prev: bool, ctx: Ctx<'s>) {
        let table = self.table;
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Call { name, args } = &node.form else {
            return;
        };
        let args: Vec<Term> = args.iter().map(|a| self.subst_term(frame, a)).collect();
        let name = name.clone();
        let n = name.name.as_str();

        if let Some(p) = ctx.prop.map(|p| &table.props[p]) {
            if let Some(&ri) = p.rule_by_name.get(n) {
                let rule = &p.rules[ri];
                if rule.params.len() != args.len() {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "rule `{n}` has {} but is called with {}",
                            params(rule.params.len()),
                            arguments(args.len())
                        ),
                    )
                    .with_note(rule.name.span, format!("rule `{n}` is defined here"));
                    let d = self.in_macro(frame, d);
                    self.diags.push(d);
                }
                if let (Some(owner), false) = (ctx.rule, under_prev) {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "rule `{n}` is referenced outside `@` in the body of rule `{}`; in a rule body, rules may only be referenced under `@` (at the previous event)",
                            owner.name
                        ),
                    );
                    let d = self.in_macro(frame, d);
                    self.diags.push(d);
                }
                return self.rebuild_call(id, frame, name, args, span);
            }
        }

        if let Some(&mi) = table.macro_by_name.get(n) {
            let m = &table.macros[mi];
            if ctx.prop.is_some() {
                self.found.macro_used[mi] = true;
            }
            if m.params.len() != args.len() {
                let d = Diagnostic::error(
                    span,
                    format!(
                        "macro `{n}` has {} but is called with {}",
                        params(m.params.len()),
                        arguments(args.len())
                    ),
                )
                .with_note(m.name.span, format!("macro `{n}` is defined here"));
                let d = self.in_macro(frame, d);
                self.diags.push(d);
                self.out.push(id);
                return;
            }
            if m.recursive || ctx.prop.is_none() || self.aborted {
                self.out.push(id);
                return;
            }
            if self.created > self.budget {
                self.aborted = true;
                self.diags.push(Diagnostic::error(
                    span,
                    format!(
                        "macro expansion is too large: it made more than {} formula nodes; macros that call other macros several times grow exponentially",
                        self.budget
                    ),
                ));
                self.out.push(id);
                return;
            }
            self.visited[mi] = true;
            let mut subst = HashMap::with_capacity(args.len());
            for (p, a) in m.params.iter().zip(args) {
                subst.entry(p.name.clone()).or_insert(a);
            }
            self.frames.push(Frame {
                subst,
                call: Some((span, mi)),
            });
            self.tasks.push(Task::EndFrame);
            self.tasks.push(Task::Enter {
                id: m.body,
                frame: self.frames.len() - 1,
                under_prev,
            });
            return;
        }

        // An event. In a macro checked on its own, a name that is a rule of
        // some property is left alone: it may be meant as that rule.
        if ctx.prop.is_none() && table.rule_names.contains(n) {
            return self.rebuild_call(id, frame, name, args, span);
        }
        let arity = args.len();
        match self.found.uses.get_mut(n) {
            Some(v) => v.push((span, arity)),
            None => {
                self.found.uses.insert(n.to_string(), vec![(span, arity)]);
            }
        }
        if ctx.prop.is_some() && !self.found.events.contains_key(n) {
            self.found.events.insert(n.to_string(), arity);
        }
        if let Some(first) = table.first_decl {
            if !table.decl_by_name.contains_key(n) {
                let d = Diagnostic::error(
                    name.span,
                    format!(
                        "event `{n}` is not declared; this specification declares its events, so add `{n}` to a declaration (or define a macro or rule `{n}`)"
                    ),
                )
                .with_note(first, "events are declared here");
                let d = self.in_macro(frame, d);
                self.diags.push(d);
            }
        }
        self.rebuild_call(id, frame, name, args, span)
    }

    fn rebuild_call(&mut self, id: FormId, frame: usize, name: Ident, args: Vec<Term>, span: Span) {
        if frame == 0 {
            self.out.push(id);
        } else {
            self.push(Form::Call { name, args }, span);
        }
    }
}

fn params(n: usize) -> String {
    if n == 1 {
        "1 parameter".to_string()
    } else {
        format!("{n} parameters")
    }
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

/// Whether `a op b` holds for two constants. `=` is equality of the texts (as
/// for trace values); the orders use [`compare_values`].
fn holds(op: RelOp, a: &str, b: &str) -> bool {
    let ord = compare_values(a.as_bytes(), b.as_bytes());
    match op {
        RelOp::Eq => a == b,
        RelOp::Lt => ord.is_lt(),
        RelOp::Le => ord.is_le(),
        RelOp::Gt => ord.is_gt(),
        RelOp::Ge => ord.is_ge(),
    }
}

#[cfg(test)]
mod tests {
    use crate::check::{Checked, check_source};
    use crate::syntax::{Arena, Form, FormId, Term};

    /// Fully parenthesised text of a (small) formula.
    fn show(arena: &Arena, id: FormId) -> String {
        let term = |t: &Term| match t {
            Term::Var(v) => v.name.clone(),
            Term::Const(c) => format!("\"{}\"", c.text),
        };
        match arena.form(id) {
            Form::True => "true".into(),
            Form::False => "false".into(),
            Form::Call { name, args } => {
                format!(
                    "{}({})",
                    name.name,
                    args.iter().map(term).collect::<Vec<_>>().join(",")
                )
            }
            Form::Cmp { op, left, right } => {
                format!("{} {} {}", left.name, op.symbol(), term(right))
            }
            Form::Not(a) => format!("!{}", show(arena, *a)),
            Form::Prev(a) => format!("@{}", show(arena, *a)),
            Form::Once(_, a) => format!("P {}", show(arena, *a)),
            Form::Hist(_, a) => format!("H {}", show(arena, *a)),
            Form::Bin(op, a, b) => {
                format!("({} {} {})", show(arena, *a), op.symbol(), show(arena, *b))
            }
            Form::Since(_, a, b) => format!("({} S {})", show(arena, *a), show(arena, *b)),
            Form::Zince(_, a, b) => format!("({} Z {})", show(arena, *a), show(arena, *b)),
            Form::Interval(a, b) => format!("[{}, {})", show(arena, *a), show(arena, *b)),
            Form::Quant(q, v, a) => format!("{} {} . {}", q.keyword(), v.name, show(arena, *a)),
        }
    }

    fn ok(text: &str) -> Checked {
        check_source(text).unwrap_or_else(|e| {
            panic!(
                "{:?}",
                e.iter().map(|d| d.render("t", text)).collect::<Vec<_>>()
            )
        })
    }

    fn body(c: &Checked, prop: usize) -> String {
        show(&c.arena, c.props[prop].body)
    }

    #[test]
    fn parameters_are_substituted() {
        let c =
            ok("pred isOpen(f) = !close(f) S open(f)\nprop p : Forall g . close(g) -> @ isOpen(g)");
        assert_eq!(
            body(&c, 0),
            "Forall g . (close(g) -> @(!close(g) S open(g)))"
        );
        let c = ok("pred m(a, b) = q(b, a, \"k\")\nprop p : m(\"x\", 5)");
        assert_eq!(body(&c, 0), "q(\"5\",\"x\",\"k\")");
    }

    #[test]
    fn statements_without_macros_are_kept() {
        let c = ok("prop p : Forall x . a(x) -> @ b(x)");
        let parsed_nodes = 5;
        assert_eq!(c.arena.len(), parsed_nodes);
        assert_eq!(c.props[0].body, FormId(4));
    }

    #[test]
    fn local_quantifiers_get_fresh_names_per_expansion() {
        let text =
            "pred seen(u) = exists m . P start(u, m)\nprop p : Forall m . seen(m) & @ seen(m)";
        let c = ok(text);
        let got = body(&c, 0);
        assert_eq!(
            got,
            "Forall m . (exists m'1 . P start(m,m'1) & @exists m'2 . P start(m,m'2))"
        );
    }

    #[test]
    fn constants_on_the_left_of_comparisons_are_flipped() {
        let text = "pred lt(a, b) = a < b\npred ge(a, b) = a >= b\n\
                    prop p : Forall x . q(x) -> lt(3, x) & ge(10, x) & lt(x, 4) & lt(9, 10) & lt(\"b9\", \"b10\") & ge(\"b\", \"a\")";
        let c = ok(text);
        assert_eq!(
            body(&c, 0),
            "Forall x . (q(x) -> (((((x > \"3\" & x <= \"10\") & x < \"4\") & true) & false) & true))"
        );
        let c = ok("pred eq(a, b) = a = b\nprop p : eq(7, 7) & eq(7, \"07\") & eq(1, 2)");
        assert_eq!(body(&c, 0), "((true & false) & false)");
    }

    #[test]
    fn nested_macros_expand_in_any_order() {
        let text = "prop p : forall it . important(it) -> safe1(it, 1000)\n\
                    pred safe1(i, k) = H (forall y . inner(i, y, k))\n\
                    pred inner(ii, yy, kk) = report(ii, yy) -> yy < kk";
        let c = ok(text);
        assert_eq!(
            body(&c, 0),
            "forall it . (important(it) -> H forall y'1 . (report(it,y'1) -> y'1 < \"1000\"))"
        );
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn rules_and_macros_inside_rules() {
        let text = "pred was(x) = @ r(x)\n\
                    prop p : Forall x . r(x) -> !q(x) where r(x) := s(x) | was(x)";
        let c = ok(text);
        assert_eq!(show(&c.arena, c.props[0].rules[0].body), "(s(x) | @r(x))");
        let got: Vec<_> = c.events.keys().cloned().collect();
        assert_eq!(got, vec!["q", "s"]);
        // The same macro used outside `@` in a rule body is an error, at the
        // call inside the macro, with a note at the macro call.
        let text =
            "pred now(x) = r(x)\nprop p : Forall x . r(x) where r(x) := s(x) | @ now(x) | now(x)";
        let errs = check_source(text).err().unwrap_or_default();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].span.start, text.find("r(x)\n").unwrap_or(0));
        assert!(errs[0].message.contains("outside `@`"));
        assert_eq!(errs[0].notes[0].0.start, text.rfind("now(x)").unwrap_or(0));
    }

    #[test]
    fn unused_macros_are_still_checked() {
        let errs = check_source("pred m(x) = a(x, x)\nprop p : Forall y . a(y)")
            .err()
            .unwrap_or_default();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0]
                .message
                .contains("event `a` is used with 1 argument here, but with 2")
        );
        let c = ok("pred m(x) = a(x)\npred n = m(1)\nprop p : Forall y . a(y)");
        let w: Vec<_> = c.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            w,
            vec![
                "macro `m` is never used by any property",
                "macro `n` is never used by any property"
            ]
        );
    }

    #[test]
    fn exponential_expansion_is_bounded() {
        let mut text = String::from("pred m0 = a\n");
        for i in 1..40 {
            text.push_str(&format!("pred m{i} = m{} & m{}\n", i - 1, i - 1));
        }
        text.push_str("prop p : m39\n");
        let errs = check_source(&text).err().unwrap_or_default();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message.contains("macro expansion is too large"));
    }
}
