//! The conformance suite of the BDD layer: every check is written once,
//! generic over a package ([`BddSpace`]), and run for each package (and
//! for the dispatching [`Space`] on each); a property test
//! (`conformance/random.rs`) compares each package with truth tables of
//! random formulas over up to eight variables, and the two packages with
//! each other.

use super::{Bdd, BddSpace, BddVar, Package, Space, biodivine, shared};

mod random;

fn v(i: u16) -> BddVar {
    BddVar(i)
}

/// Runs a generic check for both packages.
macro_rules! for_both {
    ($($check:ident),* $(,)?) => {
        mod shared_package {
            $(#[test]
            fn $check() {
                super::$check::<super::shared::Space>();
            })*
        }
        mod biodivine_package {
            $(#[test]
            fn $check() {
                super::$check::<super::biodivine::Space>();
            })*
        }
    };
}

for_both!(
    constants_and_literals,
    connectives,
    quantifiers,
    prepared_sets_and_renamings,
    restriction,
    cofactor_added,
    cube_conjoined,
    renaming,
    cubes,
    queries,
    evaluation,
    empty_conjunctions,
    pick_is_the_first_model,
    cubes_are_the_paths,
    collection_keeps_the_roots,
);

fn constants_and_literals<S: BddSpace>() {
    let mut s = S::new(4);
    assert_eq!(s.num_vars(), 4);
    assert!(s.tt().is_true() && !s.tt().is_false());
    assert!(s.ff().is_false() && !s.ff().is_true());
    assert_eq!(s.constant(true), s.tt());
    assert_eq!(s.constant(false), s.ff());
    assert_eq!(s.tt().as_bool(), Some(true));
    assert_eq!(s.ff().as_bool(), Some(false));
    let a = s.lit(v(1), true);
    assert!(!a.is_constant());
    assert_eq!(a.as_bool(), None);
    let not_a = s.lit(v(1), false);
    assert_eq!(s.not(a), not_a);
    let t = s.tt();
    assert_eq!(s.not(t), s.ff());
}

fn connectives<S: BddSpace>() {
    let mut s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    let (not_a, not_b) = (s.not(a), s.not(b));
    assert!(s.and(a, not_a).is_false());
    assert!(s.or(a, not_a).is_true());
    let or = s.or(not_a, b);
    assert_eq!(s.imp(a, b), or);
    let xor = s.xor(a, b);
    let nxor = s.not(xor);
    assert_eq!(s.iff(a, b), nxor);
    let and = s.and(a, not_b);
    assert_eq!(s.and_not(a, b), and);
    let ab = s.and(a, b);
    assert_eq!(s.and(b, a), ab);
    let iff = s.iff(a, b);
    assert_eq!(s.ite(a, b, not_b), iff);
    let (t, f) = (s.tt(), s.ff());
    assert_eq!(s.ite(t, a, b), a);
    assert_eq!(s.ite(f, a, b), b);
    assert_eq!(s.not(not_a), a);
}

fn quantifiers<S: BddSpace>() {
    let mut s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    let (ab, a_or_b) = (s.and(a, b), s.or(a, b));
    assert_eq!(s.exists(ab, &[v(0)]), b);
    assert_eq!(s.forall(a_or_b, &[v(0)]), b);
    assert!(s.forall(ab, &[v(0)]).is_false());
    assert!(s.exists(a_or_b, &[v(0), v(1)]).is_true());
    assert_eq!(s.exists(a, &[]), a);
    assert_eq!(s.and_exists(a, b, &[v(1)]), a);
    let not_a = s.not(a);
    assert!(s.and_exists(a, not_a, &[v(2)]).is_false());
    let t = s.tt();
    assert_eq!(s.exists(t, &[v(0)]), t);
}

