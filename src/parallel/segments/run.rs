//! A run in time segments: a worker per segment (its warm-up, then its
//! segment), and the merger, which takes each segment's verdicts once the
//! states agree at its start, steps it again otherwise, and has a free
//! monitor take over the end of a segment whose worker is far from it
//! ([`super::cut`]): the monitor at its start, once it is taken, or, once
//! a later segment's worker has ended, a fresh one (a *relief*).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::Scope;
use std::time::{Duration, Instant};

use memchr::memchr_iter;

#[cfg(test)]
use super::cut::Pace;
use super::cut::{Cut, relief_line, take_over_line};
use super::pieces::{Merge, Piece, done as work_done};
use super::touch::Touches;
use super::{BUNCH, Layout, MakeReader, compact, direct, range, scan, skim, warm_steps};
use crate::parallel::read::{Names, names};
use crate::parallel::worker::Worker;
use crate::parallel::{Outcome, Sink, Stop, assign, for_monitors};
use crate::plan::Plan;
use crate::runtime::{MonitorOptions, Snapshot};

/// How often the merger, waiting for a segment's pieces, looks for a
/// free thread to relieve its worker.
const POLL: Duration = Duration::from_millis(10);

/// What every segment's worker shares.
struct Shared<'a> {
    plan: &'a Plan,
    options: &'a MonitorOptions,
    path: &'a Path,
    reader: &'a MakeReader<'a>,
    names: Names,
    /// Per event name, whether a warm-up steps it (`None`: every event).
    steps: Option<Vec<bool>>,
    touches: Touches,
    compact: bool,
    stop: &'a (dyn Fn() -> bool + Sync),
    /// The threads at work, and the most there may be (the jobs).
    busy: AtomicUsize,
    jobs: usize,
    /// The last compacted warm-up from the empty state: the bytes it read
    /// and the seconds it took.
    warmed: Mutex<Option<(u64, f64)>>,
    /// (Tests) every cut is held ([`Cut::held`]).
    #[cfg(test)]
    held: bool,
    /// (Tests) the first segment is relieved at its middle once a thread
    /// is free ([`relieve`]); the others' first cuts are released.
    #[cfg(test)]
    relieve: bool,
}

