//! The point mode of the delayed layer, for a statement with a
//! [`PointForm`](crate::plan::future::PointForm): `Forall x̄ . guard -> body`
//! or `Forall x̄ . !(guard & body)`, where the guard is an event pattern
//! over `x̄` and the body is made of connectives, `X`, `U` and immediate
//! subformulas.
//!
//! The statement is false at a position only at the tuples of the guard
//! there: those of the position's events, a handful. So nothing delayed is
//! computed as a set. At each step the immediate parts' sets are queued (as
//! in set mode), and the first undecided position is decided once the body
//! has a definite value at every tuple of its guard: the body is evaluated
//! at a tuple by walking down the queued sets along the tuple's codes (no
//! new BDD), in three-valued logic where a future operator whose window
//! reaches past the known positions is *unknown* unless its known part
//! decides it (`ψ` found for `U`, `φ` failing before). Positions are
//! decided in order; the queues keep the positions from the first
//! undecided one on. An event pattern that only the guard or the body
//! reads is not even a set: its matches are kept as code tuples
//! ([`matches`](super::matches)), and the guard's tuples are read off
//! them.

use super::matches::Tuple;
use super::{Decision, Future};
use crate::bdd::{BddSpace, BddVar, Space};
use crate::plan::future::PointForm;
use crate::plan::{NodeIx, Op};
use crate::runtime::ids::Code;
use crate::runtime::prop::PropMonitor;
use crate::runtime::witness::{Falsified, WitnessValue};

/// The most tuples of a guard at one position that are evaluated one by
/// one; beyond, the guard's codes are too many for this to pay, and they
/// are evaluated all the same (a bound only on the paths walked).
const MAX_PATHS: usize = 1 << 16;

/// The buffers of [`PropMonitor::decide_point`], kept from one position to
/// the next.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// The guard's cubes, one after the other, and their ends.
    lits: Vec<(BddVar, bool)>,
    ends: Vec<usize>,
    /// A valuation of every BDD variable.
    values: Vec<bool>,
    /// The bits of the variables' codes, most significant first, one
    /// variable after the other, and each variable's number of bits.
    bits: Vec<BddVar>,
    widths: Vec<usize>,
    /// The bits of the tuple's codes that a cube leaves free.
    free: Vec<BddVar>,
    /// Per BDD variable: the number of the cube that fixed it last (to
    /// tell the bits a cube fixes from the free ones in one pass).
    fixed_by: Vec<u32>,
    /// The number of the cube being walked (from 1).
    cube: u32,
    /// The codes of the tuples at which the statement is false, one tuple
    /// after the other, and how many tuples.
    bad: Vec<u64>,
    bad_tuples: usize,
    /// The codes of the tuple being evaluated.
    tuple: Vec<u64>,
    /// With matches kept as values: the values of the tuples at which the
    /// statement is false, one tuple after the other.
    bad_values: Vec<Box<[u8]>>,
}

/// Sets the bits of the codes `tuple` in `sc.values` (`on`), or clears
/// them all.
fn set_bits(sc: &mut Scratch, tuple: &[u64], on: bool) {
    let mut at = 0;
    for (&code, &w) in tuple.iter().zip(&sc.widths) {
        for (j, b) in sc.bits[at..at + w].iter().enumerate() {
            sc.values[usize::from(b.0)] = on && (code >> (w - 1 - j)) & 1 == 1;
        }
        at += w;
    }
}

/// Kleene's three-valued conjunction.
fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Kleene's three-valued disjunction.
fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    and3(a.map(|x| !x), b.map(|x| !x)).map(|x| !x)
}

/// Whether position `p` may be decided now: its guard holds at no tuple,
/// or the known positions reach past the body's horizon in time (or the
/// horizon is not bounded in time: then every step may decide it).
fn ripe(f: &Future, p: u64) -> bool {
    let Some(form) = &f.point else {
        return false;
    };
    let Some(reach) = form.reach else {
        return true;
    };
    let later = f.time(f.end - 1).saturating_add(f.next_gap);
    later - f.time(p) > reach || f.guard_empty(form.guard, p)
}

