//! Unit tests of the MFOTL front end.

use super::*;

const SIG: &str = "p(x:string) q(x:string, y:int) r() s(z:float)";

fn qtl(formula: &str, reading: Reading) -> String {
    match translate(formula, SIG, "t", reading) {
        Ok(t) => t.qtl.lines().last().unwrap_or_default().to_string(),
        Err(e) => panic!("{formula}: {e:?}"),
    }
}

fn prop(formula: &str) -> String {
    qtl(formula, Reading::Violations)
}

fn error(formula: &str) -> Diagnostic {
    match translate(formula, SIG, "t", Reading::Violations) {
        Err(MfotlError::Formula(d)) => d,
        other => panic!("{formula}: expected an error in the formula, got {other:?}"),
    }
}

#[test]
fn precedences_are_monpolys() {
    // NOT binds tightest; a prefix temporal operator extends over AND, OR,
    // IMPLIES, EQUIV but not over SINCE.
    assert_eq!(prop("NOT r() SINCE r()"), "prop t : (!r() S r())");
    assert_eq!(prop("ONCE r() AND r()"), "prop t : P (r() & r())");
    assert_eq!(prop("ONCE r() SINCE r()"), "prop t : (P r() S r())");
    assert_eq!(
        prop("r() AND r() SINCE r()"),
        "prop t : ((r() & r()) S r())"
    );
    assert_eq!(
        prop("r() OR r() AND r() IMPLIES r() IMPLIES r()"),
        "prop t : ((r() | (r() & r())) -> (r() -> r()))"
    );
    assert_eq!(
        prop("r() SINCE r() SINCE r()"),
        "prop t : (r() S (r() S r()))"
    );
    assert_eq!(prop("NOT PREVIOUS r() OR r()"), "prop t : !@(r() | r())");
    assert_eq!(
        prop("FORALL x, y . q(x, y) IMPLIES p(x)"),
        "prop t : Forall x . Forall y . (q(x,y) -> p(x))"
    );
    assert_eq!(
        prop("(EXISTS x . p(x)) EQUIV r()"),
        "prop t : ((Exists x . p(x)) <-> r())"
    );
}

#[test]
fn intervals_and_units() {
    assert_eq!(prop("ONCE[2,10] r()"), "prop t : P[2,10] r()");
    assert_eq!(prop("ONCE(2,10) r()"), "prop t : P[3,9] r()");
    assert_eq!(prop("PAST_ALWAYS[0,5) r()"), "prop t : H[<=4] r()");
    assert_eq!(prop("PREVIOUS[1,*) r()"), "prop t : @[>0] r()");
    assert_eq!(prop("PREV (0,1m] r()"), "prop t : @[1,60] r()");
    assert_eq!(prop("r() SINCE[0,2h] r()"), "prop t : (r() S[<=7200] r())");
    assert_eq!(prop("HISTORICALLY[1d,*) r()"), "prop t : H[>86399] r()");
    // `(` after an operator is an interval only before a number.
    assert_eq!(prop("ONCE (r())"), "prop t : P r()");
}

#[test]
fn free_variables_become_the_outer_quantifiers() {
    let t = translate("q(x, y) AND NOT p(x)", SIG, "t", Reading::Satisfactions).expect("ok");
    assert_eq!(t.free, vec!["x", "y"]);
    assert_eq!(
        t.qtl,
        "pred q(x, y), p(x)\nprop t : Forall x . Forall y . !(q(x,y) & !p(x))\n"
    );
    assert_eq!(prop("TRUE"), "prop t : true");
}

#[test]
fn constants_comparisons_and_anonymous_variables() {
    assert_eq!(prop("q(\"a\", 5)"), "prop t : q(\"a\",\"5\")");
    assert_eq!(prop("q('a', -5)"), "prop t : q(\"a\",\"-5\")");
    assert_eq!(
        prop("FORALL y . q(_, y) IMPLIES 3 < y"),
        "prop t : Forall y . ((Exists _1 . q(_1,y)) -> y > \"3\")"
    );
    assert_eq!(prop("1 < 2"), "prop t : true");
    assert_eq!(prop("\"b\" = \"c\""), "prop t : false");
    assert_eq!(prop("s(2.5)"), "prop t : s(\"2.5\")");
}

