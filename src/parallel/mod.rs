//! Parallel monitoring on the cores of one machine, with the verdicts of a
//! sequential run, in the same order.
//!
//! - **Pipeline**: a reader thread parses the trace into owned batches
//!   ([`batch`]) and hands each, in order, to every worker and to the merger.
//! - **Data slicing**: a property the plan can slice (see
//!   [`crate::plan::slice`]) is monitored in `jobs` slices, one per worker:
//!   slice `h` receives the events whose routed value hashes to `h` (or
//!   that a sample of the trace gave slice `h`, where the hash would leave
//!   the slices uneven: see [`assign`]), every event of an unrouted name,
//!   and a tick for the others, so that `@`, `S`, time and rules keep the
//!   step structure of the whole trace.
//! - **Property parallelism**: properties that cannot be sliced are spread
//!   over the workers.
//! - **Merging**: per batch, the workers' violations are merged by event
//!   number, then property index; a violation found by several slices (by the
//!   unseen value, which every slice has) is reported once.
//!
//! Each worker builds its own [`Monitor`](crate::runtime::Monitor)s inside its
//! thread (a monitor is not `Send`). Every event is stepped, delivered or as a
//! tick: runs of ticks are cheap in untimed properties, since a repeated event
//! whose kept summaries stopped changing costs no BDD work (a timed property
//! evaluates each tick).

mod assign;
pub mod batch;
mod pipeline;
pub mod segments;
pub mod simulate;
pub mod worker;

use std::io::Read;
use std::sync::Arc;

use crate::plan::Plan;
use crate::runtime::{MonitorOptions, StepError};
use crate::trace::{TraceError, TraceReader};
use batch::{Batch, Batches, End};

pub use batch::Args;
use worker::Found;

pub use assign::{Choice, can_gain, choose, distribute, distribute_sampled};

/// Batches of a sample of the trace, to choose how to spread the
/// properties over the workers (see [`assign`]).
const SAMPLE_BATCHES: usize = 32;

/// Batches read before the workers start: a trace that ends within them
/// is short, and is laid out on all of it.
const LEAD_BATCHES: usize = 4;

/// The fewest events of a short trace (one the sample holds whole) per
/// worker.
const EVENTS_PER_WORKER: usize = 4096;

/// Batches in flight per channel.
const QUEUE: usize = 4;

/// One event as the merger hands it on, with the properties violated at it.
#[derive(Clone, Copy, Debug)]
pub struct EventView<'a> {
    /// The 1-based event number.
    pub number: u64,
    /// Its line in the trace.
    pub line: u64,
    /// Its time stamp (0 untimed).
    pub time: u64,
    /// Its name.
    pub name: &'a [u8],
    /// Its name's index in the plan's events (`None`: a name the plan does
    /// not know, or not known).
    pub name_index: Option<u32>,
    /// Its arguments.
    pub args: Args<'a>,
    /// How many events after it are the same (numbers `number + 1 ..=
    /// number + repeats`, one line each after `line`, at the same time):
    /// a view stands for `1 + repeats` events, and only a view of one
    /// event (`repeats` 0) can have violations.
    pub repeats: u64,
    /// Bytes of the input read so far (at least up to this event).
    pub bytes_read: u64,
    /// Whether the trace has time stamps.
    pub timed: bool,
}

/// Why a parallel run ended before the end of the trace.
#[derive(Clone, Debug)]
pub enum Stopped {
    /// An input error (as the trace reader gives it).
    Trace(TraceError),
    /// A monitor error at the event on `line`.
    Monitor {
        /// The event's line.
        line: u64,
        /// What went wrong.
        error: StepError,
        /// The event's last argument, when the error is its arity.
        last: Option<Box<[u8]>>,
    },
    /// The stop flag was set.
    Interrupted,
    /// The caller's callback asked to stop.
    ByCaller,
}

/// The end of a parallel run.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Why it ended early, if it did.
    pub stopped: Option<Stopped>,
    /// Garbage collections and codes released, summed over all monitors.
    pub gc: (u64, u64),
    /// Whether the layout the run started with was replaced by the one
    /// the sample of the trace suggests (see [`run`]).
    pub revised: bool,
    /// For a run in time segments ([`segments`]): how many segments after
    /// the first were taken from their speculative worker, and how many
    /// the worker before stepped again (their states did not agree).
    pub segments: Option<(usize, usize)>,
}

