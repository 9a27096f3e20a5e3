//! The sets of a [`Point::Expr`](super::Point::Expr), and quantifiers over
//! a conjunction of sets answered without building it.
//!
//! `∀vars . body` is false exactly where `¬body` is satisfiable, and
//! `∃vars . body` true where `body` is. When `¬body` (resp. `body`) is, by
//! its connectives, a conjunction of a few sets and their negations (as
//! `¬((φ ∧ ψ) → χ) = φ ∧ ψ ∧ ¬χ`), the BDD layer decides whether that
//! conjunction is empty under the bound codes in one walk over the sets
//! together ([`BddSpace::conj_empty_under`]), which builds no node and
//! stops at the first satisfying path, instead of building the
//! connectives' results and quantifying them.
//!
//! Such a quantifier over a *closed* body (every free variable quantified)
//! outside any guard is evaluated at every event, though its parts change
//! at few: its verdict is kept with the parts' values it was computed
//! from (and the collections of the space so far), and reused while they
//! are the same. A walk that meets too many tuples of nodes gives up, and
//! the body's connectives are built from then on.

use super::{Env, SetExpr};
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, Op, PropPlan, VarIx};
use crate::runtime::prop::PropMonitor;

/// The most parts a conjunction is decided with in one walk.
const MAX_PARTS: usize = 4;

/// The most tuples of nodes a walk meets: past it, the body's connectives
/// are built from then on (their results stay in the operation cache from
/// one event to the next, where a walk's marks last one call, so that on
/// large sets a walk at every change would cost more than building). The
/// walks of locks-datarace meet fewer; with 4,096, MonPoly's logins
/// (`CNT` and `c > 3`, empty at almost every time-point) walked up to that
/// many at every time-point and took 6,061 M instructions instead of 2,499 M.
const WALK_BUDGET: usize = 1 << 6;

/// A verdict kept for a closed quantifier: the space's collections and
/// the parts' values it was computed from.
#[derive(Clone, Debug)]
pub(super) struct Kept {
    forall: bool,
    collections: u64,
    parts: Vec<Bdd>,
    value: bool,
}

/// Whether `n`, whose free variables are all in `vars`, is, taken negated
/// when `negated`, by its connectives a conjunction of two to
/// [`MAX_PARTS`] parts that all mention some of `vars` (so that `set_expr`
/// makes each a set): the analysis's test for evaluating an unguarded
/// quantifier as a [`Point::Expr`].
pub(super) fn closed_conjunction(plan: &PropPlan, n: NodeIx, negated: bool, vars: &[VarIx]) -> bool {
    if !plan.nodes[n].free.iter().all(|v| vars.contains(v)) {
        return false;
    }
    let mut count = 0;
    let mut stack = vec![(n, negated)];
    while let Some((n, negated)) = stack.pop() {
        let mentions = vars.iter().any(|v| plan.nodes[n].free.contains(v));
        if !mentions {
            return false;
        }
        match (&plan.nodes[n].op, negated) {
            (Op::Not(a), _) => stack.push((*a, !negated)),
            (Op::And(a, b), false) | (Op::Or(a, b), true) => {
                stack.extend([(*a, negated), (*b, negated)]);
            }
            (Op::Implies(a, b), true) => stack.extend([(*a, false), (*b, true)]),
            _ => count += 1,
        }
        if count > MAX_PARTS {
            return false;
        }
    }
    count >= 2
}

/// The parts of `e` (negated when `negated`) as a conjunction, appended to
/// `out`; `false` if it is none of at most [`MAX_PARTS`] parts.
fn conjunction<'a>(e: &'a SetExpr, negated: bool, out: &mut Vec<(&'a SetExpr, bool)>) -> bool {
    match (e, negated) {
        (SetExpr::Not(a), _) => conjunction(a, !negated, out),
        (SetExpr::And(a, b), false) | (SetExpr::Or(a, b), true) => {
            conjunction(a, negated, out) && conjunction(b, negated, out)
        }
        (SetExpr::Implies(a, b), true) => conjunction(a, false, out) && conjunction(b, true, out),
        (SetExpr::Set(_) | SetExpr::Point(_), _) => {
            out.push((e, negated));
            out.len() <= MAX_PARTS
        }
        _ => false,
    }
}

