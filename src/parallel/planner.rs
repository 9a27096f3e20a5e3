//! The planner: every decision of how a parallel run is laid out, made
//! here from the run's [`Options`] and the start of its trace. Which
//! properties are sliced or split and how values are spread over the
//! slices (`assign`); how many workers a short trace gets; whether
//! the layout is revised on a longer sample; whether a file is cut into
//! time segments instead ([`super::segments`]); the layout of a cluster
//! run. The schedulers carry the decisions out.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::assign::choose;
use super::block::Block;
use super::read::{Blocks, Online, names};
use super::worker::{Unit, Worker};
use super::{Merger, Outcome, Sink, for_monitors, pipeline, segments};
use crate::plan::Plan;
use crate::plan::slice::Parallel;
use crate::runtime::MonitorOptions;
use crate::trace::{Format, TraceReader};

/// Blocks of the trace's start that the layout is chosen on (see
/// `assign`), and on which a file is split into time segments or
/// not.
pub const SAMPLE_BLOCKS: usize = 32;

/// Blocks read before the workers start: a trace that ends within them
/// is short, and is laid out on all of it.
const LEAD_BLOCKS: usize = 4;

/// The fewest events of a short trace (one the sample holds whole) per
/// worker.
const EVENTS_PER_WORKER: usize = 4096;

/// Time segments pay where the busiest worker of the best slicing layout
/// would step this many times an even share of the events, or more.
const UNEVEN: f64 = 1.1;

/// Whether a trace file is cut into time segments (`parallel::segments`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Segments {
    /// Where it pays: a long plain CSV file that slicing would leave
    /// uneven.
    #[default]
    Auto,
    /// Wherever it can be (a plain CSV file, untimed, without quotes,
    /// whose properties' state is their summaries), whatever its length
    /// and slicing (for tests and measurements).
    Always,
    /// Never: the trace is sliced.
    Never,
}

/// The options of a parallel run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The monitors' options.
    pub monitor: MonitorOptions,
    /// Worker threads (or, in a cluster run, the workers of all processes).
    pub jobs: usize,
    /// Whether the end of the trace closes the verdicts still open, as
    /// MonPoly ends a log ([`crate::runtime::Monitor::finish_trace`]);
    /// only when the run reaches the end of its trace.
    pub close: bool,
    /// Whether a file is cut into time segments.
    pub segments: Segments,
    /// Blocks of the trace's start that the layout is chosen on (0: the
    /// plan alone chooses it: every property that can be split or sliced
    /// is).
    pub sample: usize,
    /// Whether bad lines are skipped (`Some`: the reader must go on after
    /// them), and then whether events of names the specification does not
    /// know are bad (see [`Blocks::skipping`]). Never in time segments.
    pub skip: Option<bool>,
    /// Whether each event is a time-point of its own (`--timepoints` on a
    /// trace of one event per record: see [`Blocks::timepoints`]).
    pub timepoints: bool,
    /// For a stream (standard input from a pipe): its probe. A block ends
    /// early where the stream waits, and the merger lets the sink show
    /// the verdicts so far ([`Sink::waiting`]) before it waits too.
    pub online: Option<Online>,
    /// With a profile: its period in events. The workers sample their
    /// monitors ([`crate::parallel::worker::Worker::sampling`]) and the
    /// sink gets the layout and the rows ([`Sink::layout`],
    /// [`Sink::profile`]). The layout is chosen on the whole sample before
    /// the run starts (its columns are fixed), and the trace is never cut
    /// into time segments.
    pub profile: Option<u64>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            monitor: MonitorOptions::default(),
            jobs: 1,
            close: false,
            segments: Segments::Auto,
            sample: SAMPLE_BLOCKS,
            skip: None,
            timepoints: false,
            online: None,
            profile: None,
        }
    }
}

/// Whether a run of `plan` on several threads can be faster than the
/// sequential engine: it has several properties, or one that can be sliced
/// or split into parts. (With one property that can be neither, the threads
/// could only read the trace ahead of the one monitor.)
pub fn can_gain(plan: &Plan) -> bool {
    match plan.props.as_slice() {
        [p] => match p.parallel() {
            Parallel::Whole(a) => a.chosen.is_some(),
            Parallel::Split(_) => true,
        },
        props => props.len() > 1,
    }
}

