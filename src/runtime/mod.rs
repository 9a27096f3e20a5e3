//! The monitoring runtime: feeds events to the per-property monitors and
//! collects verdicts. Its API for online monitoring is
//! [`crate::monitor`]:
//!
//! ```
//! use hindsight::monitor::Monitor;
//! let mut monitor = Monitor::from_source(
//!     "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))",
//!     Default::default(),
//! ).expect("well-formed");
//! assert!(monitor.step(b"open", &[b"a"], 0).expect("ok").is_empty());
//! assert!(monitor.step(b"close", &[b"a"], 0).expect("ok").is_empty());
//! assert_eq!(monitor.step(b"close", &[b"a"], 0).expect("ok"), &[0]);
//! ```

pub mod delayed;
mod enumeration;
mod error;
mod evaluate;
pub mod ids;
pub mod kept;
pub mod names;
pub(crate) mod packed;
mod prop;
mod steps;
pub mod time;
mod tuples;
pub mod witness;

pub use delayed::{DecidedStep, StepViolation};
pub use error::StepError;
pub use prop::{CompiledProp, GcPolicy, PropMonitor};
pub use witness::WitnessValue;

use std::sync::Arc;


use crate::bdd::{BddSpace, Package, Space};
use crate::plan::Plan;
use crate::syntax::{Diagnostic, SpecError};
use steps::{TICK, check_arity, same_event};

/// Options of a monitor.
#[derive(Clone, Debug)]
pub struct MonitorOptions {
    /// Initial width of value codes, in bits (they grow as needed).
    pub start_bits: usize,
    /// Reject an event whose time stamp is smaller than the previous one. When
    /// false (the default, as the reference tool behaves), such an event is
    /// taken to happen no later than its predecessor: the time that elapses
    /// between two events is `max(0, t_i - t_{i-1})`.
    pub strict_time: bool,
    /// When to reclaim the codes of values that can no longer matter.
    pub gc: GcPolicy,
    /// The widest value codes, in bits (at most [`MAX_CODE_BITS`], and at most
    /// the bits the plan reserves per variable): a property whose live values
    /// of one class need more codes refuses the event that brings one more
    /// ([`StepError::OutOfCodes`]).
    pub max_code_bits: usize,
    /// The BDD package of the monitor's space.
    pub bdd: Package,
    /// Let the monitor's BDD tables grow in smaller steps, for less memory
    /// and a little more time (see `BddSpace::save_memory`). Parallel runs
    /// set it when they run more than one monitor.
    pub save_memory: bool,
    /// Time stamps are the steps' numbers (1, 2, 3, ...), whatever time
    /// [`Monitor::step`] is given: the clock of an untimed trace, where each
    /// event is one time unit (see [`Monitor::set_step_clock`]).
    pub step_clock: bool,
}

/// The widest value codes: 32 bits (`2^32 - 1` live values per class).
pub const MAX_CODE_BITS: usize = 32;

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            start_bits: 4,
            strict_time: false,
            gc: GcPolicy::Auto,
            max_code_bits: MAX_CODE_BITS,
            bdd: Package::Shared,
            save_memory: false,
            step_clock: false,
        }
    }
}

/// A monitor for all properties of a specification.
///
/// It owns the one BDD space of its properties' summaries, which are
/// numbers in that space; like any other value it may move to another
/// thread (`Monitor: Send`, checked below).
#[derive(Clone, Debug)]
pub struct Monitor {
    /// The BDD space of every property (one node table for all: they share
    /// nodes and cache, and ten thousand properties cost ten thousand
    /// summaries, not tables).
    space: Space,
    props: Vec<PropMonitor>,
    /// Per event name of the plan: its index in the plan's events and its
    /// arity.
    arity: names::NameMap<(u32, usize)>,
    events: u64,
    /// The last raw time stamp and the monitor's own clock (which never goes back).
    last_time: Option<(u64, u64)>,
    strict_time: bool,
    time_regressions: u64,
    violated: Vec<usize>,
    /// The previous event, each field as its length (8 bytes) and bytes.
    last_event: Vec<u8>,
    /// The index of the previous event's name in the plan's events
    /// (`u32::MAX`: a name it does not know), while `last_event` holds
    /// it: a step of another index repeats nothing, and its bytes are not
    /// compared.
    last_index: u32,
    /// The indices of a time-point's event names in the plan's events
    /// (room kept from step to step).
    set_events: Vec<u32>,
    /// With a property that has future operators: the decisions of the
    /// steps not every property has decided yet.
    delayed: Option<delayed::Table>,
    /// Whether a step's time is its number (an untimed trace).
    step_clock: bool,
}

