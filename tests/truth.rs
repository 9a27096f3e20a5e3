//! End-to-end tests of issue 20: a run that tells the truth about its input
//! (unknown event names, bad lines, the status of a failed run), violations
//! with their lines and all their witnesses, numbers compared as numbers, and
//! one command-line vocabulary.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::bin;

/// Writes `text` to a fresh file under the target directory.
fn file(name: &str, text: &str) -> PathBuf {
    common::scratch_file("truth", name, text)
}

use common::{stderr, stdout};

const FILES: &str = "prop p : Forall f . close(f) -> @ P open(f)\n";

/// `hindsight run ARGS... SPEC TRACE` on the spec FILES and `trace`.
fn run(args: &[&str], trace_name: &str, trace: &str) -> Output {
    // One specification file per trace: tests run in parallel.
    let spec = file(&format!("{trace_name}.qtl"), FILES);
    let trace = file(trace_name, trace);
    bin()
        .arg("run")
        .args(args)
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs")
}

fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

#[test]
fn wrong_shaped_traces_fail_with_their_cause() {
    // A MonPoly log is recognised by its content and read as one.
    let out = run(&[], "mp.log", "@10 open(cfg)\n@11 close(cfg)\n");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("events by name: close 1, open 1"),
        "{}",
        stdout(&out)
    );
    let cases = [
        (
            "semi.csv",
            "open;cfg\nclose;cfg\n",
            "contains `;` after the event name `close`",
        ),
        (
            "caps.csv",
            "Open,cfg\nClose,cfg\n",
            "differs from the specification's `close` only in case",
        ),
        ("tabs.csv", "open\tcfg\nclose\tcfg\n", "contains a tab"),
    ];
    // XML and JSON are recognised by their content; these are not events
    // of the CRV shape, so they are input errors naming the line.
    for (name, trace) in [
        ("x.xml", "<log>\n<event name=\"open\"/>\n"),
        ("j.jsonl", "{\"name\": \"open\"}\n"),
    ] {
        let out = run(&[], name, trace);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stdout(&out));
        assert!(
            last_line(&out).starts_with("STATUS: Error (input error at line "),
            "{name}: {}",
            last_line(&out)
        );
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") && err.contains(name),
            "{name}: {err}"
        );
    }
    for (name, trace, cause) in cases {
        let out = run(&[], name, trace);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stdout(&out));
        assert!(
            last_line(&out).starts_with("STATUS: Error (the trace looks misread (line 1: `"),
            "{name}: {}",
            last_line(&out)
        );
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{name}: {err}");
        assert!(err.contains(cause), "{name}: {err}");
    }
}

