//! Witnesses: the variable values that make a violated property false,
//! decoded from the BDD summaries back to the data of the trace. One walk,
//! [`falsify`], lists them for `--witness` (its first tuple),
//! `--all-witnesses` (its tuples) and MFOTL satisfactions (its tuples over
//! the statement's leading `Forall` variables, the formula's free ones).
//!
//! A property is a closed formula, checked at every event. When it is false
//! at an event, the walk goes down from the statement's root with the truth
//! value each node must have for the root to be false, and the *set* `C` of
//! assignments of the variables blamed so far under which every node on
//! the way has its value (every node on the walk has all its free variables
//! blamed, because the property is closed):
//!
//! - `Forall x . φ` (and `forall x`) that must be false blames `x`: `C`
//!   becomes the assignments of the blamed variables and `x` under which φ
//!   is false (for `forall`, with `x` among the values seen for it); the
//!   walk goes on in φ, which must be false. `Exists x . φ` (and `exists
//!   x`) that must be true blames `x` likewise, φ true. This holds at any
//!   depth: `shutdown() -> Forall f . !([open(f), close(f)))` blames `f`;
//! - `!φ` goes on in φ with the opposite value; `φ -> ψ` that must be false
//!   goes on in φ (true) and then ψ (false); `φ & ψ` true and `φ | ψ` false
//!   go on in both;
//! - `φ & ψ` false and `φ | ψ` true go on in the operand that has the needed
//!   value under every assignment of `C` (the first one if both do); when
//!   neither does (some assignments are due to one operand, some to the
//!   other), the walk ends there;
//! - anything else (a quantifier with the other polarity, whose value is not
//!   due to one value; an event; a comparison; a temporal operator; a rule
//!   call) ends the walk there. An event reached with the value true is
//!   noted: an event of the step that matches it is what the violation is
//!   due to ([`culprit`]).
//!
//! The tuples are the assignments of `C`, each decoded to the trace's
//! values, in the order of their codes (variable by variable, outermost
//! first; so the first tuple takes for each variable in turn the smallest
//! code that qualifies, in practice the earliest seen value, whatever the
//! BDD package). So `Forall i . Forall a . bid(i, a) -> Forall b . (@ P
//! bid(i, b)) -> b < a`, violated by `bid(lamp, 700)` after `bid(lamp,
//! 1000)`, has the witness `i=lamp a=700 b=1000`.
//!
//! **Unseen values.** A code reserved for values not seen so far (or a code
//! that no value has now, which behaves the same) is
//! [`WitnessValue::Unseen`]: *any* value that has not occurred for the
//! variable falsifies the property, as in `Forall x . P seen(x)` at the
//! first event. The text output shows it as `x=<any unseen value>`, the JSON
//! output as `null`. Codes without a value count as one unseen value.
//!
//! A witness costs nothing unless asked for
//! ([`Monitor::enable_witnesses`](super::Monitor::enable_witnesses)): it is
//! computed only at a violation, from the `now` summaries of that event,
//! before garbage collection may release the codes it needs.

use std::fmt;

mod event;

pub use event::EventWitness;
pub(crate) use event::Guards;

use super::enumeration::Enumeration;
use super::ids::Code;
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{NodeIx, Op, PropPlan, VarIx};
use crate::syntax::Quant;

/// The value a witness gives a variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WitnessValue {
    /// A value of the trace, as written there.
    Value(Box<[u8]>),
    /// Any value that has not occurred for the variable so far (the code
    /// reserved for unseen values).
    Unseen,
}

impl WitnessValue {
    /// The value as text: the trace's bytes (invalid UTF-8 replaced), or
    /// `None` for [`WitnessValue::Unseen`].
    pub fn text(&self) -> Option<String> {
        match self {
            WitnessValue::Value(v) => Some(String::from_utf8_lossy(v).into_owned()),
            WitnessValue::Unseen => None,
        }
    }
}

