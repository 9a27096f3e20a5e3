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

use super::{NodeIx, Op, PropPlan};

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
