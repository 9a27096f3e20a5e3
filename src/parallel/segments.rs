//! Time segments: a trace file split at line boundaries into stretches,
//! one per worker, each monitored whole. A segment's worker starts from an
//! empty state, a *warm-up* before its segment: it steps the last events
//! of the segment before (reporting nothing), and then takes a
//! [`Snapshot`](crate::runtime::Snapshot) of its monitor. When the
//! segment before it ends, its state there (the monitor that reached it
//! from the start of the trace) is compared with that snapshot, in values:
//! if they agree, the two monitors give the same verdicts on the rest of
//! the trace, and the segment's verdicts are taken as they are; if not (a
//! value that the warm-up did not see again, say), they are dropped and
//! the monitor that holds the true state steps the segment itself. Either
//! way the output is that of the sequential run.
//!
//! It pays where slicing cannot split the work evenly (a property of two
//! variables whose events are each sent to every slice of the other, as
//! `access(u, f)` with logins per user and opens per file), on a long
//! file: the sequential cost is split `jobs` ways plus the warm-ups. It
//! needs a plain CSV file without quotes (a line boundary is then a record
//! boundary) and without time stamps, and properties whose state is their
//! summaries over values (no time bounds, seen values or comparisons).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};

use super::batch::{Batch, Batches, End, names};
use super::worker::{Found, Worker};
use super::{Args, EventView, Outcome, Stopped, distribute, for_monitors};
use crate::plan::Plan;
use crate::runtime::{Monitor, MonitorOptions, Snapshot};
use crate::trace::TraceReader;

/// Pieces a worker hands the merger at once.
const BUNCH: usize = 64;

/// The smallest file split into segments (smaller ones are sliced).
pub const MIN_BYTES: u64 = 32 << 20;

/// The environment variable `HINDSIGHT_SEGMENTS`, for tests and
/// measurements: split every file of at least that many bytes into
/// segments where it can be, whether slicing would be even or not.
pub fn forced() -> Option<u64> {
    std::env::var("HINDSIGHT_SEGMENTS").ok()?.parse().ok()
}

/// The warm-up of a segment, as a share of the file: `1 / WARM_UP`, up to
/// [`MAX_WARM_UP`] bytes and half a segment. (What it must cover depends
/// on the trace, not on the number of segments: on the `gen_access.py` log,
/// about 150,000 events, until every logged-in user has been seen again.)
const WARM_UP: u64 = 30;

/// The longest warm-up, in bytes (a few million events).
const MAX_WARM_UP: u64 = 64 << 20;

/// Where the segments of a file lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Per segment, where it starts (a line start), and at the end the
    /// file's size: segment `s` is `bounds[s]..bounds[s + 1]`.
    pub bounds: Vec<u64>,
    /// Per segment, where its warm-up starts (its own start for the first).
    pub warm: Vec<u64>,
}

/// Splits `file` (of `size` bytes) into `jobs` segments, each but the
/// first with a warm-up of `size / WARM_UP` bytes (at most [`MAX_WARM_UP`]
/// and half a segment), sized so that every worker steps about as many
/// bytes; each bound is the first line start at or after its place.
/// `None` when the file has too few lines for that.
pub fn layout(file: &mut (impl Read + Seek), size: u64, jobs: usize) -> io::Result<Option<Layout>> {
    let n = jobs.max(1);
    let jobs = n as u64;
    let warm = (size / WARM_UP).min(MAX_WARM_UP).min(size / jobs / 2);
    let body = size.saturating_sub(warm) / jobs;
    let mut out = Layout {
        bounds: vec![0; n + 1],
        warm: vec![0; n],
    };
    out.bounds[n] = size;
    for s in 1..n {
        let start = body * s as u64 + warm;
        let (Some(w), Some(b)) = (line_start(file, start - warm)?, line_start(file, start)?) else {
            return Ok(None);
        };
        (out.warm[s], out.bounds[s]) = (w, b);
    }
    let ordered = out.bounds.windows(2).all(|w| w[0] < w[1])
        && (1..n).all(|s| out.warm[s] < out.bounds[s] && out.warm[s] >= out.bounds[s - 1]);
    Ok(ordered.then_some(out))
}

