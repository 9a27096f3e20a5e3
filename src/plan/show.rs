//! Printing a plan for `hindsight compile`.

use std::fmt::Write as _;

use super::{Arg, Op, Plan, PropPlan, VarKind};
use crate::syntax::walk::{Fold, Kids, Step, Walker};

impl PropPlan {
    /// How a node is written in the plan listing (children as `nK`).
    pub fn describe(&self, n: usize) -> String {
        let var = |v: usize| self.vars[v].label.clone();
        let arg = |a: &Arg| match a {
            Arg::Var(v) => var(*v),
            Arg::Const(c) => format!("{c:?}"),
        };
        let args = |args: &[Arg]| {
            if args.is_empty() {
                String::new()
            } else {
                format!("({})", args.iter().map(arg).collect::<Vec<_>>().join(", "))
            }
        };
        match &self.nodes[n].op {
            Op::True => "true".into(),
            Op::False => "false".into(),
            Op::Atom { event, args: a } => format!("{event}{}", args(a)),
            Op::Cmp { op, left, right } => format!("{} {} {}", var(*left), op.symbol(), arg(right)),
            Op::Not(a) => format!("!n{a}"),
            Op::Prev(a) => format!("@n{a}"),
            Op::And(a, b) => format!("n{a} & n{b}"),
            Op::Or(a, b) => format!("n{a} | n{b}"),
            Op::Implies(a, b) => format!("n{a} -> n{b}"),
            Op::Iff(a, b) => format!("n{a} <-> n{b}"),
            Op::Since(a, b) => format!("n{a} S n{b}"),
            Op::SinceTimed(t, a, b) => format!("n{a} S{t} n{b}"),
            Op::Gap(t) => format!("gap{t}"),
            Op::Zince(d, a, b) => format!("n{a} Z[<={d}] n{b}"),
            Op::Next(t, a) if t.is_trivial() => format!("X n{a}"),
            Op::Next(t, a) => format!("X{t} n{a}"),
            Op::Until(t, a, b) => format!("n{a} U{t} n{b}"),
            Op::Quant(q, v, a) => format!("{} {} . n{a}", q.keyword(), var(*v)),
            Op::RuleCall { rule, args: a } => format!("{}{}", self.rules[*rule].name, args(a)),
            Op::Assign { body, target, term } => {
                let term = super::compute::show_term(term, &var);
                format!("n{body} & {} = {term}", var(*target))
            }
            Op::Filter { body, cond } => {
                format!("n{body} & {}", super::compute::show_cond(cond, &var))
            }
            Op::Agg {
                op,
                result,
                of,
                group,
                once,
                body,
            } => {
                let group: Vec<String> = group.iter().map(|&g| var(g)).collect();
                let group = if group.is_empty() {
                    String::new()
                } else {
                    format!("; {}", group.join(", "))
                };
                let once = match once {
                    Some(t) if t.is_trivial() => "P ".to_string(),
                    Some(t) => format!("P{t} "),
                    None => String::new(),
                };
                format!(
                    "{} <- {} {}{group} . {once}n{body}",
                    var(*result),
                    op.keyword(),
                    var(*of)
                )
            }
        }
    }

