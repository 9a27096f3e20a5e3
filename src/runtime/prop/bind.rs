//! Binding an event: matching it against the property's atoms and
//! enumerating the values it binds to variables. Binding changes only the
//! enumerations (and scratch), so a refused step is undone exactly
//! ([`PropMonitor::unbind`]); the BDD state changes after every property
//! has bound the step ([`PropMonitor::apply_growth`]).

use super::PropMonitor;
use super::scratch::{CUBE_CACHE, PAIR_CACHE, PairKey};
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{Arg, Op, VarIx};
use crate::runtime::StepError;
use crate::runtime::ids::Code;

impl PropMonitor {
    /// Matches the event (by the index of its name: see
    /// [`CompiledProp::with_events`](super::CompiledProp::with_events))
    /// against the atoms of its name and enumerates the
    /// values bound to variables (widening code widths as needed; the BDDs
    /// follow in [`apply_growth`](Self::apply_growth)). Adds to the matches
    /// of the step's other events. On error, [`unbind`](Self::unbind) undoes
    /// the step's enumerations.
    pub(super) fn bind(&mut self, event: u32, args: &[&[u8]]) -> Result<(), StepError> {
        let c = &*self.compiled;
        let Some(atoms) = c.atoms_by_event.get(event as usize) else {
            return Ok(());
        };
        // Dropped twins are matched with point evaluation off only.
        let atoms = if self.point_on {
            &atoms.point
        } else {
            &atoms.all
        };
        let raw = (self.state.future.as_ref()).is_some_and(|f| f.raw);
        let b = &mut self.scratch.binding;
        // The codes looked up for this event, by class and argument position:
        // atoms that bind the same argument in one class share the lookup.
        let looked = &mut self.scratch.looked_up;
        looked.clear();
        for &n in atoms {
            let Op::Atom { args: pattern, .. } = &c.plan.nodes[n].op else {
                continue;
            };
            if pattern.len() != args.len() || (!c.plain_atom[n] && !matches_pattern(pattern, args))
            {
                continue;
            }
            if raw && !c.plan.nodes[n].free.is_empty() {
                // Kept as values: no code (see `future::matches`).
                let start = b.raw_spans.len();
                for (i, (p, value)) in pattern.iter().zip(args).enumerate() {
                    let Arg::Var(v) = p else { continue };
                    if pattern[..i].iter().any(|q| q == &Arg::Var(*v)) {
                        continue;
                    }
                    let at = b.raw.len() as u32;
                    b.raw.extend_from_slice(value);
                    b.raw_spans.push((at, b.raw.len() as u32));
                }
                b.raw_matched.push((n, start..b.raw_spans.len()));
                continue;
            }
            let start = b.codes.len();
            for (i, (p, value)) in pattern.iter().zip(args).enumerate() {
                let Arg::Var(v) = p else { continue };
                if b.codes[start..].iter().any(|&(w, _)| w == *v) {
                    continue;
                }
                let class = c.plan.vars[*v].class;
                let code = match looked.iter().find(|l| l.0 == class && l.1 == i) {
                    Some(&(_, _, code)) => code,
                    None => {
                        let found = self.state.classes[class]
                            .get_or_insert(value, self.max_bits)
                            .map_err(|_| StepError::out_of_codes(&c.plan, self.max_bits))?;
                        if found.fresh {
                            b.fresh.push((class, found));
                        }
                        if found.grew {
                            b.grown.push((class, self.state.classes[class].width()));
                        }
                        looked.push((class, i, found.code));
                        found.code
                    }
                };
                if self.state.seen[*v]
                    .as_ref()
                    .is_some_and(|s| !s.contains(code))
                {
                    b.newly_seen.push((*v, code));
                }
                b.codes.push((*v, code));
            }
            b.matched.push((n, start..b.codes.len()));
        }
        Ok(())
    }

    /// Undoes the enumerations of the step bound last (which is refused).
    pub(super) fn unbind(&mut self) {
        let b = &mut self.scratch.binding;
        for (class, lookup) in b.fresh.drain(..).rev() {
            self.state.classes[class].undo(lookup);
        }
        b.clear();
    }