/// The first line start at or after `at` (`None`: none before the end).
fn line_start(file: &mut (impl Read + Seek), at: u64) -> io::Result<Option<u64>> {
    if at == 0 {
        return Ok(Some(0));
    }
    // A line starts at `at` when the byte before it ends a line.
    let mut pos = file.seek(SeekFrom::Start(at - 1))?;
    let mut buf = [0u8; 4096];
    loop {
        let got = file.read(&mut buf)?;
        if got == 0 {
            return Ok(None);
        }
        if let Some(i) = buf[..got].iter().position(|&b| b == b'\n') {
            return Ok(Some(pos + i as u64 + 1));
        }
        pos += got as u64;
    }
}

/// The lines before each segment of `layout` in `file`, read whole; `None`
/// when it has a quote (a line end may then lie inside a field, and a
/// bound inside a record).
pub fn scan(mut file: impl Read, layout: &Layout) -> io::Result<Option<Vec<u64>>> {
    let n = layout.warm.len();
    let mut out = vec![0; n];
    let mut buf = vec![0u8; 1 << 20];
    let (mut pos, mut lines, mut next) = (0u64, 0u64, 1usize);
    loop {
        let got = file.read(&mut buf)?;
        if got == 0 {
            break;
        }
        let chunk = &buf[..got];
        if chunk.contains(&b'"') {
            return Ok(None);
        }
        let end = pos + got as u64;
        // The chunk up to each bound in it, then the rest.
        let mut from = 0;
        while next < n && layout.bounds[next] <= end {
            let upto = (layout.bounds[next] - pos) as usize;
            lines += line_ends(&chunk[from..upto]);
            out[next] = lines;
            from = upto;
            next += 1;
        }
        lines += line_ends(&chunk[from..]);
        pos = end;
    }
    Ok(Some(out))
}

/// The line ends in `bytes`, counted in blocks of 255 bytes (a form the
/// compiler turns into vector instructions).
fn line_ends(bytes: &[u8]) -> u64 {
    (bytes.chunks(255))
        .map(|b| {
            b.iter()
                .fold(0u8, |n, &c| n.wrapping_add(u8::from(c == b'\n'))) as u64
        })
        .sum()
}

/// A stretch of a file: `len` bytes from `start`.
pub fn range(path: &Path, start: u64, len: u64) -> io::Result<io::Take<File>> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    Ok(f.take(len))
}

/// Events by name: per event name, its index in the plan's events
/// (`None`: unknown), its bytes and its count.
type Counts = Vec<(Option<u32>, Box<[u8]>, u64)>;

/// What a segment's worker hands the merger, in order.
enum Piece {
    /// Its state after the warm-up (`None`: it could not be taken, or the
    /// warm-up failed).
    Start(Option<Vec<Snapshot>>),
    /// Events of the segment with no violation.
    Counts(Counts),
    /// An event with violations, numbered within the segment.
    Violated {
        number: u64,
        line: u64,
        name_index: Option<u32>,
        fields: Vec<Box<[u8]>>,
        props: Vec<usize>,
    },
    /// The segment's end: why it stopped early (lines within the
    /// segment), and the worker, whose monitor is at its end.
    End {
        stopped: Option<Stopped>,
        worker: Box<Option<Worker>>,
    },
}

/// How segment readers are made: the session's reader on a stretch.
pub type MakeReader<'a> = dyn Fn(io::Take<File>) -> TraceReader<io::Take<File>> + Sync + 'a;

