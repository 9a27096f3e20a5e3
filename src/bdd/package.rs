//! What a BDD package provides to hindsight: a space of variables
//! ([`BddSpace`], the package's manager), which owns its functions and
//! hands out their numbers ([`Bdd`]).
//!
//! These are the operations the monitoring algorithm needs, and no more.
//! Operations that build take the space by `&mut`; a walk down one path
//! (evaluation, one model) takes it by `&`, and so do the constants;
//! walks over a whole function (size, support, constancy under a partial
//! assignment) take `&mut` for the space's scratch marks. Each package
//! implements the trait; the conformance suite (`conformance.rs`) is
//! written once against it and run for every package.

use std::fmt;

use super::{Bdd, BddVar, Renaming, Roots, VarSet};

/// A universe of BDD variables of one package, owning every function built
/// in it.
pub trait BddSpace: fmt::Debug + Sized {
    /// The package's name (as in [`Package`](super::Package)'s `Display`).
    const NAME: &'static str;

    /// A space of `num_vars` variables, ordered by index (0 at the top).
    fn new(num_vars: usize) -> Self;

    /// Number of variables.
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn num_vars(&self) -> usize;

    /// Nodes held in the space, and collections so far.
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn table_stats(&self) -> (usize, u64);

    /// Makes the space's tables grow in smaller steps: less memory for a
    /// little more time (a rehash or a cache miss more often). For a process
    /// that runs several monitors at once. Nothing for a package without
    /// tables of its own.
    fn save_memory(&mut self) {}

    /// Whether the space has grown enough since the last collection for a
    /// new one to be worth it (it has at least doubled).
    fn collection_due(&self) -> bool;

    /// Reclaims every function that `list` does not keep ([`Roots::keep`])
    /// and that no kept one reaches. Every number of this space not listed
    /// is void afterwards (in a debug build, using one panics). Prepared
    /// sets and renamings are kept for good.
    fn collect(&mut self, list: impl FnOnce(&mut Roots));

    /// [`collect`](Self::collect) if it is [due](Self::collection_due);
    /// returns whether it ran.
    #[inline]
    fn collect_if_due(&mut self, list: impl FnOnce(&mut Roots)) -> bool {
        let due = self.collection_due();
        if due {
            self.collect(list);
        }
        due
    }

    /// The constant true function.
    fn tt(&self) -> Bdd;

    /// The constant false function.
    fn ff(&self) -> Bdd;

    /// The constant `value`.
    #[inline]
    fn constant(&self, value: bool) -> Bdd {
        if value { self.tt() } else { self.ff() }
    }

    /// The literal `var = value`.
    fn lit(&mut self, var: BddVar, value: bool) -> Bdd {
        self.cube(&[(var, value)])
    }

    /// The conjunction of the given literals (a cube); false if two of them
    /// conflict.
    fn cube(&mut self, lits: &[(BddVar, bool)]) -> Bdd;

    /// A set of variables to quantify over, prepared once for many
    /// operations (the space keeps it for good; the same set twice is one).
    fn var_set(&mut self, vars: &[BddVar]) -> VarSet;

    /// A simultaneous substitution (see [`rename`](Self::rename)), prepared
    /// once for many operations (kept for good, like a [`VarSet`]).
    fn renaming(&mut self, pairs: &[(BddVar, BddVar)]) -> Renaming;

