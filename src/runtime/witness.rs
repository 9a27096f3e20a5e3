//! Witnesses: the variable values that make a violated property false,
//! decoded from the BDD summaries back to the data of the trace.
//!
//! A property is a closed formula, checked at every event. When it is false at
//! an event, the witness is found by walking down from the statement's root
//! with the truth value each node must have for the root to be false, and an
//! assignment `C` of the variables chosen so far (every node on the walk has
//! all its free variables in `C`, because the property is closed):
//!
//! - `Forall x . φ` (and `forall x`) that must be false: choose `x` such that
//!   φ is false under `C` (for `forall`, among the values seen for `x`), then
//!   go on in φ, which must be false;
//! - `Exists x . φ` (and `exists x`) that must be true: choose `x` such that φ
//!   is true, then go on in φ, which must be true;
//! - `!φ` goes on in φ with the opposite value; `φ -> ψ` that must be false goes
//!   on in φ (true) and ψ (false); `φ & ψ` true and `φ | ψ` false go on in both;
//!   `φ & ψ` false and `φ | ψ` true go on in the first operand with the needed
//!   value under `C`;
//! - anything else (a quantifier with the other polarity, whose value is not
//!   due to one value; an event; a temporal operator; a rule call) ends the
//!   walk there.
//!
//! So `Forall i . Forall a . bid(i, a) -> Forall b . (@ P bid(i, b)) -> b < a`,
//! violated by `bid(lamp, 700)` after `bid(lamp, 1000)`, has the witness
//! `i=lamp a=700 b=1000`.
//!
//! **Choice.** Among the codes that qualify, the smallest one is taken, bit by
//! bit from the most significant (so the choice is deterministic and does not
//! depend on the BDD package's own choice of a satisfying assignment). Codes
//! are handed out in order of first sight (codes released by garbage
//! collection are reused smallest first), so a value seen earlier is preferred.
//!
//! **Unseen values.** When the choice is the code reserved for values not seen
//! so far (or a code that no value has now, which behaves the same), the
//! witness is [`WitnessValue::Unseen`]: *any* value that has not occurred for
//! the variable falsifies the property, as in `Forall x . P seen(x)` at the
//! first event. The text output shows it as `x=<any unseen value>`, the JSON
//! output as `null`.
//!
//! A witness costs nothing unless asked for
//! ([`Monitor::enable_witnesses`](super::Monitor::enable_witnesses)): it is
//! computed only at a violation, from the `now` summaries of that event,
//! before garbage collection may release the codes it needs.

use std::fmt;

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

/// The witness of a property whose root is false at this event: the chosen
/// variables in the order they were chosen (outermost first).
pub(super) fn find(space: &mut Space, state: &State<'_>) -> Vec<(VarIx, WitnessValue)> {
    let mut walk = Walk {
        space,
        state,
        lits: Vec::new(),
        out: Vec::new(),
    };
    walk.visit(state.plan.root, false);
    walk.out
}

/// A witness: variables (as named in the specification) and their values,
/// outermost quantifier first.
pub type Witness = Vec<(String, WitnessValue)>;

/// A falsifying tuple of the outer quantified variables, by variable index.
pub(super) type Tuple = Vec<(VarIx, WitnessValue)>;

/// At most this many assignments of codes are looked at by [`find_all`].
pub const MAX_ASSIGNMENTS: u64 = 1 << 20;

/// Every falsifying tuple of the statement's outer quantified variables (the
/// quantifiers at its root, through negations, whose polarity blames one
/// value: `Forall` that must be false, `Exists` that must be true): the first
/// `limit` tuples in the order of their codes, and how many there are in all
/// (codes that no value has count as one unseen value; at most
/// [`MAX_ASSIGNMENTS`] assignments are looked at). Empty for a property that
/// held or starts with no such quantifier.
pub(super) fn find_all(space: &mut Space, state: &State<'_>, limit: usize) -> (Vec<Tuple>, u64) {
    let plan = state.plan;
    let (mut n, mut target) = (plan.root, false);
    let mut vars: Vec<VarIx> = Vec::new();
    let mut set_filters: Vec<Bdd> = Vec::new();
    loop {
        match &plan.nodes[n].op {
            Op::Not(a) => (n, target) = (*a, !target),
            Op::Quant(q, v, a) => {
                let (universal, seen_only) = quant_kind(*q);
                if universal == target {
                    break;
                }
                if seen_only {
                    match state.seen.get(*v).copied().flatten() {
                        Some(seen) => set_filters.push(seen),
                        None => return (Vec::new(), 0),
                    }
                }
                vars.push(*v);
                n = *a;
            }
            _ => break,
        }
    }
    if vars.is_empty() {
        return (Vec::new(), 0);
    }
    let mut set = if target {
        state.now[n]
    } else {
        space.not(state.now[n])
    };
    for f in set_filters {
        set = space.and(set, f);
    }
    let lows: Vec<&[BddVar]> = vars
        .iter()
        .map(|&v| {
            let var = &plan.vars[v];
            let width = state.classes[var.class].width().min(var.bits.len());
            &var.bits[var.bits.len() - width..]
        })
        .collect();
    let bits: Vec<BddVar> = lows.iter().flat_map(|l| l.iter().copied()).collect();
    let others: Vec<BddVar> = (space.support(set).into_iter())
        .filter(|b| !bits.contains(b))
        .collect();
    let set = space.exists(set, &others);
    let mut all = All {
        space,
        state,
        vars: &vars,
        lows: &lows,
        bits: &bits,
        chosen: Vec::with_capacity(bits.len()),
        distinct: std::collections::HashSet::new(),
        out: Vec::new(),
        limit,
        visited: 0,
    };
    all.visit(set);
    (all.out, all.distinct.len() as u64)
}

