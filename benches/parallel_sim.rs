//! Scale simulation of `hindsight run --jobs N`: each worker of an N-slice
//! run, run alone one after the other, with the events it receives and its
//! monitoring time, against the sequential run (`--jobs 1`'s engine).
//!
//! `cargo bench --bench parallel_sim -- SPEC TRACE N [N...]` prints a table.
//! The workers are laid out as a run lays them out on a long trace (the
//! sample's choice of parts and of values' slices). The trace is read into
//! memory first. Times are the CPU time of this thread (from
//! `/proc/thread-self/schedstat`, so that other processes on a busy machine
//! do not count), the least of `SIM_RUNS` runs (default 3), minus the time
//! of the same worker routing the events and deciding which ticks it skips,
//! without monitoring them (which a run with more cores does once, upstream
//! of the workers). The sequential run is measured again after each number
//! of slices, and the least of its times is the one the ratios use.

use std::fs::File;
use std::time::Duration;

use hindsight::parallel::simulate::{Events, simulate_worker};
use hindsight::plan::compile_source;
use hindsight::runtime::MonitorOptions;
use hindsight::trace::{Format, TraceOptions, TraceReader, timed_by_name};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() < 3 {
        eprintln!("usage: parallel_sim SPEC TRACE N [N...]");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[0]).expect("spec");
    let (plan, _) =
        compile_source(&text).unwrap_or_else(|_| panic!("{} is not well-formed", args[0]));
    let trace = std::path::Path::new(&args[1]);
    let options = TraceOptions {
        timed: timed_by_name(trace),
        format: Format::Auto,
    };
    let reader = TraceReader::new(File::open(trace).expect("trace"), options);
    let start = thread_cpu();
    let events =
        Events::read(&plan, reader.allow_decreasing_time(true)).unwrap_or_else(|e| panic!("{e:?}"));
    let reading = thread_cpu().saturating_sub(start);
    // Each figure is the least of this many runs (the machine may be shared).
    let runs: usize = std::env::var("SIM_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let cpu = |jobs: usize, worker: usize, step: bool| {
        let mut stats = None;
        let mut least = Duration::MAX;
        for _ in 0..runs {
            let start = thread_cpu();
            let s = simulate_worker(
                &plan,
                &events,
                &MonitorOptions::default(),
                jobs,
                worker,
                step,
            )
            .unwrap_or_else(|e| panic!("{e:?}"));
            least = least.min(thread_cpu().saturating_sub(start));
            stats = Some(s);
        }
        (stats.unwrap_or_default(), least)
    };
    // A worker's monitoring: its run less the same run routing the events
    // without stepping them (in a run with more cores, a router upstream
    // does that once for all workers).
    let run = |jobs: usize, worker: usize| {
        let (mut stats, total) = cpu(jobs, worker, true);
        let (_, routing) = cpu(jobs, worker, false);
        stats.monitoring = total.saturating_sub(routing);
        stats
    };
    let sequential = run(1, 0);
    // The least sequential time measured so far: measured again after each
    // number of slices, as the machine's speed drifts over minutes (a
    // faster sequential figure makes every ratio smaller, never larger).
    let mut seq = sequential.monitoring;
    println!(
        "sequential: {} events, {:.3} s CPU monitoring (reading the trace: {:.3} s)",
        sequential.delivered + sequential.ticks,
        seq.as_secs_f64(),
        reading.as_secs_f64()
    );
    for n in args[2..].iter().map(|n| n.parse::<usize>().expect("N")) {
        let mut largest = Duration::ZERO;
        let mut most = 0;
        println!("{n} slices: worker, delivered, ticks, CPU seconds");
        for w in 0..n {
            let s = run(n, w);
            println!(
                "  {w:>3} {:>10} {:>10} {:>8.3}",
                s.delivered,
                s.ticks,
                s.monitoring.as_secs_f64()
            );
            largest = largest.max(s.monitoring);
            most = most.max(s.delivered);
        }
        let again = run(1, 0).monitoring;
        println!("sequential again: {:.3} s", again.as_secs_f64());
        seq = seq.min(again);
        println!(
            "{n} slices: largest worker {:.3} s = 1/{:.1} of sequential ({:.3} s, the least so far); most events delivered to one worker: {most}",
            largest.as_secs_f64(),
            seq.as_secs_f64() / largest.as_secs_f64().max(1e-9),
            seq.as_secs_f64()
        );
    }
}

/// The CPU time of this thread so far.
fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}
