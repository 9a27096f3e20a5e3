//! Aggregations `y <- OP x; g . φ`, evaluated incrementally: only the
//! assignments of φ that appeared or disappeared since the last evaluation
//! are enumerated, each updating the multiset of `x` values of its group
//! (the values of the group variables `g`), and only the groups that changed
//! get a new value.
//!
//! The value of a group is computed from its multiset (see
//! [`crate::arith::aggregate`]) and entered in the enumeration of `y`, like
//! any value; the node's set is, per group with assignments, the cube of the
//! group's codes and of the value's code. Without group variables there is
//! one group, whose value over no assignment is MonPoly's default (0 for
//! `CNT` and `SUM`, see [`crate::arith::empty_default`]); with group
//! variables a group without assignments has no value.
//!
//! What is kept: the operand's set at the last evaluation (the assignments
//! the multisets hold, whose codes it keeps alive for the garbage
//! collection of codes), the node's set, and the multisets.

use std::collections::HashMap;

use super::PropMonitor;
use super::compute::{Computed, Place};
use crate::arith::{self, ValueKind};
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, VarIx};
use crate::runtime::StepError;
use crate::runtime::ids::Code;
use crate::syntax::AggOp;

/// The state of an aggregation node.
#[derive(Clone, Debug)]
pub(super) struct AggState {
    /// The operand's set when last evaluated.
    pub body: Bdd,
    /// The node's set.
    pub result: Bdd,
    /// Per group (the codes of the group variables): its assignments.
    groups: HashMap<Vec<Code>, Group>,
    /// Whether the node was evaluated before.
    started: bool,
}

/// The assignments of one group.
#[derive(Clone, Debug, Default)]
pub(super) struct Group {
    /// How many.
    pub count: u64,
    /// Their values of the aggregated variable with their multiplicities,
    /// in order (not kept for `CNT`).
    values: Vec<(Vec<u8>, u64)>,
}

/// The new value of each group of `changed` (`None` for a group left
/// empty, which is dropped; the aggregation's default for the empty
/// relation without grouping variables). An aggregation without grouping
/// variables that has not `started` has a value even when nothing changed:
/// that of the empty relation.
#[allow(clippy::type_complexity)]
pub(super) fn group_values<T: std::hash::Hash + Eq>(
    groups: &mut HashMap<Vec<T>, Group>,
    mut changed: Vec<Vec<T>>,
    a: &AggNode<'_>,
    kind: ValueKind,
    started: bool,
) -> Result<Vec<(Vec<T>, Option<Vec<u8>>)>, arith::ArithError> {
    if a.group.is_empty() && !started && changed.is_empty() {
        changed.push(Vec::new());
    }
    let mut outputs = Vec::with_capacity(changed.len());
    for key in changed {
        let value = match groups.get(&key) {
            Some(g) if g.count > 0 => Some(g.value(a.op, kind)?),
            _ => {
                groups.remove(&key);
                a.group.is_empty().then(|| arith::empty_default(a.op, kind))
            }
        };
        outputs.push((key, value));
    }
    Ok(outputs)
}

impl Group {
    /// The group's value (it has assignments).
    pub fn value(&self, op: AggOp, kind: ValueKind) -> Result<Vec<u8>, arith::ArithError> {
        let values: Vec<(&[u8], u64)> = self
            .values
            .iter()
            .map(|(v, m)| (v.as_slice(), *m))
            .collect();
        arith::aggregate(op, kind, &values, self.count)
    }

    /// Adds (`delta` 1) or removes (-1) an assignment whose aggregated
    /// value is `x` (`None` for `CNT`).
    pub fn add(&mut self, kind: ValueKind, x: Option<&[u8]>, delta: i64) {
        self.count = self.count.saturating_add_signed(delta);
        let Some(x) = x else { return };
        let at = self
            .values
            .binary_search_by(|(v, _)| arith::order(kind, v, x));
        match (at, delta > 0) {
            (Ok(i), true) => self.values[i].1 += 1,
            (Err(i), true) => self.values.insert(i, (x.to_vec(), 1)),
            (Ok(i), false) => {
                self.values[i].1 -= 1;
                if self.values[i].1 == 0 {
                    self.values.remove(i);
                }
            }
            (Err(_), false) => {}
        }
    }
}

