//! End-to-end tests of decimal time (issue 20): time stamps and time bounds
//! with decimals, read in ticks of `10^-d` time units, `d` the most decimals
//! of the specification's bounds or `--time-decimals`; never rounded.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{bin, scratch_file, stderr, stdout, violation_events};

/// Every reply comes at most half a time unit after its request.
const DEADLINE: &str = "prop deadline : Forall id . reply(id) -> P[<=0.5] request(id)\n";

fn file(name: &str, text: &str) -> PathBuf {
    scratch_file("decimal_time", name, text)
}

/// `hindsight run ARGS... SPEC TRACE`, the files written under `name`.
fn run(args: &[&str], name: &str, spec: &str, trace: &str) -> Output {
    let spec = file(&format!("{name}.qtl"), spec);
    let trace = file(name, trace);
    bin()
        .arg("run")
        .args(args)
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs")
}

/// The events of the violation lines of a text report.
fn violations(o: &Output) -> Vec<u64> {
    violation_events(o)
}

const REPLIES: &str = "request,1,0\nreply,1,0.5\nrequest,2,1.0\nreply,2,1.6\nreply,1,1.7\n";

#[test]
fn a_half_second_deadline_on_decimal_stamps() {
    let out = run(&["--timed"], "deadline.csv", DEADLINE, REPLIES);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    // 0.5 after its request is in time; 0.6 and 1.7 are not.
    assert_eq!(violations(&out), vec![4, 5]);
    assert!(
        stdout(&out).contains("property deadline violated at event 4 at time 1.6: reply(2)"),
        "{}",
        stdout(&out)
    );
    // A finer precision changes nothing but how times are written.
    let out = run(
        &["--timed", "--time-decimals", "3"],
        "fine.csv",
        DEADLINE,
        REPLIES,
    );
    assert_eq!(violations(&out), vec![4, 5]);
    assert!(
        stdout(&out).contains("at time 1.600: reply(2)"),
        "{}",
        stdout(&out)
    );
    // JSON reports the time as a number.
    let out = run(
        &["--timed", "--json"],
        "deadline.json.csv",
        DEADLINE,
        REPLIES,
    );
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["event"], 4);
    assert_eq!(first["time"], 1.6);
}

