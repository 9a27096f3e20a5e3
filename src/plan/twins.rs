//! Twins: subformulas that are the same formula up to a renaming of their
//! variables (α-equivalent), such as `[acq(t1,l1),rel(t1,l1))` and
//! `[acq(t2,l2),rel(t2,l2))`.
//!
//! When the variables that the renaming `σ` pairs share their enumeration
//! classes, the codes of a value agree for both, and the twin's summary at
//! every event is the source's with the bits of each variable `x` renamed to
//! the bits of `σ(x)`: the runtime computes it so (one renaming) instead of
//! evaluating the twin's subformulas. The plan joins the classes of the
//! variables of twins that carry a summary (those with an `S` below them),
//! see [`merged_pairs`]; the runtime uses every twin whose pairs share
//! classes.
//!
//! Only the untimed operators take part: atoms, constants, connectives,
//! `@`, `S` and `Exists`/`Forall`; a subformula with a rule call, a
//! comparison, a timed operator or a quantifier over seen values is no
//! twin (their states depend on more than the variables' codes).

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use super::{Arg, Node, NodeIx, Op, VarIx};
use crate::syntax::Quant;

/// A node that is another's renaming.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twin {
    /// The node.
    pub node: NodeIx,
    /// The node it is a renaming of (the first of its kind, a smaller index).
    pub source: NodeIx,
    /// The renaming `σ`: `(x, σ(x))` for every variable of the source
    /// (free or bound) that it moves, sorted by `x`.
    pub pairs: Vec<(VarIx, VarIx)>,
}

/// Sources tried per shape (so that the search stays linear in the nodes).
const MAX_SOURCES: usize = 8;

/// Every twin among `nodes`, by increasing node.
pub fn find(nodes: &[Node]) -> Vec<Twin> {
    let shapes = shapes(nodes);
    let mut sources: HashMap<u64, Vec<NodeIx>> = HashMap::new();
    let mut out = Vec::new();
    for (n, shape) in shapes.iter().enumerate() {
        let Some(shape) = *shape else { continue };
        let candidates = sources.entry(shape).or_default();
        let found = candidates
            .iter()
            .find_map(|&m| renaming(nodes, m, n).map(|pairs| (m, pairs)));
        match found {
            Some((source, pairs)) => out.push(Twin {
                node: n,
                source,
                pairs,
            }),
            None if candidates.len() < MAX_SOURCES => candidates.push(n),
            None => {}
        }
    }
    out
}

/// The pairs of variables whose classes the plan joins: those of the twins
/// with an untimed `S` in their subformula that rename quantified variables
/// only (`quantified[x]`; a rule's parameters keep the classes of its calls).
pub fn merged_pairs(nodes: &[Node], quantified: &[bool]) -> Vec<(VarIx, VarIx)> {
    let with_since = with_since(nodes);
    find(nodes)
        .into_iter()
        .filter(|t| with_since[t.node])
        .filter(|t| t.pairs.iter().all(|&(x, y)| quantified[x] && quantified[y]))
        .flat_map(|t| t.pairs)
        .collect()
}

/// Per node, `value` of it given the values of its `kids` (computed
/// first, without recursion: formulas may be deeply nested).
fn post_order<T: Copy>(
    nodes: &[Node],
    kids: impl Fn(&Op) -> Vec<NodeIx>,
    mut value: impl FnMut(NodeIx, &[NodeIx], &[Option<T>]) -> T,
) -> Vec<T> {
    let mut memo: Vec<Option<T>> = vec![None; nodes.len()];
    for root in 0..nodes.len() {
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if memo[n].is_some() {
                stack.pop();
                continue;
            }
            let kids = kids(&nodes[n].op);
            let pending: Vec<NodeIx> = kids
                .iter()
                .copied()
                .filter(|&k| memo[k].is_none())
                .collect();
            if pending.is_empty() {
                memo[n] = Some(value(n, &kids, &memo));
                stack.pop();
            } else {
                stack.extend(pending);
            }
        }
    }
    memo.into_iter().flatten().collect()
}

/// Per node: whether its subformula has an `S` (within an event or under `@`).
fn with_since(nodes: &[Node]) -> Vec<bool> {
    post_order(nodes, kids, |n, kids, memo| {
        matches!(nodes[n].op, Op::Since(..)) || kids.iter().any(|&k| memo[k] == Some(true))
    })
}

