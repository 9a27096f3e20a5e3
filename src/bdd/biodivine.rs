//! The BDD layer on `biodivine-lib-bdd`.
//!
//! Each BDD is its own node array, so every operation copies its result and
//! comparing two BDDs walks them; kept to measure the shared-node package
//! against, and as a second implementation of the same interface.

use biodivine_lib_bdd as bio;

use super::{BddFunction, BddSpace, BddVar, MAX_VARS};

/// A universe of BDD variables; every [`Bdd`] of one space is built over it.
#[derive(Clone, Debug)]
pub struct Space {
    vars: Box<bio::BddVariableSet>,
}

/// A boolean function over the variables of a [`Space`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bdd(Box<bio::Bdd>);

impl BddSpace for Space {
    type Bdd = Bdd;
    type VarSet = VarSet;
    type Renaming = Renaming;

    const NAME: &'static str = "biodivine";

    /// A space of `num_vars` variables, ordered by index (0 at the top).
    fn new(num_vars: usize) -> Space {
        let n = u16::try_from(num_vars.min(MAX_VARS)).unwrap_or(u16::MAX - 1);
        Space {
            vars: Box::new(bio::BddVariableSet::new_anonymous(n)),
        }
    }

    /// Number of variables.
    fn num_vars(&self) -> usize {
        self.vars.num_vars() as usize
    }

    /// A space of `num_vars` variables (this package has no shared table).
    fn sharing(&self, num_vars: usize) -> Space {
        Space::new(num_vars)
    }

    /// Nodes in use in the table, and collections so far: this package has
    /// no shared table, so both are 0.
    fn table_stats(&self) -> (usize, u64) {
        (0, 0)
    }

    /// The constant true function.
    fn tt(&self) -> Bdd {
        Bdd::of(self.vars.mk_true())
    }

    /// The constant false function.
    fn ff(&self) -> Bdd {
        Bdd::of(self.vars.mk_false())
    }

    /// The literal `var = value`.
    fn lit(&self, var: BddVar, value: bool) -> Bdd {
        Bdd::of(self.vars.mk_literal(bio_var(var), value))
    }

    /// The conjunction of the given literals (a cube).
    fn cube(&self, lits: &[(BddVar, bool)]) -> Bdd {
        let values = first_values(lits);
        if values.len() < lits.len() && conflicting(lits) {
            return self.ff();
        }
        let partial = bio::BddPartialValuation::from_values(&values);
        Bdd::of(self.vars.mk_conjunctive_clause(&partial))
    }

    fn var_set(&self, vars: &[BddVar]) -> VarSet {
        VarSet(bio_vars(vars))
    }

    fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        Renaming(self.clone(), pairs.to_vec())
    }
}

/// A set of variables prepared by [`BddSpace::var_set`].
#[derive(Clone, Debug)]
pub struct VarSet(Vec<bio::BddVariable>);

/// A substitution prepared by [`BddSpace::renaming`].
#[derive(Clone, Debug)]
pub struct Renaming(Space, Vec<(BddVar, BddVar)>);

impl BddFunction for Bdd {
    type Space = Space;

    /// `∃ vars . self` for a prepared set.
    fn exists_in(&self, vars: &VarSet) -> Bdd {
        if vars.0.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd::of(self.0.exists(&vars.0))
    }

    /// `∀ vars . self` for a prepared set.
    fn forall_in(&self, vars: &VarSet) -> Bdd {
        if vars.0.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd::of(self.0.for_all(&vars.0))
    }

    /// `∃ vars . (self ∧ other)` for a prepared set.
    fn and_exists_in(&self, other: &Bdd, vars: &VarSet) -> Bdd {
        Bdd::of(bio::Bdd::binary_op_with_exists(
            &self.0,
            &other.0,
            bio::op_function::and,
            &vars.0,
        ))
    }

    /// Applies a prepared substitution.
    fn rename_by(&self, renaming: &Renaming) -> Bdd {
        self.rename(&renaming.0, &renaming.1)
    }

