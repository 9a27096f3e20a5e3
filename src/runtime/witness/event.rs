//! Witnesses that the violating event alone determines, whatever the
//! monitor's state and codes: what a parallel run reports, where no one
//! monitor holds the whole run's state (a slice knows part of the values
//! and numbers them in its own order).
//!
//! Take `Forall user . Forall file . access(user, file) -> [login(user),
//! logout(user)) & [open(file), close(file))`. Where it is false, at an
//! event, `access(user, file)` is true, so the assignments that falsify the
//! statement under its leading `Forall`s are the one the event gives:
//! `user` and `file` are the event's arguments. The walk of [`falsify`]
//! (see the [parent module](super)) blames the leading variables, and goes
//! on below them blaming no other variable when no quantifier that blames
//! one (a `Forall` that must be false, an `Exists` that must be true) can be
//! reached on its way: the set it ends with is then that one assignment,
//! and the witness (and the one tuple of `--all-witnesses`) is the event's
//! values, as the sequential walk decodes them.
//!
//! [`EventWitness::of`] finds such properties: the statement is `Forall
//! x1 ... Forall xk . φ`, φ is false only where an atom whose arguments
//! mention every `xi` is true (the *guard*: `g -> ψ`, a conjunction of
//! such implications, `!(g & ψ)`, ...), all guards are the same atom, and
//! the walk cannot reach a quantifier that blames.
//!
//! [`falsify`]: super::falsify

use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::syntax::Quant;

use super::{Witness, WitnessValue};

/// A property whose witness is its violating event's values (see the
/// [module](self) docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventWitness {
    /// The leading `Forall` variables, outermost first, named as a witness
    /// names them.
    vars: Vec<(String, VarIx)>,
    /// The guard: its event name and argument patterns.
    event: String,
    args: Vec<Arg>,
}

impl EventWitness {
    /// The event witness of property `plan`, if its violations have one.
    pub fn of(plan: &PropPlan) -> Option<EventWitness> {
        let Guards { vars, atoms } = Guards::of(plan)?;
        let Op::Atom { event, args } = &plan.nodes[atoms[0]].op else {
            return None;
        };
        let named = vars
            .iter()
            .map(|&v| {
                let var = &plan.vars[v];
                let clash = vars
                    .iter()
                    .any(|&w| w != v && plan.vars[w].name == var.name);
                let name = if clash { &var.label } else { &var.name };
                (name.clone(), v)
            })
            .collect();
        Some(EventWitness {
            vars: named,
            event: event.clone(),
            args: args.clone(),
        })
    }

    /// The witness of a violation at the event `name(args)`: each leading
    /// variable with its value at the guard. `None` when the event does not
    /// match the guard (the property cannot be violated there).
    pub fn witness(&self, name: &[u8], args: &[&[u8]]) -> Option<Witness> {
        if self.event.as_bytes() != name || self.args.len() != args.len() {
            return None;
        }
        let mut values: Vec<(VarIx, &[u8])> = Vec::new();
        for (pattern, &arg) in self.args.iter().zip(args) {
            match pattern {
                Arg::Const(c) if c.as_bytes() != arg => return None,
                Arg::Const(_) => {}
                Arg::Var(v) => match values.iter().find(|(w, _)| w == v) {
                    Some((_, earlier)) if *earlier != arg => return None,
                    Some(_) => {}
                    None => values.push((*v, arg)),
                },
            }
        }
        self.vars
            .iter()
            .map(|(name, v)| {
                let (_, value) = values.iter().find(|(w, _)| w == v)?;
                Some((name.clone(), WitnessValue::Value((*value).into())))
            })
            .collect()
    }
}

/// The leading `Forall` variables of a property whose witness is its
/// violating event's values, and its guards: the atom nodes (all of one
/// pattern) one of which is true wherever the statement is false.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Guards {
    /// The leading `Forall` variables, outermost first.
    pub vars: Vec<VarIx>,
    /// The guard atoms (at least one).
    pub atoms: Vec<NodeIx>,
}

impl Guards {
    /// The guards of property `plan`, if its violations have an event
    /// witness (see the [module](self) docs).
    pub(crate) fn of(plan: &PropPlan) -> Option<Guards> {
        let mut vars = Vec::new();
        let mut body = plan.root;
        while let Op::Quant(Quant::Forall, v, a) = plan.nodes[body].op {
            vars.push(v);
            body = a;
        }
        if vars.is_empty() || blames(plan, body, false) {
            return None;
        }
        let mut atoms = Vec::new();
        if !guarded(plan, body, false, &vars, &mut atoms) {
            return None;
        }
        let first = *atoms.first()?;
        // Two guards of different patterns could make two assignments.
        if atoms.iter().any(|&g| plan.nodes[g].op != plan.nodes[first].op) {
            return None;
        }
        atoms.sort_unstable();
        atoms.dedup();
        Some(Guards { vars, atoms })
    }
}

