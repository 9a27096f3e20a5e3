//! A time segment's worker: a session of its own that steps the
//! time-points of its warm-up reporting nothing, hands the merger a
//! snapshot of its monitor, then steps its segment and records what it
//! would report ([`Said`]), numbered from the segment's start. Whatever a
//! segment cannot give exactly as the sequential run would (an input
//! error, a skipped line, a tuple with a value the worker has not seen, a
//! violation whose event depends on the order in which the values were
//! numbered) makes it stop, *unsure* from that time-point on: the merger
//! then steps the segment itself (see [`super`]).

use std::io;
use std::path::Path;
use std::sync::mpsc::SyncSender;

use super::super::{Report, Session, SessionOptions};
use super::Shared;
use crate::parallel::segments::{PointsLayout, range};
use crate::report::{EventCounts, Violation};
use crate::runtime::witness::WitnessValue;
use crate::runtime::{Monitor, Snapshot};
use crate::trace::{Format, Resume, TraceOptions, TraceReader};

/// Records a worker hands the merger at once (a bunch), at the end of a
/// time-point: few hand-offs, however many records its time-points have.
const BUNCH: usize = 4096;

/// Time-points after which a worker hands on how far it stepped, even
/// with fewer records than a bunch.
const QUIET_POINTS: u64 = 1 << 16;

/// Bunches a worker may hand on before the merger takes them: a worker
/// ahead of the merger waits there, so that a segment with a report at
/// most of its time-points (an MFOTL pattern's satisfactions) holds at
/// most this many bunches in memory, whatever the log's length.
pub(super) const AHEAD: usize = 16;

/// What a worker hands the merger, in order.
pub(super) enum Piece {
    /// Its monitor's state after the warm-up (`None`: the warm-up failed).
    Start(Option<Snapshot>),
    /// What the segment's time-points report, and how many of them were
    /// stepped so far.
    Said(Vec<Said>, u64),
    /// The segment is unsure from its time-point `k` (from 1) on: nothing
    /// of it or after it was handed on.
    Unsure(u64),
    /// The end of the segment.
    End(Box<End>),
}

/// A violation (or satisfaction) reported in a segment, owned, numbered
/// from the segment's first time-point and line.
pub(super) struct Said {
    pub property: usize,
    pub event: u64,
    pub name: Box<[u8]>,
    pub args: Vec<Box<[u8]>>,
    pub time: Option<u64>,
    pub line: u64,
    /// A satisfaction's time stamp and tuples.
    pub tuples: Option<(u64, Vec<Vec<WitnessValue>>)>,
}

impl Said {
    /// Reports it to `out`, as event `event` on line `line`.
    pub(super) fn report<P: Report + ?Sized>(
        &self,
        out: &mut P,
        event: u64,
        line: u64,
    ) -> io::Result<()> {
        let args: Vec<&[u8]> = self.args.iter().map(|a| &a[..]).collect();
        let v = Violation {
            property: self.property,
            event,
            name: &self.name,
            args: &args,
            time: self.time,
            line,
            all_witnesses: None,
        };
        match &self.tuples {
            Some((ts, tuples)) => out.satisfaction(&v, event - 1, *ts, tuples),
            None => out.violation(&v, None),
        }
    }
}

/// What a segment ends with: its monitor (which holds the state at the
/// segment's end) and what it counted.
pub(super) struct End {
    pub monitor: Monitor,
    pub counts: EventCounts,
    /// Per property: violations, and the first (from the segment's start).
    pub tally: Vec<(u64, Option<u64>)>,
    /// Time-points and events read in the segment.
    pub points: u64,
    pub events: u64,
    /// The last time stamp read.
    pub last_time: u64,
    /// Time-points stepped, and time stamps that went back, in the segment.
    pub stepped: u64,
    pub regressions: u64,
}

/// What a worker's session reports: kept ([`Said`]), with whether
/// something was reported that the merger cannot pass on as it is.
struct Recorder {
    said: Vec<Said>,
    unsure: bool,
    names_event: bool,
}