/// A worker's thread, counted busy while it lives.
struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    /// Counts one more (before its thread is spawned).
    fn start(busy: &'a AtomicUsize) -> Busy<'a> {
        busy.fetch_add(1, Ordering::Relaxed);
        Busy(busy)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Shared<'_> {
    fn new_cut(&self) -> Arc<Cut> {
        #[cfg(test)]
        if self.held {
            return Arc::new(Cut::held());
        }
        Arc::new(Cut::default())
    }
}

/// A segment as the merger sees it.
struct Segment {
    start: u64,
    end: u64,
    /// The lines before its start, and before its end.
    lines: (u64, u64),
    inbox: Receiver<Vec<Piece>>,
    cut: Arc<Cut>,
}

/// The warm-up of a segment's worker: the stretch `start..end` of the
/// file, from the empty state or not (a take-over's).
#[derive(Clone, Copy)]
struct Warm {
    start: u64,
    end: u64,
    from_empty: bool,
}

/// Monitors the file at `path`, laid out as `layout`, with one worker per
/// segment, and hands every event to `sink` in order, as [`crate::parallel::run`]
/// does (events without violations may come as one view of `1 + repeats`
/// events of one name). `None`, having handed on nothing, when the file
/// has a quote ([`scan`]). The plan has no future operator (its state is
/// its summaries: see [`super::snapshots`]).
pub fn run(
    plan: &Plan,
    path: &Path,
    layout: &Layout,
    reader: &MakeReader<'_>,
    options: &MonitorOptions,
    stop: &(dyn Fn() -> bool + Sync),
    sink: &mut impl Sink,
) -> Option<Outcome> {
    let n = layout.warm.len();
    let options = &for_monitors(options, 1);
    // Set when the merger is done: the workers still reading stop.
    let done = AtomicBool::new(false);
    let stop = &|| stop() || done.load(Ordering::Relaxed);
    let shared = &Shared {
        plan,
        options,
        path,
        reader,
        names: names(plan),
        steps: warm_steps(plan),
        touches: Touches::of(plan),
        compact: layout.compact,
        stop,
        busy: AtomicUsize::new(0),
        jobs: n,
        warmed: Mutex::new(None),
        #[cfg(test)]
        held: layout.held,
        #[cfg(test)]
        relieve: layout.relieve,
    };
    std::thread::scope(|scope| {
        let mut started = Vec::with_capacity(n);
        for s in 0..n {
            let (tx, inbox) = channel();
            let cut = shared.new_cut();
            let range = (layout.bounds[s], layout.bounds[s + 1]);
            let warm = (s > 0).then(|| Warm {
                start: layout.warm[s],
                end: layout.bounds[s],
                from_empty: true,
            });
            let worker_cut = cut.clone();
            let busy = Busy::start(&shared.busy);
            scope.spawn(move || {
                let _busy = busy;
                match new_worker(plan, options) {
                    Ok(worker) => work(shared, worker, warm, range, &worker_cut, tx),
                    Err(stopped) => {
                        let end = Piece::End {
                            stopped: Some(stopped),
                            worker: Box::new(None),
                        };
                        let _ = tx.send(vec![end]);
                    }
                }
            });
            #[cfg(test)]
            if layout.relieve && s > 0 {
                cut.release();
            }
            started.push((range, inbox, cut));
        }
        // The file is scanned for its lines (and quotes) while the workers
        // start: nothing is handed on before.
        let lines = match File::open(path).and_then(|f| scan(f, layout)) {
            Ok(Some(lines)) => lines,
            _ => {
                done.store(true, Ordering::Relaxed);
                for (_, _, cut) in &started {
                    cut.release();
                }
                return None;
            }
        };
        let mut segments: VecDeque<Segment> = (started.into_iter().enumerate())
            .map(|(s, ((start, end), inbox, cut))| Segment {
                start,
                end,
                lines: (lines.before[s], lines.before.get(s + 1).copied().unwrap_or(lines.total)),
                inbox,
                cut,
            })
            .collect();
        let mut merger = Merge {
            events: 0,
            outcome: Outcome::default(),
            before: Default::default(),
        };
        // Segments after the first: taken, and stepped again.
        let mut tally = (0, 0);
        // The monitor at the start of the segment at hand, from the start
        // of the trace.
        let mut truth: Option<Worker> = None;
        let mut first = true;
        while let Some(segment) = segments.pop_front() {
            let (start, end, lines) = (segment.start, segment.end, segment.lines.0);
            let taken = first || {
                let (state, before) = match segment.inbox.recv().map(|mut b| b.pop()) {
                    Ok(Some(Piece::Start { state, before })) => (state, before),
                    _ => (None, Default::default()),
                };
                merger.before = before;
                let here = truth.as_mut().and_then(Worker::snapshot);
                matches!((state, here), (Some(a), Some(b)) if agree(&a, &b))
            };
            if !first {
                let (t, r) = &mut tally;
                *if taken { t } else { r } += 1;
            }
            first = false;
            let mut go_on = true;
            if taken {
                // The monitor that holds the true state at its start is
                // free: it may take over the segment's end.
                if let Some(free) = truth.take()
                    && let Some(next) = take_over(scope, shared, layout.take_over, free, &segment)
                {
                    segments.push_front(next);
                }
                #[cfg(test)]
                if shared.relieve
                    && let Some(next) = relieve(scope, shared, &segment)
                {
                    segments.push_front(next);
                }
                segment.cut.release();
                // While its worker steps, a thread freed meanwhile may
                // relieve it of its end.
                // (Once cut, it is not relieved: `relieve` returns at once.)
                let mut looked = Instant::now();
                'pieces: loop {
                    let got = segment.inbox.recv_timeout(POLL);
                    if looked.elapsed() >= POLL {
                        looked = Instant::now();
                        if let Some(next) = relieve(scope, shared, &segment) {
                            segments.push_front(next);
                        }
                    }
                    let bunch = match got {
                        Ok(bunch) => bunch,
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => break,
                    };
                    for piece in bunch {
                        if !merger.piece(piece, lines, &mut truth, sink) {
                            go_on = false;
                            break 'pieces;
                        }
                    }
                }
            } else {
                // The state did not agree: the monitor that holds the true
                // state steps the segment itself.
                segment.cut.release();
                drop(segment.inbox);
                let Some(worker) = truth.take() else {
                    break;
                };
                // Its monitor's work so far was counted at its end.
                merger.before = work_done(&worker);
                let to_merger = |p: Piece| {
                    go_on = go_on && merger.piece(p, lines, &mut truth, sink);
                    go_on
                };
                direct::segment(worker, path, (start, end), None, reader, &shared.names, stop, to_merger);
            }
            if !go_on || merger.outcome.stopped.is_some() || truth.is_none() {
                break;
            }
        }
        done.store(true, Ordering::Relaxed);
        for segment in &segments {
            segment.cut.release();
        }
        merger.outcome.segments = Some(tally);
        Some(merger.outcome)
    })
}

