//! Cluster mode (cargo feature `cluster`): the slicing plan of a parallel
//! run ([`crate::parallel`]) on Timely Dataflow workers, in one process or
//! several (docs/PARALLEL.md).
//!
//! Every worker monitors its units (slices of the sliceable properties, or
//! whole properties: [`distribute`](crate::parallel::distribute) over all
//! the workers of all the processes). The trace goes in pieces to every
//! worker, stamped with their position, and each worker steps its monitors
//! through the pieces in that order, a delivered event or a tick per event,
//! so that every slice keeps the step structure of the whole trace. The
//! verdicts go to worker 0 (of process 0), which hands each piece with its
//! verdicts, in order, to the caller's callback on the main thread.
//!
//! Where the trace comes from ([`InputMode`]):
//! - [`InputMode::Shared`]: process 0 reads the whole trace;
//! - [`InputMode::PerProcess`]: process `p` reads part `p` of the trace, the
//!   parts being consecutive (the trace is their concatenation in process
//!   order). Events are numbered through the parts.

mod flow;
mod net;
pub mod piece;

use std::any::Any;
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use hashbrown::HashMap;
use timely::communication::allocator::AllocatorBuilder;

use crate::parallel::{Args, EventView};
use crate::plan::Plan;
use crate::runtime::MonitorOptions;
use crate::trace::TraceReader;
pub use piece::{Fault, FaultKind, Piece};

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

/// Why a cluster run ended before the end of the trace.
#[derive(Clone, Debug)]
pub enum Stop {
    /// A fault in some process's input or monitors.
    Fault(Fault),
    /// The callback asked to stop.
    ByCaller,
}

/// The end of a cluster run, as seen by this process.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Why it ended early, if it did (process 0 only).
    pub stopped: Option<Stop>,
    /// Garbage collections and codes released, summed over all monitors.
    pub gc: (u64, u64),
    /// Whether this process printed the verdicts (process 0).
    pub printer: bool,
}

/// A piece with its verdicts, from worker 0 to the main thread.
struct Delivery {
    piece: Piece,
    /// `(event index in the piece, property)`, sorted.
    violated: Vec<(u32, u32)>,
    /// The first event a monitor refused, with the error.
    refused: Option<(u32, String)>,
    gc: (u64, u64),
}

/// What every worker of this process shares.
struct Shared {
    plan: Plan,
    options: MonitorOptions,
    config: Config,
    arity: HashMap<Box<[u8]>, usize>,
    source: Mutex<Option<Source>>,
    stop: Box<dyn Fn() -> bool + Send + Sync>,
    to_main: Mutex<Option<SyncSender<Delivery>>>,
}

/// Monitors the trace against `plan` on the workers `config` describes.
/// `source` is this process's input (process 0's in the shared mode, every
/// process's in the per-process mode). On process 0, calls `on_event` for
/// every event in order with the properties violated at it, as
/// [`parallel::run`](crate::parallel::run) does; `on_event` returns false to
/// stop. `stop` is checked by the readers before each event (Ctrl-C).
/// Returns an error when timely cannot start (e.g. a host is unreachable)
/// or a worker failed.
pub fn run(
    plan: &Plan,
    source: Option<Source>,
    config: &Config,
    options: &MonitorOptions,
    stop: Box<dyn Fn() -> bool + Send + Sync>,
    mut on_event: impl FnMut(&EventView<'_>, &[usize]) -> bool,
) -> Result<Outcome, String> {
    let (tx, rx) = sync_channel(4);
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    let shared = Arc::new(Shared {
        plan: plan.clone(),
        options: options.clone(),
        config: config.clone(),
        arity: plan
            .events
            .iter()
            .map(|(e, &n)| (e.as_bytes().into(), n))
            .collect(),
        source: Mutex::new(source),
        stop: Box::new(move || flag.load(Ordering::Relaxed) || stop()),
        to_main: Mutex::new((config.process == 0).then_some(tx)),
    });
    let (builders, others) = config.allocators()?;
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| flow::work(worker, &shared),
    )?;
    let mut outcome = Outcome {
        printer: config.process == 0,
        ..Outcome::default()
    };
    let mut number = 0u64;
    let mut violated: Vec<usize> = Vec::new();
    // Lines count through the parts, as in their concatenation.
    let (mut part, mut offset, mut last_line) = (0, 0, 0);
    'deliveries: for d in &rx {
        if d.piece.part != part {
            (part, offset) = (d.piece.part, offset + last_line);
        }
        outcome.gc = d.gc;
        let mut next = 0;
        let mut fields: Vec<&[u8]> = Vec::new();
        for (index, ev) in d.piece.events.iter().enumerate() {
            let index = index as u32;
            if let Some((at, message)) = &d.refused
                && *at == index
            {
                outcome.stopped = Some(Stop::Fault(Fault {
                    source: d.piece.source.clone(),
                    line: ev.line,
                    kind: FaultKind::Monitor(message.clone()),
                }));
                break 'deliveries;
            }
            violated.clear();
            while next < d.violated.len() && d.violated[next].0 == index {
                violated.push(d.violated[next].1 as usize);
                next += 1;
            }
            number += 1;
            last_line = ev.line;
            d.piece.fields_of(ev, &mut fields);
            let view = EventView {
                number,
                line: offset + ev.line,
                time: ev.time,
                name: fields[0],
                name_index: None,
                repeats: 0,
                args: Args::from_fields(&fields[1..]),
                bytes_read: d.piece.bytes_read,
                timed: d.piece.timed,
            };
            if !on_event(&view, &violated) {
                outcome.stopped = Some(Stop::ByCaller);
                break 'deliveries;
            }
        }
        if let Some(fault) = d.piece.fault {
            outcome.stopped = Some(Stop::Fault(fault));
            break;
        }
    }
    // Stop this process's reader (when the printer stopped early), stop listening (the printer's sends fail from now
    // on), and wait for the workers.
    if outcome.printer {
        cancelled.store(true, Ordering::Relaxed);
    }
    drop(rx);
    for result in guards.join() {
        result.map_err(|e| format!("a worker failed: {e}"))?;
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests;
