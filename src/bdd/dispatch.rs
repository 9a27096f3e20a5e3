//! The public handles: [`Space`], [`Bdd`], [`VarSet`] and [`Renaming`], each
//! an enum over the packages, so that the package is chosen when a space is
//! created ([`Space::with_package`]) and every operation is one predictable
//! match followed by the package's own code.
//!
//! Combining BDDs of two packages is a bug of the caller and panics.

use std::fmt;

use super::{BddFunction, BddSpace, BddVar, Package, biodivine, shared};

/// A universe of BDD variables; every [`Bdd`] of one space is built over it.
/// Cloning a space shares its node table (for a package that has one).
#[derive(Clone)]
pub enum Space {
    /// hindsight's own shared-node package.
    Shared(shared::Space),
    /// `biodivine-lib-bdd`.
    Biodivine(biodivine::Space),
}

/// A boolean function over the variables of a [`Space`].
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Bdd {
    /// A function of the shared-node package.
    Shared(shared::Bdd),
    /// A function of `biodivine-lib-bdd`.
    Biodivine(biodivine::Bdd),
}

/// A set of variables prepared by [`Space::var_set`].
#[derive(Clone, Debug)]
pub enum VarSet {
    /// A set of the shared-node package.
    Shared(shared::VarSet),
    /// A set of `biodivine-lib-bdd`.
    Biodivine(biodivine::VarSet),
}

/// A substitution prepared by [`Space::renaming`].
#[derive(Clone, Debug)]
pub enum Renaming {
    /// A renaming of the shared-node package.
    Shared(shared::Renaming),
    /// A renaming of `biodivine-lib-bdd`.
    Biodivine(biodivine::Renaming),
}

/// The panic of an operation on handles of two packages.
#[cold]
#[inline(never)]
fn mixed() -> ! {
    panic!("BDDs of two different packages combined in one operation")
}

/// `$body` with `$x` bound to the package value of the enum `$e`, whose
/// result is wrapped back in the same variant of `$out`.
macro_rules! map {
    ($ty:ident, $e:expr, $x:ident => $body:expr, $out:ident) => {
        match $e {
            $ty::Shared($x) => $out::Shared($body),
            $ty::Biodivine($x) => $out::Biodivine($body),
        }
    };
}

/// `$body` with `$x` bound to the package value of the enum `$e`.
macro_rules! with {
    ($ty:ident, $e:expr, $x:ident => $body:expr) => {
        match $e {
            $ty::Shared($x) => $body,
            $ty::Biodivine($x) => $body,
        }
    };
}

/// `$body` with `$x` and `$y` bound to the package values of `$a` (a
/// [`Bdd`]) and `$b` (of enum `$tb`), which must be of one package; the
/// result is a [`Bdd`] of that package.
macro_rules! pair {
    ($a:expr, $tb:ident, $b:expr, ($x:ident, $y:ident) => $body:expr) => {
        match ($a, $b) {
            (Bdd::Shared($x), $tb::Shared($y)) => Bdd::Shared($body),
            (Bdd::Biodivine($x), $tb::Biodivine($y)) => Bdd::Biodivine($body),
            _ => mixed(),
        }
    };
}

impl fmt::Debug for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with!(Space, self, s => s.fmt(f))
    }
}

impl fmt::Debug for Bdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with!(Bdd, self, b => b.fmt(f))
    }
}

impl Space {
    /// A space of `num_vars` variables of the shared-node package, ordered by
    /// index (0 at the top).
    #[inline]
    pub fn new(num_vars: usize) -> Space {
        Space::Shared(shared::Space::new(num_vars))
    }

    /// A space of `num_vars` variables of `package`.
    #[inline]
    pub fn with_package(package: Package, num_vars: usize) -> Space {
        match package {
            Package::Shared => Space::Shared(shared::Space::new(num_vars)),
            Package::Biodivine => Space::Biodivine(biodivine::Space::new(num_vars)),
        }
    }

    /// The package of this space.
    #[inline]
    pub fn package(&self) -> Package {
        match self {
            Space::Shared(_) => Package::Shared,
            Space::Biodivine(_) => Package::Biodivine,
        }
    }

