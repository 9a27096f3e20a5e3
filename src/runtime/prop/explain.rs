//! What a property's monitor tells beyond its verdict: witnesses of
//! violations and satisfying tuples (see [`crate::runtime::witness`]), and the sizes of its kept summaries for profiles
//! (see [`crate::runtime::kept`]). All off by default, and then free.

use super::PropMonitor;
use super::future::Decision;
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, Op, VarIx};
use crate::runtime::delayed::StepViolation;
use crate::runtime::enumeration::Enumeration;
use crate::runtime::ids::Code;
use crate::runtime::kept::KeptSummary;
use crate::runtime::witness::{self, Depth, WitnessValue};
use crate::syntax::Quant;

/// The explanations asked for, and those of the last event.
#[derive(Clone, Debug, Default)]
pub(super) struct Explain {
    /// Whether to find a witness at each violation.
    witness_on: bool,
    /// With all witnesses on: the most falsifying tuples kept.
    all_limit: Option<usize>,
    /// The walk at the violation at the last event (empty if none): the
    /// witness, the falsifying tuples, the events to blame.
    found: witness::Falsified,
    /// Whether the satisfying tuples of violations are recorded.
    tuples_on: bool,
    /// The satisfying tuples of the violation at the last event.
    tuples: Vec<Vec<WitnessValue>>,
    /// The most leading `Forall` variables of the satisfying tuples.
    tuple_width: Option<usize>,
}

impl Explain {
    /// With satisfying tuples on: how many leading `Forall` variables they
    /// have (`usize::MAX`: all).
    pub(super) fn tuple_width(&self) -> Option<usize> {
        self.tuples_on
            .then(|| self.tuple_width.unwrap_or(usize::MAX))
    }

    /// Whether a violation's walk of the witnesses is asked for (a
    /// witness, or all of them): the decisions of point mode then keep the
    /// falsifying tuples as [`witness::Falsified`].
    pub(super) fn walks(&self) -> bool {
        self.witness_on || self.all_limit.is_some()
    }

    /// Whether any explanation is asked for.
    pub fn any(&self) -> bool {
        self.witness_on || self.tuples_on || self.all_limit.is_some()
    }
}

impl PropMonitor {
    /// Records the explanations asked for of the verdict `holds` just found
    /// (at once, before garbage collection can release the codes they need).
    pub(super) fn record_explanations(&mut self, space: &mut Space, holds: bool) {
        if !self.explain.any() {
            return;
        }
        let (found, tuples) = if holds {
            Default::default()
        } else {
            let state = self.witness_state();
            self.explanations(space, &state)
        };
        let e = &mut self.explain;
        e.found = found;
        e.tuples = tuples;
    }

    /// At a violation in point mode, records the explanations asked for
    /// from the event alone where its values are the one falsifying tuple
    /// (the statement has [`Guards`](witness::Guards), and the step's
    /// matches of them agree on the leading variables' codes): what the
    /// walk would find, without computing every node as a set first. Not
    /// for satisfying tuples. Whether it did.
    pub(super) fn explain_by_event(&mut self) -> bool {
        let Some(guards) = &self.compiled.event_guards else {
            return false;
        };
        if self.explain.tuples_on {
            return false;
        }
        let binding = &self.scratch.binding;
        let mut codes: Vec<Code> = Vec::new();
        let mut atoms = Vec::new();
        for (n, range) in &binding.matched {
            if !guards.atoms.contains(n) {
                continue;
            }
            let of = |v: VarIx| {
                binding.codes[range.clone()]
                    .iter()
                    .find(|&&(w, _)| w == v)
                    .map(|&(_, c)| c)
            };
            let Some(tuple) = guards.vars.iter().map(|&v| of(v)).collect::<Option<Vec<_>>>()
            else {
                return false;
            };
            if atoms.is_empty() {
                codes = tuple;
            } else if codes != tuple {
                // Two assignments: the walk chooses.
                return false;
            }
            if !atoms.contains(n) {
                atoms.push(*n);
            }
        }
        if atoms.is_empty() {
            return false;
        }
        let plan = &self.compiled.plan;
        let mut tuple = Vec::with_capacity(codes.len());
        for (&v, &code) in guards.vars.iter().zip(&codes) {
            let class = &self.state.classes[plan.vars[v].class];
            match class.decode(code) {
                Some(bytes) => tuple.push(WitnessValue::Value(bytes.into())),
                None => return false,
            }
        }
        self.explain.found = witness::Falsified {
            vars: guards.vars.clone(),
            tuples: vec![tuple],
            total: 1,
            atoms,
        };
        self.explain.tuples = Vec::new();
        true
    }

