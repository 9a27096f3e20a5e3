//! Quantification, and-exists, restriction and simultaneous renaming: the
//! operations that walk a function against a cube or a substitution.

use super::apply::{NEW_STACK, RED_ZONE};
use super::cache::Op;
use super::node::{FALSE, Id, TRUE};
use super::table::Manager;
use crate::bdd::BddVar;

impl Manager {
    /// The rest of a cube below its top literal.
    #[inline]
    pub(super) fn cube_next(&self, c: Id) -> Id {
        let n = self.node(c);
        if n.lo == FALSE { n.hi } else { n.lo }
    }

    /// Drops the literals of cube `c` above level `v`.
    #[inline]
    pub(super) fn cube_from(&self, mut c: Id, v: u16) -> Id {
        while c != TRUE && self.level(c) < v {
            c = self.cube_next(c);
        }
        c
    }

    /// `∃ c . f` (`forall` false) or `∀ c . f` (`forall` true), `c` a positive cube.
    pub(super) fn quantify(&mut self, f: Id, c: Id, forall: bool, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.quantify(f, c, forall, depth + 1)
            });
        }
        if f <= TRUE {
            return f;
        }
        let v = self.level(f);
        let c = self.cube_from(c, v);
        if c == TRUE {
            return f;
        }
        let op = if forall { Op::Forall } else { Op::Exists };
        if let Some(r) = self.cache.get(op, f, c, 0) {
            return r;
        }
        let n = self.node(f);
        let r = if self.level(c) == v {
            let rest = self.cube_next(c);
            let lo = self.quantify(n.lo, rest, forall, depth + 1);
            let decided = if forall { FALSE } else { TRUE };
            if lo == decided {
                decided
            } else {
                let hi = self.quantify(n.hi, rest, forall, depth + 1);
                let join = if forall { Op::And } else { Op::Or };
                self.apply(join, lo, hi, depth + 1)
            }
        } else {
            let lo = self.quantify(n.lo, c, forall, depth + 1);
            let hi = self.quantify(n.hi, c, forall, depth + 1);
            self.mk(v, lo, hi)
        };
        self.cache.put(op, f, c, 0, r);
        r
    }

    /// `∃ c . (f ∧ g)` without building `f ∧ g`.
    pub(super) fn and_exists(&mut self, f: Id, g: Id, c: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.and_exists(f, g, c, depth + 1)
            });
        }
        if f == FALSE || g == FALSE {
            return FALSE;
        }
        if f == TRUE || f == g {
            return self.quantify(g, c, false, depth);
        }
        if g == TRUE {
            return self.quantify(f, c, false, depth);
        }
        let v = self.level(f).min(self.level(g));
        let c = self.cube_from(c, v);
        if c == TRUE {
            return self.apply(Op::And, f, g, depth);
        }
        let (f, g) = if f > g { (g, f) } else { (f, g) };
        if let Some(r) = self.cache.get(Op::AndExists, f, g, c) {
            return r;
        }
        let (f0, f1) = self.cofactors(f, v);
        let (g0, g1) = self.cofactors(g, v);
        let r = if self.level(c) == v {
            let rest = self.cube_next(c);
            let lo = self.and_exists(f0, g0, rest, depth + 1);
            if lo == TRUE {
                TRUE
            } else {
                let hi = self.and_exists(f1, g1, rest, depth + 1);
                self.apply(Op::Or, lo, hi, depth + 1)
            }
        } else {
            let lo = self.and_exists(f0, g0, c, depth + 1);
            let hi = self.and_exists(f1, g1, c, depth + 1);
            self.mk(v, lo, hi)
        };
        self.cache.put(Op::AndExists, f, g, c, r);
        r
    }

    /// The cofactor of `f` for the literals of cube `c`.
    pub(super) fn restrict(&mut self, f: Id, c: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.restrict(f, c, depth + 1));
        }
        if f <= TRUE {
            return f;
        }
        let v = self.level(f);
        let c = self.cube_from(c, v);
        if c == TRUE {
            return f;
        }
        if let Some(r) = self.cache.get(Op::Restrict, f, c, 0) {
            return r;
        }
        let n = self.node(f);
        let r = if self.level(c) == v {
            let positive = self.node(c).lo == FALSE;
            let rest = self.cube_next(c);
            let child = if positive { n.hi } else { n.lo };
            self.restrict(child, rest, depth + 1)
        } else {
            let lo = self.restrict(n.lo, c, depth + 1);
            let hi = self.restrict(n.hi, c, depth + 1);
            self.mk(v, lo, hi)
        };
        self.cache.put(Op::Restrict, f, c, 0, r);
        r
    }

    /// The id of a renaming, interned so that its results can be cached.
    pub(super) fn intern_map(&mut self, pairs: &[(BddVar, BddVar)]) -> Id {
        let mut key: Vec<(u16, u16)> = pairs
            .iter()
            .filter(|(f, t)| f != t)
            .map(|&(f, t)| (f.0, t.0))
            .collect();
        key.sort_unstable();
        key.dedup_by_key(|p| p.0);
        if let Some(&id) = self.maps.get(&key) {
            return id;
        }
        let len = key.last().map_or(0, |p| p.0 as usize + 1);
        let mut targets: Vec<u16> = (0..len as u16).collect();
        for &(f, t) in &key {
            targets[f as usize] = t;
        }
        let id = self.map_targets.len() as Id;
        self.map_targets.push(targets);
        self.maps.insert(key, id);
        id
    }

    /// The number of a prepared variable set: its positive cube, interned
    /// (the same set twice is one) and kept through every collection.
    pub(super) fn intern_set(&mut self, vars: &[BddVar]) -> Id {
        let mut key: Vec<u16> = vars.iter().map(|v| v.0).collect();
        key.sort_unstable();
        key.dedup();
        if let Some(&index) = self.sets.get(&key) {
            return index;
        }
        let cube = self.cube_bottom_up(key.iter().rev().map(|&v| (v, true)));
        let index = self.set_cubes.len() as Id;
        self.set_cubes.push(cube);
        self.sets.insert(key, index);
        index
    }

    /// The positive cube of `vars` (not kept: for one operation).
    pub(super) fn positive_cube(&mut self, vars: &[BddVar]) -> Id {
        let lits: Vec<(BddVar, bool)> = vars.iter().map(|&v| (v, true)).collect();
        self.cube(&lits)
    }

    /// Simultaneous substitution: `f` with every variable replaced by its target.
    pub(super) fn rename(&mut self, f: Id, map: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.rename(f, map, depth + 1));
        }
        if f <= TRUE {
            return f;
        }
        if let Some(r) = self.cache.get(Op::Rename, f, map, 0) {
            return r;
        }
        let n = self.node(f);
        // A terminal child is its own renaming: no call.
        let lo = if n.lo <= TRUE {
            n.lo
        } else {
            self.rename(n.lo, map, depth + 1)
        };
        let hi = if n.hi <= TRUE {
            n.hi
        } else {
            self.rename(n.hi, map, depth + 1)
        };
        let targets = &self.map_targets[map as usize];
        let t = targets.get(n.var as usize).copied().unwrap_or(n.var);
        // f = (v ∧ hi) ∨ (¬v ∧ lo), so f[σ] = ite(σ(v), hi[σ], lo[σ]); when σ(v)
        // is above both substituted children that is a single node.
        let r = if t < self.level(lo) && t < self.level(hi) {
            self.mk(t, lo, hi)
        } else {
            let var = self.mk(t, FALSE, TRUE);
            self.ite(var, hi, lo, depth + 1)
        };
        self.cache.put(Op::Rename, f, map, 0, r);
        r
    }
}

impl Manager {
    /// The cofactor of `f` for the given literals; when a variable is given
    /// twice with conflicting values, its first value counts.
    pub(super) fn restrict_lits(&mut self, f: Id, lits: &[(BddVar, bool)]) -> Id {
        let c = self.cube(lits);
        if c != FALSE {
            return self.restrict(f, c, 0);
        }
        let mut seen = Vec::new();
        let firsts: Vec<(BddVar, bool)> = lits
            .iter()
            .filter(|(v, _)| {
                let new = !seen.contains(v);
                seen.push(*v);
                new
            })
            .copied()
            .collect();
        let c = self.cube(&firsts);
        self.restrict(f, c, 0)
    }
}
