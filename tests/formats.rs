//! End-to-end tests of the trace formats: XML, JSON and MonPoly logs with
//! `hindsight run`, named fields mapped by the specification's
//! declarations, `--format`, `--timepoints`, compressed files and standard
//! input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Output, Stdio};

mod common;
use common::{bin, scratch_file, stderr, stdout};

/// Writes `bytes` to a fresh file under the target directory.
fn file(name: &str, bytes: &[u8]) -> PathBuf {
    scratch_file("formats", name, bytes)
}

fn run(args: &[&str], spec: &PathBuf, trace: &PathBuf) -> Output {
    bin()
        .arg("run")
        .args(args)
        .arg(spec)
        .arg(trace)
        .output()
        .expect("runs")
}

/// The violation lines of a run.
/// The violations reported, without the line of the trace file (which
/// differs between formats: ` (line N)` after the event number).
fn violations(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .take_while(|l| *l != "---")
        .map(|l| match l.find(" (line ") {
            Some(a) => match l[a..].find(')') {
                Some(b) => format!("{}{}", &l[..a], &l[a + b + 1..]),
                None => l.to_owned(),
            },
            None => l.to_owned(),
        })
        .collect()
}

const SPEC: &str = "pred login(user), logout(user), access(user, file)
prop access : Forall u . Forall f . access(u, f) -> [login(u), logout(u))
";

/// The same trace in CSV: access by bob (event 3) violates.
const CSV: &str = "login,alice\naccess,alice,f1\naccess,bob,f2\nlogout,alice\naccess,alice,f1\n";

const XML: &str = "<log>
<event><name>login</name><field><name>user</name><value>alice</value></field></event>
<event><name>access</name>
  <field><name>file</name><value>f1</value></field>
  <field><name>user</name><value>alice</value></field></event>
<event><name>access</name>
  <field><name>file</name><value>f2</value></field>
  <field><name>user</name><value>bob</value></field></event>
<event><name>logout</name><field><name>user</name><value>alice</value></field></event>
<event><name>access</name>
  <field><name>user</name><value>alice</value></field>
  <field><name>file</name><value>f1</value></field></event>
</log>
";

const JSON: &str = r#"{"login": {"user": "alice"}}
{"access": {"file": "f1", "user": "alice"}}
{"access": {"file": "f2", "user": "bob"}}
{"logout": {"user": "alice"}}
{"access": {"user": "alice", "file": "f1"}}
"#;

const MONPOLY: &str = "@10 login(alice) access(alice, f1)\n@11 access (bob, f2)\n@12 logout(alice)\n@13 access(alice, \"f1\")\n";

const EXPECTED: [&str; 2] = [
    "property access violated at event 3: access(bob, f2)",
    "property access violated at event 5: access(alice, f1)",
];

#[test]
fn every_format_gives_the_verdicts_of_the_csv_trace() {
    let spec = file("access.qtl", SPEC.as_bytes());
    let out = run(&[], &spec, &file("access.csv", CSV.as_bytes()));
    assert_eq!(violations(&out), EXPECTED);
    for (name, text) in [("access.xml", XML), ("access.json", JSON)] {
        let out = run(&[], &spec, &file(name, text.as_bytes()));
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert_eq!(violations(&out), EXPECTED, "{name}");
    }
    // MonPoly: the time stamps are shown.
    let out = run(&[], &spec, &file("access.log", MONPOLY.as_bytes()));
    assert_eq!(
        violations(&out),
        [
            "property access violated at event 3 at time 11: access(bob, f2)",
            "property access violated at event 5 at time 13: access(alice, f1)",
        ]
    );
}

#[test]
fn missing_and_unknown_fields_are_errors_naming_the_line() {
    let spec = file("access2.qtl", SPEC.as_bytes());
    let missing = XML.replace("<field><name>file</name><value>f2</value></field>", "");
    let out = run(&[], &spec, &file("missing.xml", missing.as_bytes()));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "missing.xml:line 6: missing field `file` in event `access`: the specification declares `access(user, file)`"
        ),
        "{}",
        stderr(&out)
    );
    // The verdicts found before the error are reported.
    assert_eq!(violations(&out), Vec::<String>::new());
    let unknown = JSON.replace("\"user\": \"bob\"", "\"user\": \"bob\", \"mode\": \"rw\"");
    let out = run(&[], &spec, &file("unknown.json", unknown.as_bytes()));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown.json:line 3: unknown field `mode` in event `access`"),
        "{}",
        stderr(&out)
    );
    // Without declarations, fields are taken in the order written: the
    // reordered events then differ.
    let undeclared = file(
        "undeclared.qtl",
        b"prop access : Forall u . Forall f . access(u, f) -> [login(u), logout(u))\n",
    );
    let out = run(&[], &undeclared, &file("access3.json", JSON.as_bytes()));
    assert_eq!(
        violations(&out),
        [
            "property access violated at event 2: access(f1, alice)",
            "property access violated at event 3: access(f2, bob)",
            "property access violated at event 5: access(alice, f1)",
        ]
    );
}

