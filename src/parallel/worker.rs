//! A worker: the monitors of its [`Unit`]s (some properties, or one slice
//! of some), built where it runs and stepped through every block in order,
//! each event delivered as it is, as a tick, or skipped (a tick-invariant
//! unit that has stepped before), a run of repeats at once where a repeat
//! is a no-op. Its answer to a block is a [`Found`]: the violations of the
//! steps its units decided, how far every step is decided, and once the
//! trace has ended, the steps some unit left undecided.
//!
//! A unit of properties with future operators decides a step later than
//! it steps it ([`Monitor::take_decided`]): it keeps the event numbers of
//! its steps not decided yet, and gives each decided step's violations at
//! that number. Such a unit is never tick invariant, so it steps every
//! event, and its monitor's clock counts them as the whole run's does.

use std::collections::VecDeque;

#[cfg(feature = "cluster")]
use serde::{Deserialize, Serialize};

use super::block::{Block, Ev};
use super::route::Route;
use crate::plan::Plan;
use crate::profile::Columns;
use crate::runtime::{Monitor, MonitorOptions, Snapshot, StepError};

/// One monitor of a worker: a plan (a subset of the properties), the global
/// indices of its properties, and its route.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The properties monitored (with every event's arity).
    pub plan: Plan,
    /// Per property of `plan`: its index in the whole run.
    pub global: Vec<usize>,
    /// Which events it receives.
    pub route: Route,
}

/// A worker's answer to one block.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
pub struct Found {
    /// `(event number, global property index)`, sorted: the violations of
    /// the steps its units decided since its last answer.
    pub violations: Vec<(u64, usize)>,
    /// Every event up to this number is decided by every unit of the
    /// worker (those after it may be decided by some).
    pub decided: u64,
    /// A monitor error, at `(event number, line)`: the worker stops there.
    pub error: Option<(u64, u64, StepError)>,
    /// Garbage collections and codes released so far, over its monitors.
    pub gc: (u64, u64),
    /// What its monitors did with the events so far.
    pub work: Work,
    /// Whether the worker is done (the trace ended, or it stopped at
    /// `error`): every step its units could decide is among the violations
    /// given so far, or in `undecided`.
    pub finished: bool,
    /// Once finished: the steps some unit left undecided, as `(event
    /// number, global properties)`, by number.
    pub undecided: Vec<(u64, Vec<usize>)>,
    /// Before it is finished, per property with future operators: the
    /// last event up to which its unit decided every step, as `(event
    /// number, global property)`.
    pub open: Vec<(u64, usize)>,
    /// With a profile ([`Worker::sampling`]): per event sampled since its
    /// last answer, its number and the values of its monitors' columns.
    pub samples: Vec<(u64, Vec<u64>)>,
}

impl Found {
    /// Adds the answer `later`, given after this one (as a worker that
    /// replays blocks without answering gives what it found in them with
    /// its first answer).
    pub fn absorb(&mut self, later: Found) {
        self.violations.extend(later.violations);
        self.violations.sort_unstable();
        self.decided = later.decided;
        self.error = self.error.take().or(later.error);
        self.gc = later.gc;
        self.work = later.work;
        self.finished = later.finished;
        self.undecided = later.undecided;
        self.open = later.open;
        self.samples.extend(later.samples);
    }
}

/// What a worker's monitors did with the events, summed over its units:
/// the work tick skipping and runs of repeats save shows here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
pub struct Work {
    /// Events stepped as they are (repeats stepped one by one included).
    pub delivered: u64,
    /// Events stepped as ticks (idem).
    pub ticks: u64,
    /// Ticks not stepped at all, by tick-invariant units (with their
    /// repeats).
    pub skipped: u64,
    /// Repeats that cost no step: a run of repeats taken at once
    /// ([`Monitor::step_repeats`]).
    pub at_once: u64,
}