/// Drops the first `n` items of `queue` (usually one: one by one).
fn drop_front<T: Copy>(queue: &mut std::collections::VecDeque<T>, n: u64) {
    if n <= 4 {
        for _ in 0..n {
            queue.pop_front();
        }
    } else {
        queue.drain(..n as usize);
    }
}

impl PropMonitor {
    /// Decides the undecided positions in order, as long as they can be,
    /// and cuts the queues to the first undecided one.
    pub(super) fn advance_point(&mut self, space: &mut Space, f: &mut Future) {
        while f.point_next < f.end {
            if !ripe(f, f.point_next) {
                break;
            }
            let next = f.point_next;
            let Some(decision) = self.decide_point(space, f, next) else {
                break;
            };
            f.decided.push(decision);
            f.point_next += 1;
        }
        let keep = f.point_next;
        let raw = f.raw;
        // Only the feeds are queued in point mode.
        for i in 0..f.feeds.len() {
            let k = f.feeds[i];
            let drop = keep.saturating_sub(f.first[k]).min(f.vals[k].len() as u64);
            if drop == 0 {
                continue;
            }
            drop_front(&mut f.vals[k], drop);
            if let Some(m) = &mut f.matches[k] {
                m.drop_front(drop as usize, raw);
            }
            f.first[k] += drop;
        }
        let drop = keep.saturating_sub(f.base).min(f.times.len() as u64);
        if drop > 0 {
            drop_front(&mut f.times, drop);
            f.base += drop;
        }
    }

    /// At the end of a trace left open: decides every undecided position
    /// whose verdict is already definite, though its horizon is not passed
    /// (the body holds at every tuple, or fails at one, whatever comes
    /// next). The positions stay queued: a trace that goes on decides them
    /// again, and the table drops what it has.
    pub(in crate::runtime::prop) fn settle_point(&mut self, space: &mut Space, f: &mut Future) {
        for p in f.point_next..f.end {
            if let Some(decision) = self.decide_point(space, f, p) {
                f.decided.push(decision);
            }
        }
    }

    /// The verdict at position `p`, if every tuple of the guard there has
    /// a definite value of the body.
    fn decide_point(&self, space: &mut Space, f: &mut Future, p: u64) -> Option<Decision> {
        let form = f.point.as_ref()?;
        let decision = Decision {
            position: p,
            holds: true,
            found: Falsified::default(),
            tuples: Vec::new(),
        };
        if f.guard_empty(form.guard, p) {
            return Some(decision);
        }
        let plan = &self.compiled.plan;
        let mut sc = f.scratch.take().unwrap_or_default();
        sc.bad.clear();
        sc.bad_values.clear();
        sc.bad_tuples = 0;
        // Only the tuple's bits are read: the others keep any value.
        if sc.values.len() != plan.bdd_vars {
            sc.values.clear();
            sc.values.resize(plan.bdd_vars, false);
            sc.fixed_by.clear();
            sc.fixed_by.resize(plan.bdd_vars, 0);
        }
        if f.raw {
            // Values, no codes: no code's bits to set.
            let known = self.match_tuples(space, f, p, &mut sc);
            return self.decided(f, sc, decision, known);
        }
        // The codes' bits change only when a class's codes grow wider.
        let widths = (form.vars.iter()).map(|&v| {
            let var = &plan.vars[v];
            self.state.classes[var.class].width().min(var.bits.len())
        });
        if !widths.clone().eq(sc.widths.iter().copied()) {
            sc.bits.clear();
            sc.widths.clear();
            for (&v, width) in form.vars.iter().zip(widths) {
                let var = &plan.vars[v];
                sc.bits
                    .extend_from_slice(&var.bits[var.bits.len() - width..]);
                sc.widths.push(width);
            }
        }
        let known = if f.is_matches(form.guard) {
            self.match_tuples(space, f, p, &mut sc)
        } else {
            let guard = f.val(form.guard, p);
            let complete = space.cubes(guard, MAX_PATHS, &mut sc.lits, &mut sc.ends);
            complete && self.bad_tuples(space, f, p, &mut sc)
        };
        self.decided(f, sc, decision, known)
    }

