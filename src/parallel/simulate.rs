//! Scale simulation: the work of one worker of a run with many slices, over
//! a trace held in memory, measured alone on this thread (for
//! `benches/parallel_sim.rs`: what a machine with more cores than this one
//! would do per core).

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use super::block::Block;
use super::read::{Blocks, names};
use super::route::Route;
use super::worker::{Unit, step_once, step_repeats};
use super::{Stop, planner};
use crate::plan::Plan;
use crate::runtime::{Monitor, MonitorOptions, StepError};
use crate::trace::{TraceError, TraceReader};

/// What one worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerStats {
    /// Events delivered as they are (summed over its monitors).
    pub delivered: u64,
    /// Ticks (summed over its monitors).
    pub ticks: u64,
    /// Violations found (with repeats across monitors).
    pub violations: u64,
    /// Monitoring time: set by the caller, who times the run.
    pub monitoring: Duration,
}

/// Why a simulation failed.
#[derive(Debug)]
pub enum SimError {
    /// Reading the trace.
    Trace(TraceError),
    /// The monitor.
    Monitor(StepError),
}

/// The whole trace, read into memory once (so that simulated workers do not
/// each pay for reading it).
pub struct Events {
    blocks: Vec<Arc<Block>>,
}

impl Events {
    /// Reads every event of `reader` (named with their indices in `plan`'s
    /// events, as the routes number them). An event of a known name with
    /// another arity, or a trace error, is an error.
    pub fn read<R: Read>(plan: &Plan, reader: TraceReader<R>) -> Result<Events, SimError> {
        let names = names(plan);
        let stop = || false;
        let mut source = Blocks::new(reader, &names, &stop);
        let mut blocks = Vec::new();
        while let Some(mut block) = source.next_block() {
            match block.end.take() {
                None | Some(Stop::Interrupted | Stop::ByCaller) => {}
                Some(Stop::Trace(e)) => return Err(SimError::Trace(e)),
                Some(Stop::Refused { error, .. }) => return Err(SimError::Monitor(error)),
            }
            blocks.push(Arc::new(block));
        }
        Ok(Events { blocks })
    }

    /// How many events there are (each repeat counted).
    pub fn len(&self) -> u64 {
        let events = self.blocks.iter().flat_map(|b| &b.events);
        events.map(|ev| 1 + ev.repeats).sum()
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Arc<Block>] {
        &self.blocks
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.blocks.iter().all(|b| b.events.is_empty())
    }
}

/// One event a worker steps: event `event` of its input, for its unit
/// `unit`, delivered as it is or as a tick.
#[derive(Clone, Copy, Debug)]
struct Entry {
    event: u32,
    unit: u32,
    delivered: bool,
}

/// The events one worker of a run steps, in trace order, copied as a
/// router upstream of it would send them: every event it receives, and the
/// ticks it cannot skip (all of them for a unit that is not tick invariant,
/// the first event otherwise). Skipped ticks are not sent; the worker
/// reports a standing violation over them itself.
pub struct Routed {
    units: Vec<Unit>,
    /// The events sent to the worker.
    input: Block,
    entries: Vec<Entry>,
    /// The events and ticks of [`WorkerStats`], as routed.
    stats: WorkerStats,
    /// The number of events in the whole trace.
    total: u64,
}

impl Routed {
    /// What the worker receives: events delivered and ticks (skipped ones
    /// included), with no monitoring time.
    pub fn stats(&self) -> &WorkerStats {
        &self.stats
    }

    /// How many events and ticks the worker steps, over its units (the
    /// ticks it skips are not among them).
    pub fn stepped(&self) -> usize {
        self.entries.len()
    }
}