impl Work {
    /// The sum of `self` and `other`.
    pub fn plus(self, other: Work) -> Work {
        Work {
            delivered: self.delivered + other.delivered,
            ticks: self.ticks + other.ticks,
            skipped: self.skipped + other.skipped,
            at_once: self.at_once + other.at_once,
        }
    }

    /// `self` less `other` (what was done since `other` was).
    pub fn minus(self, other: Work) -> Work {
        Work {
            delivered: self.delivered.saturating_sub(other.delivered),
            ticks: self.ticks.saturating_sub(other.ticks),
            skipped: self.skipped.saturating_sub(other.skipped),
            at_once: self.at_once.saturating_sub(other.at_once),
        }
    }

    /// One event's step (and those of `repeats` repeats, when they are
    /// stepped one by one), as `delivered` or a tick.
    fn stepped(&mut self, delivered: bool, steps: u64) {
        if delivered {
            self.delivered += steps;
        } else {
            self.ticks += steps;
        }
    }
}

/// The event numbers of the steps a unit with future operators has not
/// decided yet.
#[derive(Debug, Default)]
struct Pending {
    /// Their numbers, in order.
    numbers: VecDeque<u64>,
    /// The monitor's position (steps from 0) of the first.
    front: u64,
}

impl Pending {
    /// The number of the step at position `step`, if it is pending.
    fn number_of(&self, step: u64) -> Option<u64> {
        let i = usize::try_from(step.checked_sub(self.front)?).ok()?;
        self.numbers.get(i).copied()
    }

    /// The number of the step at position `step`, now decided, with every
    /// step before it (the monitor decides them in order).
    fn decide(&mut self, step: u64) -> Option<u64> {
        let number = self.number_of(step)?;
        let done = (step + 1 - self.front) as usize;
        self.numbers.drain(..done);
        self.front = step + 1;
        Some(number)
    }
}

/// A unit at work: its monitor, the global indices of its properties, its
/// route, and with future operators, its steps not decided yet.
struct Running {
    monitor: Monitor,
    global: Vec<usize>,
    route: Route,
    pending: Option<Pending>,
}

impl Running {
    /// Steps the event `ev` (its `fields`: name, then arguments), with its
    /// repeats, as `delivered` or a tick; the violations of the steps
    /// decided go to `out`, the work done to `work`.
    #[inline]
    fn step(
        &mut self,
        delivered: bool,
        fields: &[&[u8]],
        ev: &Ev,
        out: &mut Vec<(u64, usize)>,
        work: &mut Work,
    ) -> Result<(), StepError> {
        let Running {
            monitor,
            global,
            route,
            pending,
        } = self;
        if let Some(pending) = pending {
            work.stepped(delivered, 1 + ev.repeats);
            return step_delayed(monitor, global, pending, delivered, fields, ev, out);
        }
        let number = ev.number;
        let skipped = !delivered && route.skips(monitor);
        step_once(route, monitor, delivered, fields, ev, |i| {
            out.push((number, global[i]));
        })?;
        if skipped {
            work.skipped += 1;
        } else {
            work.stepped(delivered, 1);
        }
        if ev.repeats > 0 {
            let at_once = step_repeats(route, monitor, delivered, fields, ev, |k, i| {
                out.push((number + k, global[i]));
            })?;
            match (skipped, at_once) {
                (true, _) => work.skipped += ev.repeats,
                (false, true) => work.at_once += ev.repeats,
                (false, false) => work.stepped(delivered, ev.repeats),
            }
        }
        Ok(())
    }

    /// The last event up to which it decided every step, `last` being
    /// the last event handled.
    fn decided(&self, last: u64) -> u64 {
        match self.pending.as_ref().and_then(|p| p.numbers.front()) {
            Some(first) => first - 1,
            None => last,
        }
    }
}

