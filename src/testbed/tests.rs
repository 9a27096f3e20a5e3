//! Unit tests of the testbed: the alphabet, the generator, and `equiv`'s
//! shortest traces.

use super::equiv::{EquivOptions, equiv};
use super::generate::{Events, GenOptions, write_trace};
use super::{Alphabet, Rng, Spec, TestbedError};
use crate::mfotl::Reading;

fn qtl(text: &str) -> Spec {
    Spec::qtl("t.qtl", text).expect("well-formed")
}

fn trace(found: &super::equiv::Found) -> Vec<String> {
    found
        .trace
        .iter()
        .map(|(n, a)| format!("{n}({})", a.join(",")))
        .collect()
}

#[test]
fn alphabet_takes_constants_first() {
    let s = qtl(r#"prop p : Forall x . a(x, "k") -> !b(x)"#);
    let a = Alphabet::new(&[&s], 3).unwrap();
    assert_eq!(a.values, ["k", "0", "1"]);
    assert_eq!(a.names, [("a".to_string(), 2), ("b".to_string(), 1)]);
    // 3^2 + 3 events.
    assert_eq!(a.letters(&[&s]).len(), 12);
}

#[test]
fn alphabet_refuses_different_arities() {
    let s = qtl("prop p : Forall x . a(x) -> !b(x)");
    let t = Spec::qtl("u.qtl", "prop p : Forall x . Forall y . a(x, y) -> P b(x)").unwrap();
    let e = Alphabet::new(&[&s, &t], 2).unwrap_err();
    assert!(matches!(e, TestbedError::Arity { ref event, .. } if event == "a"));
    assert!(
        e.to_string()
            .contains("event `a` has 1 argument(s) in t.qtl but 2 in u.qtl")
    );
}

#[test]
fn rng_is_fixed_by_its_seed() {
    let mut r = Rng::new(7);
    let first: Vec<u64> = (0..3).map(|_| r.below(10)).collect();
    let mut r = Rng::new(7);
    let again: Vec<u64> = (0..3).map(|_| r.below(10)).collect();
    assert_eq!(first, again);
    assert!(first.iter().all(|&x| x < 10));
}

#[test]
fn gen_writes_csv_and_monpoly() {
    let s = qtl("prop p : Forall x . a(x) -> !b(x)");
    let options = GenOptions {
        events: 5,
        values: 2,
        seed: 3,
        ..Default::default()
    };
    let mut out = Vec::new();
    write_trace(&s, &options, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 5);
    let events: Vec<_> = Events::new(&s, &options).unwrap().collect();
    for (line, (name, args, _)) in text.lines().zip(&events) {
        assert_eq!(line, format!("{name},{}", args.join(",")));
    }
    let m = Spec::mfotl(
        "m.mfotl",
        "a(x) AND NOT b(x)",
        "a(int)\nb(int)",
        Reading::Violations,
    )
    .unwrap();
    let mut out = Vec::new();
    write_trace(&m, &options, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.lines()
            .enumerate()
            .all(|(i, l)| l.starts_with(&format!("@{i} "))),
        "{text}"
    );
}

#[test]
fn equiv_finds_the_shortest_trace() {
    let a = qtl("prop p : Forall f . close(f) -> @ (!close(f) S open(f))");
    let b = qtl("prop p : Forall f . close(f) -> P open(f)");
    let answer = equiv(&a, &b, &EquivOptions::default()).unwrap();
    let found = answer.found.unwrap();
    assert_eq!(trace(&found), ["open(0)", "close(0)", "close(0)"]);
    assert!(!found.random);
    let p = || vec!["p".to_string()];
    assert_eq!(found.verdicts[2], (p(), vec![]));
    assert_eq!(found.verdicts[0], (vec![], vec![]));
}

#[test]
fn equiv_of_a_spec_with_itself() {
    let a = qtl("prop p : Forall f . close(f) -> @ (!close(f) S open(f))");
    let options = EquivOptions {
        length: 3,
        random: 50,
        ..Default::default()
    };
    let answer = equiv(&a, &a, &options).unwrap();
    assert_eq!(answer.found, None);
    // 2 names x 2 values, and `other`: 5 + 25 + 125 traces.
    assert_eq!(answer.searched.letters, 5);
    assert_eq!(answer.searched.traces, 155);
    assert_eq!(answer.searched.random, (50, 20));
}

#[test]
fn equiv_random_phase_finds_longer_differences() {
    // They differ only from the fifth event on.
    let a = qtl("prop p : !(@@@@true & e)");
    let b = qtl("prop p : true");
    let options = EquivOptions {
        length: 3,
        ..Default::default()
    };
    let found = equiv(&a, &b, &options).unwrap().found.unwrap();
    assert!(found.random);
    assert_eq!(found.trace.len(), 5);
    assert_eq!(found.trace[4].0, "e");
}

#[test]
fn equiv_pairs_by_name() {
    let a = qtl("prop p : a -> P b\nprop q : b -> P a");
    let b = qtl("prop q : b -> P a\nprop r : a -> P b");
    let e = equiv(&a, &b, &EquivOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("only t.qtl has `p`; only t.qtl has `r`"),
        "{e}"
    );
}

#[test]
fn equiv_with_future_operators_compares_whole_traces() {
    // `X resp` and `F[<=1] resp` are the same on an untimed trace.
    let next = qtl("prop p : req -> X resp");
    let soon = qtl("prop p : req -> F[<=1] resp");
    let options = EquivOptions {
        length: 3,
        random: 100,
        ..Default::default()
    };
    assert_eq!(equiv(&next, &soon, &options).unwrap().found, None);
    // Within two events is not the next one.
    let later = qtl("prop p : req -> F[<=2] resp");
    let found = equiv(&next, &later, &options).unwrap().found.unwrap();
    assert_eq!(trace(&found), ["req()", "req()", "resp()"]);
    let p = || vec!["p".to_string()];
    assert_eq!(
        found.verdicts,
        [(p(), vec![]), (vec![], vec![]), (vec![], vec![])]
    );
    assert!(
        found
            .undecided
            .iter()
            .all(|(a, b)| a.is_empty() && b.is_empty())
    );
    // A past formulation against a future one: every `resp` answers an
    // earlier `req`, against every `req` answered by the next event.
    let past = qtl("prop p : resp -> @req");
    let found = equiv(&past, &next, &options).unwrap().found.unwrap();
    assert_eq!(trace(&found), ["req()"]);
    assert_eq!(found.verdicts, [(vec![], p())]);
}

#[test]
fn a_cloned_monitor_goes_its_own_way() {
    let s = qtl("prop p : Forall f . close(f) -> @ (!close(f) S open(f))");
    let mut m = s.monitor().unwrap();
    m.step(b"open", &[b"a"], 0).unwrap();
    let mut c = m.clone();
    m.step(b"close", &[b"a"], 0).unwrap();
    assert_eq!(m.step(b"close", &[b"a"], 0).unwrap(), &[0]);
    // The clone has not seen the first close.
    assert!(c.step(b"close", &[b"a"], 0).unwrap().is_empty());
    assert_eq!((m.events(), c.events()), (3, 2));
}

#[test]
fn equiv_of_the_papers_two_telemetry_properties() {
    // telemetry1 (one rule) against telemetry2 (two mutually recursive
    // rules): they differ once a channel is toggled at the first event.
    let a = qtl("prop t : Forall x . closed(x) -> !telem(x)
                   where closed(x) := toggle(x) <-> @!closed(x)");
    let b = qtl("prop t : Forall x . closed(x) -> !telem(x) where
      closed(x) := (!@true & !toggle(x)) | (@closed(x) & !toggle(x)) | (@open(x) & toggle(x)),
      open(x)   := (@open(x) & !toggle(x)) | (@closed(x) & toggle(x))");
    let found = equiv(&a, &b, &EquivOptions::default())
        .unwrap()
        .found
        .unwrap();
    assert_eq!(trace(&found), ["toggle(0)", "toggle(0)", "telem(0)"]);
    let t = || vec!["t".to_string()];
    assert_eq!(found.verdicts[2], (t(), vec![]));
}

/// The shortest distinguishing trace by brute force: every trace, shortest
/// first and in the alphabet's order, replayed from the start.
fn naive(a: &Spec, b: &Spec, length: usize, values: usize) -> Option<Vec<String>> {
    use super::verdicts::Side;
    let alphabet = Alphabet::with_other(&[a, b], values).unwrap();
    let letters = alphabet.letters(&[a, b]);
    let pairs: Vec<(usize, usize)> = if a.property_names().len() == 1 {
        vec![(0, 0)]
    } else {
        let nb = b.property_names();
        a.property_names()
            .iter()
            .enumerate()
            .map(|(i, n)| (i, nb.iter().position(|m| m == n).unwrap()))
            .collect()
    };
    for len in 1..=length {
        let total = letters.len().pow(len as u32);
        for code in 0..total {
            let mut digits = vec![0; len];
            let mut c = code;
            for d in digits.iter_mut().rev() {
                *d = c % letters.len();
                c /= letters.len();
            }
            let mut sides = [
                Side::new(a.monitor().unwrap()),
                Side::new(b.monitor().unwrap()),
            ];
            let mut shown = Vec::new();
            for &d in &digits {
                let (name, vals) = alphabet.event(&letters[d]);
                for (side, spec) in sides.iter_mut().zip([a, b]) {
                    let args = spec.read(&name, &vals).unwrap();
                    let args: Vec<&[u8]> = args.iter().map(|x| &**x).collect();
                    side.step(name.as_bytes(), &args).unwrap();
                }
                shown.push(format!("{name}({})", vals.join(",")));
            }
            let (x, y) = (sides[0].closed(), sides[1].closed());
            let differ = x
                .iter()
                .zip(&y)
                .any(|(p, q)| pairs.iter().any(|&(i, j)| p.of(i) != q.of(j)));
            if differ {
                return Some(shown);
            }
        }
    }
    None
}

#[test]
fn equiv_agrees_with_brute_force() {
    let cases = [
        ("prop p : P a", "prop p : a | @P a"),
        ("prop p : a S b", "prop p : b | (a & @(a S b))"),
        ("prop p : @a", "prop p : a"),
        ("prop p : !(a & @a)", "prop p : !(a & @@a)"),
        (
            "prop p : Forall x . a(x) -> !@P a(x)",
            "prop p : Forall x . a(x) -> !@a(x)",
        ),
        (
            "prop p : Forall x . b(x) -> P a(x)",
            "prop p : Forall x . b(x) -> @P a(x)",
        ),
        ("prop p : a -> X b", "prop p : a -> F[<=2] b"),
        ("prop p : a -> F[1,2] b", "prop p : a -> X (b | X b)"),
        (
            "prop p : a -> F[<=2] b\nprop q : @a",
            "prop q : @a\nprop p : a -> X (b | X b)",
        ),
        ("prop p : q -> a where q := @!q", "prop p : @!a -> a"),
    ];
    let mut differ = 0;
    for (x, y) in cases {
        let (a, b) = (qtl(x), qtl(y));
        let options = EquivOptions {
            length: 3,
            random: 0,
            ..Default::default()
        };
        let got = equiv(&a, &b, &options).unwrap().found.map(|f| trace(&f));
        assert_eq!(got, naive(&a, &b, 3, 2), "{x} against {y}");
        differ += usize::from(got.is_some());
    }
    // Both kinds of pair are there: the first two agree, `@a` and `a` do not.
    assert!((3..cases.len() - 1).contains(&differ), "{differ}");
}
