//! End-to-end tests of `hindsight check` and `hindsight compile`.

use std::path::PathBuf;

mod common;
use common::{bin, scratch_file, stderr, stdout};

/// Writes `text` to a fresh file under the target directory and returns its path.
fn spec_file(name: &str, text: &str) -> PathBuf {
    scratch_file("cli", name, text)
}

#[test]
fn check_accepts_a_well_formed_spec() {
    let path = spec_file(
        "good.qtl",
        "prop p : Forall f . close(f) -> @ [open(f), close(f))\n",
    );
    let out = bin().arg("check").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("well-formed, 1 property"));
}

#[test]
fn check_reports_a_syntax_error_with_its_place_and_exits_2() {
    let path = spec_file(
        "syntax.qtl",
        "prop p :\n  Forall f . close(f) -> @ [open(f) close(f))\n",
    );
    let out = bin().arg("check").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("syntax.qtl:2:37: error: unexpected `close`"),
        "{err}"
    );
    // The offending line and a caret under the token.
    assert!(
        err.contains("2 |   Forall f . close(f) -> @ [open(f) close(f))"),
        "{err}"
    );
    assert!(
        err.contains(&format!("  | {}^^^^^", " ".repeat(36))),
        "{err}"
    );
}

#[test]
fn check_reports_an_unterminated_comment() {
    let path = spec_file("comment.qtl", "prop p : a\n/* never closed\n");
    let out = bin().arg("check").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("comment.qtl:2:1: error: this comment is never closed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn check_of_a_missing_file_exits_2() {
    let out = bin()
        .args(["check", "/nonexistent/spec.qtl"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read /nonexistent/spec.qtl"));
}

#[test]
fn compile_shows_the_mixed_evaluation_order_of_rules() {
    let path = spec_file(
        "telemetry.qtl",
        "prop telemetry1 : Forall x . closed(x) -> !telem(x)\n  where closed(x) := toggle(x) <-> @!closed(x)\n",
    );
    let dot = path.with_extension("dot");
    let out = bin()
        .arg("compile")
        .arg(&path)
        .arg("--dot")
        .arg(&dot)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.contains("property telemetry1:"), "{listing}");
    assert!(listing.contains("closed(closed.x) := n"), "{listing}");
    // Phases appear in the paper's order: rule body, relation, under @, statement.
    let phases: Vec<&str> = listing
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('(').and_then(|r| r.get(..1)))
        .collect();
    assert!(!phases.is_empty(), "{listing}");
    let mut sorted = phases.clone();
    sorted.sort();
    assert_eq!(phases, sorted, "{listing}");
    assert!(
        phases.contains(&"a") && phases.contains(&"c") && phases.contains(&"d"),
        "{listing}"
    );
    assert!(listing.contains("<- statement"));
    let dot = std::fs::read_to_string(&dot).expect("dot written");
    assert!(dot.starts_with("digraph hindsight {"));
    assert!(
        dot.contains("style=dashed"),
        "an @ edge reads the previous event: {dot}"
    );
}

#[test]
fn compile_of_an_ill_formed_spec_exits_2() {
    let path = spec_file("free.qtl", "prop p : P login(x)\n");
    let out = bin().arg("compile").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("free.qtl:1:18: error: free variable `x`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn run_prop_selects_properties_and_rejects_unknown_names() {
    let spec = spec_file(
        "two.qtl",
        "prop a : Forall x . q(x) -> P p(x)\nprop b : Forall x . p(x) -> !@ P p(x)\n",
    );
    let trace = spec_file("two.csv", "p,1\nq,2\np,1\n");
    let run = |options: &[&str]| {
        bin()
            .arg("run")
            .args(options)
            .arg(&spec)
            .arg(&trace)
            .output()
            .expect("runs")
    };
    // Both: a fails at event 2, b at event 3.
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("property a: 1 violation (first at event 2)"),
        "{text}"
    );
    assert!(
        text.contains("property b: 1 violation (first at event 3)"),
        "{text}"
    );
    let out = run(&["--prop", "b"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(!text.contains("property a"), "{text}");
    assert!(
        text.contains("property b: 1 violation (first at event 3)"),
        "{text}"
    );
    let out = run(&["--prop", "c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("has no property `c`; its properties are: a, b"));
}

#[test]
fn stop_at_first_reports_every_property_violated_at_that_event() {
    let spec = spec_file(
        "stop.qtl",
        "prop a : Forall x . q(x) -> P p(x)\nprop b : Forall x . q(x) -> P r(x)\nprop c : Forall x . q(x) -> P q(x)\n",
    );
    let trace = spec_file("stop.csv", "p,1\nq,2\nq,3\n");
    let out = bin()
        .args(["run", "--stop-at-first"])
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let violations: Vec<&str> = text.lines().take_while(|l| *l != "---").collect();
    assert_eq!(
        violations,
        [
            "property a violated at event 2: q(2)",
            "property b violated at event 2: q(2)"
        ]
    );
    assert!(text.contains("events processed: 2 "), "{text}");
}