/// Routes the events to worker `worker` of a run of `plan` on `jobs`
/// workers. The workers are laid out as a run's are on a long trace
/// ([`planner::layout_of_long_trace`]): `jobs` is the number of slices of
/// every sliced property; the run has fewer workers when nothing is sliced.
pub fn route_worker(plan: &Plan, events: &Events, jobs: usize, worker: usize) -> Routed {
    let mut workers = planner::layout_of_long_trace(plan, jobs, &events.blocks);
    let units = if worker < workers.len() {
        workers.swap_remove(worker)
    } else {
        Vec::new()
    };
    let mut stats = WorkerStats::default();
    let mut input = Block::default();
    let mut entries = Vec::new();
    // Per unit: whether it has had its first event (after which a tick
    // invariant unit skips the events it does not receive).
    let mut started = vec![false; units.len()];
    for block in &events.blocks {
        for ev in &block.events {
            let mut sent = false;
            for (u, (unit, started)) in units.iter().zip(&mut started).enumerate() {
                let route = &unit.route;
                let delivered = route.delivers_named(ev.name, |k| block.arg(ev, k));
                if delivered {
                    stats.delivered += 1 + ev.repeats;
                } else {
                    stats.ticks += 1 + ev.repeats;
                }
                let skipped = !delivered && route.skip_ticks && *started;
                *started = true;
                if skipped {
                    continue;
                }
                if !sent {
                    input.push_copy(block, ev);
                    sent = true;
                }
                entries.push(Entry {
                    event: input.events.len() as u32 - 1,
                    unit: u as u32,
                    delivered,
                });
            }
        }
    }
    Routed {
        units,
        input,
        entries,
        stats,
        total: events.len(),
    }
}

/// Steps the events `routed` to one worker through fresh monitors of its
/// units: what it received and the violations it found (a standing
/// violation counted at each tick it skipped). The caller times it.
pub fn step_worker(routed: &Routed, options: &MonitorOptions) -> Result<WorkerStats, SimError> {
    let mut monitors = Vec::with_capacity(routed.units.len());
    for u in &routed.units {
        let m = Monitor::new(u.plan.clone(), options.clone()).map_err(SimError::Monitor)?;
        monitors.push(m);
    }
    // Per unit: the number of the last event it stepped, with its repeats.
    let mut last: Vec<Option<u64>> = vec![None; monitors.len()];
    let mut stats = routed.stats.clone();
    let mut fields: Vec<&[u8]> = Vec::with_capacity(8);
    let skipped = |m: &Monitor, route: &Route, from: Option<u64>, to: u64| {
        // Ticks skipped after event `from` (and its repeats), before `to`.
        let gap = from.map_or(0, |f| to.saturating_sub(f + 1));
        let standing = m.violated().iter().filter(|&&i| route.as_before[i]);
        gap * standing.count() as u64
    };
    let input = &routed.input;
    for entry in &routed.entries {
        let ev = &input.events[entry.event as usize];
        let u = entry.unit as usize;
        let (m, route) = (&mut monitors[u], &routed.units[u].route);
        stats.violations += skipped(m, route, last[u], ev.number);
        last[u] = Some(ev.number + ev.repeats);
        input.fields_of(ev, &mut fields);
        let mut violations = 0;
        step_once(route, m, entry.delivered, &fields, ev, |_| {
            violations += 1
        })
        .and_then(|()| match ev.repeats {
            0 => Ok(()),
            _ => step_repeats(route, m, entry.delivered, &fields, ev, |_, _| {
                violations += 1
            })
            .map(|_| ()),
        })
        .map_err(SimError::Monitor)?;
        stats.violations += violations;
    }
    for (u, m) in monitors.iter().enumerate() {
        stats.violations += skipped(m, &routed.units[u].route, last[u], routed.total + 1);
    }
    Ok(stats)
}

/// [`route_worker`], then [`step_worker`].
pub fn simulate_worker(
    plan: &Plan,
    events: &Events,
    options: &MonitorOptions,
    jobs: usize,
    worker: usize,
) -> Result<WorkerStats, SimError> {
    step_worker(&route_worker(plan, events, jobs, worker), options)
}