/// A segment's worker: its warm-up (if any), whose state goes to the
/// merger first, then its segment `range`, up to its cut.
fn work(
    shared: &Shared<'_>,
    mut worker: Worker,
    warm: Option<Warm>,
    range: (u64, u64),
    cut: &Cut,
    tx: Sender<Vec<Piece>>,
) {
    let stop = shared.stop;
    if let Some(w) = warm {
        let began = Instant::now();
        let before = work_done(&worker);
        let names = &shared.names;
        let state = (self::range(shared.path, w.start, w.end - w.start).ok())
            .and_then(|r| match &shared.steps {
                Some(steps) if shared.compact => {
                    let compacted = (names, &steps[..], &shared.touches);
                    compact::warm_up(&mut worker, r, compacted, w.from_empty, stop)
                }
                Some(steps) => skim::warm_up(&mut worker, r, names, steps, stop),
                None => direct::warm_up(&mut worker, (shared.reader)(r), names, stop),
            })
            .and_then(|()| worker.snapshot());
        if w.from_empty && shared.compact && state.is_some() {
            let took = (w.end - w.start, began.elapsed().as_secs_f64());
            *shared.warmed.lock().unwrap_or_else(|e| e.into_inner()) = Some(took);
        }
        if tx.send(vec![Piece::Start { state, before }]).is_err() {
            return;
        }
    }
    // Pieces go in bunches: fewer wake-ups of the merger.
    let mut bunch = Vec::new();
    let send = |p: Piece| {
        let end = matches!(p, Piece::End { .. });
        bunch.push(p);
        if end || bunch.len() >= BUNCH {
            tx.send(std::mem::take(&mut bunch)).is_ok()
        } else {
            true
        }
    };
    let (reader, names) = (shared.reader, &shared.names);
    direct::segment(worker, shared.path, range, Some(cut), reader, names, stop, send);
}

/// Where the segment `segment` (just taken) is cut for `free`, the
/// monitor at its start, to take over its end: the new segment after the
/// cut, whose worker has started. `None` (and `free` dropped) when no cut
/// pays: the warm-ups cannot be compacted or skimmed, the segment's
/// worker is too near its end, or it got past the cut meanwhile.
fn take_over<'scope>(
    scope: &'scope Scope<'scope, '_>,
    shared: &'scope Shared<'scope>,
    share: f64,
    free: Worker,
    segment: &Segment,
) -> Option<Segment> {
    shared.steps.as_ref()?;
    let (before, after) = segment.lines;
    let line = take_over_line(segment.cut.granted(), after - before, share)?;
    cut_for(scope, shared, (free, false), segment, line)
}

/// Where the segment `segment` (taken, its worker stepping) is cut for a
/// fresh worker (a *relief*), when fewer threads than the jobs are busy
/// (a later segment's worker has ended) and the warm-ups are compacted:
/// where both would end together ([`relief_line`]), the warm-up's time
/// estimated from the last one measured ([`Shared::warmed`]), in
/// proportion to the bytes it reads. `None` when no cut pays, as
/// [`take_over`].
fn relieve<'scope>(
    scope: &'scope Scope<'scope, '_>,
    shared: &'scope Shared<'scope>,
    segment: &Segment,
) -> Option<Segment> {
    if !shared.compact || segment.cut.is_cut() {
        return None;
    }
    let lines = segment.lines.1 - segment.lines.0;
    let line = relief_at(shared, segment, lines)?;
    let fresh = new_worker(shared.plan, shared.options).ok()?;
    cut_for(scope, shared, (fresh, true), segment, line)
}

/// Where [`relieve`] cuts `segment` (of `lines` lines), if a thread is
/// free and the cut pays.
fn relief_at(shared: &Shared<'_>, segment: &Segment, lines: u64) -> Option<u64> {
    #[cfg(test)]
    if shared.relieve {
        // The first segment only, once a thread is free: at its middle.
        if segment.start > 0 {
            return None;
        }
        while shared.busy.load(Ordering::Relaxed) >= shared.jobs {
            std::thread::sleep(Duration::from_millis(1));
        }
        let middle = Pace {
            rate: 1.0,
            at: 0.0,
            granted: 0,
        };
        return relief_line(&middle, lines, (0.0, 0.0));
    }
    if shared.busy.load(Ordering::Relaxed) >= shared.jobs {
        return None;
    }
    let pace = segment.cut.pace(Instant::now())?;
    let (bytes, secs) = (*shared.warmed.lock().unwrap_or_else(|e| e.into_inner()))?;
    let per_byte = secs / bytes.max(1) as f64;
    let line_bytes = (segment.end - segment.start) as f64 / lines.max(1) as f64;
    let warm = (per_byte * segment.start as f64, per_byte * line_bytes);
    relief_line(&pace, lines, warm)
}