/// The nodes `op` reads (its operands, and the operand of `@`).
fn kids(op: &Op) -> Vec<NodeIx> {
    match *op {
        Op::Prev(a) => vec![a],
        ref op => op.same_step_children(),
    }
}

/// Per node: a hash of its formula with the variables left out, or `None`
/// if it cannot be a twin. Twins have equal shapes.
fn shapes(nodes: &[Node]) -> Vec<Option<u64>> {
    let kids_if_eligible = |op: &Op| if eligible(op) { kids(op) } else { Vec::new() };
    post_order(
        nodes,
        kids_if_eligible,
        |n, kids, memo: &[Option<Option<u64>>]| {
            let op = &nodes[n].op;
            if !eligible(op) {
                return None;
            }
            let mut h = DefaultHasher::new();
            std::mem::discriminant(op).hash(&mut h);
            match op {
                Op::Atom { event, args } => {
                    event.hash(&mut h);
                    for a in args {
                        match a {
                            Arg::Const(c) => (0u8, c).hash(&mut h),
                            Arg::Var(_) => 1u8.hash(&mut h),
                        }
                    }
                }
                Op::Quant(q, ..) => std::mem::discriminant(q).hash(&mut h),
                _ => {}
            }
            let mut all = true;
            for &k in kids {
                match memo[k].flatten() {
                    Some(s) => s.hash(&mut h),
                    None => all = false,
                }
            }
            all.then(|| h.finish())
        },
    )
}

/// Whether a node of this operator may be (part of) a twin.
fn eligible(op: &Op) -> bool {
    match op {
        Op::True | Op::False | Op::Atom { .. } | Op::Not(_) | Op::Prev(_) | Op::Since(..) => true,
        Op::And(..) | Op::Or(..) | Op::Implies(..) | Op::Iff(..) => true,
        Op::Quant(q, ..) => matches!(q, Quant::Exists | Quant::Forall),
        Op::Cmp { .. }
        | Op::SinceTimed(..)
        | Op::Zince(..)
        | Op::Gap(_)
        | Op::RuleCall { .. }
        | Op::Next(..)
        | Op::Until(..) => false,
        Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => false,
    }
}