/// Steps `monitor` through the event `fields` read as `ev`: as it is when
/// `delivered`, else as a tick, or not at all when the unit may skip ticks
/// (and has stepped an event before: see [`crate::plan::ticks`]). Calls
/// `violated` with the index of each property violated at the event.
#[inline]
pub(super) fn step_once(
    route: &Route,
    monitor: &mut Monitor,
    delivered: bool,
    fields: &[&[u8]],
    ev: &Ev,
    mut violated: impl FnMut(usize),
) -> Result<(), StepError> {
    let found = if delivered {
        // Blocks are read with the arity check ([`super::read`]).
        monitor.step_arity_checked(ev.name, fields[0], &fields[1..], ev.time)?
    } else if route.skips(monitor) {
        // A skipped tick: violated where the step before was, for the
        // properties whose verdict at a tick is that one.
        for &i in monitor.violated() {
            if route.as_before[i] {
                violated(i);
            }
        }
        return Ok(());
    } else {
        monitor.step_tick(ev.time)?
    };
    for &i in found {
        violated(i);
    }
    Ok(())
}

/// After [`step_once`] of the event `ev`, steps `monitor` through its
/// repeats (the same record, at the same time), at once when a repeat is
/// a no-op ([`Monitor::step_repeats`]). Calls `violated` with `k` (1 to
/// `ev.repeats`: the `k`-th repeat) and a property's index for each
/// violation. True when the repeats cost no step (skipped, or taken at
/// once).
pub(super) fn step_repeats(
    route: &Route,
    monitor: &mut Monitor,
    delivered: bool,
    fields: &[&[u8]],
    ev: &Ev,
    mut violated: impl FnMut(u64, usize),
) -> Result<bool, StepError> {
    let n = ev.repeats;
    let skipped = !delivered && route.skips(monitor);
    if skipped || monitor.step_repeats(n) {
        // The verdict of the step before, at each repeat.
        for &i in monitor.violated() {
            if !skipped || route.as_before[i] {
                (1..=n).for_each(|k| violated(k, i));
            }
        }
        return Ok(true);
    }
    for k in 1..=n {
        step_once(route, monitor, delivered, fields, ev, |i| {
            violated(k, i)
        })?;
    }
    Ok(false)
}

/// [`Running::step`] of a unit with future operators: every repeat on its
/// own, each step's number kept until the monitor decides it.
fn step_delayed(
    monitor: &mut Monitor,
    global: &[usize],
    pending: &mut Pending,
    delivered: bool,
    fields: &[&[u8]],
    ev: &Ev,
    out: &mut Vec<(u64, usize)>,
) -> Result<(), StepError> {
    for k in 0..=ev.repeats {
        if delivered {
            monitor.step_arity_checked(ev.name, fields[0], &fields[1..], ev.time)?;
        } else {
            monitor.step_tick(ev.time)?;
        }
        pending.numbers.push_back(ev.number + k);
        for d in monitor.take_decided() {
            let Some(number) = pending.decide(d.step) else {
                continue;
            };
            out.extend(d.violations.iter().map(|v| (number, global[v.property])));
        }
    }
    Ok(())
}

/// A worker's units at work.
pub struct Worker {
    units: Vec<Running>,
    /// The last event handled (with its repeats).
    last: u64,
    /// Whether [`Worker::finish`] was called.
    finished: bool,
    /// What its monitors did so far.
    work: Work,
    /// With a profile: the sampling of its monitors.
    sampler: Option<Sampler>,
}

impl Worker {
    /// The monitors of `units`.
    pub fn new(units: Vec<Unit>, options: &MonitorOptions) -> Result<Worker, StepError> {
        let mut running = Vec::with_capacity(units.len());
        for u in units {
            let monitor = Monitor::new(u.plan, options.clone())?;
            let pending = monitor.has_future().then(Pending::default);
            debug_assert!(
                pending.is_none() || !u.route.skip_ticks,
                "a unit with future operators steps every event"
            );
            running.push(Running {
                monitor,
                global: u.global,
                route: u.route,
                pending,
            });
        }
        Ok(Worker {
            units: running,
            last: 0,
            finished: false,
            work: Work::default(),
            sampler: None,
        })
    }

