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

/// The warning of a trace none of whose events the specification mentions.
const NOTE: &str = "warning: 3 of 3 events have a name that no property mentions: \
                    `heartbeat` (1), `start` (1), `stop` (1)\n";

#[test]
fn branch_5_a_never_x_property_holds_on_a_log_that_never_mentions_x() {
    // QTL: `!crash` on a healthy log.
    let spec = file("never.qtl", "prop noCrash : !crash\n");
    let trace = file("healthy.csv", "start\nheartbeat\nstop\n");
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(status(&o), "STATUS: Satisfied");
    assert_eq!(stderr(&o), NOTE);
    // The reference tool's own test of this kind: 49,999 events, none of
    // whose names the property mentions, expected satisfied.
    let spec = file(
        "starvation.qtl",
        "prop p : Forall c . ([COMM_BEGIN(c), COMM_END(c)) & [VDP_START, VDP_STOP)) \
         -> !TASK_STARVATION\n",
    );
    let mut long = String::new();
    for i in 0..49_999 {
        let name = ["CMD_DISPATCH", "CMD_COMPLETE", "TLM_TR_ERROR"][i % 3];
        long.push_str(&format!("{name},CMD_{},{}\n", i % 97, 1000 + i));
    }
    let trace = file("msl.csv", long);
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("events processed: 49999 in "));
    assert_eq!(status(&o), "STATUS: Satisfied");
    // MFOTL: a pattern `crash()` whose signature declares `heartbeat()`.
    let sig = file("never.sig", "crash()\nheartbeat()\n");
    let formula = file("never.mfotl", "crash()\n");
    let log = file(
        "beats.log",
        "@1 heartbeat()\n@2 heartbeat()\n@3 heartbeat()\n",
    );
    let sig_arg = sig.display().to_string();
    let o = run(&["--sig", &sig_arg], &formula, &log);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
}

#[test]
fn branch_3_a_misread_shows_in_the_first_events() {
    let spec = file("never3.qtl", "prop noCrash : !crash\n");
    // Another format's shape on line 1, forced to plain CSV: MonPoly, XML,
    // JSON, an event written as a call.
    for (name, text, shown) in [
        ("mp.txt", "@10 start()\n@11 stop()\n", "@10 start()"),
        (
            "x.txt",
            "<log>\n<event><name>start</name></event>\n</log>\n",
            "<log>",
        ),
        // (Names are shown escaped.)
        (
            "j.txt",
            "{\"start\": {}}\n{\"stop\": {}}\n",
            r#"{\"start\": {}}"#,
        ),
        ("call.txt", "start(a)\nstop(a)\n", "start(a)"),
    ] {
        let trace = file(name, text);
        let o = run(&["--format", "plain"], &spec, &trace);
        assert_eq!(code(&o), 2, "{name}: {}", stdout(&o));
        assert_eq!(
            status(&o),
            format!("STATUS: Error (the trace looks misread (line 1: `{shown}`))"),
            "{name}"
        );
        assert!(
            stderr(&o).starts_with(&format!(
                "error: {}:line 1: the trace looks misread: `{shown}` is not an event of \
                 the specification, and no event of the trace is one\n",
                trace.display()
            )),
            "{name}: {}",
            stderr(&o)
        );
        assert!(stderr(&o).contains("\nhint: "), "{name}: {}", stderr(&o));
    }
    // The spec's event in another case, on line 3.
    let trace = file("case.csv", "start\nheartbeat\nCrash\n");
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 2);
    assert_eq!(
        status(&o),
        "STATUS: Error (the trace looks misread (line 3: `Crash`))"
    );
    assert!(stderr(&o).contains("only in case"), "{}", stderr(&o));
    // Evidence after the first 10 events is data, not a misread.
    let mut text = "heartbeat\n".repeat(10);
    text.push_str("<event>\n");
    let trace = file("late.csv", text);
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // With an event of the spec in the trace, the run is read: a warning.
    let trace = file("mixed.csv", "@10 crash\ncrash\n");
    let o = run(&["--format", "plain"], &spec, &trace);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(violation_events(&o), [2]);
    assert!(stderr(&o).contains("--format monpoly"), "{}", stderr(&o));
}