    /// Widens the summaries of the classes whose codes grew while binding.
    pub(super) fn apply_growth(&mut self, space: &mut Space) {
        if self.scratch.binding.grown.is_empty() {
            return;
        }
        let grown = std::mem::take(&mut self.scratch.binding.grown);
        for &(class, width) in &grown {
            self.grow(space, class, width);
        }
        self.scratch.binding.grown = grown;
        self.state.all_dirty = true;
    }

    /// Widens class `class` by one bit: the new top bit was ignored so far; from
    /// now on codes with it set stand for unseen values, like the old reserved code.
    pub(super) fn grow(&mut self, space: &mut Space, class: usize, width: usize) {
        self.scratch.forget_cubes();
        let per_var = self.widening(space, class, width);
        self.state
            .for_each_kept(|b: &mut Bdd| widen(space, &per_var, b));
    }

    /// Per variable of class `class`, now `width` bits wide: its new top
    /// bit, and its old low bits all set (the old code of unseen values).
    pub(super) fn widening(&self, space: &mut Space, class: usize, width: usize) -> Widening {
        self.compiled
            .plan
            .vars
            .iter()
            .filter(|v| v.class == class)
            .map(|v| {
                let len = v.bits.len();
                let top = space.lit(v.bits[len - width], true);
                let old_low = v.bits[len - width + 1..].iter().map(|&x| (x, true));
                (top, old_low.collect())
            })
            .collect()
    }

    /// The cube `v = code` over the current width of `v`'s class.
    pub(super) fn code_cube(&self, v: VarIx, code: Code, lits: &mut Vec<(BddVar, bool)>) {
        let var = &self.compiled.plan.vars[v];
        let width = self.state.classes[var.class].width();
        let bits = &var.bits;
        for i in 0..width {
            lits.push((bits[bits.len() - 1 - i], code.bit(i)));
        }
    }

    /// The conjunction of the code cubes of the `i`th match of this event
    /// (true for an atom without variables).
    pub(super) fn match_cube(&mut self, space: &mut Space, i: usize) -> Bdd {
        let range = self.scratch.binding.matched[i].1.clone();
        if range.len() == 2 {
            return self.pair_cube(space, range);
        }
        if range.len() > 1
            && !self.scratch.binding.fresh.is_empty()
            && range.clone().any(|j| self.first_and_only_use(j))
        {
            // A code handed out for the first time, in this match only: no
            // conjunction with its cube was ever cached, nor will its cube
            // serve another match of the step; one cube of all the literals
            // (bottom variable first) takes a node per literal, fewer steps
            // than building the code's cube and conjoining.
            let mut lits = std::mem::take(&mut self.scratch.cube_lits);
            self.match_lits(range, &mut lits);
            let cube = space.cube(&lits);
            self.scratch.cube_lits = lits;
            return cube;
        }
        let mut cube: Option<Bdd> = None;
        for j in range {
            let (v, code) = self.scratch.binding.codes[j];
            let c = self.cached_cube(space, v, code);
            cube = Some(match cube {
                None => c,
                Some(acc) => space.and(acc, c),
            });
        }
        cube.unwrap_or_else(|| space.tt())
    }

    /// The cube of a match of the two codes `codes[range]`: from the cache
    /// of such cubes, or else built from its literals (a node per bit, the
    /// nodes below shared with the cubes of the same low bits). Cached, the
    /// cube of `acq(t, l)` serves `rel(t, l)` (and each atom of the same
    /// variables) without a conjunction of the codes' cubes, whose result
    /// the operation cache may have lost.
    fn pair_cube(&mut self, space: &mut Space, range: std::ops::Range<usize>) -> Bdd {
        let codes = &self.scratch.binding.codes;
        let (v0, c0) = codes[range.start];
        let (v1, c1) = codes[range.start + 1];
        let owner = &self.compiled.cube_owner;
        let key: PairKey = [owner[v0] as u32, c0.0, owner[v1] as u32, c1.0];
        let mix = (c0.0.wrapping_mul(0x9E37_79B1) ^ c1.0.wrapping_mul(0x85EB_CA77))
            .wrapping_add(key[0].wrapping_mul(0xC2B2_AE3D) ^ key[2]);
        let slot = (mix >> 7) as usize % PAIR_CACHE;
        if let Some(Some((k, cube))) = self.scratch.pair_cubes.get(slot)
            && *k == key
        {
            return *cube;
        }
        let mut lits = std::mem::take(&mut self.scratch.cube_lits);
        self.match_lits(range, &mut lits);
        let cube = space.cube(&lits);
        self.scratch.cube_lits = lits;
        if self.scratch.pair_cubes.is_empty() {
            self.scratch.pair_cubes = vec![None; PAIR_CACHE];
        }
        self.scratch.pair_cubes[slot] = Some((key, cube));
        cube
    }