#[test]
fn outside_the_fragment_is_named_with_its_place() {
    let d = error("LETPAST a() = r() IN a()");
    assert_eq!(d.span.start, 0, "{}", d.message);
    assert!(d.message.contains("`LETPAST`"), "{}", d.message);
    assert!(d.message.contains("outside the fragment"), "{}", d.message);
    let d = error("q(\"a\", y) AND z = f2i(y)");
    assert!(d.message.contains("the function `f2i`"), "{}", d.message);
}

#[test]
fn future_operators_are_read_and_need_a_finite_bound() {
    assert_eq!(prop("r() UNTIL[0,3] r()"), "prop t : (r() U[<=3] r())");
    assert_eq!(prop("NEXT r()"), "prop t : X r()");
    assert_eq!(prop("NEXT[2,*) r()"), "prop t : X[>1] r()");
    assert_eq!(prop("EVENTUALLY[1,2h] r()"), "prop t : F[1,7200] r()");
    assert_eq!(
        prop("ALWAYS(0,3] r() AND r()"),
        "prop t : G[1,3] (r() & r())"
    );
    // SINCE and UNTIL share a level, right-associative.
    assert_eq!(
        prop("r() SINCE r() UNTIL[0,1] r()"),
        "prop t : (r() S (r() U[<=1] r()))"
    );
    // An interval with no whole number in it: never (ALWAYS: always).
    assert_eq!(prop("EVENTUALLY(2,3) r()"), "prop t : false");
    assert_eq!(prop("ALWAYS(2,3) r()"), "prop t : true");
    for (formula, at, what) in [
        (
            "r() UNTIL r()",
            4,
            "`UNTIL` needs an interval with a finite upper bound",
        ),
        ("EVENTUALLY r()", 0, "`EVENTUALLY` needs an interval"),
        ("r() AND ALWAYS[2,*) r()", 8, "`ALWAYS` needs an interval"),
    ] {
        let d = error(formula);
        assert_eq!(d.span.start, at, "{formula}: {}", d.message);
        assert!(d.message.contains(what), "{formula}: {}", d.message);
    }
}

#[test]
fn aggregations_arithmetic_and_let_translate() {
    assert_eq!(
        prop("(c <- CNT y; x ONCE[0,5] q(x, y)) AND c > 3"),
        "prop t : Forall c . Forall x . ((c <- CNT y; x . P[<=5] q(x,y)) & c > \"3\")"
    );
    // The aggregated formula extends as far right as possible.
    assert_eq!(
        prop("m <- MAX y q(x, y) AND y > 1"),
        "prop t : Forall m . (m <- MAX y . (q(x,y) & y > \"1\"))"
    );
    assert_eq!(
        prop("q(x, y) AND z = y * 2 + 1 AND z MOD 3 > 0"),
        "prop t : Forall x . Forall y . Forall z . ((q(x,y) & z = y * 2 + 1) & z % 3 > 0)"
    );
    assert_eq!(
        prop("LET big(a) = EXISTS b . q(a, b) AND b > 10 IN big(x) AND NOT big(\"k\")"),
        "prop t : Forall x . (LET big(a) = Exists b . (q(a,b) & b > \"10\") IN (big(x) & !big(\"k\")))"
    );
    let t = translate(
        "(s <- AVG v; x q(x, v)) AND s > 1.5",
        SIG,
        "t",
        Reading::Violations,
    )
    .expect("typed");
    assert_eq!(t.var_types.get("s"), Some(&sig::Type::Float));
    assert_eq!(t.free, vec!["s".to_string(), "x".to_string()]);
}

#[test]
fn arithmetic_is_typed_as_monpoly_types_it() {
    for (formula, what) in [
        (
            "q(x, y) AND z = y + 1.5",
            "MonPoly does not mix ints and floats",
        ),
        ("p(x) AND z = x + 1", "arithmetic takes numbers"),
        ("s(v) AND w = v MOD 2", "MonPoly does not mix"),
        ("c <- SUM x p(x)", "`SUM` takes numbers"),
        (
            "FORALL y . q(\"a\", y + 1)",
            "in an argument of a predicate is not monitorable",
        ),
        (
            "LET a(x) = q(x, y) IN a(\"k\")",
            "is not one of its parameters",
        ),
        (
            "c <- CNT x q(x, c)",
            "also occurs in the aggregated formula",
        ),
    ] {
        let d = error(formula);
        assert!(d.message.contains(what), "{formula}: {}", d.message);
    }
}

