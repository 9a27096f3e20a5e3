//! Time segments of a MonPoly log stepped by time-points (an MFOTL
//! specification's satisfactions or, with `--negate`, violations; and
//! `timepoints`): the log is cut at time-points that start a line
//! ([`crate::parallel::segments::points_layout`]), one segment per job.
//! The session steps the first segment itself, on the calling thread; each
//! other segment's worker is a session of its own that steps a warm-up
//! before its segment reporting nothing, takes a snapshot of its monitor,
//! and steps its segment recording what it reports ([`worker`]). When the
//! segment before ends, the session compares that snapshot with its own
//! monitor's state there: if they agree, the two monitors give the same
//! verdicts on any continuation, and the segment's records are reported
//! (renumbered) and its monitor, which holds the state at its end, goes on
//! as the session's; if not, the session steps the segment itself. A
//! worker that meets what it cannot give exactly (an input error, a
//! skipped line, a tuple with a value it has not seen, a violation at a
//! time-point of several events, whose event depends on the order in
//! which the values were numbered) stops there, and the session steps the
//! segment itself from its start, reporting from that time-point on. So
//! the output is the sequential run's.
//!
//! Every reader of a stretch resumes the numbering of lines, the time
//! stamps' check and (for the session's) the numbering of time-points
//! where the reader before it stood ([`crate::trace::Resume`]), and reads
//! the bound's `@` too, so that the last time-point of a stretch ends, and
//! an error in it reads, as in one reading of the whole log.

mod worker;

use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};

use super::read::FIRST_EVENTS;
use super::{Outcome, Report, RunError, Segments, Session, SessionOptions};
use crate::mfotl::typing::Typing;
use crate::parallel::segments::{MIN_BYTES, PointsLayout, points_layout, snapshots};
use crate::plan::Plan;
use crate::report::{Undecided, Violation};
use crate::runtime::witness::WitnessValue;
use crate::trace::{Compression, Format, Resume};
use worker::{Piece, Quiet};

/// Time-points of a log's start on which a run judges whether warm-ups
/// reach the state of the monitor that steps from the start.
const JUDGED: u64 = 4096;

/// What every worker's session is made of.
pub(super) struct Shared<'a> {
    plan: &'a Plan,
    spec: &'a str,
    options: &'a SessionOptions,
    typing: Option<&'a Typing>,
    path: &'a Path,
    /// Whether the report reads the event a violation is due to.
    culprits: bool,
    /// [`Report::satisfaction_names_event`] of the report.
    names_event: bool,
}

/// Where the session's own stepping stands: at a segment's start, its
/// readers' position, and the time-points stepped and time stamps that
/// went back so far.
struct Tally {
    at: Resume,
    stepped: u64,
    regressions: u64,
    /// The collections of the monitors the run went on from (summed, as a
    /// sliced run sums its slices').
    gc: (u64, u64),
}

impl Session {
    /// The plan and where the segments lie, when the log at `path` is
    /// cut into time segments (see the [module](self)): a MonPoly log stepped by time-points,
    /// uncompressed, with more than one job, no option that needs the
    /// sequential engine (witnesses, a profile, future operators, reading
    /// up to an event, stopping at the first violation), a state that
    /// snapshots compare (no time bounds, comparisons or aggregations),
    /// and, unless segments are asked for always, a run that reports
    /// violations (not a pattern's satisfactions) on a log at least
    /// [`MIN_BYTES`] long, with warm-ups that reach the state of the
    /// log's start ([`Session::warm_ups_agree`]).
    pub(super) fn points_layout(&mut self, path: &Path) -> Option<(Plan, PointsLayout)> {
        let o = &self.options;
        let by_points = (self.typing.is_some() && !o.event_steps) || o.timepoints;
        if o.jobs < 2
            || o.segments == Segments::Never
            || !by_points
            || self.profile.is_some()
            || o.explained()
            || o.until.is_some()
            || o.stop_at_first
            || self.monitor.has_future()
        {
            return None;
        }
        let plan = self.plan.as_ref()?;
        let mut reader = self.reader(File::open(path).ok()?);
        if reader.detect_format() != Format::MonPoly || reader.compression() != Compression::None {
            return None;
        }
        let size = std::fs::metadata(path).ok()?.len();
        let always = o.segments == Segments::Always;
        // A pattern's satisfactions are reported at many time-points: a
        // worker can run ahead of the run only as far as it may hold what
        // it reports ([`worker::AHEAD`]), and then it costs more than it
        // saves. Violations (`--negate`, `--timepoints`) are few.
        let light = !o.satisfactions;
        if !snapshots(plan, &o.monitor) || (!always && (size < MIN_BYTES || !light)) {
            return None;
        }
        let layout = points_layout(path, o.jobs, FIRST_EVENTS).ok()??;
        let plan = plan.clone();
        if !always && !self.warm_ups_agree(&plan, path) {
            return None;
        }
        Some((plan, layout))
    }

