//! The compiled property: everything derived once from a [`PropPlan`] that is
//! not BDD state. It is immutable, `Send + Sync`, and shared behind an
//! [`Arc`](std::sync::Arc) by every monitor of the property (one per slice of
//! a parallel run, say); each monitor keeps its own state in its own BDD space.

use std::collections::BTreeMap;

use hashbrown::HashMap;

use super::{absorb, fuse, fuse_and, fuse_atom, fuse_since, point, restrict, twins};
use crate::bdd::BddVar;
use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::runtime::names::NameMap;
use crate::runtime::time::Clock;
use crate::runtime::witness::Guards;

/// A property compiled for monitoring (see the [module docs](self)).
#[derive(Debug)]
pub struct CompiledProp {
    /// The plan.
    pub(super) plan: PropPlan,
    /// The time-stamp bits.
    pub(super) clock: Clock,
    /// Per node: whether its previous value is kept (`@` operands, `S` nodes).
    pub(super) keeps_pre: Vec<bool>,
    /// The nodes whose previous value is kept with point evaluation on
    /// (no skipped rule call; the rule bodies restrictions read).
    pub(super) kept_point: Vec<NodeIx>,
    /// The nodes whose previous value is kept with point evaluation off
    /// (also the bodies restrictions read, for switching).
    pub(super) kept_all: Vec<NodeIx>,
    /// Per rule call: the bits its substitution moves, `(parameter bit,
    /// argument bit)`.
    pub(super) call_pairs: Vec<Vec<(BddVar, BddVar)>>,
    /// Quantifiers evaluated by restriction and the nodes skipped then.
    pub(super) bypass: restrict::Bypass,
    /// The atoms of each event, by the index of its name in the plan's
    /// events (see [`CompiledProp::with_events`]): every one, and those
    /// matched with point evaluation on (not the dropped twins).
    pub(super) atoms_by_event: Vec<EventAtoms>,
    /// The index in [`atoms_by_event`](Self::atoms_by_event) of each event
    /// name the property's atoms mention (the monitor looks names up
    /// once for all its properties; tests bind events by name).
    #[cfg(test)]
    pub(super) event_index: NameMap<u32>,
    /// Every atom.
    pub(super) atom_nodes: Vec<NodeIx>,
    /// Per node: whether it is an atom of distinct variables only (which
    /// every event of its name and arity matches).
    pub(super) plain_atom: Vec<bool>,
    /// Per variable: the variable whose cube cache it uses (the first one
    /// with the same bits; variables sharing bits share their cubes).
    pub(super) cube_owner: Vec<VarIx>,
    /// Whether no operator of the property reads time stamps.
    pub(super) untimed: bool,
    /// Whether the property has computing nodes (assignments, filters,
    /// aggregations), whose state a repeated event may change.
    pub(super) computes: bool,
    /// The statement's point form and the nodes computed as sets.
    pub(super) point: point::Analysis,
    /// Per node: the operand it negates if it is a negation fused into the
    /// sinces that read it (with point evaluation on; see [`fuse`]), looked
    /// up once rather than at every event.
    pub(super) fused_operand: Vec<Option<NodeIx>>,
    /// Twins computed by renaming and the nodes dropped then (with point
    /// evaluation on; see [`twins`]).
    pub(super) twins: twins::Twins,
    /// Restricted quantifiers absorbed into the disjunctions that read
    /// them (with point evaluation on; see [`absorb`]).
    pub(super) absorbed: absorb::Absorbed,
    /// Per existential quantifier over a fused conjunction: its operands
    /// (see [`fuse_and`]).
    pub(super) exists_and: Vec<Option<(NodeIx, NodeIx)>>,
    /// Per conjunction with a fused atom: its other operand and the atom
    /// (see [`fuse_atom`]).
    pub(super) and_atom: Vec<Option<(NodeIx, NodeIx)>>,
    /// Per conjunction with a fused atom: its other operand when that is
    /// an `@` of a twin read at the atom's matches only (see
    /// [`twins::defer`]).
    pub(super) at_match: Vec<Option<twins::AtMatch>>,
    /// Per since with fused atoms: which (see [`fuse_since`]).
    pub(super) since_atoms: Vec<Option<fuse_since::SinceAtoms>>,
    /// Per node: whether it is an atom fused into the conjunction or the
    /// since that reads it (with point evaluation on: not built at an
    /// event).
    pub(super) atom_fused: Vec<bool>,
    /// Per conjunction with a fused atom: the `P` that alone reads it
    /// (see [`fuse_atom::once_readers`]).
    pub(super) and_atom_once: Vec<Option<NodeIx>>,
    /// Per node: whether its `now` is computed at every event with point
    /// evaluation on (needed as a set, and neither a fused negation, nor a
    /// dropped twin, nor a fused atom).
    pub(super) point_set: Vec<bool>,
    /// The nodes computed at every event with point evaluation on (fused
    /// negations included: only whether they changed is kept up to date),
    /// each with how it is computed.
    pub(super) point_steps: Vec<Step>,
    /// Every immediate node (the order with point evaluation off): `@` and
    /// `S` as [`Step::Prev`] and [`Step::Since`], the others
    /// [`Step::Node`].
    pub(super) all_steps: Vec<Step>,
    /// Whether the statement is delayed: it has a future operator (see
    /// [`crate::plan::future`]; then point evaluation is off, and the
    /// delayed nodes are computed by `future`).
    pub(super) future: bool,
    /// Without future operators: the guards of a statement whose
    /// violations have their event's values as witness (then found
    /// without the walk; see [`Guards`]).
    pub(super) event_guards: Option<Guards>,
}

