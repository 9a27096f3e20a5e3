//! The public [`Space`]: an enum over the packages, so that the package is
//! chosen when a space is created ([`Space::with_package`]) and every
//! operation is one predictable match followed by the package's own code.
//! The functions ([`Bdd`]) are numbers in either package, so nothing else
//! needs to know the package.

use std::fmt;

use super::{Bdd, BddSpace, BddVar, Package, Renaming, Roots, VarSet, biodivine, shared};

/// A universe of BDD variables, owning every function built in it.
#[derive(Clone)]
pub enum Space {
    /// hindsight's own shared-node package.
    Shared(shared::Space),
    /// `biodivine-lib-bdd`.
    Biodivine(biodivine::Space),
}

/// `$body` with `$s` bound to the package space of `$e`.
macro_rules! with {
    ($e:expr, $s:ident => $body:expr) => {
        match $e {
            Space::Shared($s) => $body,
            Space::Biodivine($s) => $body,
        }
    };
}

/// Methods of [`BddSpace`] that pass their arguments on to the package:
/// those that read the space, then those that change it.
macro_rules! delegate {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $out:ty;)*
     mut: $(fn $mname:ident(&mut self $(, $marg:ident: $mty:ty)*) -> $mout:ty;)*) => {
        $(
            #[inline]
            fn $name(&self $(, $arg: $ty)*) -> $out {
                with!(self, s => s.$name($($arg),*))
            }
        )*
        $(
            #[inline]
            fn $mname(&mut self $(, $marg: $mty)*) -> $mout {
                with!(self, s => s.$mname($($marg),*))
            }
        )*
    };
}

impl fmt::Debug for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with!(self, s => s.fmt(f))
    }
}

impl Space {
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
#[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    pub fn package(&self) -> Package {
        match self {
            Space::Shared(_) => Package::Shared,
            Space::Biodivine(_) => Package::Biodivine,
        }
    }
}

impl BddSpace for Space {
    const NAME: &'static str = "dispatch";

    /// A space of `num_vars` variables of the shared-node package.
    #[inline]
    fn new(num_vars: usize) -> Space {
        Space::Shared(shared::Space::new(num_vars))
    }

    #[inline]
    fn collect(&mut self, list: impl FnOnce(&mut Roots)) {
        with!(self, s => s.collect(list))
    }

    delegate! {
        fn num_vars(&self) -> usize;
        fn table_stats(&self) -> (usize, u64);
        fn collection_due(&self) -> bool;
        fn tt(&self) -> Bdd;
        fn ff(&self) -> Bdd;
        fn constant(&self, value: bool) -> Bdd;
        fn eval(&self, f: Bdd, lits: &[(BddVar, bool)]) -> bool;
        fn eval_bits(&self, f: Bdd, values: &[bool]) -> bool;
        fn pick(&self, f: Bdd, vars: &[BddVar]) -> Option<Vec<bool>>;
        mut:
        fn cubes(&mut self, f: Bdd, limit: usize, lits: &mut Vec<(BddVar, bool)>, ends: &mut Vec<usize>) -> bool;
        fn save_memory(&mut self) -> ();
        fn lit(&mut self, var: BddVar, value: bool) -> Bdd;
        fn cube(&mut self, lits: &[(BddVar, bool)]) -> Bdd;
        fn var_set(&mut self, vars: &[BddVar]) -> VarSet;
        fn renaming(&mut self, pairs: &[(BddVar, BddVar)]) -> Renaming;
        fn and(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn or(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn not(&mut self, a: Bdd) -> Bdd;
        fn imp(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn iff(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn xor(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn and_not(&mut self, a: Bdd, b: Bdd) -> Bdd;
        fn ite(&mut self, cond: Bdd, then_: Bdd, else_: Bdd) -> Bdd;
        fn exists(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd;
        fn forall(&mut self, f: Bdd, vars: &[BddVar]) -> Bdd;
        fn exists_in(&mut self, f: Bdd, vars: VarSet) -> Bdd;
        fn forall_in(&mut self, f: Bdd, vars: VarSet) -> Bdd;
        fn and_exists(&mut self, f: Bdd, g: Bdd, vars: &[BddVar]) -> Bdd;
        fn and_exists_in(&mut self, f: Bdd, g: Bdd, vars: VarSet) -> Bdd;
        fn restrict(&mut self, f: Bdd, lits: &[(BddVar, bool)]) -> Bdd;
        fn or_cofactor(&mut self, g: Bdd, f: Bdd, lits: &[(BddVar, bool)], cube: &[(BddVar, bool)]) -> Bdd;
        fn and_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd>;
        fn and_cube_within(&mut self, f: Bdd, lits: &[(BddVar, bool)], g: Bdd, budget: usize) -> Option<bool>;
        fn edit_cube(&mut self, f: Bdd, lits: &[(BddVar, bool)], add: bool) -> Option<Bdd>;
        fn cofactor_walk(&mut self, f: Bdd, lits: &[(BddVar, bool)], budget: usize) -> Option<Bdd>;
        fn rename(&mut self, f: Bdd, pairs: &[(BddVar, BddVar)]) -> Bdd;
        fn rename_by(&mut self, f: Bdd, renaming: Renaming) -> Bdd;
        fn size(&mut self, f: Bdd) -> usize;
        fn support(&mut self, f: Bdd) -> Vec<BddVar>;
        fn depends_on(&mut self, f: Bdd, var: BddVar) -> bool;
        fn constant_under(&mut self, f: Bdd, fixed: &[Option<bool>], value: bool) -> bool;
        fn conj_empty_under(&mut self, parts: &[(Bdd, bool)], fixed: &[Option<bool>]) -> bool;
        fn conj_empty_within(&mut self, parts: &[(Bdd, bool)], budget: usize) -> Option<bool>;
    }
}
