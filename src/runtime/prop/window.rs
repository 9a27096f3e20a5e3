//! Aggregations over `P[a,b] ψ` (MFOTL's `ONCE[a,b] ψ`), computed over the
//! window of ψ's assignments, as MonPoly computes them: the set of `P[a,b] ψ`
//! is never built. At each event the assignments of ψ are listed (in values),
//! those whose age entered `[a,b]` join the window and those older than `b`
//! leave it; each assignment is counted with the number of events in the
//! window at which it held, and enters (or leaves) the multiset of its group
//! when that number leaves (or comes back to) zero. Only the groups that
//! changed get a new value (see [`super::aggregate`] for the rest).
//!
//! When ψ is an event, its assignments are the event's matches at the
//! step, as bound: the set of ψ is not built either.
//!
//! The window holds values, not codes, so the garbage collection of codes
//! needs to know nothing of it: a group's codes are looked up (entered
//! again if they were reclaimed) when its value is written.

use std::collections::{HashMap, VecDeque};

use super::PropMonitor;
use super::aggregate::{AggNode, Group, group_values};
use super::compute::{Computed, Place};
use crate::arith::ValueKind;
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{Op, VarIx};
use crate::runtime::StepError;
use crate::runtime::ids::Code;
use crate::syntax::{AggOp, TimeBound};

/// One assignment of ψ, in values (in the order of ψ's free variables).
type Tuple = Vec<Box<[u8]>>;

/// The state of an aggregation over `P[a,b] ψ`.
#[derive(Clone, Debug)]
pub(super) struct WindowState {
    /// The node's set.
    pub result: Bdd,
    /// ψ's assignments at events not `a` old yet, oldest first, with their times.
    waiting: VecDeque<(u64, Vec<Tuple>)>,
    /// ψ's assignments at the events of the window, oldest first.
    window: VecDeque<(u64, Vec<Tuple>)>,
    /// Per assignment in the window: at how many of its events it held.
    held: HashMap<Tuple, u64>,
    /// Per group (its values): its assignments.
    groups: HashMap<Tuple, Group>,
    /// Whether the node was evaluated before.
    started: bool,
}

/// Whether node `n` of `plan` is an aggregation over the window of an
/// event, which reads the event's matches rather than its set.
pub(super) fn reads_matches(plan: &crate::plan::PropPlan, n: usize) -> bool {
    matches!(plan.nodes[n].op, Op::Agg { once: Some(_), body, .. }
        if matches!(plan.nodes[body].op, Op::Atom { .. }))
}

impl PropMonitor {
    /// The value of aggregation node `n` over `P[bound] a.body`.
    pub(super) fn window_value(
        &mut self,
        space: &mut Space,
        n: usize,
        a: &AggNode<'_>,
        bound: TimeBound,
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
        let found = if let (Op::Atom { .. }, None) = (&plan.nodes[a.body].op, &place.future) {
            // An event: its matches at this step, as bound.
            let b = &self.scratch.binding;
            (b.matched.iter())
                .filter(|(m, _)| *m == a.body)
                .map(|(_, range)| {
                    let codes = &b.codes[range.clone()];
                    (free.iter())
                        .map(|v| codes.iter().find(|(w, _)| w == v).map_or(Code(0), |c| c.1))
                        .collect::<Vec<Code>>()
                })
                .collect()
        } else {
            let now_set = place.value(self, a.body);
            self.assignments(space, now_set, &free)
                .map_err(|e| self.eval_error(n, &e))?
        };
        let tuples: Vec<Tuple> = found
            .iter()
            .map(|codes| {
                (free.iter().zip(codes))
                    .map(|(&v, &c)| Box::from(self.value_of(v, c)))
                    .collect()
            })
            .collect();
        let mut s = match self.state.computed[n].take() {
            Some(Computed::Window(s)) => s,
            _ => WindowState {
                result: space.ff(),
                waiting: VecDeque::new(),
                window: VecDeque::new(),
                held: HashMap::new(),
                groups: HashMap::new(),
                started: false,
            },
        };
        let t = place.tick.now;
        if !tuples.is_empty() {
            s.waiting.push_back((t, tuples));
        }
        let mut changed: Vec<Tuple> = Vec::new();
        let key = |tuple: &Tuple| -> Tuple { group_at.iter().map(|&i| tuple[i].clone()).collect() };
        let x_of = |tuple: &Tuple| (a.op != AggOp::Cnt).then(|| tuple[of_at].clone());
        // Into the window: the events at least `lo` old (and not too old).
        while let Some((tj, _)) = s.waiting.front() {
            let age = t.saturating_sub(*tj);
            if age < bound.lo {
                break;
            }
            let Some(entry) = s.waiting.pop_front() else {
                break;
            };
            if bound.hi.is_some_and(|hi| age > hi) {
                continue;
            }
            for tuple in &entry.1 {
                let count = s.held.entry(tuple.clone()).or_insert(0);
                *count += 1;
                if *count == 1 {
                    let k = key(tuple);
                    let x = x_of(tuple);
                    s.groups
                        .entry(k.clone())
                        .or_default()
                        .add(kind, x.as_deref(), 1);
                    if !changed.contains(&k) {
                        changed.push(k);
                    }
                }
            }
            if bound.hi.is_some() {
                s.window.push_back(entry);
            }
        }
        // Out of the window: the events more than `hi` old.
        if let Some(hi) = bound.hi {
            while let Some((tj, _)) = s.window.front() {
                if t.saturating_sub(*tj) <= hi {
                    break;
                }
                let Some(entry) = s.window.pop_front() else {
                    break;
                };
                for tuple in &entry.1 {
                    let gone = match s.held.get_mut(tuple) {
                        Some(count) => {
                            *count -= 1;
                            *count == 0
                        }
                        None => false,
                    };
                    if gone {
                        s.held.remove(tuple);
                        let k = key(tuple);
                        let x = x_of(tuple);
                        if let Some(g) = s.groups.get_mut(&k) {
                            g.add(kind, x.as_deref(), -1);
                        }
                        if !changed.contains(&k) {
                            changed.push(k);
                        }
                    }
                }
            }
        }
        let outputs = match group_values(&mut s.groups, changed, a, kind, s.started) {
            Ok(outputs) => outputs,
            Err(e) => {
                self.state.computed[n] = Some(Computed::Window(s));
                return Err(self.eval_error(n, &e.to_string()));
            }
        };
        s.started = true;
        // Entering values may widen every kept set, this one's too.
        self.state.computed[n] = Some(Computed::Window(s));
        let mut cubes = Vec::with_capacity(outputs.len());
        for (k, value) in &outputs {
            let mut codes = Vec::with_capacity(k.len());
            for (&g, v) in a.group.iter().zip(k) {
                codes.push(self.enter_value(space, g, v, false, place)?);
            }
            let y = match value {
                Some(v) => Some(self.enter_value(space, a.result, v, true, place)?),
                None => None,
            };
            cubes.push((codes, y));
        }
        let Some(Computed::Window(mut s)) = self.state.computed[n].take() else {
            return Err(self.eval_error(n, "the aggregation's state was lost"));
        };
        let mut result = s.result;
        for (codes, y) in cubes {
            result = self.set_group(space, result, a, &codes, y);
        }
        s.result = result;
        self.state.computed[n] = Some(Computed::Window(s));
        Ok(result)
    }
}