fn prepared_sets_and_renamings<S: BddSpace>() {
    let mut s = S::new(6);
    let (x0, x3, x5) = (s.lit(v(0), true), s.lit(v(3), false), s.lit(v(5), true));
    let x0_x3 = s.and(x0, x3);
    let f = s.or(x0_x3, x5);
    let (y3, y4) = (s.lit(v(3), true), s.lit(v(4), true));
    let g = s.xor(y3, y4);
    let set = s.var_set(&[v(3), v(5)]);
    for _ in 0..2 {
        let e = s.exists(f, &[v(3), v(5)]);
        assert_eq!(s.exists_in(f, set), e);
        let a = s.forall(f, &[v(3), v(5)]);
        assert_eq!(s.forall_in(f, set), a);
        let ae = s.and_exists(f, g, &[v(3), v(5)]);
        assert_eq!(s.and_exists_in(f, g, set), ae);
    }
    let pairs = [(v(0), v(1)), (v(3), v(2))];
    let r = s.renaming(&pairs);
    for _ in 0..2 {
        let renamed = s.rename(f, &pairs);
        assert_eq!(s.rename_by(f, r), renamed);
    }
    let empty = s.var_set(&[]);
    assert_eq!(s.exists_in(f, empty), f);
}

fn restriction<S: BddSpace>() {
    let mut s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    let ab = s.and(a, b);
    assert_eq!(s.restrict(ab, &[(v(0), true)]), b);
    assert!(s.restrict(ab, &[(v(0), false)]).is_false());
    assert_eq!(s.restrict(ab, &[]), ab);
    // A variable given twice: its first value counts.
    assert_eq!(s.restrict(ab, &[(v(0), true), (v(0), false)]), b);
    assert!(s.restrict(a, &[(v(0), false), (v(0), true)]).is_false());
    let xor = s.xor(a, b);
    let f = s.restrict(xor, &[(v(1), true)]);
    assert_eq!(f, s.not(a));
    assert!(!s.depends_on(f, v(1)));
}

fn cofactor_added<S: BddSpace>() {
    let mut s = S::new(4);
    let (a, b, c) = (s.lit(v(0), true), s.lit(v(1), true), s.lit(v(2), true));
    // f = a ∧ (b ∨ c): its cofactor at a, b = false is c.
    let bc = s.or(b, c);
    let f = s.and(a, bc);
    let ff = s.ff();
    // g ∨ (c ∧ ¬a ∧ b), with the cube on a variable of the restriction.
    let nb = s.lit(v(1), false);
    let g = s.and(nb, c);
    let got = s.or_cofactor(g, f, &[(v(0), true), (v(1), false)], &[(v(0), false), (v(1), true)]);
    let na = s.lit(v(0), false);
    let nab = s.and(na, b);
    let part = s.and(c, nab);
    assert_eq!(got, s.or(g, part));
    // Nothing to add: a false cofactor, or a cube with conflicting literals.
    assert_eq!(s.or_cofactor(g, f, &[(v(0), false)], &[(v(3), true)]), g);
    assert_eq!(s.or_cofactor(g, f, &[], &[(v(3), true), (v(3), false)]), g);
    // No literals: g ∨ f; from false: the product itself.
    assert_eq!(s.or_cofactor(g, f, &[], &[]), s.or(g, f));
    let d = s.lit(v(3), true);
    let fd = s.and(f, d);
    assert_eq!(s.or_cofactor(ff, f, &[], &[(v(3), true)]), fd);
    // A variable restricted twice: its first value counts.
    assert_eq!(s.or_cofactor(ff, f, &[(v(0), true), (v(0), false)], &[]), bc);
}