impl PropMonitor {
    /// The set of a [`SetExpr`] at the bound codes of the variables outside it.
    pub(super) fn set_expr(&self, space: &mut Space, e: &SetExpr, env: &mut Env) -> Bdd {
        match e {
            SetExpr::Set(n) => self.state.now[*n],
            SetExpr::Point(p) => {
                let value = self.point(space, p, env);
                space.constant(value)
            }
            SetExpr::Not(a) => {
                let a = self.set_expr(space, a, env);
                space.not(a)
            }
            SetExpr::Quant {
                forall,
                slot,
                inner,
            } => {
                let inner = self.set_expr(space, inner, env);
                self.scoped_quant(space, (*forall, *slot), inner, env)
            }
            SetExpr::And(a, b)
            | SetExpr::Or(a, b)
            | SetExpr::Implies(a, b)
            | SetExpr::Iff(a, b) => {
                let x = self.set_expr(space, a, env);
                // Decided by its first operand: the second is not built.
                match (e, x.as_bool()) {
                    (SetExpr::And(..), Some(false)) | (SetExpr::Or(..), Some(true)) => return x,
                    (SetExpr::Implies(..), Some(false)) => return space.tt(),
                    _ => {}
                }
                let y = self.set_expr(space, b, env);
                match e {
                    SetExpr::And(..) => space.and(x, y),
                    SetExpr::Or(..) => space.or(x, y),
                    SetExpr::Implies(..) => space.imp(x, y),
                    _ => space.iff(x, y),
                }
            }
        }
    }

    /// `∀vars . bdd` (`forall`) or `∃vars . bdd` where `free` are the free
    /// variables of `bdd`, all but `vars` bound.
    pub(super) fn quantified(
        &self,
        space: &mut Space,
        (forall, vars): (bool, &[VarIx]),
        free: &[VarIx],
        bdd: Bdd,
        env: &mut Env,
    ) -> bool {
        if let Some(b) = bdd.as_bool() {
            return b;
        }
        env.fixed.resize(self.compiled.plan.bdd_vars, None);
        for &v in free.iter().filter(|v| !vars.contains(v)) {
            self.write_bits(v, env);
            for b in self.low_bits(v) {
                env.fixed[b.0 as usize] = Some(env.bits[b.0 as usize]);
            }
        }
        // ∀: the restriction is true everywhere; ∃: it is not false everywhere.
        let value = space.constant_under(bdd, &env.fixed, forall) == forall;
        for &v in free {
            for b in self.low_bits(v) {
                env.fixed[b.0 as usize] = None;
            }
        }
        value
    }

    /// `∀vars . expr` (`forall`) or `∃vars . expr` of a closed
    /// [`Point::Expr`] over `body` (its `vars` are all the body's free
    /// variables), when `expr` (negated for `∀`) is a conjunction of at
    /// most [`MAX_PARTS`] parts; `None` otherwise.
    ///
    /// Only closed bodies: under a guard's binding, the walk, whose marks
    /// last one call, lost to building the connectives, whose results the
    /// space's cache keeps from one event to the next (locks-cycles: a
    /// third more instructions).
    pub(super) fn conj_quantified(
        &self,
        space: &mut Space,
        (forall, body): (bool, NodeIx),
        expr: &SetExpr,
        env: &mut Env,
    ) -> Option<bool> {
        let mut exprs = Vec::new();
        if env.too_large.get(body).copied().unwrap_or(false)
            || !conjunction(expr, forall, &mut exprs)
        {
            return None;
        }
        let mut parts: Vec<(Bdd, bool)> = Vec::with_capacity(exprs.len());
        for (e, negated) in exprs {
            match e {
                SetExpr::Set(n) => parts.push((self.state.now[*n], negated)),
                SetExpr::Point(p) => {
                    // A constant at the binding: false empties the conjunction.
                    if self.point(space, p, env) == negated {
                        return Some(forall);
                    }
                }
                _ => unreachable!("`conjunction` gives sets and points"),
            }
        }
        let collections = space.table_stats().1;
        if let Some(Some(k)) = env.kept.get(body)
            && k.forall == forall
            && k.collections == collections
            && k.parts.len() == parts.len()
            && k.parts.iter().zip(&parts).all(|(a, b)| *a == b.0)
        {
            return Some(k.value);
        }
        let Some(empty) = space.conj_empty_within(&parts, WALK_BUDGET) else {
            if env.too_large.len() <= body {
                env.too_large.resize(body + 1, false);
            }
            env.too_large[body] = true;
            return None;
        };
        // ∀: ¬body is empty; ∃: body is not.
        let value = empty == forall;
        if env.kept.len() <= body {
            env.kept.resize(body + 1, None);
        }
        env.kept[body] = Some(Kept {
            collections,
            parts: parts.iter().map(|p| p.0).collect(),
            forall,
            value,
        });
        Some(value)
    }
}