#[test]
fn partly_known_names_give_a_warning_and_the_verdict() {
    let out = run(
        &[],
        "part.csv",
        "open,a\nclose,a\nclsoe,b\nOpen,c\nclose,b\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(last_line(&out), "STATUS: Violated");
    let err = stderr(&out);
    assert!(
        err.contains(
            "warning: 2 of 5 events have a name that no property mentions: `Open` (1), `clsoe` (1)"
        ),
        "{err}"
    );
    assert!(err.contains("`clsoe`: did you mean `close`?"), "{err}");
    assert!(err.contains("only in case"), "{err}");
    // A name without a likely mistake is only in the summary.
    let out = run(&[], "tick.csv", "open,a\ntick\nclose,a\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "");
    assert!(stdout(&out).contains("in the trace but not in the spec: tick"));
}

#[test]
fn strict_rejects_unknown_events() {
    let out = run(&["--strict"], "strict.csv", "open,a\ntick\nclose,a\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("strict.csv:line 2: event `tick` is not in the specification (--strict)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        last_line(&out),
        "STATUS: Error (input error at line 2; 0 violations found before it)"
    );
}

#[test]
fn an_input_error_is_the_status_with_the_violations_before_it() {
    let out = run(&[], "late.csv", "close,a\nclose,b\nopen,a,b\n");
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(
        text.starts_with("property p violated at event 1: close(a)\n"),
        "{text}"
    );
    assert_eq!(
        last_line(&out),
        "STATUS: Error (input error at line 3; 2 violations found before it)"
    );
    let out = run(&["--json"], "late2.csv", "close,a\nclose,b\nopen,a,b\n");
    let summary: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap_or_default()).expect("json");
    assert_eq!(summary["status"], "Error");
    assert_eq!(
        summary["failure"],
        "input error at line 3; 2 violations found before it"
    );
}

#[test]
fn bad_lines_are_skipped_and_counted() {
    // 2 of 5 lines skipped: within --max-skipped 40%.
    let trace = "open,a\nopen,a,b\nclose,a\nclose\nclose,b\n";
    for flag in [
        &["--on-error", "skip", "--max-skipped", "40"][..],
        &["--skip-bad-lines", "--max-skipped", "40%"][..],
    ] {
        let out = run(flag, "bad.csv", trace);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let text = stdout(&out);
        // close(b) is event 3 (the bad lines are not events), on line 5.
        assert!(
            text.starts_with("property p violated at event 3 (line 5): close(b)\n"),
            "{text}"
        );
        assert!(text.contains("events processed: 3 in "), "{text}");
        assert!(
            text.contains("bad lines skipped: 2 (lines 2, 4)\n"),
            "{text}"
        );
        assert_eq!(last_line(&out), "STATUS: Violated");
    }
    // Broken quoting still ends the run.
    let out = run(&["--skip-bad-lines"], "quote.csv", "open,a\nclose,\"a\n");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn arity_errors_and_timed_specs_mention_timed() {
    let out = run(&[], "stamped.csv", "open,a,10\nclose,a,12\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("if the last field is the event's time stamp, use --timed"),
        "{}",
        stderr(&out)
    );
    let spec = file(
        "timed.qtl",
        "prop t : Forall f . close(f) -> P[<=5] open(f)\n",
    );
    let trace = file("untimed.csv", "open,a\nclose,a\n");
    let out = bin()
        .arg("run")
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains(
            "the specification has time bounds but the trace is read without time stamps"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn violations_carry_their_line() {
    let out = run(&["--json"], "lines.csv", "open,a\n\nclose,b\n");
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or_default()).expect("json");
    assert_eq!(first["event"], 2);
    assert_eq!(first["line"], 3);
    let out = run(&[], "lines2.csv", "open,a\n\nclose,b\n");
    assert!(stdout(&out).starts_with("property p violated at event 2 (line 3): close(b)\n"));
}

#[test]
fn all_witnesses_lists_every_falsifying_tuple() {
    let spec = file(
        "all.qtl",
        "prop allClosed : forall f . end -> (P open(f) -> P close(f))\n",
    );
    let trace = file("all.csv", "open,a\nopen,b\nopen,c\nopen,d\nclose,b\nend\n");
    let go = |extra: &[&str]| {
        bin()
            .args(["run", "--all-witnesses"])
            .args(extra)
            .arg(&spec)
            .arg(&trace)
            .output()
            .expect("runs")
    };
    let out = go(&[]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("property allClosed violated at event 6: end; 3 witnesses: f=a | f=c | f=d")
    );
    let out = go(&["--max-witnesses", "2"]);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("property allClosed violated at event 6: end; 3 witnesses: f=a | f=c | (+ 1 more)")
    );
    let out = go(&["--max-witnesses", "1", "--json"]);
    let v: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or_default()).expect("json");
    assert_eq!(v["witness_count"], 3);
    assert_eq!(v["witnesses"], serde_json::json!([{"f": "a"}]));
}

#[test]
fn decimals_and_negatives_compare_as_numbers() {
    let spec = file(
        "num.qtl",
        "prop cool : Forall t . temp(t) -> t < 2.5\n\
         prop rising : Forall a . Forall b . (temp(b) & @ temp(a)) -> a <= b\n",
    );
    let trace = file(
        "num.csv",
        "temp,-3\ntemp,-2.75\ntemp,2.25\ntemp,10\ntemp,9.5\n",
    );
    let out = bin()
        .arg("run")
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" violated ")).collect();
    assert_eq!(
        lines,
        [
            "property cool violated at event 4: temp(10)",
            "property cool violated at event 5: temp(9.5)",
            "property rising violated at event 5: temp(9.5)",
        ]
    );
}

#[test]
fn quoted_event_names_may_have_dots() {
    let spec = file(
        "dots.qtl",
        "pred \"proc.start\"(p), \"proc.stop\"(p)\nprop started : Forall p . \"proc.stop\"(p) -> @ P \"proc.start\"(p)\n",
    );
    let trace = file("dots.csv", "proc.start,1\nproc.stop,1\nproc.stop,2\n");
    let out = bin()
        .arg("run")
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("property started violated at event 3: proc.stop(2)\n"));
}

