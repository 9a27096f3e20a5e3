//! Proptest strategies for specifications whose statements have the
//! guarded shapes that point evaluation answers at the event's binding
//! (`Forall x . p(x) -> ψ`, `!p(x) | ψ`, `Exists x . q(x, "1") & ψ`, chains,
//! conjunctions of guarded parts, partial guards, negations), and some that
//! do not (`Forall x . ψ`, a guard under a temporal operator), over the
//! events `p(_)`, `r(_)`, `q(_, _)` and `s`, with traces over the values
//! 1, 2 and 3. Used by tests/guarded.rs with the reference evaluator.

use proptest::prelude::*;

use super::reference::Event;

/// A past-time formula over the variables `vars` (each of which is bound
/// outside), with nested quantifiers that bind fresh variables `z<depth>`.
pub fn psi(vars: Vec<&'static str>, depth: u32) -> BoxedStrategy<String> {
    let v = vars.clone();
    let pick = move |i: usize| v[i % v.len()];
    let leaf = {
        let pick = pick.clone();
        (0usize..8, 0usize..3, 0usize..3)
            .prop_map(move |(k, i, j)| {
                let (x, y) = (pick(i), pick(j));
                match k {
                    0 => format!("p({x})"),
                    1 => format!("r({x})"),
                    2 => format!("q({x}, {y})"),
                    3 => format!("q({x}, \"1\")"),
                    4 => "s".to_string(),
                    5 => format!("@ p({x})"),
                    6 => format!("P q({y}, {x})"),
                    _ => format!("[p({x}), r({x}))"),
                }
            })
            .boxed()
    };
    if depth == 0 {
        return leaf;
    }
    let sub = || psi(vars.clone(), depth - 1);
    let z: &'static str = ["z1", "z2", "z3", "z4"][(depth as usize - 1).min(3)];
    let mut inner = vars.clone();
    inner.push(z);
    let nested = psi(inner, depth - 1);
    let pick2 = pick.clone();
    prop_oneof![
        3 => leaf,
        1 => sub().prop_map(|a| format!("!({a})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("({a}) & ({b})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("({a}) | ({b})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("({a}) -> ({b})")),
        1 => sub().prop_map(|a| format!("@ ({a})")),
        1 => sub().prop_map(|a| format!("P ({a})")),
        1 => sub().prop_map(|a| format!("H ({a})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("({a}) S ({b})")),
        1 => (nested.clone(), 0usize..3).prop_map(move |(a, i)| {
            format!("Exists {z} . q({}, {z}) & ({a})", pick(i))
        }),
        1 => (nested, 0usize..3).prop_map(move |(a, i)| {
            format!("Forall {z} . q({z}, {}) -> ({a})", pick2(i))
        }),
    ]
    .boxed()
}

/// A statement: guarded in one of several ways, or not guarded.
pub fn statement() -> BoxedStrategy<String> {
    let one = || psi(vec!["x"], 2);
    let two = || psi(vec!["x", "y"], 2);
    let three = || psi(vec!["x", "y", "w"], 2);
    prop_oneof![
        one().prop_map(|a| format!("Forall x . p(x) -> ({a})")),
        one().prop_map(|a| format!("Forall x . !p(x) | ({a})")),
        one().prop_map(|a| format!("Forall x . ({a}) | !r(x)")),
        (one(), one()).prop_map(|(g, a)| format!("Forall x . (p(x) & ({g})) -> ({a})")),
        two().prop_map(|a| format!("Forall x . Forall y . q(x, y) -> ({a})")),
        two().prop_map(|a| format!("Forall y . Forall x . !(q(x, y) & !({a}))")),
        one().prop_map(|a| format!("Forall x . q(x, x) -> ({a})")),
        one().prop_map(|a| format!("Exists x . q(x, \"1\") & ({a})")),
        one().prop_map(|a| format!("!(Exists x . p(x) & ({a}))")),
        one().prop_map(|a| format!("Exists x . ({a}) -> !p(x)")),
        // A partial guard: y stays quantified over all values.
        two().prop_map(|a| format!("Forall x . Forall y . p(x) -> ({a})")),
        // Chains whose guard binds a variable of a quantifier below too,
        // locks-cycles' shape (y is not guarded).
        (three(), three()).prop_map(|(g, a)| {
            format!("Forall x . Forall y . Forall w . (q(x, w) & ({g})) -> ({a})")
        }),
        three().prop_map(|a| format!("Exists x . Exists w . q(w, x) & ({a})")),
        three().prop_map(|a| format!("Forall x . Exists w . Forall y . q(x, w) -> ({a})")),
        // The same under quantifiers over the values seen (whose range
        // may be empty: before any q, `exists y . φ` is false).
        two().prop_map(|a| format!("Forall x . exists y . q(x, y) -> ({a})")),
        two().prop_map(|a| format!("Exists x . forall y . q(y, x) & ({a})")),
        (one(), one()).prop_map(|(a, b)| format!("Forall x . (p(x) -> ({a})) & (r(x) -> ({b}))")),
        (one(), one()).prop_map(|(a, b)| format!("Forall x . (@ s) -> (r(x) -> ({a})) & ({b})")),
        // Not guarded.
        one().prop_map(|a| format!("Forall x . {a}")),
        one().prop_map(|a| format!("Exists x . {a}")),
        one().prop_map(|a| format!("Forall x . (@ p(x)) -> ({a})")),
        two().prop_map(|a| format!("Forall x . Exists y . q(x, y) -> ({a})")),
    ]
    .boxed()
}

/// A specification of one to three properties, or one with a rule.
pub fn spec() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::collection::vec(statement(), 1..=3).prop_map(|stmts| {
            stmts
                .iter()
                .enumerate()
                .map(|(i, s)| format!("prop g{i} : {s}\n"))
                .collect::<String>()
        }),
        1 => psi(vec!["x"], 1).prop_map(|a| format!(
            "prop rule : Forall x . r(x) -> !c(x) | ({a})\n  where c(x) := p(x) <-> @ !c(x)\n"
        )),
    ]
    .boxed()
}

/// A trace of up to `most` events over `p`, `r`, `q` and `s`.
pub fn trace(most: usize) -> BoxedStrategy<Vec<Event>> {
    let value = || prop_oneof![Just("1"), Just("2"), Just("3")];
    let event = prop_oneof![
        value().prop_map(|a| Event::new("p", &[a], 0)),
        value().prop_map(|a| Event::new("r", &[a], 0)),
        (value(), value()).prop_map(|(a, b)| Event::new("q", &[a, b], 0)),
        Just(Event::new("s", &[], 0)),
    ];
    prop::collection::vec(event, 1..=most).boxed()
}

/// A conjunct `Exists z . (φ & e(..))` of a rule body whose event binds
/// `z`, with φ a previous rule relation (arguments in any order, repeated
/// or constant) or another past formula; the conjunction either way round.
fn restricted_conjunct(outer: &'static str) -> BoxedStrategy<String> {
    let term = move || prop_oneof![Just(outer), Just("y"), Just("z"), Just("\"1\"")];
    let source = prop_oneof![
        3 => (term(), term()).prop_map(|(a, b)| format!("@k({a}, {b})")),
        1 => term().prop_map(|a| format!("@j({a})")),
        1 => (term(), term()).prop_map(|(a, b)| format!("P q({a}, {b})")),
        1 => term().prop_map(|a| format!("@(k(z, {a}) | p(z))")),
    ];
    // The event binds z, and maybe y or x.
    let event = prop_oneof![
        term().prop_map(|a| format!("e(z, {a})")),
        term().prop_map(|a| format!("e({a}, z)")),
        Just("p(z)".to_string()),
    ];
    (source, event, any::<bool>())
        .prop_map(|(s, e, flip)| {
            if flip {
                format!("(Exists z . ({e} & {s}))")
            } else {
                format!("(Exists z . ({s} & {e}))")
            }
        })
        .boxed()
}

/// Specifications with rules whose bodies have conjuncts that point
/// evaluation answers by restriction (see `runtime/prop/restrict.rs`),
/// the paper's `spawning` among them.
pub fn restrict_spec() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        2 => restricted_conjunct("x"),
        1 => Just("@k(x, y)".to_string()),
        1 => Just("e(x, y)".to_string()),
        1 => Just("q(y, x)".to_string()),
    ];
    let statement = prop_oneof![
        Just("Forall x . Forall y . q(x, y) -> k(x, y)"),
        Just("Forall x . Forall y . e(x, y) -> !k(y, x)"),
        Just("Forall x . p(x) -> j(x)"),
        Just("Forall x . p(x) -> (Exists y . k(x, y)) | j(x)"),
    ];
    (
        prop::collection::vec(piece, 1..=3),
        restricted_conjunct("y"),
        statement,
    )
        .prop_map(|(pieces, j, stmt)| {
            format!(
                "prop t : {stmt} where\n  k(x, y) := (@k(x, y) & !q(x, y)) | {},\n  j(y) := (@j(y) & !p(y)) | {j}\n",
                pieces.join(" | "),
            )
        })
        .boxed()
}

/// A trace of up to `most` events over `e(_, _)`, `q(_, _)` and `p(_)`.
pub fn restrict_trace(most: usize) -> BoxedStrategy<Vec<Event>> {
    let value = || prop_oneof![Just("1"), Just("2"), Just("3"), Just("4")];
    let event = prop_oneof![
        3 => (value(), value()).prop_map(|(a, b)| Event::new("e", &[a, b], 0)),
        2 => (value(), value()).prop_map(|(a, b)| Event::new("q", &[a, b], 0)),
        1 => value().prop_map(|a| Event::new("p", &[a], 0)),
    ];
    prop::collection::vec(event, 1..=most).boxed()
}

/// `text` with every occurrence of the variable `from` (a whole word)
/// replaced by `to`.
fn rename_var(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let before = rest[..i].chars().next_back().is_some_and(word);
        let after = rest[i + from.len()..].chars().next().is_some_and(word);
        out.push_str(&rest[..i]);
        out.push_str(if before || after { from } else { to });
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Statements with twins: a formula over `x` (and its own quantified
/// variables) next to the same formula over `y`, or over `y` and `x`
/// swapped, so that the engine computes one as the renaming of the other
/// (the shape of the FMSD locks-cycles property among them).
pub fn twins_spec() -> BoxedStrategy<String> {
    let one = || psi(vec!["x"], 2);
    let two = || psi(vec!["x", "y"], 2);
    let swapped = |a: &str| rename_var(&rename_var(&rename_var(a, "x", "w"), "y", "x"), "w", "y");
    prop_oneof![
        one().prop_map(|a| {
            let b = rename_var(&a, "x", "y");
            format!("Forall x . Forall y . q(x, y) -> (@ ({a}) -> !(@ P (@ ({b}) & p(y))))")
        }),
        one().prop_map(|a| {
            let b = rename_var(&a, "x", "y");
            format!("Forall x . Forall y . q(x, y) -> (P ({a})) | !P ({b})")
        }),
        two().prop_map(move |a| {
            let b = swapped(&a);
            format!("Forall x . Forall y . p(x) -> (H ({a})) -> @ ({b})")
        }),
        // locks-cycles' shape: a variable the twin's source reads (y) in
        // the event that reads the twin, which does not.
        two().prop_map(|a| {
            let b = rename_var(&rename_var(&a, "x", "z"), "y", "w");
            format!(
                "Forall x . Forall y . Forall z . Forall w . (@ ({a}) & q(x, w)) -> !(@ P (@ ({b}) & q(z, y)))"
            )
        }),
        (one(), one()).prop_map(|(g, a)| {
            let b = rename_var(&a, "x", "y");
            format!("Forall x . (p(x) & ({g})) -> exists y . ({a}) S ({b})")
        }),
    ]
    .prop_map(|s| format!("prop t : {s}\n"))
    .boxed()
}
