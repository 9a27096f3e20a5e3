//! The threaded run: the workers read the trace themselves, a block at a
//! time, whichever of them runs out of blocks first (so the reading goes
//! to the worker that is ahead, and no core waits on a reader thread).
//! Each block goes, in order, to every worker and to the merger (the
//! calling thread), which merges the workers' findings block by block.
//! A layout with fewer workers than jobs also has a thread that only
//! reads.
//!
//! A long trace starts at once, on the layout its first blocks suggest,
//! while the reading keeps the first blocks as a sample. Once the sample
//! is complete, the planner compares the layout the sample suggests with
//! the running one ([`Choice::revised`]); if it differs, the new layout's
//! workers are started,
//! replay the sample without answering (so their summaries are those of
//! the whole prefix), the merger takes the answers from them from the next
//! block on, and the old workers' input ends (they stop after the sample).
//! Either layout gives the same verdicts, so the events already merged
//! stand; the revision only changes how fast the rest goes.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::thread::Scope;
use std::time::Duration;

use super::assign::Choice;
use super::block::Block;
use super::read::Blocks;
use super::worker::{Found, Unit, Worker};
use super::{Merger, Options, Outcome, Sink, for_monitors};
use crate::plan::Plan;
use crate::runtime::MonitorOptions;

/// Blocks in flight per channel.
const QUEUE: usize = 4;

/// How long a worker that finds the reading taken waits for the block the
/// holder sends it before it looks again.
const WAIT: Duration = Duration::from_micros(200);

/// On a stream, which may wait for its writer for long, the wait grows
/// after each look that finds the reading still taken, up to this.
const STREAM_WAIT: Duration = Duration::from_millis(20);

/// A worker that reads keeps reading while another worker has fewer
/// blocks than this waiting (and its own reading stays under `QUEUE`
/// blocks): so the others have work while it monitors what it read, and
/// the next one to run out of blocks is one of them, which then reads.
/// Reading one block at a time, the workers would both reach the end of
/// what was read, one reading while the other waits for it.
const AHEAD: usize = 2;

/// What the merger receives from the reading, in trace order.
enum Feed {
    /// The next block: each current worker answers it with a [`Found`].
    Block(Arc<Block>),
    /// From the next block on, these workers answer (the layout changed).
    Switch(Vec<Receiver<Found>>),
}

/// What the threads of a run share.
struct Shared<'a, R: Read> {
    plan: &'a Plan,
    options: &'a MonitorOptions,
    jobs: usize,
    /// Whether the end of the trace closes the open verdicts.
    close: bool,
    /// Whether the trace is a stream ([`Options::online`]).
    online: bool,
    /// With a profile, its period ([`Options::profile`]).
    profile: Option<u64>,
    /// The reading of the trace, taken by whichever thread needs the next
    /// block; `None` once it has ended (every worker's input is then
    /// closed).
    input: Mutex<Option<Reading<'a, R>>>,
}

/// What a worker thread starts with.
struct Thread {
    units: Vec<Unit>,
    options: MonitorOptions,
    /// Its input.
    blocks: Input,
    /// Its answers.
    out: SyncSender<Found>,
}

/// The reading of the trace: where it stands and where its blocks go.
struct Reading<'a, R: Read> {
    /// Blocks read before the run started, to send first.
    first: std::vec::IntoIter<Arc<Block>>,
    source: Blocks<'a, R>,
    /// The current workers' inputs, with how many blocks each holds
    /// (sent and not yet taken).
    to: Vec<(SyncSender<Arc<Block>>, Arc<AtomicUsize>)>,
    merger: SyncSender<Feed>,
    /// The blocks the merger is done with, to fill again.
    spent: Receiver<Block>,
    /// The sample so far, until it is complete.
    kept: Vec<Arc<Block>>,
    /// Blocks in the sample (0: the layout is not revised).
    sample: usize,
    /// The running layout; `None` once it is settled.
    running: Option<Choice>,
    /// Whether a thread that only reads has been started.
    reader: bool,
}