#[test]
fn dash_is_standard_input_and_output_a_file() {
    let spec = file("files2.qtl", FILES);
    let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("truth/report.jsonl");
    let mut child = bin()
        .args(["run", "--json", "-o"])
        .arg(&report)
        .arg(&spec)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"open,a\nclose,b\n")
        .expect("write");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "", "the report goes to the file");
    let text = std::fs::read_to_string(&report).expect("report written");
    assert!(text.starts_with("{\"args\":[\"b\"],\"event\":2,"), "{text}");
    // The former `--output json` still works, with a note.
    let trace = file("t.csv", "open,a\n");
    let out = bin()
        .args(["run", "--output", "json"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("{\"codes_released\""));
    assert!(stderr(&out).contains("former spelling of `--report json`"));
    // The specification from standard input.
    let mut child = bin()
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(FILES.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("ends");
    assert_eq!(stdout(&out), "-: well-formed, 1 property\n");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let out = run(&["--color", "always"], "c1.csv", "close,a\n");
    let text = stdout(&out);
    assert!(
        text.starts_with("\x1b[1;31mproperty p violated\x1b[0m at event 1"),
        "{text:?}"
    );
    assert!(
        text.ends_with("\x1b[1;31mSTATUS: Violated\x1b[0m\n"),
        "{text:?}"
    );
    // Not a terminal: no colour by default.
    let out = run(&[], "c2.csv", "close,a\n");
    assert!(!stdout(&out).contains('\x1b'));
}

#[test]
fn swapped_arguments_and_unknown_properties_get_suggestions() {
    let spec = file("files3.qtl", FILES);
    let trace = file("sw.csv", "open,a\n");
    let out = bin()
        .arg("run")
        .arg(&trace)
        .arg(&spec)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("hint: the specification comes first, then the trace"),
        "{}",
        stderr(&out)
    );
    let spec = file(
        "named.qtl",
        "prop closeOnlyOpen : Forall f . close(f) -> @ P open(f)\n",
    );
    let out = bin()
        .args(["run", "--property", "closeOnlyOpn"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("has no property `closeOnlyOpn` (did you mean `closeOnlyOpen`?)"),
        "{}",
        stderr(&out)
    );
    // clap's own suggestion for a misspelt flag.
    let out = bin()
        .args(["run", "--stirct"])
        .arg(&spec)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--strict"), "{}", stderr(&out));
}

#[test]
fn plot_names_the_format_it_cannot_write() {
    let profile = file("p.csv", "event,seconds\n1,0.1\n");
    let out = bin()
        .arg("plot")
        .arg(&profile)
        .args(["-o", "chart.png"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the format `.png` is not supported"),
        "{}",
        stderr(&out)
    );
    assert!(!std::path::Path::new("chart.png").exists());
}

/// `hindsight run SPEC` with a terminal (made by `script`) as standard input
/// and output; `no_color`: the value of NO_COLOR, if set.
fn on_a_terminal(no_color: Option<&str>) -> String {
    let spec = file("tty.qtl", FILES);
    let command = format!("{} run {}", env!("CARGO_BIN_EXE_hindsight"), spec.display());
    let mut script = Command::new("script");
    script
        .args(["-qfec", &command, "/dev/null"])
        .stdin(Stdio::null());
    match no_color {
        Some(v) => script.env("NO_COLOR", v),
        None => script.env_remove("NO_COLOR"),
    };
    let out = script.output().expect("script runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_terminal_on_standard_input_gets_a_note_and_colours() {
    let shown = on_a_terminal(Some("1"));
    assert!(
        shown
            .starts_with("hindsight: reading the trace from the terminal: type one event per line"),
        "{shown:?}"
    );
    assert!(shown.ends_with("\nSTATUS: Satisfied\r\n"), "{shown:?}");
    let coloured = on_a_terminal(None);
    assert!(
        coloured.ends_with("\x1b[1;32mSTATUS: Satisfied\x1b[0m\r\n"),
        "{coloured:?}"
    );
}

#[test]
fn crv_files_read_as_the_competition_writes_them() {
    // A header such as `Event,user` is the CRV header, not an event; a
    // quoted field may follow the space after a comma, and keeps its comma.
    let out = run(
        &[],
        "crv.csv",
        "Event,user\nopen, \"a, b\"\nclose, \"a, b\"\nclose, c\n",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("property p violated at event 3 (line 4): close(c)\n"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("events by name: close 2, open 1"),
        "{}",
        stdout(&out)
    );
    assert_eq!(last_line(&out), "STATUS: Violated");
    // Forced plain CSV, the header is an event the spec does not know: said.
    let out = run(
        &["--format", "plain"],
        "crv-plain.csv",
        "Event,user\nopen,a\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("warning: 1 of 2 events have a name that no property mentions: `Event` (1)")
            && stderr(&out).contains("looks like the header line of a CRV CSV trace")
            && stderr(&out).contains("--format crv"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn events_written_as_calls_get_a_hint() {
    let out = run(&[], "calls.txt", "open(cfg)\nclose(cfg)\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        last_line(&out),
        "STATUS: Error (the trace looks misread (line 1: `open(cfg)`))"
    );
    let err = stderr(&out);
    assert!(
        err.contains("hint: `close(cfg)` is written as a call `name(args)`")
            || err.contains("hint: `open(cfg)` is written as a call `name(args)`"),
        "{err}"
    );
    assert!(err.contains("--format monpoly"), "{err}");
    // A MonPoly log forced to CSV gets the flag that reads it.
    let out = run(
        &["--format", "plain"],
        "forced.log",
        "@10 open(cfg)\n@11 close(cfg)\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "looks like a MonPoly log line (`@TIME name(args)`): read it with --format monpoly"
        ),
        "{}",
        stderr(&out)
    );
}