/// The enumeration of [`find_all`].
struct All<'s, 'a> {
    space: &'s mut Space,
    state: &'s State<'a>,
    vars: &'s [VarIx],
    lows: &'s [&'a [BddVar]],
    bits: &'s [BddVar],
    /// The values of the first `chosen.len()` bits.
    chosen: Vec<bool>,
    distinct: std::collections::HashSet<Vec<WitnessValue>>,
    out: Vec<Tuple>,
    limit: usize,
    visited: u64,
}

impl All<'_, '_> {
    fn visit(&mut self, set: Bdd) {
        if set.is_false() || self.visited >= MAX_ASSIGNMENTS {
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
        if self.distinct.insert(tuple.clone()) && self.out.len() < self.limit {
            self.out
                .push(self.vars.iter().copied().zip(tuple).collect());
        }
    }
}

struct Walk<'s, 'a> {
    space: &'s mut Space,
    state: &'s State<'a>,
    /// The assignment chosen so far, as literals on the variables' code bits.
    lits: Vec<(BddVar, bool)>,
    out: Vec<(VarIx, WitnessValue)>,
}

impl Walk<'_, '_> {
    /// Goes on at node `n`, which has the value `target` under the assignment.
    fn visit(&mut self, n: NodeIx, target: bool) {
        let plan = self.state.plan;
        stacker::maybe_grow(32 * 1024, 1024 * 1024, || match &plan.nodes[n].op {
            Op::Not(a) => self.visit(*a, !target),
            Op::Implies(a, b) if !target => {
                self.visit(*a, true);
                self.visit(*b, false);
            }
            Op::And(a, b) | Op::Or(a, b) if target == matches!(plan.nodes[n].op, Op::And(..)) => {
                self.visit(*a, target);
                self.visit(*b, target);
            }
            Op::And(a, b) | Op::Or(a, b) => {
                if let Some(c) = [*a, *b]
                    .into_iter()
                    .find(|&c| self.value(c) == Some(target))
                {
                    self.visit(c, target);
                }
            }
            Op::Quant(q, v, a) => {
                let (universal, seen_only) = quant_kind(*q);
                // Forall is false, or Exists true, because of one value.
                if universal == target {
                    return;
                }
                if self.choose(*v, *a, target, seen_only) {
                    self.visit(*a, target);
                }
            }
            _ => {}
        })
    }

    /// The value of node `c` under the assignment, if it is determined.
    fn value(&mut self, c: NodeIx) -> Option<bool> {
        self.space.restrict(self.state.now[c], &self.lits).as_bool()
    }

    /// Chooses the smallest code of `v` for which `body` has the value
    /// `target` (among the seen values if `seen_only`); records it and adds it
    /// to the assignment. Returns false if there is none.
    fn choose(&mut self, v: VarIx, body: NodeIx, target: bool, seen_only: bool) -> bool {
        let var = &self.state.plan.vars[v];
        let class = &self.state.classes[var.class];
        let width = class.width().min(var.bits.len());
        let low = &var.bits[var.bits.len() - width..];
        let body = self.state.now[body];
        let space = &mut *self.space;
        let mut set = if target { body } else { space.not(body) };
        set = space.restrict(set, &self.lits);
        if seen_only {
            match self.state.seen.get(v).copied().flatten() {
                Some(seen) => set = space.and(set, seen),
                None => return false,
            }
        }
        let others: Vec<BddVar> = (space.support(set).into_iter())
            .filter(|b| !low.contains(b))
            .collect();
        let mut set = space.exists(set, &others);
        if set.is_false() {
            return false;
        }
        let mut code: u64 = 0;
        for &bit in low {
            let zero = space.restrict(set, &[(bit, false)]);
            let one = !zero.is_false();
            let value = !one;
            set = if one {
                zero
            } else {
                space.restrict(set, &[(bit, true)])
            };
            code = (code << 1) | u64::from(value);
            self.lits.push((bit, value));
        }
        let value = match u32::try_from(code) {
            Ok(c) if code != class.unseen() => {
                class.decode(Code(c)).map_or(WitnessValue::Unseen, |bytes| {
                    WitnessValue::Value(bytes.into())
                })
            }
            _ => WitnessValue::Unseen,
        };
        self.out.push((v, value));
        true
    }
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

    fn witnesses(spec: &str, trace: &[(&str, &[&str])]) -> Vec<(u64, String)> {
        let mut m = Monitor::from_source(spec, Default::default()).expect("well-formed");
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
