//! One test per slicing trap: a specification that a naive slicing would
//! get wrong, a trace whose values fall in different slices, the exact
//! violations of the sequential run for every number of jobs, and what
//! `compile --explain` says.

use hindsight::parallel::route::slice_of;

use super::{run, temp_dir, write};

/// The event numbers of the violations printed by `run --jobs J` for each
/// J in 1..=4, checked equal to `expected`; and the explanation.
fn check(name: &str, spec: &str, trace: &str, expected: &[u64], explain: &str) {
    let dir = temp_dir(name);
    let spec_path = write(&dir, "spec.qtl", spec);
    let trace_path = write(&dir, "trace.csv", trace);
    for jobs in 1..=4 {
        let o = run(&spec_path, &trace_path, jobs, &[]);
        let out = String::from_utf8_lossy(&o.stdout);
        let found: Vec<u64> = out
            .lines()
            .filter_map(|l| l.split_once(" violated at event "))
            .map(|(_, rest)| {
                rest.split(':')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("event number")
            })
            .collect();
        assert_eq!(found, expected, "{name} with --jobs {jobs}:\n{out}");
        let status = if expected.is_empty() { 0 } else { 1 };
        assert_eq!(o.status.code(), Some(status), "{name} --jobs {jobs}");
    }
    let o = super::common::bin()
        .args(["compile", "--explain"])
        .arg(&spec_path)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(explain), "{name}: {text}");
}

/// Values that two slices of two separate.
fn split(a: &str, b: &str) {
    assert_ne!(
        slice_of(a.as_bytes(), 2),
        slice_of(b.as_bytes(), 2),
        "{a} {b}"
    );
}

#[test]
fn an_existential_statement_runs_whole() {
    check(
        "exists",
        "prop p : Exists x . open(x) & !P close(x)\n",
        "open,a\nopen,b\nclose,a\nopen,a\n",
        &[3, 4],
        "not universally quantified",
    );
}

#[test]
fn a_seen_quantifier_over_values_of_other_slices_runs_whole() {
    // forall y ranges over the second arguments of every q so far; a slice
    // of x would only know those of its own q events.
    split("a", "b");
    check(
        "seen",
        "prop p : Forall x . p(x) -> forall y . P q(x, y)\n",
        "q,a,1\nq,b,2\np,a\nq,a,2\np,a\n",
        &[3],
        "`forall y` ranges over the values seen",
    );
}

#[test]
fn a_comparison_with_values_of_other_slices_runs_whole() {
    split("1", "4");
    check(
        "compare",
        "prop p : Forall x . s(x) -> Forall y . (x < y -> P q(x, y))\n",
        "q,4,9\ns,1\nq,1,9\ns,1\n",
        &[2],
        "the comparison `x < y`",
    );
}

#[test]
fn a_value_reaching_through_a_negation_runs_whole() {
    split("a", "b");
    check(
        "negation",
        "prop p : Forall x . s(x) -> !P s(\"a\")\n",
        "s,b\ns,a\ns,b\n",
        &[2, 3],
        "event s is used with x and without it",
    );
}

#[test]
fn a_rule_that_moves_the_variable_runs_whole() {
    split("2", "3");
    check(
        "spawn",
        "prop p : Forall y . s(y) -> reach(\"1\", y)\n  \
         where reach(a, b) := @reach(a, b) | q(a, b) | Exists c . (@reach(a, c) & q(c, b))\n",
        "q,1,2\nq,2,3\ns,3\ns,4\n",
        &[4],
        "passes something else than y",
    );
}

#[test]
fn an_event_with_the_variable_at_two_positions_runs_whole() {
    split("1", "2");
    check(
        "positions",
        "prop p : Forall x . Forall y . q(x, y) -> !@P q(y, x)\n",
        "q,1,2\nq,2,1\nq,3,3\n",
        &[2],
        "at different argument positions",
    );
}

#[test]
fn a_violation_by_the_unseen_value_is_reported_once() {
    // Every slice has the unseen value: each finds the violation at r.
    check(
        "unseen",
        "prop p : Forall x . r -> P p(x)\n",
        "p,1\nr\np,2\np,3\nr\n",
        &[2, 5],
        "property p: sliced on x (routed by argument: p#1; to every slice: r)",
    );
}

