//! End-to-end tests of `hindsight equiv` and `hindsight gen`: exit
//! statuses, exact shortest traces, the JSON answer, the determinism of a
//! seed, and errors on bad input.

mod common;

use common::{bin, scratch_file, stderr, stdout};

const T1: &str = "prop t : Forall x . closed(x) -> !telem(x)
  where closed(x) := toggle(x) <-> @!closed(x)\n";
const T2: &str = "prop t : Forall x . closed(x) -> !telem(x) where
  closed(x) := (!@true & !toggle(x)) | (@closed(x) & !toggle(x)) | (@open(x) & toggle(x)),
  open(x)   := (@open(x) & !toggle(x)) | (@closed(x) & toggle(x))\n";

#[test]
fn equiv_prints_the_shortest_distinguishing_trace() {
    let a = scratch_file("testbed", "t1.qtl", T1);
    let b = scratch_file("testbed", "t2.qtl", T2);
    let o = bin().arg("equiv").arg(&a).arg(&b).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(
        lines[0],
        format!("n,event,arg1,{},{}", a.display(), b.display())
    );
    assert_eq!(
        lines[1..],
        [
            "1,toggle,0,ok,ok",
            "2,toggle,0,ok,ok",
            "3,telem,0,violated,ok"
        ]
    );
    assert!(
        stderr(&o).contains("differ on this trace of 3 events"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn equiv_json_answer() {
    let a = scratch_file("testbed", "j1.qtl", T1);
    let b = scratch_file("testbed", "j2.qtl", T2);
    let o = bin()
        .args(["equiv", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["equivalent"], false);
    assert_eq!(
        v["trace"],
        serde_json::json!([["toggle", "0"], ["toggle", "0"], ["telem", "0"]])
    );
    assert_eq!(v["verdicts"][2], serde_json::json!([["t"], []]));
    let o = bin()
        .args(["equiv", "--json", "--length", "2", "--random", "0"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["equivalent"], true);
    assert_eq!(v["trace"], serde_json::json!([]));
    // 2 names x 2 values, and `other`: 5 + 25 traces.
    assert_eq!(v["searched"]["traces"], 30);
}

#[test]
fn equiv_says_what_it_searched() {
    let a = scratch_file("testbed", "same.qtl", T1);
    let o = bin()
        .args([
            "equiv",
            "--length",
            "3",
            "--values",
            "1",
            "--random",
            "5",
            "--random-length",
            "7",
        ])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "agree on every trace of up to 3 events over 3 events with the values 0 (39 traces) \
         and on 5 random traces of 7 events (seed 0)"
        ),
        "{}",
        stdout(&o)
    );
}

#[test]
fn equiv_of_mfotl_and_qtl() {
    let qtl = scratch_file(
        "testbed",
        "pay.qtl",
        "prop payments : Forall p . Forall a . pay(p, a) & a > 1000 -> (!revoke(p) S[1,2] approve(p))\n",
    );
    let o = bin()
        .args([
            "equiv",
            "--values",
            "3",
            "--sig",
            "specs/payments.sig",
            "--negate",
        ])
        .arg("specs/payments.mfotl")
        .arg(&qtl)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let rows_text: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(
        rows_text,
        [
            "1,approve,1000,,ok,ok",
            "2,approve,1001,,ok,ok",
            "3,approve,1001,,ok,ok",
            "4,pay,1000,1001,ok,violated"
        ]
    );
}

#[test]
fn equiv_with_a_future_operator() {
    let next = scratch_file("testbed", "next.qtl", "prop p : req -> X resp\n");
    let soon = scratch_file("testbed", "soon.qtl", "prop p : req -> F[<=1] resp\n");
    let later = scratch_file("testbed", "later.qtl", "prop p : req -> F[<=2] resp\n");
    let o = bin()
        .args(["equiv", "--random", "100"])
        .arg(&next)
        .arg(&soon)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bin()
        .args(["equiv", "--json"])
        .arg(&next)
        .arg(&later)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["trace"], serde_json::json!([["req"], ["req"], ["resp"]]));
    assert_eq!(
        v["verdicts"],
        serde_json::json!([[["p"], []], [[], []], [[], []]])
    );
    assert_eq!(
        v["undecided"],
        serde_json::json!([[[], []], [[], []], [[], []]])
    );
}

#[test]
fn equiv_errors() {
    let a = scratch_file("testbed", "e1.qtl", "prop p : Forall x . a(x) -> P b(x)\n");
    let b = scratch_file(
        "testbed",
        "e2.qtl",
        "prop p : Forall x . Forall y . a(x, y) -> P b(x)\n",
    );
    let o = bin().arg("equiv").arg(&a).arg(&b).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("event `a` has 1 argument(s)"),
        "{}",
        stderr(&o)
    );
    let bad = scratch_file("testbed", "e4.qtl", "prop p : a(x) ->\n");
    let o = bin().arg("equiv").arg(&bad).arg(&a).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("e4.qtl:"), "{}", stderr(&o));
    let two = scratch_file(
        "testbed",
        "e5.qtl",
        "prop p : a -> P b\nprop q : b -> P a\n",
    );
    let other = scratch_file(
        "testbed",
        "e6.qtl",
        "prop p : a -> P b\nprop r : b -> P a\n",
    );
    let o = bin().arg("equiv").arg(&two).arg(&other).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot be paired by name"),
        "{}",
        stderr(&o)
    );
    let o = bin()
        .args(["equiv", "--length", "40"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("lower --length or --values"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn gen_is_fixed_by_its_seed() {
    let run = |seed: &str| {
        let o = bin()
            .args([
                "gen",
                "specs/file_access.qtl",
                "--events",
                "50",
                "--values",
                "3",
                "--seed",
                seed,
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let first = run("7");
    assert_eq!(first, run("7"));
    assert_ne!(first, run("8"));
    assert_eq!(first.lines().count(), 50);
    for line in first.lines() {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 2, "{line}");
        assert!(
            ["open", "close", "read", "write"].contains(&fields[0]),
            "{line}"
        );
        assert!(["0", "1", "2"].contains(&fields[1]), "{line}");
    }
}

#[test]
fn gen_timed_and_mfotl() {
    let o = bin()
        .args([
            "gen",
            "specs/deadline.qtl",
            "--events",
            "20",
            "--timed",
            "--max-gap",
            "3",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let times: Vec<u64> = stdout(&o)
        .lines()
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(times[0], 0);
    assert!(
        times.windows(2).all(|w| w[1] >= w[0] && w[1] - w[0] <= 3),
        "{times:?}"
    );
    // The trace runs through the monitor without errors.
    let trace = scratch_file("testbed", "deadline.timed.csv", stdout(&o));
    let r = bin()
        .arg("run")
        .arg("specs/deadline.qtl")
        .arg(&trace)
        .output()
        .unwrap();
    assert!(matches!(r.status.code(), Some(0 | 1)), "{}", stderr(&r));
    let o = bin()
        .args([
            "gen",
            "--sig",
            "specs/payments.sig",
            "specs/payments.mfotl",
            "--events",
            "3",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3);
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("@{i} ")), "{l}");
    }
    let o = bin()
        .args(["gen", "specs/payments.mfotl"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--sig"), "{}", stderr(&o));
}