#[test]
fn signature_errors_in_the_formula() {
    let d = error("open(x)");
    assert!(
        d.message
            .contains("`open` is not declared in the signature"),
        "{}",
        d.message
    );
    let d = error("q(\"a\")");
    assert!(
        d.message
            .contains("has 2 arguments in the signature, not 1"),
        "{}",
        d.message
    );
    let d = error("q(5, 5)");
    assert!(d.message.contains("not of type string"), "{}", d.message);
    assert_eq!(d.span.start, 2);
    let d = error("q(\"a\", \"b\")");
    assert!(d.message.contains("not of type int"), "{}", d.message);
    let d = error("EXISTS x . q(x, 1) AND q(\"a\", x)");
    assert!(
        d.message
            .contains("`x` is of type int here but of type string"),
        "{}",
        d.message
    );
    let d = error("ONCE[5,2] r()");
    assert!(
        d.message.contains("contains no natural number"),
        "{}",
        d.message
    );
    let d = error("r() AND");
    assert!(d.message.contains("end of the formula"), "{}", d.message);
    let d = error("r() r()");
    assert!(
        d.message.contains("after a complete formula"),
        "{}",
        d.message
    );
    match translate("r()", "p(x:bool)", "t", Reading::Violations) {
        Err(MfotlError::Signature(d)) => assert!(d.message.contains("unknown type `bool`")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 50_000;
    let formula = format!("{}r(){}", "(NOT ".repeat(depth), ")".repeat(depth));
    let t = translate(&formula, SIG, "t", Reading::Violations).expect("reads");
    assert_eq!(t.free.len(), 0);
}

proptest::proptest! {
    /// Any text made of MFOTL's pieces gives a translation or an error,
    /// never a panic.
    #[test]
    fn arbitrary_formulas_never_panic(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                "NOT ", "AND ", "OR ", "IMPLIES ", "EQUIV ", "EXISTS ", "FORALL ", "PREVIOUS ",
                "ONCE ", "PAST_ALWAYS ", "SINCE ", "UNTIL ", "p(x)", "q(x, 3)", "r()", "x", "y",
                ".", ",", "(", ")", "[", "]", "*", "0", "5", "7m", "=", "<", "\"s\"", "_",
                "(*", "*)", "#", "é", "18446744073709551616", "-1", "TRUE",
            ]),
            0..24,
        )
    ) {
        let formula: String = pieces.concat();
        let _ = compile(&formula, SIG, "t", Reading::Satisfactions);
        let _ = compile(&formula, SIG, "t", Reading::Violations);
    }
}

/// Found by the `mfotl` fuzz target: `--show-qtl` printed QTL that does not
/// read back (a variable named as a QTL keyword; a quantifier left of an
/// operator took the operator into its body, here making the second
/// `EXISTS other` hide the first).
#[test]
fn the_qtl_text_reads_back_as_the_translation() {
    let sig = "login(user:string, ip:string) fail(user:string, ip:string) P(S:int, S_:int)";
    let cases = [
        (
            "EXISTS ip . login(u, ip) AND ONCE[6,30] (EXISTS other . fail(u, other) AND NOT \
             other = ip) AND ONCE[1,30] (EXISTS other . fail(u, other))",
            "prop t : Forall u . Exists ip . (login(u,ip) & P[6,30] ((Exists other . \
             (fail(u,other) & !other = ip)) & P[1,30] Exists other . fail(u,other)))",
        ),
        (
            "login(P, S) AND NOT fail(P_, H) AND P(Z, Z)",
            // `P_` is taken (the formula uses it), so `P` is `P__`.
            "prop t : Forall P__ . Forall S_ . Forall P_ . Forall H_ . Forall Z_ . \
             ((login(P__,S_) & !fail(P_,H_)) & \"P\"(Z_,Z_))",
        ),
    ];
    for (formula, want) in cases {
        let t = translate(formula, sig, "t", Reading::Violations)
            .unwrap_or_else(|e| panic!("{formula}: {e:?}"));
        assert_eq!(t.qtl.lines().last().unwrap_or_default(), want);
        let compiled = compile(formula, sig, "t", Reading::Violations).is_ok();
        let read_back = crate::plan::compile_source(&t.qtl);
        assert_eq!(read_back.is_ok(), compiled, "{}", t.qtl);
    }
    let t = translate("P(a, b)", sig, "t", Reading::Violations).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(t.qtl.starts_with("pred \"P\"(S__, S_)\n"), "{}", t.qtl);
    assert!(crate::syntax::parse(&t.qtl).is_ok(), "{}", t.qtl);
}