fn cube_conjoined<S: BddSpace>() {
    let mut s = S::new(5);
    let (a, b, c) = (s.lit(v(0), true), s.lit(v(1), true), s.lit(v(2), true));
    // f = (a ∧ b) ∨ (¬a ∧ c), over literals above, on and below its variables.
    let ab = s.and(a, b);
    let na = s.lit(v(0), false);
    let nac = s.and(na, c);
    let f = s.or(ab, nac);
    let expect = |s: &mut S, f: Bdd, lits: &[(BddVar, bool)]| {
        let cube = s.cube(lits);
        s.and(f, cube)
    };
    let cases: [&[(BddVar, bool)]; 7] = [
        &[],
        &[(v(3), true)],
        &[(v(1), false), (v(3), true)],
        &[(v(4), true), (v(2), false), (v(0), false)],
        &[(v(0), true), (v(1), true), (v(2), false), (v(3), true), (v(4), false)],
        &[(v(2), true), (v(0), false), (v(4), true)],
        &[(v(1), true), (v(1), true)],
    ];
    for lits in cases {
        let want = expect(&mut s, f, lits);
        assert_eq!(s.and_cube(f, lits, usize::MAX), Some(want), "{lits:?}");
        // Past a budget: the product, or nothing.
        let small = s.and_cube(f, lits, 0);
        assert!(small.is_none_or(|r| r == want), "{lits:?}");
        // The cofactor by a walk: the restriction, or nothing.
        if lits.windows(2).all(|w| w[0].0 != w[1].0) {
            let cofactor = s.restrict(f, lits);
            assert_eq!(s.cofactor_walk(f, lits, usize::MAX), Some(cofactor), "{lits:?}");
            let small = s.cofactor_walk(f, lits, 0);
            assert!(small.is_none_or(|r| r == cofactor), "{lits:?}");
        }
        // Added and removed by a walk: the disjunction and difference
        // with the cube (false when the literals conflict), or nothing.
        let cube = s.cube(lits);
        for (add, built) in [(true, s.or(f, cube)), (false, s.and_not(f, cube))] {
            let walked = s.edit_cube(f, lits, add);
            assert!(walked.is_none_or(|r| r == built), "{lits:?} {add}");
        }
        // Within g: the product, more, less, other variables, constants.
        let x4 = s.lit(v(4), true);
        let (more, less) = (s.or(want, x4), s.and(want, x4));
        for g in [want, more, less, x4, a, s.tt(), s.ff()] {
            let built = s.and_not(want, g).is_false();
            assert_eq!(s.and_cube_within(f, lits, g, usize::MAX), Some(built), "{lits:?}");
            let small = s.and_cube_within(f, lits, g, 0);
            assert!(small.is_none_or(|r| r == built), "{lits:?}");
        }
    }
    // Conflicting literals, a false product, the constants.
    let all = usize::MAX;
    let is_false = |r: Option<Bdd>| r.is_some_and(|r| r.is_false());
    assert!(is_false(s.and_cube(f, &[(v(3), true), (v(3), false)], all)));
    assert!(is_false(s.and_cube(f, &[(v(0), false), (v(2), false)], all)));
    let ff = s.ff();
    assert!(is_false(s.and_cube(ff, &[(v(1), true)], all)));
    let tt = s.tt();
    let want = s.cube(&[(v(1), true), (v(4), false)]);
    assert_eq!(s.and_cube(tt, &[(v(4), false), (v(1), true)], all), Some(want));
    assert!(s.and_cube(tt, &[], all).is_some_and(|r| r.is_true()));
    // Edits of the constants, and by the empty cube (true).
    let lits = [(v(4), false), (v(1), true)];
    assert_eq!(s.edit_cube(ff, &lits, true), Some(want));
    let not_want = s.not(want);
    assert_eq!(s.edit_cube(tt, &lits, false), Some(not_want));
    assert_eq!(s.edit_cube(tt, &lits, true), Some(tt));
    assert_eq!(s.edit_cube(ff, &lits, false), Some(ff));
    assert_eq!(s.edit_cube(f, &[], true), Some(tt));
    assert_eq!(s.edit_cube(f, &[], false), Some(ff));
    // A cofactor's walk over a node both ways, reached twice; conflicting
    // literals are left to `restrict` or restricted by the first.
    let x1 = s.lit(v(1), true);
    let g = s.xor(f, x1);
    let lits = [(v(0), true), (v(4), false)];
    let want = s.restrict(g, &lits);
    assert_eq!(s.cofactor_walk(g, &lits, all), Some(want));
    let conflict = [(v(3), true), (v(3), false)];
    let want = s.restrict(f, &conflict);
    assert!(s.cofactor_walk(f, &conflict, all).is_none_or(|r| r == want));
}

fn renaming<S: BddSpace>() {
    let mut s = S::new(4);
    let (x0, not_x1) = (s.lit(v(0), true), s.lit(v(1), false));
    let f = s.and(x0, not_x1);
    let g = s.rename(f, &[(v(0), v(2)), (v(1), v(3))]);
    let (x2, not_x3) = (s.lit(v(2), true), s.lit(v(3), false));
    assert_eq!(g, s.and(x2, not_x3));
    let swapped = s.rename(f, &[(v(0), v(1)), (v(1), v(0))]);
    let (x1, not_x0) = (s.lit(v(1), true), s.lit(v(0), false));
    assert_eq!(swapped, s.and(x1, not_x0));
    // Merging two variables into one that is itself in the support.
    let x1 = s.lit(v(1), true);
    let g = s.iff(x0, x1);
    assert!(s.rename(g, &[(v(0), v(1))]).is_true());
    assert!(s.rename(f, &[(v(0), v(1))]).is_false());
    assert_eq!(s.rename(f, &[(v(0), v(2)), (v(1), v(2))]), s.ff());
    assert_eq!(s.rename(f, &[]), f);
}

