//! The BDD layer on `biodivine-lib-bdd` (cargo feature `biodivine`).
//!
//! Each BDD is its own node array, so every operation copies its result and
//! comparing two BDDs walks them; kept to measure the shared-node package
//! against, and as a second implementation of the same interface.

use biodivine_lib_bdd as bio;

use super::{BddVar, MAX_VARS};

/// A universe of BDD variables; every [`Bdd`] of one space is built over it.
#[derive(Clone, Debug)]
pub struct Space {
    vars: bio::BddVariableSet,
}

/// A boolean function over the variables of a [`Space`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bdd(bio::Bdd);

impl Space {
    /// A space of `num_vars` variables, ordered by index (0 at the top).
    pub fn new(num_vars: usize) -> Space {
        let n = u16::try_from(num_vars.min(MAX_VARS)).unwrap_or(u16::MAX - 1);
        Space {
            vars: bio::BddVariableSet::new_anonymous(n),
        }
    }

    /// Number of variables.
    pub fn num_vars(&self) -> usize {
        self.vars.num_vars() as usize
    }

    /// A space of `num_vars` variables (this package has no shared table).
    pub fn sharing(&self, num_vars: usize) -> Space {
        Space::new(num_vars)
    }

    /// Nodes in use in the table, and collections so far: this package has
    /// no shared table, so both are 0.
    pub fn table_stats(&self) -> (usize, u64) {
        (0, 0)
    }

    /// The constant true function.
    pub fn tt(&self) -> Bdd {
        Bdd(self.vars.mk_true())
    }

    /// The constant false function.
    pub fn ff(&self) -> Bdd {
        Bdd(self.vars.mk_false())
    }

    /// The constant `value`.
    pub fn constant(&self, value: bool) -> Bdd {
        if value { self.tt() } else { self.ff() }
    }

    /// The literal `var = value`.
    pub fn lit(&self, var: BddVar, value: bool) -> Bdd {
        Bdd(self.vars.mk_literal(bio_var(var), value))
    }

    /// The conjunction of the given literals (a cube).
    pub fn cube(&self, lits: &[(BddVar, bool)]) -> Bdd {
        let partial = bio::BddPartialValuation::from_values(
            &lits
                .iter()
                .map(|&(v, b)| (bio_var(v), b))
                .collect::<Vec<_>>(),
        );
        Bdd(self.vars.mk_conjunctive_clause(&partial))
    }
}

/// A set of variables prepared by [`Space::var_set`].
#[derive(Clone, Debug)]
pub struct VarSet(Vec<bio::BddVariable>);

/// A substitution prepared by [`Space::renaming`].
#[derive(Clone, Debug)]
pub struct Renaming(Space, Vec<(BddVar, BddVar)>);

impl Space {
    /// A set of variables to quantify over, prepared once for many operations.
    pub fn var_set(&self, vars: &[BddVar]) -> VarSet {
        VarSet(bio_vars(vars))
    }

    /// A simultaneous substitution (see [`Bdd::rename`]), prepared once.
    pub fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        Renaming(self.clone(), pairs.to_vec())
    }
}

impl Bdd {
    /// `∃ vars . self` for a prepared set.
    pub fn exists_in(&self, vars: &VarSet) -> Bdd {
        if vars.0.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd(self.0.exists(&vars.0))
    }

    /// `∀ vars . self` for a prepared set.
    pub fn forall_in(&self, vars: &VarSet) -> Bdd {
        if vars.0.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd(self.0.for_all(&vars.0))
    }

    /// `∃ vars . (self ∧ other)` for a prepared set.
    pub fn and_exists_in(&self, other: &Bdd, vars: &VarSet) -> Bdd {
        Bdd(bio::Bdd::binary_op_with_exists(
            &self.0,
            &other.0,
            bio::op_function::and,
            &vars.0,
        ))
    }

    /// Applies a prepared substitution.
    pub fn rename_by(&self, renaming: &Renaming) -> Bdd {
        self.rename(&renaming.0, &renaming.1)
    }
}