    /// Samples its monitors' columns ([`Columns`]) for a profile: after the
    /// events whose numbers are multiples of `every`, and at the end.
    pub fn sampling(&mut self, every: u64) {
        let columns = self.units.iter().map(|u| Columns::of(&u.monitor)).collect();
        self.sampler = Some(Sampler {
            every: every.max(1),
            next: every.max(1),
            last: None,
            columns,
        });
    }

    /// The samples due once the events up to `self.last` are stepped.
    #[inline]
    fn sample_due(&mut self, out: &mut Vec<(u64, Vec<u64>)>) {
        if let Some(s) = &mut self.sampler
            && self.last >= s.next
        {
            s.take(&mut self.units, self.last, out);
        }
    }

    /// Its monitors' states in values ([`Monitor::snapshot`]), if every one
    /// can be taken.
    pub fn snapshot(&mut self) -> Option<Vec<Snapshot>> {
        self.units
            .iter_mut()
            .map(|u| u.monitor.snapshot())
            .collect()
    }

    /// Garbage collections and codes released so far, over its monitors.
    pub fn gc(&self) -> (u64, u64) {
        (self.units.iter())
            .map(|u| u.monitor.gc_stats())
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    }

    /// What its monitors did so far.
    pub fn work(&self) -> Work {
        self.work
    }

    /// Steps every monitor through `block`: its answer.
    pub fn process(&mut self, block: &Block) -> Found {
        self.process_where(block, |_| true)
    }

