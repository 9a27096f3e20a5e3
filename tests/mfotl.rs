//! The MFOTL front end end to end (issue 22): the example specifications of
//! `specs/` with their exact verdicts in both of MonPoly's readings, errors,
//! `--show-qtl`, and the FMSD properties written in MFOTL against their QTL
//! versions on generated traces.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

mod common;
use common::{stderr, stdout};

use hindsight::mfotl::{self, Reading};
use hindsight::runtime::{Monitor, MonitorOptions};
use proptest::prelude::*;

fn spec(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(name)
        .display()
        .to_string()
}

fn scratch(name: &str, contents: &str) -> String {
    common::scratch_file("mfotl", name, contents)
        .display()
        .to_string()
}

fn hindsight(args: &[&str]) -> Output {
    common::bin().args(args).output().expect("runs")
}

/// The event numbers of the violation lines of a text report.
fn violated_events(o: &Output) -> Vec<u64> {
    stdout(o)
        .lines()
        .filter_map(|l| l.split(" violated at event ").nth(1))
        .map(|rest| rest.split([' ', ':']).next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn negate_reports_the_violations_of_the_property() {
    let (f, s) = (spec("payments.mfotl"), spec("payments.sig"));
    let o = hindsight(&[
        "run",
        "--negate",
        &f,
        "--sig",
        &s,
        &spec("payments.timed.csv"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(violated_events(&o), vec![4, 7, 9]);
    assert!(stdout(&o).contains("property payments violated at event 7 at time 9: pay(p1, 1200)"));
    let o = hindsight(&[
        "run",
        "--negate",
        &f,
        "--sig",
        &s,
        &spec("payments-ok.timed.csv"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).ends_with("STATUS: Satisfied\n"));
}

#[test]
fn by_default_satisfactions_are_printed_as_monpoly_does() {
    let o = hindsight(&[
        "run",
        &spec("suspicious.mfotl"),
        "--sig",
        &spec("suspicious.sig"),
        &spec("suspicious.timed.csv"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let points: Vec<&str> = out.lines().filter(|l| l.starts_with('@')).collect();
    assert_eq!(
        points,
        vec![
            "@12 (time point 3): (\"bob\")",
            "@40 (time point 6): (\"alice\")"
        ]
    );
}

#[test]
fn every_satisfying_tuple_is_printed_in_text_and_json() {
    // `ONCE p(x, y) AND NOT q(y)` would be `ONCE (p(x, y) AND NOT q(y))`:
    // in MonPoly's grammar a temporal prefix extends over AND.
    let f = scratch("tuples.mfotl", "(ONCE p(x, y)) AND NOT ONCE q(y)");
    let s = scratch("tuples.sig", "p(a:string, b:int) q(b:int)");
    let t = scratch("tuples.csv", "p,a,1\np,b,2\nq,1\np,c,1\n");
    let o = hindsight(&["run", &f, "--sig", &s, &t]);
    let out = stdout(&o);
    let points: Vec<&str> = out.lines().filter(|l| l.starts_with('@')).collect();
    // Untimed: the time stamp is the event number.
    assert_eq!(
        points,
        vec![
            "@1 (time point 0): (\"a\",1)",
            "@2 (time point 1): (\"a\",1) (\"b\",2)",
            "@3 (time point 2): (\"b\",2)",
            "@4 (time point 3): (\"b\",2)",
        ]
    );
    let o = hindsight(&["run", "--output", "json", &f, "--sig", &s, &t]);
    let line = stdout(&o).lines().nth(1).unwrap().to_string();
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["kind"], "satisfaction");
    assert_eq!(v["time_point"], 1);
    assert_eq!(v["ts"], 2);
    assert_eq!(v["tuples"], serde_json::json!([["a", "1"], ["b", "2"]]));
    // A closed pattern prints `true`.
    let f = scratch("closed.mfotl", "EXISTS x . q(x)");
    let o = hindsight(&["run", &f, "--sig", &s, &t]);
    let out = stdout(&o);
    assert_eq!(out.lines().next(), Some("@3 (time point 2): true"), "{out}");
}

#[test]
fn show_qtl_prints_the_meaning() {
    let o = hindsight(&[
        "compile",
        "--show-qtl",
        "--negate",
        &spec("payments.mfotl"),
        "--sig",
        &spec("payments.sig"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(
        lines,
        vec![
            "pred pay(p, amount), revoke(p), approve(p)",
            "prop payments : Forall p . Forall a . ((pay(p,a) & a > \"1000\") -> (!revoke(p) S[1,10] approve(p)))",
        ]
    );
    // The QTL printed is QTL: it is well-formed as it is.
    let q = scratch("payments.qtl", &out);
    let o = hindsight(&["check", &q]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // And `check` accepts the MFOTL, naming one property.
    let o = hindsight(&[
        "check",
        &spec("payments.mfotl"),
        "--sig",
        &spec("payments.sig"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("well-formed, 1 property"));
}

#[test]
fn errors_name_the_construct_and_place_with_exit_2() {
    let s = scratch("e.sig", "p(x:string)\nq(x:string)");
    for (formula, place, what) in [
        (
            "FORALL x .\n  p(x) IMPLIES p(x) UNTIL q(x)",
            ":2:21:",
            "`UNTIL` needs an interval with a finite upper bound",
        ),
        (
            "EVENTUALLY[1,*) p(\"a\")",
            ":1:1:",
            "`EVENTUALLY` needs an interval with a finite upper bound",
        ),
        ("n <- SUM x p(x)", ":1:10:", "`SUM` takes numbers"),
        (
            "n <- CNT x NOT p(x)",
            ":1:18:",
            "does not bind `x` to finitely many values",
        ),
        ("LETPAST r(x) = p(x) IN r(\"a\")", ":1:1:", "`LETPAST`"),
        ("ONCE[3,1] p(\"a\")", ":1:5:", "contains no natural number"),
        (
            "p(\"a\") AND r(\"b\")",
            ":1:12:",
            "`r` is not declared in the signature",
        ),
        ("EXISTS y . p(\"a\")", ":1:8:", "never used"),
    ] {
        let f = scratch("e.mfotl", formula);
        let o = hindsight(&["check", &f, "--sig", &s]);
        assert_eq!(o.status.code(), Some(2), "{formula}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("e.mfotl{place} error")),
            "{formula}: {err}"
        );
        assert!(err.contains(what), "{formula}: {err}");
    }
    // An error in the signature is placed in the signature file.
    let bad = scratch("bad.sig", "p(x:string)\nq(x:bool)");
    let f = scratch("ok.mfotl", "p(\"a\")");
    let o = hindsight(&["run", &f, "--sig", &bad, &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.sig:2:5: error: unknown type `bool`"),
        "{}",
        stderr(&o)
    );
    // No signature.
    let o = hindsight(&["check", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("give its MonPoly signature with --sig"),
        "{}",
        stderr(&o)
    );
    // --mfotl reads any file name as MFOTL; --show-qtl is only for MFOTL.
    let g = scratch("formula.txt", "p(\"a\")");
    let o = hindsight(&["check", "--mfotl", &g, "--sig", &s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = hindsight(&["compile", "--show-qtl", &spec("access.qtl")]);
    assert_eq!(o.status.code(), Some(2));
}

/// The six FMSD properties, in MFOTL as the FMSD paper states them, and in
/// QTL as `specs/` and the paper's tool state them.
const FMSD: [(&str, &str, &str); 6] = [
    (
        "open(a:string) close(b:string) login(c:string) logout(d:string) access(e:string, f:string)",
        "FORALL x. FORALL y. access(x,y) IMPLIES ((NOT logout(x) SINCE login(x)) AND (NOT close(y) SINCE open(y)))",
        "prop p : Forall u . Forall f . access(u,f) -> [login(u),logout(u)) & [open(f),close(f))",
    ),
    (
        "open(f:string, m:string) close(a:string)",
        "FORALL f . close(f) IMPLIES (EXISTS m . PREVIOUS (NOT close(f) SINCE open(f,m)))",
        "prop p : Forall f . close(f) -> Exists m . @ [open(f,m),close(f))",
    ),
    (
        "enter(x:string) exit(x:string)",
        "FORALL x. ((enter(x) IMPLIES NOT PREVIOUS ONCE enter(x)) AND (exit(x) IMPLIES NOT PREVIOUS ONCE exit(x)) AND (exit(x) IMPLIES PREVIOUS ONCE enter(x)) AND FORALL y. ((exit(y) AND ONCE (enter(y) AND PREVIOUS ONCE enter(x))) IMPLIES PREVIOUS ONCE exit(x)))",
        "prop p : Forall x . (enter(x) -> ! @ P enter(x)) & (exit(x) -> ! @ P exit(x)) & (exit(x) -> @ P enter(x)) & (Forall y . (exit(y) & P (enter(y) & @ P enter(x))) -> @ P exit(x))",
    ),
    (
        "acq(t:string,l:string) rel(t:string,l:string) sleep(t:string)",
        "FORALL t. FORALL l . ((sleep(t) IMPLIES NOT (NOT rel(t,l) SINCE acq(t,l))) AND (acq(t,l) IMPLIES NOT EXISTS s . PREVIOUS (NOT rel(s,l) SINCE acq(s,l))) AND (rel(t,l) IMPLIES PREVIOUS (NOT rel(t,l) SINCE acq(t,l))))",
        "prop p : Forall t . Forall l . (sleep(t) -> ![acq(t,l),rel(t,l))) & (acq(t,l) -> ! exists s . @ [acq(s,l),rel(s,l))) & (rel(t,l) -> @ [acq(t,l),rel(t,l)))",
    ),
    (
        "acq(t:string,l:string) rel(t:string,l:string)",
        "FORALL t1 . FORALL t2 . FORALL l1 . FORALL l2 . ((PREVIOUS (NOT rel(t1,l1) SINCE acq(t1,l1))) AND acq(t1,l2)) IMPLIES (NOT PREVIOUS ONCE ((PREVIOUS (NOT rel(t2,l2) SINCE acq(t2,l2))) AND acq(t2,l1)))",
        "prop p : Forall t1 . Forall t2 . Forall l1 . Forall l2 . (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))",
    ),
    (
        "acq(t:string,l:string) rel(t:string,l:string) read(t:string,x:string) write(t:string,x:string)",
        "FORALL t1 . FORALL t2 . FORALL x . (((ONCE (read(t1,x) OR write(t1,x))) AND (ONCE write(t2,x))) IMPLIES EXISTS l . ((PAST_ALWAYS ((read(t1,x) OR write(t1,x)) IMPLIES (NOT rel(t1,l) SINCE acq(t1,l)))) AND (PAST_ALWAYS ((read(t2,x) OR write(t2,x)) IMPLIES (NOT rel(t2,l) SINCE acq(t2,l))))))",
        "prop p : Forall t1 . Forall t2 . Forall x . ((P (read(t1,x) | write(t1,x))) & (P write(t2,x))) -> Exists l . (H ((read(t1,x) | write(t1,x)) -> [acq(t1,l),rel(t1,l))) & H ((read(t2,x) | write(t2,x)) -> [acq(t2,l),rel(t2,l))))",
    ),
];

/// The event names of the FMSD signatures.
const EVENTS: [&str; 12] = [
    "open", "close", "login", "logout", "access", "enter", "exit", "acq", "rel", "sleep", "read",
    "write",
];

fn run(mut m: Monitor, trace: &[(String, Vec<String>)]) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (i, (name, args)) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        if !m.step(name.as_bytes(), &args, 0).expect("steps").is_empty() {
            out.insert(i + 1);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fmsd_properties_in_mfotl_agree_with_qtl(
        which in 0..6usize,
        events in prop::collection::vec((0..12usize, 0..3u8, 0..3u8), 1..30),
    ) {
        let (sig, formula, qtl) = FMSD[which];
        // Each declaration `name(a:type, ...`: its name and arity.
        let decls: Vec<(&str, usize)> = sig
            .split(')')
            .filter_map(|d| d.split_once('('))
            .map(|(name, params)| (name.trim(), params.matches(':').count()))
            .collect();
        let trace: Vec<(String, Vec<String>)> = events
            .iter()
            .filter_map(|&(e, a, b)| {
                let &(name, arity) = decls.iter().find(|(n, _)| *n == EVENTS[e])?;
                let args = [a, b][..arity].iter().map(|v| v.to_string()).collect();
                Some((name.to_string(), args))
            })
            .collect();
        let (plan, _, _) = mfotl::compile(formula, sig, "p", Reading::Violations).expect("translates");
        let from_mfotl = run(Monitor::new(plan, MonitorOptions::default()).expect("builds"), &trace);
        let from_qtl = run(Monitor::from_source(qtl, MonitorOptions::default()).expect("builds"), &trace);
        prop_assert_eq!(from_mfotl, from_qtl, "{}\n{:?}", formula, trace);
    }
}

/// The FMSD benchmark (`../shared/bench/fmsd`, outside the repository): each
/// `spec.mfotl` with `--negate` on `log-10k.csv` reports exactly the
/// violations of `spec.qtl`. Run with
/// `cargo test --release --test mfotl -- --ignored fmsd_benchmark`.
#[test]
#[ignore = "needs ../shared/bench/fmsd, outside the repository"]
fn fmsd_benchmark_agrees_with_qtl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/fmsd");
    let expected = [
        ("access", 11006),
        ("file", 11004),
        ("fifo", 10101),
        ("locks-basic", 10401),
        ("locks-cycles", 9606),
        ("locks-datarace", 10005),
    ];
    for (name, first) in expected {
        let d = root.join(name);
        let p = |f: &str| d.join(f).display().to_string();
        let m = hindsight(&[
            "run",
            "--negate",
            &p("spec.mfotl"),
            "--sig",
            &p("spec.sig"),
            &p("log-10k.csv"),
        ]);
        let q = hindsight(&["run", &p("spec.qtl"), &p("log-10k.csv")]);
        assert_eq!(violated_events(&m), violated_events(&q), "{name}");
        assert_eq!(violated_events(&m), vec![first], "{name}");
    }
}

/// The satisfaction lines of a run.
fn satisfactions(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.starts_with('@'))
        .map(str::to_string)
        .collect()
}

const TYPED_SIG: &str = "p(x:string)\nq(x:string)\nr(x:string, n:int)\nf(v:float)\ne()\n";

#[test]
fn a_monpoly_log_is_stepped_by_time_points() {
    let s = scratch("tp.sig", TYPED_SIG);
    let f = scratch("tp.mfotl", "p(x) AND q(x)");
    // Multi-tuple syntax, `e()`, an empty time point, a quoted value.
    let log = scratch(
        "tp.log",
        "@1 p(a) q(a)\n@2 p(b)(c) e() q(\"c\")(d)\n@2\n@5 q(b) p(d) q(d)\n",
    );
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        satisfactions(&o),
        vec![
            "@1 (time point 0): (\"a\")",
            "@2 (time point 1): (\"c\")",
            "@5 (time point 3): (\"d\")",
        ]
    );
    // Four time points are the steps; the events are counted one by one.
    assert!(
        stdout(&o).contains("events processed: 4 in"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("events by name: e 1, p 4, q 5"));
    // Each event its own step: `p(x)` and `q(x)` never hold at one step.
    let o = hindsight(&["run", "--event-steps", &f, "--sig", &s, &log]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(satisfactions(&o).is_empty());
    // A QTL specification keeps one step per event, and refuses the option.
    let qtl = scratch("tp.qtl", "prop pq : Forall x . !(p(x) & q(x))");
    let o = hindsight(&["run", "--event-steps", &qtl, &log]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--event-steps is for MFOTL"),
        "{}",
        stderr(&o)
    );
    // The same run with --jobs 2 prints the same bytes.
    let one = hindsight(&["run", "--jobs", "1", &f, "--sig", &s, &log]);
    let two = hindsight(&["run", "--jobs", "2", &f, "--sig", &s, &log]);
    let strip = |o: &Output| -> String {
        stdout(o)
            .lines()
            .filter(|l| !l.starts_with("events processed"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&one), strip(&two));
}

#[test]
fn values_are_read_as_their_types() {
    let s = scratch("typed.sig", TYPED_SIG);
    let f = scratch("typed.mfotl", "r(x, n) AND n > 9");
    let log = scratch(
        "typed.log",
        "@1 r(a, 10) r(b, 9) r(c, 0x10) r(a, 010)\n@2 r(d, 100000000000000000000000)\n@3 r(e, lots) r(f, 50)\n",
    );
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    // Ints compare as numbers (`10 > 9`, `0x10` is 16, `010` is the value
    // 10 again), of any size; the bad value ends the run.
    assert_eq!(
        satisfactions(&o),
        vec![
            "@1 (time point 0): (\"a\",10) (\"c\",16)",
            "@2 (time point 1): (\"d\",100000000000000000000000)",
        ]
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("line 3: column 9: the value `lots` of attribute `n` of `r` (argument 2 of 2, an int) is not an int"),
        "{err}"
    );
    assert!(
        stdout(&o).contains("STATUS: Error (input error at line 3; 2 violations found before it)")
    );
    // Strings order as text, also when they look like numbers.
    let f = scratch("text.mfotl", "p(x) AND x < \"9\"");
    let log = scratch("text.log", "@1 p(10) p(90) p(8)\n");
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    assert_eq!(
        satisfactions(&o),
        vec!["@1 (time point 0): (\"10\") (\"8\")"]
    );
    // Floats: compared as numbers, printed with `%g`.
    let f = scratch("float.mfotl", "f(v) AND v > 2.5");
    let log = scratch(
        "float.log",
        "@1 f(1234567.5) f(10) f(2.50) f(3.14159265) f(1e300)\n",
    );
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    assert_eq!(
        satisfactions(&o),
        vec!["@1 (time point 0): (3.14159) (10) (1.23457e+06) (1e+300)"]
    );
    // A predicate the signature does not declare.
    let f = scratch("undeclared.mfotl", "p(x)");
    let log = scratch("undeclared.log", "@1 p(a)\n@2 zap(a)\n");
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(satisfactions(&o), vec!["@1 (time point 0): (\"a\")"]);
    assert!(
        stderr(&o).contains("line 2: predicate `zap` is not declared in the signature (it declares `e`, `f`, `p`, `q`, `r`)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn decimal_time_stamps_are_refused_without_advice_to_read_them() {
    let s = scratch("dec.sig", TYPED_SIG);
    let f = scratch("dec.mfotl", "ONCE[0,2] p(x)");
    for (name, trace) in [
        ("dec.log", "@1 p(a)\n@1.5 p(b)\n"),
        ("dec.timed.csv", "p,a,1\np,b,1.5\n"),
    ] {
        let t = scratch(name, trace);
        let o = hindsight(&["run", &f, "--sig", &s, &t]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let err = stderr(&o);
        assert!(err.contains("line 2: time stamp `1.5` has decimals, but the time stamps of an MFOTL trace are whole numbers"), "{err}");
        assert!(!err.contains("--time-decimals"), "{err}");
        assert_eq!(
            satisfactions(&o),
            vec!["@1 (time point 0): (\"a\")"],
            "{name}"
        );
    }
}

#[test]
fn negate_names_the_violating_event_of_a_time_point() {
    let s = scratch("neg.sig", TYPED_SIG);
    let f = scratch("neg.mfotl", "FORALL x . q(x) IMPLIES ONCE p(x)");
    let log = scratch("neg.log", "@1 p(a) p(b)\n@2 q(a) q(c)(b)\n@4 q(d)\n");
    let o = hindsight(&["run", "--negate", &f, "--sig", &s, &log]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" violated at "))
        .collect();
    assert_eq!(
        lines,
        vec![
            "property neg violated at event 2 at time 2: q(c)",
            "property neg violated at event 3 at time 4: q(d)",
        ]
    );
    // The same property as a closed pattern: its own FORALL is not a free
    // variable, so the satisfactions are `true`.
    let f = scratch("closedneg.mfotl", "NOT FORALL x . q(x) IMPLIES ONCE p(x)");
    let o = hindsight(&["run", &f, "--sig", &s, &log]);
    assert_eq!(
        satisfactions(&o),
        vec!["@2 (time point 1): true", "@4 (time point 2): true"]
    );
}

/// The columns of a satisfaction come in MonPoly's order: `φ SINCE ψ` and
/// `φ UNTIL ψ` list ψ's variables first (MonPoly's output, written down).
#[test]
fn since_and_until_list_their_right_operands_variables_first() {
    let s = scratch("su.sig", "r(y:string,m:int)\ns(n:int)\n");
    let log = scratch(
        "su.log",
        "@0 s(1)\n@2 r(c, 1)\n@3 s(1) r(a, 2)\n@5 s(2)\n@6 s(1)\n",
    );
    let cases: &[(&str, &[&str])] = &[
        (
            "s(m) SINCE r(y, m)",
            &[
                "@2 (time point 1): (\"c\",1)",
                "@3 (time point 2): (\"a\",2) (\"c\",1)",
                "@5 (time point 3): (\"a\",2)",
            ],
        ),
        (
            "s(m) UNTIL[0,3] r(y, m)",
            &[
                "@0 (time point 0): (\"c\",1)",
                "@2 (time point 1): (\"c\",1)",
                "@3 (time point 2): (\"a\",2)",
            ],
        ),
    ];
    for (i, &(formula, want)) in cases.iter().enumerate() {
        let f = scratch(&format!("su{i}.mfotl"), formula);
        let o = hindsight(&["run", &f, "--sig", &s, &log]);
        assert_eq!(satisfactions(&o), want, "{formula}: {}", stderr(&o));
    }
}
