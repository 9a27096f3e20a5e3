//! Restriction instead of conjunction: `Exists z . (φ & a(.., z, ..))`,
//! with `a` an event pattern that binds `z`, is at each event the union,
//! over the event's matches of `a`, of φ restricted to `z = ` the match's
//! code, conjoined with the cube of the match's other variables:
//!
//! `∃z.(φ ∧ ⋁ₘ (z = cₘ ∧ Cₘ)) = ⋁ₘ (φ[z := cₘ] ∧ Cₘ)`
//!
//! (the code cube fixes every bit of `z` that a summary depends on). That is
//! a cofactor of φ per match instead of a conjunction over every binding and
//! a quantification; at an event that is not `a` it is false at once.
//!
//! When φ is `@r(..)`, a call of a rule, the cofactor is taken of the
//! rule's relation at the previous event, before the call's renaming:
//! restricting `σ(B)` at `z = c` is restricting `B` at every parameter bit
//! that σ maps onto a bit of `z`, then renaming. So neither `@r(..)` nor the
//! call `r(..)` itself is computed at every event (no renaming of the whole
//! relation); the call's previous value, still a kept summary for profiles
//! and garbage collection, is derived from the relation's when asked for.
//!
//! All of this applies with point evaluation on; with it off every node is
//! computed as written (the two must agree).

use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::syntax::Quant;
use crate::syntax::walk::Kids;

/// Where the restricted formula φ comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A node computed as a set: its `now`.
    Set(NodeIx),
    /// `@call` for a rule call `call`: the `pre` of the rule's `body`, with
    /// the call's substitution, which after the restriction is the identity
    /// unless `renames` (when it moves a bit to another than the
    /// quantified variable's).
    PreCall {
        call: NodeIx,
        body: NodeIx,
        renames: bool,
    },
}

/// A quantifier `Exists var . (source & atom)` evaluated by restriction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Restricted {
    pub var: VarIx,
    pub atom: NodeIx,
    pub source: Source,
}

impl Restricted {
    /// Whether the quantifier may have changed, given which nodes changed
    /// at this event and at the previous one, whether it was `empty` (false)
    /// at the previous event, and the atoms `matched` at this one. (Unless
    /// its atom matches, it is false.)
    #[inline(never)]
    pub(super) fn dirty(
        &self,
        changed: &[bool],
        pre_changed: &[bool],
        empty: bool,
        matched: &[(NodeIx, std::ops::Range<usize>)],
    ) -> bool {
        !empty
            || matched.iter().any(|(m, _)| *m == self.atom)
            || match self.source {
                Source::Set(p) => changed[p],
                Source::PreCall { body, .. } => pre_changed[body],
            }
    }
}

/// The result of [`analyse`].
#[derive(Clone, Debug, Default)]
pub(super) struct Bypass {
    /// Per node: how it is evaluated by restriction, if it is.
    pub restricted: Vec<Option<Restricted>>,
    /// Whether any node is.
    pub any: bool,
    /// Per node: not computed with point evaluation on (nothing reads it then).
    pub skipped: Vec<bool>,
    /// Skipped rule calls whose previous value is kept: derived from their
    /// rule's relation when asked for.
    pub lazy: Vec<NodeIx>,
    /// Per node: a rule body whose previous value is kept only for the
    /// restrictions (not a summary of the plan's own).
    pub hidden: Vec<bool>,
}