    /// Node `n` as one formula, binary operators in parentheses (for
    /// `hindsight compile --explain`; a rule call shows as the call).
    pub fn formula(&self, n: usize) -> String {
        struct Text<'p>(&'p PropPlan);
        impl Fold for Text<'_> {
            type Node = usize;
            type Ctx = ();
            type Out = String;
            fn enter(&mut self, n: usize, _: &()) -> Step<usize, (), String> {
                match &self.0.nodes[n].op {
                    Op::Prev(a) => Step::Into(Kids::one(*a), ()),
                    op if op.same_step_kids().is_empty() => Step::Done(self.0.describe(n)),
                    op => Step::Into(op.same_step_kids(), ()),
                }
            }
            fn leave(&mut self, n: usize, _: &(), [a, b]: [String; 2]) -> String {
                let p = self.0;
                match &p.nodes[n].op {
                    Op::Not(_) => format!("!{a}"),
                    Op::Prev(_) => format!("@{a}"),
                    Op::And(..) => format!("({a} & {b})"),
                    Op::Or(..) => format!("({a} | {b})"),
                    Op::Implies(..) => format!("({a} -> {b})"),
                    Op::Iff(..) => format!("({a} <-> {b})"),
                    Op::Since(..) => format!("({a} S {b})"),
                    Op::SinceTimed(t, ..) => format!("({a} S{t} {b})"),
                    Op::Zince(d, ..) => format!("({a} Z[<={d}] {b})"),
                    Op::Next(t, _) if t.is_trivial() => format!("X {a}"),
                    Op::Next(t, _) => format!("X{t} {a}"),
                    Op::Until(t, ..) => format!("({a} U{t} {b})"),
                    Op::Quant(q, v, _) => format!("({} {} . {a})", q.keyword(), p.vars[*v].label),
                    _ => p.describe(n),
                }
            }
        }
        Walker::new().fold(&mut Text(self), n, ())
    }

    /// The listing of this property's monitor: variables, rules and the
    /// subformulas in evaluation order. `source` is the specification text.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "property {}: {}, {} in {}, {}",
            self.name,
            count(self.nodes.len(), "subformula", "subformulas"),
            count(self.vars.len(), "variable", "variables"),
            count(self.classes, "enumeration class", "enumeration classes"),
            count(self.bdd_vars, "BDD variable", "BDD variables")
        );
        if !self.vars.is_empty() {
            let _ = writeln!(out, "  variables:");
            for (i, v) in self.vars.iter().enumerate() {
                let kind = match v.kind {
                    VarKind::Quantified(q) => q.keyword().to_string(),
                    VarKind::RuleParam(r) => format!("parameter of {}", self.rules[r].name),
                };
                let seen = if v.needs_seen {
                    ", seen values tracked"
                } else {
                    ""
                };
                // Variables that never occur free together may share bits
                // (see `share_bits`): name the first one with the same bits.
                let shared = self.vars[..i]
                    .iter()
                    .find(|w| w.bits.first() == v.bits.first())
                    .map(|w| format!(", bits of {}", w.label))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "    {:<12} {kind}, class {}{seen}{shared}",
                    v.label, v.class
                );
            }
        }
        if !self.rules.is_empty() {
            let _ = writeln!(out, "  rules (relations evaluated in phase b):");
            for r in &self.rules {
                let params: Vec<_> = r
                    .params
                    .iter()
                    .map(|&p| self.vars[p].label.clone())
                    .collect();
                let _ = writeln!(out, "    {}({}) := n{}", r.name, params.join(", "), r.body);
            }
        }
        if !self.time_bits.is_empty() {
            let _ = writeln!(
                out,
                "  time stamps: {} bits (modular)",
                self.time_bits.len()
            );
        }
        let _ = writeln!(
            out,
            "  evaluation order{}:",
            if self.rules.is_empty() {
                ""
            } else {
                " (a: rule bodies, b: rule relations, c: rule bodies under @, d: statement)"
            }
        );
        for (i, node) in self.nodes.iter().enumerate() {
            let free: Vec<_> = node
                .free
                .iter()
                .map(|&v| self.vars[v].label.as_str())
                .collect();
            let text = source.get(node.span.start..node.span.end).unwrap_or("");
            let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let text = if text.chars().count() > 60 {
                format!("{}...", text.chars().take(57).collect::<String>())
            } else {
                text
            };
            let phase = if self.rules.is_empty() {
                String::new()
            } else {
                format!("({}) ", node.phase.label())
            };
            let root = if i == self.root { "  <- statement" } else { "" };
            let _ = writeln!(
                out,
                "    {phase}n{i:<4} {:<28} free {{{}}}   {text}{root}",
                self.describe(i),
                free.join(", ")
            );
        }
        out
    }
}

impl Plan {
    /// The listing of every property's monitor.
    pub fn render(&self, source: &str) -> String {
        let mut out = String::new();
        let events: Vec<String> = self
            .events
            .iter()
            .map(|(e, n)| format!("{e}/{n}"))
            .collect();
        let _ = writeln!(
            out,
            "events: {}",
            if events.is_empty() {
                "(none)".to_string()
            } else {
                events.join(", ")
            }
        );
        for p in &self.props {
            out.push_str(&p.render(source));
        }
        out
    }
}

/// `n` with the singular or plural noun.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
