//! Unit tests of macro expansion.

use crate::check::{Checked, check_source};
use crate::syntax::{Arena, FormId};

fn show(arena: &Arena, id: FormId) -> String {
    arena.show(id)
}

fn ok(text: &str) -> Checked {
    check_source(text).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.iter().map(|d| d.render("t", text)).collect::<Vec<_>>()
        )
    })
}

fn body(c: &Checked, prop: usize) -> String {
    show(&c.arena, c.props[prop].body)
}

#[test]
fn parameters_are_substituted() {
    let c = ok("pred isOpen(f) = !close(f) S open(f)\nprop p : Forall g . close(g) -> @ isOpen(g)");
    assert_eq!(
        body(&c, 0),
        "Forall g . (close(g) -> @(!close(g) S open(g)))"
    );
    let c = ok("pred m(a, b) = q(b, a, \"k\")\nprop p : m(\"x\", 5)");
    assert_eq!(body(&c, 0), "q(\"5\",\"x\",\"k\")");
}

#[test]
fn statements_without_macros_are_kept() {
    let c = ok("prop p : Forall x . a(x) -> @ b(x)");
    let parsed_nodes = 5;
    assert_eq!(c.arena.len(), parsed_nodes);
    assert_eq!(c.props[0].body, FormId(4));
}

#[test]
fn local_quantifiers_get_fresh_names_per_expansion() {
    let text = "pred seen(u) = exists m . P start(u, m)\nprop p : Forall m . seen(m) & @ seen(m)";
    let c = ok(text);
    let got = body(&c, 0);
    assert_eq!(
        got,
        "Forall m . ((exists m'1 . P start(m,m'1)) & @exists m'2 . P start(m,m'2))"
    );
}

#[test]
fn constants_on_the_left_of_comparisons_are_flipped() {
    let text = "pred lt(a, b) = a < b\npred ge(a, b) = a >= b\n\
                    prop p : Forall x . q(x) -> lt(3, x) & ge(10, x) & lt(x, 4) & lt(9, 10) & lt(\"b9\", \"b10\") & ge(\"b\", \"a\")";
    let c = ok(text);
    assert_eq!(
        body(&c, 0),
        "Forall x . (q(x) -> (((((x > \"3\" & x <= \"10\") & x < \"4\") & true) & false) & true))"
    );
    let c = ok("pred eq(a, b) = a = b\nprop p : eq(7, 7) & eq(7, \"07\") & eq(1, 2)");
    assert_eq!(body(&c, 0), "((true & false) & false)");
}

#[test]
fn nested_macros_expand_in_any_order() {
    let text = "prop p : forall it . important(it) -> safe1(it, 1000)\n\
                    pred safe1(i, k) = H (forall y . inner(i, y, k))\n\
                    pred inner(ii, yy, kk) = report(ii, yy) -> yy < kk";
    let c = ok(text);
    assert_eq!(
        body(&c, 0),
        "forall it . (important(it) -> H forall y'1 . (report(it,y'1) -> y'1 < \"1000\"))"
    );
    assert!(c.warnings.is_empty());
}

#[test]
fn rules_and_macros_inside_rules() {
    let text = "pred was(x) = @ r(x)\n\
                    prop p : Forall x . r(x) -> !q(x) where r(x) := s(x) | was(x)";
    let c = ok(text);
    assert_eq!(show(&c.arena, c.props[0].rules[0].body), "(s(x) | @r(x))");
    let got: Vec<_> = c.events.keys().cloned().collect();
    assert_eq!(got, vec!["q", "s"]);
    // The same macro used outside `@` in a rule body is an error, at the
    // call inside the macro, with a note at the macro call.
    let text =
        "pred now(x) = r(x)\nprop p : Forall x . r(x) where r(x) := s(x) | @ now(x) | now(x)";
    let errs = check_source(text).err().unwrap_or_default();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].span.start, text.find("r(x)\n").unwrap_or(0));
    assert!(errs[0].message.contains("outside `@`"));
    assert_eq!(errs[0].notes[0].0.start, text.rfind("now(x)").unwrap_or(0));
}

#[test]
fn unused_macros_are_still_checked() {
    let errs = check_source("pred m(x) = a(x, x)\nprop p : Forall y . a(y)")
        .err()
        .unwrap_or_default();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0]
            .message
            .contains("event `a` is used with 1 argument here, but with 2")
    );
    let c = ok("pred m(x) = a(x)\npred n = m(1)\nprop p : Forall y . a(y)");
    let w: Vec<_> = c.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(
        w,
        vec![
            "macro `m` is never used by any property",
            "macro `n` is never used by any property"
        ]
    );
}

#[test]
fn exponential_expansion_is_bounded() {
    let mut text = String::from("pred m0 = a\n");
    for i in 1..40 {
        text.push_str(&format!("pred m{i} = m{} & m{}\n", i - 1, i - 1));
    }
    text.push_str("prop p : m39\n");
    let errs = check_source(&text).err().unwrap_or_default();
    assert_eq!(errs.len(), 1);
    assert!(errs[0].message.contains("macro expansion is too large"));
}
