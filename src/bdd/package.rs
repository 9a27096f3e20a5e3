//! What a BDD package provides to hindsight: a space of variables
//! ([`BddSpace`], the package's manager) and the functions built in it
//! ([`BddFunction`], the package's handles).
//!
//! These are the operations the monitoring algorithm needs, and no more. Each
//! package implements both traits; the conformance suite (`conformance.rs`)
//! is written once against them and run for every package.

use std::fmt;
use std::hash::Hash;

use super::BddVar;

/// A universe of BDD variables of one package, and the constructors of its
/// functions.
pub trait BddSpace: Clone + fmt::Debug + Sized {
    /// The package's functions.
    type Bdd: BddFunction<Space = Self>;
    /// A set of variables prepared once for many quantifications.
    type VarSet: Clone + fmt::Debug;
    /// A simultaneous substitution prepared once for many renamings.
    type Renaming: Clone + fmt::Debug;

    /// The package's name (as in [`Package`](super::Package)'s `Display`).
    const NAME: &'static str;

    /// A space of `num_vars` variables, ordered by index (0 at the top).
    fn new(num_vars: usize) -> Self;

    /// Number of variables.
    fn num_vars(&self) -> usize;

    /// A space of `num_vars` variables sharing this space's node table, if the
    /// package has one (its BDDs must not be combined with this space's:
    /// variables are numbered independently).
    fn sharing(&self, num_vars: usize) -> Self;

    /// Nodes in use in the shared table, and collections so far (both 0 for
    /// a package without a shared table).
    fn table_stats(&self) -> (usize, u64);

    /// Makes the space's tables grow in smaller steps: less memory for a
    /// little more time (a rehash or a cache miss more often). For a process
    /// that runs several monitors at once. Nothing for a package without
    /// tables of its own.
    fn save_memory(&self) {}

    /// The constant true function.
    fn tt(&self) -> Self::Bdd;

    /// The constant false function.
    fn ff(&self) -> Self::Bdd;

    /// The constant `value`.
    fn constant(&self, value: bool) -> Self::Bdd {
        if value { self.tt() } else { self.ff() }
    }

    /// The literal `var = value`.
    fn lit(&self, var: BddVar, value: bool) -> Self::Bdd;

    /// The conjunction of the given literals (a cube); false if two of them
    /// conflict.
    fn cube(&self, lits: &[(BddVar, bool)]) -> Self::Bdd;

    /// A set of variables to quantify over, prepared once for many operations.
    fn var_set(&self, vars: &[BddVar]) -> Self::VarSet;

    /// A simultaneous substitution (see [`BddFunction::rename`]), prepared
    /// once for many operations.
    fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Self::Renaming;
}

/// The prepared variable set of the space of `F`.
pub type VarSetOf<F> = <<F as BddFunction>::Space as BddSpace>::VarSet;
/// The prepared renaming of the space of `F`.
pub type RenamingOf<F> = <<F as BddFunction>::Space as BddSpace>::Renaming;

/// A boolean function over the variables of a space of one package.
///
/// Equality is equality of functions (of one space).
pub trait BddFunction: Clone + PartialEq + Eq + Hash + fmt::Debug + Sized {
    /// The package's space.
    type Space: BddSpace<Bdd = Self>;

    /// `self ∧ other`
    fn and(&self, other: &Self) -> Self;
    /// `self ∨ other`
    fn or(&self, other: &Self) -> Self;
    /// `¬self`
    fn not(&self) -> Self;
    /// `self → other`
    fn imp(&self, other: &Self) -> Self;
    /// `self ↔ other`
    fn iff(&self, other: &Self) -> Self;
    /// `self ⊕ other`
    fn xor(&self, other: &Self) -> Self;
    /// `self ∧ ¬other`
    fn and_not(&self, other: &Self) -> Self;
    /// `if cond then then_ else else_`
    fn ite(cond: &Self, then_: &Self, else_: &Self) -> Self;

    /// `∃ vars . self`
    fn exists(&self, vars: &[BddVar]) -> Self;
    /// `∀ vars . self`
    fn forall(&self, vars: &[BddVar]) -> Self;
    /// `∃ vars . self` for a prepared set.
    fn exists_in(&self, vars: &VarSetOf<Self>) -> Self;
    /// `∀ vars . self` for a prepared set.
    fn forall_in(&self, vars: &VarSetOf<Self>) -> Self;
    /// `∃ vars . (self ∧ other)`, in one pass.
    fn and_exists(&self, other: &Self, vars: &[BddVar]) -> Self;
    /// `∃ vars . (self ∧ other)` for a prepared set.
    fn and_exists_in(&self, other: &Self, vars: &VarSetOf<Self>) -> Self;

    /// The cofactor with the given variables fixed; the result no longer
    /// depends on them. When a variable is given twice, its first value counts.
    fn restrict(&self, lits: &[(BddVar, bool)]) -> Self;

    /// Substitutes variables simultaneously: every `from` becomes its `to`.
    ///
    /// Several variables may map to the same target, and a target may occur in
    /// `self`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    fn rename(&self, space: &Self::Space, pairs: &[(BddVar, BddVar)]) -> Self;
    /// Applies a prepared substitution.
    fn rename_by(&self, renaming: &RenamingOf<Self>) -> Self;

    /// Number of nodes, terminals included.
    fn size(&self) -> usize;
    /// Whether this is the constant true.
    fn is_true(&self) -> bool;
    /// Whether this is the constant false.
    fn is_false(&self) -> bool;
    /// Whether this is a constant.
    fn is_constant(&self) -> bool;
    /// The constant value, if this is a constant.
    fn as_bool(&self) -> Option<bool>;
    /// The variables the function depends on, in order.
    fn support(&self) -> Vec<BddVar>;
    /// Whether the function depends on `var`.
    fn depends_on(&self, var: BddVar) -> bool;
    /// The value of the function under an assignment of the given variables
    /// (every other variable false; when a variable is given twice, its last
    /// value counts): a walk down one path, no new BDD.
    fn eval(&self, lits: &[(BddVar, bool)]) -> bool;
    /// The value of the function under a valuation of all variables
    /// (`values[v]` for variable `v`, false beyond the end).
    fn eval_bits(&self, values: &[bool]) -> bool;
    /// Whether the function is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free).
    fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool;
    /// One satisfying assignment: the values of `vars` in the
    /// lexicographically first satisfying valuation (variable 0 most
    /// significant, false before true), or `None` if unsatisfiable.
    fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>>;
}
