//! Tick invariance: whether a step at which no atom of a property matches
//! (a *tick*: in a sliced run, an event of another slice or of a name the
//! property does not mention) can change the property's state, and what its
//! verdict is. When a tick changes nothing and its verdict is known, a slice
//! may skip its ticks instead of stepping them, and receives only its own
//! events.
//!
//! The test evaluates every subformula at a tick in three values (false,
//! true, unknown): atoms are false, comparisons unknown (they depend on the
//! values seen, which a tick leaves as they are), and every `φ S ψ` keeps its
//! previous value, which is unknown. That is exact when, at a tick, `ψ` is
//! false and `φ` true under every assignment: then `φ S ψ` is its previous
//! value again, it is *stable*. A subformula is stable when it has no atom
//! and no `@` outside its `S`s, which must be stable: its value at a tick is
//! its value at the step before. `@φ` reads φ at the previous step, so φ must
//! be stable for a skipped tick to leave what the next step reads unchanged.
//! No time bound (time moves at a tick) and no rules are allowed.
//!
//! Then the verdict at a tick is known: the statement *holds* at a tick when
//! it is true there in three values (`close(f) -> ...`: a tick is never a
//! violation), and it is *as before* when it is stable (`P r(x) & P w(x) ->
//! Exists l . H ...`: a tick is violated when the step before it was).
//!
//! One tick before the first step does matter: `@!P p(x)` is true at the
//! second event when the first is a tick, and false when it is skipped. So
//! a slice steps the ticks before its first event (see
//! [`crate::parallel`]).

use super::{Op, PropPlan};
use crate::syntax::Quant;
use std::collections::BTreeSet;

/// A value at a tick, the same for every assignment, or unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tri {
    False,
    True,
    Unknown,
}

impl Tri {
    fn not(self) -> Tri {
        match self {
            Tri::False => Tri::True,
            Tri::True => Tri::False,
            Tri::Unknown => Tri::Unknown,
        }
    }

    fn and(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::False, _) | (_, Tri::False) => Tri::False,
            (Tri::True, Tri::True) => Tri::True,
            _ => Tri::Unknown,
        }
    }

    fn or(self, other: Tri) -> Tri {
        self.not().and(other.not()).not()
    }
}

/// The verdict of a tick-invariant property at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickVerdict {
    /// It holds at every tick.
    Holds,
    /// It is violated at a tick exactly when it was at the step before.
    AsBefore,
}

impl PropPlan {
    /// The event names whose steps can change this property's state: the
    /// atoms read by its `S` nodes and by the operands of its `@`s, down to
    /// the leaves. For a tick-invariant property, any other event steps
    /// like a tick (the atoms the state reads are all false at it), which
    /// leaves the state as it was once the property has had a first step.
    pub fn state_events(&self) -> BTreeSet<&str> {
        let mut todo: Vec<usize> = (self.nodes.iter().enumerate())
            .flat_map(|(n, node)| match node.op {
                Op::Since(..) | Op::SinceTimed(..) | Op::Zince(..) => vec![n],
                Op::Prev(a) => vec![a],
                _ => Vec::new(),
            })
            .collect();
        let mut seen = vec![false; self.nodes.len()];
        let mut out = BTreeSet::new();
        while let Some(n) = todo.pop() {
            if std::mem::replace(&mut seen[n], true) {
                continue;
            }
            match &self.nodes[n].op {
                Op::Atom { event, .. } => {
                    out.insert(event.as_str());
                }
                Op::Prev(a) => todo.push(*a),
                op => todo.extend(op.same_step_kids().iter()),
            }
        }
        out
    }

