//! The BDD layer: the one narrow interface between hindsight and a BDD package.
//!
//! Everything else in the crate speaks of [`Space`], [`Bdd`], [`VarSet`],
//! [`Renaming`] and [`BddVar`]. The operations are the ones the monitoring
//! algorithm needs: constants, literals and cubes, boolean connectives,
//! quantification over a set of variables, restriction, simultaneous
//! renaming, size, support, evaluation and one satisfying assignment. The
//! traits [`BddSpace`] (a package's manager) and [`BddFunction`] (its
//! handles) state them once.
//!
//! Two packages implement the traits, and both are in every build:
//! - [`shared`] ([`Package::Shared`], the default): hindsight's own package
//!   with one node table per space, hash-consed nodes and a persistent
//!   operation cache, so an operation on summaries that changed along one
//!   path costs time proportional to that path;
//! - `biodivine` ([`Package::Biodivine`]): `biodivine-lib-bdd`, where each
//!   BDD is its own array (kept to measure the shared-node package against,
//!   and as a second implementation checked against the first).
//!
//! The package is chosen at run time, when a space is created
//! ([`Space::with_package`]; [`Space::new`] is the shared package): the
//! public handles are enums over the packages, and each operation is one
//! match on the package followed by the package's own code. The
//! conformance suite (`conformance.rs`) is written once against the traits
//! and run for both packages.
//!
//! # Ownership
//!
//! A [`Space`] and every handle built in it ([`Bdd`], [`VarSet`],
//! [`Renaming`], and spaces made by [`Space::sharing`]) are one ownership
//! unit: the shared package's handles count references into one table
//! behind an `Rc<RefCell<_>>`, so none of them is `Send` or `Sync`, and
//! handles of one space must never be mixed with those of another. The
//! runtime relies on this: each monitor owns one space, and its handles
//! never escape the monitor.

/// A BDD variable (one bit of a data variable's code, or of a time stamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BddVar(pub u16);

/// The most BDD variables one [`Space`] can have.
pub const MAX_VARS: usize = u16::MAX as usize - 1;

pub mod biodivine;
mod dispatch;
mod package;
pub mod shared;

#[cfg(test)]
mod conformance;

pub use dispatch::{Bdd, Renaming, Space, VarSet};
pub use package::{BddFunction, BddSpace, RenamingOf, VarSetOf};

/// A BDD package, chosen when a [`Space`] is created.
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
