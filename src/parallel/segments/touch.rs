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
//! must reach. (Of a user who logged out and then in, only the login
//! counts.)
//!
//! A warm-up starts from a state where no since holds, so a last toucher
//! that *clears* its tuple (φ fails, ψ does not hold) need not be stepped
//! either, unless something stepped before it may have set the tuple: the
//! first event, a record stepped for another since or always stepped
//! (then it is stepped too). A user who logged in and then out is as if
//! never seen; in the snapshots compared, a value never numbered is one
//! of the unseen values, as a released one is. On the `gen_access.py` log
//! of 50,000 users, that leaves 25,000 of the 48,000 last touchers of
//! the million events before the second segment.
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

use hashbrown::{HashMap, HashSet};

use crate::plan::{Arg, NodeIx, Op, Plan, PropPlan};
use crate::syntax::Quant;

/// What a record does to a since's tuple that it touches.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Effect {
    /// It decides the tuple: ψ holds, or φ fails (and ψ may hold).
    Decides,
    /// It makes the since false for the tuple: φ fails and ψ does not
    /// hold. A warm-up's state holds no tuple to begin with, so where
    /// nothing stepped before may have set it, such a last toucher need
    /// not be stepped either (a user who logged out last is as if never
    /// seen; the snapshot of a value that was never numbered is that of
    /// an unseen one).
    Clears,
    /// It may touch the tuple (the operands' value depends on other atoms
    /// of its event): it does not make an earlier touch of the tuple
    /// needless.
    Perhaps,
}

/// How a record of an event touches a since.
#[derive(Clone, Debug)]
struct Touch {
    /// The since, numbered over the plan.
    since: usize,
    /// The argument places of the tuple's values (one per free variable
    /// of the since, in their order).
    places: Vec<usize>,
    effect: Effect,
}

/// A since's tuple, as a key: the since and the hash of its values.
pub(super) type Key = (usize, u64);

