//! Satisfying tuples: every assignment of a property's outer universal
//! variables that makes it false at an event, decoded to trace values.
//!
//! The MFOTL front end reads a formula φ with free variables x1..xn as the
//! property `Forall x1 . ... Forall xn . !φ`; at an event where it is
//! violated, MonPoly prints every tuple that satisfies φ there. Those are
//! the assignments of the leading `Forall` variables under which the node
//! below them is false: its `now` summary, negated, enumerated bit by bit over
//! the variables' codes (each code decoded to its value; the code of values
//! not seen yet, or a code no value has, is [`WitnessValue::Unseen`]).

use super::ids::Code;
use super::witness::{State, WitnessValue};
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::Op;
use crate::syntax::Quant;

/// The tuples, in the order of the variables of [`outer_vars`], sorted by
/// their codes, without duplicates.
pub(super) fn all(space: &mut Space, state: &State<'_>) -> Vec<Vec<WitnessValue>> {
    let plan = state.plan;
    let (vars, inner) = outer_vars(state);
    let mut bits: Vec<(usize, Vec<BddVar>)> = Vec::new();
    for &v in &vars {
        let var = &plan.vars[v];
        let width = state.classes[var.class].width().min(var.bits.len());
        bits.push((v, var.bits[var.bits.len() - width..].to_vec()));
    }
    let set = space.not(state.now[inner]);
    let mut codes: Vec<Vec<u64>> = Vec::new();
    let mut current = Vec::new();
    // No bound: every tuple is asked for.
    let mut unbounded = u64::MAX;
    let _ = enumerate(
        space,
        set,
        &bits,
        0,
        &mut current,
        &mut codes,
        &mut unbounded,
    );
    let mut out: Vec<Vec<WitnessValue>> = codes
        .into_iter()
        .map(|tuple| {
            tuple
                .iter()
                .zip(&vars)
                .map(|(&code, &v)| {
                    let class = &state.classes[plan.vars[v].class];
                    match u32::try_from(code) {
                        Ok(c) if code != class.unseen() => class
                            .decode(Code(c))
                            .map_or(WitnessValue::Unseen, |b| WitnessValue::Value(b.into())),
                        _ => WitnessValue::Unseen,
                    }
                })
                .collect()
        })
        .collect();
    out.dedup();
    out
}

/// The variables of the leading `Forall` quantifiers of the statement,
/// outermost first, and the node below them.
pub(super) fn outer_vars(state: &State<'_>) -> (Vec<usize>, usize) {
    let plan = state.plan;
    let mut n = plan.root;
    let mut vars = Vec::new();
    while let Op::Quant(Quant::Forall, v, a) = &plan.nodes[n].op {
        vars.push(*v);
        n = *a;
    }
    (vars, n)
}

/// Appends to `out` every assignment of the codes of `bits[k..]` under which
/// `set` (already restricted to `current`'s choices) is not false; `None`
/// (with `out` partly filled) once more than `budget` are found.
pub(in crate::runtime) fn enumerate(
    space: &mut Space,
    set: Bdd,
    bits: &[(usize, Vec<BddVar>)],
    k: usize,
    current: &mut Vec<u64>,
    out: &mut Vec<Vec<u64>>,
    budget: &mut u64,
) -> Option<()> {
    if set.is_false() {
        return Some(());
    }
    let Some((_, vbits)) = bits.get(k) else {
        *budget = budget.checked_sub(1)?;
        out.push(current.clone());
        return Some(());
    };
    // Depth-first over the bits of variable k, most significant first.
    let mut stack = vec![(set, 0usize, 0u64)];
    while let Some((s, depth, code)) = stack.pop() {
        if s.is_false() {
            continue;
        }
        if depth == vbits.len() {
            current.push(code);
            let done = enumerate(space, s, bits, k + 1, current, out, budget);
            current.pop();
            done?;
            continue;
        }
        let bit = vbits[depth];
        // Pushed one before zero: codes come out in increasing order.
        let one = space.restrict(s, &[(bit, true)]);
        stack.push((one, depth + 1, (code << 1) | 1));
        let zero = space.restrict(s, &[(bit, false)]);
        stack.push((zero, depth + 1, code << 1));
    }
    Some(())
}