    /// The decision at a position once its guard's tuples are evaluated
    /// (`known`: all of them definitely), the falsifying ones in `sc`.
    fn decided(
        &self,
        f: &mut Future,
        mut sc: Box<Scratch>,
        mut decision: Decision,
        known: bool,
    ) -> Option<Decision> {
        let form = f.point.as_ref()?;
        let n = form.vars.len();
        let result = known.then(|| {
            if sc.bad_tuples == 0 {
                return decision;
            }
            decision.holds = false;
            let mut values: Vec<Vec<WitnessValue>> = if n == 0 {
                vec![Vec::new()]
            } else if f.raw {
                // The boxes of the values move into the tuples.
                let mut boxes = sc.bad_values.drain(..);
                let mut tuples: Vec<Vec<Box<[u8]>>> = (0..sc.bad_tuples)
                    .map(|_| boxes.by_ref().take(n).collect())
                    .collect();
                drop(boxes);
                tuples.sort_unstable();
                tuples.dedup();
                (tuples.into_iter())
                    .map(|t| t.into_iter().map(WitnessValue::Value).collect())
                    .collect()
            } else {
                let mut codes: Vec<&[u64]> = sc.bad.chunks(n).collect();
                codes.sort_unstable();
                codes.dedup();
                (codes.iter())
                    .map(|t| {
                        (t.iter().zip(&form.vars))
                            .map(|(&c, &v)| self.decode(v, c))
                            .collect()
                    })
                    .collect()
            };
            let walks = self.explain.walks();
            if let Some(width) = self.explain.tuple_width() {
                if walks || n > width {
                    let mut tuples: Vec<Vec<WitnessValue>> = (values.iter())
                        .map(|t| t[..t.len().min(width)].to_vec())
                        .collect();
                    tuples.dedup();
                    decision.tuples = tuples;
                } else {
                    // Whole: the tuples themselves, with nothing to walk.
                    decision.tuples = std::mem::take(&mut values);
                }
            }
            if walks {
                decision.found = Falsified {
                    vars: form.vars.clone(),
                    total: values.len() as u64,
                    tuples: values,
                    atoms: form.atoms.clone(),
                };
            }
            decision
        });
        f.scratch = Some(sc);
        result
    }

    /// Evaluates the body at every tuple of the guard's cubes in `sc` at
    /// position `p`, appending the codes of those where the statement is
    /// false to `sc.bad`; `false` when some value is not known yet.
    fn bad_tuples(&self, space: &Space, f: &Future, p: u64, sc: &mut Scratch) -> bool {
        let Some(form) = &f.point else {
            return false;
        };
        let mut start = 0;
        for c in 0..sc.ends.len() {
            let end = sc.ends[c];
            // The codes of the path: its free bits in every combination.
            sc.cube = sc.cube.wrapping_add(1);
            if sc.cube == 0 {
                sc.fixed_by.fill(0);
                sc.cube = 1;
            }
            for &(b, value) in &sc.lits[start..end] {
                let b = usize::from(b.0);
                sc.values[b] = value;
                sc.fixed_by[b] = sc.cube;
            }
            sc.free.clear();
            for &b in &sc.bits {
                if sc.fixed_by[usize::from(b.0)] != sc.cube {
                    sc.free.push(b);
                }
            }
            let known = sc.free.len() <= 16 && self.cube_tuples(space, f, form, p, sc);
            // Every value false again between cubes (bits outside the
            // tuple's are read as false).
            for &(b, _) in &sc.lits[start..end] {
                sc.values[usize::from(b.0)] = false;
            }
            for &b in &sc.free {
                sc.values[usize::from(b.0)] = false;
            }
            start = end;
            if !known {
                return false;
            }
        }
        true
    }

