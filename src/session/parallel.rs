//! Parallel runs of a session: the trace monitored by the parallel core
//! ([`crate::parallel`]: threads, or a file in time segments) on
//! [`SessionOptions::jobs`] threads, or by a cluster
//! ([`Session::run_cluster`]), as the core's planner lays the run out. The
//! session only reports what the core hands on, through the same
//! [`Report`] as a sequential run.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::read::FirstEvents;
use super::{EndOfTrace, Outcome, Report, RunError, Session, SessionOptions, Step};
use crate::parallel::block::{Block, Ev};
use crate::parallel::read::{Online, Skipped};
use crate::parallel::{self, EventView, Sink, Stop};
use crate::plan::Plan;
use crate::report::Undecided;
use crate::runtime::witness::{EventWitness, Witness};
use crate::trace::{Format, TraceOptions};

impl SessionOptions {
    /// Whether a violation at event `number` gets a witness (`witness`,
    /// or `witness_at` that event).
    #[inline]
    pub fn witnessed(&self, number: u64) -> bool {
        self.witness || self.witness_at == Some(number)
    }

    /// Why a run with these options takes the sequential engine whatever
    /// [`SessionOptions::jobs`] asks for (`None`: it may run in parallel):
    /// a witness at one event (`witness_at`, which steps that event on its
    /// own) and satisfactions (each slice would list part of the tuples;
    /// a MonPoly log may still be cut into time segments, which slice
    /// nothing: see `session::segments`).
    /// `timepoints` on a MonPoly log (time-points of several events) takes
    /// it too, once the trace's format is known
    /// ([`Session::points_of_several`]). A
    /// profile ([`Session::profile`]), an MFOTL
    /// signature ([`Session::set_typing`]), `stop_at_first` and `strict`
    /// with future operators (which stop where the sequential run stops,
    /// its undecided steps then undecided) and witnesses of a property that
    /// its violating event does not determine ([`EventWitness`]) take it
    /// too.
    pub fn sequential_only(&self) -> Option<&'static str> {
        if self.witness_at.is_some() {
            Some("witnesses")
        } else if self.until.is_some() {
            Some("reading up to an event")
        } else if self.satisfactions {
            Some("satisfactions")
        } else {
            None
        }
    }

    /// Whether violations get witnesses (one or all).
    pub(super) fn explained(&self) -> bool {
        self.witness || self.witness_at.is_some() || self.all_witnesses > 0
    }
}

impl Session {
    /// Monitors `input` on [`SessionOptions::jobs`] threads, with the
    /// verdicts, counts and errors of [`Session::run`], then
    /// [`Session::finish`]es. It is [`Session::run`] when the options need
    /// the sequential engine ([`SessionOptions::sequential_only`]), with
    /// one job, and for a plan that threads cannot speed up (one property
    /// that can be neither sliced nor split).
    pub fn run_parallel<P: Report + ?Sized>(self, input: impl Read + Send, out: &mut P) -> Outcome {
        self.run_parallel_on(input, None, out, Session::run_reader)
    }

    /// [`Session::run_parallel`] of a regular file already open (standard
    /// input redirected from a file): when the run stays sequential, read
    /// ahead as [`Session::run_open_file`] reads.
    pub fn run_parallel_open_file<P: Report + ?Sized>(
        self,
        file: std::fs::File,
        out: &mut P,
    ) -> Outcome {
        self.run_parallel_on(file, None, out, Session::run_regular)
    }

    /// [`Session::run_parallel`] on a stream (standard input from a pipe),
    /// whose probe `online` says whether more of it is at hand: a block of
    /// events ends where the stream waits, and the report is told
    /// ([`Report::waiting`]) before the run waits too, so that verdicts
    /// show while the stream is idle, as in a sequential run. (A caller
    /// that flushes its output as the sequential run waits, as the command
    /// line does, asks [`Session::runs_in_parallel`] first.)
    pub fn run_parallel_stream<P: Report + ?Sized>(
        self,
        input: impl Read + Send,
        online: Online,
        out: &mut P,
    ) -> Outcome {
        self.run_parallel_on(input, Some(online), out, Session::run_reader)
    }