    /// Number of variables.
    #[inline]
    pub fn num_vars(&self) -> usize {
        with!(Space, self, s => s.num_vars())
    }

    /// A space of `num_vars` variables of the same package, sharing this
    /// space's node table if the package has one (its BDDs must not be
    /// combined with this space's: variables are numbered independently).
    #[inline]
    pub fn sharing(&self, num_vars: usize) -> Space {
        map!(Space, self, s => s.sharing(num_vars), Space)
    }

    /// Makes the space's tables grow in smaller steps: less memory for a
    /// little more time. For a process that runs several monitors at once.
    #[inline]
    pub fn save_memory(&self) {
        with!(Space, self, s => s.save_memory())
    }

    /// Nodes in use in the table, and collections so far (for statistics;
    /// both 0 for a package without a shared table).
    #[inline]
    pub fn table_stats(&self) -> (usize, u64) {
        with!(Space, self, s => s.table_stats())
    }

    /// The constant true function.
    #[inline]
    pub fn tt(&self) -> Bdd {
        map!(Space, self, s => s.tt(), Bdd)
    }

    /// The constant false function.
    #[inline]
    pub fn ff(&self) -> Bdd {
        map!(Space, self, s => s.ff(), Bdd)
    }

    /// The constant `value`.
    #[inline]
    pub fn constant(&self, value: bool) -> Bdd {
        map!(Space, self, s => s.constant(value), Bdd)
    }

    /// The literal `var = value`.
    #[inline]
    pub fn lit(&self, var: BddVar, value: bool) -> Bdd {
        map!(Space, self, s => s.lit(var, value), Bdd)
    }

    /// The conjunction of the given literals (a cube); false if two conflict.
    #[inline]
    pub fn cube(&self, lits: &[(BddVar, bool)]) -> Bdd {
        map!(Space, self, s => s.cube(lits), Bdd)
    }

    /// A set of variables to quantify over, prepared once for many operations.
    #[inline]
    pub fn var_set(&self, vars: &[BddVar]) -> VarSet {
        map!(Space, self, s => s.var_set(vars), VarSet)
    }

    /// A simultaneous substitution (see [`Bdd::rename`]), prepared once for
    /// many operations.
    #[inline]
    pub fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        map!(Space, self, s => s.renaming(pairs), Renaming)
    }
}

