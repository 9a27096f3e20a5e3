//! A long trace starts on the layout its first batches suggest and moves to
//! the one its whole sample suggests: the verdicts stay those of the
//! sequential run, before, at and after the move.

use hindsight::parallel;
use hindsight::plan::compile_source;
use hindsight::runtime::{Monitor, MonitorOptions};
use hindsight::trace::{Format, TraceOptions, TraceReader};

const ACCESS: &str = "prop access : Forall u . Forall f .
  access(u,f) -> [login(u),logout(u)) & [open(f),close(f))";

fn options() -> TraceOptions {
    TraceOptions {
        timed: false,
        format: Format::Plain,
    }
}

/// The violating event numbers of a sequential run.
pub(super) fn sequential(spec: &str, trace: &str) -> Vec<u64> {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut m = Monitor::new(plan, MonitorOptions::default()).expect("monitor");
    let mut reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Vec::new();
    while let Some(e) = reader.next_event().expect("trace") {
        let args: Vec<&[u8]> = e.args().collect();
        if !m.step(e.name, &args, 0).expect("step").is_empty() {
            out.push(e.number);
        }
    }
    out
}

/// The violating event numbers of a run on `jobs` threads that the caller
/// stops after the first `stop_after` violations (never with
/// `usize::MAX`), and how the run ended.
pub(super) fn run_until(
    spec: &str,
    trace: &str,
    jobs: usize,
    stop_after: usize,
) -> (Vec<u64>, parallel::Outcome) {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Vec::new();
    let options = parallel::Options {
        jobs,
        ..parallel::Options::default()
    };
    let outcome = parallel::run(
        &plan,
        reader,
        &options,
        &|| false,
        &mut |ev: &parallel::EventView<'_>, violated: &[usize]| {
            if !violated.is_empty() {
                out.push(ev.number);
            }
            out.len() < stop_after
        },
    );
    (out, outcome)
}

/// The violating event numbers of a run on `jobs` threads, and whether its
/// layout was revised.
fn parallel(spec: &str, trace: &str, jobs: usize) -> (Vec<u64>, bool) {
    let (out, outcome) = run_until(spec, trace, jobs, usize::MAX);
    assert!(outcome.stopped.is_none(), "{outcome:?}");
    (out, outcome.revised)
}

/// First accesses by many users (the property sliced whole on `u` steps
/// each on one worker, its two parts on two), then mostly files opened and
/// closed (sent to every slice of the whole property, to one slice of its
/// `f` part), then both; a violation now and then in each stretch.
fn shifting(accesses: usize, files: usize, mixed: usize) -> String {
    let mut t = String::new();
    for u in 0..200 {
        t.push_str(&format!("login,u{u}\n"));
    }
    for f in 0..50 {
        t.push_str(&format!("open,f{f}\n"));
    }
    for i in 0..accesses {
        // User 200 never logged in.
        let u = if i % 997 == 500 { 200 } else { i * 7 % 200 };
        t.push_str(&format!("access,u{u},f{}\n", i * 13 % 50));
    }
    for i in 0..files {
        let f = 50 + i / 2 % 5000;
        let what = if i % 2 == 0 { "open" } else { "close" };
        t.push_str(&format!("{what},f{f}\n"));
        if i % 4001 == 3000 {
            // File f was just closed (i odd) or is open (i even).
            t.push_str(&format!("access,u{},f{f}\n", i % 200));
        }
    }
    for i in 0..mixed {
        match i % 3 {
            0 => t.push_str(&format!("open,g{}\n", i % 300)),
            1 => t.push_str(&format!("access,u{},g{}\n", i % 200, (i + 50) % 300)),
            _ => t.push_str(&format!("close,g{}\n", (i + 150) % 300)),
        }
    }
    t
}

#[test]
fn a_layout_revised_after_the_sample_keeps_the_verdicts() {
    let trace = shifting(10_000, 60_000, 20_000);
    let expected = sequential(ACCESS, &trace);
    // Violations in every stretch: the first accesses, the files, the mix.
    let count = |lo: u64, hi: u64| expected.iter().filter(|&&n| lo < n && n <= hi).count();
    assert!(count(0, 10_250) >= 5, "{expected:?}");
    assert!(count(10_250, 70_265) >= 5, "{expected:?}");
    assert!(count(70_265, u64::MAX) >= 5, "{expected:?}");
    for jobs in [2, 3] {
        let (found, revised) = parallel(ACCESS, &trace, jobs);
        assert!(
            revised,
            "--jobs {jobs}: the layout should move to the parts"
        );
        assert_eq!(found, expected, "--jobs {jobs}");
    }
}

#[test]
fn a_layout_the_sample_confirms_is_kept() {
    // Accesses all along: the first batches and the sample agree.
    let trace = shifting(90_000, 0, 0);
    let expected = sequential(ACCESS, &trace);
    assert!(expected.len() >= 50, "{}", expected.len());
    let (found, revised) = parallel(ACCESS, &trace, 2);
    assert!(!revised);
    assert_eq!(found, expected);
}
