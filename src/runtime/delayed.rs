//! Delayed verdicts: with a future operator in some property, the verdict
//! at a step is known only later, once the trace has passed the step's
//! horizon. The monitor gathers each property's decisions by step and hands
//! out a step once every property has decided it, in trace order
//! ([`Monitor::take_decided`](super::Monitor::take_decided)).

use std::collections::VecDeque;

use super::Monitor;
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
#[derive(Clone, Debug, Default)]
pub(super) struct Table {
    /// The step of the first row.
    base: u64,
    /// The number of properties: the cells of a row.
    props: usize,
    /// Row after row (step after step from `base`), a cell per property:
    /// its decision there if given.
    cells: VecDeque<Option<Cell>>,
    /// Steps every property decided, not taken yet.
    pub ready: Vec<DecidedStep>,
}

/// A property's decision at a step: held, or violated with explanations.
#[derive(Clone, Debug)]
enum Cell {
    Held,
    Violated(StepViolation),
}

impl Table {
    /// Opens the row of step `step` (and any before it), for `props` properties.
    pub fn open(&mut self, props: usize, step: u64) {
        self.props = props;
        let Some(i) = step.checked_sub(self.base) else {
            return;
        };
        let cells = (i as usize + 1) * props;
        while self.cells.len() < cells {
            self.cells.push_back(None);
        }
    }

    /// Records the decision `d` of property `property` (for a step not
    /// decided before; `name` turns a violation's explanations into named
    /// ones). With one property, a decision of the first open step goes to
    /// [`Table::ready`] at once.
    pub fn record(
        &mut self,
        property: usize,
        d: Decision,
        name: impl FnOnce(Decision) -> StepViolation,
    ) {
        let Some(i) = d.position.checked_sub(self.base) else {
            return;
        };
        if self.props == 1 && i == 0 {
            let step = d.position;
            let violations = if d.holds { Vec::new() } else { vec![name(d)] };
            self.cells.pop_front();
            self.ready.push(DecidedStep { step, violations });
            self.base += 1;
            return;
        }
        let at = i as usize * self.props + property;
        while self.cells.len() <= at {
            self.cells.push_back(None);
        }
        self.cells[at] = Some(if d.holds {
            Cell::Held
        } else {
            Cell::Violated(name(d))
        });
    }

