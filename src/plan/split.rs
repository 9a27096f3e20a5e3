//! Statement splitting: a property whose statement is, under its outer
//! `Forall`s, a conjunction (also written as an implication with a
//! conjunctive consequent, a negated disjunction, ...) is violated at an
//! event exactly when one of its *parts* is, each part being one conjunct
//! under the same quantifiers. A parallel run monitors the parts apart, each
//! sliced on its own variable: `Forall u . Forall f . access(u,f) ->
//! [login(u),logout(u)) & [open(f),close(f))` cannot be sliced without
//! sending every `open` and `close` to every slice, but its two parts slice
//! on `u` and on `f` with nothing broadcast.
//!
//! The rewriting uses only equivalences that hold at every event:
//! `Forall x . (φ & ψ)` is `(Forall x . φ) & (Forall x . ψ)` (and `Forall x`
//! of a formula without `x` is that formula), `g -> (φ & ψ)` is `(g -> φ) &
//! (g -> ψ)`, `a | (φ & ψ)` is `(a | φ) & (a | ψ)`, `!(φ | ψ)` is `!φ & !ψ`,
//! `!(φ -> ψ)` is `φ & !ψ`, `!!φ` is `φ` and `!Exists x . φ` is `Forall x .
//! !φ`. Nothing under a temporal operator, a rule or an `<->` is touched, so
//! every part's subformulas (and rules) keep their values.
//!
//! Refused: properties with comparisons or `exists`/`forall` over seen
//! values, whose verdicts depend on the values seen by atoms that another
//! part would no longer have.

use super::order::remap;
use super::{Node, NodeIx, Op, Phase, PropPlan, VarIx};
use crate::syntax::Quant;

/// At most this many parts: each is a monitor that steps every event.
pub const MAX_PARTS: usize = 8;
/// How far [`PropPlan::parts`] looks through unary operators for a conjunction.
const LOOK_DEPTH: usize = 64;

/// A context a part is wrapped in, innermost last.
#[derive(Clone, Copy, Debug)]
enum Wrap {
    /// `g -> []`
    Implies(NodeIx),
    /// `a | []`
    OrLeft(NodeIx),
    /// `[] | b`
    OrRight(NodeIx),
    /// `Forall v . []`
    Forall(VarIx),
}

/// A piece of the statement still to split: `node` (negated when `neg`)
/// inside the wrappers.
#[derive(Clone, Debug)]
struct Piece {
    node: NodeIx,
    neg: bool,
    wraps: Vec<Wrap>,
}

impl Piece {
    /// The piece `node` inside `wrap` inside this piece's wrappers.
    fn inside(mut self, wrap: Wrap, node: NodeIx) -> Piece {
        self.wraps.push(wrap);
        self.node = node;
        self
    }
}

impl PropPlan {
    /// The parts of this property (see [`split`](self)), each a property of
    /// its own with the same name, only the nodes and rules it needs, and the
    /// same variables; or why it has a single part.
    pub fn parts(&self) -> Result<Vec<PropPlan>, String> {
        if self.nodes.iter().any(|n| matches!(n.op, Op::Cmp { .. })) {
            return Err("its comparisons depend on the values seen by every atom".into());
        }
        if (self.nodes.iter())
            .any(|n| matches!(n.op, Op::Agg { .. } | Op::Assign { .. } | Op::Filter { .. }))
        {
            return Err(
                "its aggregations and arithmetic compute values its parts would share".into(),
            );
        }
        if let Some(v) = self.vars.iter().find(|v| v.needs_seen) {
            return Err(format!(
                "`exists`/`forall` over {} depends on the values seen by every atom",
                v.name
            ));
        }
        let pieces = self.pieces();
        if pieces.len() < 2 {
            return Err("its statement is not a conjunction under `Forall`s".into());
        }
        Ok(pieces.into_iter().map(|p| self.part(p)).collect())
    }

    /// The statement cut into at most [`MAX_PARTS`] pieces, in order.
    fn pieces(&self) -> Vec<Piece> {
        // Depth first, left before right: the parts keep the statement's order.
        let mut todo = vec![Piece {
            node: self.root,
            neg: false,
            wraps: Vec::new(),
        }];
        let mut done = Vec::new();
        while let Some(mut p) = todo.pop() {
            let room = todo.len() + done.len() + 1 < MAX_PARTS;
            match (self.nodes[p.node].op.clone(), p.neg) {
                (Op::Not(a), neg) => {
                    p.node = a;
                    p.neg = !neg;
                    todo.push(p);
                }
                (Op::Quant(Quant::Forall, v, a), false)
                | (Op::Quant(Quant::Exists, v, a), true)
                    if self.splits(a, p.neg) =>
                {
                    todo.push(p.inside(Wrap::Forall(v), a));
                }
                (Op::Implies(g, c), false) if self.splits(c, false) => {
                    todo.push(p.inside(Wrap::Implies(g), c));
                }
                (Op::Or(a, b), false) if self.splits(b, false) => {
                    todo.push(p.inside(Wrap::OrLeft(a), b));
                }
                (Op::Or(a, b), false) if self.splits(a, false) => {
                    todo.push(p.inside(Wrap::OrRight(b), a));
                }
                (Op::And(a, b), false) | (Op::Or(a, b), true) if room => {
                    let neg = p.neg;
                    let other = Piece {
                        node: b,
                        neg,
                        wraps: p.wraps.clone(),
                    };
                    p.node = a;
                    todo.push(other);
                    todo.push(p);
                }
                (Op::Implies(a, b), true) if room => {
                    let other = Piece {
                        node: b,
                        neg: true,
                        wraps: p.wraps.clone(),
                    };
                    p.node = a;
                    p.neg = false;
                    todo.push(other);
                    todo.push(p);
                }
                _ => done.push(p),
            }
        }
        done
    }

