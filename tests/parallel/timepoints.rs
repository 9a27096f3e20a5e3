//! `--timepoints` on the parallel path: on a CSV, JSON or XML trace each
//! record is a time-point of its own, and `--jobs 2` and `--jobs 3` print
//! what `--jobs 1` prints, byte for byte but for the time taken and the
//! collection counts (which tell that the parallel engine ran); a bad
//! time-point skipped keeps its number. A MonPoly log, whose time-points
//! hold several events, is cut into time segments or stays on the
//! sequential engine (parallel/mfotl.rs).

use std::path::Path;

use super::options::{ACCESS, FILES, access_log, files, same_as_sequential, split};
use super::{comparable, run, temp_dir, write};

#[test]
fn timepoints_of_a_csv_trace_are_the_sequential_ones() {
    let dir = temp_dir("timepoints-csv");
    let spec = write(&dir, "access.qtl", ACCESS);
    let trace = write(&dir, "access.csv", &access_log(60_000));
    let extras: [&[&str]; 4] = [
        &["--timepoints"],
        &["--timepoints", "--witness"],
        &["--timepoints", "--all-witnesses"],
        &["--timepoints", "--witness", "--segments", "always"],
    ];
    same_as_sequential(&spec, &trace, &extras, true);
    // The verdicts are those of event steps: a time-point is one event.
    let o = run(&spec, &trace, 2, &["--timepoints"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(comparable(&o), comparable(&run(&spec, &trace, 1, &[])));
}

/// The lines of `bad` in the trace of [`files`]: another arity, an empty
/// name, an unknown name (bad with `--strict`), in every block or so.
fn bad_lines() -> Vec<(usize, &'static str)> {
    let mut bad = Vec::new();
    for k in 0..12 {
        bad.push((k * 5_000 + 3, "open,a,b"));
        bad.push((k * 5_000 + 1_001, ",x"));
        bad.push((k * 5_000 + 2_002, "unknown,x"));
    }
    bad
}

#[test]
fn bad_time_points_are_refused_or_skipped_as_the_sequential_run_does() {
    let dir = temp_dir("timepoints-bad");
    let spec = write(&dir, "files.qtl", FILES);
    let trace = write(&dir, "files.csv", &files(60_000, &bad_lines()));
    let extras: [&[&str]; 3] = [
        &["--timepoints", "--skip-bad-lines"],
        &["--timepoints", "--skip-bad-lines", "--strict"],
        &[
            "--timepoints",
            "--on-error",
            "skip",
            "--max-violations",
            "3",
        ],
    ];
    same_as_sequential(&spec, &trace, &extras, true);
    // A time-point skipped keeps its number: the close of `g17` (record
    // 20, after the bad record 4) is time-point 20, where event steps
    // number it 19.
    let flags = ["--skip-bad-lines", "--strict"];
    let points: Vec<&str> = ["--timepoints"].into_iter().chain(flags).collect();
    let o = run(&spec, &trace, 2, &points);
    assert_eq!(o.status.code(), Some(1));
    let text = comparable(&o);
    assert!(
        text.contains("property closed violated at event 20: close(g17)\n"),
        "{text}"
    );
    assert!(
        text.contains("bad lines skipped: 36 (lines 4, 1003, 2005, 5007, 6006, ...)\n"),
        "{text}"
    );
    let events = comparable(&run(&spec, &trace, 2, &flags));
    assert!(
        events.contains("property closed violated at event 19 (line 20): close(g17)\n"),
        "{events}"
    );
    // Without skipping, the first bad record ends the run (or with
    // --strict, the unknown name of record 2,005 once the others are gone).
    let strict = files(60_000, &[(2_004, "unknown,x"), (3_000, "open,a,b")]);
    let strict = write(&dir, "strict.csv", &strict);
    let cases = [
        (
            &trace,
            &["--timepoints"][..],
            "files.csv:line 4: event `open` has 2 arguments, but the specification uses it with 1\n",
        ),
        (
            &strict,
            &["--timepoints", "--strict"][..],
            "strict.csv:line 2005: event `unknown` is not in the specification (--strict)",
        ),
    ];
    for (trace, args, error) in cases {
        let first = run(&spec, trace, 1, args);
        assert_eq!(first.status.code(), Some(2));
        assert!(
            super::common::stderr(&first).contains(error),
            "{}",
            super::common::stderr(&first)
        );
        for jobs in [2, 3] {
            let o = run(&spec, trace, jobs, args);
            assert_eq!(o.status.code(), Some(2), "{args:?} --jobs {jobs}");
            assert_eq!(comparable(&o), comparable(&first), "{args:?} --jobs {jobs}");
            assert_eq!(o.stderr, first.stderr, "{args:?} --jobs {jobs}");
        }
    }
}

/// Requests answered within 4 steps (a future operator) and answers
/// requested: `n` events over 60 values, a request of another arity every
/// 2,501, and requests at the end that stay undecided.
fn requests(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        let r = (i * 7919) % 60;
        if i % 2501 == 7 {
            t.push_str("req,1,2\n");
            continue;
        }
        t.push_str(&match (i * 31) % 4 {
            0 => format!("req,{r}\n"),
            1 | 2 => format!("resp,{r}\n"),
            _ => format!("noise,{r}\n"),
        });
    }
    t + "req,7\nnoise,3\nreq,8\n"
}

const ANSWERED: &str = "prop answered : Forall r . req(r) -> F[<=4] resp(r)\n\
                        prop once : Forall r . resp(r) -> P req(r)\n";

#[test]
fn delayed_verdicts_of_time_points_are_the_sequential_ones() {
    let dir = temp_dir("timepoints-future");
    let spec = write(&dir, "answered.qtl", ANSWERED);
    let text = requests(30_000);
    let csv = write(&dir, "requests.csv", &text);
    let extras: [&[&str]; 2] = [
        &["--timepoints", "--skip-bad-lines"],
        &[
            "--timepoints",
            "--skip-bad-lines",
            "--end-of-trace",
            "close",
        ],
    ];
    same_as_sequential(&spec, &csv, &extras, true);
    // The same trace in JSON and XML.
    let records: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let json: String = (records.iter())
        .map(|r| format!("{{\"{}\": [{}]}}\n", r[0], quoted(&r[1..])))
        .collect();
    let xml: String = std::iter::once("<log>\n".to_string())
        .chain(records.iter().map(|r| {
            let fields: String = (r[1..].iter().enumerate())
                .map(|(k, v)| format!("<field><name>a{k}</name><value>{v}</value></field>"))
                .collect();
            format!("<event><name>{}</name>{fields}</event>\n", r[0])
        }))
        .chain(std::iter::once("</log>\n".to_string()))
        .collect();
    for (name, text) in [("requests.json", json), ("requests.xml", xml)] {
        let trace = write(&dir, name, &text);
        same_as_sequential(&spec, &trace, &extras[..1], true);
    }
    // A violation after a skipped time-point names its own event, and an
    // undecided time-point is `@`, as in the sequential run.
    let o = run(
        &spec,
        &csv,
        2,
        &["--timepoints", "--skip-bad-lines", "--json"],
    );
    let (got, _) = split(&o);
    let last = records.len();
    for n in [last - 2, last] {
        let line = format!(
            "{{\"args\":[],\"event\":{n},\"kind\":\"undecided\",\"line\":{n},\"name\":\"@\",\
             \"properties\":[\"answered\"]}}"
        );
        assert!(got.contains(&line), "{line} in {got}");
    }
    let first = violations_after(&got, 8);
    let (number, name) = first.expect("a violation after the bad record");
    let record = &records[number as usize - 1];
    assert_eq!(record[0], name, "event {number}: {record:?}");
}

/// The number and name of the first violation after event `after` in the
/// JSON report `report`.
fn violations_after(report: &str, after: u64) -> Option<(u64, String)> {
    report.lines().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        let n = v.get("event")?.as_u64()?;
        let name = v["name"].as_str()?.to_string();
        (v["kind"] == "violation" && n > after).then_some((n, name))
    })
}

