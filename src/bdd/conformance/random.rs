//! Random formulas over [`N`] variables, built in each package and
//! compared with their truth tables and with each other.

use proptest::prelude::*;

use super::v;
use crate::bdd::{Bdd, BddSpace, BddVar, biodivine, shared};

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
    /// `g ∨ (f|lits ∧ cube)`.
    OrCofactor(Vec<(u16, bool)>, Vec<(u16, bool)>, Box<Formula>, Box<Formula>),
    /// `f ∧ cube(lits)`, walked with a budget (built past it).
    AndCube(Vec<(u16, bool)>, usize, Box<Formula>),
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
            (
                proptest::collection::vec((0..N, any::<bool>()), 0..5),
                0..6usize,
                inner.clone()
            )
                .prop_map(|(ls, budget, f)| Formula::AndCube(ls, budget, Box::new(f))),
            (proptest::collection::vec((0..N, 0..N), 0..4), inner.clone())
                .prop_map(|(ps, f)| Formula::Rename(ps, Box::new(f))),
            (
                proptest::collection::vec((0..N, any::<bool>()), 0..4),
                proptest::collection::vec((0..N, any::<bool>()), 0..4),
                inner.clone(),
                inner
            )
                .prop_map(|(ls, ks, g, f)| Formula::OrCofactor(
                    ls,
                    ks,
                    Box::new(g),
                    Box::new(f)
                )),
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
        Formula::OrCofactor(ls, ks, g, f) => {
            let restricted = truth(&Formula::Restrict(ls.clone(), f.clone()), x);
            let cube = ks.iter().all(|&(v, b)| bit(x, v) == b);
            truth(g, x) || (restricted && cube)
        }
        Formula::AndCube(ls, _, f) => truth(f, x) && ls.iter().all(|&(v, b)| bit(x, v) == b),
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
fn build<S: BddSpace>(s: &mut S, f: &Formula) -> Bdd {
    match f {
        Formula::Const(b) => s.constant(*b),
        Formula::Var(i, b) => s.lit(v(*i), *b),
        Formula::Not(f) => {
            let a = build(s, f);
            s.not(a)
        }
        Formula::Bin(op, f, g) => {
            let (a, b) = (build(s, f), build(s, g));
            match op {
                0 => s.and(a, b),
                1 => s.or(a, b),
                2 => s.xor(a, b),
                3 => s.iff(a, b),
                4 => s.imp(a, b),
                _ => s.and_not(a, b),
            }
        }
        Formula::Ite(c, t, e) => {
            let (c, t, e) = (build(s, c), build(s, t), build(s, e));
            s.ite(c, t, e)
        }
        Formula::Exists(vs, f) => {
            let a = build(s, f);
            s.exists(a, &vars(vs))
        }
        Formula::Forall(vs, f) => {
            let a = build(s, f);
            let set = s.var_set(&vars(vs));
            s.forall_in(a, set)
        }
        Formula::AndExists(vs, f, g) => {
            let (a, b) = (build(s, f), build(s, g));
            s.and_exists(a, b, &vars(vs))
        }
        Formula::Restrict(ls, f) => {
            let lits: Vec<(BddVar, bool)> = ls.iter().map(|&(i, b)| (v(i), b)).collect();
            let a = build(s, f);
            s.restrict(a, &lits)
        }
        Formula::OrCofactor(ls, ks, g, f) => {
            let lits = |ls: &[(u16, bool)]| -> Vec<(BddVar, bool)> {
                ls.iter().map(|&(i, b)| (v(i), b)).collect()
            };
            let (a, b) = (build(s, g), build(s, f));
            s.or_cofactor(a, b, &lits(ls), &lits(ks))
        }
        Formula::AndCube(ls, budget, f) => {
            let lits: Vec<(BddVar, bool)> = ls.iter().map(|&(i, b)| (v(i), b)).collect();
            let a = build(s, f);
            match s.and_cube(a, &lits, *budget) {
                Some(r) => r,
                None => {
                    let cube = s.cube(&lits);
                    s.and(a, cube)
                }
            }
        }
        Formula::Rename(ps, f) => {
            // Renamings take the first pair of a variable (as the reference).
            let mut pairs: Vec<(BddVar, BddVar)> = Vec::new();
            for &(from, to) in ps {
                if pairs.iter().all(|&(w, _)| w != v(from)) {
                    pairs.push((v(from), v(to)));
                }
            }
            let a = build(s, f);
            let renaming = s.renaming(&pairs);
            s.rename_by(a, renaming)
        }
    }
}