/// Monitors the trace of `reader` against `plan` on `options.jobs`
/// threads, and hands every event, in order, to `sink` (see [`Sink`]).
/// `stop` is checked after reading each event (Ctrl-C): when set, the run
/// ends before that event.
///
/// The layout is chosen on the first blocks of the trace: a short trace
/// (the first `LEAD_BLOCKS` blocks hold it whole) gets a worker per
/// `EVENTS_PER_WORKER` events at most, on this thread when that is one;
/// a longer one starts at once on the layout its first blocks suggest, and
/// moves to the one its whole sample suggests if that differs (see
/// `pipeline`).
pub fn run<R: Read + Send>(
    plan: &Plan,
    mut reader: TraceReader<R>,
    options: &Options,
    stop: &(dyn Fn() -> bool + Sync),
    sink: &mut impl Sink,
) -> Outcome {
    let format = reader.detect_format();
    let names = names(plan);
    let mut source = Blocks::new(reader, &names, stop).online(options.online.clone());
    if let Some(strict) = options.skip {
        source = source.skipping(strict);
    }
    if options.timepoints {
        source = source.timepoints();
    }
    let mut outcome = run_blocks(plan, Vec::new(), source, options, sink);
    outcome.format = Some(format);
    outcome
}

/// [`run`] on the blocks of `source`, of which `first` (the first blocks
/// of the trace, possibly none) are read already.
fn run_blocks<R: Read + Send>(
    plan: &Plan,
    mut first: Vec<Arc<Block>>,
    mut source: Blocks<'_, R>,
    options: &Options,
    sink: &mut impl Sink,
) -> Outcome {
    let (jobs, sample) = (options.jobs.max(1), options.sample);
    // At least one block, to know whether the trace is timed; a stream
    // that waits starts the run on what it gave.
    // With a profile, the whole sample: the layout is not revised.
    let lead = if options.profile.is_some() { sample } else { LEAD_BLOCKS };
    while first.len() < sample.clamp(1, lead.max(1))
        && !source.idle()
        && let Some(block) = source.next_block()
    {
        first.push(Arc::new(block));
    }
    let sampled = &first[..first.len().min(sample)];
    // An untimed trace's clock counts events: every monitor that reads
    // time steps every event (a tick for another slice's), so its count is
    // the event's number.
    let options = &Options {
        monitor: MonitorOptions {
            step_clock: first.first().is_some_and(|b| !b.timed),
            ..options.monitor.clone()
        },
        ..options.clone()
    };
    if sample > LEAD_BLOCKS && !source.done() {
        // A long trace, started at once; revised on the whole sample
        // (unless it is read already: then the layout is its).
        let guess = choose(plan, jobs, sampled);
        let options = &Options {
            sample: if first.len() >= sample || options.profile.is_some() {
                0
            } else {
                sample
            },
            ..options.clone()
        };
        pipeline::run(plan, options, &guess, first, source, sink)
    } else {
        // The sample is whole in `first`. A short trace gets fewer workers
        // (threads and monitors cost more than they save on a few events).
        let jobs = if source.done() && sample > 0 {
            let events: usize = first.iter().map(|b| b.events.len()).sum();
            jobs.min(events / EVENTS_PER_WORKER).max(1)
        } else {
            jobs
        };
        let choice = choose(plan, jobs, sampled);
        let mut workers = choice.layout(plan, jobs);
        if workers.len() == 1 && source.done() {
            // One worker on a trace read whole: on this thread.
            let units = workers.pop().unwrap_or_default();
            run_inline(plan, units, options, first, source, sink)
        } else {
            let options = Options {
                jobs,
                sample: 0,
                ..options.clone()
            };
            pipeline::run(plan, &options, &choice, first, source, sink)
        }
    }
}

/// The reader of a stretch of a trace file: the run's own (`false`), or
/// the one of a time segment (`true`: plain CSV, untimed).
pub type MakeReader<'a> = dyn Fn(io::Take<File>, bool) -> TraceReader<io::Take<File>> + Sync + 'a;