/// The most tuples of codes a [`Monitor::snapshot`] enumerates, and a
/// comparison of two checks.
pub const SNAPSHOT_TUPLES: u64 = 1 << 22;

/// A monitor's kept state in values ([`Monitor::snapshot`]).
#[derive(Clone, Debug)]
pub struct Snapshot {
    props: Vec<prop::snapshot::PropSnapshot>,
    stepped: bool,
}

impl Snapshot {
    /// Whether two snapshots of monitors of the same plan hold the same
    /// summaries over values, so that the monitors give the same verdicts
    /// on any continuation of the trace from here. `false` when unsure
    /// (more than `SNAPSHOT_TUPLES` tuples to check).
    pub fn agrees(&self, other: &Snapshot) -> bool {
        let mut budget = SNAPSHOT_TUPLES;
        self.stepped == other.stepped
            && self.props.len() == other.props.len()
            && (self.props.iter().zip(&other.props)).all(|(a, b)| a.agrees(b, &mut budget))
    }
}

/// `Monitor: Send`, checked at compile time.
const _: () = {
    fn assert_send<T: Send>() {}
    let _ = assert_send::<Monitor>;
};

impl Monitor {
    internal_item! {
        /// A monitor for a compiled plan.
        pub fn new(plan: Plan, options: MonitorOptions) -> Result<Monitor, StepError> {
            let arity = (plan.events.iter().enumerate())
                .map(|(i, (e, &n))| (e.as_bytes().into(), (i as u32, n)))
                .collect();
            // One space for all properties, over as many variables as the
            // widest needs.
            let num_vars = plan.props.iter().map(|p| p.bdd_vars).max().unwrap_or(0);
            let mut space = Space::with_package(options.bdd, num_vars);
            if options.save_memory {
                space.save_memory();
            }
            let prop_options = prop::PropOptions {
                start_bits: options.start_bits,
                max_code_bits: options.max_code_bits,
                gc: options.gc,
            };
            let props = plan
                .props
                .into_iter()
                .map(|p| {
                    let compiled = CompiledProp::with_events(p, &plan.events);
                    PropMonitor::new(Arc::new(compiled), prop_options, &mut space)
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Monitor {
                space,
                props,
                arity,
                events: 0,
                last_time: None,
                strict_time: options.strict_time,
                time_regressions: 0,
                violated: Vec::new(),
                last_event: Vec::new(),
                last_index: u32::MAX,
                set_events: Vec::new(),
                delayed: None,
                step_clock: false,
            })
            .map(|mut m: Monitor| {
                if m.props.iter().any(PropMonitor::is_delayed) {
                    m.delayed = Some(delayed::Table::default());
                }
                m.set_step_clock(options.step_clock);
                m
            })
        }
    }

    /// Parses, checks and compiles `source`, and builds its monitor.
    pub fn from_source(source: &str, options: MonitorOptions) -> Result<Monitor, SpecError> {
        let (plan, _warnings) = crate::plan::compile_source(source)?;
        Monitor::new(plan, options).map_err(|e| {
            SpecError::from(Diagnostic::error(
                crate::syntax::Span::default(),
                e.to_string(),
            ))
        })
    }

    /// The names of the properties, indexed as in verdicts.
    pub fn property_names(&self) -> Vec<&str> {
        self.props.iter().map(|p| p.plan().name.as_str()).collect()
    }

    internal_item! {
        /// The per-property monitors.
        pub fn properties(&self) -> &[PropMonitor] {
            &self.props
        }
    }

    /// The arity the specification gives `name`, if it mentions it.
    pub fn arity_of(&self, name: &[u8]) -> Option<usize> {
        self.arity.get(name).map(|&(_, n)| n)
    }

    /// Number of events processed.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Garbage collections run and value codes they released, over all properties.
    pub fn gc_stats(&self) -> (u64, u64) {
        self.props
            .iter()
            .map(PropMonitor::gc_stats)
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    }

    /// The indices of the properties violated at the last event (what the
    /// last [`Monitor::step`] returned).
    pub fn violated(&self) -> &[usize] {
        &self.violated
    }

    /// Turns witnesses on or off for every property (see [`Monitor::witness`]): when
    /// on, [`Monitor::witness`] gives the values that falsify each property
    /// violated at the last event. Off by default, and then free. Turned
    /// on, it forgets the last event, so that a repeat of it is evaluated in
    /// full (not as a no-op) and gets its witness.
    pub fn enable_witnesses(&mut self, on: bool) {
        for p in &mut self.props {
            p.enable_witnesses(on);
        }
        if on {
            self.last_event.clear();
        }
    }

    /// Turns point (guarded) evaluation of the statements on (the default)
    /// or off. Off, every subformula is computed as a set over all bindings
    /// at every event, as the paper's algorithm does; the verdicts and
    /// witnesses are the same, only slower (for comparing the two).
    pub fn set_point_evaluation(&mut self, on: bool) {
        for p in &mut self.props {
            p.set_point_evaluation(&mut self.space, on);
        }
    }

    /// The witness of property `property`'s violation at the last event:
    /// `(variable, value)` pairs, outermost quantifier first. Empty when it
    /// was not violated there, when witnesses are off, or when the property
    /// has no quantified variable to blame (and for an unknown index).
    ///
    /// ```
    /// use hindsight::monitor::{Monitor, format_witness};
    /// let mut m = Monitor::from_source(
    ///     "prop p : Forall f . close(f) -> @ P open(f)",
    ///     Default::default(),
    /// ).expect("well-formed");
    /// m.enable_witnesses(true);
    /// m.step(b"open", &[b"a"], 0).expect("ok");
    /// assert_eq!(m.step(b"close", &[b"b"], 0).expect("ok"), &[0]);
    /// assert_eq!(format_witness(&m.witness(0)), "f=b");
    /// ```
    pub fn witness(&self, property: usize) -> Vec<(String, witness::WitnessValue)> {
        self.props
            .get(property)
            .map(PropMonitor::witness)
            .unwrap_or_default()
    }

    /// Turns on (`limit > 0`) or off (`0`) the listing of every falsifying
    /// tuple of each violated property's outer quantified variables (see
    /// [`Monitor::all_witnesses`]); off by default, and then free.
    pub fn enable_all_witnesses(&mut self, limit: usize) {
        for p in &mut self.props {
            p.enable_all_witnesses((limit > 0).then_some(limit));
        }
    }

    /// Every falsifying tuple of the outer quantified variables of property
    /// `property`, violated at the last event: the first ones (up to the limit
    /// given to [`Monitor::enable_all_witnesses`]), and how many there are.
    /// The outer variables are those of the quantifiers at the root of the
    /// statement, through negations, that are false because of some values
    /// (`Forall` false, `Exists` true).
    pub fn all_witnesses(
        &self,
        property: usize,
    ) -> (Vec<Vec<(String, witness::WitnessValue)>>, u64) {
        self.props
            .get(property)
            .map(PropMonitor::all_witnesses)
            .unwrap_or_default()
    }

    /// Turns on or off, for every property, the recording of the satisfying
    /// tuples of its violations: every assignment of the statement's leading
    /// `Forall` variables (at most `width` of them: an MFOTL pattern's free
    /// variables) that makes it false (the MFOTL front end's satisfactions;
    /// see `runtime::witness`). Off by default, and then free.
    pub fn enable_tuples(&mut self, on: bool, width: Option<usize>) {
        for p in &mut self.props {
            p.enable_tuples(on, width);
        }
    }

    /// The satisfying tuples of property `property`'s violation at the last
    /// event, and the names of their variables (empty for an unknown index).
    pub fn tuples(&self, property: usize) -> (Vec<String>, &[Vec<witness::WitnessValue>]) {
        match self.props.get(property) {
            Some(p) => (p.tuple_vars(), p.tuples()),
            None => (Vec::new(), &[]),
        }
    }

    /// The event of the last step (a time-point of `events`, as given to
    /// [`Monitor::step_set`]) that the violation of property `property` is
    /// due to: its index, or `None` when due to no one event (`runtime::witness`).
    pub fn culprit(&self, property: usize, events: &[(&[u8], &[&[u8]])]) -> Option<usize> {
        self.props.get(property)?.culprit(events)
    }

    /// Number of events whose time stamp was smaller than their predecessor's.
    pub fn time_regressions(&self) -> u64 {
        self.time_regressions
    }

    /// The monitor's state in values rather than codes, to compare with
    /// another monitor of the same plan that saw another stretch of the
    /// trace ([`Snapshot::agrees`]). `None` when it cannot be taken: a
    /// property with time bounds, seen values or comparisons, or summaries
    /// of more than `SNAPSHOT_TUPLES` tuples in all.
    pub fn snapshot(&mut self) -> Option<Snapshot> {
        let mut budget = SNAPSHOT_TUPLES;
        let space = &mut self.space;
        let props = (self.props.iter())
            .map(|p| p.snapshot(space, &mut budget))
            .collect::<Option<Vec<_>>>()?;
        Some(Snapshot {
            props,
            stepped: self.events > 0,
        })
    }

    /// Processes the next event (`time` is 0 for untimed traces) and returns the
    /// indices of the properties violated at it.
    ///
    /// All or nothing: a refused event (wrong arity, time going back with
    /// strict time, value codes running out in some property) changes
    /// nothing, in any property, and is not counted in [`Monitor::events`]:
    /// the monitor goes on exactly as if it had not been offered. The
    /// exception is [`StepError::Eval`], a computation without a value
    /// (division by zero, ...): it stops the monitor.
    pub fn step(&mut self, name: &[u8], args: &[&[u8]], time: u64) -> Result<&[usize], StepError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        let known = self.arity.get(name).copied();
        let event = known.map_or(u32::MAX, |(i, _)| i);
        let repeat = self.repeats(event, name, args);
        // A repeated event passed the arity check already.
        if !repeat && let Some((_, expected)) = known {
            check_arity(expected, name, args)?;
        }
        self.step_known(event, name, args, time, repeat)
    }

