//! The monitoring runtime: feeds events to the per-property monitors and
//! collects verdicts. This is the library API for online monitoring:
//!
//! ```
//! use hindsight::runtime::Monitor;
//! let mut monitor = Monitor::from_source(
//!     "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))",
//!     Default::default(),
//! ).expect("well-formed");
//! assert!(monitor.step(b"open", &[b"a"], 0).expect("ok").is_empty());
//! assert!(monitor.step(b"close", &[b"a"], 0).expect("ok").is_empty());
//! assert_eq!(monitor.step(b"close", &[b"a"], 0).expect("ok"), &[0]);
//! ```

mod enumeration;
pub mod kept;
mod prop;
pub mod time;
mod tuples;
pub mod witness;

pub use enumeration::Enumeration;
pub use prop::{GcPolicy, PropMonitor};
pub use witness::WitnessValue;

use hashbrown::HashMap;

use crate::bdd::{Package, Space};
use crate::plan::Plan;
use crate::syntax::Diagnostic;
use time::Tick;

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
    /// The BDD package of the monitor's space.
    pub bdd: Package,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            start_bits: 4,
            strict_time: false,
            gc: GcPolicy::Auto,
            bdd: Package::Shared,
        }
    }
}

/// Why an event could not be processed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MonitorError {
    /// The event has a different number of arguments than the specification uses.
    Arity {
        /// Event name.
        event: String,
        /// Arity in the specification.
        expected: usize,
        /// Arity of the event.
        found: usize,
    },
    /// The time went backwards.
    TimeBackwards {
        /// Previous event's time.
        previous: u64,
        /// This event's time.
        time: u64,
    },
    /// More distinct live values than codes of the widest supported width.
    OutOfCodes {
        /// The property.
        property: String,
    },
}

impl std::fmt::Display for MonitorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MonitorError::Arity {
                event,
                expected,
                found,
            } => write!(
                f,
                "event `{event}` has {found} argument{}, but the specification uses it with {expected}",
                if *found == 1 { "" } else { "s" }
            ),
            MonitorError::TimeBackwards { previous, time } => {
                write!(
                    f,
                    "time stamp {time} is smaller than the previous one, {previous}"
                )
            }
            MonitorError::OutOfCodes { property } => {
                write!(
                    f,
                    "property `{property}` has more distinct live values than 2^32 codes can hold"
                )
            }
        }
    }
}

impl std::error::Error for MonitorError {}

/// A monitor for all properties of a specification.
#[derive(Clone, Debug)]
pub struct Monitor {
    props: Vec<PropMonitor>,
    arity: HashMap<Box<[u8]>, usize>,
    events: u64,
    /// The last raw time stamp and the monitor's own clock (which never goes back).
    last_time: Option<(u64, u64)>,
    strict_time: bool,
    time_regressions: u64,
    violated: Vec<usize>,
    /// The previous event, each field as its length (8 bytes) and bytes.
    last_event: Vec<u8>,
}