/// `values`, each quoted, separated by commas.
fn quoted(values: &[&str]) -> String {
    (values.iter())
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(",")
}

/// `run --json --gc always ARGS` at 1 and 2 jobs: the outputs, and
/// whether the collection counts differ.
fn on_one_and_two(spec: &Path, trace: &Path, args: &[&str]) -> (String, String, bool) {
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--json", "--gc", "always"])
        .collect();
    let (one, gc1) = split(&run(spec, trace, 1, &args));
    let (two, gc2) = split(&run(spec, trace, 2, &args));
    (one, two, gc1 != gc2)
}

#[test]
fn time_points_of_a_monpoly_log_stay_sequential() {
    let dir = temp_dir("timepoints-monpoly");
    let spec = write(&dir, "files.qtl", FILES);
    let mut log = String::new();
    for i in 0..20_000 {
        let f = i % 300;
        log.push_str(&format!("@{} open(f{f}) close(f{})\n", i, (f + 1) % 300));
    }
    let trace = write(&dir, "files.log", &log);
    let (one, two, parallel) = on_one_and_two(&spec, &trace, &["--timepoints"]);
    assert_eq!(one, two);
    assert!(!parallel, "a MonPoly log's time-points ran in parallel");
    // So from standard input (a file there).
    let args = ["--timepoints", "--json", "--gc", "always"];
    let stdin = super::common::bin()
        .arg("run")
        .arg("--jobs=2")
        .args(args)
        .arg(&spec)
        .env_remove("HINDSIGHT_JOBS")
        .stdin(std::fs::File::open(&trace).expect("the log"))
        .output()
        .expect("runs");
    let name = trace.to_str().expect("UTF-8");
    assert_eq!(split(&stdin).0, one.replace(name, "<stdin>"));
    // Event steps of the same log run in parallel.
    let (one, two, parallel) = on_one_and_two(&spec, &trace, &[]);
    assert_eq!(one, two);
    assert!(parallel, "event steps of a MonPoly log stayed sequential");
}

