//! The package's [`Space`]: the node table it owns, and its implementation
//! of [`BddSpace`] over node numbers.
//!
//! An operation runs on the table from start to end; a collection runs only
//! when the owner calls for it with its roots, so no node of a running
//! operation is ever reclaimed.

use std::fmt;

use super::apply::decided;
use super::cache::Op;
use super::node::{Id, TRUE};
use super::cofactor::Memo;
use super::table::Manager;
use crate::bdd::id::Stamp;
use crate::bdd::{Bdd, BddSpace, BddVar, MAX_VARS, Renaming, Roots, VarSet};

/// A universe of BDD variables: one node table, which every function built
/// in it shares.
#[derive(Clone)]
pub struct Space {
    num_vars: usize,
    pub(super) m: Manager,
    stamp: Stamp,
    /// Scratch of [`BddSpace::or_cofactor`].
    cofactor_memo: Memo,
    /// Scratch of [`BddSpace::and_cube`]: its literals, the top one first.
    top_first: Vec<(u16, bool)>,
    /// Scratch of [`BddSpace::edit_cube`]: the walk's path.
    edit_path: Vec<(u16, bool, Id)>,
}

impl fmt::Debug for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Space")
            .field("num_vars", &self.num_vars)
            .field("live_nodes", &self.m.live_nodes())
            .finish()
    }
}

impl Space {
    /// The node of `f`.
    #[inline(always)]
    fn id(&self, f: Bdd) -> Id {
        self.stamp.open(f)
    }

    /// The function of node `id`.
    #[inline(always)]
    fn bdd(&self, id: Id) -> Bdd {
        self.stamp.seal(id)
    }

    #[inline]
    fn binary(&mut self, op: Op, a: Bdd, b: Bdd) -> Bdd {
        let (a, b) = (self.id(a), self.id(b));
        // A constant or repeated operand decides most operations of the
        // monitor (an atom that did not match is false): no table work.
        let r = match decided(op, a, b) {
            Some(r) => r,
            None => self.m.apply(op, a, b, 0),
        };
        self.bdd(r)
    }

    /// The cube of a prepared set.
    #[inline]
    fn set_cube(&self, vars: VarSet) -> Id {
        self.m.set_cubes[self.stamp.open_var_set(vars)]
    }

    /// `∃`/`∀` (`forall`) the positive cube `cube` `. f`.
    fn quantify(&mut self, f: Bdd, cube: Id, forall: bool) -> Bdd {
        let f = self.id(f);
        let r = self.m.quantify(f, cube, forall, 0);
        self.bdd(r)
    }
}

impl BddSpace for Space {
    const NAME: &'static str = "shared";

    fn new(num_vars: usize) -> Space {
        Space {
            num_vars: num_vars.min(MAX_VARS),
            m: Manager::new(),
            stamp: Stamp::new(),
            cofactor_memo: Memo::default(),
            top_first: Vec::new(),
            edit_path: Vec::new(),
        }
    }

    fn num_vars(&self) -> usize {
        self.num_vars
    }

    fn table_stats(&self) -> (usize, u64) {
        (self.m.live_nodes(), self.m.collections)
    }

    fn save_memory(&mut self) {
        self.m.save_memory();
    }

    #[inline]
    fn collection_due(&self) -> bool {
        self.m.collection_due()
    }

    fn collect(&mut self, list: impl FnOnce(&mut Roots)) {
        let mut roots = self.stamp.roots();
        list(&mut roots);
        self.m.collect(roots.ids());
        self.stamp.next_generation();
    }

    #[inline]
    fn tt(&self) -> Bdd {
        self.bdd(TRUE)
    }

    #[inline]
    fn ff(&self) -> Bdd {
        self.bdd(super::node::FALSE)
    }

    fn cube(&mut self, lits: &[(BddVar, bool)]) -> Bdd {
        let id = self.m.cube(lits);
        self.bdd(id)
    }

    fn var_set(&mut self, vars: &[BddVar]) -> VarSet {
        let index = self.m.intern_set(vars);
        self.stamp.var_set(index)
    }

    /// Its results are cached across operations.
    fn renaming(&mut self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        let index = self.m.intern_map(pairs);
        self.stamp.renaming(index)
    }