/// An aggregation node's definition.
pub(super) struct AggNode<'a> {
    pub op: AggOp,
    pub result: VarIx,
    pub of: VarIx,
    pub group: &'a [VarIx],
    pub body: NodeIx,
}

impl PropMonitor {
    /// `result` with the group of codes `key` (of `a.group`) given the value
    /// of code `y` (of `a.result`), or none.
    pub(super) fn set_group(
        &mut self,
        space: &mut Space,
        result: Bdd,
        a: &AggNode<'_>,
        key: &[Code],
        y: Option<Code>,
    ) -> Bdd {
        let mut lits = std::mem::take(&mut self.scratch.cube_lits);
        lits.clear();
        for (&v, &c) in a.group.iter().zip(key) {
            self.code_cube(v, c, &mut lits);
        }
        let group = space.cube(&lits);
        let mut result = space.and_not(result, group);
        if let Some(y) = y {
            self.code_cube(a.result, y, &mut lits);
            let pair = space.cube(&lits);
            result = space.or(result, pair);
        }
        self.scratch.cube_lits = lits;
        result
    }

    /// The value of aggregation node `n`.
    pub(super) fn aggregate_value(
        &mut self,
        space: &mut Space,
        n: NodeIx,
        a: &AggNode<'_>,
        place: &mut Place<'_>,
    ) -> Result<Bdd, StepError> {
        let plan = &self.compiled.plan;
        let free: Vec<VarIx> = plan.nodes[a.body].free.clone();
        let at = |v: VarIx| free.iter().position(|&w| w == v).unwrap_or(0);
        let of_at = at(a.of);
        let group_at: Vec<usize> = a.group.iter().map(|&g| at(g)).collect();
        let kind = ValueKind {
            numeric: plan.vars[a.of].numeric,
            text_order: plan.vars[a.of].text_order,
        };
        let mut state = match self.state.computed[n].take() {
            Some(Computed::Agg(s)) => s,
            _ => AggState {
                body: space.ff(),
                result: space.ff(),
                groups: HashMap::new(),
                started: false,
            },
        };
        let now = place.value(self, a.body);
        let removed = space.and_not(state.body, now);
        let added = space.and_not(now, state.body);
        let mut tuples = Vec::new();
        for (set, delta) in [(removed, -1), (added, 1)] {
            match self.assignments(space, set, &free) {
                Ok(found) => tuples.extend(found.into_iter().map(|t| (t, delta))),
                Err(e) => {
                    self.state.computed[n] = Some(Computed::Agg(state));
                    return Err(self.eval_error(n, &e));
                }
            }
        }
        let mut changed: Vec<Vec<Code>> = Vec::new();
        for (t, delta) in &tuples {
            let key: Vec<Code> = group_at.iter().map(|&i| t[i]).collect();
            let x = (a.op != AggOp::Cnt).then(|| self.value_of(a.of, t[of_at]));
            state
                .groups
                .entry(key.clone())
                .or_default()
                .add(kind, x, *delta);
            if !changed.contains(&key) {
                changed.push(key);
            }
        }
        let outputs = match group_values(&mut state.groups, changed, a, kind, state.started) {
            Ok(outputs) => outputs,
            Err(e) => {
                self.state.computed[n] = Some(Computed::Agg(state));
                return Err(self.eval_error(n, &e.to_string()));
            }
        };
        // Entering the values may widen every kept set, this one's too.
        self.state.computed[n] = Some(Computed::Agg(state));
        let mut codes = Vec::with_capacity(outputs.len());
        for (_, value) in &outputs {
            codes.push(match value {
                Some(v) => Some(self.enter_value(space, a.result, v, true, place)?),
                None => None,
            });
        }
        let Some(Computed::Agg(mut state)) = self.state.computed[n].take() else {
            return Err(self.eval_error(n, "the aggregation's state was lost"));
        };
        let mut result = state.result;
        for ((key, _), code) in outputs.iter().zip(codes) {
            result = self.set_group(space, result, a, key, code);
        }
        state.result = result;
        state.body = place.value(self, a.body);
        state.started = true;
        self.state.computed[n] = Some(Computed::Agg(state));
        Ok(result)
    }
}
