//! Cluster mode (cargo feature `cluster`): the parallel core
//! ([`crate::parallel`]) scheduled on Timely Dataflow workers, in one
//! process or several (docs/PARALLEL.md).
//!
//! Every worker monitors its units (slices of the sliceable properties, or
//! whole properties, as the planner lays them out over all the workers of
//! all the processes: [`planner::layout_without_sample`]). The trace goes
//! in blocks to every worker, stamped with their position, and each worker
//! steps the core's [`Worker`](crate::parallel::Worker) through the blocks
//! in that order (a delivered event, a tick or a skipped tick per event, a
//! run of repeats at once), so that every slice keeps the step structure
//! of the whole trace. The answers go to worker 0 (of process 0), which
//! hands each block with them, in order, to the main thread, where the
//! core's [`Merger`] hands the events on.
//!
//! [`planner::layout_without_sample`]: crate::parallel::planner::layout_without_sample
//!
//! Where the trace comes from ([`InputMode`]):
//! - [`InputMode::Shared`]: process 0 reads the whole trace;
//! - [`InputMode::PerProcess`]: process `p` reads part `p` of the trace, the
//!   parts being consecutive (the trace is their concatenation in process
//!   order). Events are numbered through the parts.

mod flow;
mod net;

use std::any::Any;
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use timely::communication::allocator::AllocatorBuilder;

use crate::parallel::{Block, EventView, Found, Merger, Options, Outcome, Sink, Stop};
use crate::plan::Plan;
use crate::trace::TraceReader;

/// Where the trace comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// Process 0 reads the whole trace and sends it to every worker.
    Shared,
    /// Each process reads its own part: the parts are consecutive pieces of
    /// the trace, in process order.
    PerProcess,
}

/// Timely's process configuration and the input mode.
#[derive(Clone, Debug)]
pub struct Config {
    /// Worker threads per process.
    pub workers: usize,
    /// This process's index, of `hosts.len()` (or of 1 when empty).
    pub process: usize,
    /// The `host:port` of every process, in process order (empty: one
    /// process).
    pub hosts: Vec<String>,
    /// Where the trace comes from.
    pub input: InputMode,
}

impl Config {
    /// Timely's allocators for this process's workers (connected to the
    /// other processes), and the guard of the communication threads.
    fn allocators(&self) -> Result<(Vec<AllocatorBuilder>, Box<dyn Any + Send>), String> {
        use timely::CommunicationConfig as C;
        if self.hosts.len() > 1 {
            return net::connect(&self.hosts, self.process, self.workers.max(1));
        }
        let config = if self.workers > 1 {
            C::Process(self.workers)
        } else {
            C::Thread
        };
        config.try_build()
    }
}

/// The addresses of `processes` processes in a host file's `text`: one
/// `host:port` per line, blank lines and `#` comments skipped; the first
/// `processes` lines are used.
pub fn parse_hosts(text: &str, processes: usize) -> Result<Vec<String>, String> {
    let hosts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(processes)
        .map(str::to_owned)
        .collect();
    if hosts.len() < processes {
        return Err(format!(
            "{} processes need {processes} addresses, the host file has {}",
            processes,
            hosts.len()
        ));
    }
    if let Some(bad) = hosts.iter().find(|h| !h.contains(':')) {
        return Err(format!("`{bad}` is not an address of the form host:port"));
    }
    Ok(hosts)
}

/// A trace input of this process.
pub struct Source {
    /// The reader.
    pub reader: TraceReader<File>,
    /// Its name in messages.
    pub name: String,
}

/// A block with every worker's answer to it, from worker 0 to the main
/// thread.
struct Delivery {
    block: Block,
    found: Vec<Option<Found>>,
}

/// The event numbers (and lines) of the parts of the trace, made to run
/// through the parts as in their concatenation: each block is taken in
/// trace order, and a part's numbers follow the last of the part before.
#[derive(Debug, Default)]
struct Numbering {
    part: u32,
    numbers: u64,
    lines: u64,
    last: (u64, u64),
}