    #[inline]
    fn and(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::And, a, b)
    }

    #[inline]
    fn or(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::Or, a, b)
    }

    fn not(&mut self, a: Bdd) -> Bdd {
        let a = self.id(a);
        let r = self.m.not(a, 0);
        self.bdd(r)
    }

    #[inline]
    fn imp(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::Imp, a, b)
    }

    #[inline]
    fn iff(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::Iff, a, b)
    }

    #[inline]
    fn xor(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::Xor, a, b)
    }

    #[inline]
    fn and_not(&mut self, a: Bdd, b: Bdd) -> Bdd {
        self.binary(Op::AndNot, a, b)
    }

    fn ite(&mut self, cond: Bdd, then_: Bdd, else_: Bdd) -> Bdd {
        let (c, t, e) = (self.id(cond), self.id(then_), self.id(else_));
        let r = self.m.ite(c, t, e, 0);
        self.bdd(r)
    }

    fn exists(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.id(f) <= TRUE {
            return f;
        }
        let cube = self.m.positive_cube(vars);
        self.quantify(f, cube, false)
    }

    fn forall(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.id(f) <= TRUE {
            return f;
        }
        let cube = self.m.positive_cube(vars);
        self.quantify(f, cube, true)
    }

    fn exists_in(&mut self, f: Bdd, vars: VarSet) -> Bdd {
        let cube = self.set_cube(vars);
        self.quantify(f, cube, false)
    }

    fn forall_in(&mut self, f: Bdd, vars: VarSet) -> Bdd {
        let cube = self.set_cube(vars);
        self.quantify(f, cube, true)
    }

    fn and_exists(&mut self, f: Bdd, g: Bdd, vars: &[BddVar]) -> Bdd {
        let (f, g) = (self.id(f), self.id(g));
        let cube = self.m.positive_cube(vars);
        let r = self.m.and_exists(f, g, cube, 0);
        self.bdd(r)
    }

    fn and_exists_in(&mut self, f: Bdd, g: Bdd, vars: VarSet) -> Bdd {
        let (f, g) = (self.id(f), self.id(g));
        let cube = self.set_cube(vars);
        let r = self.m.and_exists(f, g, cube, 0);
        self.bdd(r)
    }

    fn restrict(&mut self, f: Bdd, lits: &[(BddVar, bool)]) -> Bdd {
        let id = self.id(f);
        if lits.is_empty() || id <= TRUE {
            return f;
        }
        let r = self.m.restrict_lits(id, lits);
        self.bdd(r)
    }

    fn or_cofactor(
        &mut self,
        g: Bdd,
        f: Bdd,
        lits: &[(BddVar, bool)],
        cube: &[(BddVar, bool)],
    ) -> Bdd {
        let (g, f) = (self.id(g), self.id(f));
        let c = self.m.restriction_cube(lits);
        let k = self.m.cube(cube);
        let r = self.m.or_cofactor(g, f, c, k, &mut self.cofactor_memo);
        self.bdd(r)
    }

    fn and_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd> {
        let f = self.id(f);
        let (top, conflict) = self.top_first(lits);
        let r = if conflict {
            // Conflicting literals: the cube is false.
            Some(super::node::FALSE)
        } else {
            self.m.and_cube(f, &top, budget, &mut self.cofactor_memo)
        };
        self.top_first = top;
        r.map(|r| self.bdd(r))
    }

    fn edit_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], add: bool) -> Option<Bdd> {
        let id = self.id(f);
        let mut path = std::mem::take(&mut self.edit_path);
        // Codes come bit by bit in one direction: walked as they are.
        let r = if lits.windows(2).all(|w| w[0].0 > w[1].0) {
            let top_first = lits.iter().rev().map(|&(v, b)| (v.0, b));
            self.m.edit_cube(id, top_first, add, &mut path)
        } else if lits.windows(2).all(|w| w[0].0 < w[1].0) {
            let top_first = lits.iter().map(|&(v, b)| (v.0, b));
            self.m.edit_cube(id, top_first, add, &mut path)
        } else {
            let (top, conflict) = self.top_first(lits);
            // Conflicting literals: the cube is false, `f` stays.
            let r = if conflict {
                Some(id)
            } else {
                self.m.edit_cube(id, top.iter().copied(), add, &mut path)
            };
            self.top_first = top;
            r
        };
        self.edit_path = path;
        r.map(|r| self.bdd(r))
    }

    fn cofactor_walk(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd> {
        let f = self.id(f);
        let (top, conflict) = self.top_first(lits);
        let r = if conflict {
            // Conflicting literals: the first value counts, as in `restrict`.
            None
        } else {
            self.m.cofactor_walk(f, &top, budget, &mut self.cofactor_memo)
        };
        self.top_first = top;
        r.map(|r| self.bdd(r))
    }

    fn and_cube_within(
        &mut self,
        f: Bdd,
        lits: &[(BddVar, bool)],
        g: Bdd,
        budget: usize,
    ) -> Option<bool> {
        let (f, g) = (self.id(f), self.id(g));
        let (top, conflict) = self.top_first(lits);
        let r = if conflict {
            Some(true)
        } else {
            self.m.and_cube_within(f, &top, g, budget, &mut self.cofactor_memo)
        };
        self.top_first = top;
        r
    }

    fn rename(&mut self, f: Bdd, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.id(f) <= TRUE {
            return f;
        }
        let renaming = self.renaming(pairs);
        self.rename_by(f, renaming)
    }

    fn rename_by(&mut self, f: Bdd, renaming: Renaming) -> Bdd {
        let id = self.id(f);
        let map = self.stamp.open_renaming(renaming) as Id;
        if id <= TRUE {
            return f;
        }
        let r = self.m.rename(id, map, 0);
        self.bdd(r)
    }

    fn size(&mut self, f: Bdd) -> usize {
        let f = self.id(f);
        self.m.size(f)
    }

    fn support(&mut self, f: Bdd) -> Vec<BddVar> {
        let f = self.id(f);
        self.m.support(f)
    }

    fn depends_on(&mut self, f: Bdd, var: BddVar) -> bool {
        let f = self.id(f);
        self.m.depends_on(f, var)
    }

    fn eval(&self, f: Bdd, lits: &[(BddVar, bool)]) -> bool {
        self.m.eval(self.id(f), lits)
    }

    fn eval_bits(&self, f: Bdd, values: &[bool]) -> bool {
        self.m.eval_bits(self.id(f), values)
    }

    fn constant_under(&mut self, f: Bdd, fixed: &[Option<bool>], value: bool) -> bool {
        let f = self.id(f);
        self.m.constant_under(f, fixed, value)
    }

    fn conj_empty_under(&mut self, parts: &[(Bdd, bool)], fixed: &[Option<bool>]) -> bool {
        match self.conj_walk(parts, fixed, usize::MAX) {
            Some(empty) => empty,
            // (No walk meets usize::MAX tuples.)
            None => crate::bdd::package::conj_built_empty(self, parts, fixed),
        }
    }

    fn conj_empty_within(&mut self, parts: &[(Bdd, bool)], budget: usize) -> Option<bool> {
        self.conj_walk(parts, &[], budget)
    }

    fn pick(&self, f: Bdd, vars: &[BddVar]) -> Option<Vec<bool>> {
        self.m.pick(self.id(f), vars)
    }

    fn cubes(
        &mut self,
        f: Bdd,
        limit: usize,
        lits: &mut Vec<(BddVar, bool)>,
        ends: &mut Vec<usize>,
    ) -> bool {
        let id = self.id(f);
        self.m.cubes(id, limit, lits, ends)
    }
}

