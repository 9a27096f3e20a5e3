//! Time segments: a trace file split at line boundaries into stretches,
//! one per worker, each monitored whole. A segment's worker starts from an
//! empty state, a *warm-up* before its segment: it steps the last events
//! of the segment before (reporting nothing), or, where that reaches the
//! same state, only the last occurrence of each state record of the
//! whole file before its segment ([`compact`]), and then takes a
//! [`crate::runtime::Snapshot`] of its monitor. When the
//! segment before it ends, its state there (the monitor that reached it
//! from the start of the trace) is compared with that snapshot, in values:
//! if they agree, the two monitors give the same verdicts on the rest of
//! the trace, and the segment's verdicts are taken as they are; if not (a
//! value that the warm-up did not see again, say), they are dropped and
//! the monitor that holds the true state steps the segment itself. Either
//! way the output is that of the sequential run. A segment whose worker is
//! far from its end when the one before ends has its end taken over by
//! the monitor freed then ([`cut`]); the merger is [`run()`]'s.
//!
//! It pays where slicing cannot split the work evenly (a property of two
//! variables whose events are each sent to every slice of the other, as
//! `access(u, f)` with logins per user and opens per file), on a long
//! file: the sequential cost is split `jobs` ways plus the warm-ups. It
//! needs a plain CSV file without quotes (a line boundary is then a record
//! boundary) and without time stamps, and properties whose state is their
//! summaries over values (no time bounds, seen values or comparisons).

mod compact;
mod cut;
mod direct;
mod layout;
mod pieces;
mod points;
mod run;
mod skim;
#[cfg(test)]
mod tests;
mod touch;
mod warm;

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

#[cfg(any(test, feature = "internals"))]
pub use layout::layout;
pub use compact::compactable;
pub use layout::{Layout, layout_compact, layout_warm, range, scan};
pub use points::{PointsLayout, points_layout};
pub use run::run;
use run::{agree, new_worker};
pub use warm::warm_up_events;

use super::block::Block;
use super::read::names;
use super::for_monitors;
use crate::plan::Plan;
use crate::runtime::{Monitor, MonitorOptions};
use crate::trace::TraceReader;

/// Pieces a worker hands the merger at once.
const BUNCH: usize = 64;

/// The smallest file split into segments (smaller ones are sliced): about
/// 700,000 events of the `gen_access.py` logs, whose warm-up of a thirtieth
/// is already a few times the 1 to 2 MB of the FMSD logs, on which
/// slicing's threads cost less than the warm-ups.
pub const MIN_BYTES: u64 = 8 << 20;

/// The least size of a file cut into time segments whose warm-up the
/// sample cannot size (a property with rules: the first blocks judge it
/// instead): 32 MB. The first blocks of telemetry's 12 MB trace T1 agree,
/// yet its segments ran 20% slower than one monitor beside a reading
/// thread (0.06 s against 0.05 s, 20 MB against 15).
pub const MIN_BYTES_UNSIZED: u64 = 32 << 20;

/// How segment readers are made: the session's reader on a stretch.
pub type MakeReader<'a> = dyn Fn(io::Take<File>) -> TraceReader<io::Take<File>> + Sync + 'a;

/// Blocks of a file's start on which [`warm_up_agrees`] judges.
pub const JUDGED_BLOCKS: usize = 4;