    /// [`bad_tuples`](Self::bad_tuples) when the guard is kept as matches:
    /// the body at each of its tuples at position `p`.
    fn match_tuples(&self, space: &Space, f: &Future, p: u64, sc: &mut Scratch) -> bool {
        let Some(form) = &f.point else {
            return false;
        };
        let Some(m) = &f.matches[form.guard] else {
            return false;
        };
        let i = (p - f.first[form.guard]) as usize;
        let n = form.vars.len();
        let mut known = true;
        if f.raw {
            // On the stack for the usual few variables.
            let mut small: [&[u8]; 8] = [&[]; 8];
            let mut large: Vec<&[u8]> = Vec::new();
            let tuple: &mut [&[u8]] = if n <= small.len() {
                &mut small[..n]
            } else {
                large.resize(n, &[]);
                &mut large
            };
            m.for_each_values(i, tuple, |tuple| {
                if !known {
                    return;
                }
                match self.body_at(space, f, form.body, p, &sc.values, Tuple::Values(tuple)) {
                    None => known = false,
                    Some(value) if value == form.bad => {
                        sc.bad_tuples += 1;
                        sc.bad_values.extend(tuple.iter().map(|v| Box::<[u8]>::from(*v)));
                    }
                    Some(_) => {}
                }
            });
            return known;
        }
        // The bits of the tuple's codes, for the parts of the body kept as
        // sets.
        let plan = &self.compiled.plan;
        let bits = (f.feeds.iter())
            .any(|&k| k != form.guard && !f.is_matches(k) && !plan.nodes[k].free.is_empty());
        let mut tuple = std::mem::take(&mut sc.tuple);
        tuple.clear();
        tuple.resize(n, 0);
        m.for_each_tuple(i, &mut tuple, |tuple| {
            if !known {
                return;
            }
            if bits {
                set_bits(sc, tuple, true);
            }
            match self.body_at(space, f, form.body, p, &sc.values, Tuple::Codes(tuple)) {
                None => known = false,
                Some(value) if value == form.bad => {
                    sc.bad_tuples += 1;
                    sc.bad.extend_from_slice(tuple);
                }
                Some(_) => {}
            }
            if bits {
                set_bits(sc, tuple, false);
            }
        });
        sc.tuple = tuple;
        known
    }

    /// [`bad_tuples`](Self::bad_tuples) of one cube, its fixed bits set
    /// in `sc.values` and its free ones in `sc.free`.
    fn cube_tuples(
        &self,
        space: &Space,
        f: &Future,
        form: &PointForm,
        p: u64,
        sc: &mut Scratch,
    ) -> bool {
        for mask in 0..1u64 << sc.free.len() {
            for (i, b) in sc.free.iter().enumerate() {
                sc.values[usize::from(b.0)] = mask >> i & 1 == 1;
            }
            sc.tuple.clear();
            let mut at = 0;
            for &w in &sc.widths {
                let code = (sc.bits[at..at + w].iter()).fold(0u64, |c, b| {
                    (c << 1) | u64::from(sc.values[usize::from(b.0)])
                });
                sc.tuple.push(code);
                at += w;
            }
            match self.body_at(space, f, form.body, p, &sc.values, Tuple::Codes(&sc.tuple)) {
                None => return false,
                Some(value) if value == form.bad => {
                    sc.bad_tuples += 1;
                    sc.bad.extend_from_slice(&sc.tuple);
                }
                Some(_) => {}
            }
        }
        true
    }

    /// The value of variable `v`'s code `code`.
    fn decode(&self, v: usize, code: u64) -> WitnessValue {
        let class = &self.state.classes[self.compiled.plan.vars[v].class];
        match u32::try_from(code) {
            Ok(c) if code != class.unseen() => class
                .decode(Code(c))
                .map_or(WitnessValue::Unseen, |b| WitnessValue::Value(b.into())),
            _ => WitnessValue::Unseen,
        }
    }