    /// The parallel run of `input`, or its `sequential` run.
    fn run_parallel_on<R: Read + Send, P: Report + ?Sized>(
        mut self,
        input: R,
        online: Option<Online>,
        out: &mut P,
        sequential: impl FnOnce(Session, crate::trace::TraceReader<R>, &mut P) -> Outcome,
    ) -> Outcome {
        let mut reader = self.reader(input);
        if self.options.timepoints && self.points_of_several(reader.detect_format()) {
            return sequential(self, reader, out);
        }
        let Some((plan, options)) = self.parallel_run() else {
            return sequential(self, reader, out);
        };
        let options = parallel::Options { online, ..options };
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let mut merged = Merged::new(&mut self, out);
        let outcome = parallel::run(&plan, reader, &options, &stop, &mut merged);
        let tally = merged.into_tally();
        self.end_parallel(outcome, tally, out)
    }

    /// [`Session::run_parallel`] on the file at `path`, split into time
    /// segments, one per job, where the planner finds that pays (see
    /// `parallel::segments` and [`SessionOptions::segments`]);
    /// sliced otherwise.
    pub fn run_parallel_file<P: Report>(mut self, path: &Path, out: &mut P) -> io::Result<Outcome> {
        // A MonPoly log stepped by time-points: in time segments, or
        // sequential (below).
        if let Some((plan, layout)) = self.points_layout(path) {
            return Ok(self.run_points(path, &plan, &layout, out));
        }
        if self.options.timepoints {
            let format = self.reader(std::fs::File::open(path)?).detect_format();
            if self.points_of_several(format) {
                return self.run_file(path, out);
            }
        }
        let Some((plan, options)) = self.parallel_run() else {
            return self.run_file(path, out);
        };
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let reading = self.reading();
        let trace = self.options.trace;
        let reader = move |input, segment: bool| {
            // A segment is plain CSV, untimed.
            let plain = TraceOptions {
                format: Format::Plain,
                timed: false,
            };
            reading.reader(input, if segment { plain } else { trace })
        };
        let asked = (trace.timed, trace.format);
        let mut merged = Merged::new(&mut self, out);
        let outcome = parallel::run_file(&plan, path, &reader, asked, &options, &stop, &mut merged);
        let tally = merged.into_tally();
        Ok(self.end_parallel(outcome?, tally, out))
    }

    /// The plan and the options of a parallel run, when this session takes
    /// one (see [`Session::run_parallel`]). With witnesses, every property
    /// must have its violating event as witness ([`EventWitness`]: a slice
    /// holds part of the values, and numbers them in its own order, so
    /// that no other witness is the sequential run's), and none may have
    /// future operators.
    fn parallel_run(&mut self) -> Option<(Plan, parallel::Options)> {
        self.by_event = self.parallel_witnesses()?;
        let plan = self.plan.take()?;
        let options = parallel::Options {
            monitor: self.options.monitor.clone(),
            jobs: self.options.jobs,
            close: self.options.end_of_trace == Some(EndOfTrace::Close),
            segments: self.options.segments,
            skip: self.skip().then_some(self.options.strict),
            timepoints: self.options.timepoints,
            profile: self.profile.as_ref().map(|p| p.every()),
            ..parallel::Options::default()
        };
        Some((plan, options))
    }

    /// Whether the run steps time-points of several events, which no slice
    /// does: `timepoints` on a trace of `format` MonPoly (a violation names
    /// the event of its time-point it is due to, found by a walk of the
    /// witnesses over the whole monitor's state, which no slice has; time
    /// segments, whose monitors are whole, may step them: see
    /// `session::segments`). In the other formats a time-point is one
    /// event: a parallel run steps it as one, numbered as read.
    fn points_of_several(&self, format: Format) -> bool {
        self.options.timepoints && format == Format::MonPoly
    }

    /// Whether [`Session::run_parallel`] monitors the trace on threads
    /// (rather than with [`Session::run`]: see there). With `timepoints`,
    /// only when the trace's format is given and is not MonPoly (a stream's
    /// format is found on its first bytes, after the caller asks).
    pub fn runs_in_parallel(&self) -> bool {
        let format = match self.options.trace.format {
            Format::Auto => Format::MonPoly,
            given => given,
        };
        !self.points_of_several(format) && self.parallel_witnesses().is_some()
    }