impl fmt::Display for WitnessValue {
    /// A value as it is written in the trace, quoted (Rust string syntax) when
    /// it is empty or contains spaces, `=`, `"`, `<` or control characters so
    /// that `x=value` pairs stay readable; [`WitnessValue::Unseen`] as
    /// `<any unseen value>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WitnessValue::Value(v) => {
                let s = String::from_utf8_lossy(v);
                let plain = !s.is_empty()
                    && !s
                        .chars()
                        .any(|c| c.is_whitespace() || c.is_control() || "=\"<".contains(c));
                if plain {
                    write!(f, "{s}")
                } else {
                    write!(f, "{s:?}")
                }
            }
            WitnessValue::Unseen => write!(f, "<any unseen value>"),
        }
    }
}

/// Formats a witness as `x=a y=<any unseen value>` (empty for no variables).
pub fn format_witness(witness: &[(String, WitnessValue)]) -> String {
    witness
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the walk reads of a property monitor's state at the violating event.
pub(super) struct State<'a> {
    /// The plan.
    pub plan: &'a PropPlan,
    /// Every node's `now` at this event.
    pub now: &'a [Bdd],
    /// Per variable, the set of codes of its seen values, if tracked.
    pub seen: Vec<Option<Bdd>>,
    /// The enumeration classes.
    pub classes: &'a [Enumeration],
}

/// A witness: variables (as named in the specification) and their values,
/// outermost quantifier first.
pub type Witness = Vec<(String, WitnessValue)>;

/// At most this many assignments of codes are looked at by [`falsify`]
/// when it counts the tuples of `--all-witnesses`.
pub const MAX_ASSIGNMENTS: u64 = 1 << 20;

/// How far [`falsify`] goes down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Depth {
    /// Through every connective and quantifier that blames values.
    All,
    /// Through the statement's leading `Forall` quantifiers only, at most
    /// this many (the free variables of an MFOTL pattern, for its
    /// satisfying tuples: a quantifier of the formula itself may follow
    /// them, as in the pattern `NOT FORALL x . φ`).
    Leading(usize),
}

/// What [`falsify`] finds at a violation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Falsified {
    /// The blamed variables, outermost first.
    pub vars: Vec<VarIx>,
    /// The first tuples (values of `vars`), in the order of their codes,
    /// without repeats.
    pub tuples: Vec<Vec<WitnessValue>>,
    /// The number of distinct tuples (a lower bound when more than the
    /// budget of assignments had to be looked at).
    pub total: u64,
    /// The events reached with the value true (atom nodes), where the walk
    /// ended.
    pub atoms: Vec<NodeIx>,
}

impl Falsified {
    /// The first tuple, by variable: the witness of `--witness`.
    pub fn first(&self) -> Vec<(VarIx, WitnessValue)> {
        match self.tuples.first() {
            Some(t) => self.vars.iter().copied().zip(t.iter().cloned()).collect(),
            None => Vec::new(),
        }
    }
}

/// The falsifying tuples of a property whose root is false at this event
/// (see the [module](self) docs), going down as far as `depth` says: the
/// first `limit` tuples; with `count`, also how many there are (at most
/// `budget` assignments of codes are looked at).
pub(super) fn falsify(
    space: &mut Space,
    state: &State<'_>,
    depth: Depth,
    limit: usize,
    count: bool,
    budget: u64,
) -> Falsified {
    let plan = state.plan;
    let mut walk = Walk {
        space,
        state,
        depth,
        vars: Vec::new(),
        atoms: Vec::new(),
    };
    // The root is closed and false: its negation is the set of every assignment.
    let root = walk.space.not(state.now[plan.root]);
    let set = walk.visit(plan.root, false, root);
    let Walk {
        space, vars, atoms, ..
    } = walk;
    let mut out = Falsified {
        vars,
        atoms,
        ..Falsified::default()
    };
    if out.vars.is_empty() || set.is_false() {
        return out;
    }
    let lows: Vec<&[BddVar]> = out.vars.iter().map(|&v| low_bits(state, v)).collect();
    let bits: Vec<BddVar> = lows.iter().flat_map(|l| l.iter().copied()).collect();
    let others: Vec<BddVar> = (space.support(set).into_iter())
        .filter(|b| !bits.contains(b))
        .collect();
    let set = space.exists(set, &others);
    let mut all = All {
        space,
        state,
        vars: &out.vars,
        lows: &lows,
        bits: &bits,
        chosen: Vec::with_capacity(bits.len()),
        distinct: std::collections::HashSet::new(),
        out: Vec::new(),
        limit,
        count,
        visited: 0,
        budget,
    };
    all.visit(set);
    out.total = all.distinct.len() as u64;
    out.tuples = all.out;
    out
}

