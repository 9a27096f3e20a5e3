//! Which subformulas wait for the future: the bounded future operators
//! (`X`, `U`, and `F`, `G` through them) and everything that reads them.
//!
//! A subformula is *delayed* when its value at an event depends on later
//! events: it is a future operator, or it reads a delayed subformula at the
//! same event (an operand, the body of a called rule) or at the previous one
//! (`@`). Every other subformula is *immediate*: its value at an event is
//! known when the event is read, and the monitor computes it then, as for a
//! past-time property. Delayed subformulas are computed event by event, in
//! trace order, once the values they read are known (see
//! `runtime::prop::future`); the immediate subformulas they read are their
//! *feeds*, whose values are kept from the event they were computed at
//! until every delayed reader has used them.

use super::{NodeIx, Op, PropPlan, VarIx};
use crate::syntax::Quant;

/// The delayed subformulas of a property and the immediate ones they read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delays {
    /// Per node: whether its value waits for later events.
    pub delayed: Vec<bool>,
    /// The immediate nodes that delayed nodes read, in plan order.
    pub feeds: Vec<NodeIx>,
}

impl Delays {
    /// Whether the property has a future operator at all.
    pub fn any(&self) -> bool {
        self.delayed.iter().any(|&d| d)
    }
}

/// A delayed statement that is false only at the assignments of an
/// immediate *guard*: `Forall x̄ . guard -> body` or `Forall x̄ . !(guard &
/// body)` (as an MFOTL pattern `guard AND NOT ...` reads), where the guard
/// is an event pattern over every variable of `x̄` (or a conjunction with
/// one), and the body is made of connectives, `X`, `U` and immediate
/// subformulas. At a step, the guard holds for the few tuples of the step's
/// events; the statement is decided there by evaluating the body at each
/// of them, position by position, without computing any delayed
/// subformula as a set (see `runtime::prop::future::point`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointForm {
    /// The statement's leading `Forall` variables, outermost first.
    pub vars: Vec<VarIx>,
    /// The guard: immediate, its free variables exactly `vars`.
    pub guard: NodeIx,
    /// The event patterns of the guard that mention every variable.
    pub atoms: Vec<NodeIx>,
    /// The delayed body.
    pub body: NodeIx,
    /// The body's value at which the statement is false (false for
    /// `guard -> body`, true for `!(guard & body)`).
    pub bad: bool,
    /// How far in time the body looks ahead, when that is bounded (no `X`,
    /// which may jump any time ahead): the most of the sums of the upper
    /// bounds of the `U` on a path down. At a position, once a later one
    /// is known that is further than this, the body has a definite value.
    pub reach: Option<u64>,
}

/// What node `n` reads: its operands at the same event, the operand of `@`
/// at the previous event, the body of a called rule.
pub fn reads(plan: &PropPlan, n: NodeIx) -> impl Iterator<Item = NodeIx> {
    let op = &plan.nodes[n].op;
    let extra = match op {
        Op::Prev(a) => Some(*a),
        Op::RuleCall { rule, .. } => Some(plan.rules[*rule].body),
        _ => None,
    };
    let kids: Vec<NodeIx> = op.same_step_kids().iter().collect();
    kids.into_iter().chain(extra)
}

impl PropPlan {
    /// The statement's [`PointForm`], if it has one.
    pub fn point_form(&self, delays: &Delays) -> Option<PointForm> {
        let mut n = self.root;
        let mut vars = Vec::new();
        while let Op::Quant(Quant::Forall, v, a) = self.nodes[n].op {
            vars.push(v);
            n = a;
        }
        let (pair, bad) = match self.nodes[n].op {
            Op::Implies(a, b) => ([(a, b)].to_vec(), false),
            Op::Not(m) => match self.nodes[m].op {
                Op::And(a, b) => ([(a, b), (b, a)].to_vec(), true),
                _ => return None,
            },
            _ => return None,
        };
        let mut sorted = vars.clone();
        sorted.sort_unstable();
        for (guard, body) in pair {
            if delays.delayed[guard] || self.nodes[guard].free != sorted {
                continue;
            }
            let atoms = self.covering_atoms(guard, &sorted);
            if !atoms.is_empty() && self.pointwise(body, delays) {
                return Some(PointForm {
                    vars,
                    guard,
                    atoms,
                    body,
                    bad,
                    reach: self.reach(body, delays),
                });
            }
        }
        None
    }

    /// The event patterns of the conjunction `g` whose free variables are
    /// `vars`: any of them limits `g` to the tuples of a step's events.
    fn covering_atoms(&self, g: NodeIx, vars: &[VarIx]) -> Vec<NodeIx> {
        let mut out = Vec::new();
        let mut todo = vec![g];
        while let Some(n) = todo.pop() {
            match self.nodes[n].op {
                Op::Atom { .. } if self.nodes[n].free == vars => out.push(n),
                Op::And(a, b) => todo.extend([a, b]),
                _ => {}
            }
        }
        out.sort_unstable();
        out
    }

    /// Whether the delayed nodes under `n` (through delayed nodes only)
    /// are all connectives, `X` or `U`, so that `n` can be evaluated at a
    /// tuple from its immediate parts' sets.
    fn pointwise(&self, n: NodeIx, delays: &Delays) -> bool {
        let mut todo = vec![n];
        while let Some(k) = todo.pop() {
            if !delays.delayed[k] {
                continue;
            }
            match self.nodes[k].op {
                Op::Not(_)
                | Op::And(..)
                | Op::Or(..)
                | Op::Implies(..)
                | Op::Iff(..)
                | Op::Next(..)
                | Op::Until(..) => todo.extend(self.nodes[k].op.same_step_kids().iter()),
                _ => return false,
            }
        }
        true
    }

