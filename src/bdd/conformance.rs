//! The conformance suite of the BDD layer: every check is written once,
//! generic over a package ([`BddSpace`]), and run for each package; a
//! property test compares each package with truth tables of random
//! formulas over up to eight variables, and the two packages with each other.

use proptest::prelude::*;

use super::{BddFunction, BddSpace, BddVar, Package, Space, biodivine, shared};

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
    renaming,
    cubes,
    queries,
    evaluation,
    pick_is_the_first_model,
);

fn constants_and_literals<S: BddSpace>() {
    let s = S::new(4);
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
    assert_eq!(s.lit(v(1), false), a.not());
    assert_eq!(s.tt().not(), s.ff());
}

fn connectives<S: BddSpace>() {
    let s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    assert!(a.and(&a.not()).is_false());
    assert!(a.or(&a.not()).is_true());
    assert_eq!(a.imp(&b), a.not().or(&b));
    assert_eq!(a.iff(&b), a.xor(&b).not());
    assert_eq!(a.and_not(&b), a.and(&b.not()));
    assert_eq!(a.and(&b), b.and(&a));
    assert_eq!(S::Bdd::ite(&a, &b, &b.not()), a.iff(&b));
    assert_eq!(S::Bdd::ite(&s.tt(), &a, &b), a);
    assert_eq!(S::Bdd::ite(&s.ff(), &a, &b), b);
    assert_eq!(a.not().not(), a);
}

fn quantifiers<S: BddSpace>() {
    let s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    assert_eq!(a.and(&b).exists(&[v(0)]), b);
    assert_eq!(a.or(&b).forall(&[v(0)]), b);
    assert!(a.and(&b).forall(&[v(0)]).is_false());
    assert!(a.or(&b).exists(&[v(0), v(1)]).is_true());
    assert_eq!(a.exists(&[]), a);
    assert_eq!(a.and_exists(&b, &[v(1)]), a);
    assert!(a.and_exists(&a.not(), &[v(2)]).is_false());
    assert_eq!(s.tt().exists(&[v(0)]), s.tt());
}

fn prepared_sets_and_renamings<S: BddSpace>() {
    let s = S::new(6);
    let f = s
        .lit(v(0), true)
        .and(&s.lit(v(3), false))
        .or(&s.lit(v(5), true));
    let g = s.lit(v(3), true).xor(&s.lit(v(4), true));
    let set = s.var_set(&[v(3), v(5)]);
    for _ in 0..2 {
        assert_eq!(f.exists_in(&set), f.exists(&[v(3), v(5)]));
        assert_eq!(f.forall_in(&set), f.forall(&[v(3), v(5)]));
        assert_eq!(f.and_exists_in(&g, &set), f.and_exists(&g, &[v(3), v(5)]));
    }
    let pairs = [(v(0), v(1)), (v(3), v(2))];
    let r = s.renaming(&pairs);
    for _ in 0..2 {
        assert_eq!(f.rename_by(&r), f.rename(&s, &pairs));
    }
    let empty = s.var_set(&[]);
    assert_eq!(f.exists_in(&empty), f);
}

fn restriction<S: BddSpace>() {
    let s = S::new(4);
    let a = s.lit(v(0), true);
    let b = s.lit(v(1), true);
    assert_eq!(a.and(&b).restrict(&[(v(0), true)]), b);
    assert!(a.and(&b).restrict(&[(v(0), false)]).is_false());
    assert_eq!(a.and(&b).restrict(&[]), a.and(&b));
    // A variable given twice: its first value counts.
    assert_eq!(a.and(&b).restrict(&[(v(0), true), (v(0), false)]), b);
    assert!(a.restrict(&[(v(0), false), (v(0), true)]).is_false());
    let f = a.xor(&b).restrict(&[(v(1), true)]);
    assert_eq!(f, a.not());
    assert!(!f.depends_on(v(1)));
}

fn renaming<S: BddSpace>() {
    let s = S::new(4);
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
    assert_eq!(h.rename(&s, &[]), h);
}