    /// When this session takes a parallel run (see
    /// [`Session::parallel_run`]), the witness of each property (none
    /// without witnesses).
    fn parallel_witnesses(&self) -> Option<Vec<EventWitness>> {
        let sequential = self.options.jobs < 2
            || self.options.sequential_only().is_some()
            || self.typing.is_some()
            || ((self.options.stop_at_first || self.options.strict) && self.monitor.has_future());
        if sequential || !self.plan.as_ref().is_some_and(parallel::can_gain) {
            return None;
        }
        if !self.options.explained() {
            return Some(Vec::new());
        }
        let by_event: Option<Vec<EventWitness>> = (self.plan.as_ref()?.props.iter())
            .map(EventWitness::of)
            .collect();
        by_event.filter(|_| !self.monitor.has_future())
    }

    /// The end of a parallel run: its outcome, and [`Session::finish`].
    pub(super) fn end_parallel<P: Report + ?Sized>(
        mut self,
        outcome: parallel::Outcome,
        tally: Tally,
        out: &mut P,
    ) -> Outcome {
        match outcome.stopped {
            // The sink's own error (`strict`) comes first.
            _ if self.error.is_some() => {}
            Some(Stop::Trace(e)) => self.error = Some(RunError::Trace(e)),
            Some(Stop::Refused { line, error, last }) => {
                let timed = self.options.trace.timed;
                self.error = Some(RunError::step(line, error, timed, last.as_deref()));
            }
            Some(Stop::Interrupted) => self.interrupted = true,
            Some(Stop::ByCaller) | None => {}
        }
        self.format = outcome.format.or(self.format);
        self.parallel = Some(tally.counts(outcome.gc));
        self.tail = tally.tail;
        self.finish(out)
    }

    /// At the end of a parallel run, the steps handed on after the end of
    /// the trace: the violations of those decided, then every undecided
    /// one (as [`Session::finish`] reports a sequential run's); how many
    /// are undecided and the first few of their numbers.
    pub(super) fn finish_tail<P: Report + ?Sized>(&mut self, out: &mut P) -> (u64, Vec<u64>) {
        let tail = std::mem::take(&mut self.tail);
        for late in tail.iter().filter(|l| !l.undecided) {
            let args = late.args();
            if self.closed
                || self
                    .report_each(out, &late.step(&args), late.number, &late.props)
                    .is_break()
            {
                break;
            }
        }
        let names: Vec<String> = (self.monitor.property_names().iter())
            .map(|n| n.to_string())
            .collect();
        let undecided: Vec<&Late> = tail.iter().filter(|l| l.undecided).collect();
        for late in &undecided {
            if self.closed {
                break;
            }
            // An undecided time-point is named `@`, as the sequential run
            // names it, without arguments.
            let (name, args) = if self.options.timepoints {
                (&b"@"[..], Vec::new())
            } else {
                (&late.name[..], late.args())
            };
            let properties: Vec<&str> = (late.props.iter())
                .filter_map(|&p| names.get(p).map(String::as_str))
                .collect();
            let u = Undecided {
                event: late.number,
                line: late.line,
                name,
                args: &args,
                time: late.timed.then_some(late.time),
                properties: &properties,
            };
            if out.undecided(&u).is_err() {
                self.closed = true;
            }
        }
        let first = undecided
            .iter()
            .take(FIRST_SHOWN)
            .map(|l| l.number)
            .collect();
        (undecided.len() as u64, first)
    }

