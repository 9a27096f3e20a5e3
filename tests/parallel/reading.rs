//! The workers read the trace themselves (whichever runs out of batches
//! first), with a thread that only reads beside a layout of fewer workers
//! than jobs: on traces of many batches, every layout gives the sequential
//! verdicts, a caller that stops the run early ends every thread, and an
//! input error anywhere ends the run as it ends the sequential one.

use hindsight::parallel;

use super::revise::{run_until, sequential};

/// Sliced on `f`; the `tick` events go to every slice.
const SLICED: &str = "prop closed : Forall f . close(f) -> @ (!close(f) S open(f))";
/// Not sliceable (two quantified variables compared): one worker.
const WHOLE: &str = "prop pair : Forall a . Forall b . (close(a) & @ open(b)) -> a = b";
/// Two properties, each of one worker.
const TWO: &str = "prop closed : Forall f . close(f) -> @ (!close(f) S open(f))
prop once : Forall f . open(f) -> ! @ (!close(f) S open(f))";

/// `n` events over 400 files, opened and closed in turn, a `tick` now and
/// then, and a violation of each property every few thousand events.
fn files(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        let f = i / 2 % 400;
        if i % 2 == 0 {
            t.push_str(&format!("open,f{f}\n"));
        } else {
            t.push_str(&format!("close,f{f}\n"));
        }
        if i % 17 == 0 {
            t.push_str("tick\n");
        }
        if i % 3001 == 1000 {
            // A close of a file never opened, and a second open.
            t.push_str(&format!("close,g{i}\nopen,f{f}\n"));
        }
    }
    t
}

/// The violating event numbers on `jobs` threads, stopping after the
/// first `stop_after` violations (all of them with `usize::MAX`).
fn parallel_until(spec: &str, trace: &str, jobs: usize, stop_after: usize) -> Vec<u64> {
    let (out, outcome) = run_until(spec, trace, jobs, stop_after);
    let by_caller = matches!(outcome.stopped, Some(parallel::Stop::ByCaller));
    assert!(
        outcome.stopped.is_none() || by_caller,
        "{:?}",
        outcome.stopped
    );
    out
}

#[test]
fn every_layout_on_a_long_trace_gives_the_sequential_verdicts() {
    // About 100 batches of events.
    let trace = files(200_000);
    for spec in [SLICED, WHOLE, TWO] {
        let expected = sequential(spec, &trace);
        assert!(expected.len() >= 30, "{}", expected.len());
        for jobs in 2..=5 {
            let found = parallel_until(spec, &trace, jobs, usize::MAX);
            assert_eq!(found, expected, "--jobs {jobs}\n{spec}");
        }
    }
}

#[test]
fn a_caller_that_stops_early_ends_the_run() {
    let trace = files(200_000);
    for spec in [SLICED, WHOLE, TWO] {
        let expected = sequential(spec, &trace);
        for jobs in 2..=4 {
            // Within the sample, and well after it.
            for stop in [2, 25] {
                let found = parallel_until(spec, &trace, jobs, stop);
                assert_eq!(
                    found,
                    expected[..stop],
                    "--jobs {jobs}, stop after {stop}\n{spec}"
                );
            }
        }
    }
}

#[test]
fn an_input_error_deep_in_a_long_trace_ends_every_run_as_the_sequential_one() {
    let dir = super::temp_dir("reading-errors");
    let lines: Vec<String> = files(200_000).lines().map(str::to_string).collect();
    // Within the first batches (read before the threads start), within the
    // sample, and well after it (read by whichever worker is ahead): an
    // event with one argument too many, and a field with a quote that never
    // closes.
    for (at, bad) in [
        (3_000, "close,f1,x"),
        (40_000, "close,f1,x"),
        (150_000, "close,f1,x"),
        (150_000, "open,\"f1"),
    ] {
        let mut trace = lines.clone();
        trace[at] = bad.to_string();
        let trace = super::write(&dir, "trace.csv", &(trace.join("\n") + "\n"));
        for spec in [SLICED, WHOLE, TWO] {
            let spec = super::write(&dir, "spec.qtl", spec);
            let first = super::run(&spec, &trace, 1, &[]);
            assert_eq!(first.status.code(), Some(2), "{bad} at {at}");
            let stderr = String::from_utf8_lossy(&first.stderr);
            assert!(stderr.contains(&format!("line {}", at + 1)), "{stderr}");
            let out = super::comparable(&first);
            assert!(out.contains("violated at event"), "{out}");
            for jobs in [2, 3] {
                let o = super::run(&spec, &trace, jobs, &[]);
                assert_eq!(o.status.code(), Some(2), "{bad} at {at}, --jobs {jobs}");
                assert_eq!(super::comparable(&o), out, "{bad} at {at}, --jobs {jobs}");
                assert_eq!(o.stderr, first.stderr, "{bad} at {at}, --jobs {jobs}");
            }
        }
    }
}
