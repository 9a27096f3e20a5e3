//! Future operators on several threads and in cluster mode: `run --jobs 2`
//! (and 3), and `run --cluster` with 1 and 2 workers (feature `cluster`),
//! print byte for byte what `run --jobs 1` prints, text and JSON, with the
//! steps left undecided at the end of the trace and with the end closed
//! (`--end-of-trace close`); only the time taken and the collection
//! counts, which no two runs share, are left out.

mod common;

use std::path::{Path, PathBuf};

use common::{bin, scratch_file, stdout, violation_events};

/// Requests answered within 6 events or not, messages acknowledged by the
/// next event or not, runs of ticks, and a past property beside them; the
/// trace ends on a request and a send whose futures are open. Long enough
/// for the threads to share it (a short trace is monitored on one).
/// Written into the directory `dir`, one per test: tests run at the same
/// time, and one rewriting a file another's run is reading would cut that
/// run's trace short.
fn workload(dir: &str) -> (PathBuf, PathBuf) {
    let spec = "prop answered : Forall x . req(x) -> F[<=6] resp(x)\n\
                prop acked : Forall x . send(x) -> X ack(x)\n\
                prop asked : Forall x . resp(x) -> P req(x)\n";
    let mut trace = String::new();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..30_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let v = seed % 60;
        let line = match (seed >> 12) % 10 {
            0..=2 => format!("req,v{v}\n"),
            3 | 4 => format!("resp,v{v}\n"),
            5 => format!("send,v{v}\nack,v{v}\n"),
            6 => format!("send,v{v}\ntick\n"),
            7 => "tick\ntick\ntick\n".to_owned(),
            _ => format!("ack,v{v}\n"),
        };
        trace.push_str(&line);
    }
    trace.push_str("req,v1\nsend,v2\n");
    (
        scratch_file(dir, "spec.qtl", spec),
        scratch_file(dir, "trace.csv", trace),
    )
}

/// The output of `run ARGS... SPEC TRACE` without what differs between
/// any two runs (the time taken, the collections), and its exit status.
fn output(args: &[&str], spec: &Path, trace: &Path) -> (String, Option<i32>) {
    let o = bin()
        .arg("run")
        .args(args)
        .arg(spec)
        .arg(trace)
        .env_remove("HINDSIGHT_JOBS")
        .output()
        .expect("the binary runs");
    let text = stdout(&o);
    let mut kept = String::new();
    for line in text.lines() {
        if line.starts_with("garbage collections:") {
            continue;
        }
        let line = match line.split_once(" in ") {
            Some((head, _)) if line.starts_with("events processed:") => head.to_owned(),
            _ => without_json_field(
                without_json_field(line.to_owned(), "seconds"),
                "collections",
            ),
        };
        kept.push_str(&line);
        kept.push('\n');
    }
    (kept, o.status.code())
}

/// A JSON line without the number of its field `name`.
fn without_json_field(line: String, name: &str) -> String {
    let key = format!("\"{name}\":");
    let Some(at) = line.find(&key) else {
        return line;
    };
    let start = at + key.len();
    let end = line[start..]
        .find([',', '}'])
        .map_or(line.len(), |e| start + e);
    format!("{}{}", &line[..start], &line[end..])
}

#[test]
fn threads_print_the_sequential_output_with_delayed_and_undecided_verdicts() {
    let (spec, trace) = workload("future-jobs-threads");
    for end in ["undecided", "close"] {
        for json in [false, true] {
            let mut args = vec!["--end-of-trace", end];
            if json {
                args.push("--json");
            }
            let expected = output(&[&["--jobs=1"], &args[..]].concat(), &spec, &trace);
            assert_eq!(expected.1, Some(1));
            let undecided = if json {
                expected.0.matches("\"kind\":\"undecided\"").count()
            } else {
                usize::from(
                    expected
                        .0
                        .contains("undecided at the end of the trace: 3 events"),
                )
            };
            assert_eq!(undecided > 0, end == "undecided", "{end} json {json}");
            for jobs in ["--jobs=2", "--jobs=3"] {
                let found = output(&[&[jobs], &args[..]].concat(), &spec, &trace);
                assert!(
                    found == expected,
                    "{jobs} {args:?}:\n{}",
                    first_difference(&expected.0, &found.0)
                );
            }
        }
    }
}

#[test]
fn threads_report_the_delayed_violations_at_their_events() {
    // The sequential run's violations are found, in event order.
    let (spec, trace) = workload("future-jobs-events");
    let o = bin()
        .args(["run", "--jobs=2"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    let events = violation_events(&o);
    assert!(events.len() > 1000, "{}", events.len());
    assert!(events.windows(2).all(|w| w[0] <= w[1]));
    let text = stdout(&o);
    assert!(
        text.contains("undecided at the end of the trace: 3 events (41909, 41910, 41911)"),
        "{text}"
    );
}

#[cfg(feature = "cluster")]
#[test]
fn cluster_workers_print_the_sequential_output_with_delayed_and_undecided_verdicts() {
    let (spec, trace) = workload("future-jobs-cluster");
    for end in ["undecided", "close"] {
        for json in [false, true] {
            let mut args = vec!["--end-of-trace", end];
            if json {
                args.push("--json");
            }
            let expected = output(&[&["--jobs=1"], &args[..]].concat(), &spec, &trace);
            for workers in ["--workers=1", "--workers=2"] {
                let found = output(
                    &[&["--cluster", workers], &args[..]].concat(),
                    &spec,
                    &trace,
                );
                assert!(
                    found == expected,
                    "{workers} {args:?}:\n{}",
                    first_difference(&expected.0, &found.0)
                );
            }
        }
    }
}

/// The first line where two outputs differ, for a failure's message.
fn first_difference(a: &str, b: &str) -> String {
    let mut lines = a.lines().zip(b.lines()).enumerate();
    match lines.find(|(_, (x, y))| x != y) {
        Some((i, (x, y))) => format!("line {}: `{x}` against `{y}`", i + 1),
        None => format!("{} lines against {}", a.lines().count(), b.lines().count()),
    }
}
