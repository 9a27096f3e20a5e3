//! The BDD layer: the one narrow interface between hindsight and a BDD package.
//!
//! Everything else in the crate speaks of [`Space`], [`Bdd`] and [`BddVar`].
//! The operations are the ones the monitoring algorithm needs: constants,
//! literals and cubes, boolean connectives, quantification over a set of
//! variables, restriction, simultaneous renaming, size, support, evaluation
//! and one satisfying assignment.
//!
//! Two implementations provide the interface:
//! - [`shared`] (the default): hindsight's own package with one node table per
//!   space, hash-consed nodes and a persistent operation cache, so an
//!   operation on summaries that changed along one path costs time
//!   proportional to that path;
//! - `biodivine` (cargo feature `biodivine`): `biodivine-lib-bdd`, where each
//!   BDD is its own array. Build with `--features biodivine` to compare.

/// A BDD variable (one bit of a data variable's code, or of a time stamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BddVar(pub u16);

/// The most BDD variables one [`Space`] can have.
pub const MAX_VARS: usize = u16::MAX as usize - 1;

#[cfg(feature = "biodivine")]
mod biodivine;
#[cfg(feature = "biodivine")]
pub use biodivine::{Bdd, Renaming, Space, VarSet};

#[cfg(not(feature = "biodivine"))]
pub mod shared;
#[cfg(not(feature = "biodivine"))]
pub use shared::{Bdd, Renaming, Space, VarSet};

/// The name of the BDD package this build uses.
pub const PACKAGE: &str = if cfg!(feature = "biodivine") {
    "biodivine-lib-bdd"
} else {
    "shared"
};

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u16) -> BddVar {
        BddVar(i)
    }

    #[test]
    fn connectives_and_quantifiers() {
        let s = Space::new(4);
        let a = s.lit(v(0), true);
        let b = s.lit(v(1), true);
        assert!(a.and(&a.not()).is_false());
        assert!(a.or(&a.not()).is_true());
        assert_eq!(a.imp(&b), a.not().or(&b));
        assert!(a.and(&b).exists(&[v(0)]) == b);
        assert!(a.or(&b).forall(&[v(0)]) == b);
        assert_eq!(a.and_exists(&b, &[v(1)]), a);
        assert_eq!(a.and(&b).restrict(&[(v(0), true)]), b);
        assert!(a.and(&b).restrict(&[(v(0), false)]).is_false());
    }

    #[test]
    fn rename_monotone_and_swapping() {
        let s = Space::new(4);
        let f = s.lit(v(0), true).and(&s.lit(v(1), false));
        let g = f.rename(&s, &[(v(0), v(2)), (v(1), v(3))]);
        assert_eq!(g, s.lit(v(2), true).and(&s.lit(v(3), false)));
        let swapped = f.rename(&s, &[(v(0), v(1)), (v(1), v(0))]);
        assert_eq!(swapped, s.lit(v(1), true).and(&s.lit(v(0), false)));
        // Merging two variables into one that is itself in the support.
        let g = s.lit(v(0), true).iff(&s.lit(v(1), true));
        assert!(g.rename(&s, &[(v(0), v(1))]).is_true());
        let h = s.lit(v(0), true).and(&s.lit(v(1), false));
        assert!(h.rename(&s, &[(v(0), v(1))]).is_false());
        assert_eq!(h.rename(&s, &[(v(0), v(2)), (v(1), v(2))]), s.ff());
    }

    #[test]
    fn pick_is_a_model() {
        let s = Space::new(3);
        let f = s.cube(&[(v(0), true), (v(2), false)]);
        let vals = f.pick(&[v(0), v(1), v(2)]).expect("satisfiable");
        assert!(vals[0] && !vals[2]);
        assert!(s.ff().pick(&[v(0)]).is_none());
    }
}
