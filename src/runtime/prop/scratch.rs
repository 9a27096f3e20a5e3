//! Scratch space of one property's monitor: the binding of the current
//! event and caches. Nothing here carries meaning from one event to the
//! next (the cube cache only saves work).

use std::ops::Range;

use super::point;
use crate::bdd::{Bdd, BddVar, Roots};
use crate::plan::{NodeIx, VarIx};
use crate::runtime::enumeration::Lookup;
use crate::runtime::ids::Code;

/// Entries of the cache of code cubes, per variable.
pub(super) const CUBE_CACHE: usize = 4096;

/// Entries of the cache of the cubes of matches of two codes.
pub(super) const PAIR_CACHE: usize = 4096;

/// A match of two codes: the variables whose cubes they use (see
/// `cube_owner`) and the codes.
pub(super) type PairKey = [u32; 4];

/// Buffers reused from one event to the next.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// The literals of a cube.
    pub cube_lits: Vec<(BddVar, bool)>,
    /// A match's literals moved back to a twin's source (see `fuse_atom`).
    pub back_lits: Vec<(BddVar, bool)>,
    /// The codes of a match with their widths, by decreasing slot.
    pub match_codes: Vec<(VarIx, Code, usize)>,
    /// Per variable: the cubes `v = code` of recent codes, direct-mapped by
    /// code (cleared when the width grows, and at every collection).
    pub code_cubes: Vec<Vec<Option<(Code, Bdd)>>>,
    /// The cubes of recent matches of two codes, direct-mapped by
    /// [`PairKey`] (cleared when a width grows, and at every collection).
    pub pair_cubes: Vec<Option<(PairKey, Bdd)>>,
    /// The binding of the current step (see [`Binding`]).
    pub binding: Binding,
    /// The previous values of the atoms active at the previous event.
    pub atom_previous: Vec<(NodeIx, Bdd)>,
    /// For point evaluation: boxed, so that taking it for a step and
    /// putting it back moves a pointer, not the buffers' headers (and
    /// drops no empty one in their place).
    pub point_env: Option<Box<point::Env>>,
    /// Per conjunction with a fused atom: its walks gave up (see
    /// `fuse_atom`), the match's cube is built and conjoined.
    pub and_built: Vec<bool>,
    /// Per conjunction with a fused atom read by a `P` alone: a walk of
    /// its inclusion in the `P` gave up (see `fuse_atom`), none is tried.
    pub once_given_up: Vec<bool>,
    /// The codes the event being bound got, as (class, argument position, code).
    pub looked_up: Vec<(usize, usize, Code)>,
}

impl Scratch {
    /// Forgets the cached cubes (of codes and of matches).
    pub fn forget_cubes(&mut self) {
        for cubes in &mut self.code_cubes {
            cubes.clear();
        }
        self.pair_cubes.clear();
    }

    pub fn new(vars: usize) -> Scratch {
        Scratch {
            code_cubes: vec![Vec::new(); vars],
            ..Scratch::default()
        }
    }

    /// Lists the BDDs of the scratch for a collection (the previous values
    /// of atoms while a step holds them), and forgets the cached cubes.
    ///
    /// Kept, the cubes would be roots of every collection: their nodes (a
    /// node per bit of a code) marked and rehashed each time, and counted
    /// in what a collection keeps, which the node table's next size doubles.
    /// With a value per thread, locks-cycles kept about 25,000 nodes of
    /// cached cubes, and its tables spilled out of the processor's
    /// second-level cache. Forgotten, a cube is built again at the value's
    /// next use after a collection.
    pub fn keep_roots(&mut self, roots: &mut Roots) {
        self.forget_cubes();

        for (_, old) in &mut self.atom_previous {
            roots.keep(old);
        }
        if let Some(env) = &mut self.point_env {
            env.keep_roots(roots);
        }
    }
}

/// The binding of the events of the current step to the property's atoms.
#[derive(Clone, Debug, Default)]
pub(super) struct Binding {
    /// The matched atoms, each with the range of its variables' codes in `codes`.
    pub matched: Vec<(NodeIx, Range<usize>)>,
    /// The codes of the matches' variables.
    pub codes: Vec<(VarIx, Code)>,
    /// (Variable, code) pairs seen for the first time.
    pub newly_seen: Vec<(VarIx, Code)>,
    /// The values enumerated by this step, per class, in order (undone, latest
    /// first, when the step is refused).
    pub fresh: Vec<(usize, Lookup)>,
    /// The classes whose code width grew, with the new width, in order.
    pub grown: Vec<(usize, usize)>,
    /// The step repeats the previous event at a fixed point: nothing to do.
    pub repeat: bool,
    /// With matches kept as values (see `future::matches`): the matches
    /// of the patterns with variables, each with the range of its values
    /// in `raw_spans`, whose bytes are in `raw`.
    pub raw_matched: Vec<(NodeIx, Range<usize>)>,
    pub raw_spans: Vec<(u32, u32)>,
    pub raw: Vec<u8>,
}

impl Binding {
    /// Forgets the previous step.
    pub fn clear(&mut self) {
        self.raw_matched.clear();
        self.raw_spans.clear();
        self.raw.clear();
        self.matched.clear();
        self.codes.clear();
        self.newly_seen.clear();
        self.fresh.clear();
        self.grown.clear();
        self.repeat = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bdd::{BddSpace, Package, Space};

    #[test]
    fn a_collection_keeps_the_previous_atoms_and_forgets_the_cubes() {
        let mut space = Space::with_package(Package::Shared, 8);
        let mut scratch = Scratch::new(2);
        let cube = space.cube(&[(BddVar(0), true), (BddVar(2), false)]);
        scratch.code_cubes[1] = vec![None, Some((Code(1), cube))];
        let old = space.cube(&[(BddVar(1), false), (BddVar(3), true)]);
        scratch.atom_previous.push((4, old));
        scratch.pair_cubes = vec![Some(([0, 1, 1, 2], cube))];
        space.collect(|roots| scratch.keep_roots(roots));
        assert!(scratch.code_cubes.iter().all(Vec::is_empty));
        assert!(scratch.pair_cubes.is_empty());
        let (n, kept) = scratch.atom_previous[0];
        assert_eq!(n, 4);
        assert!(space.eval(kept, &[(BddVar(1), false), (BddVar(3), true)]));
        assert!(!space.eval(kept, &[(BddVar(1), true), (BddVar(3), true)]));
        // Only the kept cube's two nodes (and the terminals) are left.
        assert_eq!(space.table_stats().0, 4);
    }
}
