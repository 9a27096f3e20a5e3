//! The order of a plan's nodes: each node after what it reads at the same
//! event (the rules' bodies before their calls), the evaluation phase of
//! each, and nodes renumbered in that order.

use super::{Arg, NodeIx, Op, Phase, VarIx};
use crate::syntax::Span;
use crate::syntax::walk::{Fold, Kids, Step, Walker};

/// Dependencies within one event: children, and the body of a called rule.
fn deps(op: &Op, rule_roots: &[NodeIx]) -> Kids<NodeIx> {
    match op {
        Op::RuleCall { rule, .. } => Kids::one(rule_roots[*rule]),
        other => other.same_step_kids(),
    }
}

/// A topological order of all nodes (dependencies first), or `None` on a cycle.
pub(super) fn topological_order(ops: &[(Op, Span)], rule_roots: &[NodeIx]) -> Option<Vec<NodeIx>> {
    /// A depth-first search: a node is entered once, and is done (in the
    /// order) when all it depends on is; meeting a node on the search path
    /// again is a cycle.
    struct Topo<'a> {
        ops: &'a [(Op, Span)],
        rule_roots: &'a [NodeIx],
        /// 0 = unvisited, 1 = on the search path, 2 = done.
        state: Vec<u8>,
        order: Vec<NodeIx>,
        cycle: bool,
    }
    impl Fold for Topo<'_> {
        type Node = NodeIx;
        type Ctx = ();
        type Out = ();
        fn enter(&mut self, n: NodeIx, _: &()) -> Step<NodeIx, (), ()> {
            match self.state[n] {
                0 => {
                    self.state[n] = 1;
                    Step::Into(deps(&self.ops[n].0, self.rule_roots), ())
                }
                1 => {
                    self.cycle = true;
                    Step::Done(())
                }
                _ => Step::Done(()),
            }
        }
        fn leave(&mut self, n: NodeIx, _: &(), _: [(); 2]) {
            self.state[n] = 2;
            self.order.push(n);
        }
    }
    let mut topo = Topo {
        ops,
        rule_roots,
        state: vec![0; ops.len()],
        order: Vec::with_capacity(ops.len()),
        cycle: false,
    };
    let mut walker = Walker::new();
    // The nodes that compute values for a variable come first (inner ones
    // first), so that a comparison of the variable, which sees the values
    // computed at an event, comes after them, unless it is part of them.
    let computing =
        (0..ops.len()).filter(|&n| matches!(ops[n].0, Op::Agg { .. } | Op::Assign { .. }));
    for start in computing.chain(0..ops.len()) {
        if topo.state[start] == 0 {
            walker.fold(&mut topo, start, ());
            if topo.cycle {
                return None;
            }
        }
    }
    Some(topo.order)
}

/// Assigns each node its group of the mixed evaluation order.
pub(super) fn classify(ops: &[(Op, Span)], rule_roots: &[NodeIx]) -> Vec<Phase> {
    /// The nodes reached from the rule bodies, each with and without `@`
    /// above it (the context), once each.
    struct Reach<'a> {
        ops: &'a [(Op, Span)],
        phase: Vec<Phase>,
        seen: Vec<[bool; 2]>,
    }
    impl Fold for Reach<'_> {
        type Node = NodeIx;
        type Ctx = bool;
        type Out = ();
        fn enter(&mut self, n: NodeIx, &under_prev: &bool) -> Step<NodeIx, bool, ()> {
            if std::mem::replace(&mut self.seen[n][under_prev as usize], true) {
                return Step::Done(());
            }
            let p = if under_prev {
                Phase::RuleBodyUnderPrev
            } else {
                Phase::RuleBody
            };
            self.phase[n] = self.phase[n].min(p);
            match &self.ops[n].0 {
                Op::Prev(a) => Step::Into(Kids::one(*a), true),
                op => Step::Into(op.same_step_kids(), under_prev),
            }
        }
        fn leave(&mut self, _: NodeIx, _: &bool, _: [(); 2]) {}
    }
    let mut reach = Reach {
        ops,
        phase: vec![Phase::Statement; ops.len()],
        seen: vec![[false; 2]; ops.len()],
    };
    let mut walker = Walker::new();
    for &r in rule_roots {
        walker.fold(&mut reach, r, false);
    }
    let mut phase = reach.phase;
    for &r in rule_roots {
        if phase[r] != Phase::RuleBody {
            phase[r] = Phase::RuleRelation;
        }
    }
    phase
}

pub(super) fn remap(op: &Op, ix: &[NodeIx]) -> Op {
    match op.clone() {
        Op::Assign { body, target, term } => Op::Assign {
            body: ix[body],
            target,
            term,
        },
        Op::Filter { body, cond } => Op::Filter {
            body: ix[body],
            cond,
        },
        Op::Agg {
            op,
            result,
            of,
            group,
            once,
            body,
        } => Op::Agg {
            op,
            result,
            of,
            group,
            once,
            body: ix[body],
        },
        Op::Not(a) => Op::Not(ix[a]),
        Op::Prev(a) => Op::Prev(ix[a]),
        Op::And(a, b) => Op::And(ix[a], ix[b]),
        Op::Or(a, b) => Op::Or(ix[a], ix[b]),
        Op::Implies(a, b) => Op::Implies(ix[a], ix[b]),
        Op::Iff(a, b) => Op::Iff(ix[a], ix[b]),
        Op::Since(a, b) => Op::Since(ix[a], ix[b]),
        Op::SinceTimed(t, a, b) => Op::SinceTimed(t, ix[a], ix[b]),
        Op::Zince(d, a, b) => Op::Zince(d, ix[a], ix[b]),
        Op::Quant(q, v, a) => Op::Quant(q, v, ix[a]),
        Op::Next(t, a) => Op::Next(t, ix[a]),
        Op::Until(t, a, b) => Op::Until(t, ix[a], ix[b]),
        // No operand: nothing to renumber.
        leaf @ (Op::True
        | Op::False
        | Op::Atom { .. }
        | Op::Cmp { .. }
        | Op::Gap(_)
        | Op::RuleCall { .. }) => leaf,
    }
}

pub(super) fn free_vars(op: &Op, free: &[Vec<VarIx>]) -> Vec<VarIx> {
    let mut out: Vec<VarIx> = match op {
        Op::True | Op::False => Vec::new(),
        Op::Atom { args, .. } | Op::RuleCall { args, .. } => args
            .iter()
            .filter_map(|a| if let Arg::Var(v) = a { Some(*v) } else { None })
            .collect(),
        Op::Cmp { left, right, .. } => {
            let mut v = vec![*left];
            if let Arg::Var(r) = right {
                v.push(*r);
            }
            v
        }
        Op::Quant(_, v, a) => free[*a].iter().copied().filter(|x| x != v).collect(),
        Op::Assign { body, target, .. } => {
            let mut v = free[*body].clone();
            v.push(*target);
            v
        }
        Op::Filter { body, .. } => free[*body].clone(),
        Op::Agg { result, group, .. } => std::iter::once(*result)
            .chain(group.iter().copied())
            .collect(),
        Op::Prev(a) => free[*a].clone(),
        other => other
            .same_step_children()
            .iter()
            .flat_map(|&c| free[c].iter().copied())
            .collect(),
    };
    out.sort_unstable();
    out.dedup();
    out
}
