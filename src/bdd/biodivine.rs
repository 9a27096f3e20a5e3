//! The BDD layer on `biodivine-lib-bdd`.
//!
//! Each of its BDDs is a value, its own node array, so every operation
//! copies its result and comparing two walks them; kept to measure the
//! shared-node package against, and as a second implementation of the
//! same interface.
//!
//! The [`Space`] keeps the values in an arena and hands out their indices
//! as [`Bdd`] numbers, like the shared package's node numbers: equal
//! functions get one number (the arena is indexed by function too), the
//! constants are numbers 0 and 1, and a collection drops the values its
//! roots do not list, once the arena's nodes have doubled.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use biodivine_lib_bdd as bio;
use hashbrown::{HashMap, HashTable};

use super::id::{FALSE_ID, Stamp, TRUE_ID};
use super::{Bdd, BddSpace, BddVar, MAX_VARS, Renaming, Roots, VarSet};

/// Collections start once the arena's values hold this many nodes (or
/// twice the nodes the last collection kept); with debug assertions, a few
/// dozen, as in the shared package.
const MIN_GC_NODES: usize = if cfg!(debug_assertions) {
    1 << 6
} else {
    1 << 14
};

/// A universe of BDD variables; every function of one space is built over
/// it and kept in its arena.
pub struct Space {
    vars: bio::BddVariableSet,
    /// Per number: its function (the constant false at a free number).
    arena: Vec<bio::Bdd>,
    /// The numbers not in use.
    free: Vec<u32>,
    /// The numbers in use above the constants, found by their function.
    by_function: HashTable<u32>,
    /// Nodes of the functions in the arena.
    nodes: usize,
    /// Node count that makes the next collection due.
    gc_at: usize,
    collections: u64,
    /// Prepared variable sets, and their numbers by sorted variables.
    sets: Vec<Vec<bio::BddVariable>>,
    set_numbers: HashMap<Vec<u16>, u32>,
    /// Prepared renamings, and their numbers by pairs.
    renamings: Vec<Vec<(BddVar, BddVar)>>,
    renaming_numbers: HashMap<Vec<(BddVar, BddVar)>, u32>,
    stamp: Stamp,
}

impl std::fmt::Debug for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Space")
            .field("num_vars", &self.vars.num_vars())
            .field("functions", &(self.arena.len() - self.free.len()))
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// The hash of a function (fixed keys: runs are repeatable).
fn hash_of(bdd: &bio::Bdd) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(bdd)
}

impl Space {
    /// The function numbered `f`.
    #[inline]
    fn get(&self, f: Bdd) -> &bio::Bdd {
        &self.arena[self.stamp.open(f) as usize]
    }

    /// The number of `bdd`: the one it has if the arena holds it already.
    fn put(&mut self, bdd: bio::Bdd) -> Bdd {
        if bdd.is_false() {
            return self.stamp.seal(FALSE_ID);
        }
        if bdd.is_true() {
            return self.stamp.seal(TRUE_ID);
        }
        let hash = hash_of(&bdd);
        let arena = &self.arena;
        if let Some(&id) = self.by_function.find(hash, |&i| arena[i as usize] == bdd) {
            return self.stamp.seal(id);
        }
        self.nodes += bdd.size();
        let id = match self.free.pop() {
            Some(id) => {
                self.arena[id as usize] = bdd;
                id
            }
            None => {
                self.arena.push(bdd);
                (self.arena.len() - 1) as u32
            }
        };
        let arena = &self.arena;
        self.by_function
            .insert_unique(hash, id, |&i| hash_of(&arena[i as usize]));
        self.stamp.seal(id)
    }

    /// The variables of a prepared set.
    fn set(&self, vars: VarSet) -> &[bio::BddVariable] {
        &self.sets[self.stamp.open_var_set(vars)]
    }