impl Space {
    /// The literals `lits` as levels, the top variable first (the scratch
    /// buffer `top_first`, to be put back).
    /// Also whether two of them give one variable opposite values (then
    /// their cube is false).
    fn top_first(&mut self, lits: &[(BddVar, bool)]) -> (Vec<(u16, bool)>, bool) {
        let mut top = std::mem::take(&mut self.top_first);
        top.clear();
        // Codes come bit by bit in one direction: no sorting needed then,
        // and no variable is given twice.
        if lits.windows(2).all(|w| w[0].0 > w[1].0) {
            top.extend(lits.iter().rev().map(|&(v, b)| (v.0, b)));
            return (top, false);
        }
        top.extend(lits.iter().map(|&(v, b)| (v.0, b)));
        if lits.windows(2).all(|w| w[0].0 < w[1].0) {
            return (top, false);
        }
        top.sort_unstable();
        top.dedup();
        let conflict = top.windows(2).any(|w| w[0].0 == w[1].0);
        (top, conflict)
    }

    /// [`conj_empty_under`](BddSpace::conj_empty_under) by a walk of at
    /// most `budget` tuples (`None` past it); more parts than one walk
    /// takes: the first ones conjoined first.
    fn conj_walk(
        &mut self,
        parts: &[(Bdd, bool)],
        fixed: &[Option<bool>],
        budget: usize,
    ) -> Option<bool> {
        if parts.len() > super::disjoint::MAX_PARTS {
            let split = parts.len() - super::disjoint::MAX_PARTS + 1;
            let mut acc = self.tt();
            for &(f, negated) in &parts[..split] {
                acc = if negated {
                    self.and_not(acc, f)
                } else {
                    self.and(acc, f)
                };
            }
            let mut rest = vec![(acc, false)];
            rest.extend_from_slice(&parts[split..]);
            return self.conj_walk(&rest, fixed, budget);
        }
        let mut ids = [0; super::disjoint::MAX_PARTS];
        let mut negated = [false; super::disjoint::MAX_PARTS];
        for (i, &(f, n)) in parts.iter().enumerate() {
            ids[i] = self.id(f);
            negated[i] = n;
        }
        let k = parts.len();
        self.m.conj_empty_under(&ids[..k], &negated[..k], fixed, budget)
    }
}