/// The renaming `σ` with `σ(m) = n`, if there is one and it moves some
/// variable: a simultaneous walk of both formulas, pairing their variables
/// one to one.
fn renaming(nodes: &[Node], m: NodeIx, n: NodeIx) -> Option<Vec<(VarIx, VarIx)>> {
    if m == n {
        return None;
    }
    let mut to: HashMap<VarIx, VarIx> = HashMap::new();
    let mut from: HashMap<VarIx, VarIx> = HashMap::new();
    let mut pair = |x: VarIx, y: VarIx| -> bool {
        match (to.get(&x), from.get(&y)) {
            (Some(&a), Some(&b)) => a == y && b == x,
            (None, None) => {
                to.insert(x, y);
                from.insert(y, x);
                true
            }
            _ => false,
        }
    };
    let mut seen: HashSet<(NodeIx, NodeIx)> = HashSet::new();
    let mut stack = vec![(m, n)];
    while let Some((a, b)) = stack.pop() {
        if !seen.insert((a, b)) {
            continue;
        }
        let (x, y) = (&nodes[a].op, &nodes[b].op);
        let same = match (x, y) {
            (Op::True, Op::True) | (Op::False, Op::False) => true,
            (Op::Atom { event: e, args: p }, Op::Atom { event: f, args: q }) => {
                e == f
                    && p.len() == q.len()
                    && p.iter().zip(q).all(|(u, v)| match (u, v) {
                        (Arg::Const(c), Arg::Const(d)) => c == d,
                        (Arg::Var(u), Arg::Var(v)) => pair(*u, *v),
                        _ => false,
                    })
            }
            (Op::Not(a1), Op::Not(b1)) | (Op::Prev(a1), Op::Prev(b1)) => {
                stack.push((*a1, *b1));
                true
            }
            (Op::And(a1, a2), Op::And(b1, b2))
            | (Op::Or(a1, a2), Op::Or(b1, b2))
            | (Op::Implies(a1, a2), Op::Implies(b1, b2))
            | (Op::Iff(a1, a2), Op::Iff(b1, b2))
            | (Op::Since(a1, a2), Op::Since(b1, b2)) => {
                stack.push((*a1, *b1));
                stack.push((*a2, *b2));
                true
            }
            (Op::Quant(q, v, a1), Op::Quant(r, w, b1)) => {
                stack.push((*a1, *b1));
                q == r && eligible(x) && pair(*v, *w)
            }
            _ => false,
        };
        if !same {
            return None;
        }
    }
    let mut pairs: Vec<(VarIx, VarIx)> = to.into_iter().filter(|(x, y)| x != y).collect();
    pairs.sort_unstable();
    (!pairs.is_empty()).then_some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PropPlan, compile_source};

    fn prop(text: &str) -> PropPlan {
        let (plan, _) = compile_source(text).expect("compiles");
        plan.props.into_iter().next().expect("one property")
    }

    fn var(p: &PropPlan, label: &str) -> VarIx {
        p.vars
            .iter()
            .position(|v| v.label == label)
            .expect("variable")
    }

    const CYCLES: &str = "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
        (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))";

    #[test]
    fn the_two_intervals_of_the_cycles_property_are_twins() {
        let p = prop(CYCLES);
        let twins = find(&p.nodes);
        let since = |t: &str| {
            p.nodes
                .iter()
                .position(|n| {
                    matches!(n.op, Op::Since(..))
                        && n.free == vec![var(&p, t), var(&p, &t.replace('t', "l"))]
                })
                .expect("interval")
        };
        let (s1, s2) = (since("t1"), since("t2"));
        let twin = twins.iter().find(|t| t.node == s2).expect("a twin");
        assert_eq!(twin.source, s1);
        let mut expected = vec![
            (var(&p, "t1"), var(&p, "t2")),
            (var(&p, "l1"), var(&p, "l2")),
        ];
        expected.sort_unstable();
        assert_eq!(twin.pairs, expected);
        // acq(t2,l1) is acq(t1,l1) with t1 renamed, l1 kept.
        let acq = |a: &str, b: &str| {
            p.nodes
                .iter()
                .position(|n| {
                    matches!(&n.op, Op::Atom { event, args } if event == "acq"
                    && args == &vec![Arg::Var(var(&p, a)), Arg::Var(var(&p, b))])
                })
                .expect("atom")
        };
        let t = twins
            .iter()
            .find(|t| t.node == acq("t2", "l1"))
            .expect("twin");
        assert_eq!(t.source, acq("t1", "l1"));
        assert_eq!(t.pairs, vec![(var(&p, "t1"), var(&p, "t2"))]);
    }

    #[test]
    fn the_plan_joins_the_classes_of_summary_twins_only() {
        let p = prop(CYCLES);
        let class = |l: &str| p.vars[var(&p, l)].class;
        assert_eq!(class("t1"), class("t2"));
        assert_eq!(class("l1"), class("l2"));
        assert_ne!(class("t1"), class("l1"));
        assert_eq!(p.classes, 2);
        // Twin atoms alone join nothing.
        let q = prop("prop q : Forall x . Forall y . (p(x) & p(y)) -> q(x, y)");
        assert_eq!(q.classes, 2);
        let quantified = vec![true; q.vars.len()];
        assert!(merged_pairs(&q.nodes, &quantified).is_empty());
    }

    #[test]
    fn a_repeated_variable_must_be_repeated_in_the_twin() {
        let p = prop("prop r : Forall x . Forall y . (@ P e(x, x)) -> @ P e(x, y)");
        assert!(
            find(&p.nodes)
                .iter()
                .all(|t| !matches!(p.nodes[t.node].op, Op::Prev(_)))
        );
        assert!(merged_pairs(&p.nodes, &vec![true; p.vars.len()]).is_empty());
    }

    #[test]
    fn constants_and_events_must_agree() {
        let p = prop(
            "prop k : Forall x . Forall y . (P e(x, \"a\")) -> (P e(y, \"b\")) | P f(y, \"a\")",
        );
        assert!(find(&p.nodes).is_empty());
    }

    #[test]
    fn a_swap_is_a_renaming() {
        let p = prop("prop s : Forall x . Forall y . (@ P e(x, y)) -> @ P e(y, x)");
        let twins = find(&p.nodes);
        let (x, y) = (var(&p, "x"), var(&p, "y"));
        let since = twins
            .iter()
            .find(|t| matches!(p.nodes[t.node].op, Op::Since(..)))
            .expect("twin");
        assert_eq!(since.pairs, vec![(x, y), (y, x)]);
    }
}
