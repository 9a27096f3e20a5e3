//! Binding an event: matching it against the property's atoms and
//! enumerating the values it binds to variables. Binding changes only the
//! enumerations (and scratch), so a refused step is undone exactly
//! ([`PropMonitor::unbind`]); the BDD state changes after every property
//! has bound the step ([`PropMonitor::apply_growth`]).

use super::PropMonitor;
use super::scratch::CUBE_CACHE;
use crate::bdd::{Bdd, BddVar};
use crate::plan::{Arg, Op, VarIx};
use crate::runtime::StepError;
use crate::runtime::ids::Code;

impl PropMonitor {
    /// Matches the event against the atoms of its name and enumerates the
    /// values bound to variables (widening code widths as needed; the BDDs
    /// follow in [`apply_growth`](Self::apply_growth)). Adds to the matches
    /// of the step's other events. On error, [`unbind`](Self::unbind) undoes
    /// the step's enumerations.
    pub(super) fn bind(&mut self, name: &[u8], args: &[&[u8]]) -> Result<(), StepError> {
        let c = &*self.compiled;
        let Some(atoms) = c.atoms_by_event.get(name) else {
            return Ok(());
        };
        let b = &mut self.scratch.binding;
        for &n in atoms {
            let Op::Atom { args: pattern, .. } = &c.plan.nodes[n].op else {
                continue;
            };
            if pattern.len() != args.len() || !matches_pattern(pattern, args) {
                continue;
            }
            let start = b.codes.len();
            for (p, value) in pattern.iter().zip(args) {
                let Arg::Var(v) = p else { continue };
                if b.codes[start..].iter().any(|&(w, _)| w == *v) {
                    continue;
                }
                let class = c.plan.vars[*v].class;
                let found = self.state.classes[class]
                    .get_or_insert(value, self.max_bits)
                    .map_err(|_| StepError::out_of_codes(&c.plan, self.max_bits))?;
                if found.fresh {
                    b.fresh.push((class, found));
                }
                if found.grew {
                    b.grown.push((class, self.state.classes[class].width()));
                }
                if self.state.seen[*v]
                    .as_ref()
                    .is_some_and(|s| !s.contains(found.code))
                {
                    b.newly_seen.push((*v, found.code));
                }
                b.codes.push((*v, found.code));
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
    pub(super) fn apply_growth(&mut self) {
        if self.scratch.binding.grown.is_empty() {
            return;
        }
        let grown = std::mem::take(&mut self.scratch.binding.grown);
        for &(class, width) in &grown {
            self.grow(class, width);
        }
        self.scratch.binding.grown = grown;
        self.state.all_dirty = true;
    }

    /// Widens class `class` by one bit: the new top bit was ignored so far; from
    /// now on codes with it set stand for unseen values, like the old reserved code.
    fn grow(&mut self, class: usize, width: usize) {
        for cubes in &mut self.scratch.code_cubes {
            cubes.clear();
        }
        let space = &self.space;
        let per_var: Vec<(Bdd, Vec<(BddVar, bool)>)> = self
            .compiled
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
            .collect();
        self.state.for_each_kept(|b: &mut Bdd| {
            for (top, old_low) in &per_var {
                if old_low.iter().all(|&(x, _)| !b.depends_on(x)) {
                    continue;
                }
                let unseen = b.restrict(old_low);
                *b = Bdd::ite(top, &unseen, b);
            }
        });
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
    pub(super) fn match_cube(&mut self, i: usize) -> Bdd {
        let mut cube: Option<Bdd> = None;
        for j in self.scratch.binding.matched[i].1.clone() {
            let (v, code) = self.scratch.binding.codes[j];
            let c = self.cached_cube(v, code);
            cube = Some(match cube {
                None => c,
                Some(acc) => acc.and(&c),
            });
        }
        cube.unwrap_or_else(|| self.space.tt())
    }

    /// The cube `v = code` at the current width.
    pub(super) fn cached_cube(&mut self, v: VarIx, code: Code) -> Bdd {
        let v = self.compiled.cube_owner[v];
        if self.scratch.code_cubes[v].is_empty() {
            self.scratch.code_cubes[v] = vec![None; CUBE_CACHE];
        }
        let slot = code.index() % CUBE_CACHE;
        if let Some((c, cube)) = &self.scratch.code_cubes[v][slot]
            && *c == code
        {
            return cube.clone();
        }
        let mut lits = std::mem::take(&mut self.scratch.cube_lits);
        lits.clear();
        self.code_cube(v, code, &mut lits);
        let cube = self.space.cube(&lits);
        self.scratch.cube_lits = lits;
        self.scratch.code_cubes[v][slot] = Some((code, cube.clone()));
        cube
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