    /// The value of node `n` at position `p` under the codes set in
    /// `values` (a valuation of every BDD variable), or
    /// `None` while it depends on positions not known yet.
    fn body_at(
        &self,
        space: &Space,
        f: &Future,
        n: NodeIx,
        p: u64,
        values: &[bool],
        tuple: Tuple<'_>,
    ) -> Option<bool> {
        let at = |k: NodeIx, q: u64| self.body_at(space, f, k, q, values, tuple);
        // An operand read at many positions: its queued set when it has
        // one there, without a call.
        let queued = |k: NodeIx, q: u64| {
            if f.first[k] <= q && q < f.next(k) {
                Some(f.read(space, k, q, values, tuple))
            } else {
                at(k, q)
            }
        };
        let nodes = &self.compiled.plan.nodes;
        match nodes[n].op {
            // An immediate node: its queued set at the codes.
            _ if f.first[n] <= p && p < f.next(n) => Some(f.read(space, n, p, values, tuple)),
            Op::Not(a) => at(a, p).map(|x| !x),
            Op::And(a, b) => match at(a, p) {
                Some(false) => Some(false),
                x => and3(x, at(b, p)),
            },
            Op::Or(a, b) => match at(a, p) {
                Some(true) => Some(true),
                x => or3(x, at(b, p)),
            },
            Op::Implies(a, b) => match at(a, p) {
                Some(false) => Some(true),
                x => or3(x.map(|v| !v), at(b, p)),
            },
            Op::Iff(a, b) => {
                let (x, y) = (at(a, p)?, at(b, p)?);
                Some(x == y)
            }
            Op::Next(t, a) => {
                if p + 1 < f.end {
                    if f.time(p + 1) == u64::MAX && f.order.binary_search(&a).is_ok() {
                        // The step that closes a trace as MonPoly closes a
                        // log (at the greatest time): MonPoly gives `X` a
                        // value only with its operand's there, and a
                        // delayed operand has none (as in set mode).
                        return None;
                    }
                    if t.contains(f.time(p + 1) - f.time(p)) {
                        at(a, p + 1)
                    } else {
                        Some(false)
                    }
                } else if t.hi.is_some_and(|h| f.next_gap > h) {
                    // The next step comes later than the interval allows.
                    Some(false)
                } else {
                    None
                }
            }
            Op::Until(t, a, b) => {
                let hi = t.hi.unwrap_or(u64::MAX);
                let start = f.time(p);
                // `F` is `true U ψ`: no prefix to check.
                let always = matches!(nodes[a].op, Op::True);
                // ψ kept as matches: looked up at its positions here.
                let psi = f.matches[b].as_ref().map(|m| (m, f.first[b], f.next(b)));
                let mut result = Some(false);
                let mut prefix = Some(true);
                let mut k = p;
                loop {
                    if k >= f.end {
                        // Past the known positions: closed if the next step
                        // must come too late.
                        let later = f.time(f.end - 1).saturating_add(f.next_gap);
                        return if later - start > hi {
                            result
                        } else {
                            or3(result, None)
                        };
                    }
                    let gap = f.time(k) - start;
                    if gap > hi {
                        return result;
                    }
                    if gap >= t.lo {
                        let value = match psi {
                            Some((m, first, next)) if first <= k && k < next => {
                                Some(m.contains_at((k - first) as usize, tuple))
                            }
                            _ => queued(b, k),
                        };
                        result = or3(result, and3(prefix, value));
                        if result == Some(true) {
                            return result;
                        }
                    }
                    if !always {
                        prefix = and3(prefix, queued(a, k));
                    }
                    if prefix == Some(false) {
                        return result;
                    }
                    k += 1;
                }
            }
            // Not a pointwise node (the point form has none), or an
            // immediate node without its value: not known.
            _ => None,
        }
    }
}
