//! Range restriction and the arrangement of constraints.

use crate::check::check_source;

/// The checked statement of the only property of `spec`, as text.
fn arranged(spec: &str) -> String {
    let c = check_source(spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
    c.arena.show(c.props[0].body)
}

/// The messages of the errors of `spec`.
fn errors(spec: &str) -> Vec<String> {
    match check_source(spec) {
        Ok(_) => Vec::new(),
        Err(ds) => ds.into_iter().map(|d| d.message).collect(),
    }
}

#[test]
fn constraints_come_after_what_binds_their_variables() {
    // Written first, applied last.
    assert_eq!(
        arranged("prop p : Forall x . Forall y . (x + 1 > y & q(y) & r(x)) -> s(x)"),
        "Forall x . Forall y . (((q(y) & r(x)) & x + 1 > y) -> s(x))"
    );
    // An assignment binds its variable for the constraints after it, and
    // is written with its variable on the left.
    assert_eq!(
        arranged("prop p : Forall x . Forall z . (z * 2 > 10 & x + 1 = z & r(x)) -> s(z)"),
        "Forall x . Forall z . (((r(x) & z = x + 1) & z * 2 > 10) -> s(z))"
    );
    // `φ -> C` is `!(φ & !C)`.
    assert_eq!(
        arranged("prop p : Forall x . r(x) -> x % 2 = 0"),
        "Forall x . !(r(x) & !x % 2 = 0)"
    );
    // Plain comparisons stay where they are (over the values seen).
    assert_eq!(
        arranged("prop p : Forall x . r(x) -> x > 2"),
        "Forall x . (r(x) -> x > \"2\")"
    );
}

#[test]
fn rules_bind_their_parameters_where_their_bodies_do() {
    assert!(
        errors(
            "prop p : Forall x . Forall y . (k(x) & y = x * 2) -> r(y)
               where k(a) := q(a) | @ k(a)"
        )
        .is_empty()
    );
    let e = errors(
        "prop p : Forall x . Forall y . (k(x) & y = x * 2) -> r(y)
           where k(a) := !q(a)",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("the comparison `y = x * 2` computes with `x`"),
        "{e:?}"
    );
}

#[test]
fn what_does_not_bind() {
    for spec in [
        // A negation binds nothing.
        "prop p : Forall x . !q(x) & x + 1 > 2",
        // A disjunction binds what both sides bind.
        "prop p : Forall x . Forall y . (q(x) | r(y)) & x + y > 2",
        // `H[a,b]` with a > 0 leaves the current event out.
        "prop p : Forall x . H[1,3] q(x) & x * 2 > 2",
        // Alone.
        "prop p : Forall x . x + 1 > 2",
        // Under something other than a conjunction.
        "prop p : Forall x . q(x) & P (x + 1 > 2)",
    ] {
        let e = errors(spec);
        assert!(
            e.len() == 1 && e[0].contains("computes with `x`"),
            "{spec}: {e:?}"
        );
    }
    let e = errors("prop p : Forall c . (c <- CNT x . P !q(x)) -> c > 1");
    assert!(
        e.len() == 1 && e[0].starts_with("the operand of `c <- CNT x` does not bind `x`"),
        "{e:?}"
    );
}

#[test]
fn what_binds() {
    for spec in [
        "prop p : Forall x . Forall y . (q(x) & r(y)) | (r(y) & q(x)) -> x + y > 2",
        "prop p : Forall x . (!r(x) S q(x)) -> x * 2 > 2",
        "prop p : Forall x . H q(x) -> x * 2 > 2",
        "prop p : Forall x . (Exists y . q(x) & r(y)) -> x * 2 > 2",
        "prop p : Forall c . Forall u . (c <- SUM x; u . P[<=5] q(u, x)) -> c * 2 < 10",
        "prop p : 1 + 1 = 2",
    ] {
        assert!(errors(spec).is_empty(), "{spec}: {:?}", errors(spec));
    }
}