    /// `f` with the variables substituted by `pairs` (see
    /// [`BddSpace::rename`]), as a value.
    fn renamed(&self, f: &bio::Bdd, pairs: &[(BddVar, BddVar)]) -> bio::Bdd {
        let map: std::collections::HashMap<u16, u16> =
            pairs.iter().map(|&(f, t)| (f.0, t.0)).collect();
        let mut nodes = f.clone().to_nodes();
        // Fast path: when the renaming keeps the order of the variables that occur,
        // it is a relabelling of the nodes. `from_nodes` re-validates the order.
        let mut support: Vec<u16> = nodes
            .iter()
            .skip(2)
            .map(|n| n.var.to_index() as u16)
            .collect();
        support.sort_unstable();
        support.dedup();
        let mapped: Vec<u16> = support.iter().map(|v| *map.get(v).unwrap_or(v)).collect();
        if mapped.windows(2).all(|w| w[0] < w[1]) {
            for node in nodes.iter_mut().skip(2) {
                let v = node.var.to_index() as u16;
                if let Some(&t) = map.get(&v) {
                    node.var = bio::BddVariable::from_index(t as usize);
                }
            }
            if let Ok(bdd) = bio::Bdd::from_nodes(&nodes) {
                return bdd;
            }
        }
        self.rebuild(f, &map)
    }

    /// General renaming: rebuilds the function node by node with if-then-else.
    fn rebuild(&self, bdd: &bio::Bdd, map: &std::collections::HashMap<u16, u16>) -> bio::Bdd {
        let n = bdd.size();
        let mut done: Vec<Option<bio::Bdd>> = vec![None; n];
        done[0] = Some(self.vars.mk_false());
        if n > 1 {
            done[1] = Some(self.vars.mk_true());
        }
        let mut stack = vec![bdd.root_pointer()];
        while let Some(&p) = stack.last() {
            let i = p.to_index();
            if done[i].is_some() {
                stack.pop();
                continue;
            }
            let (lo, hi) = (bdd.low_link_of(p), bdd.high_link_of(p));
            match (&done[lo.to_index()], &done[hi.to_index()]) {
                (Some(l), Some(h)) => {
                    let v = bdd.var_of(p).to_index() as u16;
                    let t = *map.get(&v).unwrap_or(&v);
                    let lit = self.vars.mk_literal(bio_var(BddVar(t)), true);
                    done[i] = Some(bio::Bdd::if_then_else(&lit, h, l));
                    stack.pop();
                }
                (l, h) => {
                    if h.is_none() {
                        stack.push(hi);
                    }
                    if l.is_none() {
                        stack.push(lo);
                    }
                }
            }
        }
        let root = bdd.root_pointer().to_index();
        done[root].take().unwrap_or_else(|| self.vars.mk_false())
    }
}

impl BddSpace for Space {
    const NAME: &'static str = "biodivine";

    /// A space of `num_vars` variables, ordered by index (0 at the top).
    fn new(num_vars: usize) -> Space {
        let n = u16::try_from(num_vars.min(MAX_VARS)).unwrap_or(u16::MAX - 1);
        let vars = bio::BddVariableSet::new_anonymous(n);
        Space {
            arena: vec![vars.mk_false(), vars.mk_true()],
            vars,
            free: Vec::new(),
            by_function: HashTable::new(),
            nodes: 0,
            gc_at: MIN_GC_NODES,
            collections: 0,
            sets: Vec::new(),
            set_numbers: HashMap::new(),
            renamings: Vec::new(),
            renaming_numbers: HashMap::new(),
            stamp: Stamp::new(),
        }
    }

    fn num_vars(&self) -> usize {
        self.vars.num_vars() as usize
    }

    /// Nodes of the functions in the arena (constants left out), and
    /// collections so far.
    fn table_stats(&self) -> (usize, u64) {
        (self.nodes, self.collections)
    }

    fn collection_due(&self) -> bool {
        self.nodes >= self.gc_at
    }

    fn collect(&mut self, list: impl FnOnce(&mut Roots)) {
        let mut roots = self.stamp.roots();
        list(&mut roots);
        let mut marked = vec![false; self.arena.len()];
        for &id in roots.ids() {
            marked[id as usize] = true;
        }
        self.by_function.retain(|&mut id| marked[id as usize]);
        self.free.clear();
        for (id, &kept) in marked.iter().enumerate().skip(2) {
            if !kept {
                // A free number holds the constant false, which no other
                // number above the constants does.
                if !self.arena[id].is_false() {
                    self.nodes -= self.arena[id].size();
                    self.arena[id] = self.vars.mk_false();
                }
                self.free.push(id as u32);
            }
        }
        // Reuse low numbers first: they are popped from the end.
        self.free.reverse();
        self.collections += 1;
        self.gc_at = (2 * self.nodes).max(MIN_GC_NODES);
        self.stamp.next_generation();
    }

