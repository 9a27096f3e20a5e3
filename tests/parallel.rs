//! `hindsight run --jobs N`: the output of the sequential run, for random
//! specifications (sliceable and not) and traces, and for each slicing trap.
//!
//! The specifications come from a small generator of its own (a seeded
//! random walk over QTL, always well-formed): a statement `Forall x . ...`
//! (often), nested quantifiers of every kind, comparisons, negations,
//! temporal operators, rules that keep or move their parameters.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use hindsight::parallel;
use hindsight::plan::compile_source;
use hindsight::plan::slice::Parallel;
use hindsight::runtime::{Monitor, MonitorOptions};
use hindsight::trace::{Format, TraceOptions, TraceReader};
use proptest::prelude::*;

/// A xorshift generator: the specification is a function of the seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A formula over the variables `scope` (the innermost last), using every
/// variable of `must` (so that quantified variables are used).
fn formula(rng: &mut Rng, depth: usize, scope: &mut Vec<&'static str>, rules: bool) -> String {
    let var = |rng: &mut Rng, scope: &[&'static str]| -> String {
        if scope.is_empty() || rng.below(6) == 0 {
            format!("\"{}\"", rng.pick(&["1", "2", "a"]))
        } else {
            scope[rng.below(scope.len())].to_string()
        }
    };
    if depth == 0 || rng.below(4) == 0 {
        return match rng.below(if rules { 9 } else { 7 }) {
            0 | 1 => format!("p({})", var(rng, scope)),
            2 => format!("s({})", var(rng, scope)),
            3 | 4 => format!("q({}, {})", var(rng, scope), var(rng, scope)),
            5 => "r".into(),
            6 if scope.len() >= 2 => {
                let op = rng.pick(&["<", "=", ">="]);
                format!("{} {op} {}", scope[0], scope[scope.len() - 1])
            }
            6 => "true".into(),
            7 => format!("tog({})", var(rng, scope)),
            _ => format!("reach({}, {})", var(rng, scope), var(rng, scope)),
        };
    }
    let d = depth - 1;
    match rng.below(14) {
        0 => format!("!({})", formula(rng, d, scope, rules)),
        12 => format!("P[<=2] ({})", formula(rng, d, scope, rules)),
        13 => format!(
            "({}) S[>1] ({})",
            formula(rng, d, scope, rules),
            formula(rng, d, scope, rules)
        ),
        1 => format!("@({})", formula(rng, d, scope, rules)),
        2 => format!("P ({})", formula(rng, d, scope, rules)),
        3 => format!("H ({})", formula(rng, d, scope, rules)),
        4 => format!(
            "({}) & ({})",
            formula(rng, d, scope, rules),
            formula(rng, d, scope, rules)
        ),
        5 => format!(
            "({}) | ({})",
            formula(rng, d, scope, rules),
            formula(rng, d, scope, rules)
        ),
        6 => format!(
            "({}) -> ({})",
            formula(rng, d, scope, rules),
            formula(rng, d, scope, rules)
        ),
        7 | 8 => format!(
            "({}) S ({})",
            formula(rng, d, scope, rules),
            formula(rng, d, scope, rules)
        ),
        _ => {
            let Some(v) = ["y", "z"].into_iter().find(|v| !scope.contains(v)) else {
                return format!("!({})", formula(rng, d, scope, rules));
            };
            let q = rng.pick(&["Exists", "Forall", "exists", "forall"]);
            let guard = match (rng.below(3), scope.first()) {
                (0, Some(x)) => format!("q({x}, {v})"),
                (1, Some(x)) => format!("q({v}, {x})"),
                _ => format!("p({v})"),
            };
            let link = if q.eq_ignore_ascii_case("exists") {
                "&"
            } else {
                "->"
            };
            scope.push(v);
            let body = formula(rng, d, scope, rules);
            scope.pop();
            format!("{q} {v} . (({guard}) {link} ({body}))")
        }
    }
}

/// A well-formed specification of one to three properties.
fn spec(seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut out = String::from("pred p(a), q(a, b), r, s(a)\n");
    for i in 0..1 + rng.below(3) {
        let rules = rng.below(3) == 0;
        let depth = 1 + rng.below(4);
        let statement = match rng.below(6) {
            // A conjunction: monitored as its parts when that pays.
            2 => format!(
                "Forall x . (({}) & ({}(x) -> ({})))",
                formula(&mut rng, depth, &mut vec!["x"], rules),
                rng.pick(&["p", "s"]),
                formula(&mut rng, depth, &mut vec!["x"], rules)
            ),
            0 => format!(
                "Exists x . (p(x) & ({}))",
                formula(&mut rng, depth, &mut vec!["x"], rules)
            ),
            1 => formula(&mut rng, depth, &mut vec![], rules),
            _ => format!(
                "Forall x . ({}(x) -> ({}))",
                rng.pick(&["p", "s"]),
                formula(&mut rng, depth, &mut vec!["x"], rules)
            ),
        };
        let _ = std::fmt::Write::write_fmt(&mut out, format_args!("prop p{i} : {statement}"));
        if rules {
            out.push_str(
                "\n  where tog(a) := s(a) <-> @!tog(a),\n  \
                 reach(a, b) := @reach(a, b) | q(a, b) | Exists c . (@reach(a, c) & q(c, b))",
            );
        }
        out.push('\n');
    }
    out
}