    /// [`Worker::process`] of the events of `block` for which `step` holds
    /// (the others are not stepped at all). After a monitor error, the
    /// worker is finished ([`Worker::finish`]) at the event before.
    pub fn process_where(&mut self, block: &Block, mut step: impl FnMut(&Ev) -> bool) -> Found {
        let mut found = Found::default();
        if self.finished {
            found.finished = true;
            found.decided = self.last;
            found.gc = self.gc();
            found.work = self.work;
            return found;
        }
        let mut fields: Vec<&[u8]> = Vec::new();
        'events: for ev in block.events.iter().filter(|ev| step(ev)) {
            // The fields are looked up once, when a unit steps the event.
            fields.clear();
            for unit in &mut self.units {
                let route = &unit.route;
                let delivered = route.delivers_named(ev.name, |k| block.arg(ev, k));
                if !delivered && route.skips(&unit.monitor) && unit.monitor.violated().is_empty() {
                    // A skipped tick with nothing to report.
                    self.work.skipped += 1 + ev.repeats;
                    continue;
                }
                if fields.is_empty() {
                    block.fields_of(ev, &mut fields);
                }
                let (out, work) = (&mut found.violations, &mut self.work);
                if let Err(e) = unit.step(delivered, &fields, ev, out, work) {
                    found.error = Some((ev.number, ev.line, e));
                    break 'events;
                }
            }
            self.last = ev.last();
            self.sample_due(&mut found.samples);
        }
        found.violations.sort_unstable();
        if found.error.is_some() {
            self.finish(false, &mut found);
        } else {
            self.answer(&mut found);
        }
        found
    }

    /// Steps every unit through the one event `ev`, outside any block (its
    /// `fields`: name, then arguments), as [`Worker::process`] steps an
    /// event of a block; the violations of its steps (and of its
    /// repeats') go to `out`. On an error the worker stops there (its
    /// units are those of properties without future operators: a time
    /// segment's).
    pub fn step_event(
        &mut self,
        ev: &Ev,
        fields: &[&[u8]],
        out: &mut Vec<(u64, usize)>,
    ) -> Result<(), StepError> {
        for unit in &mut self.units {
            let route = &unit.route;
            let delivered = route.delivers_named(ev.name, |k| fields.get(k + 1).copied());
            if !delivered && route.skips(&unit.monitor) && unit.monitor.violated().is_empty() {
                self.work.skipped += 1 + ev.repeats;
                continue;
            }
            if let Err(e) = unit.step(delivered, fields, ev, out, &mut self.work) {
                self.finished = true;
                return Err(e);
            }
        }
        self.last = ev.last();
        Ok(())
    }

    /// Ends the trace for every unit (closed as MonPoly closes a log when
    /// `close`: see [`Monitor::finish_trace`]): the violations of the
    /// steps its units decide then go to `found`, with the steps they
    /// leave undecided. Further blocks change nothing.
    pub fn finish(&mut self, close: bool, found: &mut Found) {
        if self.finished {
            return;
        }
        self.finished = true;
        if let Some(s) = &mut self.sampler
            && s.last != Some(self.last)
        {
            s.sample(&mut self.units, self.last, &mut found.samples);
        }
        let mut undecided: Vec<(u64, usize)> = Vec::new();
        let mut late = Vec::new();
        for u in &mut self.units {
            let Some(pending) = &mut u.pending else {
                continue;
            };
            let open = u.monitor.finish_trace(close);
            for d in u.monitor.take_decided() {
                if let Some(n) = pending.number_of(d.step) {
                    late.extend(d.violations.iter().map(|v| (n, u.global[v.property])));
                }
            }
            for (step, props) in open {
                if let Some(n) = pending.number_of(step) {
                    undecided.extend(props.iter().map(|&p| (n, u.global[p])));
                }
            }
            *pending = Pending::default();
        }
        if !late.is_empty() {
            found.violations.extend(late);
            found.violations.sort_unstable();
        }
        undecided.sort_unstable();
        undecided.dedup();
        found.undecided.clear();
        for (n, p) in undecided {
            match found.undecided.last_mut() {
                Some((m, props)) if *m == n => props.push(p),
                _ => found.undecided.push((n, vec![p])),
            }
        }
        found.finished = true;
        found.open.clear();
        // Every step up to the first undecided one is decided.
        let first = found.undecided.first().map(|(n, _)| n - 1);
        found.decided = first.map_or(self.last, |n| n.min(self.last));
        found.gc = self.gc();
        found.work = self.work;
    }

    /// Fills in how far `found` decided every step, the open properties,
    /// and the collections.
    fn answer(&self, found: &mut Found) {
        found.decided = (self.units.iter())
            .map(|u| u.decided(self.last))
            .min()
            .map_or(self.last, |d| d.min(self.last));
        found.open.clear();
        for u in self.units.iter().filter(|u| u.pending.is_some()) {
            let decided = u.decided(self.last);
            found.open.extend(u.global.iter().map(|&g| (decided, g)));
        }
        found.gc = self.gc();
        found.work = self.work;
    }
}

/// The sampling of a worker's monitors for a profile.
struct Sampler {
    every: u64,
    /// The next event to sample after.
    next: u64,
    /// The last event sampled.
    last: Option<u64>,
    /// Per unit, its monitor's columns.
    columns: Vec<Columns>,
}

impl Sampler {
    /// The samples of the multiples of the period up to `last` (the event
    /// just stepped, with its repeats: each multiple among them has the
    /// state after them).
    fn take(&mut self, units: &mut [Running], last: u64, out: &mut Vec<(u64, Vec<u64>)>) {
        let upto = last - last % self.every;
        let values = self.values(units);
        while self.next <= upto {
            out.push((self.next, values.clone()));
            self.next += self.every;
        }
        self.last = Some(upto);
    }

    /// The sample of event `last`, at the end.
    fn sample(&mut self, units: &mut [Running], last: u64, out: &mut Vec<(u64, Vec<u64>)>) {
        out.push((last, self.values(units)));
        self.last = Some(last);
    }

    /// The values of every unit's columns, now.
    fn values(&self, units: &mut [Running]) -> Vec<u64> {
        let mut values = Vec::new();
        for (u, c) in units.iter_mut().zip(&self.columns) {
            c.sample(&mut u.monitor, &mut values);
        }
        values
    }
}
