//! The threaded run: the workers read the trace themselves, a batch at a
//! time, whichever of them runs out of batches first (so the reading goes
//! to the worker that is ahead, and no core waits on a reader thread).
//! Each batch goes, in order, to every worker and to the merger (the
//! calling thread), which merges the workers' findings batch by batch.
//! A layout with fewer workers than jobs also has a thread that only
//! reads.
//!
//! A long trace starts at once, on the layout the plan suggests, while the
//! reading keeps the first batches as a sample. Once the sample is
//! complete, the layout the sample suggests ([`choose`]) is compared with
//! the running one; if it differs, the new layout's workers are started,
//! replay the sample without answering (so their summaries are those of
//! the whole prefix), the merger takes the answers from them from the next
//! batch on, and the old workers' input ends (they stop after the sample).
//! Either layout gives the same verdicts, so the events already merged
//! stand; the revision only changes how fast the rest goes.

use std::io::Read;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::thread::Scope;
use std::time::Duration;

use super::assign::{Choice, choose};
use super::batch::{Batch, Batches};
use super::worker::{Found, Unit, Worker};
use super::{EventView, Merger, Outcome, QUEUE, for_monitors};
use crate::plan::Plan;
use crate::runtime::MonitorOptions;

/// How long a worker that finds the reading taken waits for the batch the
/// holder sends it before it looks again.
const WAIT: Duration = Duration::from_micros(200);

/// What the merger receives from the reading, in trace order.
enum Feed {
    /// The next batch: each current worker answers it with a [`Found`].
    Batch(Arc<Batch>),
    /// From the next batch on, these workers answer (the layout changed).
    Switch(Vec<Receiver<Found>>),
}

/// What the threads of a run share.
struct Shared<'a, R: Read> {
    plan: &'a Plan,
    options: &'a MonitorOptions,
    jobs: usize,
    /// The reading of the trace, taken by whichever thread needs the next
    /// batch; `None` once it has ended (every worker's input is then
    /// closed).
    input: Mutex<Option<Reading<'a, R>>>,
}

/// What a worker thread starts with.
struct Thread {
    units: Vec<Unit>,
    options: MonitorOptions,
    /// Its input.
    batches: Receiver<Arc<Batch>>,
    /// Its answers.
    out: SyncSender<Found>,
}

/// The reading of the trace: where it stands and where its batches go.
struct Reading<'a, R: Read> {
    /// Batches read before the run started, to send first.
    first: std::vec::IntoIter<Arc<Batch>>,
    source: Batches<'a, R>,
    /// The current workers' inputs.
    to: Vec<SyncSender<Arc<Batch>>>,
    merger: SyncSender<Feed>,
    /// The batches the merger is done with, to fill again.
    spent: Receiver<Batch>,
    /// The sample so far, until it is complete.
    kept: Vec<Arc<Batch>>,
    /// Batches in the sample (0: the layout is not revised).
    sample: usize,
    /// The running layout; `None` once it is settled.
    running: Option<Choice>,
    /// Whether a thread that only reads has been started.
    reader: bool,
}

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
    let (feed_tx, feed) = sync_channel(QUEUE);
    // Spent batches, from the merger back to the reading.
    let (spent_tx, spent) = sync_channel(2 * QUEUE);
    let shared = Shared {
        plan,
        options,
        jobs,
        input: Mutex::new(Some(Reading {
            first: first.into_iter(),
            source,
            to: Vec::new(),
            merger: feed_tx,
            spent,
            kept: Vec::new(),
            sample,
            running: (sample > 0).then(|| choice.clone()),
            reader: false,
        })),
    };
    std::thread::scope(|scope| {
        let from_workers = shared.start(scope, choice.layout(plan, jobs));
        // The feed is dropped when the merger returns (not after the scope):
        // a reader blocked on sending it a batch then wakes and ends.
        merge(feed, from_workers, &spent_tx, &mut on_event)
    })
}