    /// The explanations asked for of a violation, read from `state` (the
    /// summaries at the violating step): the walk of the witnesses (the
    /// witness, the falsifying tuples) and the satisfying tuples, each empty
    /// when not asked for.
    pub(super) fn explanations(
        &self,
        space: &mut Space,
        state: &witness::State<'_>,
    ) -> (witness::Falsified, Vec<Vec<WitnessValue>>) {
        let e = &self.explain;
        let found = if e.witness_on || e.all_limit.is_some() {
            let (limit, count) = match e.all_limit {
                Some(l) => (l.max(1), true),
                None => (1, false),
            };
            witness::falsify(
                space,
                state,
                Depth::All,
                limit,
                count,
                witness::MAX_ASSIGNMENTS,
            )
        } else {
            Default::default()
        };
        let tuples = if e.tuples_on {
            let depth = Depth::Leading(e.tuple_width.unwrap_or(usize::MAX));
            witness::falsify(space, state, depth, usize::MAX, false, u64::MAX).tuples
        } else {
            Vec::new()
        };
        (found, tuples)
    }

    /// The decision of an immediate property at `position` (the step just
    /// evaluated, whose verdict was `holds`), with the explanations recorded.
    pub(crate) fn immediate_decision(&self, position: u64, holds: bool) -> Decision {
        let e = &self.explain;
        Decision {
            position,
            holds,
            found: if holds {
                Default::default()
            } else {
                e.found.clone()
            },
            tuples: if holds { Vec::new() } else { e.tuples.clone() },
        }
    }

    /// A violation's decision, its variables named as in
    /// [`witness`](Self::witness) and [`all_witnesses`](Self::all_witnesses).
    pub(crate) fn named(&self, property: usize, d: Decision) -> StepViolation {
        StepViolation {
            property,
            witness: if self.explain.witness_on {
                self.name_witness(&d.found.first())
            } else {
                Vec::new()
            },
            all_witnesses: match self.explain.all_limit {
                Some(limit) => (self.name_tuples(&d.found, limit), d.found.total),
                None => (Vec::new(), 0),
            },
            tuples: d.tuples,
            found: d.found,
        }
    }

    /// Names the variables of a witness: two variables of one name are
    /// told apart as `hindsight compile` lists them (`w`, `w'2`).
    fn name_witness(&self, witness: &[(VarIx, WitnessValue)]) -> witness::Witness {
        let vars = &self.compiled.plan.vars;
        witness
            .iter()
            .map(|(v, value)| {
                let var = &vars[*v];
                let clash = witness
                    .iter()
                    .any(|(w, _)| w != v && vars[*w].name == var.name);
                let name = if clash { &var.label } else { &var.name };
                (name.clone(), value.clone())
            })
            .collect()
    }

    /// The first `limit` falsifying tuples of `found`, named.
    fn name_tuples(&self, found: &witness::Falsified, limit: usize) -> Vec<witness::Witness> {
        let vars = &self.compiled.plan.vars;
        found
            .tuples
            .iter()
            .take(limit)
            .map(|t| {
                found
                    .vars
                    .iter()
                    .zip(t)
                    .map(|(v, value)| (vars[*v].name.clone(), value.clone()))
                    .collect()
            })
            .collect()
    }

    /// The event of `events` (a decided step's) that the violation `v` of
    /// this property is due to (see [`Self::culprit`]).
    pub(crate) fn culprit_of(
        &self,
        v: &StepViolation,
        events: &[(&[u8], &[&[u8]])],
    ) -> Option<usize> {
        witness::culprit(&self.compiled.plan, &v.found, events)
    }

