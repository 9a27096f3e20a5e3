//! Scale simulation of `hindsight run --jobs N`: each worker of an N-slice
//! run, run alone one after the other, with the events it receives and its
//! monitoring time, against the sequential run (`--jobs 1`'s engine).
//!
//! `cargo bench --bench parallel_sim -- SPEC TRACE N [N...]` prints a table.
//! The workers are laid out as a run lays them out on a long trace (the
//! sample's choice of parts and of values' slices). The trace is read into
//! memory first. Times are the CPU time of this thread (from
//! `/proc/thread-self/schedstat`, so that other processes on a busy machine
//! do not count), the least of `SIM_RUNS` rounds (default 3; each round
//! times every worker once, then the sequential run), of the worker
//! stepping the events routed to it: the trace is routed to each worker
//! first, untimed, as a router upstream of the workers would send it (every
//! event the worker receives, and the ticks it cannot skip). The sequential
//! run is measured the same way (one worker that receives every event) in
//! every round, and the least of its times is the one the ratios use.

use std::fs::File;
use std::time::Duration;

use hindsight::parallel::simulate::{Events, Routed, route_worker, step_worker};
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
    // A worker's monitoring: stepping the events routed to it (routed
    // first, untimed: in a run with more cores, a router upstream does
    // that once for all workers).
    let time = |routed: &Routed| {
        let start = thread_cpu();
        let s = step_worker(routed, &MonitorOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
        (s, thread_cpu().saturating_sub(start))
    };
    let whole = route_worker(&plan, &events, 1, 0);
    let (sequential, mut seq) = time(&whole);
    println!(
        "sequential: {} events, {:.3} s CPU monitoring (reading the trace: {:.3} s)",
        sequential.delivered + sequential.ticks,
        seq.as_secs_f64(),
        reading.as_secs_f64()
    );
    for n in args[2..].iter().map(|n| n.parse::<usize>().expect("N")) {
        let routed: Vec<Routed> = (0..n).map(|w| route_worker(&plan, &events, n, w)).collect();
        // `runs` rounds, each timing every worker once and then the
        // sequential run: a minute when the machine is slow touches one
        // run of each, and the least of a worker's runs is its figure.
        let mut least = vec![Duration::MAX; n];
        let mut stats = vec![None; n];
        for _ in 0..runs {
            for (w, r) in routed.iter().enumerate() {
                let (s, t) = time(r);
                least[w] = least[w].min(t);
                stats[w] = Some(s);
            }
            let (_, t) = time(&whole);
            println!("sequential again: {:.3} s", t.as_secs_f64());
            seq = seq.min(t);
        }
        println!("{n} slices: worker, delivered, ticks, CPU seconds");
        for (w, (s, t)) in stats.iter().zip(&least).enumerate() {
            let s = s.clone().unwrap_or_default();
            println!(
                "  {w:>3} {:>10} {:>10} {:>8.3}",
                s.delivered,
                s.ticks,
                t.as_secs_f64()
            );
        }
        let largest = least.iter().copied().max().unwrap_or_default();
        let most = stats
            .iter()
            .flatten()
            .map(|s| s.delivered)
            .max()
            .unwrap_or(0);
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
