//! Scale simulation: the work of one worker of a run with many slices,
//! measured alone on this thread (for `benches/parallel_sim.rs`: what a
//! machine with more cores than this one would do per core).

use std::io::Read;
use std::time::{Duration, Instant};

use super::distribute;
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
    /// Monitoring time (reading the trace excluded as far as possible: the
    /// clock runs only around the monitor steps).
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

/// Runs worker `worker` of a run of `plan` on `jobs` workers over the trace,
/// alone, and measures it. `jobs` is the number of slices of every sliced
/// property; the run has fewer workers when nothing is sliced. With `step`
/// false the worker only reads and routes the events (which of its units
/// receives each), without monitoring them: the cost that a run with a
/// router upstream does not charge to the worker.
pub fn simulate_worker<R: Read>(
    plan: &Plan,
    mut reader: TraceReader<R>,
    options: &MonitorOptions,
    jobs: usize,
    worker: usize,
    step: bool,
) -> Result<WorkerStats, SimError> {
    let mut workers = distribute(plan, jobs);
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
    while let Some(e) = reader.next_event().map_err(SimError::Trace)? {
        let mut fields: Vec<&[u8]> = Vec::with_capacity(8);
        fields.push(e.name);
        fields.extend(e.args());
        let start = Instant::now();
        for (m, route) in &mut monitors {
            let delivered = route.delivers(&fields);
            if delivered {
                stats.delivered += 1;
            } else {
                stats.ticks += 1;
            }
            if !step {
                continue;
            }
            let mut violations = 0;
            route
                .step(m, delivered, &fields, e.time, |_| violations += 1)
                .map_err(SimError::Monitor)?;
            stats.violations += violations;
        }
        stats.monitoring += start.elapsed();
    }
    Ok(stats)
}