/// The atoms of one event name.
#[derive(Clone, Debug, Default)]
pub(super) struct EventAtoms {
    /// Every atom of the name (with point evaluation off).
    pub all: Vec<NodeIx>,
    /// Those that point evaluation reads (and those that bind seen values).
    pub point: Vec<NodeIx>,
}

/// How the evaluation of an event treats one node, decided once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Computed by its operator.
    Node(NodeIx),
    /// A fused negation `(node, operand)`: only whether it changed.
    Fused(NodeIx, NodeIx),
    /// An aliased twin `(node, source)`: its source renamed.
    Twin(NodeIx, NodeIx),
    /// An existential quantifier over a fused conjunction (its operands in
    /// [`CompiledProp::exists_and`]; see [`fuse_and`]): one relational
    /// product.
    ExistsAnd(NodeIx),
    /// A conjunction with a fused atom (its operands in
    /// [`CompiledProp::and_atom`]; see [`fuse_atom`]): the other operand
    /// conjoined with the literals of each match.
    AndAtom(NodeIx),
    /// `@a`, `(node, a)`: the previous value of `a`, decided here rather
    /// than from the plan's operator at every event.
    Prev(NodeIx, NodeIx),
    /// `a S b`, `(node, a, b)` (with point evaluation on, either may be a
    /// fused negation: see [`CompiledProp::fused_operand`]).
    Since(NodeIx, NodeIx, NodeIx),
    /// A since with fused atoms (in [`CompiledProp::since_atoms`]; see
    /// [`fuse_since`]): their matches added to or removed from its
    /// previous value by walks.
    SinceAtoms(NodeIx),
}

impl CompiledProp {
    /// Compiles `plan` for monitoring on its own (tests).
    #[cfg(test)]
    pub fn new(plan: PropPlan) -> CompiledProp {
        CompiledProp::with_events(plan, &BTreeMap::new())
    }