fn cubes<S: BddSpace>() {
    let mut s = S::new(5);
    let lits = [(v(4), true), (v(0), false), (v(2), true)];
    let (x4, not_x0, x2) = (s.lit(v(4), true), s.lit(v(0), false), s.lit(v(2), true));
    let x4_not_x0 = s.and(x4, not_x0);
    let expected = s.and(x4_not_x0, x2);
    assert_eq!(s.cube(&lits), expected);
    let mut up = lits;
    up.sort();
    assert_eq!(s.cube(&up), expected);
    up.reverse();
    assert_eq!(s.cube(&up), expected);
    assert!(s.cube(&[]).is_true());
    assert!(s.cube(&[(v(1), true), (v(1), false)]).is_false());
    let x1 = s.lit(v(1), true);
    assert_eq!(s.cube(&[(v(1), true), (v(1), true)]), x1);
}

/// The parity of variables `0..n`.
fn parity<S: BddSpace>(s: &mut S, n: u16) -> Bdd {
    let mut p = s.ff();
    for i in 0..n {
        let x = s.lit(v(i), true);
        p = s.xor(p, x);
    }
    p
}

fn queries<S: BddSpace>() {
    let mut s = S::new(6);
    let (x1, not_x4) = (s.lit(v(1), true), s.lit(v(4), false));
    let f = s.and(x1, not_x4);
    assert_eq!(s.support(f), vec![v(1), v(4)]);
    assert!(s.depends_on(f, v(1)) && s.depends_on(f, v(4)));
    assert!(!s.depends_on(f, v(0)) && !s.depends_on(f, v(3)) && !s.depends_on(f, v(5)));
    assert_eq!(s.size(f), 4);
    let (t, ff) = (s.tt(), s.ff());
    assert_eq!(s.size(t), 1);
    assert_eq!(s.size(ff), 1);
    assert!(s.support(t).is_empty());
    let p = parity(&mut s, 6);
    assert_eq!(s.size(p), 2 * 6 - 1 + 2);
    assert_eq!(s.support(p).len(), 6);
    let (live, collections) = s.table_stats();
    assert_eq!(collections, 0);
    assert!(live >= s.size(p) - 2);
}

fn evaluation<S: BddSpace>() {
    let mut s = S::new(4);
    let (x0, x2) = (s.lit(v(0), true), s.lit(v(2), true));
    let f = s.and_not(x0, x2);
    assert!(s.eval(f, &[(v(0), true)]));
    assert!(!s.eval(f, &[(v(0), true), (v(2), true)]));
    assert!(!s.eval(f, &[]));
    // The last value of a variable given twice counts.
    assert!(s.eval(f, &[(v(0), false), (v(0), true)]));
    assert!(s.eval_bits(f, &[true]));
    assert!(!s.eval_bits(f, &[true, false, true, false]));
    assert!(s.eval_bits(f, &[true, true, false, true]));
    // Fixing v0 = 1 leaves f = ¬v2, not constant; v2 = 1 makes it false.
    assert!(!s.constant_under(f, &[Some(true)], true));
    assert!(s.constant_under(f, &[None, None, Some(true)], false));
    assert!(s.constant_under(f, &[Some(false)], false));
    assert!(s.constant_under(f, &[Some(true), None, Some(false)], true));
    assert!(!s.constant_under(f, &[], false));
    let t = s.tt();
    assert!(s.constant_under(t, &[], true));
}