    /// `a ∧ b`
    fn and(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `a ∨ b`
    fn or(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `¬a`
    fn not(&mut self, a: Bdd) -> Bdd;
    /// `a → b`
    fn imp(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `a ↔ b`
    fn iff(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `a ⊕ b`
    fn xor(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `a ∧ ¬b`
    fn and_not(&mut self, a: Bdd, b: Bdd) -> Bdd;
    /// `if cond then then_ else else_`
    fn ite(&mut self, cond: Bdd, then_: Bdd, else_: Bdd) -> Bdd;

    /// `∃ vars . f`
    fn exists(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd;
    /// `∀ vars . f`
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn forall(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd;
    /// `∃ vars . f` for a prepared set.
    fn exists_in(&mut self, f: Bdd, vars: VarSet) -> Bdd;
    /// `∀ vars . f` for a prepared set.
    fn forall_in(&mut self, f: Bdd, vars: VarSet) -> Bdd;
    /// `∃ vars . (f ∧ g)`, in one pass.
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn and_exists(&mut self, f: Bdd, g: Bdd, vars: &[BddVar]) -> Bdd;
    /// `∃ vars . (f ∧ g)` for a prepared set.
    fn and_exists_in(&mut self, f: Bdd, g: Bdd, vars: VarSet) -> Bdd;

    /// The cofactor of `f` with the given variables fixed; the result no
    /// longer depends on them. When a variable is given twice, its first
    /// value counts.
    fn restrict(&mut self, f: Bdd, lits: &[(BddVar, bool)]) -> Bdd;

    /// `g ∨ (f|lits ∧ cube)`: `f` restricted at `lits` (as by
    /// [`restrict`](Self::restrict)), conjoined with the cube of `cube`
    /// (false if it has conflicting literals), added to `g`. A package may
    /// do it in one walk, without building the cofactor or the product.
    fn or_cofactor(
        &mut self,
        g: Bdd,
        f: Bdd,
        lits: &[(BddVar, bool)],
        cube: &[(BddVar, bool)],
    ) -> Bdd {
        let restricted = self.restrict(f, lits);
        let cube = self.cube(cube);
        let part = self.and(restricted, cube);
        self.or(g, part)
    }

    /// `f ∧ cube(lits)` (false if `lits` conflict). A package may do it in
    /// one walk down `f` along the literals, without building the cube;
    /// `None` when such a walk meets more than `budget` nodes of `f` whose
    /// children it both visits (the caller then builds the cube and the
    /// conjunction: a walk's results last one call, where the conjunction's
    /// stay in the operation cache, and on a large `f` the cubes of
    /// successive calls share their lower literals).
    fn and_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd> {
        let _ = budget;
        let cube = self.cube(lits);
        Some(self.and(f, cube))
    }

    /// `f ∨ cube(lits)` when `add`, else `f ∧ ¬cube(lits)`: `f` with the
    /// assignments of the cube added or removed (`f` itself if `lits`
    /// conflict). A package may do it in one walk down `f` along the
    /// literals, without building the cube; `None` when `f` tests, above
    /// the last literal, a variable that no literal fixes (the caller then
    /// builds the cube and the connective).
    fn edit_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], add: bool) -> Option<Bdd> {
        let cube = self.cube(lits);
        Some(if add {
            self.or(f, cube)
        } else {
            self.and_not(f, cube)
        })
    }

    /// [`restrict`](Self::restrict) by `lits`. A package may do it in one
    /// walk down `f` along the literals, without building their cube or
    /// consulting its cache; `None` when such a walk meets more than
    /// `budget` nodes of `f` whose children it both visits, or when the
    /// literals conflict (the caller then restricts).
    fn cofactor_walk(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd> {
        let _ = budget;
        Some(self.restrict(f, lits))
    }

    /// Whether `f ∧ cube(lits) ⊆ g`. A package may decide it in one walk
    /// down `f` and `g` along the literals that builds nothing; `None`
    /// when such a walk meets more than `budget` pairs of nodes whose
    /// children it both visits.
    fn and_cube_within(
        &mut self,
        f: Bdd,
        lits: &[(BddVar, bool)],
        g: Bdd,
        budget: usize,
    ) -> Option<bool> {
        let _ = budget;
        let cube = self.cube(lits);
        let part = self.and(f, cube);
        Some(self.and_not(part, g).is_false())
    }

    /// Substitutes variables of `f` simultaneously: every `from` becomes its
    /// `to`.
    ///
    /// Several variables may map to the same target, and a target may occur
    /// in `f`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn rename(&mut self, f: Bdd, pairs: &[(BddVar, BddVar)]) -> Bdd;
    /// Applies a prepared substitution.
    fn rename_by(&mut self, f: Bdd, renaming: Renaming) -> Bdd;

    /// Number of nodes of `f`, terminals included.
    fn size(&mut self, f: Bdd) -> usize;
    /// The variables `f` depends on, in order.
    fn support(&mut self, f: Bdd) -> Vec<BddVar>;
    /// Whether `f` depends on `var`.
    fn depends_on(&mut self, f: Bdd, var: BddVar) -> bool;
    /// The value of `f` under an assignment of the given variables (every
    /// other variable false; when a variable is given twice, its last value
    /// counts): a walk down one path, no new function.
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    fn eval(&self, f: Bdd, lits: &[(BddVar, bool)]) -> bool;
    /// The value of `f` under a valuation of all variables (`values[v]` for
    /// variable `v`, false beyond the end).
    fn eval_bits(&self, f: Bdd, values: &[bool]) -> bool;
    /// Whether `f` is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free).
    fn constant_under(&mut self, f: Bdd, fixed: &[Option<bool>], value: bool) -> bool;
    /// Whether the conjunction of `parts` is false everywhere once the
    /// variables with `fixed[v] = Some(b)` are fixed, where a part `(f,
    /// true)` stands for `¬f`: `constant_under` of the conjunction, which
    /// a package may answer without building it (stopping at the first
    /// satisfying path).
    fn conj_empty_under(&mut self, parts: &[(Bdd, bool)], fixed: &[Option<bool>]) -> bool {
        conj_built_empty(self, parts, fixed)
    }
    /// [`conj_empty_under`](Self::conj_empty_under) with no variable
    /// fixed, or `None` when a package that walks the parts meets more
    /// than `budget` tuples of their nodes before it knows (the caller
    /// then builds the conjunction: a walk's marks last one call, where
    /// the connectives' results stay in the operation cache).
    fn conj_empty_within(&mut self, parts: &[(Bdd, bool)], budget: usize) -> Option<bool> {
        let _ = budget;
        Some(self.conj_empty_under(parts, &[]))
    }
    /// One satisfying assignment of `f`: the values of `vars` in the
    /// lexicographically first satisfying valuation (variable 0 most
    /// significant, false before true), or `None` if unsatisfiable.
    fn pick(&self, f: Bdd, vars: &[BddVar]) -> Option<Vec<bool>>;
    /// The satisfying paths of `f`, each as the cube of the literals on it
    /// (the variables off a path are free there; the cubes are disjoint),
    /// in an order of the package's choosing: a walk over `f`'s nodes, no
    /// new function. The literals of the cubes are appended to `lits`, one
    /// cube after the other, and the end of each cube in `lits` to `ends`
    /// (both cleared first). `false` when there are more than `limit`.
    fn cubes(
        &mut self,
        f: Bdd,
        limit: usize,
        lits: &mut Vec<(BddVar, bool)>,
        ends: &mut Vec<usize>,
    ) -> bool;
}

/// [`BddSpace::conj_empty_under`] by building the conjunction: what a
/// package that does not walk its parts together answers.
pub(crate) fn conj_built_empty<S: BddSpace>(
    space: &mut S,
    parts: &[(Bdd, bool)],
    fixed: &[Option<bool>],
) -> bool {
    let mut acc = space.tt();
    for &(f, negated) in parts {
        acc = if negated {
            space.and_not(acc, f)
        } else {
            space.and(acc, f)
        };
    }
    space.constant_under(acc, fixed, false)
}