    /// [`Monitor::step`] of an event whose arity the caller has checked
    /// against the plan's, given with the index of its name in the plan's
    /// events (`u32::MAX`: a name the plan does not know): a parallel
    /// run's blocks are read so. Its name is not looked up again.
    pub fn step_arity_checked(
        &mut self,
        event: u32,
        name: &[u8],
        args: &[&[u8]],
        time: u64,
    ) -> Result<&[usize], StepError> {
        if let Some(e) = self.failure() {
            return Err(e);
        }
        let repeat = self.repeats(event, name, args);
        self.step_known(event, name, args, time, repeat)
    }

    /// Whether the event `name(args)`, whose name has the index `event` in
    /// the plan's events, is the previous one again.
    #[inline(always)]
    fn repeats(&self, event: u32, name: &[u8], args: &[&[u8]]) -> bool {
        self.events > 0 && self.last_index == event && same_event(&self.last_event, name, args)
    }

    /// A step of the event `name(args)`, whose name has the index `event`
    /// in the plan's events, once it is known to be valid and whether it
    /// repeats the last one.
    #[inline(always)]
    fn step_known(
        &mut self,
        event: u32,
        name: &[u8],
        args: &[&[u8]],
        time: u64,
        repeat: bool,
    ) -> Result<&[usize], StepError> {
        let (tick, regressed) = self.tick(time)?;
        self.bind_all(|p| p.bind_event_at(event, args, repeat))?;
        if !repeat {
            self.last_index = event;
            self.last_event.clear();
            for field in std::iter::once(name).chain(args.iter().copied()) {
                self.last_event
                    .extend_from_slice(&(field.len() as u64).to_le_bytes());
                self.last_event.extend_from_slice(field);
            }
        }
        self.evaluate_all(tick)?;
        self.stepped(time, tick, regressed);
        Ok(&self.violated)
    }