impl<'a, R: Read + Send> Shared<'a, R> {
    /// Starts a worker thread per element of `workers` (each first steps
    /// `replay` batches without answering), and a thread that only reads
    /// if they are fewer than the jobs; returns their answers. No thread
    /// starts before the reading knows them as its current workers.
    fn start<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        workers: Vec<Vec<Unit>>,
    ) -> Vec<Receiver<Found>> {
        let mut input = self.input.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(reading) = input.as_mut() else {
            return Vec::new();
        };
        let (threads, from) = self.wire(reading, workers, 0);
        // Unlocked first: a worker that finds the reading locked waits
        // for the batch the holder sends it.
        drop(input);
        self.launch(scope, threads, 0);
        from
    }

    /// The channels of `workers`, made the reading's current workers (the
    /// old ones' inputs are dropped, which ends them); per worker what its
    /// thread needs, and the answers. Records that a thread that only
    /// reads is wanted (`None` in the list) if the workers are fewer than
    /// the jobs.
    fn wire(
        &self,
        reading: &mut Reading<'a, R>,
        workers: Vec<Vec<Unit>>,
        replay: usize,
    ) -> (Vec<Option<Thread>>, Vec<Receiver<Found>>) {
        let monitors = workers.iter().map(Vec::len).sum();
        let options = for_monitors(self.options, monitors);
        let count = workers.len();
        let mut threads = Vec::new();
        let mut to_workers = Vec::new();
        let mut from_workers = Vec::new();
        for units in workers {
            // Room for the whole replay, which is sent at once.
            let (tx, rx) = sync_channel(QUEUE + replay);
            let (found_tx, found_rx) = sync_channel(QUEUE);
            threads.push(Some(Thread {
                units,
                options: options.clone(),
                batches: rx,
                out: found_tx,
            }));
            to_workers.push(tx);
            from_workers.push(found_rx);
        }
        reading.to = to_workers;
        if count < self.jobs && !reading.reader {
            reading.reader = true;
            threads.push(None);
        }
        (threads, from_workers)
    }

    /// Starts `threads` (`None`: one that only reads); the workers replay
    /// `replay` batches first.
    fn launch<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        threads: Vec<Option<Thread>>,
        replay: usize,
    ) {
        for thread in threads {
            match thread {
                Some(t) => scope.spawn(move || self.work(scope, t, replay)),
                None => scope.spawn(move || self.read_all(scope)),
            };
        }
    }

    /// Reads the next batch and sends it to every current worker and to
    /// the merger; when that completes the sample, revises the layout.
    /// False when there are no more batches, or the merger is gone.
    fn step<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        reading: &mut Reading<'a, R>,
    ) -> bool {
        let batch = match reading.first.next() {
            Some(batch) => batch,
            None => {
                while let Ok(spent) = reading.spent.try_recv() {
                    reading.source.reuse(spent);
                }
                match reading.source.next_batch() {
                    Some(batch) => Arc::new(batch),
                    None => return false,
                }
            }
        };
        let more = reading.first.len() > 0 || (batch.end.is_none() && !reading.source.done());
        if reading.running.is_some() {
            reading.kept.push(Arc::clone(&batch));
        }
        for tx in &reading.to {
            // A worker that is gone failed: the merger finds out.
            let _ = tx.send(Arc::clone(&batch));
        }
        if reading.merger.send(Feed::Batch(batch)).is_err() {
            return false;
        }
        if reading.kept.len() == reading.sample
            && let Some(running) = reading.running.take()
        {
            let kept = std::mem::take(&mut reading.kept);
            let better = more.then(|| choose(self.plan, self.jobs, &kept));
            if let Some(better) = better.filter(|b| !b.same_as(&running)) {
                let workers = better.layout(self.plan, self.jobs);
                let (threads, from) = self.wire(reading, workers, kept.len());
                // Started with the reading locked: their replay is sent
                // before it is unlocked.
                self.launch(scope, threads, kept.len());
                for batch in &kept {
                    for tx in &reading.to {
                        let _ = tx.send(Arc::clone(batch));
                    }
                }
                if reading.merger.send(Feed::Switch(from)).is_err() {
                    return false;
                }
            }
        }
        more
    }

    /// The next batch for the worker whose input is `batches`: one already
    /// sent to it, else one it reads itself (unless another thread reads
    /// one meanwhile); `None` when its input has ended.
    fn next<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        batches: &Receiver<Arc<Batch>>,
    ) -> Option<Arc<Batch>> {
        loop {
            if let Some(sent) = waiting(batches) {
                return sent;
            }
            let mut input = match self.input.try_lock() {
                Ok(input) => input,
                Err(TryLockError::Poisoned(e)) => e.into_inner(),
                // Whoever reads sends this worker the batch (or ends its
                // input): wait for it. Not for ever: the holder may not read
                // (it found a batch of its own after all, then ended, as
                // when the merger stops the run), and then this thread must.
                Err(TryLockError::WouldBlock) => match batches.recv_timeout(WAIT) {
                    Ok(batch) => return Some(batch),
                    Err(RecvTimeoutError::Disconnected) => return None,
                    Err(RecvTimeoutError::Timeout) => continue,
                },
            };
            // Batches are only sent with the reading locked: empty now, the
            // input stays empty unless this thread reads.
            if let Some(sent) = waiting(batches) {
                return sent;
            }
            let reading = input.as_mut()?;
            if !self.step(scope, reading) {
                // Closes every input.
                *input = None;
            }
        }
    }

    /// A thread that only reads (beside a layout with fewer workers than
    /// jobs): batch after batch, until the trace or the merger ends.
    fn read_all<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        loop {
            let mut input = self.input.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(reading) = input.as_mut() else {
                return;
            };
            if !self.step(scope, reading) {
                *input = None;
                return;
            }
        }
    }

    /// A worker thread: builds its monitors, steps the first `replay`
    /// batches without answering, then answers every batch with a
    /// [`Found`], until the batches end, an error, or the merger is gone.
    ///
    /// An error while replaying (one the previous layout's workers did not
    /// meet, as a monitor that sees more values may run out of codes where a
    /// slice does not) is reported at the first batch it answers.
    fn work<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>, thread: Thread, replay: usize) {
        let Thread {
            units,
            options,
            batches,
            out,
        } = thread;
        // The monitors, or why they cannot go on (they could not be built,
        // or refused an event of the replay).
        let mut worker = Worker::new(units, &options);
        let mut k = 0;
        while let Some(batch) = self.next(scope, &batches) {
            let replaying = k < replay;
            k += 1;
            match &mut worker {
                Ok(w) => {
                    let found = w.process(&batch);
                    let end = batch.end.is_some();
                    // Let go of it before answering: the merger recycles it.
                    drop(batch);
                    if replaying {
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
                Err(_) if replaying => {}
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
}

/// A batch already sent to `batches` (`Some(None)` once the input has
/// ended); `None` if none is waiting.
fn waiting(batches: &Receiver<Arc<Batch>>) -> Option<Option<Arc<Batch>>> {
    match batches.try_recv() {
        Ok(batch) => Some(Some(batch)),
        Err(TryRecvError::Disconnected) => Some(None),
        Err(TryRecvError::Empty) => None,
    }
}

/// The merger: per batch, the current workers' findings merged, then each
/// event handed to `on_event`.
fn merge(
    feed: Receiver<Feed>,
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