    /// The literals of the codes `codes[range]` of this step, bottom
    /// variable first. Bits are interleaved (bit `L` of every variable at
    /// level `L`, in the order of the variables' slots), so bit by bit from
    /// the least significant, variables by decreasing slot, is that order.
    pub(super) fn match_lits(&mut self, range: std::ops::Range<usize>, lits: &mut Vec<(BddVar, bool)>) {
        let plan = &self.compiled.plan;
        let codes = &self.scratch.binding.codes[range.clone()];
        lits.clear();
        if let [(v, code)] = *codes {
            // One code: its bits from the least significant.
            let width = self.state.classes[plan.vars[v].class].width();
            let bits = &plan.vars[v].bits;
            let low = &bits[bits.len() - width..];
            lits.extend(low.iter().rev().enumerate().map(|(i, &x)| (x, code.bit(i))));
            return;
        }
        if let [(v, a), (w, b)] = *codes {
            // Two codes (most matches): the lower slot's bit first at each
            // level, without sorting.
            let (va, vb) = (&plan.vars[v], &plan.vars[w]);
            let ((x, a, wa), (y, b, wb)) = {
                let ea = (&va.bits, a, self.state.classes[va.class].width());
                let eb = (&vb.bits, b, self.state.classes[vb.class].width());
                if va.bits[0] > vb.bits[0] { (ea, eb) } else { (eb, ea) }
            };
            let (x, y) = (&x[x.len() - wa..], &y[y.len() - wb..]);
            // Both codes' bits from the least significant, then the rest
            // of the wider one's.
            let both = wa.min(wb);
            let (xs, ys) = (x.iter().rev(), y.iter().rev());
            lits.extend(xs.zip(ys).enumerate().flat_map(|(i, (&p, &q))| {
                [(p, a.bit(i)), (q, b.bit(i))]
            }));
            let (rest, code) = if wa > wb { (x, a) } else { (y, b) };
            let rest = &rest[..rest.len() - both];
            let tail = rest.iter().rev().enumerate();
            lits.extend(tail.map(|(k, &bit)| (bit, code.bit(both + k))));
            return;
        }
        let codes = &mut self.scratch.match_codes;
        codes.clear();
        for &(v, code) in &self.scratch.binding.codes[range] {
            let width = self.state.classes[plan.vars[v].class].width();
            codes.push((v, code, width));
        }
        codes.sort_unstable_by_key(|&(v, ..)| std::cmp::Reverse(plan.vars[v].bits[0]));
        let widest = codes.iter().map(|c| c.2).max().unwrap_or(0);
        for i in 0..widest {
            for &(v, code, width) in codes.iter() {
                let bits = &plan.vars[v].bits;
                if i < width {
                    lits.push((bits[bits.len() - 1 - i], code.bit(i)));
                }
            }
        }
    }

    /// Whether the `j`th code bound by this step was handed out for the
    /// first time by it (a new value that did not reuse a released code),
    /// and no other match of the step has it with the same bits.
    fn first_and_only_use(&self, j: usize) -> bool {
        let b = &self.scratch.binding;
        let (v, code) = b.codes[j];
        let class = self.compiled.plan.vars[v].class;
        let owner = &self.compiled.cube_owner;
        b.fresh
            .iter()
            .any(|&(c, l)| c == class && l.code == code && !l.reused)
            && b.codes
                .iter()
                .filter(|&&(w, c)| c == code && owner[w] == owner[v])
                .count()
                == 1
    }