/// Runs the layout of `choice` on threads (one per worker), the
/// merger on this one, handing the events on to `sink`; `first` are the
/// blocks already read from `source`. The layout is revised on the first
/// `options.sample` blocks (when not 0), as the planner decides for
/// `options.jobs` workers.
pub(super) fn run<R: Read + Send>(
    plan: &Plan,
    options: &Options,
    choice: &Choice,
    first: Vec<Arc<Block>>,
    source: Blocks<'_, R>,
    sink: &mut impl Sink,
) -> Outcome {
    let (jobs, sample) = (options.jobs.max(1), options.sample);
    let (feed_tx, feed) = sync_channel(QUEUE);
    // Spent blocks, from the merger back to the reading.
    let (spent_tx, spent) = sync_channel(2 * QUEUE);
    let shared = Shared {
        plan,
        options: &options.monitor,
        jobs,
        close: options.close,
        online: options.online.is_some(),
        profile: options.profile,
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
    let workers = choice.layout(plan, jobs);
    if options.profile.is_some() {
        sink.layout(plan, &workers);
    }
    std::thread::scope(|scope| {
        let from_workers = shared.start(scope, workers);
        // The feed is dropped when the merger returns (not after the scope):
        // a reader blocked on sending it a block then wakes and ends.
        let outcome = merge(feed, from_workers, &spent_tx, shared.online, sink);
        // A stream's reader may wait for its writer: it finds the end.
        if let Some(online) = &options.online {
            (online.close)();
        }
        outcome
    })
}

impl<'a, R: Read + Send> Shared<'a, R> {
    /// Starts a worker thread per element of `workers` (each first steps
    /// `replay` blocks without answering), and a thread that only reads
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
        // for the block the holder sends it.
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
            let held = Arc::new(AtomicUsize::new(0));
            threads.push(Some(Thread {
                units,
                options: options.clone(),
                blocks: Input {
                    rx,
                    held: Arc::clone(&held),
                },
                out: found_tx,
            }));
            to_workers.push((tx, held));
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
    /// `replay` blocks first.
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

    /// Reads the next block and sends it to every current worker and to
    /// the merger; when that completes the sample, revises the layout.
    /// False when there are no more blocks, or the merger is gone.
    fn step<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        reading: &mut Reading<'a, R>,
    ) -> bool {
        let block = match reading.first.next() {
            Some(block) => block,
            None => {
                while let Ok(spent) = reading.spent.try_recv() {
                    reading.source.reuse(spent);
                }
                match reading.source.next_block() {
                    Some(block) => Arc::new(block),
                    None => return false,
                }
            }
        };
        let more = reading.first.len() > 0 || (block.end.is_none() && !reading.source.done());
        if reading.running.is_some() {
            reading.kept.push(Arc::clone(&block));
        }
        for (tx, held) in &reading.to {
            // A worker that is gone failed: the merger finds out.
            held.fetch_add(1, Ordering::Relaxed);
            let _ = tx.send(Arc::clone(&block));
        }
        if reading.merger.send(Feed::Block(block)).is_err() {
            return false;
        }
        if reading.kept.len() == reading.sample
            && let Some(running) = reading.running.take()
        {
            let kept = std::mem::take(&mut reading.kept);
            let better = more
                .then(|| running.revised(self.plan, self.jobs, &kept))
                .flatten();
            if let Some(better) = better {
                let workers = better.layout(self.plan, self.jobs);
                let (threads, from) = self.wire(reading, workers, kept.len());
                // Started with the reading locked: their replay is sent
                // before it is unlocked.
                self.launch(scope, threads, kept.len());
                for block in &kept {
                    for (tx, held) in &reading.to {
                        held.fetch_add(1, Ordering::Relaxed);
                        let _ = tx.send(Arc::clone(block));
                    }
                }
                if reading.merger.send(Feed::Switch(from)).is_err() {
                    return false;
                }
            }
        }
        more
    }

    /// The next block for the worker whose input is `blocks`: one already
    /// sent to it, else one it reads itself (unless another thread reads
    /// one meanwhile), then more while another worker is short of blocks
    /// ([`AHEAD`]); `None` when its input has ended.
    fn next<'scope>(
        &'scope self,
        scope: &'scope Scope<'scope, '_>,
        blocks: &Input,
    ) -> Option<Arc<Block>> {
        let mut wait = WAIT;
        loop {
            if let Some(sent) = blocks.waiting() {
                return sent;
            }
            let mut input = match self.input.try_lock() {
                Ok(input) => input,
                Err(TryLockError::Poisoned(e)) => e.into_inner(),
                // Whoever reads sends this worker the block (or ends its
                // input): wait for it. Not for ever: the holder may not read
                // (it found a block of its own after all, then ended, as
                // when the merger stops the run), and then this thread must.
                // (A stream's reader may wait for its writer for long: then
                // this thread looks less and less often.)
                Err(TryLockError::WouldBlock) => match blocks.rx.recv_timeout(wait) {
                    Ok(block) => return Some(blocks.took(block)),
                    Err(RecvTimeoutError::Disconnected) => return None,
                    Err(RecvTimeoutError::Timeout) => {
                        if self.online {
                            wait = (wait * 2).min(STREAM_WAIT);
                        }
                        continue;
                    }
                },
            };
            // Blocks are only sent with the reading locked: empty now, the
            // input stays empty unless this thread reads.
            if let Some(sent) = blocks.waiting() {
                return sent;
            }
            let reading = input.as_mut()?;
            let mut read = 0;
            loop {
                if !self.step(scope, reading) {
                    // Closes every input.
                    *input = None;
                    break;
                }
                read += 1;
                // Not past what the channels hold: a send must not wait
                // for a worker while the reading is locked.
                let short = (reading.to.iter())
                    .filter(|(_, held)| !Arc::ptr_eq(held, &blocks.held))
                    .any(|(_, held)| held.load(Ordering::Relaxed) < AHEAD);
                // A stream reads one block at a time: the next may wait for
                // its writer, and the block read must be monitored (and its
                // verdicts shown) meanwhile.
                if !short || read >= QUEUE - 1 || self.online {
                    break;
                }
            }
        }
    }

    /// A thread that only reads (beside a layout with fewer workers than
    /// jobs): block after block, until the trace or the merger ends.
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
    /// blocks without answering, then answers every block with a
    /// [`Found`] (the first answer with what it found in the replay),
    /// until the blocks end, an error, or the merger is gone.
    ///
    /// An error while replaying (one the previous layout's workers did not
    /// meet, as a monitor that sees more values may run out of codes where a
    /// slice does not) is reported at the first block it answers.
    fn work<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>, thread: Thread, replay: usize) {
        let Thread {
            units,
            options,
            blocks,
            out,
        } = thread;
        // The monitors, or why they cannot go on (they could not be built,
        // or refused an event of the replay).
        let mut worker = Worker::new(units, &options);
        if let (Ok(w), Some(every)) = (&mut worker, self.profile) {
            w.sampling(every);
        }
        let mut carried: Option<Found> = None;
        let mut k = 0;
        while let Some(block) = self.next(scope, &blocks) {
            let replaying = k < replay;
            k += 1;
            match &mut worker {
                Ok(w) => {
                    let mut found = w.process(&block);
                    let last = block.last;
                    if last {
                        w.finish(self.close && block.end.is_none(), &mut found);
                    }
                    // Let go of it before answering: the merger recycles it.
                    drop(block);
                    if replaying {
                        if let Some((_, _, e)) = found.error {
                            worker = Err(e);
                        } else {
                            match &mut carried {
                                Some(c) => c.absorb(found),
                                None => carried = Some(found),
                            }
                        }
                        continue;
                    }
                    if let Some(mut c) = carried.take() {
                        c.absorb(found);
                        found = c;
                    }
                    let stop = found.error.is_some() || last;
                    if out.send(found).is_err() || stop {
                        return;
                    }
                }
                Err(_) if replaying => {}
                Err(error) => {
                    // At the first event answered for; at event 1 when the
                    // monitors could not be built, as a sequential run fails
                    // before it reads any.
                    let first = block.events.first().filter(|_| replay > 0);
                    let (number, line) = first.map_or((1, 0), |e| (e.number, e.line));
                    let _ = out.send(Found {
                        error: Some((number, line, error.clone())),
                        finished: true,
                        ..Found::default()
                    });
                    return;
                }
            }
        }
    }
}