/// The truth table of `b` over the `N` variables, by `eval_bits`.
fn table<S: BddSpace>(s: &S, b: Bdd) -> Vec<bool> {
    (0..1u32 << N)
        .map(|x| {
            let bits: Vec<bool> = (0..N).map(|i| x >> i & 1 == 1).collect();
            s.eval_bits(b, &bits)
        })
        .collect()
}

/// What the two packages must agree on about one function: truth table,
/// size, support, first model and dependence on each variable.
type Summary = (Vec<bool>, usize, Vec<BddVar>, Option<Vec<bool>>, Vec<bool>);

/// The [`Summary`] of `b`.
fn summary<S: BddSpace>(s: &mut S, b: Bdd) -> Summary {
    let all: Vec<BddVar> = (0..N).map(v).collect();
    let depends = (0..N).map(|i| s.depends_on(b, v(i))).collect();
    (
        table(s, b),
        s.size(b),
        s.support(b),
        s.pick(b, &all),
        depends,
    )
}

/// `f` built in a fresh space of package `S`: its summary, the same before
/// and after a collection that keeps it and frees the rest of its building.
fn built<S: BddSpace>(f: &Formula) -> Summary {
    let mut s = S::new(N as usize);
    let mut b = build(&mut s, f);
    let before = summary(&mut s, b);
    s.collect(|roots| roots.keep(&mut b));
    assert_eq!(
        summary(&mut s, b),
        before,
        "a collection changed a kept function"
    );
    before
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Each package computes the reference truth table, and the two packages
    /// agree on the size, support and first model of every function.
    #[test]
    fn packages_agree_with_truth_tables(f in formula()) {
        let expected: Vec<bool> = (0..1u32 << N).map(|x| truth(&f, x)).collect();
        let shared = built::<shared::Space>(&f);
        let bio = built::<biodivine::Space>(&f);
        prop_assert_eq!(&shared.0, &expected);
        prop_assert_eq!(&bio.0, &expected);
        prop_assert_eq!(&shared, &bio);
        let first = (0..1u32 << N).find(|&x| expected[x as usize]);
        let bits = |x: u32| (0..N).map(|i| x >> i & 1 == 1).collect::<Vec<bool>>();
        // Lexicographically first with variable 0 most significant: the
        // reversed bit order of the smallest number.
        let first_model = (0..1u32 << N)
            .map(|x| x.reverse_bits() >> (32 - N))
            .find(|&x| expected[x as usize])
            .map(bits);
        prop_assert_eq!(first.is_some(), first_model.is_some());
        prop_assert_eq!(&shared.3, &first_model);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// `conj_empty_under` of up to six random parts, some negated, under a
    /// random partial assignment, is what the truth tables say, in each
    /// package.
    #[test]
    fn empty_conjunctions_agree_with_truth_tables(
        parts in proptest::collection::vec((formula(), any::<bool>()), 0..7),
        fixed in proptest::collection::vec(proptest::option::of(any::<bool>()), N as usize),
    ) {
        let agrees = |x: u32| {
            fixed.iter().enumerate().all(|(i, b)| b.is_none_or(|b| (x >> i & 1 == 1) == b))
        };
        let expected = !(0..1u32 << N)
            .any(|x| agrees(x) && parts.iter().all(|(f, neg)| truth(f, x) != *neg));
        prop_assert_eq!(empty_in::<shared::Space>(&parts, &fixed), expected);
        prop_assert_eq!(empty_in::<biodivine::Space>(&parts, &fixed), expected);
    }
}

/// `conj_empty_under` of `parts` built in a fresh space of package `S`.
fn empty_in<S: BddSpace>(parts: &[(Formula, bool)], fixed: &[Option<bool>]) -> bool {
    let mut s = S::new(N as usize);
    let built: Vec<(Bdd, bool)> = parts.iter().map(|(f, neg)| (build(&mut s, f), *neg)).collect();
    s.conj_empty_under(&built, fixed)
}