fn empty_conjunctions<S: BddSpace>() {
    let mut s = S::new(4);
    let (x0, x1, x2) = (s.lit(v(0), true), s.lit(v(1), true), s.lit(v(2), true));
    let a = s.or(x0, x1); // x0 ∨ x1
    let b = s.and_not(x1, x2); // x1 ∧ ¬x2
    // (x0 ∨ x1) ∧ ¬(x1 ∧ ¬x2) holds at x0 = 1, x1 = 0.
    assert!(!s.conj_empty_under(&[(a, false), (b, true)], &[]));
    // With x0 = 0 it needs x1 = 1, and then x2 = 1.
    assert!(!s.conj_empty_under(&[(a, false), (b, true)], &[Some(false)]));
    assert!(s.conj_empty_under(&[(a, false), (b, true)], &[Some(false), None, Some(false)]));
    // x1 ∧ ¬x1 is empty; a part false (or negated true) empties anything.
    assert!(s.conj_empty_under(&[(x1, false), (x1, true)], &[]));
    let (t, f) = (s.tt(), s.ff());
    assert!(s.conj_empty_under(&[(a, false), (f, false)], &[]));
    assert!(s.conj_empty_under(&[(a, false), (t, true)], &[]));
    assert!(!s.conj_empty_under(&[(f, true), (t, false)], &[]));
    // No parts: true, not empty.
    assert!(!s.conj_empty_under(&[], &[]));
    // More parts than one walk takes: x0, x1, ¬x2, ¬x3, x0 ∨ x1, ¬(x1 ∧ ¬x2).
    let x3 = s.lit(v(3), true);
    let six = [(x0, false), (x1, false), (x2, true), (x3, true), (a, false), (b, true)];
    // x1 ∧ ¬x2 makes b true: its negation empties the conjunction.
    assert!(s.conj_empty_under(&six, &[]));
    let five = [(x0, false), (x1, false), (x2, false), (x3, true), (a, false)];
    assert!(!s.conj_empty_under(&five, &[]));
    assert!(s.conj_empty_under(&five, &[None, None, None, Some(true)]));
    // Within a budget: the same answer, or none (a package that walks).
    let two = [(a, false), (b, true)];
    assert_eq!(s.conj_empty_within(&two, usize::MAX), Some(false));
    assert_eq!(s.conj_empty_within(&six, usize::MAX), Some(true));
    for budget in 0..4 {
        let got = s.conj_empty_within(&two, budget);
        assert!(got.is_none_or(|e| !e), "{got:?}");
    }
    // Decided at the top: no tuple met.
    assert_eq!(s.conj_empty_within(&[(a, false), (f, false)], 0), Some(true));
}

fn pick_is_the_first_model<S: BddSpace>() {
    let mut s = S::new(3);
    let f = s.cube(&[(v(0), true), (v(2), false)]);
    assert_eq!(
        s.pick(f, &[v(0), v(1), v(2)]),
        Some(vec![true, false, false])
    );
    let (x1, x2) = (s.lit(v(1), true), s.lit(v(2), true));
    let g = s.or(x1, x2);
    assert_eq!(
        s.pick(g, &[v(0), v(1), v(2)]),
        Some(vec![false, false, true])
    );
    assert!(s.pick(s.ff(), &[v(0)]).is_none());
    assert_eq!(s.pick(s.tt(), &[v(2)]), Some(vec![false]));
}

/// The cubes of a function are disjoint, cover it exactly, and stop at the limit.
fn cubes_are_the_paths<S: BddSpace>() {
    let mut s = S::new(3);
    let (x0, x1, x2) = (s.lit(v(0), true), s.lit(v(1), true), s.lit(v(2), true));
    let a = s.and(x0, x1);
    let f = s.or(a, x2);
    let (mut lits, mut ends) = (Vec::new(), Vec::new());
    assert!(s.cubes(f, 10, &mut lits, &mut ends));
    let mut back = s.ff();
    let mut models = 0u32;
    let mut start = 0;
    for &end in &ends {
        let c = &lits[start..end];
        start = end;
        let cube = s.cube(c);
        assert!(
            s.and(cube, back).is_false(),
            "cubes overlap: {lits:?} {ends:?}"
        );
        back = s.or(back, cube);
        models += 1 << (3 - c.len());
    }
    assert_eq!(back, f);
    // f has 5 models of 8: x2, or x0 x1 ¬x2.
    assert_eq!(models, 5);
    assert!(!s.cubes(f, 1, &mut lits, &mut ends));
    let ff = s.ff();
    assert!(s.cubes(ff, 0, &mut lits, &mut ends) && ends.is_empty());
    let tt = s.tt();
    assert!(s.cubes(tt, 1, &mut lits, &mut ends));
    assert_eq!((lits.len(), ends.as_slice()), (0, &[0][..]));
}