/// [`run`] on the file at `path`, or, where the planner finds it pays (see
/// [`Segments`]), on time segments of it, one per job
/// ([`super::segments`]). `timed` and `format` are the trace options the
/// run was asked for; `reader` makes the readers. The sample that decides
/// is read once: a run that slices goes on from it.
#[allow(clippy::too_many_arguments)]
pub fn run_file(
    plan: &Plan,
    path: &Path,
    reader: &MakeReader<'_>,
    (timed, format): (bool, Format),
    options: &Options,
    stop: &(dyn Fn() -> bool + Sync),
    sink: &mut impl Sink,
) -> io::Result<Outcome> {
    let whole = |path: &Path| -> io::Result<TraceReader<io::Take<File>>> {
        Ok(reader(File::open(path)?.take(u64::MAX), false))
    };
    let plain = matches!(format, Format::Auto | Format::Plain) && !timed;
    let Some(size) = (options.jobs > 1 && plain)
        .then(|| may_segment(plan, path, options))
        .transpose()?
        .flatten()
    else {
        return Ok(run(plan, whole(path)?, options, stop, sink));
    };
    // The trace's first blocks, read as the run reads them.
    let names = names(plan);
    let mut trace = whole(path)?;
    let found = trace.detect_format();
    let mut source = Blocks::new(trace, &names, stop);
    if options.timepoints {
        // (No line is skipped here: numbers are the events' anyway.)
        source = source.timepoints();
    }
    let mut sample = Vec::new();
    // The estimate of a compacted warm-up's steps reads the file on a
    // thread of its own while the sample is read (the other core is idle
    // then); it is called off where the layout does not ask for it.
    let called_off = AtomicBool::new(false);
    let layout = std::thread::scope(|scope| {
        let estimate = (segments::compactable(plan))
            .then(|| scope.spawn(|| segments::CompactCost::estimate(plan, path, &called_off)));
        while sample.len() < SAMPLE_BLOCKS
            && let Some(b) = source.next_block()
        {
            let end = b.end.is_some();
            sample.push(Arc::new(b));
            if end {
                break;
            }
        }
        let ended = sample.iter().any(|b| b.end.is_some());
        let mut estimate = estimate.map(|handle| {
            move || {
                (handle.join()).unwrap_or_else(|_| Err(io::Error::other("the estimate of a warm-up failed")))
            }
        });
        let layout = match !ended && source.plain_csv() {
            true => segment_layout(plan, path, size, &sample, options, &mut || estimate.take().map(|f| f())),
            false => Ok(None),
        };
        called_off.store(true, Ordering::Relaxed);
        layout
    })?;
    if let Some(layout) = layout {
        let segment = |input| reader(input, true);
        // Segments are untimed: the clock counts events.
        let monitor = MonitorOptions {
            step_clock: true,
            ..options.monitor.clone()
        };
        let lines = segments::run(plan, path, &layout, &segment, &monitor, stop, sink);
        if let Some(mut outcome) = lines {
            outcome.format = Some(Format::Plain);
            return Ok(outcome);
        }
        // A quote in the file: sliced after all.
    }
    let mut outcome = run_blocks(plan, sample, source, options, sink);
    outcome.format = Some(found);
    Ok(outcome)
}

/// The size of the file at `path` when it may be cut into time segments,
/// as far as can be told before its sample is read: a file at least
/// [`segments::MIN_BYTES`] long ([`segments::MIN_BYTES_UNSIZED`] for a
/// property whose warm-up the sample cannot size) whose properties' state
/// is their summaries (no time bounds, seen values, comparisons or future
/// operators: the state [`crate::runtime::Snapshot`] compares), not
/// skipping bad lines.
fn may_segment(plan: &Plan, path: &Path, options: &Options) -> io::Result<Option<u64>> {
    let size = std::fs::metadata(path)?.len();
    let min = match options.segments {
        // Skipped lines would shift the numbers of the segments after them.
        _ if options.skip.is_some() => return Ok(None),
        // A segment's worker reads no blocks, and numbers its events from
        // its stretch: it has no samples to give.
        _ if options.profile.is_some() => return Ok(None),
        Segments::Never => return Ok(None),
        Segments::Always => 0,
        Segments::Auto if segments::warm_steps(plan).is_none() => segments::MIN_BYTES_UNSIZED,
        Segments::Auto => segments::MIN_BYTES,
    };
    Ok((size >= min && segments::snapshots(plan, &options.monitor)).then_some(size))
}

