//! End-to-end tests of whether a trace was read: the decision of
//! docs/TRACES.md ("Was the trace read?") branch by branch, the bound on
//! skipped lines, plain CSV fields trimmed, the time stamp of XML and JSON
//! events found by name, errors of a forced format at the first line that
//! does not conform, and the hint about a header row. Every run that can
//! be parallel is run with `--jobs 1` and `--jobs 2`, which must agree.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{bin, scratch_file, stderr, stdout, violation_events};

/// Writes `bytes` to the file `name` of this test's scratch directory.
fn file(name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    scratch_file("reading", name, bytes)
}

/// `hindsight run ARGS SPEC TRACE` with `--jobs N`.
fn run_jobs(args: &[&str], spec: &PathBuf, trace: &PathBuf, jobs: usize) -> Output {
    bin()
        .arg("run")
        .args(args)
        .args(["--jobs", &jobs.to_string()])
        .arg(spec)
        .arg(trace)
        .env_remove("HINDSIGHT_JOBS")
        .output()
        .expect("runs")
}

/// Standard output without the time taken.
fn comparable(o: &Output) -> String {
    stdout(o)
        .lines()
        .map(|l| match l.split_once(" in ") {
            Some((head, _)) if l.starts_with("events processed:") => head.to_owned(),
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `hindsight run ARGS SPEC TRACE` with `--jobs 1` and with `--jobs 2`,
/// which must give the same exit status, standard error and report; the
/// first run's output.
fn run(args: &[&str], spec: &PathBuf, trace: &PathBuf) -> Output {
    let one = run_jobs(args, spec, trace, 1);
    let two = run_jobs(args, spec, trace, 2);
    assert_eq!(one.status.code(), two.status.code(), "{}", stderr(&two));
    assert_eq!(stderr(&one), stderr(&two));
    assert_eq!(comparable(&one), comparable(&two));
    one
}

/// The exit status of a run.
fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// The status line of a run's report.
fn status(o: &Output) -> String {
    stdout(o)
        .lines()
        .rfind(|l| l.starts_with("STATUS: "))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn plain_csv_fields_lose_the_blanks_around_them() {
    // `login, root` is `login(root)`: the property is violated, at events 1
    // and 3 (a tab, and blanks before a quoted field, too), not at event 2
    // (a quoted field keeps its blanks).
    let spec = file("root.qtl", "prop noRoot : !login(\"root\")\n");
    let trace = file(
        "root.csv",
        "login, root\nlogin,\" root\"\nlogin,\troot \r\nlogin, \"root\"\n",
    );
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(violation_events(&o), [1, 3, 4]);
    assert!(
        stdout(&o).contains("property noRoot violated at event 1: login(root)\n"),
        "{}",
        stdout(&o)
    );
    // A long trace (read in batches by the parallel run), blanks on every
    // line: the same verdicts with one job and two.
    let mut long = String::new();
    for i in 0..20_000 {
        long.push_str(&format!("login , u{}\t\n", i % 50));
        if i % 7_000 == 6_999 {
            long.push_str("login,  root \n");
        }
    }
    let trace = file("root-long.csv", long);
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(violation_events(&o), [7_001, 14_002]);
}
