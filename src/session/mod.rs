//! The library driver: from a specification and a trace to verdicts, counts,
//! warnings and an optional profile, with the output left to a [`Report`].
//!
//! A [`Session`] owns a [`Monitor`] and everything a run keeps beside it:
//! the events counted per name, the bad lines skipped, the violations per
//! property, the input error that ended the run. Events come from a trace
//! ([`Session::run`] on any [`Read`], [`Session::run_file`] on a file, with
//! the format and compression detected as `hindsight run` does) or one by
//! one ([`Session::push`]); [`Session::finish`] ends the run and gives its
//! [`Outcome`]. Every verdict, warning and error goes to a [`Report`] as it
//! happens: the text and JSON [`Printer`], the command
//! line's report (which adds a progress bar and messages on standard
//! error) and a library caller's own type share this one loop. The library
//! never prints: warnings are handed to the report and returned in the
//! outcome.
//!
//! ```
//! use hindsight::session::{Collect, Session, SessionOptions, Verdict};
//!
//! let spec = "prop p : Forall f . close(f) -> @ (!close(f) S open(f))";
//! let session = Session::from_source(spec, SessionOptions::default()).expect("well-formed");
//! let mut found = Collect::default();
//! let outcome = session.run(&b"open,a\nclose,a\nclose,a\n"[..], &mut found);
//! assert_eq!(found.violations, [(0, 3)]); // property 0 at event 3
//! assert_eq!(outcome.verdict, Verdict::Violated);
//! ```

mod ahead;
mod ahead_events;
#[cfg(feature = "cluster")]
mod cluster;
mod delayed;
mod layout;
mod names;
mod options;
mod outcome;
mod parallel;
mod points;
mod read;
mod report;
mod segments;
mod step;
#[cfg(test)]
mod tests;
#[cfg(feature = "cli")]
mod values;

use step::Step;

use crate::mfotl::typing::Typing;

pub use crate::parallel::Segments;
pub use crate::report::{OutputFormat, Printer, Summary, Undecided, Violation};
pub use crate::runtime::WitnessValue;
pub use names::NameReport;
#[cfg(feature = "cli")]
pub(crate) use names::did_you_mean;
pub use options::{EndOfTrace, OnError, SMALL_TRACE_BYTES, SessionOptions, small_trace};
pub use outcome::{BadLines, LoadError, Outcome, PropertyVerdict, RunError, Verdict, Warning};
pub use read::{DEFAULT_MAX_SKIPPED, Misread, Skipped};
pub use report::{Collect, Report};

use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::plan::{Plan, compile_source_timed};
use crate::profile::Profiler;
use crate::report::EventCounts;
use crate::runtime::Monitor;
use crate::runtime::witness::EventWitness;
use crate::syntax::Diagnostic;
use crate::trace::{Format, TraceReader, timed_by_name};

/// The one name of the runtime's step error in the driver.
pub use crate::runtime::StepError;

/// One run of a specification's monitor over a trace: see the
/// [module](self) docs.
pub struct Session {
    monitor: Monitor,
    /// The plan, kept for a parallel run (`jobs > 1`).
    plan: Option<Plan>,
    /// The specification's text (names of XML and JSON fields, profile labels).
    spec: String,
    options: SessionOptions,
    spec_events: Vec<String>,
    /// Whether the specification has time bounds.
    spec_timed: bool,
    spec_warnings: crate::syntax::Warnings,
    counts: EventCounts,
    /// The first events, for the decision whether the trace was read.
    first: read::FirstEvents,
    /// The trace's format, once known (`None` for events pushed one by one).
    format: Option<Format>,
    bad: BadLines,
    /// Per property: violations, and the first violating event.
    tally: Vec<(u64, Option<u64>)>,
    profile: Option<Profiler<Box<dyn Write>>>,
    cancel: Option<Arc<AtomicBool>>,
    name: String,
    start: Instant,
    error: Option<RunError>,
    interrupted: bool,
    /// Whether the last event was stepped and counted (a repeat of it may
    /// then be stepped as in [`Session::repeats`]).
    last_ok: bool,
    closed: bool,
    /// Whether the run stopped at its first violation (`stop_at_first`)
    /// while steps were held: the trace did not end there.
    stopped_at_first: bool,
    ended: bool,
    /// A parallel run's own count of events, time regressions and collections.
    parallel: Option<(u64, u64, (u64, u64))>,
    /// A parallel run's events handed on after the end of its trace.
    tail: Vec<parallel::Late>,
    /// A run in time segments: those taken, and those stepped again.
    segments: Option<(usize, usize)>,
    /// In a parallel run with witnesses: per property, the rule that gives
    /// a violation's witness from its event (see [`EventWitness`]).
    by_event: Vec<EventWitness>,
    warnings: Vec<Warning>,
    /// An MFOTL specification's signature: the trace is read against it.
    typing: Option<Typing>,
    /// With a future operator: the steps whose verdicts are not known yet.
    held: delayed::Held,
    /// The typed events of the last time-point (a buffer kept for the next).
    point_buf: delayed::Fields,
    /// Rooms of the split fields and events of a time-point, kept between
    /// time-points (see `points`).
    rooms: points::Rooms,
}

