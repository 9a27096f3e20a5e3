//! hindsight's own BDD package: shared nodes, a unique table and a persistent
//! operation cache.
//!
//! All BDDs of one [`Space`] live in one node table, so equal functions are
//! the same node and comparing two BDDs is comparing two numbers. Operations
//! remember their results in a lossy cache that survives from one operation
//! to the next: when a summary changes along one path only, recomputing an
//! operation on it finds every untouched sub-BDD in the cache and costs time
//! proportional to the changed path, not to the summary. This is what keeps
//! the per-event cost of the monitor independent of the size of its summaries.
//!
//! Handles ([`Bdd`]) count references to their root node; nodes that no handle
//! reaches are reclaimed by a mark-and-sweep collection, which runs only at
//! the entry of an operation (never in the middle of one) once the table has
//! doubled since the last collection. A collection keeps the cached results
//! that involve only surviving nodes.
//!
//! The package in parts: `node` (node numbers, terminals, the hash mix),
//! `table` (nodes, unique table, collection),
//! `cache` (the operation cache), `apply` (connectives, if-then-else,
//! cubes), `quantify` (quantification, restriction, renaming), `query`
//! (walks that build nothing) and `handle` (the counted handles, and the
//! package's [`BddSpace`](super::BddSpace) and
//! [`BddFunction`](super::BddFunction)).

mod apply;
mod cache;
mod handle;
mod node;
mod quantify;
mod query;
mod table;

pub use handle::{Bdd, Renaming, Space, VarSet};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bdd::{BddFunction, BddSpace, BddVar};

    fn v(i: u16) -> BddVar {
        BddVar(i)
    }

    #[test]
    fn equal_functions_are_the_same_node() {
        let s = Space::new(3);
        let a = s.lit(v(0), true).and(&s.lit(v(1), true));
        let b = s.lit(v(1), true).and(&s.lit(v(0), true));
        assert_eq!(a.id, b.id);
        assert_eq!(a.not().not(), a);
    }

    #[test]
    fn collection_keeps_what_handles_reach() {
        let s = Space::new(24);
        let keep = s.cube(&[(v(3), true), (v(7), false)]);
        s.m.borrow_mut().gc_at = 1000;
        // Build and drop enough nodes to force collections.
        for i in 0..40_000u32 {
            let lits: Vec<(BddVar, bool)> =
                (0..16).map(|b| (v(8 + b), (i >> b) & 1 == 1)).collect();
            let c = s.cube(&lits);
            let _ = keep.or(&c).exists(&[v(3)]);
        }
        let m = s.m.borrow();
        assert!(m.collections > 0, "no collection happened");
        drop(m);
        assert!(keep.eval(&[(v(3), true)]));
        assert!(!keep.eval(&[(v(3), true), (v(7), true)]));
        assert_eq!(keep, s.lit(v(3), true).and_not(&s.lit(v(7), true)));
    }

    /// The same sets of 3,000 cubes over 16 bits, built in a space that
    /// saves memory and in one that does not.
    fn many_cubes(save: bool) -> (Space, Vec<Bdd>) {
        let s = Space::new(16);
        if save {
            s.save_memory();
        }
        let mut set = s.ff();
        let mut sets = Vec::new();
        for i in 0..3_000u32 {
            let code = i.wrapping_mul(40_503) & 0xffff;
            let lits: Vec<(BddVar, bool)> = (0..16).map(|b| (v(b), (code >> b) & 1 == 1)).collect();
            set = set.or(&s.cube(&lits));
            if i % 1_000 == 999 {
                sets.push(set.clone());
            }
        }
        (s, sets)
    }

    #[test]
    fn saving_memory_keeps_results_and_halves_the_cache() {
        let (fast, fast_sets) = many_cubes(false);
        let (lean, lean_sets) = many_cubes(true);
        for (f, l) in fast_sets.iter().zip(&lean_sets) {
            assert_eq!(f.size(), l.size());
            for code in (0..0x1_0000u32).step_by(97) {
                let lits: Vec<(BddVar, bool)> =
                    (0..16).map(|b| (v(b), (code >> b) & 1 == 1)).collect();
                assert_eq!(f.eval(&lits), l.eval(&lits), "code {code}");
            }
        }
        let (fm, lm) = (fast.m.borrow(), lean.m.borrow());
        assert_eq!(fm.nodes.len(), lm.nodes.len());
        assert_eq!(lm.cache.len() * 2, fm.cache.len());
    }

    #[test]
    fn the_unique_table_grows_fourfold_up_to_the_collection_size_unless_lean() {
        use table::{MIN_GC_NODES, unique_growth};
        assert_eq!(unique_growth(0, false), 1024);
        assert_eq!(unique_growth(1000, false), 4000);
        assert_eq!(unique_growth(1000, true), 2000);
        assert_eq!(unique_growth(MIN_GC_NODES / 2, false), MIN_GC_NODES);
        assert_eq!(unique_growth(MIN_GC_NODES / 2, true), MIN_GC_NODES);
        assert_eq!(unique_growth(MIN_GC_NODES, false), 2 * MIN_GC_NODES);
        assert_eq!(unique_growth(3 * MIN_GC_NODES, false), 6 * MIN_GC_NODES);
    }

    #[test]
    fn deep_recursion_grows_the_stack() {
        // A 60,000-variable parity function on a small thread stack.
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let n = 60_000;
                let s = Space::new(n);
                let mut parity = s.ff();
                for i in (0..n as u16).rev() {
                    parity = parity.xor(&s.lit(v(i), true));
                }
                let odd = parity.not();
                (odd.eval(&[]), odd.eval(&[(v(17), true)]), parity.size())
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        assert_eq!(result, (true, false, 2 * 60_000 - 1 + 2));
    }
}