/// A collection keeps the listed functions (and what they reach) with
/// their numbers and meanings, and the prepared sets and renamings; it
/// frees the rest, and runs only when called for.
fn collection_keeps_the_roots<S: BddSpace>() {
    let mut s = S::new(12);
    let mut kept = parity(&mut s, 12);
    let mut also = s.cube(&[(v(3), true), (v(9), false)]);
    let (kept_index, size) = (kept.index(), s.size(kept));
    let set = s.var_set(&[v(0), v(11)]);
    let swap = s.renaming(&[(v(3), v(4)), (v(4), v(3))]);
    // Garbage: every cube over bits 4..12.
    for code in 0..256u32 {
        let lits: Vec<(BddVar, bool)> = (0..8).map(|b| (v(4 + b), code >> b & 1 == 1)).collect();
        let c = s.cube(&lits);
        let _ = s.or(kept, c);
    }
    let before = s.table_stats().0;
    assert_eq!(s.table_stats().1, 0, "a collection ran uncalled");
    s.collect(|roots| {
        roots.keep(&mut kept);
        roots.keep(&mut also);
    });
    let (after, collections) = s.table_stats();
    assert_eq!(collections, 1);
    assert!(after < before, "{after} nodes of {before} kept");
    assert_eq!(kept.index(), kept_index);
    assert_eq!(s.size(kept), size);
    let again = parity(&mut s, 12);
    assert_eq!(again, kept);
    let bits: Vec<bool> = (0..12).map(|i| i % 3 == 0).collect();
    assert!(!s.eval_bits(kept, &bits), "four ones: even parity");
    assert!(s.eval(also, &[(v(3), true)]));
    assert!(s.exists_in(kept, set).is_true());
    let swapped = s.rename_by(also, swap);
    assert_eq!(s.support(swapped), vec![v(4), v(9)]);
    // Nothing listed: only prepared sets and renamings are left.
    s.collect(|_| {});
    let fresh = s.cube(&[(v(4), true), (v(9), false)]);
    let x1 = s.lit(v(1), true);
    assert_eq!(s.exists_in(x1, set), x1);
    assert_eq!(s.support(fresh), vec![v(4), v(9)]);
}

#[test]
fn packages_by_name() {
    for p in Package::ALL {
        assert_eq!(p.to_string().parse::<Package>(), Ok(p));
        assert_eq!(Space::with_package(p, 3).package(), p);
    }
    assert_eq!(Package::default(), Package::Shared);
    assert_eq!(Space::new(2).package(), Package::Shared);
    assert_eq!("shared".parse::<Package>(), Ok(Package::Shared));
    assert_eq!("biodivine".parse::<Package>(), Ok(Package::Biodivine));
    let err = "cudd".parse::<Package>().expect_err("unknown");
    assert!(
        err.to_string().contains("unknown BDD package `cudd`"),
        "{err}"
    );
}

#[test]
fn dispatch_runs_each_package() {
    for p in Package::ALL {
        let mut s = Space::with_package(p, 4);
        let a = s.lit(v(0), true);
        let b = s.lit(v(1), true);
        let ab = s.and(a, b);
        let x3 = s.lit(v(3), true);
        let f = s.or(ab, x3);
        let set = s.var_set(&[v(3)]);
        assert_eq!(s.exists_in(f, set), s.tt(), "{p}");
        let r = s.renaming(&[(v(3), v(2))]);
        let g = s.rename_by(f, r);
        assert_eq!(s.support(g), vec![v(0), v(1), v(2)], "{p}");
        collection_keeps_the_roots::<Space>();
    }
}

/// With debug assertions, a function of one space given to another is
/// caught at once, whatever the packages.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "of another space")]
fn mixing_spaces_panics() {
    let a = Space::with_package(Package::Shared, 2).lit(v(0), true);
    let mut other = Space::with_package(Package::Biodivine, 2);
    let b = other.lit(v(0), true);
    let _ = other.and(a, b);
}

/// With debug assertions, a function that a collection did not list is
/// caught at its next use, in either package.
#[cfg(debug_assertions)]
#[test]
fn a_function_not_listed_is_caught_after_a_collection() {
    for p in Package::ALL {
        let result = std::panic::catch_unwind(|| {
            let mut s = Space::with_package(p, 4);
            let a = s.lit(v(0), true);
            let mut b = s.lit(v(1), true);
            s.collect(|roots| roots.keep(&mut b));
            let _ = s.and(b, b);
            let _ = s.or(a, b);
        });
        let message = result.expect_err("caught");
        let text = message
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or_default();
        assert!(
            text.contains("used after a collection that did not list it"),
            "{p}: {text}"
        );
    }
}
