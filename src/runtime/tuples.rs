//! Enumerating the assignments of codes of a set (a BDD over the bits of
//! some variables), in the order of the codes: what snapshots compare.
//! (The falsifying and satisfying tuples of violations are listed by
//! [`super::witness::falsify`].)

use crate::bdd::{Bdd, BddSpace, BddVar, Space};

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