    /// What the witness searches read: the plan, the summaries, the sets of
    /// seen values and the enumerations.
    fn witness_state(&self) -> witness::State<'_> {
        witness::State {
            plan: &self.compiled.plan,
            now: &self.state.now,
            seen: self
                .state
                .seen
                .iter()
                .map(|s| s.as_ref().map(|s| s.set))
                .collect(),
            classes: &self.state.classes,
        }
    }

    /// Turns witnesses on or off. When on, every violation's witness is
    /// found at once (before garbage collection can release its codes) and
    /// kept until the next event; when off, nothing is computed.
    pub fn enable_witnesses(&mut self, on: bool) {
        self.explain.witness_on = on;
        self.explain.found = Default::default();
        self.refresh_future();
    }

    /// The witness of the violation at the last event: the values of the
    /// statement's outer quantified variables that make the property false,
    /// outermost first, named as in the specification (two variables of one
    /// name in a witness, as in `(Exists w . φ) & (Exists w . ψ)`, are told
    /// apart as `hindsight compile` lists them: `w`, `w'2`). Empty when the
    /// property held at the last event, when witnesses are off, and for a
    /// property without quantifiers.
    pub fn witness(&self) -> Vec<(String, WitnessValue)> {
        if !self.explain.witness_on {
            return Vec::new();
        }
        self.name_witness(&self.explain.found.first())
    }

    /// Turns the listing of every falsifying tuple on (at most `limit` kept)
    /// or off (`None`); see [`witness::falsify`].
    pub fn enable_all_witnesses(&mut self, limit: Option<usize>) {
        self.explain.all_limit = limit;
        self.explain.found = Default::default();
        self.refresh_future();
    }

    /// The falsifying tuples of the violation at the last event (at most the
    /// limit), named as in the specification, and their number.
    pub fn all_witnesses(&self) -> (Vec<witness::Witness>, u64) {
        let Some(limit) = self.explain.all_limit else {
            return (Vec::new(), 0);
        };
        (
            self.name_tuples(&self.explain.found, limit),
            self.explain.found.total,
        )
    }

    /// The event of `events` (the last step's) that the violation at the
    /// last step is due to (see [`crate::runtime::Monitor::culprit`]).
    pub fn culprit(&self, events: &[(&[u8], &[&[u8]])]) -> Option<usize> {
        witness::culprit(&self.compiled.plan, &self.explain.found, events)
    }

    /// Turns the recording of satisfying tuples on or off, over at most
    /// `width` leading `Forall` variables (`None`: all of them).
    pub fn enable_tuples(&mut self, on: bool, width: Option<usize>) {
        self.explain.tuples_on = on;
        self.explain.tuples.clear();
        self.explain.tuple_width = width;
        self.refresh_future();
    }

    /// The names of the statement's leading `Forall` variables, outermost first.
    pub fn tuple_vars(&self) -> Vec<String> {
        let plan = &self.compiled.plan;
        let mut n = plan.root;
        let mut names = Vec::new();
        while let Op::Quant(Quant::Forall, v, a) = &plan.nodes[n].op {
            if Some(names.len()) == self.explain.tuple_width {
                break;
            }
            names.push(plan.vars[*v].name.clone());
            n = *a;
        }
        names
    }

    /// Every assignment of [`PropMonitor::tuple_vars`] under which the
    /// property was false at the last event (empty when it held, or when
    /// tuples are off).
    pub fn tuples(&self) -> &[Vec<WitnessValue>] {
        &self.explain.tuples
    }
}

/// Introspection for profiles (see [`crate::runtime::kept`] and `crate::profile`).
impl PropMonitor {
    /// The BDDs this monitor keeps between events, in a fixed order that
    /// depends only on the plan: rule relations, then per node in evaluation
    /// order its previous value, timed state or comparison relation, then
    /// the seen-value sets.
    pub fn kept_summaries(&self) -> Vec<KeptSummary> {
        let plan = &self.compiled.plan;
        let s = &self.state;
        let bodies: Vec<NodeIx> = plan.rules.iter().map(|r| r.body).collect();
        let mut out: Vec<KeptSummary> = (0..plan.rules.len()).map(KeptSummary::Relation).collect();
        for n in 0..plan.nodes.len() {
            if self.compiled.keeps_pre[n] && !bodies.contains(&n) {
                out.push(KeptSummary::Pre(n));
            }
            if s.timed[n].is_some() {
                out.push(KeptSummary::Timed(n));
            }
            if s.cmp[n].is_some() {
                out.push(KeptSummary::Comparison(n));
            }
        }
        out.extend(
            (0..plan.vars.len())
                .filter(|&v| s.seen[v].is_some())
                .map(KeptSummary::Seen),
        );
        out
    }

    /// The number of BDD nodes of a kept summary now (0 for one not
    /// computed yet, before the first event).
    pub(crate) fn kept_summary_nodes(&self, space: &mut Space, summary: KeptSummary) -> usize {
        let s = &self.state;
        let bdd = match summary {
            KeptSummary::Relation(r) => {
                let rules = &self.compiled.plan.rules;
                rules.get(r).and_then(|r| s.now.get(r.body)).copied()
            }
            KeptSummary::Pre(n) if self.point_on && self.compiled.bypass.lazy.contains(&n) => {
                self.lazy_pre(space, n)
            }
            KeptSummary::Pre(n) if self.point_on && self.compiled.twins.dropped[n] => {
                self.twin_pre(space, n)
            }
            KeptSummary::Pre(n) => s.pre.get(n).copied().flatten(),
            KeptSummary::Timed(n) => {
                let timed = s.timed.get(n).and_then(Option::as_ref);
                return timed.map_or(0, |t| t.bdds().map(|b| space.size(b)).sum());
            }
            KeptSummary::Seen(v) => s.seen.get(v).and_then(Option::as_ref).map(|s| s.set),
            KeptSummary::Comparison(n) => s.cmp.get(n).copied().flatten(),
        };
        bdd.map_or(0, |b| space.size(b))
    }

    /// The number of values that have a code now in enumeration class
    /// `class` (shared by the variables of that class, see [`crate::plan::Var::class`]).
    pub fn live_codes(&self, class: usize) -> usize {
        self.state.classes.get(class).map_or(0, Enumeration::len)
    }

    /// Total BDD nodes of the summaries kept between events.
    pub(crate) fn summary_nodes(&self, space: &mut Space) -> usize {
        let kept: Vec<Bdd> = self.kept_summaries_now(space);
        kept.into_iter().map(|b| space.size(b)).sum()
    }
}
