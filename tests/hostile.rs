//! Hostile inputs, end to end through the binary: huge lines and fields,
//! bytes that are not text, odd line ends, truncated traces, absurd arities,
//! integers beyond 64 bits, deep and wide specifications, empty files, a
//! closed standard output and Ctrl-C. Each gets the right verdict or a clear
//! error naming its place, with exit status 0, 1, 2 (or 130), and no panic.
//!
//! Large inputs are generated at test time, in a temporary directory or
//! streamed through a pipe.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Output, Stdio};
use std::thread;

mod common;
use common::{bin, scratch_dir, scratch_file, stderr, stdout};

/// The directory of the test files.
fn dir() -> PathBuf {
    scratch_dir("hostile")
}

/// Writes `bytes` to a fresh file under the target directory; its path.
fn file(name: &str, bytes: &[u8]) -> PathBuf {
    scratch_file("hostile", name, bytes)
}

/// Runs `hindsight run NAME.qtl NAME.csv args...` in the test directory,
/// with `spec` and `trace` written there.
fn run(spec: &str, trace: &[u8], name: &str, args: &[&str]) -> Output {
    file(&format!("{name}.qtl"), spec.as_bytes());
    file(&format!("{name}.csv"), trace);
    bin()
        .current_dir(dir())
        .arg("run")
        .args(args)
        .arg(format!("{name}.qtl"))
        .arg(format!("{name}.csv"))
        .output()
        .expect("runs")
}

/// Runs `hindsight run SPEC` with `feed` writing the trace to its standard
/// input (write errors, once the monitor has stopped reading, are ignored).
fn run_stdin(spec: &str, name: &str, feed: impl FnOnce(&mut dyn Write) + Send + 'static) -> Output {
    let spec = file(&format!("{name}.qtl"), spec.as_bytes());
    let mut child = bin()
        .arg("run")
        .arg(&spec)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = thread::spawn(move || feed(&mut stdin));
    let out = child.wait_with_output().expect("waits");
    writer.join().expect("writer thread");
    out
}

/// No panic, no Rust runtime noise.
fn assert_calm(o: &Output) {
    let err = stderr(o);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}

/// The violation lines of a text report.
fn violations(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.starts_with("property ") && l.contains(" violated at event "))
        .map(str::to_owned)
        .collect()
}

/// Seen before, with the same argument.
const REPEAT: &str = "prop p : Forall x . ev(x) -> !@ P ev(x)\n";

#[test]
fn line_of_100_mb_is_rejected_at_the_event_size_limit() {
    // Two events (a violation), then one line of 100 MB that never ends,
    // streamed: the reader stops at 16 MiB and names line 3.
    let out = run_stdin(REPEAT, "line100mb", |w| {
        let _ = w.write_all(b"ev,a\nev,a\nev,");
        let block = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            if w.write_all(&block).is_err() {
                return;
            }
        }
    });
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "error: <stdin>:line 3: event too long: more than 16777216 bytes, the maximum size \
         of an event (a line end missing, or a quoted field never closed?)\n"
    );
    assert_eq!(violations(&out), ["property p violated at event 2: ev(a)"]);
    let text = stdout(&out);
    assert!(text.contains("events processed: 2 "), "{text}");
    assert!(
        text.contains("stopped early: <stdin>:line 3: event too long"),
        "{text}"
    );
    assert!(
        text.ends_with("STATUS: Error (input error at line 3; 1 violation found before it)\n"),
        "{text}"
    );
}

