//! Which state records of a compacted warm-up ([`super::compact`]) a later
//! record overrides, so that the warm-up need not step them.
//!
//! In a property whose sinces read only the event at hand, a since `φ S
//! ψ` holds for a tuple of values exactly when the last event that
//! *touches* the tuple (makes ψ true or φ false for it) makes ψ true: the
//! last event where ψ holds then comes no earlier than the last where φ
//! fails, and if it makes φ false only, later. So only each tuple's last
//! toucher decides it, and a record that touches, in every since, only
//! tuples that later records touch again changes nothing the warm-up
//! must reach. (A user who logged in and then out is as if never seen;
//! of one who logged out and then in, only the login counts.)
//!
//! Which tuples a record touches is read from the atoms under each since:
//! an atom whose arguments are distinct variables among which every free
//! variable of the since stands touches, for a record of its event, the
//! tuple of the values at those variables' places. A record of an event
//! that stands under a since in any other atom (a constant, a repeated
//! variable, a free variable of the since missing) is always stepped. As
//! with any warm-up, the state reached is compared with the true one
//! before the segment's verdicts are taken.

use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashSet;

use crate::plan::{Arg, NodeIx, Op, Plan, PropPlan};
use crate::syntax::Quant;

/// Per event name of a plan (in the order of its events), how its records
/// touch the plan's sinces.
#[derive(Debug)]
pub(super) struct Touches {
    /// Per name: `(since, places)`: the since (numbered over the plan)
    /// whose tuples a record touches, at the values in these argument
    /// places (one per free variable of the since, in their order).
    exact: Vec<Vec<(usize, Vec<usize>)>>,
    /// Per name: whether a record may touch a since in another way: it is
    /// always stepped.
    kept: Vec<bool>,
    /// `(name, since)` where a record touches the tuple only perhaps (the
    /// operands' value depends on other atoms of its event): it does not
    /// make an earlier touch of the tuple needless.
    maybe: Vec<(usize, usize)>,
    /// The sinces of the plan.
    sinces: usize,
    /// How tuples are hashed (the same for every record: a builder may
    /// be seeded at random).
    hasher: hashbrown::DefaultHashBuilder,
}

impl Touches {
    /// How the records of `plan`'s events touch its sinces (their operands
    /// without temporal operators: [`super::compactable`]).
    pub(super) fn of(plan: &Plan) -> Touches {
        let index: hashbrown::HashMap<&str, usize> =
            (plan.events.keys().enumerate()).map(|(i, e)| (e.as_str(), i)).collect();
        let names = plan.events.len();
        let mut out = Touches {
            exact: vec![Vec::new(); names],
            kept: vec![false; names],
            maybe: Vec::new(),
            sinces: 0,
            hasher: hashbrown::DefaultHashBuilder::default(),
        };
        let mut since = 0;
        for p in &plan.props {
            for (n, node) in p.nodes.iter().enumerate() {
                let Op::Since(phi, psi) = node.op else {
                    continue;
                };
                for atom in atoms(p, &[phi, psi]) {
                    let Op::Atom { event, args } = &p.nodes[atom].op else {
                        continue;
                    };
                    let Some(&e) = index.get(event.as_str()) else {
                        continue;
                    };
                    let Some(at) = places(&p.nodes[n].free, args) else {
                        out.kept[e] = true;
                        continue;
                    };
                    // With this atom true, the other atoms of its event
                    // unknown and those of other events false (one event a
                    // step): whether ψ holds or φ fails for sure.
                    let value = |root| eval(p, root, atom);
                    let (phi, psi) = (value(phi), value(psi));
                    if psi == Some(true) || phi == Some(false) {
                        out.exact[e].push((since, at));
                    } else if psi.is_none() || phi.is_none() {
                        // It may touch the tuple: stepped unless a later
                        // record surely did.
                        out.exact[e].push((since, at.clone()));
                        out.maybe.push((e, since));
                    }
                }
                since += 1;
            }
        }
        out.sinces = since;
        out
    }