    /// Compiles `plan` for monitoring beside the other properties of a
    /// plan whose events are `events` (by name, in order: their indices
    /// are those [`PropMonitor::bind_event_at`](super::PropMonitor::bind_event_at)
    /// takes). An event the property mentions and `events` does not (none
    /// in a plan's own events) gets an index past theirs.
    pub fn with_events(plan: PropPlan, events: &BTreeMap<String, usize>) -> CompiledProp {
        let n = plan.nodes.len();
        let mut keeps_pre = vec![false; n];
        let mut atoms_by_event: HashMap<Box<[u8]>, EventAtoms> = HashMap::new();
        let mut atom_nodes = Vec::new();
        let mut untimed = true;
        let delays = plan.delays();
        let future = delays.delayed.get(plan.root).copied().unwrap_or(false);
        let mut computes = false;
        for (i, node) in plan.nodes.iter().enumerate() {
            if delays.delayed[i] {
                // Kept by `future`, position by position.
                untimed = false;
                continue;
            }
            match &node.op {
                Op::Agg { once: Some(t), .. } if !t.is_trivial() => {
                    computes = true;
                    untimed = false;
                }
                Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => computes = true,
                Op::Prev(a) => keeps_pre[*a] = true,
                Op::Since(..) => keeps_pre[i] = true,
                Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => untimed = false,
                Op::Atom { event, .. } => {
                    let event: Box<[u8]> = event.as_bytes().into();
                    atoms_by_event.entry(event).or_default().all.push(i);
                    atom_nodes.push(i);
                }
                _ => {}
            }
        }
        let plain_atom = plan
            .nodes
            .iter()
            .map(|node| match &node.op {
                Op::Atom { args, .. } => args
                    .iter()
                    .enumerate()
                    .all(|(i, a)| matches!(a, Arg::Var(_)) && !args[..i].contains(a)),
                _ => false,
            })
            .collect();
        let mut point = point::analyse(&plan);
        let call_pairs = call_pairs(&plan);
        let bypass = restrict::analyse(&plan, &point.needs_set, &keeps_pre, &call_pairs);
        // An atom that only restrictions read (through the event's matches)
        // is not computed as a set.
        for &a in &atom_nodes {
            if bypass.skipped[a] {
                point.needs_set[a] = false;
            }
        }
        let kept_all: Vec<NodeIx> = (0..n)
            .filter(|&i| keeps_pre[i] || bypass.hidden[i])
            .collect();
        let mut fused = fuse::fused(&plan, &point);
        // A restriction reads its source's value: it is never fused away.
        for r in bypass.restricted.iter().flatten() {
            if let restrict::Source::Set(p) = r.source {
                fused[p] = false;
            }
        }
        let in_order: Vec<bool> = (0..n)
            .map(|i| point.needs_set[i] && !bypass.skipped[i])
            .collect();
        let mut twins = twins::analyse(&plan, &point, &bypass, &fused, &in_order);
        let absorbed = absorb::analyse(&plan, &point, &bypass, &twins, &in_order);
        let exists_and = fuse_and::analyse(&plan, &point, &keeps_pre, (&bypass, &twins, &absorbed));
        // A fused conjunction is not computed at an event (nor a set).
        for (q, fused_and) in exists_and.iter().enumerate() {
            if let (Some(_), Op::Quant(_, _, a)) = (fused_and, &plan.nodes[q].op) {
                point.needs_set[*a] = false;
            }
        }
        let rewritten = (&bypass, &twins, &absorbed);
        // An atom that a fused conjunction's quantifier reads is not fused.
        let and_atom = fuse_atom::analyse(&plan, &point, &keeps_pre, rewritten, &exists_and);
        let and_atom_once =
            fuse_atom::once_readers(&plan, &point, &keeps_pre, rewritten, &exists_and, &and_atom);
        let at_match = if future {
            vec![None; n]
        } else {
            twins::defer(&plan, &point, &and_atom, &in_order, &mut twins)
        };
        let mut atom_fused = vec![false; n];
        for &(_, a) in and_atom.iter().flatten() {
            atom_fused[a] = true;
        }
        let since_atoms = fuse_since::analyse(
            &plan,
            &point,
            &keeps_pre,
            (&bypass, &twins, &absorbed),
            &exists_and,
            (&fused, &atom_fused),
        );
        for f in since_atoms.iter().flatten() {
            for &a in f.neg.iter().chain(&f.pos) {
                atom_fused[a] = true;
            }
        }
        // A dropped atom still binds the values seen for its variables.
        let seen = |a: NodeIx| plan.nodes[a].free.iter().any(|&v| plan.vars[v].needs_seen);
        for atoms in atoms_by_event.values_mut() {
            let point = atoms.all.iter().copied();
            atoms.point = point.filter(|&a| !twins.dropped[a] || seen(a)).collect();
        }
        #[cfg_attr(not(test), allow(unused_variables))]
        let (atoms_by_event, event_index) = by_index(atoms_by_event, events);
        let point_order: Vec<NodeIx> = (0..n)
            .filter(|&i| in_order[i] && point.needs_set[i] && !twins.dropped[i])
            .collect();
        let fused_operand: Vec<Option<NodeIx>> =
            (0..n).map(|i| fuse::operand(&plan, &fused, i)).collect();
        let point_steps = point_order
            .iter()
            .map(|&i| match (fused_operand[i], &twins.of[i]) {
                _ if exists_and[i].is_some() => Step::ExistsAnd(i),
                _ if and_atom[i].is_some() => Step::AndAtom(i),
                _ if since_atoms[i].is_some() => Step::SinceAtoms(i),
                (Some(a), _) => Step::Fused(i, a),
                (None, Some((source, _))) if twins.aliased[i] => Step::Twin(i, *source),
                _ => Step::of(&plan, i),
            })
            .collect();
        CompiledProp {
            clock: Clock::new(plan.time_bits.clone()),
            kept_point: kept_all
                .iter()
                .copied()
                .filter(|&i| !bypass.skipped[i] && !twins.dropped[i])
                .collect(),
            kept_all,
            call_pairs,
            keeps_pre,
            atoms_by_event,
            #[cfg(test)]
            event_index,
            atom_nodes,
            plain_atom,
            cube_owner: cube_owners(&plan),
            untimed,
            computes,
            point_steps,
            exists_and,
            point_set: (0..n)
                .map(|i| point.needs_set[i] && !fused[i] && !twins.dropped[i] && !atom_fused[i])
                .collect(),
            and_atom,
            and_atom_once,
            since_atoms,
            at_match,
            atom_fused,
            absorbed,
            twins,
            all_steps: (0..n)
                .filter(|&i| !delays.delayed[i])
                .map(|i| Step::of(&plan, i))
                .collect(),
            event_guards: if future { None } else { Guards::of(&plan) },
            future,
            fused_operand,
            point,
            bypass,
            plan,
        }
    }