    /// Whether one more step of the last event (same name, arguments and
    /// time stamp) would be a no-op: the last step was a single event and
    /// every property is at a fixed point for it with no time bound. Then
    /// [`Monitor::step_repeats`] may stand for such steps.
    #[inline]
    pub fn repeat_is_noop(&self) -> bool {
        self.events > 0
            && !self.last_event.is_empty()
            && self.props.iter().all(|p| p.repeat_is_noop())
    }

    /// Advances `n` steps of the last event again (same name, arguments
    /// and time stamp) when [`Monitor::repeat_is_noop`], in O(properties):
    /// exactly what `n` calls of [`Monitor::step`] with that event would do
    /// (the same verdict, in [`Monitor::violated`], after each of them).
    /// Returns `false`, changing nothing, when a repeat is not a no-op;
    /// the caller steps the events one by one then.
    pub fn step_repeats(&mut self, n: u64) -> bool {
        if !self.repeat_is_noop() {
            return false;
        }
        for p in &mut self.props {
            p.skip_repeats();
        }
        // Same raw time: the clock stays, no regression.
        self.events += n;
        true
    }

    /// A step at which no event of the specification holds (a parallel
    /// run's *tick*: another slice's event, or one of a name no property
    /// mentions): exactly `step(b"", &[], time)`, but when the previous step
    /// was such a step too and every property is at a fixed point for it
    /// with no time bound, in O(properties) with no BDD work.
    pub fn step_tick(&mut self, time: u64) -> Result<&[usize], StepError> {
        if self.last_event == TICK && self.repeat_is_noop() {
            let (tick, regressed) = self.tick(time)?;
            for p in &mut self.props {
                p.skip_repeats();
            }
            self.stepped(time, tick, regressed);
            return Ok(&self.violated);
        }
        self.step(b"", &[], time)
    }

    /// Binds the step in every property with `bind`; if one refuses it,
    /// undoes the binding in those that took it.
    fn bind_all(
        &mut self,
        mut bind: impl FnMut(&mut PropMonitor) -> Result<(), StepError>,
    ) -> Result<(), StepError> {
        for i in 0..self.props.len() {
            if let Err(e) = bind(&mut self.props[i]) {
                for p in &mut self.props[..=i] {
                    p.refuse();
                }
                return Err(e);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
