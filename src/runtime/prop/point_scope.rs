//! Quantifiers of a [`Point::Expr`](super::Point::Expr) moved down to the
//! parts of its body that mention their variables (miniscoping).
//!
//! Under a guard, `∀vars . body` is decided at the guard's binding by
//! building the body's connectives over its parts' sets (the bound
//! variables left free) and looking at the result under the bound codes.
//! A quantified variable that only one part mentions, such as `t2` in
//! locks-cycles' `∀t2 l1 . (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) →
//! ¬ @ P (…(t2,l1,l2))`, makes that part large (a path per thread) and the
//! connective over it costly at every match, though the part itself
//! changes at few events. With the quantifier moved onto the part
//! (`… → ¬∃t2 . @ P (…)`, as `∀x.(φ∨ψ) = φ ∨ ∀x.ψ` when `φ` does not
//! mention `x`), the part is quantified once per value it takes (the
//! result kept in [`Env`] with the value it was computed from, both roots
//! at collections) and the connective is built over a small set.
//!
//! A variable is moved through negations, implications, and conjunctions
//! and disjunctions of which one side only mentions it; it stays where both
//! sides do (and at the top, where the quantifier is decided as before).

use super::{Env, SetExpr};
use crate::bdd::{Bdd, BddSpace, Roots, Space};
use crate::plan::{PropPlan, VarIx};
use crate::runtime::prop::PropMonitor;

/// `Q vars . e` (`Q` is `∀` when `forall`) with each of `vars` moved as
/// far down as it goes. The quantifiers left at the top are not written:
/// the caller decides `Q vars` over the result, which no longer mentions
/// the variables written lower (so that deciding them again changes
/// nothing). `quants` gets the variables of each
/// quantifier written, by its slot.
pub(super) fn push(
    plan: &PropPlan,
    e: SetExpr,
    forall: bool,
    vars: &[VarIx],
    quants: &mut Vec<Vec<VarIx>>,
) -> SetExpr {
    vars.iter()
        .fold(e, |e, &v| push_var(plan, e, forall, v, true, quants))
}

/// Whether `e` mentions `v` (its point forms never mention the quantified
/// variables).
fn mentions(plan: &PropPlan, e: &SetExpr, v: VarIx) -> bool {
    match e {
        SetExpr::Set(n) => plan.nodes[*n].free.contains(&v),
        SetExpr::Point(_) => false,
        SetExpr::Not(a) => mentions(plan, a, v),
        SetExpr::Quant { inner, .. } => mentions(plan, inner, v),
        SetExpr::And(a, b) | SetExpr::Or(a, b) | SetExpr::Implies(a, b) | SetExpr::Iff(a, b) => {
            mentions(plan, a, v) || mentions(plan, b, v)
        }
    }
}

/// `Q v . e` with `v` moved down; written here unless `top`.
fn push_var(
    plan: &PropPlan,
    e: SetExpr,
    forall: bool,
    v: VarIx,
    top: bool,
    quants: &mut Vec<Vec<VarIx>>,
) -> SetExpr {
    if !mentions(plan, &e, v) {
        // Domains are not empty.
        return e;
    }
    if let SetExpr::Not(a) = e {
        // Q x.¬φ = ¬Q'x.φ (at the top still: nothing combines φ with
        // another part on the way).
        return SetExpr::Not(Box::new(push_var(plan, *a, !forall, v, top, quants)));
    }
    let mut go = |e: Box<SetExpr>, forall: bool| {
        Box::new(push_var(plan, *e, forall, v, false, quants))
    };
    match e {
        // With x in one side only: Q x.(φ∘ψ) = φ ∘ Q x.ψ (and ψ ∘ φ) for
        // ∧ and ∨; Q x.(φ→ψ) = (Q'x.φ) → ψ, and φ → Q x.ψ.
        SetExpr::And(a, b) if !mentions(plan, &a, v) => SetExpr::And(a, go(b, forall)),
        SetExpr::And(a, b) if !mentions(plan, &b, v) => SetExpr::And(go(a, forall), b),
        SetExpr::Or(a, b) if !mentions(plan, &a, v) => SetExpr::Or(a, go(b, forall)),
        SetExpr::Or(a, b) if !mentions(plan, &b, v) => SetExpr::Or(go(a, forall), b),
        SetExpr::Implies(a, b) if !mentions(plan, &a, v) => SetExpr::Implies(a, go(b, forall)),
        SetExpr::Implies(a, b) if !mentions(plan, &b, v) => SetExpr::Implies(go(a, !forall), b),
        e => wrap(e, forall, v, top, quants),
    }
}

/// `Q v . e` written as a quantifier (merged into one of the same kind
/// right below), unless `top`.
fn wrap(e: SetExpr, forall: bool, v: VarIx, top: bool, quants: &mut Vec<Vec<VarIx>>) -> SetExpr {
    if top {
        return e;
    }
    if let SetExpr::Quant {
        forall: f, slot, ..
    } = &e
        && *f == forall
    {
        quants[*slot].push(v);
        return e;
    }
    quants.push(vec![v]);
    SetExpr::Quant {
        forall,
        slot: quants.len() - 1,
        inner: Box::new(e),
    }
}

impl PropMonitor {
    /// `∀` (`forall`) or `∃` of `inner` over the variables of quantifier
    /// `slot`: kept from its last value, else quantified (and kept).
    pub(super) fn scoped_quant(
        &self,
        space: &mut Space,
        (forall, slot): (bool, usize),
        inner: Bdd,
        env: &mut Env,
    ) -> Bdd {
        if let Some(Some((was, value))) = env.scoped.get(slot)
            && *was == inner
        {
            return *value;
        }
        let bits = self.consts.scoped_bits[slot];
        let value = if forall {
            space.forall_in(inner, bits)
        } else {
            space.exists_in(inner, bits)
        };
        if env.scoped.len() <= slot {
            env.scoped.resize(slot + 1, None);
        }
        env.scoped[slot] = Some((inner, value));
        value
    }
}

impl Env {
    /// Lists the quantified parts kept, with the values they came from.
    pub(in crate::runtime::prop) fn keep_roots(&mut self, roots: &mut Roots) {
        for (was, value) in self.scoped.iter_mut().flatten() {
            roots.keep(was);
            roots.keep(value);
        }
    }
}