    /// The cube `v = code` at the current width, from the cache (put
    /// there if it is not).
    pub(super) fn cached_cube(&mut self, space: &mut Space, v: VarIx, code: Code) -> Bdd {
        let v = self.compiled.cube_owner[v];
        if self.scratch.code_cubes[v].is_empty() {
            self.scratch.code_cubes[v] = vec![None; CUBE_CACHE];
        }
        let slot = code.index() % CUBE_CACHE;
        if let Some((c, cube)) = self.scratch.code_cubes[v][slot]
            && c == code
        {
            return cube;
        }
        let mut lits = std::mem::take(&mut self.scratch.cube_lits);
        lits.clear();
        self.code_cube(v, code, &mut lits);
        let cube = space.cube(&lits);
        self.scratch.cube_lits = lits;
        self.scratch.code_cubes[v][slot] = Some((code, cube));
        cube
    }
}

/// See [`PropMonitor::widening`].
pub(super) type Widening = Vec<(Bdd, Vec<(BddVar, bool)>)>;

/// `b` widened: a code with the new top bit set stands for unseen values,
/// as the old code of unseen values did.
pub(super) fn widen(space: &mut Space, per_var: &Widening, b: &mut Bdd) {
    for (top, old_low) in per_var {
        if old_low.iter().all(|&(x, _)| !space.depends_on(*b, x)) {
            continue;
        }
        let unseen = space.restrict(*b, old_low);
        *b = space.ite(*top, unseen, *b);
    }
}

/// Whether `args` match the atom's `pattern`: its constants, and equal
/// values for a repeated variable.
#[inline]
fn matches_pattern(pattern: &[Arg], args: &[&[u8]]) -> bool {
    for (i, p) in pattern.iter().enumerate() {
        match p {
            Arg::Const(c) if c.as_bytes() != args[i] => return false,
            Arg::Var(v) => {
                if let Some(j) = pattern[..i].iter().position(|q| q == &Arg::Var(*v))
                    && args[j] != args[i]
                {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::{CompiledProp, GcPolicy, PropMonitor, PropOptions};
    use crate::bdd::{BddSpace, Package, Space};
    use crate::plan::compile_source;

    /// The literals of each match of `a(x, y)`, `b(y, x)`, `c(x)` and
    /// `d(x, y, z)` agree with the conjunction of the codes' cubes, bottom
    /// variable first, through classes of different widths (the codes
    /// are kept from one event to the next: the classes grow).
    #[test]
    fn match_literals_are_the_codes_cubes_bottom_first() {
        let text = "prop p : Forall x . Forall y . Forall z .
            (a(x, y) | b(y, x) | c(x) | d(x, y, z)) -> !P e(x, y, z)";
        let (plan, _) = compile_source(text).expect("compiles");
        let compiled = Arc::new(CompiledProp::new(plan.props.into_iter().next().expect("one")));
        let mut space = Space::with_package(Package::Shared, compiled.plan.bdd_vars);
        let options = PropOptions {
            start_bits: 1,
            max_code_bits: 16,
            gc: GcPolicy::Never,
        };
        let mut m = PropMonitor::new(compiled, options, &mut space).expect("monitor");
        let values: Vec<String> = (0..40).map(|i| format!("v{i}")).collect();
        for step in 0..60usize {
            let (x, y, z) = (&values[step % 40], &values[(step * 7) % 13], &values[step % 3]);
            let (name, args): (&[u8], Vec<&[u8]>) = match step % 4 {
                0 => (b"a", vec![x.as_bytes(), y.as_bytes()]),
                1 => (b"b", vec![y.as_bytes(), x.as_bytes()]),
                2 => (b"c", vec![x.as_bytes()]),
                _ => (b"d", vec![x.as_bytes(), y.as_bytes(), z.as_bytes()]),
            };
            m.bind_event(name, &args, false).expect("binds");
            for i in 0..m.scratch.binding.matched.len() {
                let range = m.scratch.binding.matched[i].1.clone();
                let mut lits = Vec::new();
                m.match_lits(range.clone(), &mut lits);
                assert!(lits.windows(2).all(|w| w[0].0 > w[1].0), "{lits:?}");
                let mut want = space.tt();
                for j in range {
                    let (v, code) = m.scratch.binding.codes[j];
                    let mut one = Vec::new();
                    m.code_cube(v, code, &mut one);
                    let cube = space.cube(&one);
                    want = space.and(want, cube);
                }
                assert_eq!(space.cube(&lits), want, "step {step}");
            }
        }
    }
}