/// A timed trace of `len` events over the spec's events and `w`, which none
/// mentions; time stamps grow by 0 to 2, and go back by 1 now and then.
fn trace(seed: u64, len: usize) -> String {
    let mut rng = Rng(seed | 1);
    let mut out = String::new();
    let mut time = 5u64;
    let vals = ["1", "2", "3", "a", "b"];
    for _ in 0..len {
        let line = match rng.below(6) {
            0 | 1 => format!("p,{}", rng.pick(&vals)),
            2 | 3 => format!("q,{},{}", rng.pick(&vals), rng.pick(&vals)),
            4 => "r".to_string(),
            _ => format!("{},{}", rng.pick(&["s", "w"]), rng.pick(&vals)),
        };
        time = match rng.below(8) {
            0 => time - 1,
            k => time + (k as u64 % 3),
        }
        .max(1);
        out.push_str(&format!("{line},{time}\n"));
    }
    out
}

/// `(event, property)` violations, sequential and with `jobs` threads
/// (the properties spread as the trace suggests, or with `sample` false as
/// the plan alone does: every property split and sliced where it can be).
fn verdicts(spec: &str, trace: &str, jobs: usize, sample: bool) -> Vec<(u64, usize)> {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let options = TraceOptions {
        timed: true,
        format: Format::Plain,
    };
    let mut out = Vec::new();
    if jobs == 1 {
        let mut m = Monitor::new(plan, MonitorOptions::default()).expect("monitor");
        let mut reader = TraceReader::new(trace.as_bytes(), options).allow_decreasing_time(true);
        while let Some(e) = reader.next_event().expect("trace") {
            let args: Vec<&[u8]> = e.args().collect();
            let violated = m.step(e.name, &args, e.time).expect("step");
            out.extend(violated.iter().map(|&p| (e.number, p)));
        }
    } else {
        let reader = TraceReader::new(trace.as_bytes(), options).allow_decreasing_time(true);
        let options = parallel::Options {
            jobs,
            sample: if sample {
                parallel::planner::SAMPLE_BLOCKS
            } else {
                0
            },
            ..parallel::Options::default()
        };
        let outcome = parallel::run(
            &plan,
            reader,
            &options,
            &|| false,
            &mut |ev: &parallel::EventView<'_>, violated: &[usize]| {
                out.extend(violated.iter().map(|&p| (ev.number, p)));
                true
            },
        );
        assert!(outcome.stopped.is_none(), "{outcome:?}");
    }
    out
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

fn run(spec: &Path, trace: &Path, jobs: usize, extra: &[&str]) -> Output {
    run_env(spec, trace, jobs, extra, &[])
}

/// `run --jobs=JOBS EXTRA... SPEC TRACE` with the environment variables `env`.
fn run_env(spec: &Path, trace: &Path, jobs: usize, extra: &[&str], env: &[(&str, &str)]) -> Output {
    common::bin()
        .arg("run")
        .arg(format!("--jobs={jobs}"))
        .args(extra)
        .arg(spec)
        .arg(trace)
        .env_remove("HINDSIGHT_JOBS")
        .envs(env.iter().copied())
        .output()
        .expect("runs")
}

/// How a test runs the binary: spec, trace, jobs, more arguments.
type Runner = dyn Fn(&Path, &Path, usize, &[&str]) -> Output;

/// Standard output without what depends on the run: the time taken and the
/// garbage collections (counted per monitor, so per slice in parallel).
fn comparable(o: &Output) -> String {
    comparable_text(&String::from_utf8_lossy(&o.stdout))
}