    /// How far in time a pointwise node looks ahead (see
    /// [`PointForm::reach`]): `None` with an `X` below it.
    fn reach(&self, n: NodeIx, delays: &Delays) -> Option<u64> {
        if !delays.delayed[n] {
            return Some(0);
        }
        let below = |k: NodeIx| self.reach(k, delays);
        match self.nodes[n].op {
            Op::Next(..) => None,
            Op::Until(t, a, b) => {
                let hi = t.hi?;
                hi.checked_add(below(a)?.max(below(b)?))
            }
            ref op => op
                .same_step_kids()
                .iter()
                .try_fold(0u64, |most, k| Some(most.max(below(k)?))),
        }
    }

    /// The delayed subformulas and their feeds (see the [module](self)).
    pub fn delays(&self) -> Delays {
        let n = self.nodes.len();
        let mut delayed: Vec<bool> = self
            .nodes
            .iter()
            .map(|node| matches!(node.op, Op::Next(..) | Op::Until(..)))
            .collect();
        if !delayed.iter().any(|&d| d) {
            return Delays {
                delayed,
                feeds: Vec::new(),
            };
        }
        // `@` and rule calls may read nodes after them in the plan's order:
        // repeat until nothing changes (at most one pass per such edge).
        loop {
            let mut changed = false;
            for i in 0..n {
                if !delayed[i] && reads(self, i).any(|k| delayed[k]) {
                    delayed[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut is_feed = vec![false; n];
        for i in (0..n).filter(|&i| delayed[i]) {
            for k in reads(self, i) {
                if !delayed[k] {
                    is_feed[k] = true;
                }
            }
        }
        Delays {
            feeds: (0..n).filter(|&i| is_feed[i]).collect(),
            delayed,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::compile_source;

    /// The formulas of the delayed nodes of the first property of `spec`.
    fn delayed(spec: &str) -> (Vec<String>, Vec<String>) {
        let (plan, _) = compile_source(spec).expect("well-formed");
        let p = &plan.props[0];
        let d = p.delays();
        let names = |ns: Vec<usize>| {
            let mut v: Vec<String> = ns.into_iter().map(|n| p.formula(n)).collect();
            v.sort();
            v
        };
        let delayed = (0..p.nodes.len()).filter(|&n| d.delayed[n]).collect();
        (names(delayed), names(d.feeds.clone()))
    }

    #[test]
    fn past_properties_have_nothing_delayed() {
        let (d, f) = delayed("prop p : Forall x . b(x) -> @ P a(x)");
        assert!(d.is_empty() && f.is_empty());
    }

    #[test]
    fn a_future_operator_delays_what_reads_it() {
        let (d, f) = delayed("prop p : Forall r . req(r) -> F[<=5] resp(r)");
        assert_eq!(
            d,
            [
                "(Forall r . (req(r) -> (true U[<=5] resp(r))))",
                "(req(r) -> (true U[<=5] resp(r)))",
                "(true U[<=5] resp(r))",
            ]
        );
        assert_eq!(f, ["req(r)", "resp(r)", "true"]);
    }

    /// The point form's guard and body, as formulas, and its bad value.
    fn point(spec: &str) -> Option<(String, String, bool)> {
        let (plan, _) = compile_source(spec).expect("well-formed");
        let p = &plan.props[0];
        let f = p.point_form(&p.delays())?;
        Some((p.formula(f.guard), p.formula(f.body), f.bad))
    }

    #[test]
    fn guarded_statements_have_a_point_form() {
        assert_eq!(
            point("prop p : Forall r . req(r) -> F[<=5] resp(r)"),
            Some(("req(r)".into(), "(true U[<=5] resp(r))".into(), false))
        );
        // MonPoly's pattern `req(r) AND NOT EVENTUALLY[0,5] resp(r)`.
        assert_eq!(
            point("prop p : Forall r . !(req(r) & !F[<=5] resp(r))"),
            Some(("req(r)".into(), "!(true U[<=5] resp(r))".into(), true))
        );
        // A guard without variables, a conjunction with a comparison.
        assert!(point("prop p : lock -> G[1,2] !write").is_some());
        assert!(point("prop p : Forall x . (a(x) & x > 3) -> X b(x)").is_some());
        // No guard over every variable, or a body that is no connective,
        // `X` or `U` of immediate parts: sets.
        assert_eq!(
            point("prop p : Forall x . Forall y . a(x) -> F[<=2] b(x, y)"),
            None
        );
        assert_eq!(point("prop p : Forall x . a(x) -> @ F[<=2] b(x)"), None);
        assert_eq!(
            point("prop p : Forall x . a(x) -> Exists y . F[<=2] b(x, y)"),
            None
        );
    }

    #[test]
    fn delays_pass_through_previous_and_rules() {
        let spec = "prop p : Forall x . q(x) -> r(x) where r(x) := @ r(x) | X a(x)";
        let (d, f) = delayed(spec);
        // The rule's body, its relation, `@` of it, the call and the statement.
        for s in [
            "@r(r.x)",
            "X a(r.x)",
            "(@r(r.x) | X a(r.x))",
            "r(x)",
            "(q(x) -> r(x))",
        ] {
            assert!(d.iter().any(|x| x == s), "{s} not in {d:?}");
        }
        assert_eq!(f, ["a(r.x)", "q(x)"]);
    }
}
