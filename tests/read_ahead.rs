//! An MFOTL run on a MonPoly log file reads the log ahead, in a thread of
//! its own (src/session/ahead.rs); on standard input it reads in the
//! monitor's thread. Both print the same thing and exit with the same
//! status: on long logs (many batches of time-points), with a past and a
//! future property, at a bad time stamp, at an event that does not fit the
//! signature, with `--skip-bad-lines`, and with `--stop-at-first`.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{bin, scratch_file, stdout};

const SIG: &str = "req(r:int)\nresp(r:int)\n";

/// A log of `n` time-points, one time unit apart: at `t`, a request for
/// `t mod 50`, the answer to the request of `t - 3` unless `t` is a
/// multiple of 3, and at multiples of 7 an answer 10 units late.
fn log(n: u64) -> String {
    let mut text = String::new();
    for t in 0..n {
        text.push_str(&format!("@{t} req({})", t % 50));
        if t % 3 != 0 {
            text.push_str(&format!(" resp({})", (t + 47) % 50));
        }
        if t % 7 == 0 {
            text.push_str(&format!(" resp({})", (t + 40) % 50));
        }
        text.push('\n');
    }
    text
}

/// `run ARGS... SPEC --sig SIG` on the file `log`, and on the same log
/// given on standard input.
fn both(dir: &str, formula: &str, log: &str, args: &[&str]) -> [Output; 2] {
    let spec = scratch_file(dir, "spec.mfotl", formula);
    let sig = scratch_file(dir, "spec.sig", SIG);
    let file = scratch_file(dir, "trace.log", log);
    let run = |input: Option<&Path>| {
        let mut cmd = bin();
        cmd.arg("run").args(args).arg(&spec).arg("--sig").arg(&sig);
        match input {
            Some(path) => cmd.arg(path).output().expect("runs"),
            None => {
                let mut child = cmd
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("runs");
                if let Some(mut stdin) = child.stdin.take() {
                    // A run that stops early closes its input: not an error.
                    let _ = stdin.write_all(log.as_bytes());
                }
                child.wait_with_output().expect("runs")
            }
        }
    };
    [run(Some(&file)), run(None)]
}

/// `text` with the trace's name (its path, or `<stdin>`) as `TRACE`.
fn unnamed(text: &str) -> String {
    let text = text.replace("<stdin>", "TRACE");
    let line = |l: &str| match l.find("trace.log") {
        // The path of the file, as a word.
        Some(at) => {
            let start = l[..at].rfind(' ').map_or(0, |i| i + 1);
            format!("{}TRACE{}", &l[..start], &l[at + "trace.log".len()..])
        }
        None => l.to_owned(),
    };
    text.lines().map(line).collect::<Vec<_>>().join("\n")
}

/// The output without the time taken and the trace's name.
fn shown(o: &Output) -> String {
    unnamed(&stdout(o))
        .lines()
        .filter(|l| !l.starts_with("garbage collections:"))
        .map(|l| match l.split_once(" in ") {
            Some((head, _)) if l.starts_with("events processed:") => head,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts the two runs agree, and returns the file's output.
fn agree(runs: &[Output; 2]) -> String {
    let [file, piped] = runs;
    assert_eq!(file.status.code(), piped.status.code(), "exit status");
    assert_eq!(shown(file), shown(piped));
    let error = |o: &Output| {
        common::stderr(o)
            .lines()
            .filter(|l| l.starts_with("error"))
            .map(unnamed)
            .collect::<Vec<_>>()
    };
    assert_eq!(error(file), error(piped));
    shown(file)
}

#[test]
fn a_long_log_gives_the_same_satisfactions_read_ahead_or_not() {
    let log = log(3000);
    for (dir, formula) in [
        ("ahead-future", "req(r) AND NOT EVENTUALLY[0,3] resp(r)"),
        ("ahead-past", "resp(r) AND NOT ONCE[0,3] req(r)"),
    ] {
        let runs = both(dir, formula, &log, &[]);
        let out = agree(&runs);
        assert_eq!(runs[0].status.code(), Some(1));
        let count = out.lines().filter(|l| l.starts_with('@')).count();
        assert!(count > 300, "{dir}: {count} satisfactions");
    }
}

#[test]
fn the_first_satisfaction_is_at_the_same_time_point() {
    let log = log(3000);
    let formula = "req(r) AND NOT EVENTUALLY[0,3] resp(r)";
    let out = agree(&both("ahead-first", formula, &log, &["--stop-at-first"]));
    let first: Vec<&str> = out.lines().filter(|l| l.starts_with('@')).collect();
    // Time-point 0 requests 0, which no response answers by time 3.
    assert_eq!(first, ["@0 (time point 0): (0)"]);
    // The run stopped there: the time-points held are not closed as at
    // the end of the log (time-point 1 was decided, 2 to 4 were not).
    assert!(
        out.contains("property spec: 1 violation (first at event 1)"),
        "{out}"
    );
    assert!(
        out.contains("undecided at the end of the trace: 3 events (3, 4, 5)"),
        "{out}"
    );
}

#[test]
fn a_bad_time_stamp_ends_both_runs_at_its_line() {
    let mut log = log(1000);
    log.push_str("@12x req(1)\n");
    log.push_str(&self::log(10));
    let runs = both(
        "ahead-bad-time",
        "resp(r) AND NOT ONCE[0,3] req(r)",
        &log,
        &[],
    );
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains("line 1001"), "{err}");
}

#[test]
fn an_event_off_the_signature_is_an_error_or_skipped() {
    let mut log = log(700);
    // Line 701: a string where the signature says int.
    log.push_str("@700 req(\"x\") resp(3)\n");
    log.push_str("@701 req(5)\n");
    let formula = "resp(r) AND NOT ONCE[0,3] req(r)";
    let runs = both("ahead-misfit", formula, &log, &[]);
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains("line 701"), "{err}");
    // Skipped, the rest is monitored the same way.
    let runs = both("ahead-misfit-skip", formula, &log, &["--skip-bad-lines"]);
    let out = agree(&runs);
    assert!(out.contains("bad lines skipped: 1 (line 701)"), "{out}");
    assert!(out.contains("events processed: 701"), "{out}");
}