/// Monitors the trace of `reader` against `plan` on `jobs` threads (plus the
/// reader's). For every event, in order, calls `on_event` with the indices of
/// the properties violated at it (ascending, as [`Monitor::step`] gives
/// them); `on_event` returns false to end the run. `stop` is checked after
/// reading each event (Ctrl-C): when set, the run ends before that event.
///
/// How the properties are spread over the workers is chosen on the first
/// batches of the trace (see [`distribute_sampled`]). A long trace starts
/// on the layout its first few batches suggest, and moves to the one its
/// whole sample suggests if that differs: the new workers replay the
/// sample first.
///
/// [`Monitor::step`]: crate::runtime::Monitor::step
pub fn run<R: Read + Send>(
    plan: &Plan,
    reader: TraceReader<R>,
    options: &MonitorOptions,
    jobs: usize,
    stop: &(dyn Fn() -> bool + Sync),
    on_event: impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Outcome {
    run_sampled(plan, reader, options, jobs, SAMPLE_BATCHES, stop, on_event)
}

/// [`run`], with the properties spread over the workers as the first
/// `sample` batches of the trace suggest, or, with `sample` 0, as the plan
/// alone does ([`distribute`]: every property that can be split or sliced
/// is).
pub fn run_sampled<R: Read + Send>(
    plan: &Plan,
    reader: TraceReader<R>,
    options: &MonitorOptions,
    jobs: usize,
    sample: usize,
    stop: &(dyn Fn() -> bool + Sync),
    mut on_event: impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Outcome {
    let arity = batch::names(plan);
    let mut source = Batches::new(reader, &arity, stop);
    // The first batches, read before the workers start: enough to tell a
    // short trace.
    let mut first = Vec::new();
    let lead = sample.min(LEAD_BATCHES);
    while first.len() < lead
        && let Some(batch) = source.next_batch()
    {
        first.push(Arc::new(batch));
    }
    // An untimed trace's clock counts events: every monitor that reads
    // time steps every event (a tick for another slice's), so its count is
    // the event's number.
    let options = &MonitorOptions {
        step_clock: first.first().is_some_and(|b| !b.timed),
        ..options.clone()
    };
    // A long trace starts at once, laid out as its first batches suggest;
    // the layout is revised on the whole sample, once read, if that
    // suggests another.
    if sample > lead && !source.done() {
        let guess = choose(plan, jobs, &first);
        return pipeline::run(plan, options, jobs, &guess, first, source, sample, on_event);
    }
    // Else `first` holds the whole sample. A trace that it holds whole is
    // short: a worker per
    // `EVENTS_PER_WORKER` of its events at most (threads and monitors cost
    // more than they save on a few events).
    let jobs = if source.done() && sample > 0 {
        let events: usize = first.iter().map(|b| b.events.len()).sum();
        jobs.min(events / EVENTS_PER_WORKER).max(1)
    } else {
        jobs
    };
    let choice = choose(plan, jobs, &first);
    let mut workers = choice.layout(plan, jobs);
    // One worker on a trace the sample holds whole: on this thread.
    if workers.len() == 1 && source.done() {
        let options = &for_monitors(options, workers[0].len());
        let units = workers.pop().unwrap_or_default();
        return run_inline(units, options, first, source, &mut on_event);
    }
    pipeline::run(plan, options, jobs, &choice, first, source, 0, on_event)
}

/// The layout a run on `jobs` workers settles on for a long trace that
/// starts with `batches`: the one its first batches suggest, unless its
/// whole sample suggests monitoring some property another way (as
/// [`run`] revises it).
pub fn distribute_as_run(
    plan: &Plan,
    jobs: usize,
    batches: &[Arc<Batch>],
) -> Vec<Vec<worker::Unit>> {
    let guess = choose(plan, jobs, &batches[..batches.len().min(LEAD_BATCHES)]);
    let sample = choose(plan, jobs, &batches[..batches.len().min(SAMPLE_BATCHES)]);
    let choice = if sample.same_as(&guess) {
        guess
    } else {
        sample
    };
    choice.layout(plan, jobs)
}

/// The options of each of `monitors` monitors of one process: with more
/// than one, each monitor's BDD tables grow in smaller steps, so that their
/// sum stays near one table's size.
pub(crate) fn for_monitors(options: &MonitorOptions, monitors: usize) -> MonitorOptions {
    MonitorOptions {
        save_memory: options.save_memory || monitors > 1,
        ..options.clone()
    }
}

/// The merge of the workers' findings, batch after batch.
#[derive(Default)]
pub(crate) struct Merger {
    pub(crate) outcome: Outcome,
    violated: Vec<usize>,
    all: Vec<(u64, usize)>,
}

impl Merger {
    /// Merges what the workers `found` in `batch` (`None` for a worker
    /// that failed) and hands each event to `on_event`; false when the run
    /// ends here.
    pub(crate) fn batch(
        &mut self,
        batch: &Batch,
        found: impl Iterator<Item = Option<Found>>,
        on_event: &mut impl FnMut(&EventView<'_>, &[usize]) -> bool,
    ) -> bool {
        let Merger {
            outcome,
            violated,
            all,
        } = self;
        all.clear();
        let mut error: Option<(u64, u64, StepError)> = None;
        let mut gc = (0, 0);
        for found in found {
            let Some(found) = found else {
                outcome.stopped = Some(Stopped::Monitor {
                    line: batch.events.first().map_or(0, |e| e.line),
                    error: StepError::OutOfCodes {
                        property: "(a worker thread failed)".into(),
                        bits: crate::runtime::MAX_CODE_BITS,
                    },
                    last: None,
                });
                return false;
            };
            all.extend_from_slice(&found.violations);
            gc = (gc.0 + found.gc.0, gc.1 + found.gc.1);
            if let Some(e) = found.error
                && error.as_ref().is_none_or(|f| e.0 < f.0)
            {
                error = Some(e);
            }
        }
        outcome.gc = gc;
        all.sort_unstable();
        all.dedup();
        let mut next = 0;
        for ev in &batch.events {
            if let Some((number, line, e)) = &error
                && *number == ev.number
            {
                outcome.stopped = Some(Stopped::Monitor {
                    line: *line,
                    error: e.clone(),
                    last: None,
                });
                return false;
            }
            let mut view = EventView {
                number: ev.number,
                line: ev.line,
                time: ev.time,
                name: batch.name_of(ev),
                name_index: (ev.name != u32::MAX).then_some(ev.name),
                args: batch.args_of(ev),
                repeats: 0,
                bytes_read: batch.bytes_read,
                timed: batch.timed,
            };
            // The event, then its repeats: each violated one on its own, the
            // others in stretches.
            let last = ev.number + ev.repeats;
            while view.number <= last {
                violated.clear();
                while next < all.len() && all[next].0 == view.number {
                    violated.push(all[next].1);
                    next += 1;
                }
                view.repeats = if violated.is_empty() {
                    let end = all
                        .get(next)
                        .map_or(last, |v| v.0.saturating_sub(1).min(last));
                    end - view.number
                } else {
                    0
                };
                view.line = ev.line + (view.number - ev.number);
                if !on_event(&view, violated) {
                    outcome.stopped = Some(Stopped::ByCaller);
                    return false;
                }
                view.number += view.repeats + 1;
            }
        }
        outcome.stopped = match &batch.end {
            Some(End::Trace(e)) => Some(Stopped::Trace(e.clone())),
            Some(End::Arity { line, error, last }) => Some(Stopped::Monitor {
                line: *line,
                error: error.clone(),
                last: last.clone(),
            }),
            Some(End::Interrupted) => Some(Stopped::Interrupted),
            None => return true,
        };
        false
    }
}

/// A run with one worker on a short trace (all in `first`, or nearly), on
/// this thread: the batches stepped and merged one by one.
fn run_inline<R: Read>(
    units: Vec<worker::Unit>,
    options: &MonitorOptions,
    first: Vec<Arc<Batch>>,
    mut source: Batches<'_, R>,
    on_event: &mut impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Outcome {
    let mut worker = worker::Worker::new(units, options);
    let mut merger = Merger::default();
    let rest = std::iter::from_fn(|| source.next_batch().map(Arc::new));
    for batch in first.into_iter().chain(rest) {
        let found = match &mut worker {
            Ok(w) => w.process(&batch),
            // Reported at the first event, as a sequential run fails
            // before it reads any.
            Err(error) => Found {
                error: Some((1, 0, error.clone())),
                ..Found::default()
            },
        };
        if !merger.batch(&batch, std::iter::once(Some(found)), on_event) {
            break;
        }
    }
    merger.outcome
}

#[cfg(test)]
mod tests;