impl Recorder {
    fn keep(&mut self, v: &Violation<'_>, tuples: Option<(u64, Vec<Vec<WitnessValue>>)>) {
        self.said.push(Said {
            property: v.property,
            event: v.event,
            name: v.name.into(),
            args: v.args.iter().map(|&a| a.into()).collect(),
            time: v.time,
            line: v.line,
            tuples,
        });
    }
}

impl Report for Recorder {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        self.unsure |= witness.is_some();
        self.keep(v, None);
        Ok(())
    }

    fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        _point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        // A value this monitor has not seen may be one the whole run has:
        // its tuples would list it.
        let unseen = |t: &Vec<WitnessValue>| t.iter().any(|x| matches!(x, WitnessValue::Unseen));
        self.unsure |= tuples.iter().any(unseen);
        self.keep(v, Some((ts, tuples.to_vec())));
        Ok(())
    }

    fn satisfaction_names_event(&self) -> bool {
        self.names_event
    }

    fn undecided(&mut self, _: &crate::report::Undecided<'_>) -> io::Result<()> {
        self.unsure = true;
        Ok(())
    }

    fn warning(&mut self, _: &super::super::Warning) {
        self.unsure = true;
    }
}

/// A report that keeps nothing (a warm-up's).
pub(super) struct Quiet;

impl Report for Quiet {
    fn violation(
        &mut self,
        _: &Violation<'_>,
        _: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        Ok(())
    }
}

/// A session like the run's, for a worker (one job: it keeps no plan).
pub(super) fn session(shared: &Shared<'_>) -> Option<Session> {
    let options = SessionOptions {
        jobs: 1,
        ..shared.options.clone()
    };
    let mut s = Session::from_plan(shared.plan.clone(), shared.spec, options).ok()?;
    if let Some(typing) = shared.typing {
        s.set_typing(typing.clone());
    }
    Some(s)
}

/// A reader of the MonPoly log at `path` from `start` (where a reader of
/// the whole log would stand at `at`) to the bound at `end` and its `@`
/// (so that the last time-point ends as in one reading of the whole log:
/// see [`super`]), or to the end of the file.
pub(super) fn reader(
    session: &Session,
    path: &Path,
    start: u64,
    end: Option<u64>,
    at: Resume,
) -> io::Result<TraceReader<io::Take<std::fs::File>>> {
    let len = end.map_or(u64::MAX - start, |e| e + 1 - start);
    let trace = TraceOptions {
        format: Format::MonPoly,
        ..session.options.trace
    };
    let reader = session.reading().reader(range(path, start, len)?, trace);
    Ok(reader.resume(at))
}

/// Turns the recording of satisfying tuples back on, as the session's
/// constructor set it.
fn tuples_on(session: &mut Session) {
    let width = session.typing.as_ref().map(|t| t.columns.len());
    let on = session.options.satisfactions;
    session.monitor.enable_tuples(on, width);
}

/// Runs segment `s` (not the first) of `layout` and hands `tx` its pieces;
/// stops early when `stop` says so or the merger is gone.
pub(super) fn run(
    shared: &Shared<'_>,
    layout: &PointsLayout,
    s: usize,
    tx: &SyncSender<Vec<Piece>>,
    stop: &(dyn Fn() -> bool + Sync),
) {
    let last = s + 1 == layout.warm.len();
    let end = (!last).then(|| layout.bounds[s + 1]);
    // Lines as in the whole log; time-points numbered from the warm-up's.
    let at = Resume {
        line: layout.warm_lines[s],
        ..Resume::default()
    };
    let started = session(shared).and_then(|session| {
        let reader = reader(&session, shared.path, layout.warm[s], end, at).ok()?;
        Some((session, reader))
    });
    let Some((mut session, mut reader)) = started else {
        let _ = tx.send(vec![Piece::Start(None)]);
        return;
    };
    let warm = layout.points[s] - layout.warm_points[s];
    let count = layout.points[s + 1].saturating_sub(layout.points[s]);
    let snapshot = warm_up(&mut session, &mut reader, warm, stop);
    let started = snapshot.is_some();
    if tx.send(vec![Piece::Start(snapshot)]).is_err() || !started {
        return;
    }
    tuples_on(&mut session);
    if shared.culprits {
        session.monitor.enable_witnesses(true);
    }
    segment(session, reader, shared, (warm, count), tx, stop);
}