impl Bdd {
    /// `self ∧ other`
    pub fn and(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.and(&other.0))
    }

    /// `self ∨ other`
    pub fn or(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.or(&other.0))
    }

    /// `¬self`
    pub fn not(&self) -> Bdd {
        Bdd(self.0.not())
    }

    /// `self → other`
    pub fn imp(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.imp(&other.0))
    }

    /// `self ↔ other`
    pub fn iff(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.iff(&other.0))
    }

    /// `self ⊕ other`
    pub fn xor(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.xor(&other.0))
    }

    /// `self ∧ ¬other`
    pub fn and_not(&self, other: &Bdd) -> Bdd {
        Bdd(self.0.and_not(&other.0))
    }

    /// `if cond then then_ else else_`
    pub fn ite(cond: &Bdd, then_: &Bdd, else_: &Bdd) -> Bdd {
        Bdd(bio::Bdd::if_then_else(&cond.0, &then_.0, &else_.0))
    }

    /// `∃ vars . self`
    pub fn exists(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd(self.0.exists(&bio_vars(vars)))
    }

    /// `∀ vars . self`
    pub fn forall(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd(self.0.for_all(&bio_vars(vars)))
    }

    /// `∃ vars . (self ∧ other)`, in one pass.
    pub fn and_exists(&self, other: &Bdd, vars: &[BddVar]) -> Bdd {
        Bdd(bio::Bdd::binary_op_with_exists(
            &self.0,
            &other.0,
            bio::op_function::and,
            &bio_vars(vars),
        ))
    }

    /// The cofactor with the given variables fixed; the result no longer depends on them.
    pub fn restrict(&self, lits: &[(BddVar, bool)]) -> Bdd {
        if lits.is_empty() || self.is_constant() {
            return self.clone();
        }
        let values: Vec<_> = lits.iter().map(|&(v, b)| (bio_var(v), b)).collect();
        Bdd(self.0.restrict(&values))
    }

    /// Substitutes variables simultaneously: every `from` becomes its `to`.
    ///
    /// Several variables may map to the same target, and a target may occur in
    /// `self`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    pub fn rename(&self, space: &Space, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.is_constant() {
            return self.clone();
        }
        let map: std::collections::HashMap<u16, u16> =
            pairs.iter().map(|&(f, t)| (f.0, t.0)).collect();
        let mut nodes = self.0.clone().to_nodes();
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
                return Bdd(bdd);
            }
        }
        self.rebuild(space, &map)
    }

    /// General renaming: rebuilds the function node by node with if-then-else.
    fn rebuild(&self, space: &Space, map: &std::collections::HashMap<u16, u16>) -> Bdd {
        let bdd = &self.0;
        let n = bdd.size();
        let mut done: Vec<Option<bio::Bdd>> = vec![None; n];
        done[0] = Some(space.ff().0);
        if n > 1 {
            done[1] = Some(space.tt().0);
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
                    let lit = space.lit(BddVar(t), true).0;
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
        Bdd(done[root].take().unwrap_or_else(|| space.ff().0))
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        self.0.size()
    }

    /// Whether this is the constant true.
    pub fn is_true(&self) -> bool {
        self.0.is_true()
    }

    /// Whether this is the constant false.
    pub fn is_false(&self) -> bool {
        self.0.is_false()
    }

    /// Whether this is a constant.
    pub fn is_constant(&self) -> bool {
        self.0.size() <= 2
    }

    /// The constant value, if this is a constant.
    pub fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    /// The variables the function depends on, in order.
    pub fn support(&self) -> Vec<BddVar> {
        let mut vars: Vec<BddVar> = self
            .0
            .support_set()
            .into_iter()
            .map(|v| BddVar(v.to_index() as u16))
            .collect();
        vars.sort_unstable();
        vars
    }

    /// Whether the function depends on `var`.
    pub fn depends_on(&self, var: BddVar) -> bool {
        self.0.support_set_contains(&bio_var(var))
    }

    /// The value of the function under an assignment of the given variables
    /// (every other variable false): a walk down one path, no new BDD.
    pub fn eval(&self, lits: &[(BddVar, bool)]) -> bool {
        let mut valuation = bio::BddValuation::all_false(self.0.num_vars());
        for &(v, b) in lits {
            valuation.set_value(bio_var(v), b);
        }
        self.0.eval_in(&valuation)
    }

    /// The value of the function under a valuation of all variables
    /// (`values[v]` for variable `v`, false beyond the end).
    pub fn eval_bits(&self, values: &[bool]) -> bool {
        let mut valuation = bio::BddValuation::all_false(self.0.num_vars());
        for (v, &b) in values.iter().enumerate().take(self.0.num_vars() as usize) {
            valuation.set_value(bio_var(BddVar(v as u16)), b);
        }
        self.0.eval_in(&valuation)
    }

    /// Whether the function is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free).
    pub fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool {
        let lits: Vec<(BddVar, bool)> = fixed
            .iter()
            .enumerate()
            .filter_map(|(v, b)| b.map(|b| (BddVar(v as u16), b)))
            .collect();
        let r = self.restrict(&lits);
        if value { r.is_true() } else { r.is_false() }
    }

    /// One satisfying assignment: the values of `vars` in the lexicographically
    /// first satisfying valuation (deterministic), or `None` if unsatisfiable.
    pub fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>> {
        let valuation = self.0.first_valuation()?;
        Some(vars.iter().map(|v| valuation.value(bio_var(*v))).collect())
    }
}

fn bio_var(v: BddVar) -> bio::BddVariable {
    bio::BddVariable::from_index(v.0 as usize)
}

fn bio_vars(vars: &[BddVar]) -> Vec<bio::BddVariable> {
    vars.iter().map(|&v| bio_var(v)).collect()
}