fn cubes<S: BddSpace>() {
    let s = S::new(5);
    let lits = [(v(4), true), (v(0), false), (v(2), true)];
    let expected = s
        .lit(v(4), true)
        .and(&s.lit(v(0), false))
        .and(&s.lit(v(2), true));
    assert_eq!(s.cube(&lits), expected);
    let mut up = lits;
    up.sort();
    assert_eq!(s.cube(&up), expected);
    up.reverse();
    assert_eq!(s.cube(&up), expected);
    assert!(s.cube(&[]).is_true());
    assert!(s.cube(&[(v(1), true), (v(1), false)]).is_false());
    assert_eq!(s.cube(&[(v(1), true), (v(1), true)]), s.lit(v(1), true));
}

fn queries<S: BddSpace>() {
    let s = S::new(6);
    let f = s.lit(v(1), true).and(&s.lit(v(4), false));
    assert_eq!(f.support(), vec![v(1), v(4)]);
    assert!(f.depends_on(v(1)) && f.depends_on(v(4)));
    assert!(!f.depends_on(v(0)) && !f.depends_on(v(3)) && !f.depends_on(v(5)));
    assert_eq!(f.size(), 4);
    assert_eq!(s.tt().size(), 1);
    assert_eq!(s.ff().size(), 1);
    assert!(s.tt().support().is_empty());
    let parity = (0..6).fold(s.ff(), |p, i| p.xor(&s.lit(v(i), true)));
    assert_eq!(parity.size(), 2 * 6 - 1 + 2);
    assert_eq!(parity.support().len(), 6);
    assert_eq!(s.sharing(3).num_vars(), 3);
    let (live, collections) = s.table_stats();
    assert_eq!(collections, 0);
    assert!(live == 0 || live >= parity.size() - 2);
}

fn evaluation<S: BddSpace>() {
    let s = S::new(4);
    let f = s.lit(v(0), true).and_not(&s.lit(v(2), true));
    assert!(f.eval(&[(v(0), true)]));
    assert!(!f.eval(&[(v(0), true), (v(2), true)]));
    assert!(!f.eval(&[]));
    // The last value of a variable given twice counts.
    assert!(f.eval(&[(v(0), false), (v(0), true)]));
    assert!(f.eval_bits(&[true]));
    assert!(!f.eval_bits(&[true, false, true, false]));
    assert!(f.eval_bits(&[true, true, false, true]));
    // Fixing v0 = 1 leaves f = ¬v2, not constant; v2 = 1 makes it false.
    assert!(!f.constant_under(&[Some(true)], true));
    assert!(f.constant_under(&[None, None, Some(true)], false));
    assert!(f.constant_under(&[Some(false)], false));
    assert!(f.constant_under(&[Some(true), None, Some(false)], true));
    assert!(!f.constant_under(&[], false));
    assert!(s.tt().constant_under(&[], true));
}

fn pick_is_the_first_model<S: BddSpace>() {
    let s = S::new(3);
    let f = s.cube(&[(v(0), true), (v(2), false)]);
    assert_eq!(f.pick(&[v(0), v(1), v(2)]), Some(vec![true, false, false]));
    let g = s.lit(v(1), true).or(&s.lit(v(2), true));
    assert_eq!(g.pick(&[v(0), v(1), v(2)]), Some(vec![false, false, true]));
    assert!(s.ff().pick(&[v(0)]).is_none());
    assert_eq!(s.tt().pick(&[v(2)]), Some(vec![false]));
}

/// The number of variables of the random formulas.
const N: u16 = 8;

/// A random formula over variables `0..N`.
#[derive(Clone, Debug)]
enum Formula {
    Const(bool),
    Var(u16, bool),
    Not(Box<Formula>),
    Bin(u8, Box<Formula>, Box<Formula>),
    Ite(Box<Formula>, Box<Formula>, Box<Formula>),
    Exists(Vec<u16>, Box<Formula>),
    Forall(Vec<u16>, Box<Formula>),
    AndExists(Vec<u16>, Box<Formula>, Box<Formula>),
    Restrict(Vec<(u16, bool)>, Box<Formula>),
    Rename(Vec<(u16, u16)>, Box<Formula>),
}

