//! Delayed verdicts: with a future operator in some property, the verdict
//! at a step is known only later, once the trace has passed the step's
//! horizon. The monitor gathers each property's decisions by step and hands
//! out a step once every property has decided it, in trace order
//! ([`Monitor::take_decided`](super::Monitor::take_decided)).

use std::collections::VecDeque;

use super::prop::future::Decision;
use super::witness::{Witness, WitnessValue};

/// A step whose verdict every property has given.
#[derive(Clone, Debug, Default)]
pub struct DecidedStep {
    /// The step, counted from 0 (the event number minus one, or the
    /// time-point with time-points as steps).
    pub step: u64,
    /// The properties violated at it, in property order.
    pub violations: Vec<StepViolation>,
}

/// A property violated at a decided step, with the explanations asked for.
#[derive(Clone, Debug, Default)]
pub struct StepViolation {
    /// The property's index.
    pub property: usize,
    /// Its witness (empty unless witnesses are on).
    pub witness: Witness,
    /// Its falsifying tuples (at most the limit) and their number (empty
    /// unless all witnesses are on).
    pub all_witnesses: (Vec<Witness>, u64),
    /// Its satisfying tuples (empty unless tuples are on).
    pub tuples: Vec<Vec<WitnessValue>>,
    /// The walk of its witnesses (for the event it is due to).
    pub(crate) found: super::witness::Falsified,
}

/// The decisions of the steps not every property has decided yet.
#[derive(Debug, Default)]
pub(super) struct Table {
    /// The step of `rows[0]`.
    base: u64,
    /// Per step from `base`: per property, its decision if given.
    rows: VecDeque<Vec<Option<StepViolationOr>>>,
    /// Steps every property decided, not taken yet.
    pub ready: Vec<DecidedStep>,
}

/// A property's decision at a step: held, or violated with explanations.
#[derive(Debug)]
pub(super) enum StepViolationOr {
    Held,
    Violated(StepViolation),
}

impl Table {
    /// Opens the row of step `step` (and any before it), for `props` properties.
    pub fn open(&mut self, props: usize, step: u64) {
        let Some(i) = step.checked_sub(self.base) else {
            return;
        };
        while self.rows.len() as u64 <= i {
            self.rows.push_back((0..props).map(|_| None).collect());
        }
    }

    /// Records the decisions `decided` of property `property` (each for a
    /// step not decided before; `name` turns a decision's explanations into
    /// named ones), then moves the steps every one of `props` properties
    /// has decided to [`Table::ready`].
    pub fn record(
        &mut self,
        props: usize,
        property: usize,
        decided: impl IntoIterator<Item = Decision>,
        name: impl Fn(&Decision) -> StepViolation,
    ) {
        for d in decided {
            let Some(i) = d.position.checked_sub(self.base) else {
                continue;
            };
            let i = i as usize;
            while self.rows.len() <= i {
                self.rows.push_back((0..props).map(|_| None).collect());
            }
            self.rows[i][property] = Some(if d.holds {
                StepViolationOr::Held
            } else {
                StepViolationOr::Violated(name(&d))
            });
        }
    }

    /// Moves the steps every property has decided to [`Table::ready`].
    pub fn flush(&mut self) {
        while self
            .rows
            .front()
            .is_some_and(|r| r.iter().all(Option::is_some))
        {
            let Some(row) = self.rows.pop_front() else {
                break;
            };
            let violations = row
                .into_iter()
                .flatten()
                .filter_map(|d| match d {
                    StepViolationOr::Held => None,
                    StepViolationOr::Violated(v) => Some(v),
                })
                .collect();
            self.ready.push(DecidedStep {
                step: self.base,
                violations,
            });
            self.base += 1;
        }
    }

    /// The first step not decided by every property.
    pub fn frontier(&self) -> u64 {
        self.base
    }

    /// Goes on at step `step` (after [`Table::finish`]).
    pub fn restart_at(&mut self, step: u64) {
        self.rows.clear();
        self.base = step;
    }

    /// At the end of the trace: the steps every property decided after an
    /// undecided one (to [`Table::ready`], in order), and the undecided
    /// steps, each with the properties that did not decide it.
    pub fn finish(&mut self) -> Vec<(u64, Vec<usize>)> {
        let mut undecided = Vec::new();
        let rows = std::mem::take(&mut self.rows);
        for (i, row) in rows.into_iter().enumerate() {
            let step = self.base + i as u64;
            let open: Vec<usize> = (row.iter().enumerate())
                .filter(|(_, d)| d.is_none())
                .map(|(p, _)| p)
                .collect();
            if open.is_empty() {
                let violations = row
                    .into_iter()
                    .flatten()
                    .filter_map(|d| match d {
                        StepViolationOr::Held => None,
                        StepViolationOr::Violated(v) => Some(v),
                    })
                    .collect();
                self.ready.push(DecidedStep { step, violations });
            } else {
                undecided.push((step, open));
            }
        }
        undecided
    }
}