    /// Reports the violations of properties `violated` at event `number`
    /// (`Break` when the report failed).
    fn report_each<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        ev: &Step<'_>,
        number: u64,
        violated: &[usize],
    ) -> std::ops::ControlFlow<()> {
        for &property in violated {
            // A parallel run's witnesses: the event's values.
            let witness = (self.options.explained())
                .then(|| self.by_event.get(property)?.witness(ev.name, ev.args))
                .flatten();
            let all: Option<Vec<Witness>> =
                (self.options.all_witnesses > 0).then(|| witness.iter().cloned().collect());
            let listed = all.as_ref().map(|a| (a.as_slice(), a.len() as u64));
            let v = ev.violation(property, number, listed);
            let (count, first) = &mut self.tally[property];
            *count += 1;
            first.get_or_insert(number);
            let shown = witness
                .as_deref()
                .filter(|_| self.options.witnessed(number));
            if out.violation(&v, shown).is_err() {
                self.closed = true;
                return std::ops::ControlFlow::Break(());
            }
        }
        std::ops::ControlFlow::Continue(())
    }
}

/// How many undecided step numbers the summary shows.
const FIRST_SHOWN: usize = 5;

/// An event handed on after the end of the trace (with future operators):
/// decided then, with the properties violated at it, or undecided by
/// them.
#[derive(Debug)]
pub(super) struct Late {
    number: u64,
    line: u64,
    time: u64,
    timed: bool,
    name: Box<[u8]>,
    args: Vec<Box<[u8]>>,
    undecided: bool,
    props: Vec<usize>,
}

impl Late {
    fn new(ev: &EventView<'_>, undecided: bool, props: &[usize]) -> Late {
        Late {
            number: ev.number,
            line: ev.line,
            time: ev.time,
            timed: ev.timed,
            name: ev.name.into(),
            args: ev.args.iter().map(Box::from).collect(),
            undecided,
            props: props.to_vec(),
        }
    }

    fn args(&self) -> Vec<&[u8]> {
        self.args.iter().map(|a| &a[..]).collect()
    }

    fn step<'a>(&'a self, args: &'a [&'a [u8]]) -> Step<'a> {
        Step {
            name: &self.name,
            args,
            time: self.time,
            line: self.line,
            timed: self.timed,
        }
    }
}

/// What a parallel run counted of the events handed on, beside the
/// session's counts per name.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Events so far.
    events: u64,
    /// Events whose time stamp was smaller than their predecessor's.
    regressions: u64,
    last_time: Option<u64>,
    /// Whether the trace has ended ([`Sink::ended`]).
    ended: bool,
    /// The events handed on since.
    tail: Vec<Late>,
    /// Per name index, the events of a stretch counted by
    /// [`Sink::quiet`] and where the first of them is in its block.
    stretch: Vec<(u64, usize)>,
}

impl Tally {
    /// The events, time regressions and collections `gc` of the run.
    fn counts(&self, gc: (u64, u64)) -> (u64, u64, (u64, u64)) {
        (self.events, self.regressions, gc)
    }
}

/// The session as the sink of a parallel or cluster run: each event
/// counted and its violations reported as it is handed on (those handed
/// on after the end of the trace are kept for [`Session::finish`]).
pub(super) struct Merged<'a, P: Report + ?Sized> {
    session: &'a mut Session,
    out: &'a mut P,
    tally: Tally,
}

impl<'a, P: Report + ?Sized> Merged<'a, P> {
    pub(super) fn new(session: &'a mut Session, out: &'a mut P) -> Self {
        Merged {
            session,
            out,
            tally: Tally::default(),
        }
    }

    pub(super) fn into_tally(self) -> Tally {
        self.tally
    }

    /// Counts the `1 + ev.repeats` events of `ev`.
    fn count(&mut self, ev: &EventView<'_>) {
        let (session, tally) = (&mut *self.session, &mut self.tally);
        match ev.name_index {
            Some(index) => session.counts.add_indexed(index, ev.name, 1 + ev.repeats),
            None => session.counts.add_n(ev.name, 1 + ev.repeats),
        }
        tally.events += 1 + ev.repeats;
        if FirstEvents::wants(ev.number) {
            session
                .first
                .note(ev.number, ev.line, ev.name, ev.args.iter());
        }
        // Repeats are at the same time: no regression among them.
        tally.regressions += u64::from(tally.last_time.is_some_and(|t| ev.time < t));
        tally.last_time = Some(ev.time);
        self.out.progress(tally.events, &|| ev.bytes_read);
    }
}