    /// The keys by which the record `args` of event `name` counts in the
    /// estimate of a warm-up's steps ([`super::compact::population`]):
    /// per since it surely touches, `(since, its tuple)`; otherwise (it
    /// is always stepped, or only perhaps touches) the record itself,
    /// `(sinces + name, all its arguments)`. Hashed.
    pub(super) fn keys(&self, name: u32, args: &[&[u8]], out: &mut Vec<(usize, u64)>) {
        let hasher = &self.hasher;
        let name = name as usize;
        let exact = self.exact.get(name).map_or(&[][..], |v| &v[..]);
        let whole = self.kept.get(name).is_none_or(|&k| k)
            || exact.iter().any(|(since, _)| self.maybe.contains(&(name, *since)));
        if whole {
            out.push((self.sinces + name, hasher.hash_one(args)));
            return;
        }
        for (since, at) in exact {
            let mut h = hasher.build_hasher();
            for &i in at {
                args.get(i).hash(&mut h);
            }
            out.push((*since, h.finish()));
        }
    }

    /// Of `records` (`(name, fields)`: the event name's index and the
    /// record's arguments), in the order they came, which must be
    /// stepped: those that touch some since's tuple that no later one
    /// touches.
    pub(super) fn needed(&self, records: &[(u32, Vec<&[u8]>)]) -> Vec<bool> {
        let hasher = &self.hasher;
        let mut touched: HashSet<(usize, u64)> = HashSet::new();
        let mut out = vec![false; records.len()];
        for (k, (name, args)) in records.iter().enumerate().rev() {
            let name = *name as usize;
            let mut needed = self.kept.get(name).is_none_or(|&kept| kept);
            for (since, at) in self.exact.get(name).map_or(&[][..], |v| &v[..]) {
                let mut h = hasher.build_hasher();
                for &i in at {
                    args.get(i).hash(&mut h);
                }
                let key = (*since, h.finish());
                if self.maybe.contains(&(name, *since)) {
                    needed |= !touched.contains(&key);
                } else {
                    needed |= touched.insert(key);
                }
            }
            out[k] = needed;
        }
        out
    }
}

/// The atom nodes under `roots`, down to the leaves.
fn atoms(p: &PropPlan, roots: &[NodeIx]) -> Vec<NodeIx> {
    let mut todo = roots.to_vec();
    let mut out = Vec::new();
    while let Some(n) = todo.pop() {
        match &p.nodes[n].op {
            Op::Atom { .. } => out.push(n),
            op => todo.extend(op.same_step_kids().iter()),
        }
    }
    out
}

/// The value of `n` (an operand of a since, without temporal operators)
/// at an event that makes the atom `atom` true for the tuple and the
/// values of its quantified variables: other atoms of that event
/// unknown, those of other events false; `None` when unknown. A
/// quantifier keeps what holds at those values: `Exists` a truth,
/// `Forall` a falsity.
fn eval(p: &PropPlan, n: NodeIx, atom: NodeIx) -> Option<bool> {
    let Op::Atom { event: this, .. } = &p.nodes[atom].op else {
        return None;
    };
    let and = |a: Option<bool>, b: Option<bool>| match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    let not = |a: Option<bool>| a.map(|a| !a);
    let v = |k: NodeIx| eval(p, k, atom);
    match &p.nodes[n].op {
        _ if n == atom => Some(true),
        Op::Atom { event, .. } => (event != this).then_some(false),
        Op::True => Some(true),
        Op::False => Some(false),
        Op::Not(a) => not(v(*a)),
        Op::And(a, b) => and(v(*a), v(*b)),
        Op::Or(a, b) => not(and(not(v(*a)), not(v(*b)))),
        Op::Implies(a, b) => not(and(v(*a), not(v(*b)))),
        Op::Iff(a, b) => Some(v(*a)? == v(*b)?),
        Op::Quant(Quant::Exists, _, a) => v(*a).filter(|&x| x),
        Op::Quant(Quant::Forall, _, a) => v(*a).filter(|&x| !x),
        _ => None,
    }
}