    /// Whether warm-ups can be expected to reach the state of the monitor
    /// that steps from the start of the log at `path`, judged on its first
    /// [`JUDGED`] time-points: a monitor steps them all, another their
    /// second half, and their snapshots must agree (as in
    /// `parallel::segments::warm_up_agrees`).
    fn warm_ups_agree(&self, plan: &Plan, path: &Path) -> bool {
        let shared = self.shared(plan, path, false, false);
        let judged = |skipped: u64| -> Option<crate::runtime::Snapshot> {
            let mut session = worker::session(&shared)?;
            session.monitor.enable_tuples(false, None);
            let mut reader = worker::reader(&session, path, 0, None, Resume::default()).ok()?;
            for k in 0..JUDGED {
                let point = reader.next_timepoint().ok()??;
                if k < skipped {
                    continue;
                }
                if session.monitor.events() == 0 {
                    session.monitor.set_step_clock(!point.timed);
                }
                if session.timepoint(&point, &mut Quiet).is_break() {
                    return None;
                }
            }
            session.monitor.snapshot()
        };
        match (judged(0), judged(JUDGED / 2)) {
            (Some(a), Some(b)) => a.agrees(&b),
            // A short log, or an error: the run itself will tell.
            _ => true,
        }
    }

    fn shared<'a>(
        &'a self,
        plan: &'a Plan,
        path: &'a Path,
        culprits: bool,
        names_event: bool,
    ) -> Shared<'a> {
        Shared {
            plan,
            spec: &self.spec,
            options: &self.options,
            typing: self.typing.as_ref(),
            path,
            culprits,
            names_event,
        }
    }

    /// Monitors the log at `path` in the segments of `layout` (see the
    /// [module](self)), then [`Session::finish`]es.
    pub(super) fn run_points<P: Report>(
        mut self,
        path: &Path,
        plan: &Plan,
        layout: &PointsLayout,
        out: &mut P,
    ) -> Outcome {
        self.start = std::time::Instant::now();
        self.format = Some(Format::MonPoly);
        let culprits = self.culprits_read(out);
        if culprits {
            // A violation names the event it is due to (as in `run_reader`).
            self.monitor.enable_witnesses(true);
        }
        let (spec, options, typing) =
            (self.spec.clone(), self.options.clone(), self.typing.clone());
        let shared = Shared {
            plan,
            spec: &spec,
            options: &options,
            typing: typing.as_ref(),
            path,
            culprits,
            names_event: out.satisfaction_names_event(),
        };
        let n = layout.warm.len();
        let done = AtomicBool::new(false);
        let cancel = self.cancel.clone();
        let stop = || {
            done.load(Ordering::Relaxed)
                || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
        };
        let mut tally = Tally {
            at: Resume {
                line: 1,
                ..Resume::default()
            },
            stepped: 0,
            regressions: 0,
            gc: (0, 0),
        };
        std::thread::scope(|scope| {
            let mut inbox: Vec<Receiver<Vec<Piece>>> = Vec::with_capacity(n);
            for s in 1..n {
                let (tx, rx) = sync_channel(worker::AHEAD);
                inbox.push(rx);
                let (shared, stop) = (&shared, &stop);
                scope.spawn(move || worker::run(shared, layout, s, &tx, stop));
            }
            let mut go_on = self.step_stretch(layout, 0, path, &mut tally, None, out);
            for (s, rx) in (1..n).zip(inbox) {
                if !go_on {
                    break;
                }
                tally.at.line = layout.lines[s];
                let start = match rx.recv().map(|mut b| b.pop()) {
                    Ok(Some(Piece::Start(snapshot))) => snapshot,
                    _ => None,
                };
                // The summary's checks read the first time-points: the
                // run steps them itself (the layout leaves them in the
                // first segment, unless lines were skipped there).
                let first_read = tally.at.timepoints >= FIRST_EVENTS;
                let here = self.monitor.snapshot().filter(|_| first_read);
                let taken;
                (go_on, taken) = match (start, here) {
                    (Some(a), Some(b)) if a.agrees(&b) => {
                        self.take(layout, s, path, rx, &mut tally, out)
                    }
                    _ => {
                        drop(rx);
                        let go_on = self.step_stretch(layout, s, path, &mut tally, None, out);
                        (go_on, false)
                    }
                };
                let (t, again) = self.segments.get_or_insert((0, 0));
                *if taken { t } else { again } += 1;
            }
            done.store(true, Ordering::Relaxed);
        });
        let gc = self.monitor.gc_stats();
        let gc = (tally.gc.0 + gc.0, tally.gc.1 + gc.1);
        self.parallel = Some((tally.stepped, tally.regressions, gc));
        self.finish(out)
    }

    /// Reports what the worker of segment `s` hands on (see the
    /// [module](self)); whether the run goes on, and whether the segment
    /// was taken whole (not stepped again from where its worker was
    /// unsure).
    fn take<P: Report>(
        &mut self,
        layout: &PointsLayout,
        s: usize,
        path: &Path,
        rx: Receiver<Vec<Piece>>,
        tally: &mut Tally,
        out: &mut P,
    ) -> (bool, bool) {
        // The segment's time-points whose reports were handed on.
        let mut through = 0;
        for bunch in rx.iter() {
            if self.cancelled() {
                self.interrupted = true;
                return (false, false);
            }
            for piece in bunch {
                match piece {
                    Piece::Start(_) => {}
                    Piece::Said(said, k) => {
                        for x in &said {
                            if x.report(out, tally.at.timepoints + x.event, x.line)
                                .is_err()
                            {
                                self.closed = true;
                                return (false, false);
                            }
                        }
                        through = k;
                    }
                    Piece::Unsure(k) => {
                        let from = Some(tally.at.timepoints + k);
                        return (self.step_stretch(layout, s, path, tally, from, out), false);
                    }
                    Piece::End(end) => {
                        let end = *end;
                        self.counts.merge(end.counts);
                        for (mine, theirs) in self.tally.iter_mut().zip(end.tally) {
                            mine.0 += theirs.0;
                            if mine.1.is_none() {
                                mine.1 = theirs.1.map(|f| f + tally.at.timepoints);
                            }
                        }
                        let before = std::mem::replace(&mut self.monitor, end.monitor);
                        let gc = before.gc_stats();
                        tally.gc = (tally.gc.0 + gc.0, tally.gc.1 + gc.1);
                        tally.at.timepoints += end.points;
                        tally.at.events += end.events;
                        tally.at.last_time = end.last_time;
                        tally.stepped += end.stepped;
                        tally.regressions += end.regressions;
                        return (true, true);
                    }
                }
            }
        }
        // The worker stopped short (interrupted, or it failed).
        if self.cancelled() {
            self.interrupted = true;
            return (false, false);
        }
        let from = Some(tally.at.timepoints + through + 1);
        (self.step_stretch(layout, s, path, tally, from, out), false)
    }

    /// Steps segment `s` of `layout` itself, from where `tally` stands,
    /// reporting from time-point `from` on (all: `None`); whether the run
    /// goes on.
    fn step_stretch<P: Report>(
        &mut self,
        layout: &PointsLayout,
        s: usize,
        path: &Path,
        tally: &mut Tally,
        from: Option<u64>,
        out: &mut P,
    ) -> bool {
        let last = s + 1 == layout.warm.len();
        let end = (!last).then(|| layout.bounds[s + 1]);
        let mut reader = match worker::reader(self, path, layout.bounds[s], end, tally.at) {
            Ok(r) => r,
            Err(e) => {
                let e = crate::trace::TraceError::new(
                    crate::trace::TraceErrorKind::Io,
                    tally.at.line,
                    format!("cannot read the trace: {e}"),
                );
                self.error = Some(RunError::Trace(e));
                return false;
            }
        };
        let count = layout.points[s + 1].saturating_sub(layout.points[s]);
        let next_line = if last { u64::MAX } else { layout.lines[s + 1] };
        let before = (self.monitor.events(), self.monitor.time_regressions());
        let skip = self.skip();
        let mut out = From { out, from };
        let mut go_on = true;
        let mut k = 0;
        while k < count {
            let next = reader.next_timepoint();
            if self.cancelled() {
                self.interrupted = true;
                go_on = false;
                break;
            }
            k += 1;
            let point = match next {
                Ok(Some(p)) => p,
                Ok(None) => break,
                // The next segment's time-point (its `@`, read with this one).
                Err(e) if e.line >= next_line => break,
                Err(e) => match self.bad_timepoint(e, skip && !reader.failed()) {
                    ControlFlow::Continue(()) => continue,
                    ControlFlow::Break(()) => {
                        go_on = false;
                        break;
                    }
                },
            };
            if self.monitor.events() == 0 {
                self.monitor.set_step_clock(!point.timed);
            }
            if self.timepoint(&point, &mut out).is_break() {
                go_on = false;
                break;
            }
            out.progress(self.monitor.events(), &|| 0);
        }
        tally.at.timepoints = reader.points_read();
        tally.at.events = reader.events_read();
        tally.at.last_time = reader.last_time();
        tally.stepped += self.monitor.events() - before.0;
        tally.regressions += self.monitor.time_regressions() - before.1;
        go_on
    }
}

/// A report that passes on what is reported from time-point `from` on
/// (what was reported before it was handed on already).
struct From<'a, P: ?Sized> {
    out: &'a mut P,
    from: Option<u64>,
}

impl<P: Report + ?Sized> From<'_, P> {
    fn passes(&self, v: &Violation<'_>) -> bool {
        self.from.is_none_or(|f| v.event >= f)
    }
}

impl<P: Report + ?Sized> Report for From<'_, P> {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        if self.passes(v) {
            return self.out.violation(v, witness);
        }
        Ok(())
    }

    fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        if self.passes(v) {
            return self.out.satisfaction(v, point, ts, tuples);
        }
        Ok(())
    }

    fn satisfaction_names_event(&self) -> bool {
        self.out.satisfaction_names_event()
    }

    fn undecided(&mut self, u: &Undecided<'_>) -> io::Result<()> {
        self.out.undecided(u)
    }

    fn warning(&mut self, warning: &super::Warning) {
        self.out.warning(warning);
    }

    fn progress(&mut self, events: u64, bytes_read: &dyn Fn() -> u64) {
        self.out.progress(events, bytes_read);
    }
}