/// The bits of variable `v` that its class's codes use now, most
/// significant first.
fn low_bits<'a>(state: &State<'a>, v: VarIx) -> &'a [BddVar] {
    let var = &state.plan.vars[v];
    let width = state.classes[var.class].width().min(var.bits.len());
    &var.bits[var.bits.len() - width..]
}

/// The enumeration of [`falsify`].
struct All<'s, 'a> {
    space: &'s mut Space,
    state: &'s State<'a>,
    vars: &'s [VarIx],
    lows: &'s [&'a [BddVar]],
    bits: &'s [BddVar],
    /// The values of the first `chosen.len()` bits.
    chosen: Vec<bool>,
    distinct: std::collections::HashSet<Vec<WitnessValue>>,
    out: Vec<Vec<WitnessValue>>,
    limit: usize,
    count: bool,
    visited: u64,
    budget: u64,
}

impl All<'_, '_> {
    fn visit(&mut self, set: Bdd) {
        let enough = self.out.len() >= self.limit && !self.count;
        if set.is_false() || self.visited >= self.budget || enough {
            return;
        }
        let Some(&bit) = self.bits.get(self.chosen.len()) else {
            self.visited += 1;
            self.record();
            return;
        };
        for value in [false, true] {
            self.chosen.push(value);
            let part = self.space.restrict(set, &[(bit, value)]);
            self.visit(part);
            self.chosen.pop();
        }
    }

    /// Decodes the chosen codes and keeps the tuple if it is new.
    fn record(&mut self) {
        let mut at = 0;
        let mut tuple = Vec::with_capacity(self.vars.len());
        for (&v, low) in self.vars.iter().zip(self.lows) {
            let code = self.chosen[at..at + low.len()]
                .iter()
                .fold(0u64, |c, &b| (c << 1) | u64::from(b));
            at += low.len();
            let class = &self.state.classes[self.state.plan.vars[v].class];
            tuple.push(match u32::try_from(code) {
                Ok(c) if code != class.unseen() => {
                    class.decode(Code(c)).map_or(WitnessValue::Unseen, |bytes| {
                        WitnessValue::Value(bytes.into())
                    })
                }
                _ => WitnessValue::Unseen,
            });
        }
        if self.distinct.contains(&tuple) {
            return;
        }
        if self.out.len() < self.limit {
            self.out.push(tuple.clone());
        }
        self.distinct.insert(tuple);
    }
}

/// The walk of [`falsify`].
struct Walk<'s, 'a> {
    space: &'s mut Space,
    state: &'s State<'a>,
    depth: Depth,
    vars: Vec<VarIx>,
    atoms: Vec<NodeIx>,
}

impl Walk<'_, '_> {
    /// The assignments (over the blamed variables' bits) under which node
    /// `n` has the value `target`.
    fn having(&mut self, n: NodeIx, target: bool) -> Bdd {
        let now = self.state.now[n];
        if target { now } else { self.space.not(now) }
    }