/// Whether warm-ups can be expected to reach the state of the monitor that
/// steps from the start of the file, judged on its first blocks, `sample`:
/// a monitor steps [`JUDGED_BLOCKS`] of them, another (as a warm-up) their
/// second half, and their snapshots are compared. Where they differ, as
/// where every event of a value flips its state (telemetry's toggles), a
/// segment's verdicts would be dropped at the end of the segment before
/// and its events stepped again: twice the work of one job, for no gain.
/// True when it cannot be judged (a sample of one block, an error).
pub fn warm_up_agrees(plan: &Plan, options: &MonitorOptions, sample: &[Arc<Block>]) -> bool {
    let sample = &sample[..sample.len().min(JUDGED_BLOCKS)];
    let half = sample.len() / 2;
    let options = &for_monitors(options, 1);
    let (Ok(mut whole), Ok(mut warm)) = (new_worker(plan, options), new_worker(plan, options))
    else {
        return true;
    };
    if half == 0 {
        return true;
    }
    for block in sample {
        if whole.process(block).error.is_some() {
            return true;
        }
    }
    let steps = warm_steps(plan);
    let mut first = true;
    for block in &sample[half..] {
        let found = warm.process_where(block, |ev| {
            let step = first || steps.as_ref().is_none_or(|s| s.get(ev.name as usize) == Some(&true));
            first = false;
            step
        });
        if found.error.is_some() {
            return true;
        }
    }
    match (whole.snapshot(), warm.snapshot()) {
        (Some(a), Some(b)) => agree(&a, &b),
        _ => true,
    }
}

/// The share of the cost of stepping an event that reading it takes (about
/// 900 instructions of 4,500 on the `gen_access.py` logs).
const READ_SHARE: f64 = 0.2;

/// What a warm-up that steps only the state events costs beyond their
/// share of the events, as a share of stepping them all: it skims the
/// other lines ([`skim`]: a name lookup each), and a state event costs
/// more to step than the average event (its summaries change: on the
/// `gen_access.py` log of 5,000 users, about 7,300 instructions against
/// 5,500). There a warm-up of 440,000 events, 30% of them state events,
/// executes 963 M instructions, 0.40 of stepping them all: `0.14 + 0.86
/// * 0.30`.
const WARM_SHARE: f64 = 0.14;

/// What a warm-up costs against stepping as many bytes of the trace (see
/// [`layout_warm`]): 1 when it steps every event, otherwise
/// [`WARM_SHARE`] and the steps of the share of the events of `sample`
/// that it steps ([`warm_steps`]).
pub fn warm_up_cost(plan: &Plan, sample: &[Arc<Block>]) -> f64 {
    let Some(steps) = warm_steps(plan) else {
        return 1.0;
    };
    let events = sample.iter().flat_map(|b| b.events.iter());
    let all = events.clone().count();
    let stepped = events
        .filter(|ev| steps.get(ev.name as usize) == Some(&true))
        .count();
    if all == 0 {
        return 1.0;
    }
    WARM_SHARE + (1.0 - WARM_SHARE) * stepped as f64 / all as f64
}

/// The busiest worker's cost in a run of a file of `size` bytes in `jobs`
/// time segments whose warm-ups are `warm` bytes long (at least a
/// thirtieth of the file, as [`layout_warm`] makes them) and
/// cost `cost` times stepping as many bytes ([`warm_up_cost`]), as a share
/// of a sequential run's: every worker gets as much to do, the whole file
/// and the warm-ups split `jobs` ways.
pub fn busiest_cost(size: u64, jobs: usize, warm: u64, cost: f64) -> f64 {
    let size = size.max(1);
    let warm = warm.max(size / layout::WARM_UP).min(layout::MAX_WARM_UP);
    let jobs = jobs.max(1) as f64;
    (1.0 + (jobs - 1.0) * cost * warm as f64 / size as f64) / jobs
}

/// What compacted warm-ups ([`compact`]) cost, in the terms of
/// [`compact_bounds`].
#[derive(Clone, Copy, Debug)]
pub struct CompactCost {
    /// The keys a compacted warm-up of the whole file would meet (the
    /// tuples its state records touch: [`compact::population`]).
    pub population: f64,
    /// The share of them it steps (not those cleared last).
    pub stepped: f64,
    /// The share of its events that are state events.
    pub state: f64,
    /// Bytes per event.
    pub bytes: f64,
}

/// What reading a line costs a compacted warm-up, against stepping it: a
/// name lookup, and for a state event a hash of the line and a look in
/// the records kept (on the `gen_access.py` log of 20,000 users, about
/// 300 instructions a line against 5,700 for a step).
const SCAN_SHARE: f64 = 0.055;