/// A text report without its timings (see [`comparable`]).
fn comparable_text(report: &str) -> String {
    report
        .lines()
        .filter(|l| !l.starts_with("garbage collections:"))
        .map(|l| match l.split_once(" in ") {
            Some((head, _)) if l.starts_with("events processed:") => head.to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn temp_dir(name: &str) -> PathBuf {
    common::scratch_dir(&format!("parallel-{name}"))
}

#[test]
fn the_generator_gives_sliced_and_unsliced_properties() {
    let (mut sliced, mut whole, mut split, mut skipping) = (0, 0, 0, 0);
    for seed in 0..300 {
        let (plan, _) = compile_source(&spec(seed))
            .unwrap_or_else(|e| panic!("seed {seed}: {}\n{e:?}", spec(seed)));
        for p in &plan.props {
            if p.slicing().chosen.is_some() {
                sliced += 1;
            } else {
                whole += 1;
            }
            split += usize::from(matches!(p.parallel(), Parallel::Split(_)));
            skipping += usize::from(p.tick_invariant().is_ok());
        }
    }
    assert!(
        sliced >= 100 && whole >= 100 && split >= 30 && skipping >= 30,
        "{sliced} sliced, {whole} not, {split} split, {skipping} skipping ticks"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parallel_verdicts_are_the_sequential_ones(seed in any::<u64>(), tseed in any::<u64>(), len in 0usize..60) {
        let spec = spec(seed);
        let trace = trace(tseed, len);
        let expected = verdicts(&spec, &trace, 1, true);
        for jobs in 2..=8 {
            let sample = jobs % 2 == 0;
            prop_assert_eq!(&verdicts(&spec, &trace, jobs, sample), &expected, "jobs {} sample {}\n{}\n{}", jobs, sample, spec, trace);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn jobs_1_to_8_print_the_sequential_output(seed in any::<u64>(), tseed in any::<u64>(), len in 0usize..40) {
        let dir = temp_dir("prop");
        let spec_path = write(&dir, &format!("{seed}.qtl"), &spec(seed));
        let trace_path = write(&dir, &format!("{tseed}.timed.csv"), &trace(tseed, len));
        let first = run(&spec_path, &trace_path, 1, &[]);
        let code = first.status.code();
        // A trace that looks misread is an error (exit 2).
        let unknown = String::from_utf8_lossy(&first.stdout)
            .contains("STATUS: Error (the trace looks misread");
        prop_assert!(code == Some(0) || code == Some(1) || (code == Some(2) && unknown), "{:?}", first);
        for jobs in 2..=8 {
            // Garbage collection after every event changes nothing either.
            let gc: &[&str] = if jobs % 2 == 0 { &["--gc", "always"] } else { &[] };
            let o = run(&spec_path, &trace_path, jobs, gc);
            prop_assert_eq!(o.status.code(), code);
            prop_assert_eq!(comparable(&o), comparable(&first), "jobs {}", jobs);
            prop_assert_eq!(String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&first.stderr));
        }
        // Each record a time-point of its own, on the parallel path too.
        let points = run(&spec_path, &trace_path, 1, &["--timepoints"]);
        for jobs in [2, 3] {
            let o = run(&spec_path, &trace_path, jobs, &["--timepoints"]);
            prop_assert_eq!(o.status.code(), points.status.code());
            prop_assert_eq!(comparable(&o), comparable(&points), "--timepoints, jobs {}", jobs);
            prop_assert_eq!(String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&points.stderr));
        }
    }
}

#[path = "parallel/revise.rs"]
mod revise;

#[path = "parallel/traps.rs"]
mod traps;

#[path = "parallel/reading.rs"]
mod reading;

/// For each option set of `extras`, `run` at 2, 3 and 5 jobs gives the
/// exit status, output (but for times and collection counts) and errors of
/// 1 job; an arity error in the trace ends every run but one with
/// `--stop-at-first`.
fn same_output_with_options(spec: &Path, trace: &Path, extras: &[&[&str]], run: &Runner) {
    for &extra in extras {
        let first = run(spec, trace, 1, extra);
        let code = if extra == ["--stop-at-first"] { 1 } else { 2 };
        assert_eq!(first.status.code(), Some(code), "{extra:?}");
        for jobs in [2, 3, 5] {
            let o = run(spec, trace, jobs, extra);
            assert_eq!(o.status.code(), first.status.code(), "{extra:?}");
            let json = |o: &Output| {
                comparable(o)
                    .lines()
                    .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
                        Ok(mut v) if v.get("seconds").is_some() => {
                            v["seconds"] = 0.into();
                            v["collections"] = 0.into();
                            v["codes_released"] = 0.into();
                            v.to_string()
                        }
                        _ => l.to_string(),
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(json(&o), json(&first), "{extra:?} --jobs {jobs}");
            assert_eq!(o.stderr, first.stderr, "{extra:?} --jobs {jobs}");
        }
    }
}

/// Properties for the options tests: sliced, split and whole.
const OPTIONS_SPEC: &str = "prop open : Forall f . close(f) -> @ (!close(f) S open(f))\n\
                            prop once : Forall f . open(f) -> !@P open(f)\n\
                            prop any : Exists f . P open(f)\n";

#[test]
fn options_that_end_or_shape_the_output_give_the_sequential_output() {
    let dir = temp_dir("options");
    let spec = write(&dir, "spec.qtl", OPTIONS_SPEC);
    let trace = write(
        &dir,
        "trace.csv",
        "close,a\nopen,a\nopen,b\nclose,b\nclose,b\nopen,a\nclose,c\nopen,d\nclose,a,x\n",
    );
    let extras: [&[&str]; 5] = [
        &["--stop-at-first"],
        &["--max-violations", "1"],
        &["--output", "json"],
        &["--quiet"],
        &["--prop", "once", "--prop", "any"],
    ];
    same_output_with_options(&spec, &trace, &extras, &run);
    // The environment variable sets the default.
    let o = common::bin()
        .args(["run", "--stop-at-first"])
        .arg(&spec)
        .arg(&trace)
        .env("HINDSIGHT_JOBS", "3")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("property open violated at event 1: close(a)\nproperty any violated at event 1: close(a)\n---\nevents processed: 1 in"), "{text}");
}

#[test]
fn a_report_file_of_a_parallel_run_is_the_sequential_output() {
    let dir = temp_dir("report-file");
    let spec = write(&dir, "spec.qtl", OPTIONS_SPEC);
    let trace = write(
        &dir,
        "trace.csv",
        "close,a\nopen,a\nopen,b\nclose,b\nclose,b\nopen,a\nclose,c\nopen,d\n",
    );
    let sequential = run(&spec, &trace, 1, &[]);
    assert_eq!(sequential.status.code(), Some(1));
    assert!(comparable(&sequential).starts_with(
        "property open violated at event 1: close(a)\nproperty any violated at event 1: close(a)\n"
    ));
    for (jobs, spelling) in [(2, "-o"), (3, "--output")] {
        let report = dir.join(format!("report-{jobs}.txt"));
        let path = report.to_str().expect("a UTF-8 path");
        let o = run(&spec, &trace, jobs, &[spelling, path]);
        assert_eq!(o.status.code(), Some(1), "--jobs {jobs}");
        assert_eq!(o.stdout, b"", "the report goes to the file");
        let text = std::fs::read_to_string(&report).expect("the report file");
        assert_eq!(
            comparable_text(&text),
            comparable(&sequential),
            "--jobs {jobs}"
        );
    }
}

#[test]
fn runs_of_repeated_records_give_the_sequential_output() {
    let dir = temp_dir("runs");
    let spec = write(
        &dir,
        "spec.qtl",
        "prop t : Forall x . closed(x) -> !telem(x) where closed(x) := toggle(x) <-> @!closed(x)\n\
         prop u : Forall x . use(x) -> [open(x),close(x))\n\
         prop h : Forall x . P use(x) -> !P bad(x)\n",
    );
    // Runs delivered to one slice and ticks for the other, runs that are
    // violated at every repeat (telem(b) while b is closed, use(z) while z
    // is not open, every event after bad(a) for h), runs broken by others.
    let mut trace = String::new();
    for (line, n) in [
        ("toggle,a", 1),
        ("telem,a", 5),
        ("telem,b", 4),
        ("open,y", 1),
        ("use,y", 6),
        ("use,z", 3),
        ("toggle,b", 1),
        ("telem,b", 3),
        ("bad,a", 1),
        ("use,a", 4),
        ("close,y", 2),
        ("use,y", 3),
    ] {
        for _ in 0..n {
            trace.push_str(line);
            trace.push('\n');
        }
    }
    let trace = write(&dir, "trace.csv", &trace);
    let first = run(&spec, &trace, 1, &[]);
    let out = comparable(&first);
    assert!(
        out.contains("property t: 4 violations (first at event 7)"),
        "{out}"
    );
    assert!(
        out.contains("property u: 10 violations (first at event 18)"),
        "{out}"
    );
    assert!(
        out.contains("property h: 9 violations (first at event 26)"),
        "{out}"
    );
    for jobs in 2..=4 {
        let o = run(&spec, &trace, jobs, &[]);
        assert_eq!(comparable(&o), out, "jobs {jobs}");
        assert_eq!(o.status.code(), first.status.code());
    }
}

#[path = "parallel/segments.rs"]
mod segments;

#[path = "parallel/options.rs"]
mod options;

#[path = "parallel/streams.rs"]
mod streams;

#[path = "parallel/timepoints.rs"]
mod timepoints;

#[path = "parallel/mfotl.rs"]
mod mfotl;
