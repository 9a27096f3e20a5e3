//! The threaded run: a reader thread hands every batch, in order, to each
//! worker thread and to the merger (the calling thread), which merges the
//! workers' findings batch by batch.
//!
//! A long trace starts at once, on the layout the plan suggests, while the
//! reader keeps the first batches as a sample. Once the sample is complete,
//! the layout the sample suggests ([`choose`]) is compared with the running
//! one; if it differs, the reader starts the new layout's workers, has them
//! replay the sample without answering (so their summaries are those of the
//! whole prefix), tells the merger to take the answers from them from the
//! next batch on, and drops the old workers' input (they end after the
//! sample). Either layout gives the same verdicts, so the events already
//! merged stand; the revision only changes how fast the rest goes.

use std::io::Read;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::Scope;

use super::assign::{Choice, choose};
use super::batch::{Batch, Batches};
use super::worker::{Found, Unit, Worker};
use super::{EventView, Merger, Outcome, QUEUE, for_monitors};
use crate::plan::Plan;
use crate::runtime::MonitorOptions;

/// What the merger receives from the reader, in trace order.
enum Feed {
    /// The next batch: each current worker answers it with a [`Found`].
    Batch(Arc<Batch>),
    /// From the next batch on, these workers answer (the layout changed).
    Switch(Vec<Receiver<Found>>),
}

/// The inputs and answers of a layout's workers.
type Workers = (Vec<SyncSender<Arc<Batch>>>, Vec<Receiver<Found>>);

/// Runs the layout of `choice` on threads (one per worker), the
/// merger on this one; `first` are the batches already read from
/// `source`. The layout is revised on the first `sample` batches (when
/// not 0), as [`choose`] decides for `jobs` workers.
#[allow(clippy::too_many_arguments)]
pub(super) fn run<R: Read + Send>(
    plan: &Plan,
    options: &MonitorOptions,
    jobs: usize,
    choice: &Choice,
    first: Vec<Arc<Batch>>,
    source: Batches<'_, R>,
    sample: usize,
    mut on_event: impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Outcome {
    std::thread::scope(|scope| {
        let (to_workers, from_workers) = spawn(scope, choice.layout(plan, jobs), options, 0);
        let (feed_tx, feed) = sync_channel(QUEUE);
        // Spent batches, from the merger back to the reader.
        let (spent_tx, spent) = sync_channel(2 * QUEUE);
        let running = choice.clone();
        scope.spawn(move || {
            let respawn = |kept: &[Arc<Batch>]| -> Option<Workers> {
                let better = choose(plan, jobs, kept);
                let units = (!better.same_as(&running)).then(|| better.layout(plan, jobs))?;
                Some(spawn(scope, units, options, kept.len()))
            };
            let feeds = Feeds {
                merger: &feed_tx,
                spent: &spent,
            };
            read(first, source, to_workers, feeds, sample, respawn);
        });
        merge(&feed, from_workers, &spent_tx, &mut on_event)
    })
}

/// Starts a worker thread per element of `workers`; each first steps
/// `replay` batches without answering them.
fn spawn<'scope>(
    scope: &'scope Scope<'scope, '_>,
    workers: Vec<Vec<Unit>>,
    options: &MonitorOptions,
    replay: usize,
) -> Workers {
    let options = for_monitors(options, workers.iter().map(Vec::len).sum());
    let mut to_workers = Vec::new();
    let mut from_workers = Vec::new();
    for units in workers {
        let (tx, rx) = sync_channel(QUEUE);
        let (found_tx, found_rx) = sync_channel(QUEUE);
        let options = options.clone();
        scope.spawn(move || work(units, &options, replay, rx, found_tx));
        to_workers.push(tx);
        from_workers.push(found_rx);
    }
    (to_workers, from_workers)
}

/// The reader's channels with the merger.
struct Feeds<'a> {
    /// The batches, in order, and the layout switch.
    merger: &'a SyncSender<Feed>,
    /// The batches the merger is done with.
    spent: &'a Receiver<Batch>,
}

