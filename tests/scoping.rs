//! End-to-end tests of variable scoping (issue 16): a variable is the
//! quantifier (or rule parameter) that introduces it, not its name. Sibling
//! quantifiers of the same name, macros called twice and rule bodies have
//! their own variables, with their own seen values; witnesses name variables
//! as the specification writes them, and `hindsight compile` tells
//! variables of the same name apart.

mod common;

use std::path::PathBuf;
use std::process::Output;

/// Writes `files` under a fresh directory and runs the binary there.
fn run(name: &str, files: &[(&str, &str)], args: &[&str]) -> Output {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("scoping")
        .join(name);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("write");
    }
    common::bin()
        .current_dir(&dir)
        .args(args)
        .output()
        .expect("runs")
}

use common::stdout;

/// The violation lines of a run.
fn violations(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .filter(|l| l.contains(" violated at "))
        .map(str::to_string)
        .collect()
}

/// The example of issue 16: the second `w` has seen no value, so
/// `forall w . P q(w)` holds.
#[test]
fn sibling_quantifiers_same_name_have_own_seen_sets() {
    let spec = "prop h1 : (forall w . P p(w)) & (forall w . P q(w))\n";
    let out = run(
        "siblings",
        &[("h1.qtl", spec), ("h1.csv", "p,1\n")],
        &["run", "h1.qtl", "h1.csv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("property h1: no violation"));
    // Each quantifier ranges over the values of its own atom, so both hold
    // throughout (one shared set made the engine check `P p(2)` and
    // `P q(1)` at event 2).
    let out = run(
        "siblings2",
        &[("h1.qtl", spec), ("t.csv", "p,1\nq,2\nq,1\n")],
        &["run", "h1.qtl", "t.csv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// Issue 16, in a rule body: the two `w` of the body are two variables.
#[test]
fn sibling_quantifiers_same_name_in_a_rule_body_have_own_seen_sets() {
    let spec = "prop t : k where k := (forall w . P p(w)) & (forall w . P q(w, w))\n";
    let out = run(
        "rule",
        &[("t.qtl", spec), ("t.csv", "p,1\ns,2\nq,3,3\n")],
        &["run", "t.qtl", "t.csv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(violations(&out).is_empty());
}

/// Issue 16: a comparison ranges over the values seen for the variable of
/// its own quantifier; the second `x` is bound by no event.
#[test]
fn comparison_uses_the_seen_values_of_its_own_quantifier() {
    let spec = "prop t : (Exists x . p(x)) -> (Exists x . x = x)\n";
    let out = run(
        "cmp",
        &[("t.qtl", spec), ("t.csv", "p,1\n")],
        &["run", "t.qtl", "t.csv"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        violations(&out),
        vec!["property t violated at event 1: p(1)".to_string()]
    );
}

/// A macro called twice, quantifying over the name of its caller's
/// variable: each call has its own `x`, with its own seen values.
#[test]
fn macro_called_twice_quantifies_over_its_own_variable() {
    let spec = "pred sent(u) = exists x . P q(u, x)\n\
                prop t : forall x . p(x) -> sent(x) & @ sent(x)\n";
    let out = run(
        "macro",
        &[("t.qtl", spec), ("t.csv", "q,1,2\np,1\np,2\n")],
        &["run", "t.qtl", "t.csv"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        violations(&out),
        vec!["property t violated at event 3: p(2)".to_string()]
    );
}

/// Issue 16: the witness names a macro's variable as the macro writes it
/// (not `w'1`, the name macro expansion gives it internally).
#[test]
fn witness_names_macro_variables_as_written() {
    let spec = "pred has(u) = Exists w . q(u, w)\n\
                prop t : Forall x . P p(x) -> !has(x)\n";
    let out = run(
        "witness",
        &[("t.qtl", spec), ("t.csv", "p,1\nq,1,5\n")],
        &["run", "--witness", "t.qtl", "t.csv"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        violations(&out),
        vec!["property t violated at event 2: q(1, 5); witness: x=1 w=5".to_string()]
    );
    let out = run(
        "witness",
        &[],
        &["run", "--witness", "--output", "json", "t.qtl", "t.csv"],
    );
    let text = stdout(&out);
    assert!(text.contains(r#""witness":{"w":"5","x":"1"}"#), "{text}");
}

/// `hindsight compile` lists two variables of one name as `w` and `w'2`.
#[test]
fn compile_tells_variables_of_the_same_name_apart() {
    let spec = "prop h1 : (forall w . P p(w)) & (forall w . P q(w))\n";
    let out = run("compile", &[("h1.qtl", spec)], &["compile", "h1.qtl"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("2 variables in 2 enumeration classes"),
        "{text}"
    );
    assert!(
        text.contains("    w            forall, class 0, seen values tracked"),
        "{text}"
    );
    assert!(
        text.contains("    w'2          forall, class 1, seen values tracked"),
        "{text}"
    );
    assert!(text.contains("forall w'2 . n5"), "{text}");
}

/// Two variables of one name in a witness are told apart as `compile`
/// lists them, in text and in JSON (whose witness is an object by name).
#[test]
fn witness_tells_variables_of_the_same_name_apart() {
    let spec = "prop t : Forall x . p(x) -> !((Exists w . P q(x, w)) & (Exists w . P s(w)))\n";
    let files = [("t.qtl", spec), ("t.csv", "q,1,5\ns,7\np,1\n")];
    let out = run("witness2", &files, &["run", "--witness", "t.qtl", "t.csv"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        violations(&out),
        vec!["property t violated at event 3: p(1); witness: x=1 w=5 w'2=7".to_string()]
    );
    let out = run(
        "witness2",
        &files,
        &["run", "--witness", "--output", "json", "t.qtl", "t.csv"],
    );
    assert!(
        stdout(&out).contains(r#""witness":{"w":"5","w'2":"7","x":"1"}"#),
        "{}",
        stdout(&out)
    );
}