/// What stepping a state record costs a compacted warm-up against the
/// average event, as wall time on two busy cores. Its instructions say 1.4
/// to 1.7 (on the `gen_access.py` logs of 20,000 and 50,000 users): most
/// records bring a value new to the warm-up. But with 1.6 the worker after
/// the cut ended 70-125 ms after the one before it on the 50,000-user log
/// (16 runs, median 121 ms; 60 ms on the 20,000-user one), and with 6.0
/// a median 7 ms after it (the comparison's time), the smaller logs still
/// balanced. The warm-up's own wall time is higher than its instructions
/// say (about 110 ms there against 65 ms: tables grown from empty, values
/// new to the caches), and the segment after the cut steps more slowly
/// than the sample's events (more users logged in): this constant carries
/// both.
const STATE_STEP: f64 = 6.0;

/// What comparing the states at a segment's start costs the merger, per
/// tuple touched before it, against stepping an average event: the true
/// state's snapshot and its comparison with the warm-up's, as codes
/// translated once per value and tuples looked up in sorted arrays (on
/// the `gen_access.py` log of 50,000 users, 3 ms and 7 ms for 49,500
/// values, about 200 ns a value against 650 ns for a step). It runs once
/// the worker before has ended: the segments before the last are that
/// much shorter.
const COMPARE_STEP: f64 = 0.3;

impl CompactCost {
    /// The estimate of the keys of a compacted warm-up of `plan`'s on the
    /// file at `path`, and the share of them stepped
    /// ([`compact::population`]); an error once `called_off` is set.
    pub fn estimate(plan: &Plan, path: &Path, called_off: &AtomicBool) -> io::Result<(f64, f64)> {
        let steps = warm_steps(plan).unwrap_or_default();
        let touches = touch::Touches::of(plan);
        compact::population(path, &names(plan), &steps, &touches, called_off)
    }

    /// The costs of a compacted warm-up of `plan` on a file that starts
    /// with `sample`, whose events take `bytes` bytes on average, with
    /// `population` its [`estimate`](Self::estimate).
    pub fn of(
        plan: &Plan,
        sample: &[Arc<Block>],
        bytes: f64,
        (population, stepped): (f64, f64),
    ) -> Option<CompactCost> {
        let steps = warm_steps(plan)?;
        Some(CompactCost {
            population,
            stepped,
            state: compact::state_share(sample, &steps),
            bytes: bytes.max(1.0),
        })
    }

    /// What the compacted warm-up of a prefix of `prefix` bytes costs, in
    /// bytes of stepped trace: reading it, and stepping the distinct
    /// records that many state events are expected to hold (`N (1 -
    /// exp(-m / N))` of `m` drawn from `N`) and not clear last.
    pub fn warm(&self, prefix: f64) -> f64 {
        let distinct = self.distinct(prefix);
        SCAN_SHARE * prefix + STATE_STEP * self.bytes * distinct * self.stepped
    }

    /// The distinct keys the state records of a prefix of `prefix` bytes
    /// are expected to hold (`N (1 - exp(-m / N))` of `m` drawn from `N`).
    fn distinct(&self, prefix: f64) -> f64 {
        let m = self.state * prefix / self.bytes;
        self.population * -(-m / self.population.max(1.0)).exp_m1()
    }

    /// What comparing the states at the end of a prefix of `prefix` bytes
    /// costs, in bytes of stepped trace ([`COMPARE_STEP`]).
    pub fn compare(&self, prefix: f64) -> f64 {
        COMPARE_STEP * self.bytes * self.distinct(prefix)
    }
}

