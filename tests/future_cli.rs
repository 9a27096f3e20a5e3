//! Issue 37 end to end: each future operator and interval form (closed,
//! open at either end, a lower bound above 0), run by the binary on a file
//! and on standard input, with the exact violated and undecided events; the
//! end of the trace left open and closed; MFOTL's forms against MonPoly's
//! own output (MonPoly 1.4, `monpoly -sig s.sig -formula f.mfotl -log
//! t.log`, written down here).

mod common;
use common::{bin, scratch_file, stderr, stdout, violation_events};
use std::io::{BufRead, BufReader, Write};
use std::process::{Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A timed trace: `a` at 0, 4, 8; `b` at 1, 7, 9; `c` at 2, 10.
const TRACE: &str = "a,0\nb,1\nc,2\na,4\nb,7\na,8\nb,9\nc,10\n";

/// Per formula (the statement of `prop p`): the violated events and the
/// undecided ones at the end of the trace.
const CASES: &[(&str, &[u64], &[u64])] = &[
    ("a -> F[<=2] b", &[4], &[]),
    ("a -> F[2,4] b", &[1], &[6]),
    ("a -> F(1,3] b", &[1], &[6]),
    ("a -> F[1,3) b", &[4], &[]),
    ("a -> G[1,3] !c", &[1, 6], &[]),
    ("a -> G[3,4] !c", &[], &[6]),
    ("a -> X b", &[], &[]),
    ("a -> X[2,3] b", &[1, 6], &[]),
    ("a -> X(1,*) b", &[1, 6], &[]),
    ("a -> (!c U[1,4] b)", &[], &[]),
    ("a -> (!c U(0,2) b)", &[4], &[]),
    ("a -> (a U[2,3] b)", &[1, 6], &[]),
];

fn spec(dir: &str, formula: &str) -> std::path::PathBuf {
    scratch_file(dir, "p.qtl", format!("prop p : {formula}\n"))
}

/// The events of the summary's `undecided at the end of the trace` line.
fn undecided(o: &Output) -> Vec<u64> {
    let out = stdout(o);
    let Some(line) = out
        .lines()
        .find(|l| l.starts_with("undecided at the end of the trace"))
    else {
        return Vec::new();
    };
    let list = line.rsplit('(').next().unwrap_or("");
    list.trim_end_matches(')')
        .split(", ")
        .filter_map(|n| n.parse().ok())
        .collect()
}

#[test]
fn each_operator_and_interval_form_on_a_file() {
    for (i, &(formula, violated, open)) in CASES.iter().enumerate() {
        let dir = format!("future-cli-file-{i}");
        let trace = scratch_file(&dir, "t.timed.csv", TRACE);
        let o = bin()
            .arg("run")
            .arg(spec(&dir, formula))
            .arg(&trace)
            .output()
            .expect("runs");
        let want = if violated.is_empty() { 0 } else { 1 };
        assert_eq!(o.status.code(), Some(want), "{formula}: {}", stderr(&o));
        assert_eq!(violation_events(&o), violated, "{formula}");
        assert_eq!(undecided(&o), open, "{formula}: {}", stdout(&o));
    }
}

#[test]
fn each_operator_and_interval_form_on_standard_input() {
    for (i, &(formula, violated, open)) in CASES.iter().enumerate() {
        let dir = format!("future-cli-stdin-{i}");
        let mut child = bin()
            .arg("run")
            .arg(spec(&dir, formula))
            .args(["-", "--timed"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut input = child.stdin.take().expect("stdin");
        input.write_all(TRACE.as_bytes()).expect("write");
        drop(input);
        let o = child.wait_with_output().expect("runs");
        assert_eq!(violation_events(&o), violated, "{formula}: {}", stderr(&o));
        assert_eq!(undecided(&o), open, "{formula}: {}", stdout(&o));
    }
}

/// On standard input a verdict is printed as soon as it is decided: here
/// the violation at event 1 once event 5 (4 events later) is read, while
/// the input is still open.
#[test]
fn a_verdict_on_standard_input_comes_before_the_input_ends() {
    let spec = scratch_file(
        "future-cli-live",
        "p.qtl",
        "prop answered : Forall r . request(r) -> F[<=3] response(r)\n",
    );
    let mut child = bin()
        .arg("run")
        .arg(&spec)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut input = child.stdin.take().expect("stdin");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    input
        .write_all(b"request,a\nping\nping\nping\nping\n")
        .expect("write");
    input.flush().expect("flush");
    // A liveness bound, not a timing: the line is due at once.
    let first = rx.recv_timeout(Duration::from_secs(60));
    assert_eq!(
        first.as_deref(),
        Ok("property answered violated at event 1: request(a)")
    );
    input.write_all(b"request,b\n").expect("write");
    drop(input);
    let status = child.wait().expect("ends");
    reader.join().expect("reader");
    let rest: Vec<String> = rx.try_iter().collect();
    assert_eq!(status.code(), Some(1));
    assert!(
        rest.iter()
            .any(|l| l == "undecided at the end of the trace: 1 event (6)"),
        "{rest:?}"
    );
}

/// `--json` lists the undecided events as such; `--end-of-trace close`
/// decides them as MonPoly does at the end of a log.
#[test]
fn the_end_of_the_trace_left_open_or_closed() {
    let dir = "future-cli-end";
    let trace = scratch_file(dir, "t.timed.csv", TRACE);
    let spec = spec(dir, "a -> F[2,4] b");
    let o = bin()
        .args(["run", "--json"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    let out = stdout(&o);
    let objects: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(r#""kind":"undecided""#))
        .collect();
    assert_eq!(
        objects,
        [
            r#"{"args":[],"event":6,"kind":"undecided","line":6,"name":"a","properties":["p"],"time":8}"#
        ],
        "{out}"
    );
    assert!(out.contains(r#""undecided":1,"#), "{out}");
    let o = bin()
        .args(["run", "--end-of-trace", "close"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(violation_events(&o), [1, 6], "{}", stdout(&o));
    assert_eq!(undecided(&o), Vec::<u64>::new());
}

const SIG: &str = "a()\nb()\nc()\n";
const LOG: &str = "@0 a()\n@1 b()\n@2 c()\n@4 a()\n@7 b()\n@8 a()\n@9 b()\n@10 c()\n";

/// MFOTL's intervals: per formula, MonPoly's satisfying time points.
#[test]
fn mfotl_interval_forms_give_monpolys_satisfactions() {
    let cases: &[(&str, &[&str])] = &[
        (
            "a() AND NOT EVENTUALLY[2,4] b()",
            &["@0 (time point 0): true", "@8 (time point 5): true"],
        ),
        (
            "a() AND NOT EVENTUALLY(1,3] b()",
            &["@0 (time point 0): true", "@8 (time point 5): true"],
        ),
        (
            "a() AND NOT EVENTUALLY[1,3) b()",
            &["@4 (time point 3): true"],
        ),
        (
            "a() AND NOT ALWAYS[1,3] NOT c()",
            &["@0 (time point 0): true", "@8 (time point 5): true"],
        ),
        (
            "a() AND NOT NEXT[2,3] b()",
            &["@0 (time point 0): true", "@8 (time point 5): true"],
        ),
        (
            "a() AND NOT ((NOT c()) UNTIL(0,2) b())",
            &["@4 (time point 3): true"],
        ),
        ("a() AND NEXT(0,*) a()", &[]),
        // At the last time-point, `NEXT` reaches the step that closes the
        // log: MonPoly decides it there when its operand is immediate, and
        // not when its operand has a future operator of its own.
        (
            "c() AND NOT NEXT[2,6] c()",
            &["@2 (time point 2): true", "@10 (time point 7): true"],
        ),
        ("c() AND NOT NEXT[2,6] (ALWAYS[1,1] (NEXT[1,4) c()))", &[]),
        ("c() AND NOT NEXT[0,6] (EVENTUALLY[0,1] a())", &[]),
    ];
    satisfactions_are("future-cli-mfotl", SIG, LOG, cases);
}

/// Runs each formula of `cases` on `log` with the signature `sig` and
/// checks its satisfactions (the `@` lines) against the case's.
fn satisfactions_are(dir: &str, sig: &str, log: &str, cases: &[(&str, &[&str])]) {
    for (i, &(formula, want)) in cases.iter().enumerate() {
        let dir = format!("{dir}-{i}");
        let sig = scratch_file(&dir, "s.sig", sig);
        let log = scratch_file(&dir, "t.log", log);
        let f = scratch_file(&dir, "f.mfotl", formula);
        let o = bin()
            .arg("run")
            .arg(&f)
            .arg("--sig")
            .arg(&sig)
            .arg(&log)
            .output()
            .expect("runs");
        let out = stdout(&o);
        let got: Vec<&str> = out.lines().filter(|l| l.starts_with('@')).collect();
        assert_eq!(got, want, "{formula}: {}", stderr(&o));
    }
}

/// A comparison beside a future operator that binds its variable later:
/// its value at a time-point is read once that later time-point has
/// brought the values (MonPoly's satisfactions, `s(n:int)`).
#[test]
fn comparisons_read_values_seen_only_later_as_monpoly_does() {
    let log = "@5 q(b)\n@6 s(3)\n@7 s(4)\n@8 s(3)\n";
    let cases: &[(&str, &[&str])] = &[
        (
            "(NEXT[1,4) s(m)) AND m = 3",
            &["@5 (time point 0): (3)", "@7 (time point 2): (3)"],
        ),
        (
            "(NEXT[1,4) s(m)) AND m > 2",
            &[
                "@5 (time point 0): (3)",
                "@6 (time point 1): (4)",
                "@7 (time point 2): (3)",
            ],
        ),
        (
            "(NEXT[1,4) s(m)) AND NOT m = 3",
            &["@6 (time point 1): (4)"],
        ),
        (
            "(EVENTUALLY[0,2] s(m)) AND (m = 3 OR m = 4)",
            &[
                "@5 (time point 0): (3) (4)",
                "@6 (time point 1): (3) (4)",
                "@7 (time point 2): (3) (4)",
                "@8 (time point 3): (3)",
            ],
        ),
        (
            "(LET pp(m, n) = (NEXT[1,4) (s(n) AND s(m))) IN pp(m, n)) AND m = 3",
            &["@5 (time point 0): (3,3)", "@7 (time point 2): (3,3)"],
        ),
    ];
    satisfactions_are("future-cli-cmp", "q(x:string)\ns(n:int)\n", log, cases);
}