#[test]
fn event_size_limit_can_be_set() {
    let line = format!("ev,{}\n", "y".repeat(2000));
    let trace = format!("ev,a\n{line}{line}");
    let out = run(
        REPEAT,
        trace.as_bytes(),
        "limit",
        &["--max-event-size", "1K"],
    );
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("limit.csv:line 2: event too long: more than 1024 bytes"),
        "{}",
        stderr(&out)
    );
    // Raised, the same trace is monitored: the long value repeats.
    let out = run(
        REPEAT,
        trace.as_bytes(),
        "limit",
        &["--max-event-size", "4K"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = violations(&out);
    assert_eq!(v.len(), 1);
    assert!(v[0].starts_with("property p violated at event 3: ev(yyyy"));
    // A bad size is a usage error.
    let out = run(REPEAT, b"", "limit", &["--max-event-size", "12Q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`12Q` is not a size"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn field_of_10_mb_is_monitored() {
    let big = "z".repeat(10 << 20);
    let trace = format!("ev,{big}\nev,{big}x\nev,{big}\n");
    let out = run(REPEAT, trace.as_bytes(), "field10mb", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The event is reported whole.
    assert_eq!(
        violations(&out),
        [format!("property p violated at event 3: ev({big})")]
    );
    assert!(stdout(&out).contains("events processed: 3 "));
}

#[test]
fn bytes_that_are_not_utf8_are_values() {
    // Distinct invalid sequences are distinct values, even though they print
    // alike; the same bytes again are the same value.
    let out = run(
        REPEAT,
        b"ev,\xff\nev,\xfe\nev,a\xff\xfeb\nev,\xff\n",
        "utf8",
        &[],
    );
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        violations(&out),
        ["property p violated at event 4: ev(\u{fffd})"]
    );
    // JSON output stays valid JSON.
    let out = run(
        REPEAT,
        b"ev,\xff\nev,\xff\n",
        "utf8json",
        &["--report", "json"],
    );
    assert_eq!(out.status.code(), Some(1));
    for line in stdout(&out).lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "{line}"
        );
    }
}

#[test]
fn spec_that_is_not_utf8_is_an_error_at_its_place() {
    let spec = file(
        "bad-utf8.qtl",
        b"prop p :\n  ev(\"caf\xc3\xa9\") | ev(\"\xff\")\n",
    );
    let out = bin().arg("check").arg(&spec).output().expect("runs");
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "{}:2:20: error: invalid UTF-8 (byte 29): a specification must be UTF-8 text\n",
            spec.display()
        )
    );
}

#[test]
fn nul_bytes() {
    let out = run(REPEAT, b"ev,a\0b\nev,a\0c\nev,a\0b\n", "nul", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1));
    // Shown escaped, so that a report line is always one line.
    assert_eq!(
        violations(&out),
        ["property p violated at event 3: ev(a\\0b)"]
    );
    let out = run(
        REPEAT,
        b"ev,\"two\nlines\"\nev,\"two\nlines\"\nev,\x1b[2J\nev,\x1b[2J\n",
        "controls",
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out).lines().take(2).collect::<Vec<_>>(),
        [
            "property p violated at event 2 (line 3): ev(two\\nlines)",
            "property p violated at event 4 (line 6): ev(\\u{1b}[2J)",
        ]
    );
    // In a specification: a syntax error at its place.
    let spec = file("nul.qtl", b"prop p :\n  true & \0ev\n");
    let out = bin().arg("check").arg(&spec).output().expect("runs");
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "{}:2:10: error: unexpected character `\\0`",
            spec.display()
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mixed_line_ends() {
    // CRLF and LF mix freely; a `\r` that is not part of a CRLF is data.
    let out = run(
        REPEAT,
        b"ev,a\r\nev,a\nev,b\r\r\nev,b\n\nev,b\r\n\r\nev,c\r",
        "crlf",
        &[],
    );
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        violations(&out),
        [
            "property p violated at event 2: ev(a)",
            "property p violated at event 5 (line 6): ev(b)",
        ]
    );
    assert!(stdout(&out).contains("events processed: 6 "));
    // A lone `\r` does not end a line: here it makes one event of two, with
    // two arguments.
    let out = run(REPEAT, b"ev,a\nev,c\rev,d\n", "cr", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: cr.csv:line 2: event `ev` has 2 arguments, but the specification uses it with 1\n"
    );
}