    /// The nodes of `steps`, in order.
    #[cfg(test)]
    pub(super) fn order(steps: &[Step]) -> Vec<NodeIx> {
        steps.iter().map(|s| s.node()).collect()
    }
}

impl Step {
    /// The step of node `i` computed as it is: `@` and `S` as steps of
    /// their own, any other node from its operator.
    fn of(plan: &PropPlan, i: NodeIx) -> Step {
        match plan.nodes[i].op {
            Op::Prev(a) => Step::Prev(i, a),
            Op::Since(a, b) => Step::Since(i, a, b),
            _ => Step::Node(i),
        }
    }

    /// The node of the step.
    #[cfg(test)]
    pub(super) fn node(self) -> NodeIx {
        match self {
            Step::Node(n)
            | Step::Fused(n, _)
            | Step::Twin(n, _)
            | Step::ExistsAnd(n)
            | Step::AndAtom(n)
            | Step::SinceAtoms(n)
            | Step::Prev(n, _)
            | Step::Since(n, ..) => n,
        }
    }
}

/// Per node: for a rule call, the bits its substitution of arguments for
/// parameters moves (arguments that share their parameter's bits move none).
fn call_pairs(plan: &PropPlan) -> Vec<Vec<(BddVar, BddVar)>> {
    plan.nodes
        .iter()
        .map(|node| {
            let mut pairs = Vec::new();
            if let Op::RuleCall { rule, args } = &node.op {
                for (arg, &p) in args.iter().zip(&plan.rules[*rule].params) {
                    if let Arg::Var(v) = arg
                        && *v != p
                    {
                        let (from, to) = (&plan.vars[p].bits, &plan.vars[*v].bits);
                        let moved = from.iter().zip(to).filter(|(f, t)| f != t);
                        pairs.extend(moved.map(|(&f, &t)| (f, t)));
                    }
                }
            }
            pairs
        })
        .collect()
}

/// Per variable: the first variable with the same bits.
fn cube_owners(plan: &PropPlan) -> Vec<VarIx> {
    (0..plan.vars.len())
        .map(|v| {
            let first = plan.vars[v].bits.first();
            (0..v)
                .find(|&w| plan.vars[w].bits.first() == first)
                .unwrap_or(v)
        })
        .collect()
}