/// Where the segments of the file at `path` (of `size` bytes, plain CSV,
/// [`may_segment`]) lie, when it is cut into time segments: where, judged
/// on the trace's first blocks `sample` (untimed), slicing leaves the
/// busiest worker [`UNEVEN`] times an even share or more, and warm-ups can
/// reach the true state at a cost that segments still gain by. Where the
/// rates of the sample's values size the warm-up
/// ([`segments::warm_up_events`]), it must fit before its segment, and the
/// busiest worker's cost in segments (its share of the trace with the
/// warm-up's cost, [`segments::warm_up_cost`]) must be less than in the
/// best slicing layout (its share of the reading and of the steps);
/// otherwise (properties that are not tick invariant) the first blocks
/// must suggest that warm-ups agree ([`segments::warm_up_agrees`]). With
/// [`Segments::Always`], any such file of any length (its warm-ups as long
/// as the sample asks, up to a segment). Where every since reads only the
/// event at hand, a warm-up may instead be *compacted* (the whole file
/// before its segment, its state records' last touchers stepped:
/// [`segments::compactable`]), taken where its cost is the lesser.
fn segment_layout(
    plan: &Plan,
    path: &Path,
    size: u64,
    sample: &[Arc<Block>],
    options: &Options,
    estimate: &mut dyn FnMut() -> Option<io::Result<(f64, f64)>>,
) -> io::Result<Option<segments::Layout>> {
    if sample.iter().any(|b| b.timed) {
        return Ok(None);
    }
    let jobs = options.jobs;
    let read: usize = sample.iter().map(|b| b.events.len()).sum();
    let per_event = sample.last().map_or(0, |b| b.bytes_read).div_ceil(read.max(1) as u64);
    // The warm-up the values of the sample need, in bytes.
    let warm = segments::warm_up_events(plan, sample).map(|events| events.saturating_mul(per_event));
    let cost = segments::warm_up_cost(plan, sample);
    // Where slicing is even enough, nothing more is read.
    let share = match options.segments {
        Segments::Auto => {
            let workers = choose(plan, jobs, sample).layout(plan, jobs);
            let share = segments::busiest_share(&workers, sample);
            if share * (jobs as f64) < UNEVEN {
                return Ok(None);
            }
            share
        }
        _ => 0.0,
    };
    // Compacted warm-ups, where they reach the true state: the bounds, and
    // the busiest worker's cost.
    let compact = match estimate() {
        Some(population) => segments::CompactCost::of(plan, sample, per_event as f64, population?),
        None => None,
    };
    let compact = compact.and_then(|c| segments::compact_bounds(size, jobs, &c));
    // Warm-ups sized by the values' rates, where they fit: the busiest
    // worker's cost.
    let sized = warm
        .filter(|&bytes| bytes <= size / jobs as u64)
        .map(|bytes| segments::busiest_cost(size, jobs, bytes, cost));
    let use_compact = match (&compact, sized) {
        (Some((_, c)), Some(s)) => *c < s,
        (c, _) => c.is_some(),
    };
    if options.segments == Segments::Auto {
        // Segments whose warm-ups would not agree are stepped twice: where
        // the warm-up is known (compacted, or from the values' rates), it
        // must fit before its segment and cost less than slicing leaves
        // uneven; otherwise the first blocks judge.
        let best = match &compact {
            Some((_, c)) if use_compact => Some(*c),
            _ => sized,
        };
        let pays = match (warm, best) {
            (_, Some(busiest)) => busiest < segments::sliced_cost(jobs, share),
            (Some(_), None) => false,
            (None, None) => segments::warm_up_agrees(plan, &options.monitor, sample),
        };
        if !pays {
            return Ok(None);
        }
    }
    let mut file = File::open(path)?;
    match compact {
        Some((bounds, _)) if use_compact => segments::layout_compact(&mut file, &bounds),
        _ => segments::layout_warm(&mut file, size, jobs, warm.unwrap_or(0), cost),
    }
}

/// The layout a run on `jobs` workers settles on for a long trace that
/// starts with `blocks`: the one its first blocks suggest, unless its
/// whole sample suggests monitoring some property another way.
#[cfg(any(test, feature = "internals"))]
pub fn layout_of_long_trace(plan: &Plan, jobs: usize, blocks: &[Arc<Block>]) -> Vec<Vec<Unit>> {
    let guess = choose(plan, jobs, &blocks[..blocks.len().min(LEAD_BLOCKS)]);
    let sample = &blocks[..blocks.len().min(SAMPLE_BLOCKS)];
    guess
        .revised(plan, jobs, sample)
        .unwrap_or(guess)
        .layout(plan, jobs)
}

/// The layout of a run on `jobs` workers that sees no sample of its trace
/// (a cluster run's workers): every property that can be split or sliced
/// is.
#[cfg(any(test, feature = "cluster"))]
pub fn layout_without_sample(plan: &Plan, jobs: usize) -> Vec<Vec<Unit>> {
    choose(plan, jobs, &[]).layout(plan, jobs)
}

/// A run with one worker on a short trace (all in `first`, or nearly), on
/// this thread: the blocks stepped and merged one by one.
fn run_inline<R: Read>(
    plan: &Plan,
    units: Vec<Unit>,
    options: &Options,
    first: Vec<Arc<Block>>,
    mut source: Blocks<'_, R>,
    sink: &mut impl Sink,
) -> Outcome {
    let monitor = for_monitors(&options.monitor, units.len());
    if options.profile.is_some() {
        sink.layout(plan, std::slice::from_ref(&units));
    }
    let mut worker = Worker::new(units, &monitor);
    if let (Ok(w), Some(every)) = (&mut worker, options.profile) {
        w.sampling(every);
    }
    let mut merger = Merger::new(1);
    let rest = std::iter::from_fn(|| source.next_block().map(Arc::new));
    for block in first.into_iter().chain(rest) {
        let found = match &mut worker {
            Ok(w) => {
                let mut found = w.process(&block);
                if block.last {
                    w.finish(options.close && block.end.is_none(), &mut found);
                }
                found
            }
            // Reported at the first event, as a sequential run fails
            // before it reads any.
            Err(error) => super::Found {
                error: Some((1, 0, error.clone())),
                finished: true,
                ..super::Found::default()
            },
        };
        if !merger.block(block, [Some(found)], sink) {
            break;
        }
    }
    merger.outcome
}