/// Steps the `warm` time-points of the warm-up and gives the monitor's
/// snapshot; `None` if the warm-up did not step cleanly.
fn warm_up(
    session: &mut Session,
    reader: &mut TraceReader<io::Take<std::fs::File>>,
    warm: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<Snapshot> {
    // Tuples are for reports: none in a warm-up.
    session.monitor.enable_tuples(false, None);
    for _ in 0..warm {
        let point = match reader.next_timepoint() {
            Ok(Some(p)) if !stop() => p,
            _ => return None,
        };
        if session.monitor.events() == 0 {
            session.monitor.set_step_clock(!point.timed);
        }
        if session.timepoint(&point, &mut Quiet).is_break() || session.bad.count > 0 {
            return None;
        }
    }
    session.monitor.snapshot()
}

/// Steps the `count` time-points of the segment after the `warm` of the
/// warm-up (to the end of the log: `u64::MAX`), handing on what they
/// report, and ends with [`Piece::End`] or [`Piece::Unsure`].
fn segment(
    mut session: Session,
    mut reader: TraceReader<io::Take<std::fs::File>>,
    shared: &Shared<'_>,
    (warm, count): (u64, u64),
    tx: &SyncSender<Vec<Piece>>,
    stop: &(dyn Fn() -> bool + Sync),
) {
    let mut out = Recorder {
        said: Vec::new(),
        unsure: false,
        names_event: shared.names_event,
    };
    let before = (session.monitor.events(), session.monitor.time_regressions());
    // What the warm-up counted is not the segment's.
    session.counts = EventCounts::default();
    session.tally.iter_mut().for_each(|t| *t = (0, None));
    let (mut k, mut events) = (0u64, 0u64);
    // Hands on what was said, numbered from the segment's start.
    let send = |out: &mut Recorder, k: u64, last: Option<Piece>| -> bool {
        let mut said = std::mem::take(&mut out.said);
        said.iter_mut().for_each(|x| x.event -= warm);
        let mut pieces = vec![Piece::Said(said, k)];
        pieces.extend(last);
        tx.send(pieces).is_ok()
    };
    while k < count {
        if stop() {
            return;
        }
        let point = match reader.next_timepoint() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(_) => {
                send(&mut out, k, Some(Piece::Unsure(k + 1)));
                return;
            }
        };
        let kept = out.said.len();
        let several = point.len() >= 2;
        let flow = session.timepoint(&point, &mut out);
        // The event a violation names is the first of its time-point that
        // the first falsifying tuple (in the order in which the monitor
        // numbered the values) blames: with one event, that one, whatever
        // the order; with several, it may depend on the order.
        let blamed = shared.culprits && several && out.said.len() > kept;
        if flow.is_break()
            || session.error.is_some()
            || session.bad.count > 0
            || out.unsure
            || blamed
        {
            out.said.truncate(kept);
            send(&mut out, k, Some(Piece::Unsure(k + 1)));
            return;
        }
        k += 1;
        events += point.len() as u64;
        let due = out.said.len() >= BUNCH || k % QUIET_POINTS == 0;
        if due && !send(&mut out, k, None) {
            return;
        }
    }
    let Session {
        monitor,
        counts,
        tally,
        ..
    } = session;
    let end = End {
        stepped: monitor.events() - before.0,
        regressions: monitor.time_regressions() - before.1,
        monitor,
        counts,
        tally: (tally.into_iter())
            .map(|(n, first)| (n, first.map(|f| f - warm)))
            .collect(),
        points: k,
        events,
        last_time: reader.last_time(),
    };
    send(&mut out, k, Some(Piece::End(Box::new(end))));
}