/// The places, in `args`, of the variables `free` (in their order), when
/// `args` are distinct variables among which all of `free` stand.
fn places(free: &[crate::plan::VarIx], args: &[Arg]) -> Option<Vec<usize>> {
    let vars: Vec<_> = (args.iter())
        .map(|a| match a {
            Arg::Var(v) => Some(*v),
            Arg::Const(_) => None,
        })
        .collect::<Option<_>>()?;
    let distinct = (1..vars.len()).all(|i| !vars[..i].contains(&vars[i]));
    if !distinct {
        return None;
    }
    (free.iter())
        .map(|f| vars.iter().position(|v| v == f))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::compile_source;

    fn needed(spec: &str, records: &[&str]) -> Vec<bool> {
        let (plan, _) = compile_source(spec).expect("well-formed");
        let names: Vec<&String> = plan.events.keys().collect();
        let touches = Touches::of(&plan);
        let records: Vec<(u32, Vec<&[u8]>)> = (records.iter())
            .map(|r| {
                let mut f = r.split(',');
                let name = f.next().expect("a name");
                let i = names.iter().position(|n| n.as_str() == name).expect("known");
                (i as u32, f.map(str::as_bytes).collect())
            })
            .collect();
        touches.needed(&records)
    }

    #[test]
    fn only_the_last_record_touching_a_tuple_is_needed() {
        let spec = "prop p : Forall u . access(u) -> [login(u), logout(u))";
        // 1 logged in then out: as if never seen, but its logout is the
        // last touch; 2 logged out then in: its login; 3 in only.
        let got = needed(spec, &["login,1", "logout,2", "logout,1", "login,2", "login,3"]);
        assert_eq!(got, [false, false, true, true, true]);
    }

    #[test]
    fn records_of_atoms_with_constants_or_partial_tuples_are_always_needed() {
        // `q("a", x)`: a record `q,b,1` does not touch x = 1; always stepped.
        let spec = "prop p : Forall x . s(x) -> [q(\"a\", x), r(x))";
        assert_eq!(needed(spec, &["q,b,1", "r,1", "q,a,1", "r,1"]), [true, false, true, true]);
        // An atom without the since's variable y: it touches every y.
        let spec = "prop p : Forall x . Forall y . s(x, y) -> [q(x), r(x, y))";
        assert_eq!(needed(spec, &["q,1", "q,1", "r,1,2", "r,1,2"]), [true, true, false, true]);
        // `Exists y . q(x, y)` under a since of x: q's records touch x.
        let spec = "prop p : Forall x . s(x) -> [Exists y . q(x, y), r(x))";
        assert_eq!(needed(spec, &["q,1,5", "q,1,6", "r,2"]), [false, true, true]);
    }

    #[test]
    fn a_record_that_may_leave_a_tuple_as_it_was_overrides_nothing() {
        // `s(x)` stands in φ = `!(p(x) & s(x)) | p(x)`, which no single
        // event makes false: an `s` after a `p` leaves the since as the `p`
        // set it.
        let spec = "prop q : Forall x . s(x) -> ((!(p(x) & s(x)) | p(x)) S p(x))";
        assert_eq!(needed(spec, &["p,1", "s,1"]), [true, false]);
        // A `p` touches nothing there: it never fails φ (q is false at it).
        let spec = "prop q : Forall x . s(x) -> ((!(p(x) & q(x, x))) S (Exists y . q(x, y)))";
        assert_eq!(needed(spec, &["p,1", "q,1,2"]), [false, true]);
        // Whether `q,1,2` makes ψ = `Exists y . (q(x, y) & !q(y, x))` true
        // depends on `q(y, x)`, unknown for the atom `q(x, y)`: it may
        // touch x = 1, so the earlier `s,1` (which surely did) stays.
        let spec = "prop q : Forall x . p(x) -> ((!s(x)) S (Exists y . (q(x, y) & !q(y, x))))";
        assert_eq!(needed(spec, &["s,1", "q,1,2"]), [true, true]);
    }

    #[test]
    fn a_record_is_needed_for_any_since_it_touches_last() {
        // login(u) touches both sinces; the logout overrides it in the
        // interval, not in `P login(u)`.
        let spec = "prop p : Forall u . access(u) -> ([login(u), logout(u)) | !P login(u))";
        assert_eq!(needed(spec, &["login,1", "logout,1"]), [true, true]);
    }
}