impl Bdd {
    /// `self ∧ other`
    #[inline]
    pub fn and(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.and(b))
    }

    /// `self ∨ other`
    #[inline]
    pub fn or(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.or(b))
    }

    /// `¬self`
    #[inline]
    pub fn not(&self) -> Bdd {
        map!(Bdd, self, a => a.not(), Bdd)
    }

    /// `self → other`
    #[inline]
    pub fn imp(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.imp(b))
    }

    /// `self ↔ other`
    #[inline]
    pub fn iff(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.iff(b))
    }

    /// `self ⊕ other`
    #[inline]
    pub fn xor(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.xor(b))
    }

    /// `self ∧ ¬other`
    #[inline]
    pub fn and_not(&self, other: &Bdd) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.and_not(b))
    }

    /// `if cond then then_ else else_`
    #[inline]
    pub fn ite(cond: &Bdd, then_: &Bdd, else_: &Bdd) -> Bdd {
        match (cond, then_, else_) {
            (Bdd::Shared(c), Bdd::Shared(t), Bdd::Shared(e)) => {
                Bdd::Shared(shared::Bdd::ite(c, t, e))
            }
            (Bdd::Biodivine(c), Bdd::Biodivine(t), Bdd::Biodivine(e)) => {
                Bdd::Biodivine(biodivine::Bdd::ite(c, t, e))
            }
            _ => mixed(),
        }
    }

    /// `∃ vars . self`
    #[inline]
    pub fn exists(&self, vars: &[BddVar]) -> Bdd {
        map!(Bdd, self, a => a.exists(vars), Bdd)
    }

    /// `∀ vars . self`
    #[inline]
    pub fn forall(&self, vars: &[BddVar]) -> Bdd {
        map!(Bdd, self, a => a.forall(vars), Bdd)
    }

    /// `∃ vars . self` for a prepared set.
    #[inline]
    pub fn exists_in(&self, vars: &VarSet) -> Bdd {
        pair!(self, VarSet, vars, (a, v) => a.exists_in(v))
    }

    /// `∀ vars . self` for a prepared set.
    #[inline]
    pub fn forall_in(&self, vars: &VarSet) -> Bdd {
        pair!(self, VarSet, vars, (a, v) => a.forall_in(v))
    }

    /// `∃ vars . (self ∧ other)`, in one pass.
    #[inline]
    pub fn and_exists(&self, other: &Bdd, vars: &[BddVar]) -> Bdd {
        pair!(self, Bdd, other, (a, b) => a.and_exists(b, vars))
    }

    /// `∃ vars . (self ∧ other)` for a prepared set.
    #[inline]
    pub fn and_exists_in(&self, other: &Bdd, vars: &VarSet) -> Bdd {
        match (self, other, vars) {
            (Bdd::Shared(a), Bdd::Shared(b), VarSet::Shared(v)) => {
                Bdd::Shared(a.and_exists_in(b, v))
            }
            (Bdd::Biodivine(a), Bdd::Biodivine(b), VarSet::Biodivine(v)) => {
                Bdd::Biodivine(a.and_exists_in(b, v))
            }
            _ => mixed(),
        }
    }

    /// The cofactor with the given variables fixed; the result no longer
    /// depends on them (when a variable is given twice, its first value counts).
    #[inline]
    pub fn restrict(&self, lits: &[(BddVar, bool)]) -> Bdd {
        map!(Bdd, self, a => a.restrict(lits), Bdd)
    }

    /// Substitutes variables simultaneously: every `from` becomes its `to`.
    ///
    /// Several variables may map to the same target, and a target may occur in
    /// `self`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    #[inline]
    pub fn rename(&self, space: &Space, pairs: &[(BddVar, BddVar)]) -> Bdd {
        pair!(self, Space, space, (a, s) => a.rename(s, pairs))
    }

    /// Applies a prepared substitution.
    #[inline]
    pub fn rename_by(&self, renaming: &Renaming) -> Bdd {
        pair!(self, Renaming, renaming, (a, r) => a.rename_by(r))
    }

    /// Number of nodes, terminals included.
    #[inline]
    pub fn size(&self) -> usize {
        with!(Bdd, self, a => a.size())
    }

    /// Whether this is the constant true.
    #[inline]
    pub fn is_true(&self) -> bool {
        with!(Bdd, self, a => a.is_true())
    }

    /// Whether this is the constant false.
    #[inline]
    pub fn is_false(&self) -> bool {
        with!(Bdd, self, a => a.is_false())
    }

    /// Whether this is a constant.
    #[inline]
    pub fn is_constant(&self) -> bool {
        with!(Bdd, self, a => a.is_constant())
    }

    /// The constant value, if this is a constant.
    #[inline]
    pub fn as_bool(&self) -> Option<bool> {
        with!(Bdd, self, a => a.as_bool())
    }

    /// The variables the function depends on, in order.
    #[inline]
    pub fn support(&self) -> Vec<BddVar> {
        with!(Bdd, self, a => a.support())
    }

    /// Whether the function depends on `var`.
    #[inline]
    pub fn depends_on(&self, var: BddVar) -> bool {
        with!(Bdd, self, a => a.depends_on(var))
    }

    /// The value of the function under an assignment of the given variables
    /// (every other variable false): a walk down one path, no new BDD.
    #[inline]
    pub fn eval(&self, lits: &[(BddVar, bool)]) -> bool {
        with!(Bdd, self, a => a.eval(lits))
    }

    /// The value of the function under a valuation of all variables
    /// (`values[v]` for variable `v`, false beyond the end).
    #[inline]
    pub fn eval_bits(&self, values: &[bool]) -> bool {
        with!(Bdd, self, a => a.eval_bits(values))
    }

    /// Whether the function is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free).
    #[inline]
    pub fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool {
        with!(Bdd, self, a => a.constant_under(fixed, value))
    }

    /// One satisfying assignment: the values of `vars` in the lexicographically
    /// first satisfying valuation (deterministic), or `None` if unsatisfiable.
    #[inline]
    pub fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>> {
        with!(Bdd, self, a => a.pick(vars))
    }
}