impl Session {
    /// A session for a compiled plan; `spec` is the specification's text.
    /// Fails when the monitor cannot be built (a plan beyond its limits).
    pub(crate) fn from_plan(
        plan: Plan,
        spec: &str,
        options: SessionOptions,
    ) -> Result<Session, StepError> {
        let spec_events: Vec<String> = plan.events.keys().cloned().collect();
        let spec_timed = plan.props.iter().any(|p| !p.time_bits.is_empty());
        let kept = (options.jobs > 1).then(|| plan.clone());
        let mut monitor = Monitor::new(plan, options.monitor.clone())?;
        let later = options.witness_at.is_some() && monitor.has_future();
        monitor.enable_witnesses(options.witness || later);
        if options.all_witnesses > 0 {
            monitor.enable_all_witnesses(options.all_witnesses);
        }
        monitor.enable_tuples(options.satisfactions, None);
        let n = monitor.properties().len();
        Ok(Session {
            monitor,
            plan: kept,
            spec: spec.to_owned(),
            options,
            spec_events,
            spec_timed,
            spec_warnings: Default::default(),
            counts: EventCounts::default(),
            first: read::FirstEvents::default(),
            format: None,
            bad: BadLines::default(),
            tally: vec![(0, None); n],
            profile: None,
            by_event: Vec::new(),
            cancel: None,
            name: "<stdin>".to_owned(),
            start: Instant::now(),
            error: None,
            interrupted: false,
            last_ok: false,
            closed: false,
            stopped_at_first: false,
            ended: false,
            parallel: None,
            tail: Vec::new(),
            segments: None,
            warnings: Vec::new(),
            held: delayed::Held::default(),
            point_buf: delayed::Fields::default(),
            rooms: Default::default(),
            typing: None,
        })
    }

    /// A session for the QTL specification `text`; its warnings are in
    /// [`Session::spec_warnings`].
    pub fn from_source(text: &str, options: SessionOptions) -> Result<Session, LoadError> {
        let (plan, warnings, decimals) =
            compile_source_timed(text, options.time_decimals).map_err(LoadError::Spec)?;
        let options = SessionOptions {
            time_decimals: decimals,
            ..options
        };
        let mut session = Session::from_plan(plan, text, options).map_err(LoadError::Monitor)?;
        session.spec_warnings = warnings;
        Ok(session)
    }

    /// A session for the QTL specification in the file at `path`.
    pub fn from_file(path: &Path, options: SessionOptions) -> Result<Session, LoadError> {
        let text = std::fs::read_to_string(path).map_err(LoadError::Io)?;
        Session::from_source(&text, options)
    }

    /// A session for an MFOTL formula with its MonPoly signature (see
    /// docs/MFOTL.md): its satisfactions are reported when `reading` is
    /// [`Satisfactions`](crate::mfotl::Reading::Satisfactions), its
    /// violations otherwise; `name` names the property.
    pub fn from_mfotl(
        formula: &str,
        signature: &str,
        name: &str,
        reading: crate::mfotl::Reading,
        mut options: SessionOptions,
    ) -> Result<Session, LoadError> {
        options.satisfactions = matches!(reading, crate::mfotl::Reading::Satisfactions);
        // MFOTL bounds are whole numbers, and so are the stamps read with them.
        options.time_decimals = 0;
        let (plan, translation, warnings) =
            crate::mfotl::compile(formula, signature, name, reading).map_err(LoadError::Mfotl)?;
        let mut session = Session::from_plan(plan, formula, options).map_err(LoadError::Monitor)?;
        session.spec_warnings = warnings;
        session.set_typing(Typing::new(&translation));
        Ok(session)
    }

    /// Reads the trace against an MFOTL signature (see
    /// [`crate::mfotl::Typing`]): an undeclared predicate or a value of the
    /// wrong type is an input error; the values of the predicates the
    /// formula uses are canonical; satisfying tuples are in MonPoly's order;
    /// and the time-points of a MonPoly log are steps (unless
    /// `event_steps`). [`Session::from_mfotl`] sets it.
    pub fn set_typing(&mut self, typing: Typing) {
        let width = Some(typing.columns.len());
        self.monitor
            .enable_tuples(self.options.satisfactions, width);
        self.typing = Some(typing);
    }