#[test]
fn timepoints_make_a_time_point_one_step() {
    let spec = file("pq.qtl", b"prop pq : Forall x . !(p(x) & q(x))\n");
    let log = file("pq.log", b"@1 p(a) q(b)\n@2 p(c) q(c)\n@3 q(c)\n");
    // By default each event is a step: p(c) and q(c) never hold together.
    let out = run(&[], &spec, &log);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("events processed: 5 "),
        "{}",
        stdout(&out)
    );
    // With --timepoints, the second time-point is one step where both hold.
    let out = run(&["--timepoints"], &spec, &log);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        violations(&out),
        ["property pq violated at event 2 at time 2: p(c)"]
    );
    assert!(
        stdout(&out).contains("events processed: 3 "),
        "{}",
        stdout(&out)
    );
}

/// A bad event in a time-point is what it is in a run of single events:
/// `--strict` stops at a name the specification does not use, a wrong
/// number of arguments names the event's line (with the hint of a time
/// stamp), and `--skip-bad-lines` skips the event's whole time-point.
#[test]
fn timepoints_keep_the_options_for_bad_events() {
    let spec = file("tpbad.qtl", b"prop p : Forall x . b(x) -> P a(x)\n");
    // Time-point 2 has a name the specification does not use, time-point 3
    // an event with two arguments.
    let log = file(
        "tpbad.log",
        b"@1 a(1)\n@2 b(1) c(2)\n@3 a(5) b(2, x)\n@4 b(5)\n",
    );
    let out = run(&["--timepoints", "--strict"], &spec, &log);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2: event `c` is not in the specification (--strict)"),
        "{}",
        stderr(&out)
    );
    let out = run(&["--timepoints"], &spec, &log);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("line 3: event `b` has 2 arguments, but the specification uses it with 1"),
        "{}",
        stderr(&out)
    );
    // Time-point 3 skipped whole, `a(5)` with it: b(5) violates.
    let out = run(
        &["--timepoints", "--skip-bad-lines", "--max-skipped", "50%"],
        &spec,
        &log,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        violations(&out),
        ["property p violated at event 4 at time 4: b(5)"]
    );
    assert!(
        stdout(&out).contains("bad lines skipped: 1 (line 3)"),
        "{}",
        stdout(&out)
    );
    // In CSV, the hint that the last field may be a time stamp.
    let csv = file("tpbad.csv", b"a,1\nb,1\nb,2,3\n");
    let out = run(&["--timepoints"], &spec, &csv);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 3: event `b` has 2 arguments, but the specification uses it with 1 (if the last field is the event's time stamp, use --timed)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn format_forced() {
    let spec = file("ev.qtl", b"prop e : !open\n");
    // Detected as CRV (the header); forced plain, `event` is an event.
    let trace = file("ev.csv", b"event\nopen\n");
    let out = run(&[], &spec, &trace);
    assert_eq!(violations(&out), ["property e violated at event 1: open"]);
    let out = run(&["--format", "plain"], &spec, &trace);
    assert_eq!(violations(&out), ["property e violated at event 2: open"]);
    let out = run(&["--format", "monpoly"], &spec, &trace);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("ev.csv:line 1: expected `@`"),
        "{}",
        stderr(&out)
    );
    let out = run(
        &["--format", "xml"],
        &spec,
        &file("ev.json", b"{\"event\": {}}"),
    );
    assert_eq!(out.status.code(), Some(2));
}

fn gzip(text: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text).expect("in memory");
    enc.finish().expect("in memory")
}

#[test]
fn compressed_files_and_standard_input() {
    let spec = file("access4.qtl", SPEC.as_bytes());
    let zst = zstd::encode_all(JSON.as_bytes(), 3).expect("in memory");
    for (name, bytes) in [
        ("a.csv.gz", gzip(CSV.as_bytes())),
        ("a.json.zst", zst.clone()),
        ("a.xml.gz", gzip(XML.as_bytes())),
    ] {
        let out = run(&[], &spec, &file(name, &bytes));
        assert_eq!(violations(&out), EXPECTED, "{name}");
    }
    let mut child = bin()
        .arg("run")
        .arg(&spec)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&zst)
        .expect("write");
    let out = child.wait_with_output().expect("runs");
    assert_eq!(violations(&out), EXPECTED);
    // A truncated stream is an input error.
    let out = run(&[], &spec, &file("cut.csv.gz", &gzip(CSV.as_bytes())[..30]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read the trace"),
        "{}",
        stderr(&out)
    );
}
