//! Unit tests of the slicing analysis: what is sliced, on what, and the traps.

use crate::plan::compile_source;

/// A slicing: its variable, routes and broadcast events.
type Sliced = (String, Vec<(String, usize)>, Vec<String>);

/// The slicing of the only property, or the reasons it has none.
fn decide(spec: &str) -> Result<Sliced, Vec<String>> {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let a = plan.props[0].slicing();
    match a.chosen {
        Some(s) => Ok((
            s.var_name,
            s.routes.into_iter().collect(),
            s.broadcast.into_iter().collect(),
        )),
        None => Err(a.refused.into_iter().map(|(_, why)| why).collect()),
    }
}

fn refused_because(spec: &str, part: &str) {
    match decide(spec) {
        Ok(s) => panic!("{spec} was sliced: {s:?}"),
        Err(why) => assert!(
            why.iter().any(|w| w.contains(part)),
            "{spec}: reasons {why:?} do not mention {part:?}"
        ),
    }
}

#[test]
fn a_rule_parameter_carries_the_slice_variable() {
    let (var, routes, broadcast) = decide(
        "prop t : Forall x . closed(x) -> !telem(x) where closed(x) := toggle(x) <-> @!closed(x)",
    )
    .expect("sliced");
    assert_eq!(var, "x");
    assert_eq!(routes, [("telem".into(), 0), ("toggle".into(), 0)]);
    assert!(broadcast.is_empty());
}

#[test]
fn events_without_the_variable_go_to_every_slice() {
    let spec = "prop access : Forall user . Forall file . access(user,file) -> \
                [login(user),logout(user)) & [open(file),close(file))";
    let (var, routes, broadcast) = decide(spec).expect("sliced");
    assert_eq!(var, "user");
    assert_eq!(
        routes,
        [
            ("access".into(), 0),
            ("login".into(), 0),
            ("logout".into(), 0)
        ]
    );
    assert_eq!(broadcast, ["close", "open"]);
    let (plan, _) = compile_source(spec).expect("well-formed");
    let options: Vec<String> = plan.props[0]
        .slicing()
        .options
        .into_iter()
        .map(|s| s.var_name)
        .collect();
    assert_eq!(options, ["user", "file"]);
}

#[test]
fn spawning_is_not_sliced_on_y_whose_recursion_moves_it() {
    let spec = "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where \
                spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))";
    let (plan, _) = compile_source(spec).expect("well-formed");
    let a = plan.props[0].slicing();
    let s = a.chosen.expect("sliced");
    assert_eq!(s.var_name, "d");
    assert_eq!(
        s.routes.into_iter().collect::<Vec<_>>(),
        [("report".to_string(), 2)]
    );
    assert_eq!(s.broadcast.into_iter().collect::<Vec<_>>(), ["spawn"]);
    let on_y = a
        .refused
        .iter()
        .find(|(v, _)| v.as_deref() == Some("y"))
        .expect("y refused");
    assert!(
        on_y.1.contains("spawned(spawned.x, spawned.z)"),
        "{}",
        on_y.1
    );
    // On x, the rule's spawn(x,y) carries it but spawn(z,y) does not.
    let on_x = a
        .refused
        .iter()
        .find(|(v, _)| v.as_deref() == Some("x"))
        .expect("x refused");
    assert!(
        on_x.1.contains("event spawn is used with x and without it"),
        "{}",
        on_x.1
    );
}

#[test]
fn an_existential_statement_is_not_sliced() {
    refused_because("prop p : Exists x . open(x)", "not universally quantified");
}

#[test]
fn quantifiers_over_seen_values_are_not_sliced() {
    refused_because(
        "prop p : Forall x . open(x) -> exists y . P close(y)",
        "`exists y` ranges over the values seen",
    );
    // Also with x in the atom, when the body may hold without it.
    refused_because(
        "prop p : Forall x . open(x) -> exists y . (P close(x, y) | H go(y))",
        "`exists y` ranges over the values seen",
    );
    refused_because(
        "prop p : Forall x . open(x) -> forall y . P close(y)",
        "`forall y` ranges over the values seen",
    );
}

#[test]
fn comparisons_are_not_sliced() {
    refused_because(
        "prop p : Forall x . Forall y . (open(x) & P open(y)) -> x < y",
        "comparison",
    );
}

#[test]
fn a_value_reaching_through_a_negated_atom_is_not_sliced() {
    // close("a") would let close(a) reach the slice of every x.
    refused_because(
        "prop p : Forall x . open(x) -> !close(\"a\") S close(x)",
        "used with x and without it",
    );
    refused_because(
        "prop p : Forall x . Forall y . open(x) -> !close(y) S close(x)",
        "used with x and without it",
    );
}

#[test]
fn an_event_with_the_variable_at_two_positions_is_not_sliced() {
    refused_because(
        "prop p : Forall x . Forall y . e(x,y) -> P e(y,x)",
        "at different argument positions",
    );
}

#[test]
fn a_constant_at_a_carrying_rule_parameter_is_not_sliced() {
    refused_because(
        "prop p : Forall x . (r(x) & !r(\"c\")) -> P e(x) where r(a) := e(a) | @r(a)",
        "passes something else",
    );
}

#[test]
fn a_propositional_property_is_not_sliced() {
    refused_because(
        "prop even : q -> p where q := @!q",
        "not universally quantified",
    );
}

#[test]
fn exists_over_seen_values_is_sliced_when_its_body_implies_an_event_with_x() {
    // locks-basic: `@ [acq(s,l),rel(s,l))` implies an earlier acq(s, l),
    // delivered to the slice of l, which makes s seen there.
    let (var, routes, broadcast) = decide(
        "prop locksBasic : Forall t . Forall l . ( \
           (sleep(t) -> ![acq(t,l),rel(t,l))) & \
           (acq(t,l) -> ! exists s . @ [acq(s,l),rel(s,l))) & \
           (rel(t,l) -> @ [acq(t,l),rel(t,l))))",
    )
    .expect("sliced");
    assert_eq!(var, "l");
    assert_eq!(routes, [("acq".into(), 1), ("rel".into(), 1)]);
    assert_eq!(broadcast, ["sleep"]);
}