/// Where a file of `size` bytes is cut into `jobs` time segments with
/// compacted warm-ups that cost `cost`, so that every worker does as much
/// (the first steps its segment; each other reads the file before its
/// segment, steps the records kept, then its segment; at the end of each
/// but the last, the merger compares the states): the bounds (from 0 to
/// `size`), and the busiest worker's cost as a share of a sequential
/// run's. `None` when the warm-ups leave no room for a segment.
pub fn compact_bounds(size: u64, jobs: usize, cost: &CompactCost) -> Option<(Vec<u64>, f64)> {
    let size = size.max(1) as f64;
    let jobs = jobs.max(1);
    // Where the segments end if every worker's cost is `each`.
    let ends = |each: f64| -> Option<Vec<f64>> {
        let mut bounds = vec![0.0];
        for s in 0..jobs {
            let b = *bounds.last()?;
            let warm = if s == 0 { 0.0 } else { cost.warm(b) };
            if warm >= each {
                return None;
            }
            let end = b + each - warm;
            // The comparison at its end, but for the last.
            let compare = if s + 1 < jobs { cost.compare(end) } else { 0.0 };
            bounds.push((end - compare).max(b));
        }
        Some(bounds)
    };
    // The least cost whose segments reach the end of the file.
    let (mut lo, mut hi) = (size / jobs as f64, size);
    // Even the whole file on the first worker leaves no room: none.
    ends(hi)?;
    for _ in 0..64 {
        let mid = (lo + hi) / 2.0;
        match ends(mid) {
            Some(b) if b[jobs] >= size => hi = mid,
            _ => lo = mid,
        }
    }
    let mut bounds: Vec<u64> = ends(hi)?.iter().map(|&b| b.min(size) as u64).collect();
    bounds[jobs] = size as u64;
    Some((bounds, hi / size))
}

/// The busiest worker's cost in a sliced run on `jobs` workers of which
/// the busiest steps `share` of the events ([`busiest_share`]), as a share
/// of a sequential run's: its part of the reading (the workers read in
/// turn) and its steps.
pub fn sliced_cost(jobs: usize, share: f64) -> f64 {
    READ_SHARE / jobs.max(1) as f64 + (1.0 - READ_SHARE) * share
}

/// Per event name of `plan` (in the order of its events), whether a
/// warm-up steps it: `None` when it steps every event. When every property
/// is tick invariant, an event that no atom under an `S` or `@` mentions
/// steps like a tick and changes no state (see
/// [`PropPlan::state_events`](crate::plan::PropPlan::state_events)): the
/// warm-up skips it, after its first event. (On the `gen_access.py` log
/// that is every access, 70% of the events.)
pub fn warm_steps(plan: &Plan) -> Option<Vec<bool>> {
    if plan.props.iter().any(|p| p.tick_invariant().is_err()) {
        return None;
    }
    let names: std::collections::BTreeSet<&str> =
        plan.props.iter().flat_map(|p| p.state_events()).collect();
    Some(
        plan.events
            .keys()
            .map(|e| names.contains(e.as_str()))
            .collect(),
    )
}

/// Whether a whole monitor of `plan` can be snapshot (its state is its
/// summaries over values).
pub fn snapshots(plan: &Plan, options: &MonitorOptions) -> bool {
    Monitor::new(plan.clone(), options.clone()).is_ok_and(|mut m| m.snapshot().is_some())
}

/// The share of the events of `sample` that the busiest of `workers` (a
/// layout of sliced and whole units) steps: delivered events, and ticks of
/// units that cannot skip them. An even split of the work is `1 / jobs`.
pub fn busiest_share(workers: &[Vec<super::worker::Unit>], sample: &[Arc<Block>]) -> f64 {
    let events = sample
        .iter()
        .flat_map(|b| b.events.iter().map(move |ev| (b, ev)));
    let steps = |units: &Vec<super::worker::Unit>| -> u64 {
        (events.clone())
            .map(|(block, ev)| {
                let steps = units.iter().filter(|u| {
                    u.route.delivers_named(ev.name, |k| block.arg(ev, k)) || !u.route.skip_ticks
                });
                steps.count() as u64
            })
            .sum()
    };
    let busiest = workers.iter().map(steps).max().unwrap_or(0);
    busiest as f64 / (events.count() as u64).max(1) as f64
}