    /// Whether a tick leaves this property's state unchanged, with its
    /// verdict at a tick (see [`ticks`](self)); else why not.
    pub fn tick_invariant(&self) -> Result<TickVerdict, String> {
        if !self.rules.is_empty() {
            return Err("its rules are evaluated at every step".into());
        }
        let mut at_tick: Vec<Tri> = Vec::with_capacity(self.nodes.len());
        let mut stable: Vec<bool> = Vec::with_capacity(self.nodes.len());
        for (n, node) in self.nodes.iter().enumerate() {
            let v = |k: usize| at_tick[k];
            let kids_stable = node.op.same_step_kids().iter().all(|k| stable[k]);
            let (value, is_stable) = match node.op {
                Op::True => (Tri::True, true),
                Op::False => (Tri::False, true),
                Op::Atom { .. } => (Tri::False, false),
                Op::Cmp { .. } => (Tri::Unknown, true),
                Op::Not(a) => (v(a).not(), kids_stable),
                Op::And(a, b) => (v(a).and(v(b)), kids_stable),
                Op::Or(a, b) => (v(a).or(v(b)), kids_stable),
                Op::Implies(a, b) => (v(a).not().or(v(b)), kids_stable),
                Op::Iff(a, b) => match (v(a), v(b)) {
                    (Tri::Unknown, _) | (_, Tri::Unknown) => (Tri::Unknown, kids_stable),
                    (x, y) => (if x == y { Tri::True } else { Tri::False }, kids_stable),
                },
                Op::Since(a, b) => {
                    if v(a) != Tri::True || v(b) != Tri::False {
                        return Err(format!(
                            "`{}` may change at a step where no atom matches",
                            self.formula(n)
                        ));
                    }
                    (Tri::Unknown, true)
                }
                // Over all values: a body that is the same for every
                // assignment gives the same answer. Over the values seen,
                // none may have been seen yet.
                Op::Quant(Quant::Exists | Quant::Forall, _, a) => (v(a), kids_stable),
                Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, _, _) => {
                    (Tri::Unknown, kids_stable)
                }
                Op::Prev(a) => {
                    if !stable[a] {
                        return Err(format!(
                            "`{}` reads a subformula that may change at a step where no atom matches",
                            self.formula(n)
                        ));
                    }
                    (Tri::Unknown, false)
                }
                Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => {
                    return Err("its time bounds see time move at every step".into());
                }
                Op::Next(..) | Op::Until(..) => {
                    return Err("its future operators are decided at later steps".into());
                }
                Op::RuleCall { .. } => return Err("its rules are evaluated at every step".into()),
                Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => {
                    return Err("it computes values (arithmetic or aggregations)".into());
                }
            };
            at_tick.push(value);
            stable.push(is_stable);
        }
        match (at_tick.get(self.root), stable.get(self.root)) {
            (Some(Tri::True), _) => Ok(TickVerdict::Holds),
            (_, Some(true)) => Ok(TickVerdict::AsBefore),
            _ => Err("its statement at a step where no atom matches is unknown".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::compile_source;

    use super::TickVerdict;

    fn invariant(spec: &str) -> Result<TickVerdict, String> {
        let (plan, _) = compile_source(spec).expect("well-formed");
        plan.props[0].tick_invariant()
    }

    #[test]
    fn intervals_guarded_by_an_event_are_invariant() {
        invariant(
            "prop a : Forall u . Forall f . access(u,f) -> \
             [login(u),logout(u)) & [open(f),close(f))",
        )
        .expect("invariant");
        invariant("prop b : Forall f . close(f) -> Exists m . [open(f,m),close(f))")
            .expect("invariant");
        invariant("prop c : Forall x . q(x) -> !P p(x)").expect("invariant");
        invariant("prop d : Forall x . q(x) -> H !p(x)").expect("invariant");
        // `@` of a stable subformula.
        invariant("prop e : Forall f . close(f) -> Exists m . @ [open(f,m),close(f))")
            .expect("invariant");
    }

    #[test]
    fn a_stable_statement_is_violated_at_a_tick_as_before() {
        for spec in [
            "prop a : Forall x . P p(x)",
            "prop b : Forall x . (P r(x) & P w(x)) -> Exists l . H (w(x) -> [a(l),b(l)))",
        ] {
            assert_eq!(invariant(spec), Ok(TickVerdict::AsBefore), "{spec}");
        }
        assert_eq!(
            invariant("prop h : Forall x . q(x) -> P p(x)"),
            Ok(TickVerdict::Holds)
        );
    }

    #[test]
    fn what_a_tick_changes_is_refused() {
        for (spec, why) in [
            ("prop a : Forall x . q(x) -> @ p(x)", "`@p(x)` reads"),
            ("prop a : Forall x . q(x) -> (q(x) S p(x))", "may change"),
            ("prop a : Forall x . q(x) -> P[<=3] p(x)", "time"),
            ("prop a : Forall x . p(x) | P q(x)", "statement"),
            ("prop a : Forall x . !q(x) -> @ P p(x)", "statement"),
            (
                "prop a : Forall x . q(x) -> r(x) where r(x) := p(x) | @r(x)",
                "rules",
            ),
        ] {
            let e = invariant(spec).expect_err(spec);
            assert!(e.contains(why), "{spec}: {e}");
        }
    }
}