    /// The signature the trace is read against, if any.
    pub fn typing(&self) -> Option<&Typing> {
        self.typing.as_ref()
    }

    /// The specification's warnings (from [`Session::from_source`]).
    pub fn spec_warnings(&self) -> &[Diagnostic] {
        &self.spec_warnings
    }

    /// The monitor (its properties, events processed so far).
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// The options.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// A warning when the specification has time bounds and the trace is
    /// read without time stamps (`timed`: whether it is read with them).
    pub fn untimed_warning(&self, timed: bool) -> Option<Warning> {
        (self.spec_timed && !timed).then_some(Warning::UntimedTrace)
    }

    /// Names the trace in error messages (`<stdin>` by default;
    /// [`Session::run_file`] names it by its path).
    pub fn set_trace_name(&mut self, name: &str) {
        name.clone_into(&mut self.name);
    }

    /// Ends the run before the next event once `flag` is set (from another
    /// thread, a signal handler): the outcome covers the events processed.
    pub fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// Writes a profile of the run to `out` (docs/OUTPUT.md), a row
    /// every `every` events and one at the end; its header comes with the
    /// first row (a parallel run's columns are its workers' monitors').
    pub fn profile(&mut self, out: Box<dyn Write>, every: u64) -> std::io::Result<()> {
        self.profile = Some(Profiler::new(out, &self.monitor, Some(&self.spec), every)?);
        Ok(())
    }

    /// A reader of `input` with the session's options (format, timing,
    /// field names, limits), for a caller that pushes the events itself
    /// (as `hindsight why` does).
    pub fn trace_reader<R: Read>(&self, input: R) -> crate::trace::TraceReader<R> {
        self.reader(input)
    }

    fn skip(&self) -> bool {
        self.options.on_error == OnError::Skip
    }

    /// The share of lines that may be skipped, within 0 and 1.
    fn max_skipped(&self) -> f64 {
        self.options.max_skipped.clamp(0.0, 1.0)
    }

    #[inline(always)]
    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    /// Monitors the trace at `path` (read as timed also when its name
    /// contains `.timed.`) to its end, then [`Session::finish`]es. Fails only
    /// when the file cannot be opened. With [`SessionOptions::jobs`] above
    /// 1, a regular file is read ahead in a thread of its own where the run
    /// allows (a CSV trace for QTL, a MonPoly log for MFOTL); with 1 job,
    /// and on a named pipe, it is read in the monitor's thread as it comes.
    pub fn run_file(mut self, path: &Path, out: &mut impl Report) -> std::io::Result<Outcome> {
        let file = std::fs::File::open(path)?;
        // A named pipe is a live stream: read as it comes, never ahead in
        // batches.
        let regular = file.metadata().is_ok_and(|m| m.is_file());
        self.options.trace.timed |= timed_by_name(path);
        self.set_trace_name(&path.display().to_string());
        let reader = self.reader(file);
        if !regular {
            return Ok(self.run_reader(reader, out));
        }
        Ok(self.run_regular(reader, out))
    }

    /// [`Session::run`] of a regular file already open (standard input
    /// redirected from a file): read ahead in a thread of its own where
    /// the run allows, as [`Session::run_file`] reads.
    pub fn run_open_file<P: Report + ?Sized>(self, file: std::fs::File, out: &mut P) -> Outcome {
        let reader = self.reader(file);
        self.run_regular(reader, out)
    }

    /// [`Session::run_reader`] of a regular file, read ahead where the run
    /// allows (a CSV trace for QTL, a MonPoly log for MFOTL) and may use a
    /// second thread.
    fn run_regular<P: Report + ?Sized>(
        self,
        mut reader: TraceReader<std::fs::File>,
        out: &mut P,
    ) -> Outcome {
        if self.options.jobs < 2 {
            // One thread, as asked: reading included.
            return self.run_reader(reader, out);
        }
        if self.reads_ahead(&mut reader) {
            return self.run_ahead(reader, out);
        }
        if self.reads_events_ahead(&mut reader) {
            return self.run_events_ahead(reader, out);
        }
        self.run_reader(reader, out)
    }

    /// Monitors the trace `input` (any format of docs/TRACES.md, compressed
    /// or not) to its end, or until the run stops (an input error, the first
    /// violation with `stop_at_first`, a report that fails, the cancel
    /// flag), then [`Session::finish`]es.
    pub fn run<P: Report + ?Sized>(self, input: impl Read, out: &mut P) -> Outcome {
        let reader = self.reader(input);
        self.run_reader(reader, out)
    }