fn formula() -> impl Strategy<Value = Formula> {
    let var = 0..N;
    let leaf = prop_oneof![
        any::<bool>().prop_map(Formula::Const),
        (var.clone(), any::<bool>()).prop_map(|(v, b)| Formula::Var(v, b)),
    ];
    leaf.prop_recursive(6, 48, 3, move |inner| {
        let vars = proptest::collection::vec(0..N, 0..4);
        prop_oneof![
            inner.clone().prop_map(|f| Formula::Not(Box::new(f))),
            (0..6u8, inner.clone(), inner.clone()).prop_map(|(op, f, g)| Formula::Bin(
                op,
                Box::new(f),
                Box::new(g)
            )),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, t, e)| Formula::Ite(
                Box::new(c),
                Box::new(t),
                Box::new(e)
            )),
            (vars.clone(), inner.clone()).prop_map(|(vs, f)| Formula::Exists(vs, Box::new(f))),
            (vars.clone(), inner.clone()).prop_map(|(vs, f)| Formula::Forall(vs, Box::new(f))),
            (vars, inner.clone(), inner.clone()).prop_map(|(vs, f, g)| Formula::AndExists(
                vs,
                Box::new(f),
                Box::new(g)
            )),
            (
                proptest::collection::vec((0..N, any::<bool>()), 0..4),
                inner.clone()
            )
                .prop_map(|(ls, f)| Formula::Restrict(ls, Box::new(f))),
            (proptest::collection::vec((0..N, 0..N), 0..4), inner)
                .prop_map(|(ps, f)| Formula::Rename(ps, Box::new(f))),
        ]
    })
}

fn bin(op: u8, a: bool, b: bool) -> bool {
    match op {
        0 => a && b,
        1 => a || b,
        2 => a != b,
        3 => a == b,
        4 => !a || b,
        _ => a && !b,
    }
}

/// The value of `f` under the assignment `x` (bit `i` of `x` is variable
/// `i`): the reference semantics.
fn truth(f: &Formula, x: u32) -> bool {
    let bit = |x: u32, v: u16| x >> v & 1 == 1;
    // Every assignment that agrees with `x` outside `vs`.
    let around = |vs: &[u16]| {
        let mask: u32 = vs.iter().map(|&v| 1 << v).fold(0, |a, b| a | b);
        (0..1u32 << N).filter(move |y| y & !mask == x & !mask)
    };
    match f {
        Formula::Const(b) => *b,
        Formula::Var(v, b) => bit(x, *v) == *b,
        Formula::Not(f) => !truth(f, x),
        Formula::Bin(op, f, g) => bin(*op, truth(f, x), truth(g, x)),
        Formula::Ite(c, t, e) => {
            if truth(c, x) {
                truth(t, x)
            } else {
                truth(e, x)
            }
        }
        Formula::Exists(vs, f) => around(vs).any(|y| truth(f, y)),
        Formula::Forall(vs, f) => around(vs).all(|y| truth(f, y)),
        Formula::AndExists(vs, f, g) => around(vs).any(|y| truth(f, y) && truth(g, y)),
        Formula::Restrict(ls, f) => {
            let mut y = x;
            for (i, &(v, b)) in ls.iter().enumerate() {
                if ls[..i].iter().all(|&(w, _)| w != v) {
                    y = (y & !(1 << v)) | (u32::from(b) << v);
                }
            }
            truth(f, y)
        }
        Formula::Rename(ps, f) => {
            // f[σ](x) = f(y) with y(v) = x(σ(v)); the first pair of a variable counts.
            let mut y = x;
            for v in 0..N {
                if let Some(&(_, t)) = ps.iter().find(|&&(from, _)| from == v) {
                    y = (y & !(1 << v)) | (u32::from(bit(x, t)) << v);
                }
            }
            truth(f, y)
        }
    }
}

fn vars(vs: &[u16]) -> Vec<BddVar> {
    vs.iter().map(|&i| v(i)).collect()
}