/// A worker's input: the blocks sent to it, and how many of them it has
/// not taken yet (which the reading weighs: [`AHEAD`]).
struct Input {
    rx: Receiver<Arc<Block>>,
    held: Arc<AtomicUsize>,
}

impl Input {
    /// A block already sent (`Some(None)` once the input has ended);
    /// `None` if none is waiting.
    fn waiting(&self) -> Option<Option<Arc<Block>>> {
        match self.rx.try_recv() {
            Ok(block) => Some(Some(self.took(block))),
            Err(TryRecvError::Disconnected) => Some(None),
            Err(TryRecvError::Empty) => None,
        }
    }

    /// `block`, received: one fewer held.
    fn took(&self, block: Arc<Block>) -> Arc<Block> {
        // Counted up before it was sent.
        self.held.fetch_sub(1, Ordering::Relaxed);
        block
    }
}

/// The merger: per block, the current workers' answers merged, and the
/// events handed on to `sink`; on a stream (`online`), [`Sink::waiting`]
/// before it waits for the next block.
fn merge(
    feed: Receiver<Feed>,
    mut from_workers: Vec<Receiver<Found>>,
    spent: &SyncSender<Block>,
    online: bool,
    sink: &mut impl Sink,
) -> Outcome {
    let mut merger = Merger::new(from_workers.len());
    loop {
        let item = match feed.try_recv() {
            Ok(item) => item,
            Err(TryRecvError::Disconnected) => break,
            Err(TryRecvError::Empty) => {
                if online {
                    sink.waiting();
                }
                match feed.recv() {
                    Ok(item) => item,
                    Err(_) => break,
                }
            }
        };
        match item {
            Feed::Switch(workers) => {
                merger.switch(workers.len());
                from_workers = workers;
            }
            Feed::Block(block) => {
                // A worker that ended without an answer failed.
                let found = from_workers.iter().map(|rx| rx.recv().ok());
                let go_on = merger.block(block, found, sink);
                // Back to the reader, unless a worker still holds it (or the
                // reader has enough).
                for block in merger.spent() {
                    if let Ok(block) = Arc::try_unwrap(block) {
                        let _ = spent.try_send(block);
                    }
                }
                if !go_on {
                    break;
                }
            }
        }
    }
    merger.outcome
}