impl Monitor {
    /// A monitor for a compiled plan.
    pub fn new(plan: Plan, options: MonitorOptions) -> Result<Monitor, MonitorError> {
        let arity = plan
            .events
            .iter()
            .map(|(e, &n)| (e.as_bytes().into(), n))
            .collect();
        // One node table for all properties: they share nodes and cache, and
        // ten thousand properties cost ten thousand summaries, not tables.
        let table = Space::with_package(options.bdd, 0);
        let props = plan
            .props
            .into_iter()
            .map(|p| PropMonitor::sharing(p, options.start_bits, options.gc, &table))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Monitor {
            props,
            arity,
            events: 0,
            last_time: None,
            strict_time: options.strict_time,
            time_regressions: 0,
            violated: Vec::new(),
            last_event: Vec::new(),
        })
    }

    /// Parses, checks and compiles `source`, and builds its monitor.
    pub fn from_source(source: &str, options: MonitorOptions) -> Result<Monitor, Vec<Diagnostic>> {
        let (plan, _warnings) = crate::plan::compile_source(source)?;
        Monitor::new(plan, options).map_err(|e| {
            vec![Diagnostic::error(
                crate::syntax::Span::default(),
                e.to_string(),
            )]
        })
    }

    /// The names of the properties, indexed as in verdicts.
    pub fn property_names(&self) -> Vec<&str> {
        self.props.iter().map(|p| p.plan().name.as_str()).collect()
    }

    /// The per-property monitors.
    pub fn properties(&self) -> &[PropMonitor] {
        &self.props
    }

    /// The arity the specification gives `name`, if it mentions it.
    pub fn arity_of(&self, name: &[u8]) -> Option<usize> {
        self.arity.get(name).copied()
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

    /// Turns witnesses on or off for every property (see [`witness`]): when
    /// on, [`Monitor::witness`] gives the values that falsify each property
    /// violated at the last event. Off by default, and then free.
    pub fn enable_witnesses(&mut self, on: bool) {
        for p in &mut self.props {
            p.enable_witnesses(on);
        }
    }

    /// Turns point (guarded) evaluation of the statements on (the default)
    /// or off. Off, every subformula is computed as a set over all bindings
    /// at every event, as the paper's algorithm does; the verdicts and
    /// witnesses are the same, only slower (for comparing the two).
    pub fn set_point_evaluation(&mut self, on: bool) {
        for p in &mut self.props {
            p.set_point_evaluation(on);
        }
    }

    /// The witness of property `property`'s violation at the last event:
    /// `(variable, value)` pairs, outermost quantifier first. Empty when it
    /// was not violated there, when witnesses are off, or when the property
    /// has no quantified variable to blame (and for an unknown index).
    ///
    /// ```
    /// use hindsight::runtime::{Monitor, witness::format_witness};
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
    /// `Forall` variables that makes it false (the MFOTL front end's
    /// satisfactions; see `runtime/tuples.rs`). Off by default, and then free.
    pub fn enable_tuples(&mut self, on: bool) {
        for p in &mut self.props {
            p.enable_tuples(on);
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

    /// Number of events whose time stamp was smaller than their predecessor's.
    pub fn time_regressions(&self) -> u64 {
        self.time_regressions
    }

    /// Processes the next event (`time` is 0 for untimed traces) and returns the
    /// indices of the properties violated at it. On error nothing changes.
    pub fn step(
        &mut self,
        name: &[u8],
        args: &[&[u8]],
        time: u64,
    ) -> Result<&[usize], MonitorError> {
        let repeat = self.events > 0 && same_event(&self.last_event, name, args);
        // A repeated event passed the arity check already.
        if !repeat {
            self.check_arity(name, args)?;
        }
        let (tick, regressed) = self.tick(time)?;
        if !repeat {
            self.last_event.clear();
            for field in std::iter::once(name).chain(args.iter().copied()) {
                self.last_event
                    .extend_from_slice(&(field.len() as u64).to_le_bytes());
                self.last_event.extend_from_slice(field);
            }
        }
        self.violated.clear();
        for (i, p) in self.props.iter_mut().enumerate() {
            let holds = p.step(name, args, tick, repeat).inspect_err(|_| {
                // Never treat the next event as a repeat of a half-processed one.
                self.last_event.clear();
            })?;
            if !holds {
                self.violated.push(i);
            }
        }
        self.stepped(time, tick, regressed);
        Ok(&self.violated)
    }
}

impl Monitor {
    /// An error if the specification uses `name` with another arity.
    fn check_arity(&self, name: &[u8], args: &[&[u8]]) -> Result<(), MonitorError> {
        match self.arity.get(name) {
            Some(&expected) if expected != args.len() => Err(MonitorError::Arity {
                event: String::from_utf8_lossy(name).into_owned(),
                expected,
                found: args.len(),
            }),
            _ => Ok(()),
        }
    }

    /// The tick of a step at raw time `time` on the monitor's clock (which
    /// never goes back), and whether `time` is smaller than the previous one
    /// (an error with strict time).
    fn tick(&self, time: u64) -> Result<(Tick, bool), MonitorError> {
        let (raw_prev, clock_prev) = self.last_time.unwrap_or((time, time));
        let regressed = time < raw_prev;
        if regressed && self.strict_time {
            return Err(MonitorError::TimeBackwards {
                previous: raw_prev,
                time,
            });
        }
        let clock = clock_prev.saturating_add(time.saturating_sub(raw_prev));
        let tick = Tick {
            now: clock,
            prev: clock_prev,
        };
        Ok((tick, regressed))
    }

    /// Counts a step done at raw time `time`.
    fn stepped(&mut self, time: u64, tick: Tick, regressed: bool) {
        self.events += 1;
        self.time_regressions += u64::from(regressed);
        self.last_time = Some((time, tick.now));
    }

    /// Processes one step at which every event of `events` (name, arguments)
    /// holds: a time-point of several events, at time `time`. An atom then
    /// denotes the set of the matching events' tuples at this step (an empty
    /// set of events is a step at which no event holds). Returns the indices
    /// of the properties violated at it. On error nothing changes.
    pub fn step_set(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        time: u64,
    ) -> Result<&[usize], MonitorError> {
        for (name, args) in events {
            self.check_arity(name, args)?;
        }
        let (tick, regressed) = self.tick(time)?;
        // The next single event is never a repeat of a set.
        self.last_event.clear();
        self.violated.clear();
        for (i, p) in self.props.iter_mut().enumerate() {
            if !p.step_set(events, tick)? {
                self.violated.push(i);
            }
        }
        self.stepped(time, tick, regressed);
        Ok(&self.violated)
    }
}

/// Whether `name(args)` is the event encoded in `last` (each field as its
/// length in 8 bytes, then its bytes).
fn same_event(last: &[u8], name: &[u8], args: &[&[u8]]) -> bool {
    let mut rest = last;
    for field in std::iter::once(name).chain(args.iter().copied()) {
        let Some((len, tail)) = rest.split_first_chunk::<8>() else {
            return false;
        };
        if u64::from_le_bytes(*len) != field.len() as u64 || !tail.starts_with(field) {
            return false;
        }
        rest = &tail[field.len()..];
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::{Monitor, MonitorOptions};

    /// The events at which property 0 is violated.
    fn violations(spec: &str, events: &[(&str, &[&str])]) -> Vec<usize> {
        let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
        let mut out = Vec::new();
        for (i, (name, args)) in events.iter().enumerate() {
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
            if !m.step(name.as_bytes(), &args, 0).expect("event").is_empty() {
                out.push(i + 1);
            }
        }
        out
    }

    /// The steps (each a set of events) at which property 0 is violated.
    fn set_violations(spec: &str, steps: &[&[(&str, &[&str])]]) -> Vec<usize> {
        let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
        let mut out = Vec::new();
        for (i, step) in steps.iter().enumerate() {
            let args: Vec<Vec<&[u8]>> = step
                .iter()
                .map(|(_, args)| args.iter().map(|a| a.as_bytes()).collect())
                .collect();
            let events: Vec<(&[u8], &[&[u8]])> = step
                .iter()
                .zip(&args)
                .map(|((name, _), args)| (name.as_bytes(), &args[..]))
                .collect();
            if !m.step_set(&events, 0).expect("events").is_empty() {
                out.push(i + 1);
            }
        }
        out
    }

    #[test]
    fn a_step_of_several_events_binds_every_tuple() {
        let spec = "prop p : Forall x . !(p(x) & q(x))";
        type Ev = (&'static str, &'static [&'static str]);
        let (pa, qa, qb): (Ev, Ev, Ev) = (("p", &["a"]), ("q", &["a"]), ("q", &["b"]));
        // Together in one step, p(a) and q(a) violate; one by one they do not.
        assert_eq!(
            set_violations(spec, &[&[pa, qb], &[pa, qa], &[qa], &[pa]]),
            [2]
        );
        assert_eq!(violations(spec, &[pa, qa]), Vec::<usize>::new());
        // An atom denotes the union of its matches: p(a) and p(b) both held.
        let spec = "prop r : Forall x . q(x) -> @ p(x)";
        let (pb, qc): (Ev, Ev) = (("p", &["b"]), ("q", &["c"]));
        assert_eq!(
            set_violations(spec, &[&[pa, pb], &[qa, qb]]),
            Vec::<usize>::new()
        );
        assert_eq!(set_violations(spec, &[&[pa, pb], &[qa, qc]]), [2]);
        // An empty step: no event holds.
        assert_eq!(set_violations(spec, &[&[pa], &[], &[qa]]), [3]);
    }

    #[test]
    fn a_step_of_several_events_checks_arities() {
        let mut m = Monitor::from_source(
            "prop p : Forall x . p(x) -> !q(x)",
            MonitorOptions::default(),
        )
        .expect("well-formed");
        let one: &[&[u8]] = &[b"a"];
        let two: &[&[u8]] = &[b"a", b"b"];
        let e = m
            .step_set(&[(b"p", one), (b"q", two)], 0)
            .map(<[usize]>::to_vec);
        assert!(
            matches!(
                e,
                Err(super::MonitorError::Arity {
                    expected: 1,
                    found: 2,
                    ..
                })
            ),
            "{e:?}"
        );
        assert_eq!(m.events(), 0);
        assert_eq!(
            m.step_set(&[(b"p", one), (b"q", one)], 0)
                .map(<[usize]>::to_vec),
            Ok(vec![0])
        );
    }

    #[test]
    fn a_repeated_event_is_skipped_only_at_a_fixed_point() {
        // `@@a` changes over the first three `a`s, then stays: the repeats
        // before that must be evaluated, the later ones may be skipped.
        let a: (&str, &[&str]) = ("a", &[]);
        assert_eq!(violations("prop p : a -> @@a", &[a, a, a, a, a]), [1, 2]);
        assert_eq!(violations("prop p : a -> !@a", &[a, a, a, a]), [2, 3, 4]);
        // With data: the second `open(f)` of a run violates, and so do the
        // ones after it (the skipped ones repeat the verdict).
        let open: (&str, &[&str]) = ("open", &["f"]);
        let close: (&str, &[&str]) = ("close", &["f"]);
        assert_eq!(
            violations(
                "prop p : Forall x . open(x) -> !@ [open(x), close(x))",
                &[open, open, open, close, open, open]
            ),
            [2, 3, 6]
        );
    }
}