/// `run --jobs=JOBS --json --gc always ARGS SPEC` with `trace` written to
/// its standard input through a pipe: the output, and the exit status.
fn piped(spec: &Path, trace: &Path, jobs: usize, args: &[&str]) -> (String, String, Option<i32>) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = super::common::bin()
        .arg("run")
        .arg(format!("--jobs={jobs}"))
        .args(args)
        .args(["--json", "--gc", "always"])
        .arg(spec)
        .env_remove("HINDSIGHT_JOBS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let text = std::fs::read(trace).expect("the trace");
    let mut stdin = child.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let o = child.wait_with_output().expect("runs");
    writer.join().expect("the writer").expect("written");
    let (out, gc) = split(&o);
    (out, gc, o.status.code())
}

#[test]
fn a_pipe_reads_time_points_in_parallel_when_its_format_is_given() {
    let dir = temp_dir("timepoints-pipe");
    let spec = write(&dir, "files.qtl", FILES);
    let trace = write(&dir, "files.csv", &files(60_000, &bad_lines()));
    let skip = ["--timepoints", "--skip-bad-lines"];
    let (want, gc1, code) = piped(&spec, &trace, 1, &skip);
    assert_eq!(code, Some(1));
    assert!(want.contains("\"skipped_lines\":24"), "{want}");
    let given: Vec<&str> = skip.iter().copied().chain(["--format", "plain"]).collect();
    for (args, parallel) in [(&skip[..], false), (&given[..], true)] {
        let (got, gc, status) = piped(&spec, &trace, 2, args);
        assert_eq!(status, code, "{args:?}");
        assert_eq!(got, want, "{args:?}");
        assert_eq!(gc != gc1, parallel, "{args:?}: {gc} against {gc1}");
    }
}