    fn tt(&self) -> Bdd {
        self.stamp.seal(TRUE_ID)
    }

    fn ff(&self) -> Bdd {
        self.stamp.seal(FALSE_ID)
    }

    fn lit(&mut self, var: BddVar, value: bool) -> Bdd {
        let bdd = self.vars.mk_literal(bio_var(var), value);
        self.put(bdd)
    }

    /// The conjunction of the given literals (a cube).
    fn cube(&mut self, lits: &[(BddVar, bool)]) -> Bdd {
        let values = first_values(lits);
        if values.len() < lits.len() && conflicting(lits) {
            return self.ff();
        }
        let partial = bio::BddPartialValuation::from_values(&values);
        let bdd = self.vars.mk_conjunctive_clause(&partial);
        self.put(bdd)
    }

    fn var_set(&mut self, vars: &[BddVar]) -> VarSet {
        let mut key: Vec<u16> = vars.iter().map(|v| v.0).collect();
        key.sort_unstable();
        key.dedup();
        let index = match self.set_numbers.get(&key) {
            Some(&index) => index,
            None => {
                let index = self.sets.len() as u32;
                self.sets
                    .push(key.iter().map(|&v| bio_var(BddVar(v))).collect());
                self.set_numbers.insert(key, index);
                index
            }
        };
        self.stamp.var_set(index)
    }

    fn renaming(&mut self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        let index = match self.renaming_numbers.get(pairs) {
            Some(&index) => index,
            None => {
                let index = self.renamings.len() as u32;
                self.renamings.push(pairs.to_vec());
                self.renaming_numbers.insert(pairs.to_vec(), index);
                index
            }
        };
        self.stamp.renaming(index)
    }

