//! Scale simulation: the work of one worker of a run with many slices, over
//! a trace held in memory, measured alone on this thread (for
//! `benches/parallel_sim.rs`: what a machine with more cores than this one
//! would do per core).

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use super::batch::{Batch, Batches, End, names};
use super::distribute_as_run;
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
    batches: Vec<Arc<Batch>>,
}

impl Events {
    /// Reads every event of `reader` (named with their indices in `plan`'s
    /// events, as the routes number them). An event of a known name with
    /// another arity, or a trace error, is an error.
    pub fn read<R: Read>(plan: &Plan, reader: TraceReader<R>) -> Result<Events, SimError> {
        let arity = names(plan);
        let stop = || false;
        let mut source = Batches::new(reader, &arity, &stop);
        let mut batches = Vec::new();
        while let Some(mut batch) = source.next_batch() {
            match batch.end.take() {
                None | Some(End::Interrupted) => {}
                Some(End::Trace(e)) => return Err(SimError::Trace(e)),
                Some(End::Arity { error, .. }) => return Err(SimError::Monitor(error)),
            }
            batches.push(Arc::new(batch));
        }
        Ok(Events { batches })
    }

    /// How many events there are (each repeat counted).
    pub fn len(&self) -> u64 {
        let events = self.batches.iter().flat_map(|b| &b.events);
        events.map(|ev| 1 + ev.repeats).sum()
    }

    /// The batches, in order.
    pub fn batches(&self) -> &[Arc<Batch>] {
        &self.batches
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.batches.iter().all(|b| b.events.is_empty())
    }
}

/// Runs worker `worker` of a run of `plan` on `jobs` workers over the
/// events, alone, and counts what it received. The workers are laid out as
/// a run's are on a long trace ([`distribute_as_run`]): `jobs` is the
/// number of slices of every sliced property; the run has fewer workers
/// when nothing is sliced. With `step` false the worker only routes the
/// events (which of its units receives each, and which ticks it skips),
/// without monitoring them: the cost that a run with a router upstream
/// does not charge to the worker. The caller times it.
pub fn simulate_worker(
    plan: &Plan,
    events: &Events,
    options: &MonitorOptions,
    jobs: usize,
    worker: usize,
    step: bool,
) -> Result<WorkerStats, SimError> {
    let mut workers = distribute_as_run(plan, jobs, &events.batches);
    let units = if worker < workers.len() {
        workers.swap_remove(worker)
    } else {
        Vec::new()
    };
    let mut monitors = Vec::new();
    for u in units {
        let m = Monitor::new(u.plan, options.clone()).map_err(SimError::Monitor)?;
        monitors.push((m, u.route));
    }
    let mut stats = WorkerStats::default();
    let mut fields: Vec<&[u8]> = Vec::with_capacity(8);
    // Per unit: whether it has had its first event (after which a tick
    // invariant unit skips the events it does not receive).
    let mut started = vec![false; monitors.len()];
    for batch in &events.batches {
        for ev in &batch.events {
            batch.fields_of(ev, &mut fields);
            for ((m, route), started) in monitors.iter_mut().zip(&mut started) {
                let delivered = route.delivers_named(ev.name, |k| batch.arg(ev, k));
                if delivered {
                    stats.delivered += 1 + ev.repeats;
                } else {
                    stats.ticks += 1 + ev.repeats;
                }
                // A skipped tick (one a router upstream would not even send)
                // is the same decision with or without stepping; only one
                // while a violation stands (its verdict is reported at each
                // tick) is a step.
                let skipped = !delivered && route.skip_ticks && *started;
                *started = true;
                if !step || (skipped && m.violated().is_empty()) {
                    continue;
                }
                let mut violations = 0;
                route
                    .step(m, delivered, &fields, ev.time, |_| violations += 1)
                    .and_then(|()| match ev.repeats {
                        0 => Ok(()),
                        n => route.step_repeats(m, delivered, &fields, ev.time, n, |_, _| {
                            violations += 1
                        }),
                    })
                    .map_err(SimError::Monitor)?;
                stats.violations += violations;
            }
        }
    }
    Ok(stats)
}
