//! Generated specifications with aggregations, arithmetic and `LET`, and
//! traces of events with numbers, for the differential tests of issue 38.
//!
//! Specifications are drawn from shapes that are well-formed by
//! construction (every aggregation's operand binds its variables, every
//! comparison of arithmetic terms is a conjunct of a formula that binds its
//! variables), with random operators, operands, intervals and constants.
//! Traces use the events `p(x, n)`, `r(x, n)` and `q(x)`, with `x` among a
//! few names and `n` among small ints (and one float, unless the
//! specification takes ints only).

use proptest::prelude::*;

use super::reference::Event;

/// Names of `x`.
const NAMES: [&str; 3] = ["a", "b", "c"];
/// Numbers of `n` (the last one a float).
const NUMBERS: [&str; 8] = ["0", "1", "2", "3", "10", "-1", "7", "2.5"];

/// A generated case: the specification and whether its values must be ints.
#[derive(Clone, Debug)]
pub struct AggSpec {
    /// The QTL text.
    pub text: String,
    /// Whether the trace must hold ints only (the spec uses `%`).
    pub ints_only: bool,
}

fn op() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["CNT", "SUM", "MIN", "MAX", "AVG", "MED"])
}

fn relop() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["<", "<=", "=", ">", ">=", "!="])
}

fn konst() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["0", "1", "2", "3", "5", "-1", "1.5"])
}

/// An operand over `u` and `n` (both bound by it).
fn operand() -> impl Strategy<Value = String> {
    (0..11u8, 0..4u64, 1..4u64, konst()).prop_map(|(k, a, w, c)| match k {
        0 => "p(u, n)".into(),
        1 => format!("P[<={}] p(u, n)", a + w),
        2 => format!("P[{},{}] p(u, n)", a, a + w),
        3 => "P p(u, n)".into(),
        4 => "@ P p(u, n)".into(),
        5 => "(p(u, n) | r(u, n))".into(),
        6 => "(P p(u, n) & !q(u))".into(),
        7 => "(!q(u) S p(u, n))".into(),
        8 => format!("P[<={}] (p(u, n) & n > {c})", a + w),
        9 => format!("(P p(u, n) & n * 2 > {c})"),
        _ => format!("P[>{a}] r(u, n)"),
    })
}

/// A condition on the result `y`.
fn condition() -> impl Strategy<Value = (u8, &'static str, &'static str)> {
    (0..4u8, relop(), konst())
}

/// The condition `(kind, operator, constant)` on `y`, an aggregate of
/// names (no arithmetic then) or of numbers.
fn condition_text((k, r, c): (u8, &str, &str), names: bool) -> String {
    match k {
        _ if names => format!("y {r} \"b\""),
        0 | 1 => format!("y {r} {c}"),
        2 => format!("y * 2 {r} {c}"),
        _ => format!("y + 1 {r} {c} + 1"),
    }
}

/// An aggregation property.
fn aggregation() -> impl Strategy<Value = AggSpec> {
    (op(), operand(), condition(), 0..4u8).prop_map(|(op, operand, cond, shape)| {
        // The aggregated variable: `n`, or `u` for CNT, MIN and MAX (names).
        let of = if shape == 3 && matches!(op, "CNT" | "MIN" | "MAX") {
            "u"
        } else {
            "n"
        };
        // Names are not numbers: no arithmetic on an aggregate of them
        // (but their count is one).
        let cond = condition_text(cond, of == "u" && op != "CNT");
        let text = match shape {
            0 => {
                format!("prop a : Forall u . Forall y . (y <- {op} {of}; u . {operand}) -> {cond}")
            }
            1 => format!(
                "prop a : Forall u . Forall y . !((y <- {op} {of}; u . {operand}) & {cond})"
            ),
            _ => format!("prop a : Forall y . (y <- {op} {of} . {operand}) -> {cond}"),
        };
        AggSpec {
            text,
            ints_only: false,
        }
    })
}

/// An arithmetic property.
fn arithmetic() -> impl Strategy<Value = AggSpec> {
    (0..6u8, relop(), konst(), konst(), prop::sample::select(vec!["+", "-", "*", "/", "%"]))
        .prop_map(|(k, r, c, d, o)| {
            let ints_only = o == "%" || o == "/";
            // A divisor that is never zero.
            let d = if matches!(o, "%" | "/") { "3" } else { d };
            // Between two values of the trace: no division.
            let o2 = if matches!(o, "%" | "/") { "+" } else { o };
            let text = match k {
                0 => format!("prop a : Forall x . Forall n . p(x, n) -> n {o} {d} {r} {c}"),
                1 => format!(
                    "prop a : Forall x . Forall n . Forall z . (p(x, n) & z = n {o} {d}) -> !(P r(x, z))"
                ),
                2 => format!(
                    "prop a : Forall x . Forall n . Forall m . (p(x, n) & @ P r(x, m)) -> n {o2} m {r} {c}"
                ),
                3 => format!(
                    "prop a : LET big(v, w) = p(v, w) & w * 2 {r} {c} IN Forall x . Forall n . big(x, n) -> !@ P q(x)"
                ),
                4 => format!(
                    "prop a : Forall x . Forall z . (Exists n . p(x, n) & z = -n {o} {d}) -> z {r} {c}"
                ),
                _ => format!(
                    "prop a : Forall x . Forall n . (P[<=2] p(x, n) & !(n {o} {d} {r} {c})) -> q(x)"
                ),
            };
            AggSpec { text, ints_only }
        })
}

/// A specification of either kind.
pub fn spec() -> impl Strategy<Value = AggSpec> {
    prop_oneof![3 => aggregation(), 2 => arithmetic()]
}

/// A timed trace of `len` events; `ints` leaves the float out.
pub fn trace(ints: bool) -> impl Strategy<Value = Vec<Event>> {
    let numbers = if ints {
        NUMBERS.len() - 1
    } else {
        NUMBERS.len()
    };
    prop::collection::vec((0..3u8, 0..NAMES.len(), 0..numbers, 0..3u64), 1..14).prop_map(|raw| {
        let mut time = 0;
        raw.into_iter()
            .map(|(e, x, n, dt)| {
                time += dt;
                let (x, n) = (NAMES[x], NUMBERS[n]);
                match e {
                    0 => Event::new("p", &[x, n], time),
                    1 => Event::new("r", &[x, n], time),
                    _ => Event::new("q", &[x], time),
                }
            })
            .collect()
    })
}