/// A compiled property can be shared between threads.
const _: () = {
    fn assert_send_sync<T: Send + Sync>() {}
    let _ = assert_send_sync::<CompiledProp>;
};

/// The atoms of each event name laid out by the indices of `events` (the
/// names `events` lacks after theirs, in order), and those indices by name.
fn by_index(
    atoms: HashMap<Box<[u8]>, EventAtoms>,
    events: &BTreeMap<String, usize>,
) -> (Vec<EventAtoms>, NameMap<u32>) {
    let mut extra: Vec<&[u8]> = (atoms.keys())
        .filter(|name| std::str::from_utf8(name).map_or(true, |n| !events.contains_key(n)))
        .map(|name| &name[..])
        .collect();
    extra.sort_unstable();
    let index: NameMap<u32> = (events.keys().map(|e| e.as_bytes()))
        .chain(extra)
        .enumerate()
        .filter(|(_, name)| atoms.contains_key(*name))
        .map(|(i, name)| (name.into(), i as u32))
        .collect();
    let mut laid = Vec::new();
    for (name, atoms) in atoms {
        let Some(&i) = index.get(&name) else { continue };
        let i = i as usize;
        if laid.len() <= i {
            laid.resize_with(i + 1, EventAtoms::default);
        }
        laid[i] = atoms;
    }
    (laid, index)
}

#[cfg(test)]
mod tests {
    use super::{CompiledProp, Step};
    use crate::plan::{Op, compile_source};

    #[test]
    fn previous_values_and_sinces_are_steps_of_their_own() {
        let (plan, _) = compile_source(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))",
        )
        .expect("compiles");
        let c = CompiledProp::new(plan.props.into_iter().next().expect("one property"));
        let (mut prevs, mut sinces) = (0, 0);
        for step in &c.point_steps {
            match *step {
                Step::Prev(n, a) => {
                    assert_eq!(c.plan.nodes[n].op, Op::Prev(a));
                    prevs += 1;
                }
                Step::Since(n, a, b) => {
                    assert_eq!(c.plan.nodes[n].op, Op::Since(a, b));
                    sinces += 1;
                }
                Step::Node(n) => {
                    let op = &c.plan.nodes[n].op;
                    assert!(!matches!(op, Op::Prev(_) | Op::Since(..)), "{op:?}");
                }
                _ => {}
            }
        }
        // Two `@` of the three; the first interval and the `P` (the
        // second interval is its twin, and its `@` is read at the matches
        // of `acq(t2,l1)` only, renamed from the first's: see `twins`).
        assert_eq!((prevs, sinces), (2, 2));
    }

    #[test]
    fn atoms_are_laid_out_by_the_plans_event_indices() {
        let (plan, _) = compile_source(
            "prop a : Forall x . q(x) -> P p(x)
             prop b : Forall y . r(y) -> ! s(y)",
        )
        .expect("compiles");
        // The plan's events in order: p 0, q 1, r 2, s 3.
        let events = plan.events.clone();
        let mut props = plan.props.into_iter();
        let a = CompiledProp::with_events(props.next().expect("a"), &events);
        let b = CompiledProp::with_events(props.next().expect("b"), &events);
        let index = |c: &CompiledProp, n: &str| c.event_index.get(n.as_bytes()).copied();
        assert_eq!((index(&a, "p"), index(&a, "q"), index(&a, "r")), (Some(0), Some(1), None));
        assert_eq!((index(&b, "r"), index(&b, "s"), index(&b, "p")), (Some(2), Some(3), None));
        // Property b has no atoms at p's and q's indices, one at r's and s's.
        let count = |c: &CompiledProp, i: usize| c.atoms_by_event.get(i).map_or(0, |e| e.all.len());
        assert_eq!((0..5).map(|i| count(&b, i)).collect::<Vec<_>>(), [0, 0, 1, 1, 0]);
        // On its own, a property numbers its own events.
        let (plan, _) = compile_source("prop b : Forall y . r(y) -> ! s(y)").expect("compiles");
        let alone = CompiledProp::new(plan.props.into_iter().next().expect("b"));
        assert_eq!((index(&alone, "r"), index(&alone, "s")), (Some(0), Some(1)));
    }
}