    /// Whether `n` (negated when `neg`) is a conjunction, looking through
    /// the forms that distribute over one.
    fn splits(&self, mut n: NodeIx, mut neg: bool) -> bool {
        for _ in 0..LOOK_DEPTH {
            match (&self.nodes[n].op, neg) {
                (Op::And(..), false) | (Op::Or(..), true) | (Op::Implies(..), true) => return true,
                (Op::Not(a), _) => {
                    n = *a;
                    neg = !neg;
                }
                (Op::Quant(Quant::Forall, _, a), false)
                | (Op::Quant(Quant::Exists, _, a), true)
                | (Op::Implies(_, a), false) => n = *a,
                (Op::Or(a, b), false) => {
                    return self.splits_shallow(*a) || self.splits_shallow(*b);
                }
                _ => return false,
            }
        }
        false
    }

    /// One level of [`splits`](Self::splits) for the sides of a disjunction.
    fn splits_shallow(&self, n: NodeIx) -> bool {
        matches!(self.nodes[n].op, Op::And(..))
    }

    /// The property of one piece: its nodes appended to a copy of the plan,
    /// then everything it does not reach dropped.
    fn part(&self, piece: Piece) -> PropPlan {
        let mut nodes = self.nodes.clone();
        let span = self.nodes[self.root].span;
        let add = |nodes: &mut Vec<Node>, op: Op| -> NodeIx {
            let free = node_free(nodes, &op);
            nodes.push(Node {
                op,
                free,
                phase: Phase::Statement,
                span,
            });
            nodes.len() - 1
        };
        let mut top = if piece.neg {
            add(&mut nodes, Op::Not(piece.node))
        } else {
            piece.node
        };
        for w in piece.wraps.iter().rev() {
            top = match *w {
                Wrap::Implies(g) => add(&mut nodes, Op::Implies(g, top)),
                Wrap::OrLeft(a) => add(&mut nodes, Op::Or(a, top)),
                Wrap::OrRight(b) => add(&mut nodes, Op::Or(top, b)),
                Wrap::Forall(v) if nodes[top].free.contains(&v) => {
                    add(&mut nodes, Op::Quant(Quant::Forall, v, top))
                }
                Wrap::Forall(_) => top,
            };
        }
        self.pruned(nodes, top)
    }

    /// This property with nodes `nodes` (this plan's, then new ones that
    /// only read earlier nodes) and statement `root`, keeping only the nodes
    /// and rules the statement reaches, in their order.
    fn pruned(&self, nodes: Vec<Node>, root: NodeIx) -> PropPlan {
        let mut keep = vec![false; nodes.len()];
        let mut rule_kept = vec![false; self.rules.len()];
        let mut stack = vec![root];
        keep[root] = true;
        while let Some(n) = stack.pop() {
            let mut visit = |m: NodeIx, keep: &mut Vec<bool>| {
                if !keep[m] {
                    keep[m] = true;
                    stack.push(m);
                }
            };
            match &nodes[n].op {
                Op::Prev(a) => visit(*a, &mut keep),
                Op::RuleCall { rule, .. } => {
                    rule_kept[*rule] = true;
                    visit(self.rules[*rule].body, &mut keep);
                }
                op => {
                    for k in op.same_step_kids().iter() {
                        visit(k, &mut keep);
                    }
                }
            }
        }
        let mut new_ix = vec![usize::MAX; nodes.len()];
        let mut next = 0;
        for (n, &k) in keep.iter().enumerate() {
            if k {
                new_ix[n] = next;
                next += 1;
            }
        }
        let mut rule_ix = vec![usize::MAX; self.rules.len()];
        let mut rules = Vec::new();
        for (r, rule) in self.rules.iter().enumerate() {
            if rule_kept[r] {
                rule_ix[r] = rules.len();
                let mut rule = rule.clone();
                rule.body = new_ix[rule.body];
                rules.push(rule);
            }
        }
        let nodes = nodes
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(mut node, _)| {
                node.op = match remap(&node.op, &new_ix) {
                    Op::RuleCall { rule, args } => Op::RuleCall {
                        rule: rule_ix[rule],
                        args,
                    },
                    op => op,
                };
                node
            })
            .collect();
        PropPlan {
            nodes,
            root: new_ix[root],
            rules,
            ..self.clone_header()
        }
    }

    /// This plan's fields other than its nodes, root and rules.
    fn clone_header(&self) -> PropPlan {
        PropPlan {
            name: self.name.clone(),
            nodes: Vec::new(),
            root: 0,
            rules: Vec::new(),
            vars: self.vars.clone(),
            classes: self.classes,
            bits_per_var: self.bits_per_var,
            time_bits: self.time_bits.clone(),
            bdd_vars: self.bdd_vars,
            source: self.source,
        }
    }
}

/// The free variables of a new connective or quantifier over `nodes`.
fn node_free(nodes: &[Node], op: &Op) -> Vec<VarIx> {
    let mut out: Vec<VarIx> = op
        .same_step_kids()
        .iter()
        .flat_map(|k| nodes[k].free.iter().copied())
        .collect();
    if let Op::Quant(_, v, _) = op {
        out.retain(|x| x != v);
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