#[test]
fn a_sliced_rule_keeps_the_step_structure() {
    // toggle events of other slices are ticks: @ still means the previous
    // event of the whole trace.
    split("a", "b");
    check(
        "ticks",
        "prop p : Forall x . t(x) -> @t(x)\n",
        "t,a\nt,a\nt,b\nt,a\nt,b\nt,b\n",
        &[1, 3, 4, 5],
        "sliced on x",
    );
}

#[test]
fn exists_over_seen_values_is_sliced_when_its_body_needs_an_event_of_the_slice() {
    split("a", "b");
    check(
        "exists-seen",
        "prop p : Forall x . s(x) -> exists y . @P q(y, x)\n",
        "q,1,a\ns,b\ns,a\nq,2,b\ns,b\n",
        &[2],
        "property p: sliced on x (routed by argument: q#2, s#1; to every slice: none)",
    );
}

#[test]
fn a_conjunction_is_split_into_parts_sliced_apart() {
    split("u1", "u2");
    // Part 1 slices on u, part 2 on f: `open`/`close` go to one slice each.
    // u2 accesses f1 while logged in but f1 is closed at 6; u1 is logged out
    // at 8.
    check(
        "split",
        "prop access : Forall u . Forall f . access(u,f) -> \
         [login(u),logout(u)) & [open(f),close(f))\n",
        "login,u1\nlogin,u2\nopen,f1\naccess,u1,f1\naccess,u2,f1\nclose,f1\naccess,u2,f1\n\
         logout,u1\naccess,u1,f2\nopen,f2\naccess,u2,f2\n",
        &[7, 9],
        "split into 2 parts",
    );
}

#[test]
fn a_conjunction_with_a_comparison_is_not_split() {
    // The parts would each see fewer values of x for `x < y`.
    check(
        "split-cmp",
        "prop p : Forall x . Forall y . (P a(x) & b(y) & x < y) -> (P c(x) & P c(y))\n",
        "c,1\na,2\nb,3\na,1\nb,3\nc,3\nb,3\n",
        &[3, 5, 7],
        "property p: not sliced",
    );
}

#[test]
fn a_negated_disjunction_is_split() {
    // `!(bad(x) | (use(x,y) & !P init(y)))` is `!bad(x) & (use(x,y) -> P
    // init(y))`: sliced on x and on y.
    check(
        "split-neg",
        "prop p : Forall x . Forall y . !(bad(x) | (use(x,y) & !P init(y)))\n",
        "init,a\nuse,u,a\nuse,u,b\nbad,u\ninit,b\nuse,v,b\n",
        &[3, 4],
        "split into 2 parts",
    );
}

#[test]
fn the_first_tick_of_a_slice_is_stepped() {
    split("a", "b");
    // At event 2, `@!P p(b)` reads event 1 (another slice's): `!P p(b)` was
    // true there. A slice that skipped event 1 would see no previous step.
    check(
        "first-tick",
        "prop p : Forall x . q(x) -> @ !P p(x)\n",
        "p,a\nq,b\nq,a\np,b\nq,b\n",
        &[3, 5],
        "sliced on x",
    );
}

#[test]
fn a_skipped_tick_keeps_the_verdict_of_the_step_before() {
    split("a", "b");
    // Violated from event 3 on for x = a (w(a) with no lock held), also at
    // the events of slice b, which slice a skips.
    check(
        "as-before",
        "prop race : Forall x . P w(x) -> Exists l . H (w(x) -> [acq(l),rel(l)))\n",
        "acq,m\nw,a\nrel,m\nw,a\nw,b\nw,b\n",
        &[4, 5, 6],
        "sliced on x",
    );
}

#[test]
fn at_a_step_of_another_slice_an_unstable_previous_value_is_stepped() {
    split("a", "b");
    // `@p(x)` is false after a tick: slices step their ticks here.
    check(
        "unstable-prev",
        "prop p : Forall x . q(x) -> @ p(x)\n",
        "p,a\nq,a\np,a\np,b\nq,a\n",
        &[5],
        "sliced on x",
    );
}