impl<P: Report + ?Sized> Sink for Merged<'_, P> {
    fn quiet(&mut self, block: &Block, events: &[Ev]) -> bool {
        let first = events.first().map_or(0, |e| e.number);
        if self.session.options.strict || self.tally.ended || FirstEvents::wants(first) {
            // One by one: names to check, or first events to keep.
            return parallel::merge::one_by_one(self, block, events);
        }
        // Counted, as `count` counts each, without a view of each: per
        // name index first, then into the session's counts.
        let (session, tally) = (&mut *self.session, &mut self.tally);
        let stretch = &mut tally.stretch;
        for (at, ev) in events.iter().enumerate() {
            let n = 1 + ev.repeats;
            let i = ev.name as usize;
            if ev.name == u32::MAX {
                session.counts.add_n(block.name_of(ev), n);
            } else {
                if stretch.len() <= i {
                    stretch.resize(i + 1, (0, 0));
                }
                let (count, first) = &mut stretch[i];
                if *count == 0 {
                    *first = at;
                }
                *count += n;
            }
            tally.events += n;
            tally.regressions += u64::from(tally.last_time.is_some_and(|t| ev.time < t));
            tally.last_time = Some(ev.time);
        }
        for (index, (count, first)) in stretch.iter_mut().enumerate() {
            if *count > 0 {
                let name = block.name_of(&events[*first]);
                session.counts.add_indexed(index as u32, name, *count);
                *count = 0;
            }
        }
        self.out.progress(tally.events, &|| block.bytes_read);
        true
    }

    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
        if self.session.options.strict
            && ev.name_index.is_none()
            && self.session.monitor.arity_of(ev.name).is_none()
        {
            // Where the sequential run stops: the event is not counted.
            let message = super::names::unknown_event(&self.session.spec_events, ev.name);
            self.session.error = Some(RunError::UnknownEvent {
                line: ev.line,
                message,
            });
            return false;
        }
        self.count(ev);
        if self.tally.ended {
            if !violated.is_empty() {
                self.tally.tail.push(Late::new(ev, false, violated));
            }
            return true;
        }
        if !violated.is_empty() {
            // The arguments are only looked up for a violation's report.
            let args = ev.args.to_vec();
            let step = Step {
                name: ev.name,
                args: &args,
                time: ev.time,
                line: ev.line,
                timed: ev.timed,
            };
            if self
                .session
                .report_each(self.out, &step, ev.number, violated)
                .is_break()
            {
                return false;
            }
        }
        !self.session.options.stop_at_first || violated.is_empty()
    }

    fn ended(&mut self) {
        self.tally.ended = true;
    }

    fn skipped(&mut self, skipped: &Skipped) {
        let session = &mut *self.session;
        let line = skipped.line();
        let why = || match skipped {
            Skipped::Trace(e) => e.to_string(),
            Skipped::Arity { error, last, .. } => {
                let timed = session.options.trace.timed;
                RunError::step(line, error.clone(), timed, last.as_deref()).to_string()
            }
            Skipped::Unknown { name, .. } => {
                let message = super::names::unknown_event(&session.spec_events, name);
                format!("line {line}: {message}")
            }
        };
        let why = why();
        session.bad.skip(line, || why);
    }

    fn waiting(&mut self) {
        self.out.waiting();
    }

    fn layout(&mut self, plan: &Plan, workers: &[Vec<crate::parallel::worker::Unit>]) {
        let session = &mut *self.session;
        if let Some(p) = &mut session.profile {
            let options = &session.options.monitor;
            p.parallel(super::layout::columns(
                plan,
                workers,
                options,
                &session.spec,
            ));
        }
    }

    fn profile(&mut self, event: u64, values: &[u64]) {
        if let Some(p) = &mut self.session.profile
            && let Err(e) = p.row(event, values)
        {
            self.session.profile = None;
            let w = super::Warning::ProfileStopped(e.to_string());
            self.session.warn(self.out, w);
        }
    }

    fn undecided(&mut self, ev: &EventView<'_>, properties: &[usize]) -> bool {
        self.count(ev);
        self.tally.tail.push(Late::new(ev, true, properties));
        true
    }
}