impl Numbering {
    /// Numbers `block`, the next one in trace order; its lines too when
    /// `lines`.
    fn apply(&mut self, block: &mut Block, lines: bool) {
        if block.part != self.part {
            self.part = block.part;
            (self.numbers, self.lines) = self.last;
        }
        block.renumber(self.numbers, if lines { self.lines } else { 0 });
        if let Some(ev) = block.events.last() {
            self.last = (ev.last(), ev.line + ev.repeats);
        }
    }
}

/// What every worker of this process shares.
struct Shared {
    plan: Plan,
    options: Options,
    config: Config,
    source: Mutex<Option<Source>>,
    stop: Box<dyn Fn() -> bool + Send + Sync>,
    to_main: Mutex<Option<SyncSender<Delivery>>>,
}

/// The end of a cluster run, on process 0: the parallel run's outcome,
/// and when it stopped at an error, the name of the input it was met in.
#[derive(Clone, Debug, Default)]
pub struct Ended {
    /// How the run ended.
    pub outcome: Outcome,
    /// The input of the error that stopped it (a part's file, in the
    /// per-process mode).
    pub source: Option<String>,
}

/// Monitors the trace against `plan` on the workers `config` describes.
/// `source` is this process's input (process 0's in the shared mode, every
/// process's in the per-process mode). On process 0, hands every event in
/// order to `sink`, as [`crate::parallel::run`] does. `stop` is checked by
/// the readers before each event (Ctrl-C). Returns an error when timely
/// cannot start (e.g. a host is unreachable) or a worker failed.
pub fn run(
    plan: &Plan,
    source: Option<Source>,
    config: &Config,
    options: &Options,
    stop: Box<dyn Fn() -> bool + Send + Sync>,
    sink: &mut impl Sink,
) -> Result<Ended, String> {
    let (tx, rx) = sync_channel(4);
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    let shared = Arc::new(Shared {
        plan: plan.clone(),
        options: options.clone(),
        config: config.clone(),
        source: Mutex::new(source),
        stop: Box::new(move || flag.load(Ordering::Relaxed) || stop()),
        to_main: Mutex::new((config.process == 0).then_some(tx)),
    });
    let (builders, others) = config.allocators()?;
    let peers = builders.len() * config.hosts.len().max(1);
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| flow::work(worker, &shared),
    )?;
    let mut merger = Merger::new(peers);
    let mut numbering = Numbering::default();
    // The parts met so far: their first event number and their input.
    let mut parts: Vec<(u64, String)> = Vec::new();
    let mut counted = Counted { sink, last: 0 };
    let mut ended_in = None;
    for d in &rx {
        let mut block = d.block;
        numbering.apply(&mut block, true);
        if parts.last().is_none_or(|p| p.1 != block.source) {
            let first = block.events.first().map_or(counted.last + 1, |e| e.number);
            parts.push((first, block.source.clone()));
        }
        if block.end.is_some() {
            ended_in = Some(block.source.clone());
        }
        if !merger.block(Arc::new(block), d.found, &mut counted) {
            break;
        }
    }
    let outcome = merger.outcome;
    // An error a worker met: in the part of the event after the last one
    // handed on.
    let source = match &outcome.stopped {
        Some(Stop::Trace(_) | Stop::Refused { .. }) => ended_in.or_else(|| {
            let at = counted.last + 1;
            (parts.iter().rev())
                .find(|p| p.0 <= at)
                .map(|p| p.1.clone())
        }),
        _ => None,
    };
    // Stop this process's reader (when the printer stopped early), stop
    // listening (the printer's sends fail from now on), and wait for the
    // workers.
    if config.process == 0 {
        cancelled.store(true, Ordering::Relaxed);
    }
    drop(rx);
    for result in guards.join() {
        result.map_err(|e| format!("a worker failed: {e}"))?;
    }
    Ok(Ended { outcome, source })
}

/// A sink that notes the last event it was handed.
struct Counted<'a, S: Sink> {
    sink: &'a mut S,
    last: u64,
}

impl<S: Sink> Sink for Counted<'_, S> {
    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
        self.last = ev.number + ev.repeats;
        self.sink.event(ev, violated)
    }

    fn ended(&mut self) {
        self.sink.ended();
    }

    fn undecided(&mut self, ev: &EventView<'_>, properties: &[usize]) -> bool {
        self.last = ev.number;
        self.sink.undecided(ev, properties)
    }
}

#[cfg(test)]
mod tests;