#[test]
fn branch_1_an_event_of_the_spec_with_another_arity_stops_the_run() {
    let spec = file("arity.qtl", "prop p : Forall x . !crash(x)\n");
    let trace = file("arity.csv", "start\ncrash\n");
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 2);
    assert_eq!(
        status(&o),
        "STATUS: Error (input error at line 2; 0 violations found before it)"
    );
    assert!(
        stderr(&o).contains(
            "arity.csv:line 2: event `crash` has 0 arguments, but the specification uses it with 1"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn branch_2_skipping_most_lines_or_every_line_is_an_error() {
    // A timed file piped without --timed: every line skipped.
    let spec = file("skip.qtl", "prop p : Forall x . send(x) -> !crash\n");
    let trace = file("sends.csv", "send,1,10\nsend,2,11\nsend,3,12\n");
    let o = bin()
        .args(["run", "--skip-bad-lines"])
        .arg(&spec)
        .stdin(std::fs::File::open(&trace).expect("trace"))
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert_eq!(status(&o), "STATUS: Error (all 3 lines skipped as bad)");
    assert_eq!(
        stderr(&o),
        "error: <stdin>: all 3 lines were skipped as bad: nothing was read (lines 1, 2, 3); \
         the first: line 1: event `send` has 2 arguments, but the specification uses it \
         with 1 (if the last field is the event's time stamp, use --timed)\n"
    );
    // Every line is an error even with --max-skipped 100%.
    let o = run_jobs(
        &["--on-error", "skip", "--max-skipped", "100%"],
        &spec,
        &trace,
        1,
    );
    assert_eq!(code(&o), 2);
    // 2 of 20 lines: within 10%; 3 of 21: beyond it, and within 15%.
    let mut text = "send,a\n".repeat(18);
    text.insert_str(0, "send,1,2\n");
    text.push_str("send,3,4\n");
    let trace = file("some-bad.csv", &text);
    let o = run_jobs(&["--skip-bad-lines"], &spec, &trace, 1);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("bad lines skipped: 2 (lines 1, 20)\n"));
    text.push_str("send,5,6\n");
    let trace = file("more-bad.csv", &text);
    let o = run_jobs(&["--skip-bad-lines"], &spec, &trace, 1);
    assert_eq!(code(&o), 2);
    assert_eq!(
        status(&o),
        "STATUS: Error (3 of 21 lines skipped as bad, more than 10%)"
    );
    assert!(
        stderr(&o).starts_with(&format!(
            "error: {}: 3 of 21 lines were skipped as bad, more than --max-skipped 10%: the \
             trace looks misread (lines 1, 20, 21); the first: line 1: event `send` has 2 \
             arguments",
            trace.display()
        )),
        "{}",
        stderr(&o)
    );
    let o = run_jobs(
        &["--skip-bad-lines", "--max-skipped", "15"],
        &spec,
        &trace,
        1,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = bin()
        .args(["run", "--max-skipped", "120"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("is not a percentage from 0 to 100"));
}

#[test]
fn branch_4_an_empty_trace_is_read_with_a_warning() {
    let spec = file("empty.qtl", "prop noCrash : !crash\n");
    for (name, text) in [
        ("empty.csv", ""),
        ("blank.csv", "\n  \n"),
        ("empty.json", "[]"),
    ] {
        let trace = file(name, text);
        let o = run(&[], &spec, &trace);
        assert_eq!(code(&o), 0, "{name}");
        assert_eq!(status(&o), "STATUS: Satisfied");
        assert_eq!(
            stderr(&o),
            "warning: the trace has no event: nothing was checked (no property is violated \
             on an empty trace)\n",
            "{name}"
        );
    }
}

#[test]
fn a_header_row_gets_a_hint() {
    let spec = file("header.qtl", "prop noCrash : !crash\n");
    let trace = file("header.csv", "name,msg,ts\nstart,ok,1\nstop,ok,2\n");
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 0);
    assert!(
        stderr(&o).contains(
            "warning: line 1 `name,msg,ts` looks like a header row of column names, read as \
             an event `name`: remove it, or name its first column `event` to read it as the \
             header of a CRV CSV trace\n"
        ),
        "{}",
        stderr(&o)
    );
    // Timed, the row stops the run at its time stamp: the hint is in the error.
    let trace = file("header.timed.csv", "name,msg,ts\nstart,ok,1\nstop,ok,2\n");
    let o = run(&[], &spec, &trace);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(
            "line 1: timestamp `ts` is not a natural or decimal number (only the digits 0-9, \
             with at most one `.` between digits, such as `12` or `0.25`) (the first line \
             looks like a header row of column names: remove it, or name its first column \
             `event` to read it as the header of a CRV CSV trace)"
        ),
        "{}",
        stderr(&o)
    );
    // An event with numbers, or a name that recurs, is no header row.
    let trace = file("no-header.csv", "start,ok,1\nstart,ok,2\n");
    let o = run(&[], &spec, &trace);
    assert!(!stderr(&o).contains("header row"), "{}", stderr(&o));
}

#[test]
fn the_time_stamp_of_json_and_xml_events_is_found_by_name() {
    let spec = file("send.qtl", "prop p : Forall i . send(i) -> i = \"7\"\n");
    let declared = file(
        "send-declared.qtl",
        "pred send(id)\nprop p : Forall i . send(i) -> i = \"7\"\n",
    );
    let json = file(
        "send.json",
        "{\"send\":{\"ts\":100,\"id\":7}}\n{\"send\":{\"id\":8,\"ts\":101}}\n",
    );
    for spec in [&spec, &declared] {
        let o = run(&["--timed"], spec, &json);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert_eq!(
            stdout(&o).lines().next(),
            Some("property p violated at event 2 at time 101: send(8)")
        );
    }
    let xml = file(
        "send.xml",
        "<log>\n<event><name>send</name><field><name>at</name><value>5</value></field>\
         <field><name>id</name><value>8</value></field></event>\n</log>\n",
    );
    let o = run(&["--timed", "--time-field", "at"], &declared, &xml);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().next(),
        Some("property p violated at event 1 (line 2) at time 5: send(8)")
    );
    let o = run(&["--timed"], &declared, &xml);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(
            "send.xml:line 2: missing timestamp: event `send` has none of the fields `time`, \
             `timestamp`, `ts`"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_csv_file_read_as_xml_or_json_fails_at_line_1() {
    let spec = file("forced.qtl", "prop noCrash : !crash\n");
    let trace = file("forced.csv", "start,a\nheartbeat,b\nstop,c\n");
    for format in ["xml", "json"] {
        let o = run(&["--format", format], &spec, &trace);
        assert_eq!(code(&o), 2, "{format}");
        assert_eq!(
            status(&o),
            "STATUS: Error (input error at line 1; 0 violations found before it)",
            "{format}"
        );
        assert!(
            stderr(&o).starts_with(&format!("error: {}:line 1: ", trace.display())),
            "{format}: {}",
            stderr(&o)
        );
    }
}