/// Monitors the file at `path`, laid out as `layout`, with one worker per
/// segment, and hands every event to `on_event` in order, as [`super::run`]
/// does (events without violations may come as one view of `1 + repeats`
/// events of one name). `None`, having handed on nothing, when the file
/// has a quote ([`scan`]).
pub fn run(
    plan: &Plan,
    path: &Path,
    layout: &Layout,
    reader: &MakeReader<'_>,
    options: &MonitorOptions,
    stop: &(dyn Fn() -> bool + Sync),
    mut on_event: impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Option<Outcome> {
    let n = layout.warm.len();
    let options = &for_monitors(options, 1);
    let arity = names(plan);
    let steps = warm_steps(plan);
    let steps = steps.as_deref();
    // Set when the merger is done: the workers still reading stop.
    let done = AtomicBool::new(false);
    let stop = &|| stop() || done.load(Ordering::Relaxed);
    std::thread::scope(|scope| {
        let mut inbox: Vec<Receiver<Vec<Piece>>> = Vec::with_capacity(n);
        for s in 0..n {
            let (tx, rx) = channel();
            inbox.push(rx);
            let arity = &arity;
            scope.spawn(move || {
                let mut worker = match new_worker(plan, options) {
                    Ok(w) => w,
                    Err(stopped) => {
                        let end = Piece::End {
                            stopped: Some(stopped),
                            worker: Box::new(None),
                        };
                        let _ = tx.send(vec![end]);
                        return;
                    }
                };
                if s > 0 {
                    let len = layout.bounds[s] - layout.warm[s];
                    let start = range(path, layout.warm[s], len)
                        .ok()
                        .and_then(|r| warm_up(&mut worker, reader(r), arity, steps, stop))
                        .and_then(|()| worker.snapshot());
                    if tx.send(vec![Piece::Start(start)]).is_err() {
                        return;
                    }
                }
                // Pieces go in bunches: fewer wake-ups of the merger.
                let mut bunch = Vec::new();
                let sink = |p: Piece| {
                    let end = matches!(p, Piece::End { .. });
                    bunch.push(p);
                    if end || bunch.len() >= BUNCH {
                        tx.send(std::mem::take(&mut bunch)).is_ok()
                    } else {
                        true
                    }
                };
                segment(worker, path, layout, s, reader, arity, stop, sink);
            });
        }
        // The file is scanned for its lines (and quotes) while the workers
        // start: nothing is handed on before.
        let lines = match File::open(path).and_then(|f| scan(f, layout)) {
            Ok(Some(lines)) => lines,
            _ => {
                done.store(true, Ordering::Relaxed);
                return None;
            }
        };
        let mut merger = Merge {
            events: 0,
            outcome: Outcome {
                segments: Some((0, 0)),
                ..Outcome::default()
            },
        };
        let mut truth: Option<Worker> = None;
        for (s, rx) in inbox.into_iter().enumerate() {
            let lines = lines[s];
            let taken = s == 0 || {
                let start = match rx.recv().map(|mut b| b.pop()) {
                    Ok(Some(Piece::Start(Some(snap)))) => Some(snap),
                    _ => None,
                };
                let here = truth.as_ref().and_then(Worker::snapshot);
                matches!((start, here), (Some(a), Some(b)) if agree(&a, &b))
            };
            let mut go_on = true;
            if s > 0 {
                let (t, r) = merger.outcome.segments.get_or_insert((0, 0));
                *if taken { t } else { r } += 1;
            }
            if taken {
                truth = None;
                'pieces: for bunch in rx.iter() {
                    for piece in bunch {
                        if !merger.piece(piece, lines, &mut truth, &mut on_event) {
                            go_on = false;
                            break 'pieces;
                        }
                    }
                }
            } else {
                // The state did not agree: the monitor that holds the true
                // state steps the segment itself.
                drop(rx);
                let Some(worker) = truth.take() else {
                    break;
                };
                let sink = |p: Piece| {
                    go_on = go_on && merger.piece(p, lines, &mut truth, &mut on_event);
                    go_on
                };
                segment(worker, path, layout, s, reader, &arity, stop, sink);
            }
            if !go_on || merger.outcome.stopped.is_some() || truth.is_none() {
                break;
            }
        }
        done.store(true, Ordering::Relaxed);
        Some(merger.outcome)
    })
}

fn new_worker(plan: &Plan, options: &MonitorOptions) -> Result<Worker, Stopped> {
    let units = distribute(plan, 1).pop().unwrap_or_default();
    Worker::new(units, options).map_err(|error| Stopped::Monitor {
        line: 0,
        error,
        last: None,
    })
}

fn agree(a: &[Snapshot], b: &[Snapshot]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(y))
}

/// Per event name of `plan` (in the order of its events), whether a
/// warm-up steps it: `None` when it steps every event. When every property
/// is tick invariant, an event that no atom under an `S` or `@` mentions
/// steps like a tick and changes no state (see
/// [`PropPlan::state_events`](crate::plan::PropPlan::state_events)): the
/// warm-up skips it, after its first event. (On the `gen_access.py` log
/// that is every access, 70% of the events.)
pub fn warm_steps(plan: &Plan) -> Option<Vec<bool>> {
    if plan.props.iter().any(|p| p.tick_invariant().is_err()) {
        return None;
    }
    let names: std::collections::BTreeSet<&str> =
        plan.props.iter().flat_map(|p| p.state_events()).collect();
    Some(
        plan.events
            .keys()
            .map(|e| names.contains(e.as_str()))
            .collect(),
    )
}