    /// Moves the steps every property has decided to [`Table::ready`].
    pub fn flush(&mut self) {
        let n = self.props.max(1);
        while self.cells.len() >= n && self.cells.iter().take(n).all(Option::is_some) {
            let violations = self
                .cells
                .drain(..n)
                .flatten()
                .filter_map(|c| match c {
                    Cell::Held => None,
                    Cell::Violated(v) => Some(v),
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
        self.cells.clear();
        self.base = step;
    }

    /// At the end of the trace: the steps every property decided after an
    /// undecided one (to [`Table::ready`], in order), and the undecided
    /// steps, each with the properties that did not decide it.
    pub fn finish(&mut self) -> Vec<(u64, Vec<usize>)> {
        let n = self.props.max(1);
        let mut undecided = Vec::new();
        let cells: Vec<Option<Cell>> = self.cells.drain(..).collect();
        for (i, row) in cells.chunks(n).enumerate() {
            let step = self.base + i as u64;
            let open: Vec<usize> = (row.iter().enumerate())
                .filter(|(_, d)| d.is_none())
                .map(|(p, _)| p)
                .collect();
            if !open.is_empty() {
                undecided.push((step, open));
                continue;
            }
            let violations = row
                .iter()
                .flatten()
                .filter_map(|c| match c {
                    Cell::Held => None,
                    Cell::Violated(v) => Some(v.clone()),
                })
                .collect();
            self.ready.push(DecidedStep { step, violations });
        }
        undecided
    }
}

/// Delayed verdicts of a [`Monitor`] (see `runtime::delayed`).
impl Monitor {
    /// Whether some property has a future operator. Then the verdict at a
    /// step is known only once the trace has passed its horizon:
    /// [`Monitor::step`] returns no violation, and the steps whose verdicts
    /// are known come, in order, from [`Monitor::take_decided`].
    pub fn has_future(&self) -> bool {
        self.delayed.is_some()
    }

    /// The steps whose verdict every property has given since the last
    /// call, in trace order, with their violations (for a monitor with a
    /// future operator; always empty otherwise).
    ///
    /// ```
    /// use hindsight::monitor::Monitor;
    /// let mut m = Monitor::from_source(
    ///     "prop answered : Forall r . req(r) -> F[<=2] resp(r)",
    ///     Default::default(),
    /// ).expect("well-formed");
    /// m.set_step_clock(true); // an untimed trace: event i at time i
    /// for (name, arg) in [("req", "a"), ("resp", "a"), ("req", "b"), ("x", "c")] {
    ///     m.step(name.as_bytes(), &[arg.as_bytes()], 0).expect("ok");
    /// }
    /// let decided = m.take_decided();
    /// // Steps 0 and 1 are decided; step 2 waits for step 4, and step 3
    /// // (no request: decided at once) comes after it.
    /// assert_eq!(decided.iter().map(|d| d.step).collect::<Vec<_>>(), [0, 1]);
    /// assert!(decided.iter().all(|d| d.violations.is_empty()));
    /// assert_eq!(m.undecided(), 2);
    /// m.step(b"y", &[b"d"], 0).expect("ok");
    /// let decided = m.take_decided();
    /// // req(b) was not answered within 2 steps.
    /// assert_eq!(decided.iter().map(|d| d.step).collect::<Vec<_>>(), [2, 3, 4]);
    /// assert_eq!(decided[0].violations[0].property, 0);
    /// ```
    pub fn take_decided(&mut self) -> Vec<DecidedStep> {
        match &mut self.delayed {
            Some(t) => std::mem::take(&mut t.ready),
            None => Vec::new(),
        }
    }

    /// [`Monitor::take_decided`] into `into` (emptied first), which gives
    /// its room to the next steps decided: no allocation per step.
    pub fn take_decided_into(&mut self, into: &mut Vec<DecidedStep>) {
        into.clear();
        if let Some(t) = &mut self.delayed {
            std::mem::swap(&mut t.ready, into);
        }
    }

    /// Ends the trace: the steps whose verdict every property gave after a
    /// step some property could not decide go to
    /// [`Monitor::take_decided`] (still in order), and the steps left
    /// undecided are returned, each with the properties that could not
    /// decide it. Empty without future operators. Steps after this call
    /// start a new table.
    ///
    /// With `close`, the trace is first closed as MonPoly closes a log: by
    /// a last step of no event at the greatest time stamp, which decides
    /// every step whose horizon is a time bound (it is not a step of the
    /// trace: not counted, and its own verdict is dropped).
    pub fn finish_trace(&mut self, close: bool) -> Vec<(u64, Vec<usize>)> {
        if self.delayed.is_none() {
            return Vec::new();
        }
        let events = self.events;
        if close && events > 0 {
            let clock = std::mem::replace(&mut self.step_clock, false);
            // Cannot be refused: no event, and the time does not go back.
            let _ = self.step_set(&[], u64::MAX);
            self.step_clock = clock;
            self.events = events;
        }
        for p in &mut self.props {
            p.settle(&mut self.space);
        }
        self.record_settled();
        let Some(t) = &mut self.delayed else {
            return Vec::new();
        };
        let mut open = t.finish();
        open.retain(|(step, _)| *step < events);
        t.ready.retain(|d| d.step < events);
        // Further steps (a library caller going on) start after these.
        t.restart_at(events);
        open
    }

    /// The steps taken whose verdict is not known yet (0 without future
    /// operators); at the end of a trace, those it leaves undecided.
    pub fn undecided(&self) -> u64 {
        match &self.delayed {
            Some(t) => self.events - t.frontier() - t.ready.len() as u64,
            None => 0,
        }
    }

    /// The event of `events` (the events of a decided step) that the
    /// violation `v` is due to (see [`Monitor::culprit`]).
    pub(crate) fn culprit_of(
        &self,
        v: &StepViolation,
        events: &[(&[u8], &[&[u8]])],
    ) -> Option<usize> {
        self.props.get(v.property)?.culprit_of(v, events)
    }

    /// Makes each step's time its number (1, 2, 3, ...), whatever time
    /// [`Monitor::step`] is given, or not: the clock of an untimed trace, in
    /// which time bounds count events. Takes effect at the next step.
    pub fn set_step_clock(&mut self, on: bool) {
        self.step_clock = on;
        for p in &mut self.props {
            p.set_step_clock(on);
        }
    }

    /// The time of the next step, given `time`: its number with the step
    /// clock on.
    pub(super) fn clock_time(&self, time: u64) -> u64 {
        if self.step_clock {
            self.events + 1
        } else {
            time
        }
    }

    /// [`evaluate_all`](Monitor::evaluate_all)'s part after the properties
    /// evaluated a step, with a future operator: every property's decisions
    /// go to the table, which hands out the steps all of them decided.
    /// `violated` holds the immediate properties violated at the step.
    pub(super) fn record_decisions(&mut self) {
        let Some(table) = &mut self.delayed else {
            return;
        };
        let n = self.props.len();
        let position = self.events;
        table.open(n, position);
        for (i, p) in self.props.iter_mut().enumerate() {
            if p.is_delayed() {
                let mut decided = p.take_decisions();
                for d in decided.drain(..) {
                    table.record(i, d, |d| p.named(i, d));
                }
                p.recycle_decisions(decided);
            } else {
                let d = p.immediate_decision(position, !self.violated.contains(&i));
                table.record(i, d, |d| p.named(i, d));
            }
        }
        self.violated.clear();
        table.flush();
    }

    /// The decisions [`PropMonitor::settle`] found, to the table.
    fn record_settled(&mut self) {
        let Some(table) = &mut self.delayed else {
            return;
        };
        for (i, p) in self.props.iter_mut().enumerate() {
            let mut decided = p.take_decisions();
            for d in decided.drain(..) {
                table.record(i, d, |d| p.named(i, d));
            }
            p.recycle_decisions(decided);
        }
    }
}