#[test]
fn whole_stamps_meet_decimal_bounds() {
    // Whole stamps under a decimal bound: 3 is 3.0.
    let trace = "request,1,3\nreply,1,3\nreply,1,4\n";
    let out = run(&["--timed"], "whole.csv", DEADLINE, trace);
    assert_eq!(violations(&out), vec![3]);
    assert!(
        stdout(&out).contains("at time 4.0: reply(1)"),
        "{}",
        stdout(&out)
    );
    // Whole bounds, whole stamps: times are written as before.
    let spec = "prop deadline : Forall id . reply(id) -> P[<=1] request(id)\n";
    let out = run(&["--timed"], "plain.csv", spec, trace);
    assert_eq!(violations(&out), Vec::<u64>::new());
    let out = run(&["--timed"], "plain2.csv", spec, "request,1,3\nreply,1,5\n");
    assert!(
        stdout(&out).contains("at time 5: reply(1)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn open_interval_ends_are_one_tick_inside() {
    // (0.5, 1] at 2 decimals: 0.51 is the first time inside.
    let spec = "prop p : Forall id . reply(id) -> P(0.5,1] request(id)\n";
    let trace = "request,1,0\nreply,1,0.5\nreply,1,0.51\nreply,1,1\nreply,1,1.01\n";
    let out = run(
        &["--timed", "--time-decimals", "2"],
        "open.csv",
        spec,
        trace,
    );
    assert_eq!(violations(&out), vec![2, 5]);
    // Intervals with decimal ends after S and H too.
    let spec = "prop q : Forall id . reply(id) -> (!cancel(id) S[0.2,0.5] request(id))\n\
                prop r : stop -> H[<=1.5] !alarm\n";
    let trace = "request,1,0\nreply,1,0.1\nreply,1,0.2\nalarm,1\nstop,2.4\nstop,2.6\n";
    let out = run(&["--timed"], "since.csv", spec, trace);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("property q violated at event 2 at time 0.1: reply(1)"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("property r violated at event 5"),
        "{}",
        stdout(&out)
    );
    assert_eq!(violations(&out), vec![2, 5]);
}

#[test]
fn too_many_decimals_is_an_error_naming_the_line() {
    let trace = "request,1,0.1\nreply,1,0.25\n";
    let out = run(&["--timed"], "digits.csv", DEADLINE, trace);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("digits.csv:line 2: timestamp `0.25` has 2 decimal digits")
            && err.contains("at most 1 decimal digit")
            && err.contains("rerun with --time-decimals 2"),
        "{err}"
    );
    assert!(
        stdout(&out)
            .ends_with("STATUS: Error (input error at line 2; 0 violations found before it)\n"),
        "{}",
        stdout(&out)
    );
    // With the flag, the same trace is read.
    let out = run(
        &["--timed", "--time-decimals", "2"],
        "digits2.csv",
        DEADLINE,
        trace,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A whole-number specification reads whole stamps only.
    let spec = "prop deadline : Forall id . reply(id) -> P[<=1] request(id)\n";
    let out = run(
        &["--timed"],
        "whole_spec.csv",
        spec,
        "request,1,0\nreply,1,0.5\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "line 2: timestamp `0.5` has 1 decimal digit, but time stamps are read as whole numbers"
        ) && stderr(&out).contains("--time-decimals 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_stamps_are_errors_naming_the_line() {
    for (stamp, words) in [
        ("-1", "`-1` is negative"),
        ("1.2.3", "not a natural or decimal number"),
        ("1.", "not a natural or decimal number"),
        (".5", "not a natural or decimal number"),
        ("1e3", "not a natural or decimal number"),
        ("1:5", "not a natural or decimal number"),
        (
            "99999999999999999999",
            "out of range (the maximum is 1844674407370955161.5)",
        ),
        ("0.0000000001", "at most 9 decimals can be read"),
    ] {
        let trace = format!("request,1,0\nrequest,2,{stamp}\n");
        let out = run(&["--timed"], "bad.csv", DEADLINE, &trace);
        assert_eq!(out.status.code(), Some(2), "{stamp}");
        assert!(
            stderr(&out).contains("bad.csv:line 2: timestamp") && stderr(&out).contains(words),
            "{stamp}: {}",
            stderr(&out)
        );
        assert!(!stdout(&out).contains("Satisfied"), "{stamp}");
    }
    // A stamp going back, written as decimals.
    let out = run(
        &["--timed", "--strict-time"],
        "back.csv",
        DEADLINE,
        "request,1,1.5\nrequest,2,1.2\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2: timestamp 1.2 is smaller than the previous timestamp 1.5"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn monpoly_and_json_stamps_may_be_decimal() {
    let log = "@0 request(1)\n@0.5 reply(1)\n@1 request(2)\n@1.6 reply(2)\n";
    let out = run(&[], "replies.log", DEADLINE, log);
    assert_eq!(violations(&out), vec![4]);
    assert!(
        stdout(&out).contains("at time 1.6: reply(2)"),
        "{}",
        stdout(&out)
    );
    assert!(
        !stderr(&out).contains("without time stamps"),
        "{}",
        stderr(&out)
    );
    let out = run(&[], "bad.log", DEADLINE, "@0 request(1)\n@0.55 reply(1)\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2: time stamp `0.55` has 2 decimal digits"),
        "{}",
        stderr(&out)
    );
    let json = "{\"request\": {\"id\": \"1\", \"ts\": \"0\"}}\n{\"reply\": {\"ts\": 0.7, \"id\": \"1\"}}\n";
    let out = run(&["--timed"], "replies.jsonl", DEADLINE, json);
    assert_eq!(violations(&out), vec![2]);
}

#[test]
fn bad_time_bounds_are_errors_with_their_place() {
    for (bound, words) in [
        ("P[<=0.1234567891]", "at most 9 decimal digits"),
        ("P[<=-0.5]", "natural or decimal number"),
        ("P(0.5,0.5)", "contains no"),
        ("P[<=18446744073709551615.5]", "too large"),
    ] {
        let spec = format!("prop p : reply -> {bound} request\n");
        let out = run(&["--timed"], "bound.csv", &spec, "request,0\n");
        assert_eq!(out.status.code(), Some(2), "{bound}");
        assert!(
            stderr(&out).contains("bound.csv.qtl:1:") && stderr(&out).contains(words),
            "{bound}: {}",
            stderr(&out)
        );
    }
    // MFOTL bounds are whole numbers: the flag is refused.
    let out = bin()
        .args(["run", "--time-decimals", "1", "--sig"])
        .arg(file("s.sig", "p(int)\n"))
        .arg(file("f.mfotl", "p(1)\n"))
        .arg(file("m.log", "@0 p(1)\n"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--time-decimals is for QTL"),
        "{}",
        stderr(&out)
    );
    // At most 9 decimals.
    let out = run(
        &["--time-decimals", "10"],
        "ten.csv",
        DEADLINE,
        "request,1\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--time-decimals"), "{}", stderr(&out));
}

#[test]
fn decimal_stamps_without_timed_get_the_hint() {
    let out = run(&[], "untimed.csv", DEADLINE, "request,1,0.5\nreply,1,0.7\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "untimed.csv:line 1: event `request` has 2 arguments, but the specification uses it \
             with 1 (if the last field is the event's time stamp, use --timed)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn parallel_runs_and_skipped_lines_read_decimals_alike() {
    let out = run(&["--timed", "-j", "2"], "par.csv", DEADLINE, REPLIES);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(violations(&out), vec![4, 5]);
    assert!(
        stdout(&out).contains("at time 1.7: reply(1)"),
        "{}",
        stdout(&out)
    );
    // A stamp with too many decimals is a bad line that can be skipped (1
    // of 3 lines: within --max-skipped 50%).
    let trace = "request,1,0\nreply,1,0.55\nreply,1,0.6\n";
    let out = run(
        &["--timed", "--skip-bad-lines", "--max-skipped", "50"],
        "skip.csv",
        DEADLINE,
        trace,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(violations(&out), vec![2]);
    assert!(
        stdout(&out).contains("bad lines skipped: 1 (line 2)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_library_reads_decimal_bounds_in_ticks_only_when_asked() {
    use hindsight::plan::{compile_source, compile_source_timed};
    let (plan, _, d) = compile_source_timed(DEADLINE, 0).expect("compiles");
    assert_eq!(d, 1);
    assert!(
        plan.render(DEADLINE).contains("S[<=5]"),
        "{}",
        plan.render(DEADLINE)
    );
    let (plan, _, d) = compile_source_timed(DEADLINE, 3).expect("compiles");
    assert_eq!(d, 3);
    assert!(
        plan.render(DEADLINE).contains("S[<=500]"),
        "{}",
        plan.render(DEADLINE)
    );
    // Open ends are one tick inside at the precision in use.
    let spec = "prop p : reply -> P(0.5,1] request\n";
    let (plan, _, _) = compile_source_timed(spec, 2).expect("compiles");
    assert!(
        plan.render(spec).contains("S[51,100]"),
        "{}",
        plan.render(spec)
    );
    // Whole bounds keep their value.
    let whole = "prop p : reply -> P[<=5] request\n";
    let (plan, _, d) = compile_source_timed(whole, 0).expect("compiles");
    assert_eq!(d, 0);
    assert!(plan.render(whole).contains("S[<=5]"));
    // The untimed entry point refuses decimal bounds rather than scale them.
    let Err(diags) = compile_source(DEADLINE) else {
        panic!("a decimal bound was accepted by compile_source")
    };
    let text = diags[0].render("d.qtl", DEADLINE);
    assert!(
        text.contains("d.qtl:1:") && text.contains("time bound `0.5` has decimals"),
        "{text}"
    );
}