    /// [`Session::run`] of the trace `reader` reads.
    fn run_reader<P: Report + ?Sized>(
        mut self,
        mut reader: TraceReader<impl Read>,
        out: &mut P,
    ) -> Outcome {
        self.start = Instant::now();
        let skip = self.skip();
        // Runs of repeated records go at once unless something needs every
        // step (a time-point of several events, a profile's samples, the
        // values of each event read against a signature).
        let runs = !self.options.timepoints && self.profile.is_none() && self.typing.is_none();
        let mfotl_points = self.typing.is_some() && !self.options.event_steps;
        // Unless the report never reads them.
        let mut culprits = !self.culprits_read(out);
        loop {
            if self.at_end() {
                break;
            }
            let next = reader.next_timepoint();
            // An event read after a cancellation may be cut short: not processed.
            if self.cancelled() {
                self.interrupted = true;
                break;
            }
            let point = match next {
                Ok(Some(p)) => p,
                Ok(None) => break,
                Err(e) => match self.bad_timepoint(e, skip && !reader.failed()) {
                    ControlFlow::Continue(()) => continue,
                    ControlFlow::Break(()) => break,
                },
            };
            if self.monitor.events() == 0 {
                // An untimed trace's clock counts events.
                self.monitor.set_step_clock(!point.timed);
            }
            let by_points = mfotl_points && point.format == crate::trace::Format::MonPoly;
            let flow = if self.options.timepoints || by_points {
                if !culprits {
                    // A violation names the event it is due to: the walk of
                    // the witnesses finds it.
                    self.monitor.enable_witnesses(true);
                    culprits = true;
                }
                self.timepoint(&point, out)
            } else {
                self.events(&point, out)
            };
            if flow.is_break() {
                break;
            }
            self.after_event(out);
            if runs && self.last_ok && self.monitor.repeat_is_noop() {
                let n = match self.repeats_before_end() {
                    0 => 0,
                    most => reader.repeats(most),
                };
                if n > 0
                    && let Some(event) = reader.last_event()
                {
                    let args: Vec<&[u8]> = if self.monitor.violated().is_empty() {
                        Vec::new()
                    } else {
                        event.args().collect()
                    };
                    let step = Step {
                        name: event.name,
                        args: &args,
                        time: event.time,
                        line: event.line,
                        timed: self.options.trace.timed,
                    };
                    if self.repeats(&step, n, out).is_break() {
                        break;
                    }
                }
            }
            out.progress(self.monitor.events(), &|| reader.bytes_read());
        }
        self.format = Some(reader.format());
        self.finish(out)
    }

    /// A time-point that could not be read, `e`: skipped (`Continue`) when
    /// `skip` (a run that skips bad lines, whose reader can go on), else
    /// the run's error (as a whole time-point's, for an MFOTL
    /// specification), and `Break`.
    pub(super) fn bad_timepoint(
        &mut self,
        e: crate::trace::TraceError,
        skip: bool,
    ) -> ControlFlow<()> {
        if skip {
            self.bad.skip(e.line, || e.to_string());
            return ControlFlow::Continue(());
        }
        let e = if self.typing.is_some() {
            step::whole_time(e)
        } else {
            e
        };
        self.error = Some(RunError::Trace(e));
        ControlFlow::Break(())
    }

    /// Pushes the next event: its name, arguments and time stamp (`None`
    /// for an untimed trace), reporting its violations to `out` (its line
    /// is its number). `Break`
    /// when the run has ended (an error, the first violation with
    /// `stop_at_first`, a failed report): [`Session::finish`] then says why.
    pub fn push<P: Report + ?Sized>(
        &mut self,
        name: &[u8],
        args: &[&[u8]],
        time: Option<u64>,
        out: &mut P,
    ) -> ControlFlow<()> {
        if self.ended {
            return ControlFlow::Break(());
        }
        if self.monitor.events() == 0 {
            // An untimed stream's clock counts events.
            self.monitor.set_step_clock(time.is_none());
        }
        // A pushed event's line is its number.
        let step = Step {
            name,
            args,
            time: time.unwrap_or(0),
            line: self.monitor.events() + 1,
            timed: time.is_some(),
        };
        let flow = self.step(step, out);
        if flow.is_continue() {
            self.after_event(out);
        }
        self.ended = flow.is_break();
        flow
    }

    /// After each step: the profile's sample.
    #[inline(always)]
    fn after_event<P: Report + ?Sized>(&mut self, out: &mut P) {
        if self.profile.is_some() {
            self.sample(out);
        }
    }

    /// The profile's sample after a step.
    #[inline(never)]
    fn sample<P: Report + ?Sized>(&mut self, out: &mut P) {
        if let Some(p) = &mut self.profile
            && let Err(e) = p.after_event(&mut self.monitor)
        {
            self.profile = None;
            self.warn(out, Warning::ProfileStopped(e.to_string()));
        }
    }

    fn warn<P: Report + ?Sized>(&mut self, out: &mut P, w: Warning) {
        out.warning(&w);
        self.warnings.push(w);
    }
}