    /// Goes on at node `n`, which has the value `target` under every
    /// assignment of `set`; returns the assignments that explain it (a
    /// subset of `set`, over more variables when some are blamed below).
    fn visit(&mut self, n: NodeIx, target: bool, set: Bdd) -> Bdd {
        let plan = self.state.plan;
        let all = self.depth == Depth::All;
        let most = match self.depth {
            Depth::All => usize::MAX,
            Depth::Leading(k) => k,
        };
        stacker::maybe_grow(32 * 1024, 1024 * 1024, || match &plan.nodes[n].op {
            Op::Not(a) if all => self.visit(*a, !target, set),
            Op::Implies(a, b) if all && !target => {
                let set = self.visit(*a, true, set);
                self.visit(*b, false, set)
            }
            Op::And(a, b) | Op::Or(a, b)
                if all && target == matches!(plan.nodes[n].op, Op::And(..)) =>
            {
                let set = self.visit(*a, target, set);
                self.visit(*b, target, set)
            }
            Op::And(a, b) | Op::Or(a, b) if all => {
                // The operand to blame for every assignment, if there is one.
                let blamed = [*a, *b].into_iter().find(|&c| {
                    let other = self.having(c, !target);
                    self.space.and(set, other).is_false()
                });
                match blamed {
                    Some(c) => self.visit(c, target, set),
                    None => set,
                }
            }
            Op::Quant(q, v, a) => {
                let (universal, seen_only) = quant_kind(*q);
                // Forall is false, or Exists true, because of some values.
                // (Leading: only a `Forall` is reached, from the root down.)
                if universal == target
                    || !(all || matches!(q, Quant::Forall))
                    || self.vars.len() >= most
                {
                    return set;
                }
                let having = self.having(*a, target);
                let mut body = self.space.and(set, having);
                if seen_only {
                    match self.state.seen.get(*v).copied().flatten() {
                        Some(seen) => body = self.space.and(body, seen),
                        None => return set,
                    }
                }
                if body.is_false() {
                    return set;
                }
                self.vars.push(*v);
                self.visit(*a, target, body)
            }
            Op::Atom { .. } if all && target => {
                self.atoms.push(n);
                set
            }
            _ => set,
        })
    }
}

/// The event of `events` (a step's, name and arguments) that a violation is
/// due to: the first that matches one of the events the walk of `found`
/// reached with the value true, with the witness's values for the blamed
/// variables (constants equal, a blamed variable its value, a repeated
/// variable one value). `None` when none matches (the violation is due to
/// what the step lacks, or to no one event).
pub(super) fn culprit(
    plan: &PropPlan,
    found: &Falsified,
    events: &[(&[u8], &[&[u8]])],
) -> Option<usize> {
    let witness = found.first();
    let value = |v: VarIx| witness.iter().find(|(w, _)| *w == v).map(|(_, x)| x);
    events.iter().position(|&(name, args)| {
        found.atoms.iter().any(|&n| {
            let Op::Atom {
                event,
                args: pattern,
            } = &plan.nodes[n].op
            else {
                return false;
            };
            if event.as_bytes() != name || pattern.len() != args.len() {
                return false;
            }
            pattern
                .iter()
                .zip(args)
                .enumerate()
                .all(|(i, (p, &arg))| match p {
                    crate::plan::Arg::Const(c) => c.as_bytes() == arg,
                    crate::plan::Arg::Var(v) => {
                        let repeated_ok =
                            pattern[..i].iter().zip(args.iter()).all(|(q, &earlier)| {
                                !matches!(q, crate::plan::Arg::Var(w) if w == v) || earlier == arg
                            });
                        let blamed_ok = match value(*v) {
                            Some(WitnessValue::Value(x)) => &**x == arg,
                            Some(WitnessValue::Unseen) => false,
                            None => true,
                        };
                        repeated_ok && blamed_ok
                    }
                })
        })
    })
}