    fn and(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).and(self.get(b));
        self.put(r)
    }

    fn or(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).or(self.get(b));
        self.put(r)
    }

    fn not(&mut self, a: Bdd) -> Bdd {
        let r = self.get(a).not();
        self.put(r)
    }

    fn imp(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).imp(self.get(b));
        self.put(r)
    }

    fn iff(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).iff(self.get(b));
        self.put(r)
    }

    fn xor(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).xor(self.get(b));
        self.put(r)
    }

    fn and_not(&mut self, a: Bdd, b: Bdd) -> Bdd {
        let r = self.get(a).and_not(self.get(b));
        self.put(r)
    }

    fn ite(&mut self, cond: Bdd, then_: Bdd, else_: Bdd) -> Bdd {
        let r = bio::Bdd::if_then_else(self.get(cond), self.get(then_), self.get(else_));
        self.put(r)
    }

    fn exists(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.get(f).size() <= 2 {
            return f;
        }
        let r = self.get(f).exists(&bio_vars(vars));
        self.put(r)
    }

    fn forall(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.get(f).size() <= 2 {
            return f;
        }
        let r = self.get(f).for_all(&bio_vars(vars));
        self.put(r)
    }

    fn exists_in(&mut self, f: Bdd, vars: VarSet) -> Bdd {
        let set = self.set(vars);
        if set.is_empty() || f.is_constant() {
            return f;
        }
        let r = self.get(f).exists(set);
        self.put(r)
    }

    fn forall_in(&mut self, f: Bdd, vars: VarSet) -> Bdd {
        let set = self.set(vars);
        if set.is_empty() || f.is_constant() {
            return f;
        }
        let r = self.get(f).for_all(set);
        self.put(r)
    }

    fn and_exists(&mut self, f: Bdd, g: Bdd, vars: &[BddVar]) -> Bdd {
        let (f, g) = (self.get(f), self.get(g));
        let r = bio::Bdd::binary_op_with_exists(f, g, bio::op_function::and, &bio_vars(vars));
        self.put(r)
    }

    fn and_exists_in(&mut self, f: Bdd, g: Bdd, vars: VarSet) -> Bdd {
        let (f, g, set) = (self.get(f), self.get(g), self.set(vars));
        let r = bio::Bdd::binary_op_with_exists(f, g, bio::op_function::and, set);
        self.put(r)
    }

    fn restrict(&mut self, f: Bdd, lits: &[(BddVar, bool)]) -> Bdd {
        if lits.is_empty() || self.get(f).size() <= 2 {
            return f;
        }
        let r = self.get(f).restrict(&first_values(lits));
        self.put(r)
    }

    fn rename(&mut self, f: Bdd, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.get(f).size() <= 2 {
            return f;
        }
        let r = self.renamed(self.get(f), pairs);
        self.put(r)
    }

    fn rename_by(&mut self, f: Bdd, renaming: Renaming) -> Bdd {
        let index = self.stamp.open_renaming(renaming);
        if self.get(f).size() <= 2 {
            return f;
        }
        let r = self.renamed(self.get(f), &self.renamings[index]);
        self.put(r)
    }

    /// Number of nodes: the package's array holds both terminals even for
    /// the constant true, which is one node, as in the shared package.
    fn size(&mut self, f: Bdd) -> usize {
        let bdd = self.get(f);
        if f.is_constant() { 1 } else { bdd.size() }
    }

    fn support(&mut self, f: Bdd) -> Vec<BddVar> {
        let mut vars: Vec<BddVar> = (self.get(f).support_set().into_iter())
            .map(|v| BddVar(v.to_index() as u16))
            .collect();
        vars.sort_unstable();
        vars
    }

    fn depends_on(&mut self, f: Bdd, var: BddVar) -> bool {
        self.get(f).support_set_contains(&bio_var(var))
    }

    fn eval(&self, f: Bdd, lits: &[(BddVar, bool)]) -> bool {
        let bdd = self.get(f);
        let mut valuation = bio::BddValuation::all_false(bdd.num_vars());
        for &(v, b) in lits {
            valuation.set_value(bio_var(v), b);
        }
        bdd.eval_in(&valuation)
    }

    fn eval_bits(&self, f: Bdd, values: &[bool]) -> bool {
        let bdd = self.get(f);
        let mut valuation = bio::BddValuation::all_false(bdd.num_vars());
        for (v, &b) in values.iter().enumerate().take(bdd.num_vars() as usize) {
            valuation.set_value(bio_var(BddVar(v as u16)), b);
        }
        bdd.eval_in(&valuation)
    }

    fn constant_under(&mut self, f: Bdd, fixed: &[Option<bool>], value: bool) -> bool {
        let bdd = self.get(f);
        let values: Vec<(bio::BddVariable, bool)> = (fixed.iter().enumerate())
            .filter_map(|(v, b)| b.map(|b| (bio_var(BddVar(v as u16)), b)))
            .collect();
        let r = if values.is_empty() {
            bdd.clone()
        } else {
            bdd.restrict(&values)
        };
        if value { r.is_true() } else { r.is_false() }
    }

    fn pick(&self, f: Bdd, vars: &[BddVar]) -> Option<Vec<bool>> {
        let valuation = self.get(f).first_valuation()?;
        Some(vars.iter().map(|v| valuation.value(bio_var(*v))).collect())
    }

    fn cubes(
        &mut self,
        f: Bdd,
        limit: usize,
        lits: &mut Vec<(BddVar, bool)>,
        ends: &mut Vec<usize>,
    ) -> bool {
        lits.clear();
        ends.clear();
        for clause in self.get(f).sat_clauses() {
            if ends.len() == limit {
                return false;
            }
            let path = clause.to_values().into_iter();
            lits.extend(path.map(|(v, b)| (BddVar(v.to_index() as u16), b)));
            ends.push(lits.len());
        }
        true
    }
}

fn bio_var(v: BddVar) -> bio::BddVariable {
    bio::BddVariable::from_index(v.0 as usize)
}

/// The literals with the first value of each variable, for the package.
fn first_values(lits: &[(BddVar, bool)]) -> Vec<(bio::BddVariable, bool)> {
    let mut values: Vec<(bio::BddVariable, bool)> = Vec::with_capacity(lits.len());
    for &(v, b) in lits {
        let v = bio_var(v);
        if !values.iter().any(|&(w, _)| w == v) {
            values.push((v, b));
        }
    }
    values
}

/// Whether some variable is given both values.
fn conflicting(lits: &[(BddVar, bool)]) -> bool {
    lits.iter()
        .any(|&(v, b)| lits.iter().any(|&(w, c)| v == w && b != c))
}

fn bio_vars(vars: &[BddVar]) -> Vec<bio::BddVariable> {
    vars.iter().map(|&v| bio_var(v)).collect()
}