/// The reader: sends `first`, then every further batch of `source`, to
/// each worker of `to` and to the merger. The first `sample` batches are
/// kept; once they are read (and more follow), `respawn` may start workers
/// of a better layout, which replay them and then take over. Returns when
/// done or when the merger is gone.
fn read<R: Read>(
    first: Vec<Arc<Batch>>,
    mut source: Batches<'_, R>,
    mut to: Vec<SyncSender<Arc<Batch>>>,
    feeds: Feeds<'_>,
    sample: usize,
    respawn: impl FnOnce(&[Arc<Batch>]) -> Option<Workers>,
) {
    let merger = feeds.merger;
    let mut respawn = Some(respawn);
    let mut kept: Vec<Arc<Batch>> = Vec::new();
    let mut revised = sample == 0;
    let mut first = first.into_iter();
    let next = |source: &mut Batches<'_, R>| {
        while let Ok(spent) = feeds.spent.try_recv() {
            source.reuse(spent);
        }
        source.next_batch().map(Arc::new)
    };
    while let Some(batch) = first.next().or_else(|| next(&mut source)) {
        let more = batch.end.is_none() && !source.done();
        if !revised {
            kept.push(Arc::clone(&batch));
        }
        for tx in &to {
            // A worker that is gone failed: the merger finds out.
            let _ = tx.send(Arc::clone(&batch));
        }
        if merger.send(Feed::Batch(batch)).is_err() {
            return;
        }
        if !revised && kept.len() == sample {
            revised = true;
            if more && let Some((new_to, new_from)) = respawn.take().and_then(|f| f(&kept)) {
                for batch in &kept {
                    for tx in &new_to {
                        let _ = tx.send(Arc::clone(batch));
                    }
                }
                // Dropping the old inputs ends the old workers.
                to = new_to;
                if merger.send(Feed::Switch(new_from)).is_err() {
                    return;
                }
            }
            kept = Vec::new();
        }
    }
}

/// The merger: per batch, the current workers' findings merged, then each
/// event handed to `on_event`.
fn merge(
    feed: &Receiver<Feed>,
    mut from_workers: Vec<Receiver<Found>>,
    spent: &SyncSender<Batch>,
    on_event: &mut impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Outcome {
    let mut merger = Merger::default();
    for item in feed {
        match item {
            Feed::Switch(workers) => {
                from_workers = workers;
                merger.outcome.revised = true;
            }
            Feed::Batch(batch) => {
                // A worker that ended without an answer failed.
                let found = from_workers.iter().map(|rx| rx.recv().ok());
                if !merger.batch(&batch, found, on_event) {
                    break;
                }
                // Back to the reader, unless a worker still holds it (or the
                // reader has enough).
                if let Ok(batch) = Arc::try_unwrap(batch) {
                    let _ = spent.try_send(batch);
                }
            }
        }
    }
    merger.outcome
}

/// A worker thread: builds its monitors, steps the first `replay` batches
/// without answering, then answers every batch with a [`Found`], until the
/// batches end, an error, or the merger is gone.
///
/// An error while replaying (one the previous layout's workers did not
/// meet, as a monitor that sees more values may run out of codes where a
/// slice does not) is reported at the first batch it answers.
fn work(
    units: Vec<Unit>,
    options: &MonitorOptions,
    replay: usize,
    batches: Receiver<Arc<Batch>>,
    out: SyncSender<Found>,
) {
    // The monitors, or why they cannot go on (they could not be built, or
    // refused an event of the replay).
    let mut worker = Worker::new(units, options);
    for (k, batch) in batches.into_iter().enumerate() {
        match &mut worker {
            Ok(w) => {
                let found = w.process(&batch);
                let end = batch.end.is_some();
                // Let go of it before answering: the merger recycles it.
                drop(batch);
                if k < replay {
                    if let Some((_, _, e)) = found.error {
                        worker = Err(e);
                    }
                    continue;
                }
                let stop = found.error.is_some() || end;
                if out.send(found).is_err() || stop {
                    return;
                }
            }
            Err(_) if k < replay => {}
            Err(error) => {
                // At the first event answered for; at event 1 when the
                // monitors could not be built, as a sequential run fails
                // before it reads any.
                let first = batch.events.first().filter(|_| replay > 0);
                let (number, line) = first.map_or((1, 0), |e| (e.number, e.line));
                let _ = out.send(Found {
                    error: Some((number, line, error.clone())),
                    ..Found::default()
                });
                return;
            }
        }
    }
}