/// Finds the quantifiers evaluated by restriction and the nodes that no
/// longer need computing with point evaluation on. `needs_set` and
/// `keeps_pre` are the point analysis's and the compiled property's, and
/// `call_pairs` the bits each rule call's substitution moves.
pub(super) fn analyse(
    plan: &PropPlan,
    needs_set: &[bool],
    keeps_pre: &[bool],
    call_pairs: &[Vec<(BddVar, BddVar)>],
) -> Bypass {
    let n = plan.nodes.len();
    let restricted: Vec<Option<Restricted>> =
        (0..n).map(|k| restricted(plan, call_pairs, k)).collect();
    let bodies: Vec<NodeIx> = plan.rules.iter().map(|r| r.body).collect();
    // Nodes that must be computed whatever reads them: the statement (read
    // by point evaluation and witnesses), rule relations and everything with
    // a state of its own. (An atom that only restrictions read, through the
    // event's matches, is not computed.)
    let mut blocked = vec![false; n];
    let mut stack = vec![plan.root];
    while let Some(k) = stack.pop() {
        if k < n && !std::mem::replace(&mut blocked[k], true) {
            match plan.nodes[k].op {
                Op::Prev(a) => stack.push(a),
                ref op => stack.extend(op.same_step_kids().iter()),
            }
        }
    }
    for (k, node) in plan.nodes.iter().enumerate() {
        let stateful = match node.op {
            Op::Cmp { .. } | Op::Since(..) | Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => {
                true
            }
            Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => true,
            Op::RuleCall { .. } => false,
            _ => keeps_pre[k],
        };
        if stateful || !needs_set[k] || bodies.contains(&k) {
            blocked[k] = true;
        }
    }
    // A node is skipped when every node that reads it is skipped: start
    // from the blocked ones and unskip what they read.
    let mut skipped: Vec<bool> = blocked.iter().map(|b| !b).collect();
    let mut work: Vec<NodeIx> = (0..n).filter(|&k| !skipped[k]).collect();
    while let Some(k) = work.pop() {
        for r in reads(plan, &restricted, k).iter() {
            if std::mem::replace(&mut skipped[r], false) {
                work.push(r);
            }
        }
    }
    let lazy: Vec<NodeIx> = (0..n).filter(|&k| skipped[k] && keeps_pre[k]).collect();
    let mut hidden = vec![false; n];
    let mut keep_body = |body: NodeIx| hidden[body] = !keeps_pre[body];
    for &q in &lazy {
        if let Op::RuleCall { rule, .. } = plan.nodes[q].op {
            keep_body(plan.rules[rule].body);
        }
    }
    for r in restricted.iter().flatten() {
        if let Source::PreCall { body, .. } = r.source {
            keep_body(body);
        }
    }
    Bypass {
        any: restricted.iter().any(Option::is_some),
        restricted,
        skipped,
        lazy,
        hidden,
    }
}

/// Node `k` as a quantifier evaluated by restriction, if it has that shape.
fn restricted(
    plan: &PropPlan,
    call_pairs: &[Vec<(BddVar, BddVar)>],
    k: NodeIx,
) -> Option<Restricted> {
    let Op::Quant(Quant::Exists, var, body) = plan.nodes[k].op else {
        return None;
    };
    let Op::And(l, r) = plan.nodes[body].op else {
        return None;
    };
    let binds = |a: NodeIx| matches!(&plan.nodes[a].op, Op::Atom { args, .. } if args.contains(&Arg::Var(var)));
    let (atom, other) = if binds(r) {
        (r, l)
    } else if binds(l) {
        (l, r)
    } else {
        return None;
    };
    let source = match plan.nodes[other].op {
        Op::Prev(call) => match plan.nodes[call].op {
            Op::RuleCall { rule, .. } => Source::PreCall {
                call,
                body: plan.rules[rule].body,
                renames: call_pairs[call]
                    .iter()
                    .any(|(_, to)| !plan.vars[var].bits.contains(to)),
            },
            _ => Source::Set(other),
        },
        _ => Source::Set(other),
    };
    Some(Restricted { var, atom, source })
}

/// The nodes that `k` reads within an event with point evaluation on (a
/// restriction reads its atom's matches, not its value).
pub(super) fn reads(plan: &PropPlan, restricted: &[Option<Restricted>], k: NodeIx) -> Kids<NodeIx> {
    if let Some(r) = restricted[k] {
        return Kids::one(match r.source {
            Source::Set(p) => p,
            Source::PreCall { body, .. } => body,
        });
    }
    match plan.nodes[k].op {
        Op::Prev(a) => Kids::one(a),
        Op::RuleCall { rule, .. } => Kids::one(plan.rules[rule].body),
        ref op => op.same_step_kids(),
    }
}

impl PropMonitor {
    /// The value of the quantifier `r` describes, at this step.
    pub(super) fn restricted_value(&self, space: &mut Space, r: Restricted) -> Bdd {
        let ff = space.ff();
        self.restricted_into(space, r, ff, false)
    }

    /// `into ∨` the value of the quantifier `r` describes, at this step, in
    /// one walk per match (`r` has no renaming; see [`absorb`](super::absorb)).
    pub(super) fn absorbed_value(&self, space: &mut Space, into: Bdd, r: Restricted) -> Bdd {
        self.restricted_into(space, r, into, true)
    }

