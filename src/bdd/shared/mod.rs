//! hindsight's own BDD package: shared nodes, a unique table and a persistent
//! operation cache.
//!
//! All functions of one [`Space`] live in its node table, so equal functions
//! are the same node and a function is the number of its root. Operations
//! remember their results in a lossy cache that survives from one operation
//! to the next: when a summary changes along one path only, recomputing an
//! operation on it finds every untouched sub-BDD in the cache and costs time
//! proportional to the changed path, not to the summary. This is what keeps
//! the per-event cost of the monitor independent of the size of its summaries.
//!
//! Nothing counts references: the space's owner lists its live functions
//! when it calls for a collection ([`BddSpace::collect`](super::BddSpace::collect)),
//! and a mark-and-sweep keeps the nodes they reach (and the prepared
//! variable sets). The owner asks first whether one is due: once the table
//! has doubled since the last collection, and not before it holds
//! `MIN_GC_NODES` nodes. A collection keeps the cached results that involve
//! only surviving nodes.
//!
//! The package in parts, each using only those before it: `node` (node
//! numbers, terminals, the hash mix), `cache` (the operation cache),
//! `unique` (the unique table), `table` (nodes, collection), `apply`
//! (connectives, if-then-else, cubes), `quantify` (quantification,
//! restriction, renaming), `cofactor` (a cofactor times a cube added to a
//! function, in one walk), `edit` (a cube added to or removed from a
//! function, in one walk),
//! `query` (walks that build nothing), `disjoint` (whether a conjunction
//! is empty, a walk that builds nothing) and `space` (the package's
//! [`BddSpace`](super::BddSpace)).

mod apply;
mod cache;
mod cofactor;
mod disjoint;
mod edit;
mod node;
mod quantify;
mod query;
mod space;
mod table;
mod unique;

pub use space::Space;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bdd::{Bdd, BddSpace, BddVar};

    fn v(i: u16) -> BddVar {
        BddVar(i)
    }

    #[test]
    fn equal_functions_are_the_same_node() {
        let mut s = Space::new(3);
        let (x, y) = (s.lit(v(0), true), s.lit(v(1), true));
        let a = s.and(x, y);
        let b = s.and(y, x);
        assert_eq!(a.index(), b.index());
        let not_a = s.not(a);
        assert_eq!(s.not(not_a), a);
    }

    #[test]
    fn collection_keeps_what_the_roots_reach() {
        let mut s = Space::new(24);
        let mut keep = s.cube(&[(v(3), true), (v(7), false)]);
        s.m.gc_at = 1000;
        let mut collections = 0;
        // Build and drop enough nodes to make collections due.
        for i in 0..40_000u32 {
            let lits: Vec<(BddVar, bool)> =
                (0..16).map(|b| (v(8 + b), (i >> b) & 1 == 1)).collect();
            let c = s.cube(&lits);
            let either = s.or(keep, c);
            let _ = s.exists(either, &[v(3)]);
            if s.collect_if_due(|roots| roots.keep(&mut keep)) {
                collections += 1;
                // Only what the roots reach is left.
                assert_eq!(s.table_stats().0, 2 + 2);
            }
        }
        assert!(collections > 0, "no collection happened");
        assert_eq!(s.table_stats().1, collections);
        assert!(s.eval(keep, &[(v(3), true)]));
        assert!(!s.eval(keep, &[(v(3), true), (v(7), true)]));
        let (a, b) = (s.lit(v(3), true), s.lit(v(7), true));
        assert_eq!(keep, s.and_not(a, b));
    }

    #[test]
    fn prepared_sets_survive_every_collection() {
        let mut s = Space::new(8);
        let set = s.var_set(&[v(2), v(5)]);
        let again = s.var_set(&[v(5), v(2), v(5)]);
        assert_eq!(s.m.set_cubes.len(), 1);
        s.collect(|_| {});
        let lits: Vec<(BddVar, bool)> = (0..8).map(|i| (v(i), i % 2 == 0)).collect();
        let f = s.cube(&lits);
        let g = s.exists_in(f, set);
        assert_eq!(g, s.exists_in(f, again));
        assert!(!s.depends_on(g, v(2)) && !s.depends_on(g, v(5)));
        assert!(s.depends_on(g, v(4)));
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "used after a collection that did not list it")]
    fn a_function_not_listed_is_void_after_a_collection() {
        let mut s = Space::new(4);
        let a = s.lit(v(1), true);
        s.collect(|_| {});
        let _ = s.not(a);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "of another space")]
    fn functions_of_two_spaces_do_not_mix() {
        let (mut s, mut t) = (Space::new(4), Space::new(4));
        let a = s.lit(v(1), true);
        let b = t.lit(v(2), true);
        let _ = s.and(a, b);
    }

    /// The same sets of 3,000 cubes over 16 bits, built in a space that
    /// saves memory and in one that does not.
    fn many_cubes(save: bool) -> (Space, Vec<Bdd>) {
        let mut s = Space::new(16);
        if save {
            s.save_memory();
        }
        let mut set = s.ff();
        let mut sets = Vec::new();
        for i in 0..3_000u32 {
            let code = i.wrapping_mul(40_503) & 0xffff;
            let lits: Vec<(BddVar, bool)> = (0..16).map(|b| (v(b), (code >> b) & 1 == 1)).collect();
            let cube = s.cube(&lits);
            set = s.or(set, cube);
            if i % 1_000 == 999 {
                sets.push(set);
            }
        }
        (s, sets)
    }

    #[test]
    fn saving_memory_keeps_results_and_halves_the_cache() {
        let (mut fast, fast_sets) = many_cubes(false);
        let (mut lean, lean_sets) = many_cubes(true);
        for (&f, &l) in fast_sets.iter().zip(&lean_sets) {
            assert_eq!(fast.size(f), lean.size(l));
            for code in (0..0x1_0000u32).step_by(97) {
                let lits: Vec<(BddVar, bool)> =
                    (0..16).map(|b| (v(b), (code >> b) & 1 == 1)).collect();
                assert_eq!(fast.eval(f, &lits), lean.eval(l, &lits), "code {code}");
            }
        }
        assert_eq!(fast.m.nodes.len(), lean.m.nodes.len());
        assert_eq!(lean.m.cache.len() * 2, fast.m.cache.len());
    }

    #[test]
    fn deep_recursion_grows_the_stack() {
        // A 60,000-variable parity function on a small thread stack.
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let n = 60_000;
                let mut s = Space::new(n);
                let mut parity = s.ff();
                for i in (0..n as u16).rev() {
                    let x = s.lit(v(i), true);
                    parity = s.xor(parity, x);
                }
                let odd = s.not(parity);
                (
                    s.eval(odd, &[]),
                    s.eval(odd, &[(v(17), true)]),
                    s.size(parity),
                )
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        assert_eq!(result, (true, false, 2 * 60_000 - 1 + 2));
    }
}