#[test]
fn trace_truncated_mid_line() {
    // Inside a quoted field: broken quoting, after the verdicts so far.
    let out = run(REPEAT, b"ev,a\nev,a\nev,\"b", "trunc-quote", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: trunc-quote.csv:line 3: broken quoting: a quoted field is never closed \
         (unterminated `\"`; write a literal quote as `\"\"` inside a quoted field)\n"
    );
    assert_eq!(violations(&out), ["property p violated at event 2: ev(a)"]);
    // Before the arguments: an arity error.
    let out = run(REPEAT, b"ev,a\nev,a\nev", "trunc-name", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: trunc-name.csv:line 3: event `ev` has 0 arguments, but the specification \
         uses it with 1\n"
    );
    assert_eq!(violations(&out).len(), 1);
    // In a timed trace, before the time stamp.
    let out = run(REPEAT, b"ev,a,1\nev,a,2\nev,a,", "trunc-time", &["--timed"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: trunc-time.csv:line 3: missing timestamp: the last field, the time, is empty\n"
    );
    assert_eq!(
        violations(&out),
        ["property p violated at event 2 at time 2: ev(a)"]
    );
}

#[test]
fn ten_thousand_arguments_is_an_arity_error() {
    let mut trace = b"ev,a\nev,a\nev".to_vec();
    for i in 0..10_000 {
        trace.extend_from_slice(format!(",{i}").as_bytes());
    }
    trace.extend_from_slice(b"\nev,b\n");
    let out = run(REPEAT, &trace, "args", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: args.csv:line 3: event `ev` has 10000 arguments, but the specification uses \
         it with 1\n"
    );
    assert_eq!(violations(&out), ["property p violated at event 2: ev(a)"]);
    let text = stdout(&out);
    assert!(text.contains("events processed: 2 "), "{text}");
    assert!(text.contains("stopped early: args.csv:line 3: event `ev` has 10000 arguments"));
    // An event the specification does not mention may have any arity.
    let mut other = b"ev,a\nev,a\nother".to_vec();
    other.extend_from_slice(&trace[b"ev,a\nev,a\nev".len()..]);
    let out = run(REPEAT, &other, "args-other", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("events processed: 4 "));
}

#[test]
fn integers_beyond_64_bits_compare_numerically() {
    let spec = "prop lt : Forall x . Forall y . lt(x, y) -> x < y\n\
                prop big : Forall x . big(x) -> x > 18446744073709551615\n";
    let trace = b"lt,99999999999999999999,100000000000000000000\n\
                  lt,-100000000000000000000,-99999999999999999999\n\
                  lt,18446744073709551616,18446744073709551615\n\
                  lt,0000000000000000000000000000007,7\n\
                  lt,-9223372036854775809,9223372036854775808\n\
                  big,18446744073709551616\n\
                  big,18446744073709551615\n\
                  big,-99999999999999999999999999999\n";
    let out = run(spec, trace, "bigint", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        violations(&out),
        [
            "property lt violated at event 3: lt(18446744073709551616, 18446744073709551615)",
            "property lt violated at event 4: lt(0000000000000000000000000000007, 7)",
            "property big violated at event 7: big(18446744073709551615)",
            "property big violated at event 8: big(-99999999999999999999999999999)",
        ]
    );
    // Time stamps are 64-bit: one beyond is an error naming its line.
    let out = run(
        REPEAT,
        b"ev,a,1\nev,b,18446744073709551616\n",
        "bigtime",
        &["--timed"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: bigtime.csv:line 2: timestamp `18446744073709551616` is out of range (the \
         maximum is 18446744073709551615)\n"
    );
}

#[test]
fn deeply_nested_formulas() {
    let n = 100_000;
    let trace = b"ev,1\nev,2\nev,1\n";
    // (((...ev(1)...))) holds at events 1 and 3 only.
    let parens = format!("prop p : {}ev(1){}\n", "(".repeat(n), ")".repeat(n));
    // An even number of negations.
    let nots = format!("prop p : {}ev(1)\n", "!".repeat(n));
    // ev(1) -> ev(1) -> ... -> ev(2) (right-associative) fails where ev(1)
    // holds.
    let chain = format!("prop p : {}ev(2)\n", "ev(1) -> ".repeat(n));
    // @...@ true: false on the first n events.
    let prevs = format!("prop p : {}true\n", "@".repeat(n));
    for (name, spec, expected) in [
        ("deep-parens", parens, vec![2]),
        ("deep-nots", nots, vec![2]),
        ("deep-chain", chain, vec![1, 3]),
        ("deep-prevs", prevs, vec![1, 2, 3]),
    ] {
        let out = run(&spec, trace, name, &[]);
        assert_calm(&out);
        let expected: Vec<String> = expected
            .iter()
            .map(|&i| format!("property p violated at event {i}: ev({})", 2 - i % 2))
            .collect();
        assert_eq!(violations(&out), expected, "{name}: {}", stderr(&out));
        assert_eq!(out.status.code(), Some(1), "{name}");
    }
    // More variables than a monitor can hold: an error at the property.
    let quants: String = (0..10_000)
        .map(|i| format!("Exists x{i} . ev(x{i}) & ("))
        .collect();
    let spec = format!("prop p :\n {quants}true{}\n", ")".repeat(10_000));
    let out = run(&spec, trace, "deep-vars", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(2));
    let error = "deep-vars.qtl:1:6: error: property `p` has 10000 variables; at most 8191 fit \
                 in one monitor";
    assert!(stderr(&out).contains(error), "{}", stderr(&out));
    // `check` finds it too.
    let out = bin()
        .current_dir(dir())
        .args(["check", "deep-vars.qtl"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(error), "{}", stderr(&out));
}

#[test]
fn ten_thousand_properties() {
    let spec: String = (0..10_000)
        .map(|i| format!("prop p{i} : Forall x . ev(x) -> !(x = {i})\n"))
        .collect();
    let out = run(&spec, b"ev,5\nev,20000\nev,9999\n", "props", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        violations(&out),
        [
            "property p5 violated at event 1: ev(5)",
            "property p9999 violated at event 3: ev(9999)",
        ]
    );
    let text = stdout(&out);
    assert_eq!(text.matches(": no violation\n").count(), 9_998);
    assert!(text.ends_with("STATUS: Violated\n"));
}

#[test]
fn empty_spec() {
    let spec = file("empty.qtl", b"");
    let out = bin().arg("check").arg(&spec).output().expect("runs");
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).starts_with(&format!(
            "{}:1:1: warning: the specification has no properties: every trace satisfies it\n",
            spec.display()
        )),
        "{}",
        stderr(&out)
    );
    let out = run("// nothing\n", b"ev,a\nev,a\n", "empty-run", &[]);
    assert_calm(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning: the specification has no properties"));
    assert!(stdout(&out).contains("events processed: 2 "));
    assert!(stdout(&out).ends_with("STATUS: Satisfied\n"));
}

#[test]
fn empty_trace() {
    for (name, trace) in [
        ("empty-trace", &b""[..]),
        ("blank-trace", b"\n \n\t\r\n"),
        ("header-only", b"event, x\n"),
    ] {
        let out = run(REPEAT, trace, name, &[]);
        assert_calm(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "warning: the trace has no event: nothing was checked (no property is violated \
             on an empty trace)\n",
            "{name}"
        );
        let text = stdout(&out);
        assert!(text.contains("events processed: 0 "), "{name}: {text}");
        assert!(
            text.contains("in the spec but never occurred: ev"),
            "{name}"
        );
        assert!(text.ends_with("STATUS: Satisfied\n"), "{name}");
    }
}

/// Spawns `hindsight` with its standard output a pipe whose reading end is
/// closed at once.
fn with_closed_stdout(args: &[&std::ffi::OsStr]) -> Output {
    let mut child: Child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("waits")
}

#[test]
fn closed_stdout_ends_the_run_quietly() {
    // Far more output than a pipe holds.
    let trace: String = (0..20_000).map(|i| format!("ev,{i}\nev,{i}\n")).collect();
    let spec = file("closed.qtl", REPEAT.as_bytes());
    let trace = file("closed.csv", trace.as_bytes());
    for format in ["text", "json"] {
        let out = with_closed_stdout(&[
            "run".as_ref(),
            "--report".as_ref(),
            format.as_ref(),
            spec.as_os_str(),
            trace.as_os_str(),
        ]);
        assert_eq!(stderr(&out), "", "{format}");
        // The status of what was found: violations.
        assert_eq!(out.status.code(), Some(1), "{format}");
    }
    // Also from standard input, and for check and compile.
    let mut child = bin()
        .arg("run")
        .arg(&spec)
        .stdin(std::fs::File::open(&trace).expect("trace"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    assert_eq!((stderr(&out).as_str(), out.status.code()), ("", Some(1)));
    for cmd in ["check", "compile"] {
        let out = with_closed_stdout(&[cmd.as_ref(), spec.as_os_str()]);
        assert_eq!(
            (stderr(&out).as_str(), out.status.code()),
            ("", Some(0)),
            "{cmd}"
        );
    }
}

#[test]
fn ctrl_c_prints_the_summary_so_far() {
    let spec = file("sigint.qtl", REPEAT.as_bytes());
    let mut child = bin()
        .arg("run")
        .arg(&spec)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    stdin
        .write_all(b"ev,a\nev,b\nev,a\nev,c\nev,c\n")
        .expect("feed");
    stdin.flush().expect("flush");
    // The violations show up while the input stays open (the monitor
    // flushes its output when it has caught up with its input)...
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let line = lines.next().expect("a line").expect("text");
        seen.push(line);
    }
    assert_eq!(
        seen,
        [
            "property p violated at event 3: ev(a)",
            "property p violated at event 5: ev(c)",
        ]
    );
    // ...and Ctrl-C ends the run, the input still open and idle.
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let rest: Vec<String> = lines.map(|l| l.expect("text")).collect();
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let code = child.wait().expect("waits").code();
    drop(stdin);
    assert_eq!(err, "");
    assert_eq!(code, Some(130));
    assert_eq!(rest[0], "---");
    assert!(rest[1].starts_with("events processed: 5 in "), "{rest:?}");
    assert!(
        rest.contains(&"events by name: ev 5".to_owned()),
        "{rest:?}"
    );
    assert!(
        rest.contains(&"property p: 2 violations (first at event 3)".to_owned()),
        "{rest:?}"
    );
    assert!(
        rest.contains(&"stopped early: interrupted (Ctrl-C)".to_owned()),
        "{rest:?}"
    );
    assert_eq!(rest.last().map(String::as_str), Some("STATUS: Violated"));
}