/// Cuts `segment` at `line` (1-based in it) for `worker` (the monitor at
/// its start, or, `from_empty`, a fresh one, whose warm-up reads the file
/// from its start), and starts it on the rest: the new segment after the
/// cut. `None` (and `worker` dropped) when the worker got past the cut.
fn cut_for<'scope>(
    scope: &'scope Scope<'scope, '_>,
    shared: &'scope Shared<'scope>,
    (worker, from_empty): (Worker, bool),
    segment: &Segment,
    line: u64,
) -> Option<Segment> {
    let (before, after) = segment.lines;
    // The cut's place: the start of its line.
    let at = line_offset(shared.path, segment.start, segment.end, line - 1).ok()??;
    if !segment.cut.cut_at(line) {
        return None;
    }
    let (tx, inbox) = channel();
    let cut = shared.new_cut();
    let warm = Warm {
        start: if from_empty { 0 } else { segment.start },
        end: at,
        from_empty,
    };
    let (range, worker_cut) = ((at, segment.end), cut.clone());
    let busy = Busy::start(&shared.busy);
    scope.spawn(move || {
        let _busy = busy;
        work(shared, worker, Some(warm), range, &worker_cut, tx)
    });
    Some(Segment {
        start: at,
        end: segment.end,
        lines: (before + line - 1, after),
        inbox,
        cut,
    })
}

/// Where the line after the first `lines` lines of the stretch
/// `start..end` of the file at `path` starts: `None` if not before `end`.
fn line_offset(path: &Path, start: u64, end: u64, lines: u64) -> io::Result<Option<u64>> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let mut input = file.take(end - start);
    let mut buf = vec![0u8; 1 << 16];
    let (mut pos, mut left) = (start, lines);
    if left == 0 {
        return Ok((start < end).then_some(start));
    }
    loop {
        let got = skim::fill(&mut input, &mut buf)?;
        if got == 0 {
            return Ok(None);
        }
        // A buffer without the line sought is only counted (vector
        // instructions), not searched line by line.
        let ends = super::layout::line_ends(&buf[..got]);
        if ends < left {
            left -= ends;
            pos += got as u64;
            continue;
        }
        for i in memchr_iter(b'\n', &buf[..got]) {
            left -= 1;
            if left == 0 {
                let at = pos + i as u64 + 1;
                return Ok((at < end).then_some(at));
            }
        }
        pos += got as u64;
    }
}

pub(super) fn new_worker(plan: &Plan, options: &MonitorOptions) -> Result<Worker, Stop> {
    Worker::new(assign::whole(plan), options).map_err(|error| Stop::Refused {
        line: 0,
        error,
        last: None,
    })
}

pub(super) fn agree(a: &[Snapshot], b: &[Snapshot]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(y))
}

#[cfg(test)]
mod tests {
    use super::line_offset;

    #[test]
    fn a_line_is_found_by_the_lines_before_it() {
        let path = std::env::temp_dir().join(format!("hindsight-line-offset-{}", std::process::id()));
        std::fs::write(&path, "a\nbb\n\nccc\nd").expect("write");
        let at = |start, end, n| line_offset(&path, start, end, n).expect("read");
        assert_eq!(at(0, 12, 0), Some(0));
        assert_eq!(at(0, 12, 1), Some(2));
        assert_eq!(at(0, 12, 3), Some(6));
        assert_eq!(at(2, 12, 2), Some(6));
        assert_eq!(at(0, 12, 4), Some(10));
        // Past the stretch, or its last line without an end.
        assert_eq!(at(0, 6, 3), None);
        assert_eq!(at(0, 12, 5), None);
        std::fs::remove_file(&path).expect("remove");
    }

    #[test]
    fn a_line_many_buffers_in_is_found() {
        // Lines of 2 to 12 bytes over about 200 KiB: several of the
        // search's 64 KiB buffers, skipped by their count.
        let text: String = (0..30_000u32).map(|i| format!("{}\n", "x".repeat(1 + (i % 11) as usize))).collect();
        let starts: Vec<u64> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u64 + 1))
            .collect();
        let path = std::env::temp_dir().join(format!("hindsight-line-offset-long-{}", std::process::id()));
        std::fs::write(&path, &text).expect("write");
        let size = text.len() as u64;
        let at = |start, n| line_offset(&path, start, size, n).expect("read");
        // Every line near each buffer's end, and far ones.
        let near_ends = (1..4).flat_map(|k| {
            let line = starts.partition_point(|&s| s < k * 65_536) as u64;
            line.saturating_sub(2)..line + 2
        });
        for n in near_ends.chain([1, 5_000, 29_999]) {
            assert_eq!(at(0, n), Some(starts[n as usize]), "line {n}");
        }
        // From a later start, counted from there.
        let from = starts[10_000];
        assert_eq!(at(from, 9_000), Some(starts[19_000]));
        // The last line ends the file: no line starts after it.
        assert_eq!(at(0, 30_000), None);
        std::fs::remove_file(&path).expect("remove");
    }
}