/// Whether node `n`, having the value `target`, implies that a guard is
/// true: an atom whose arguments mention every variable of `vars` (pushed
/// to `guards`, every one that the implication may rest on).
fn guarded(
    plan: &PropPlan,
    n: NodeIx,
    target: bool,
    vars: &[VarIx],
    guards: &mut Vec<NodeIx>,
) -> bool {
    match (&plan.nodes[n].op, target) {
        (Op::Atom { args, .. }, true) => {
            let all = vars
                .iter()
                .all(|v| args.iter().any(|a| matches!(a, Arg::Var(w) if w == v)));
            if all {
                guards.push(n);
            }
            all
        }
        (Op::Not(a), _) => guarded(plan, *a, !target, vars, guards),
        // One side true, or false, suffices.
        (Op::And(a, b), true) | (Op::Or(a, b), false) => {
            guarded(plan, *a, target, vars, guards) || guarded(plan, *b, target, vars, guards)
        }
        (Op::Implies(a, b), false) => {
            guarded(plan, *a, true, vars, guards) || guarded(plan, *b, false, vars, guards)
        }
        // Either side may be the one: both must be guarded.
        (Op::And(a, b), false) | (Op::Or(a, b), true) => {
            guarded(plan, *a, target, vars, guards) && guarded(plan, *b, target, vars, guards)
        }
        _ => false,
    }
}

/// Whether the walk of the witnesses, at node `n` that must have the value
/// `target`, may reach a quantifier that blames its variable (as
/// `Walk::visit` goes down).
fn blames(plan: &PropPlan, n: NodeIx, target: bool) -> bool {
    match &plan.nodes[n].op {
        Op::Not(a) => blames(plan, *a, !target),
        Op::Implies(a, b) if !target => blames(plan, *a, true) || blames(plan, *b, false),
        Op::Implies(..) => false,
        Op::And(a, b) | Op::Or(a, b) => blames(plan, *a, target) || blames(plan, *b, target),
        Op::Quant(q, _, _) => {
            let universal = matches!(q, Quant::Forall | Quant::ForallSeen);
            universal != target
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::witness::format_witness;

    fn event_witness(spec: &str) -> Option<EventWitness> {
        let (plan, _) = crate::plan::compile_source(spec).expect("well-formed");
        EventWitness::of(&plan.props[0])
    }

    /// The sequential witnesses of `trace` found by the walk, and those of
    /// the event rule; the sequential run in point mode, which takes them
    /// from the event, must agree with the walk.
    fn both(spec: &str, trace: &[(&str, &[&str])]) -> Vec<(u64, String, String)> {
        let rule = event_witness(spec).expect("an event witness");
        let walked = super::super::tests::witnesses_with(spec, trace, false);
        assert_eq!(super::super::tests::witnesses(spec, trace), walked);
        (walked.into_iter())
            .map(|(n, sequential)| {
                let (name, args) = trace[n as usize - 1];
                let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
                let by_event = rule.witness(name.as_bytes(), &args).expect("the guard");
                (n, sequential, format_witness(&by_event))
            })
            .collect()
    }

    #[test]
    fn guarded_statements_have_the_event_as_witness() {
        let spec = "prop access : Forall u . Forall f . access(u, f) -> \
                    [login(u), logout(u)) & [open(f), close(f))";
        let trace: &[(&str, &[&str])] = &[
            ("login", &["ann"]),
            ("open", &["db"]),
            ("access", &["ann", "db"]),
            ("access", &["bob", "db"]),
            ("close", &["db"]),
            ("access", &["ann", "db"]),
        ];
        let got = both(spec, trace);
        let want = [(4, "u=bob f=db"), (6, "u=ann f=db")];
        assert_eq!(got.len(), want.len());
        for ((n, seq, ev), (m, w)) in got.iter().zip(want) {
            assert_eq!((*n, seq.as_str(), ev.as_str()), (m, w, w));
        }
        let file = "prop file : Forall f . close(f) -> Exists m . @ [open(f, m), close(f))";
        let got = both(file, &[("open", &["a", "r"]), ("close", &["b"])]);
        assert_eq!(got, vec![(2, "f=b".into(), "f=b".into())]);
    }

    #[test]
    fn conjunctions_of_guards_and_constants_and_repeated_variables() {
        let spec = "prop p : Forall x . (q(x, \"k\", x) -> @ P r(x)) & !(q(x, \"k\", x) & P s(x))";
        assert!(event_witness(spec).is_some());
        let got = both(spec, &[("s", &["a"]), ("q", &["a", "k", "a"])]);
        assert_eq!(got, vec![(2, "x=a".into(), "x=a".into())]);
        let rule = event_witness(spec).expect("an event witness");
        assert_eq!(rule.witness(b"q", &[b"a", b"j", b"a"]), None);
        assert_eq!(rule.witness(b"q", &[b"a", b"k", b"b"]), None);
    }

    #[test]
    fn other_statements_have_none() {
        // A variable the guard does not bind.
        assert_eq!(
            event_witness("prop p : Forall t . Forall l . sleep(t) -> ![acq(t,l),rel(t,l))"),
            None
        );
        // No guard.
        assert_eq!(event_witness("prop p : Forall x . P seen(x)"), None);
        // A quantifier below that blames: `Forall b` false.
        assert_eq!(
            event_witness("prop p : Forall i . bid(i) -> Forall b . @ P q(i, b)"),
            None
        );
        // Two guards of different patterns.
        assert_eq!(
            event_witness("prop p : Forall x . Forall y . (q(x, y) -> P r(x)) & (q(y, x) -> P r(y))"),
            None
        );
        // Not universally quantified.
        assert_eq!(event_witness("prop p : q -> @ r"), None);
    }

    #[test]
    fn an_exists_that_must_be_false_blames_nothing() {
        let spec = "prop p : Forall x . r(x) -> Exists y . @ P q(x, y)";
        assert!(event_witness(spec).is_some());
        let got = both(spec, &[("q", &["a", "1"]), ("r", &["a"]), ("r", &["b"])]);
        assert_eq!(got, vec![(3, "x=b".into(), "x=b".into())]);
    }
}