/// Steps `worker` through the events of `reader` that change its state
/// (`steps`, from [`warm_steps`]), reporting nothing: `None` if they end
/// early (an error, an interruption).
fn warm_up(
    worker: &mut Worker,
    reader: TraceReader<io::Take<File>>,
    arity: &hashbrown::HashMap<Box<[u8]>, (u32, usize)>,
    steps: Option<&[bool]>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<()> {
    let mut source = Batches::new(reader, arity, stop);
    let mut first = true;
    while let Some(batch) = source.next_batch() {
        let found = worker.process_where(&batch, |ev| {
            let step = first || steps.is_none_or(|s| s.get(ev.name as usize) == Some(&true));
            first = false;
            step
        });
        if found.error.is_some() || batch.end.is_some() {
            return None;
        }
        source.reuse(batch);
    }
    Some(())
}

/// Steps `worker` through segment `s` and hands `sink` its pieces, ending
/// with [`Piece::End`] (`sink` returns false to stop).
#[allow(clippy::too_many_arguments)]
fn segment(
    mut worker: Worker,
    path: &Path,
    layout: &Layout,
    s: usize,
    reader: &MakeReader<'_>,
    arity: &hashbrown::HashMap<Box<[u8]>, (u32, usize)>,
    stop: &(dyn Fn() -> bool + Sync),
    mut sink: impl FnMut(Piece) -> bool,
) {
    let (start, end) = (layout.bounds[s], layout.bounds[s + 1]);
    let stream = match range(path, start, end - start) {
        Ok(r) => r,
        Err(e) => {
            let error = crate::trace::TraceError::new(
                crate::trace::TraceErrorKind::Io,
                1,
                format!("cannot read the trace: {e}"),
            );
            sink(Piece::End {
                stopped: Some(Stopped::Trace(error)),
                worker: Box::new(None),
            });
            return;
        }
    };
    let mut source = Batches::new(reader(stream), arity, stop);
    let mut stopped = None;
    while let Some(mut batch) = source.next_batch() {
        let found = worker.process(&batch);
        let (pieces, error) = pieces(&batch, &found);
        for p in pieces {
            if !sink(p) {
                return;
            }
        }
        if let Some(e) = error {
            stopped = Some(e);
            break;
        }
        if let Some(end) = batch.end.take() {
            stopped = Some(match end {
                End::Trace(e) => Stopped::Trace(e),
                End::Arity { line, error, last } => Stopped::Monitor { line, error, last },
                End::Interrupted => Stopped::Interrupted,
            });
            break;
        }
        source.reuse(batch);
    }
    sink(Piece::End {
        stopped,
        worker: Box::new(Some(worker)),
    });
}

/// The pieces of `batch` as `found` monitored it: counts, and the events
/// with violations; and a monitor error, which ends it.
fn pieces(batch: &Batch, found: &Found) -> (Vec<Piece>, Option<Stopped>) {
    let mut out = Vec::new();
    let mut counts: Counts = Vec::new();
    let add = |counts: &mut Counts, ev: &super::batch::Ev, n: u64| {
        let index = (ev.name != u32::MAX).then_some(ev.name);
        let name = batch.name_of(ev);
        // A known name by its index; an unknown one by its bytes.
        let same = |(i, b, _): &&mut (Option<u32>, Box<[u8]>, u64)| {
            *i == index && (index.is_some() || **b == *name)
        };
        match counts.iter_mut().find(same) {
            Some(c) => c.2 += n,
            None => counts.push((index, name.into(), n)),
        }
    };
    let mut next = 0;
    let mut fields = Vec::new();
    for ev in &batch.events {
        if let Some((number, line, error)) = &found.error
            && *number == ev.number
        {
            if !counts.is_empty() {
                out.push(Piece::Counts(std::mem::take(&mut counts)));
            }
            let stopped = Stopped::Monitor {
                line: *line,
                error: error.clone(),
                last: None,
            };
            return (out, Some(stopped));
        }
        let last = ev.number + ev.repeats;
        let mut number = ev.number;
        while number <= last {
            let v = &found.violations;
            if next < v.len() && v[next].0 == number {
                let mut props = Vec::new();
                while next < v.len() && v[next].0 == number {
                    props.push(v[next].1);
                    next += 1;
                }
                if !counts.is_empty() {
                    out.push(Piece::Counts(std::mem::take(&mut counts)));
                }
                batch.fields_of(ev, &mut fields);
                out.push(Piece::Violated {
                    number,
                    line: ev.line + (number - ev.number),
                    name_index: (ev.name != u32::MAX).then_some(ev.name),
                    fields: fields.iter().map(|f| Box::from(*f)).collect(),
                    props,
                });
                number += 1;
            } else {
                // Up to the next violation, or the end of the run.
                let upto = v.get(next).map_or(last, |x| (x.0 - 1).min(last));
                add(&mut counts, ev, upto - number + 1);
                number = upto + 1;
            }
        }
    }
    if !counts.is_empty() {
        out.push(Piece::Counts(counts));
    }
    (out, None)
}

/// The merger's side: events handed on so far.
struct Merge {
    events: u64,
    outcome: Outcome,
}

impl Merge {
    /// Hands `piece` of a segment after `lines` lines on (at its end, its
    /// worker to `truth`); false when the run stops.
    fn piece(
        &mut self,
        piece: Piece,
        lines: u64,
        truth: &mut Option<Worker>,
        on_event: &mut impl FnMut(&EventView<'_>, &[usize]) -> bool,
    ) -> bool {
        match piece {
            Piece::Start(_) => true,
            Piece::Counts(counts) => {
                for (index, name, n) in counts {
                    let mut v = view_of(self.events + 1, lines + 1, &name, index);
                    v.repeats = n - 1;
                    self.events += n;
                    if !on_event(&v, &[]) {
                        self.outcome.stopped = Some(Stopped::ByCaller);
                        return false;
                    }
                }
                true
            }
            Piece::Violated {
                number,
                line,
                name_index,
                fields,
                props,
            } => {
                let args: Vec<&[u8]> = fields[1..].iter().map(|f| &**f).collect();
                let mut v = view_of(self.events + 1, lines + line, &fields[0], name_index);
                v.args = Args::from_fields(&args);
                let _ = number;
                self.events += 1;
                if !on_event(&v, &props) {
                    self.outcome.stopped = Some(Stopped::ByCaller);
                    return false;
                }
                true
            }
            Piece::End { stopped, worker } => {
                *truth = *worker;
                if let Some(w) = truth {
                    let (c, r) = w.gc();
                    self.outcome.gc = (self.outcome.gc.0 + c, self.outcome.gc.1 + r);
                }
                self.outcome.stopped = stopped.map(|s| shift(s, lines));
                self.outcome.stopped.is_none()
            }
        }
    }
}

/// A view of the event `number` on `line`, untimed, without arguments.
fn view_of(number: u64, line: u64, name: &[u8], name_index: Option<u32>) -> EventView<'_> {
    EventView {
        number,
        line,
        time: 0,
        name,
        name_index,
        args: Args::from_fields(&[]),
        repeats: 0,
        bytes_read: 0,
        timed: false,
    }
}

/// `stopped`, with a line within a segment moved to the whole file's.
fn shift(stopped: Stopped, lines: u64) -> Stopped {
    match stopped {
        Stopped::Trace(mut e) => {
            e.line += lines;
            Stopped::Trace(e)
        }
        Stopped::Monitor { line, error, last } => Stopped::Monitor {
            line: line + lines,
            error,
            last,
        },
        other => other,
    }
}

/// Whether a whole monitor of `plan` can be snapshot (its state is its
/// summaries over values).
pub fn snapshots(plan: &Plan, options: &MonitorOptions) -> bool {
    Monitor::new(plan.clone(), options.clone()).is_ok_and(|m| m.snapshot().is_some())
}

/// The share of the events of `sample` that the busiest of `workers` (a
/// layout of sliced and whole units) steps: delivered events, and ticks of
/// units that cannot skip them. An even split of the work is `1 / jobs`.
pub fn busiest_share(workers: &[Vec<super::worker::Unit>], sample: &[Arc<Batch>]) -> f64 {
    let mut busiest = 0u64;
    let mut total = 0u64;
    for units in workers {
        let mut steps = 0u64;
        total = 0;
        for batch in sample {
            for ev in &batch.events {
                total += 1;
                for u in units {
                    let delivered = u.route.delivers_named(ev.name, |k| batch.arg(ev, k));
                    steps += u64::from(delivered || !u.route.skip_ticks);
                }
            }
        }
        busiest = busiest.max(steps);
    }
    busiest as f64 / total.max(1) as f64
}