    /// `acc ∨` the value of the quantifier `r`: per match, the source
    /// restricted at the match's value of the quantified variable, times the
    /// cube of its other values; each in one walk if `one_walk`.
    fn restricted_into(&self, space: &mut Space, r: Restricted, mut acc: Bdd, one_walk: bool) -> Bdd {
        let (mut lits, mut others) = (Vec::new(), Vec::new());
        for (m, range) in &self.scratch.binding.matched {
            if *m != r.atom {
                continue;
            }
            let codes = &self.scratch.binding.codes[range.clone()];
            let Some(&(_, code)) = codes.iter().find(|(v, _)| *v == r.var) else {
                continue;
            };
            lits.clear();
            self.code_cube(r.var, code, &mut lits);
            // The cube of the match's other variables.
            others.clear();
            for &(v, c) in codes.iter().filter(|(v, _)| *v != r.var) {
                self.code_cube(v, c, &mut others);
            }
            // The source, the literals to restrict it at, and whether the
            // restriction is then renamed.
            let (source, at, renamed) = match r.source {
                Source::Set(p) => (self.state.now[p], None, None),
                Source::PreCall {
                    call,
                    body,
                    renames,
                } => match self.state.pre[body] {
                    Some(pre) => {
                        let relation = self.call_constants(space, call, pre);
                        (relation, Some(self.call_sources(call, &lits)), renames.then_some(call))
                    }
                    None => continue,
                },
            };
            let at = at.as_deref().unwrap_or(&lits);
            if one_walk && renamed.is_none() {
                acc = space.or_cofactor(acc, source, at, &others);
                continue;
            }
            let restricted = space.restrict(source, at);
            // A substitution of only the restricted bits is the identity now.
            let restricted = match renamed {
                Some(call) => self.call_rename(space, call, restricted),
                None => restricted,
            };
            let cube = space.cube(&others);
            let part = space.and(restricted, cube);
            acc = space.or(acc, part);
        }
        acc
    }

    /// The literals on the bits of rule call `call`'s relation that its
    /// substitution maps to the bits of `lits` (over the call's arguments):
    /// restricting `σ(B)` at `lits` is restricting `B` at these, then
    /// renaming.
    fn call_sources(&self, call: NodeIx, lits: &[(BddVar, bool)]) -> Vec<(BddVar, bool)> {
        let pairs = &self.compiled.call_pairs[call];
        let mut sources = Vec::with_capacity(lits.len());
        for &(bit, value) in lits {
            sources.extend(
                pairs
                    .iter()
                    .filter(|(_, to)| *to == bit)
                    .map(|&(from, _)| (from, value)),
            );
            if !pairs.iter().any(|(from, _)| *from == bit) {
                sources.push((bit, value));
            }
        }
        sources
    }

    /// The previous value of the skipped rule call `call`, derived from its
    /// rule's relation at the previous event.
    pub(super) fn lazy_pre(&self, space: &mut Space, call: NodeIx) -> Option<Bdd> {
        let Op::RuleCall { rule, .. } = &self.compiled.plan.nodes[call].op else {
            return None;
        };
        let body = self.compiled.plan.rules[*rule].body;
        let pre = self.state.pre[body]?;
        Some(self.rule_call_of(space, call, pre))
    }

    /// Every BDD kept from one event to the next, as the plan has them: the
    /// previous values of skipped calls derived, the bodies kept only for
    /// restrictions left out (garbage collection and sizes read these).
    pub(super) fn kept_summaries_now(&self, space: &mut Space) -> Vec<Bdd> {
        let bypass = &self.compiled.bypass;
        let s = &self.state;
        let dropped = &self.compiled.twins.dropped;
        let mut out: Vec<Bdd> = s
            .pre
            .iter()
            .enumerate()
            .filter(|(n, _)| !bypass.hidden[*n] && (!self.point_on || !dropped[*n]))
            .filter_map(|(_, b)| *b)
            .collect();
        if self.point_on {
            out.extend(bypass.lazy.iter().filter_map(|&q| self.lazy_pre(space, q)));
            let kept = (0..dropped.len()).filter(|&n| dropped[n] && self.compiled.keeps_pre[n]);
            out.extend(kept.filter_map(|n| self.twin_pre(space, n)));
        }
        out.extend(s.kept_others());
        out
    }

    /// Switching point evaluation: the previous values of skipped calls are
    /// not kept with it on, and must be again with it off.
    pub(super) fn switch_lazy(&mut self, space: &mut Space, point_on: bool) {
        for i in 0..self.compiled.bypass.lazy.len() {
            let q = self.compiled.bypass.lazy[i];
            self.state.pre[q] = if point_on {
                None
            } else {
                self.lazy_pre(space, q)
            };
        }
    }
}

#[cfg(test)]
mod tests;