/// Per event name of a plan (in the order of its events), how its records
/// touch the plan's sinces.
#[derive(Debug)]
pub(super) struct Touches {
    /// Per name: the sinces whose tuples its records touch, and how.
    by_name: Vec<Vec<Touch>>,
    /// Per name: whether a record may touch a since in another way: it is
    /// always stepped.
    kept: Vec<bool>,
    /// Per since: whether records that are always stepped may touch it
    /// (then a record that clears a tuple is stepped too).
    loose: Vec<bool>,
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
            by_name: vec![Vec::new(); names],
            kept: vec![false; names],
            loose: Vec::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        };
        for p in &plan.props {
            for (n, node) in p.nodes.iter().enumerate() {
                let Op::Since(phi, psi) = node.op else {
                    continue;
                };
                let since = out.loose.len();
                out.loose.push(false);
                for atom in atoms(p, &[phi, psi]) {
                    let Op::Atom { event, args } = &p.nodes[atom].op else {
                        continue;
                    };
                    let Some(&e) = index.get(event.as_str()) else {
                        continue;
                    };
                    let Some(places) = places(&p.nodes[n].free, args) else {
                        out.kept[e] = true;
                        out.loose[since] = true;
                        continue;
                    };
                    // With this atom true, the other atoms of its event
                    // unknown and those of other events false (one event a
                    // step): whether ψ holds or φ fails for sure.
                    let value = |root| eval(p, root, atom);
                    let effect = match (value(phi), value(psi)) {
                        (Some(false), Some(false)) => Effect::Clears,
                        (Some(false), _) | (_, Some(true)) => Effect::Decides,
                        (None, _) | (_, None) => Effect::Perhaps,
                        // It never touches the tuple.
                        (Some(true), Some(false)) => continue,
                    };
                    out.by_name[e].push(Touch { since, places, effect });
                }
            }
        }
        out
    }

    /// The hash of the tuple of `args` at `places`.
    fn hash(&self, args: &[&[u8]], places: &[usize]) -> u64 {
        let mut h = self.hasher.build_hasher();
        for &i in places {
            args.get(i).hash(&mut h);
        }
        h.finish()
    }

    /// How records of event `name` touch sinces.
    fn of_name(&self, name: usize) -> &[Touch] {
        self.by_name.get(name).map_or(&[][..], |v| &v[..])
    }

    /// The keys by which the record `args` of event `name` counts in the
    /// estimate of a warm-up's steps ([`super::compact::population`]),
    /// each with whether the record clears its tuple (and need not be
    /// stepped where it touches it last): per since it surely touches,
    /// `(since, its tuple)`; otherwise (it is always stepped, or only
    /// perhaps touches) the record itself, `(sinces + name, all its
    /// arguments)`, which it does not clear.
    pub(super) fn keys(&self, name: u32, args: &[&[u8]], out: &mut Vec<(Key, bool)>) {
        let name = name as usize;
        let touches = self.of_name(name);
        let whole = self.kept.get(name).is_none_or(|&k| k)
            || touches.iter().any(|t| t.effect == Effect::Perhaps);
        if whole {
            out.push(((self.loose.len() + name, self.hasher.hash_one(args)), false));
            return;
        }
        for t in touches {
            let clears = t.effect == Effect::Clears && !self.loose[t.since];
            out.push(((t.since, self.hash(args, &t.places)), clears));
        }
    }

    /// The keys of the tuples the record `args` of event `name` may set
    /// (make the since hold for): see [`needed`](Self::needed).
    pub(super) fn may_set(&self, name: u32, args: &[&[u8]], out: &mut HashSet<Key>) {
        for t in self.of_name(name as usize) {
            if t.effect != Effect::Clears {
                out.insert((t.since, self.hash(args, &t.places)));
            }
        }
    }

    /// Of `records` (`(name, fields)`: the event name's index and the
    /// record's arguments), in the order they came, which must be
    /// stepped: those that touch some since's tuple that no later one
    /// touches, unless they clear it and nothing stepped before them
    /// may set it. That is known when `set_before` is given: the tuples
    /// the steps before these records may have set (those of the first
    /// event, stepped as it was read); and of a since that records always
    /// stepped may touch, never. A record stepped for another since (or
    /// always) that touches the tuple before its clear may set it: then
    /// the clear is stepped too, and, in turn, what it may set is looked
    /// at again.
    pub(super) fn needed(
        &self,
        records: &[(u32, &[&[u8]])],
        set_before: Option<&HashSet<Key>>,
    ) -> Vec<bool> {
        let mut touched: HashSet<Key> = HashSet::new();
        let mut out = vec![false; records.len()];
        // Per tuple cleared last by a record not stepped (so far): it.
        let mut cleared: HashMap<Key, usize> = HashMap::new();
        for (k, (name, args)) in records.iter().enumerate().rev() {
            let name = *name as usize;
            let mut needed = self.kept.get(name).is_none_or(|&kept| kept);
            for t in self.of_name(name) {
                let key = (t.since, self.hash(args, &t.places));
                needed |= match t.effect {
                    Effect::Perhaps => !touched.contains(&key),
                    Effect::Decides => touched.insert(key),
                    Effect::Clears => {
                        let last = touched.insert(key);
                        let unset = set_before.is_some_and(|set| !self.loose[t.since] && !set.contains(&key));
                        if last && unset {
                            cleared.insert(key, k);
                        }
                        last && !unset
                    }
                };
            }
            out[k] = needed;
        }
        let mut todo: Vec<usize> = if cleared.is_empty() {
            Vec::new()
        } else {
            (0..records.len()).filter(|&k| out[k]).collect()
        };
        while let Some(k) = todo.pop() {
            let (name, args) = &records[k];
            for t in self.of_name(*name as usize) {
                if t.effect == Effect::Clears {
                    continue;
                }
                let key = (t.since, self.hash(args, &t.places));
                if let Some(&j) = cleared.get(&key)
                    && j > k
                    && !out[j]
                {
                    out[j] = true;
                    todo.push(j);
                }
            }
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

    /// Which of `records` are needed after a flush (any tuple may be set).
    fn needed(spec: &str, records: &[&'static str]) -> Vec<bool> {
        needed_after(spec, None, records)
    }

    /// Which of `records` are needed after the first event `first` alone
    /// (`None`: after a flush).
    fn needed_after(spec: &str, first: Option<&'static str>, records: &[&'static str]) -> Vec<bool> {
        let (plan, _) = compile_source(spec).expect("well-formed");
        let names: Vec<&String> = plan.events.keys().collect();
        let touches = Touches::of(&plan);
        let record = |r: &'static str| -> (u32, Vec<&[u8]>) {
            let mut f = r.split(',');
            let name = f.next().expect("a name");
            let i = names.iter().position(|n| n.as_str() == name).expect("known");
            (i as u32, f.map(str::as_bytes).collect())
        };
        let set_before = first.map(|r| {
            let (name, args) = record(r);
            let mut set = HashSet::new();
            touches.may_set(name, &args, &mut set);
            set
        });
        let records: Vec<(u32, Vec<&[u8]>)> = records.iter().map(|&r| record(r)).collect();
        let records: Vec<(u32, &[&[u8]])> = records.iter().map(|(n, a)| (*n, &a[..])).collect();
        touches.needed(&records, set_before.as_ref())
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
        // Before any flush too: `login,1`, stepped for `P login(u)`, sets
        // 1 in the interval, which the logout clears.
        let first = Some("access,7");
        assert_eq!(needed_after(spec, first, &["login,1", "logout,1"]), [true, true]);
    }

    #[test]
    fn a_record_that_clears_a_tuple_last_is_needed_only_where_it_may_be_set() {
        let spec = "prop p : Forall u . access(u) -> [login(u), logout(u))";
        let records = ["login,1", "logout,2", "logout,1", "login,2", "login,3"];
        // After the first event alone, 1 is as if never seen.
        let got = needed_after(spec, Some("access,7"), &records);
        assert_eq!(got, [false, false, false, true, true]);
        // Unless the first event logged it in.
        let got = needed_after(spec, Some("login,1"), &records);
        assert_eq!(got, [false, false, true, true, true]);
        // A record always stepped may set the since's tuples: `q,a,1` sets
        // x = 1, which `r,1` clears.
        let spec = "prop p : Forall x . s(x) -> [q(\"a\", x), r(x))";
        assert_eq!(needed_after(spec, Some("s,0"), &["q,a,1", "r,1"]), [true, true]);
        // A record stepped for another since sets the tuple a later one
        // clears: `s,1` is the last that perhaps touches 1 in the second
        // since, and sets it in the first, which `p,1` clears.
        let spec = "prop q : Forall x . w(x) -> ((!p(x)) S s(x)) | ((!r(x)) S (s(x) & Exists y . q(x, y)))";
        let got = needed_after(spec, Some("w,0"), &["s,1", "p,1", "s,2", "p,2", "r,2"]);
        assert_eq!(got, [true, true, false, false, false]);
        // Nor where φ fails and ψ is not known to be false: a quantifier
        // over ψ's other values reads as unknown.
        let spec = "prop q : Forall x . p(x) -> (!s(x) S (Exists y . q(x, y)))";
        assert_eq!(needed_after(spec, Some("p,0"), &["s,1", "s,2", "q,2,3"]), [true, false, true]);
    }
}