/// Whether quantifier `q` is universal, and whether it ranges over seen
/// values only.
fn quant_kind(q: Quant) -> (bool, bool) {
    match q {
        Quant::Forall => (true, false),
        Quant::ForallSeen => (true, true),
        Quant::Exists => (false, false),
        Quant::ExistsSeen => (false, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Monitor;

    /// The witnesses of the violations of `trace`, with their events' numbers.
    pub(super) fn witnesses(spec: &str, trace: &[(&str, &[&str])]) -> Vec<(u64, String)> {
        witnesses_with(spec, trace, true)
    }

    /// [`witnesses`] with point evaluation on or off (off: every witness
    /// is found by the walk, none from its event alone).
    pub(super) fn witnesses_with(
        spec: &str,
        trace: &[(&str, &[&str])],
        point: bool,
    ) -> Vec<(u64, String)> {
        let mut m = Monitor::from_source(spec, Default::default()).expect("well-formed");
        m.set_point_evaluation(point);
        m.enable_witnesses(true);
        let mut out = Vec::new();
        for (i, (name, args)) in trace.iter().enumerate() {
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
            let violated = m.step(name.as_bytes(), &args, 0).expect("ok").to_vec();
            for p in violated {
                out.push((i as u64 + 1, format_witness(&m.witness(p))));
            }
        }
        out
    }

    #[test]
    fn forall_picks_the_falsifying_value() {
        let w = witnesses(
            "prop p : Forall f . close(f) -> @ P open(f)",
            &[("open", &["a"]), ("close", &["a"]), ("close", &["b"])],
        );
        assert_eq!(w, vec![(3, "f=b".to_string())]);
    }

    #[test]
    fn an_unseen_value_is_named_as_such() {
        let w = witnesses("prop p : Forall x . P seen(x)", &[("seen", &["a"])]);
        assert_eq!(w, vec![(1, "x=<any unseen value>".to_string())]);
    }

    #[test]
    fn negated_exists_seen_chooses_the_satisfying_values() {
        let w = witnesses(
            "prop p : !(exists x . exists y . x < y & P q(x, y))",
            &[("q", &["5", "3"]), ("q", &["2", "9"])],
        );
        assert_eq!(w, vec![(2, "x=2 y=9".to_string())]);
    }

    #[test]
    fn propositional_properties_have_empty_witnesses() {
        let w = witnesses("prop p : q -> @ r", &[("q", &[])]);
        assert_eq!(w, vec![(1, String::new())]);
    }

    #[test]
    fn the_existential_side_of_an_exists_is_not_followed() {
        // `Exists y` false: no single y is to blame; only x is chosen.
        let w = witnesses(
            "prop p : Forall x . r(x) -> Exists y . @ P q(x, y)",
            &[("q", &["a", "1"]), ("r", &["a"]), ("r", &["b"])],
        );
        assert_eq!(w, vec![(3, "x=b".to_string())]);
    }

    fn all_witnesses(
        spec: &str,
        trace: &[(&str, &[&str])],
        limit: usize,
    ) -> Vec<(u64, String, u64)> {
        let mut m = Monitor::from_source(spec, Default::default()).expect("well-formed");
        m.enable_all_witnesses(limit);
        let mut out = Vec::new();
        for (i, (name, args)) in trace.iter().enumerate() {
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
            let violated = m.step(name.as_bytes(), &args, 0).expect("ok").to_vec();
            for p in violated {
                let (tuples, total) = m.all_witnesses(p);
                let shown: Vec<String> = tuples.iter().map(|t| format_witness(t)).collect();
                out.push((i as u64 + 1, shown.join(" | "), total));
            }
        }
        out
    }

    #[test]
    fn all_falsifying_tuples_are_listed() {
        let spec = "prop p : Forall x . Forall y . q(x, y) -> @ P r(x)";
        let trace: &[(&str, &[&str])] = &[("r", &["a"]), ("r", &["b"]), ("q", &["c", "1"])];
        // Only (c, 1) falsifies at event 3: q(x, y) holds for it alone.
        assert_eq!(
            all_witnesses(spec, trace, 10),
            vec![(3, "x=c y=1".to_string(), 1)]
        );
        // Every file opened and not closed at `end`; the first one only
        // with a limit of 1, and the count.
        let spec = "prop p : forall f . end -> (P open(f) -> P close(f))";
        let trace: &[(&str, &[&str])] = &[
            ("open", &["a"]),
            ("open", &["b"]),
            ("open", &["c"]),
            ("close", &["b"]),
            ("end", &[]),
        ];
        assert_eq!(
            all_witnesses(spec, trace, 10),
            vec![(5, "f=a | f=c".to_string(), 2)]
        );
        assert_eq!(
            all_witnesses(spec, trace, 1),
            vec![(5, "f=a".to_string(), 2)]
        );
    }

    #[test]
    fn values_that_need_it_are_quoted() {
        assert_eq!(WitnessValue::Value((*b"a b").into()).to_string(), "\"a b\"");
        assert_eq!(WitnessValue::Value((*b"").into()).to_string(), "\"\"");
        assert_eq!(WitnessValue::Value((*b"x1").into()).to_string(), "x1");
        assert_eq!(WitnessValue::Unseen.to_string(), "<any unseen value>");
    }
}
