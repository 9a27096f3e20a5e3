//! The BDD layer: the one narrow interface between hindsight and a BDD package.
//!
//! Everything else in the crate speaks of [`Space`], [`Bdd`], [`VarSet`],
//! [`Renaming`], [`Roots`] and [`BddVar`]. The operations are the ones the
//! monitoring algorithm needs: constants, literals and cubes, boolean
//! connectives, quantification over a set of variables, restriction,
//! simultaneous renaming, size, support, evaluation and one satisfying
//! assignment. The trait [`BddSpace`] states them once.
//!
//! # The space owns its functions
//!
//! A space is a package's manager: it owns every node (or, for
//! `biodivine`, every BDD value) built in it. A function is a [`Bdd`], a
//! plain `Copy` number that means something only to its space; every
//! operation is a method of the space that takes and returns such numbers
//! (`space.and(a, b)`): `&mut` when it builds, and when it walks a whole
//! function with the space's scratch marks (size, support, constancy under
//! a partial assignment); `&` for the constants and a walk down one path.
//! So a space and its functions are plain data: nothing is shared or
//! counted, a space is `Send` like any other value, and the monitor that
//! owns one space moves between threads with it (`Monitor: Send` holds by
//! construction).
//!
//! Nothing counts references either. A space reclaims memory only when its
//! owner calls [`BddSpace::collect`] and lists there, with [`Roots::keep`],
//! every function it still holds; the nodes those reach are kept, all
//! others are freed. The owner does so at *safe points*, where it can name
//! every function it holds: the runtime between events, and between the
//! subformulas of one event's evaluation (where a long step, such as a
//! spawning trace's rule over a large relation, makes most of its
//! garbage). It asks first whether a collection is due
//! ([`BddSpace::collection_due`]): the shared package's policy is growth,
//! a collection once its node table has doubled since the last one (and
//! holds at least `MIN_GC_NODES` nodes); the `biodivine` arena counts the
//! nodes of its values in the same way.
//!
//! Two mistakes stay possible, and both are caught in a build with debug
//! assertions (`cargo test` without `--release`; a release build pays
//! nothing): a [`Bdd`] carries the identity of its space and the space's
//! generation (the number of collections so far), and every operation, and
//! `==`, checks both. Using a function of another space, or one that the
//! last collection did not list (which may have been freed, its number
//! given to another function), panics at once. So that the tests meet
//! collections often, a debug build also makes one due from a few dozen
//! nodes on rather than `MIN_GC_NODES`. [`VarSet`]s and [`Renaming`]s are
//! numbers too, kept by the space for good, and carry its identity.
//! (Mixing spaces is not a type error: a type per space, such as a branded
//! lifetime, would run through the whole runtime for a mistake that its
//! shape already rules out, one space per monitor and nothing handed out.)
//!
//! # Packages
//!
//! Two packages implement the trait, and both are in every build:
//! - [`shared`] ([`Package::Shared`], the default): hindsight's own package
//!   with one node table per space, hash-consed nodes and a persistent
//!   operation cache, so an operation on summaries that changed along one
//!   path costs time proportional to that path; a [`Bdd`] is a node number;
//! - [`biodivine`] ([`Package::Biodivine`]): `biodivine-lib-bdd`, where each
//!   BDD is its own array (kept to measure the shared-node package against,
//!   and as a second implementation checked against the first); the space
//!   keeps them in an arena, one number per function.
//!
//! The package is chosen at run time, when a space is created
//! ([`Space::with_package`]): [`Space`] is an enum over the packages' spaces,
//! and each operation is one match on the package followed by the package's
//! own code; the functions are numbers in both, so nothing else needs to
//! know the package. That match costs nothing measurable (a build without
//! the enum counts the same instructions, docs/PERFORMANCE.md), so the
//! runtime is not generic over the package. The conformance suite
//! (`conformance.rs`) is written once against the trait and run for both
//! packages.
//!
//! The layer in parts: `id` (the numbers, and the debug checks), `package`
//! (the trait), `dispatch` (the enum), and the packages; the traits know
//! nothing of storage or algorithms, which are the packages' own.

/// A BDD variable (one bit of a data variable's code, or of a time stamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BddVar(pub u16);

/// The most BDD variables one [`Space`] can have.
pub const MAX_VARS: usize = u16::MAX as usize - 1;

pub mod biodivine;
mod dispatch;
mod id;
mod package;
pub mod shared;

#[cfg(test)]
mod conformance;

pub use dispatch::Space;
pub use id::{Bdd, Renaming, Roots, VarSet};
pub use package::BddSpace;

/// A BDD package, chosen when a `Space` is created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Package {
    /// hindsight's own shared-node package (the default).
    #[default]
    Shared,
    /// `biodivine-lib-bdd`.
    Biodivine,
}

impl Package {
    /// Every package, the default first.
    pub const ALL: [Package; 2] = [Package::Shared, Package::Biodivine];

    /// The package's name, as [`Display`](std::fmt::Display) writes it and
    /// [`FromStr`](std::str::FromStr) reads it.
    pub fn name(self) -> &'static str {
        match self {
            Package::Shared => <shared::Space as BddSpace>::NAME,
            Package::Biodivine => <biodivine::Space as BddSpace>::NAME,
        }
    }
}

impl std::fmt::Display for Package {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`Package`] name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPackage(pub String);

impl std::fmt::Display for UnknownPackage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown BDD package `{}` (expected `shared` or `biodivine`)",
            self.0
        )
    }
}

impl std::error::Error for UnknownPackage {}

impl std::str::FromStr for Package {
    type Err = UnknownPackage;

    fn from_str(s: &str) -> Result<Package, UnknownPackage> {
        Package::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPackage(s.to_string()))
    }
}