/// The BDD of `f` in space `s`.
fn build<S: BddSpace>(s: &S, f: &Formula) -> S::Bdd {
    match f {
        Formula::Const(b) => s.constant(*b),
        Formula::Var(i, b) => s.lit(v(*i), *b),
        Formula::Not(f) => build(s, f).not(),
        Formula::Bin(op, f, g) => {
            let (a, b) = (build(s, f), build(s, g));
            match op {
                0 => a.and(&b),
                1 => a.or(&b),
                2 => a.xor(&b),
                3 => a.iff(&b),
                4 => a.imp(&b),
                _ => a.and_not(&b),
            }
        }
        Formula::Ite(c, t, e) => S::Bdd::ite(&build(s, c), &build(s, t), &build(s, e)),
        Formula::Exists(vs, f) => build(s, f).exists(&vars(vs)),
        Formula::Forall(vs, f) => build(s, f).forall_in(&s.var_set(&vars(vs))),
        Formula::AndExists(vs, f, g) => build(s, f).and_exists(&build(s, g), &vars(vs)),
        Formula::Restrict(ls, f) => {
            let lits: Vec<(BddVar, bool)> = ls.iter().map(|&(i, b)| (v(i), b)).collect();
            build(s, f).restrict(&lits)
        }
        Formula::Rename(ps, f) => {
            // Renamings take the first pair of a variable (as the reference).
            let mut pairs: Vec<(BddVar, BddVar)> = Vec::new();
            for &(from, to) in ps {
                if pairs.iter().all(|&(w, _)| w != v(from)) {
                    pairs.push((v(from), v(to)));
                }
            }
            build(s, f).rename_by(&s.renaming(&pairs))
        }
    }
}

/// The truth table of `b` over the `N` variables, by `eval_bits`.
fn table<F: BddFunction>(b: &F) -> Vec<bool> {
    (0..1u32 << N)
        .map(|x| {
            let bits: Vec<bool> = (0..N).map(|i| x >> i & 1 == 1).collect();
            b.eval_bits(&bits)
        })
        .collect()
}

/// What the two packages must agree on about one function.
fn summary<F: BddFunction>(b: &F) -> (Vec<bool>, usize, Vec<BddVar>, Option<Vec<bool>>) {
    let all: Vec<BddVar> = (0..N).map(v).collect();
    (table(b), b.size(), b.support(), b.pick(&all))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Each package computes the reference truth table, and the two packages
    /// agree on the size, support and first model of every function.
    #[test]
    fn packages_agree_with_truth_tables(f in formula()) {
        let expected: Vec<bool> = (0..1u32 << N).map(|x| truth(&f, x)).collect();
        let shared = build(&shared::Space::new(N as usize), &f);
        let bio = build(&biodivine::Space::new(N as usize), &f);
        prop_assert_eq!(&table(&shared), &expected);
        prop_assert_eq!(&table(&bio), &expected);
        prop_assert_eq!(summary(&shared), summary(&bio));
        for i in 0..N {
            prop_assert_eq!(shared.depends_on(v(i)), bio.depends_on(v(i)));
        }
        let first = (0..1u32 << N).find(|&x| expected[x as usize]);
        let bits = |x: u32| (0..N).map(|i| x >> i & 1 == 1).collect::<Vec<bool>>();
        // Lexicographically first with variable 0 most significant: the
        // reversed bit order of the smallest number.
        let first_model = (0..1u32 << N)
            .map(|x| x.reverse_bits() >> (32 - N))
            .find(|&x| expected[x as usize])
            .map(bits);
        prop_assert_eq!(first.is_some(), first_model.is_some());
        prop_assert_eq!(shared.pick(&(0..N).map(v).collect::<Vec<_>>()), first_model);
    }
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
        let s = Space::with_package(p, 4);
        let a = s.lit(v(0), true);
        let b = s.lit(v(1), true);
        let f = a.and(&b).or(&s.lit(v(3), true));
        assert_eq!(f.exists_in(&s.var_set(&[v(3)])), s.tt(), "{p}");
        assert_eq!(
            f.rename_by(&s.renaming(&[(v(3), v(2))])).support(),
            vec![v(0), v(1), v(2)],
            "{p}"
        );
        assert_eq!(s.sharing(2).package(), p);
    }
}

#[test]
#[should_panic(expected = "two different packages")]
fn mixing_packages_panics() {
    let a = Space::with_package(Package::Shared, 2).lit(v(0), true);
    let b = Space::with_package(Package::Biodivine, 2).lit(v(0), true);
    let _ = a.and(&b);
}