    /// `self ∧ other`
    fn and(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.and(&other.0))
    }

    /// `self ∨ other`
    fn or(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.or(&other.0))
    }

    /// `¬self`
    fn not(&self) -> Bdd {
        Bdd::of(self.0.not())
    }

    /// `self → other`
    fn imp(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.imp(&other.0))
    }

    /// `self ↔ other`
    fn iff(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.iff(&other.0))
    }

    /// `self ⊕ other`
    fn xor(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.xor(&other.0))
    }

    /// `self ∧ ¬other`
    fn and_not(&self, other: &Bdd) -> Bdd {
        Bdd::of(self.0.and_not(&other.0))
    }

    /// `if cond then then_ else else_`
    fn ite(cond: &Bdd, then_: &Bdd, else_: &Bdd) -> Bdd {
        Bdd::of(bio::Bdd::if_then_else(&cond.0, &then_.0, &else_.0))
    }

    /// `∃ vars . self`
    fn exists(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd::of(self.0.exists(&bio_vars(vars)))
    }

    /// `∀ vars . self`
    fn forall(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd::of(self.0.for_all(&bio_vars(vars)))
    }

    /// `∃ vars . (self ∧ other)`, in one pass.
    fn and_exists(&self, other: &Bdd, vars: &[BddVar]) -> Bdd {
        Bdd::of(bio::Bdd::binary_op_with_exists(
            &self.0,
            &other.0,
            bio::op_function::and,
            &bio_vars(vars),
        ))
    }

    /// The cofactor with the given variables fixed; the result no longer depends on them.
    fn restrict(&self, lits: &[(BddVar, bool)]) -> Bdd {
        if lits.is_empty() || self.is_constant() {
            return self.clone();
        }
        Bdd::of(self.0.restrict(&first_values(lits)))
    }

    /// Substitutes variables simultaneously: every `from` becomes its `to`.
    ///
    /// Several variables may map to the same target, and a target may occur in
    /// `self`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    fn rename(&self, space: &Space, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.is_constant() {
            return self.clone();
        }
        let map: std::collections::HashMap<u16, u16> =
            pairs.iter().map(|&(f, t)| (f.0, t.0)).collect();
        let mut nodes = (*self.0).clone().to_nodes();
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
                return Bdd::of(bdd);
            }
        }
        self.rebuild(space, &map)
    }

    /// Number of nodes: the package's array holds both terminals even for
    /// the constant true, which is one node, as in the shared package.
    fn size(&self) -> usize {
        if self.is_constant() { 1 } else { self.0.size() }
    }

    /// Whether this is the constant true.
    fn is_true(&self) -> bool {
        self.0.is_true()
    }

    /// Whether this is the constant false.
    fn is_false(&self) -> bool {
        self.0.is_false()
    }

    /// Whether this is a constant.
    fn is_constant(&self) -> bool {
        self.0.size() <= 2
    }

    /// The constant value, if this is a constant.
    fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    /// The variables the function depends on, in order.
    fn support(&self) -> Vec<BddVar> {
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
    fn depends_on(&self, var: BddVar) -> bool {
        self.0.support_set_contains(&bio_var(var))
    }

    /// The value of the function under an assignment of the given variables
    /// (every other variable false): a walk down one path, no new BDD.
    fn eval(&self, lits: &[(BddVar, bool)]) -> bool {
        let mut valuation = bio::BddValuation::all_false(self.0.num_vars());
        for &(v, b) in lits {
            valuation.set_value(bio_var(v), b);
        }
        self.0.eval_in(&valuation)
    }

    /// The value of the function under a valuation of all variables
    /// (`values[v]` for variable `v`, false beyond the end).
    fn eval_bits(&self, values: &[bool]) -> bool {
        let mut valuation = bio::BddValuation::all_false(self.0.num_vars());
        for (v, &b) in values.iter().enumerate().take(self.0.num_vars() as usize) {
            valuation.set_value(bio_var(BddVar(v as u16)), b);
        }
        self.0.eval_in(&valuation)
    }

    /// Whether the function is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free).
    fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool {
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
    fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>> {
        let valuation = self.0.first_valuation()?;
        Some(vars.iter().map(|v| valuation.value(bio_var(*v))).collect())
    }
}

impl Bdd {
    /// A handle on `bdd` (boxed, so that the public handle is as small as
    /// the shared package's).
    fn of(bdd: bio::Bdd) -> Bdd {
        Bdd(Box::new(bdd))
    }

    /// General renaming: rebuilds the function node by node with if-then-else.
    fn rebuild(&self, space: &Space, map: &std::collections::HashMap<u16, u16>) -> Bdd {
        let bdd = &self.0;
        let n = bdd.size();
        let mut done: Vec<Option<bio::Bdd>> = vec![None; n];
        done[0] = Some(*space.ff().0);
        if n > 1 {
            done[1] = Some(*space.tt().0);
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
                    let lit = *space.lit(BddVar(t), true).0;
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
        Bdd::of(done[root].take().unwrap_or_else(|| *space.ff().0))
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
