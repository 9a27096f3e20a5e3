//! The state of one property's monitor: what it carries from one event to
//! the next (summaries `now`/`pre`, timed states, comparison relations,
//! seen values, the value enumerations and the bookkeeping of what changed),
//! and the BDD constants of the property in the monitor's space.

use super::compiled::CompiledProp;
use super::future::Future;
use super::gc::{GcPolicy, GcState};
use crate::bdd::{Bdd, BddSpace, Renaming, Roots, Space, VarSet};
use crate::plan::{Arg, Op, PropPlan};
use crate::runtime::StepError;
use crate::runtime::enumeration::Enumeration;
use crate::runtime::ids::Code;
use crate::runtime::time::TimedState;

/// What a property's monitor keeps between events.
#[derive(Clone, Debug)]
pub(super) struct State {
    /// Per enumeration class: the codes of its values.
    pub classes: Vec<Enumeration>,
    /// Per variable whose seen values matter: those values' codes.
    pub seen: Vec<Option<Seen>>,
    /// Per node: its value at the current event.
    pub now: Vec<Bdd>,
    /// Per node: its value at the previous event, kept for `@` operands and `S` nodes.
    pub pre: Vec<Option<Bdd>>,
    /// Per timed node: its state.
    pub timed: Vec<Option<TimedState>>,
    /// Per comparison node: the pairs of seen values that satisfy it.
    pub cmp: Vec<Option<Bdd>>,
    /// Per assignment, filter and aggregation node: what it keeps.
    pub computed: Vec<Option<super::compute::Computed>>,
    /// Per rule call: the codes of its constant arguments.
    pub call_consts: Vec<Vec<Option<Code>>>,
    /// Whether no event was evaluated yet.
    pub first: bool,
    /// Per node: whether its `now` may differ from the previous event's.
    pub changed: Vec<bool>,
    /// Per node kept in `pre`: whether it changed at the previous event.
    pub pre_changed: Vec<bool>,
    /// Per atom: whether it matched at the previous event.
    pub atom_active: Vec<bool>,
    /// Per comparison: whether it gained pairs at this event.
    pub cmp_dirty: Vec<bool>,
    /// Per variable: whether a value was seen for it for the first time at this event.
    pub seen_dirty: Vec<bool>,
    /// Whether a computing node saw a value for the first time at this event.
    pub computed_seen: bool,
    /// Recompute every node at the next event (after widths grew or codes were released).
    pub all_dirty: bool,
    /// Whether the previous event left every kept summary as it was: then
    /// the same event again leaves it so once more, with the same verdict.
    pub fixed: bool,
    /// The verdict at the previous event.
    pub last_holds: bool,
    /// Garbage collection of value codes.
    pub gc: GcState,
    /// The delayed subformulas' values and states, for a statement with
    /// future operators.
    pub future: Option<Box<Future>>,
}

impl State {
    /// The state before the first event, with codes of `start_bits` bits
    /// (at most `max_bits`).
    pub fn new(
        c: &CompiledProp,
        space: &mut Space,
        start_bits: usize,
        max_bits: usize,
        gc: GcPolicy,
    ) -> Result<State, StepError> {
        let plan = &c.plan;
        let n = plan.nodes.len();
        let start = start_bits.clamp(1, max_bits.max(1));
        let mut classes: Vec<Enumeration> =
            (0..plan.classes).map(|_| Enumeration::new(start)).collect();
        let call_consts = call_consts(plan, &mut classes, max_bits)?;
        let ff = space.ff();
        let per_node = |f: &dyn Fn(&Op) -> Option<Bdd>| -> Vec<Option<Bdd>> {
            plan.nodes.iter().map(|node| f(&node.op)).collect()
        };
        Ok(State {
            classes,
            seen: plan
                .vars
                .iter()
                .map(|v| v.needs_seen.then(|| Seen::new(space)))
                .collect(),
            now: vec![space.ff(); n],
            pre: vec![None; n],
            timed: plan
                .nodes
                .iter()
                .map(|node| match &node.op {
                    Op::SinceTimed(t, ..) => Some(TimedState::since(space, *t)),
                    Op::Zince(d, ..) => Some(TimedState::at_most(space, *d, true)),
                    _ => None,
                })
                .collect(),
            cmp: per_node(&|op| matches!(op, Op::Cmp { .. }).then_some(ff)),
            computed: plan.nodes.iter().map(|_| None).collect(),
            call_consts,
            first: true,
            changed: vec![true; n],
            pre_changed: vec![true; n],
            atom_active: vec![false; n],
            cmp_dirty: vec![false; n],
            seen_dirty: vec![false; plan.vars.len()],
            computed_seen: false,
            all_dirty: true,
            fixed: false,
            last_holds: true,
            gc: GcState::new(gc),
            future: Future::new(plan, false).map(Box::new),
        })
    }

    /// Applies `f` to every BDD kept from one event to the next (also
    /// those of the computing nodes, see [`super::compute`]).
    pub fn for_each_kept(&mut self, mut f: impl FnMut(&mut Bdd)) {
        for b in self.pre.iter_mut().flatten() {
            f(b);
        }
        for s in self.timed.iter_mut().flatten() {
            s.for_each_bdd(&mut f);
        }
        for s in self.seen.iter_mut().flatten() {
            f(&mut s.set);
        }
        for b in self.cmp.iter_mut().flatten() {
            f(b);
        }
        if let Some(future) = &mut self.future {
            future.for_each_bdd(&mut f);
        }
        for c in self.computed.iter_mut().flatten() {
            c.for_each_bdd(&mut f);
        }
    }

    /// The BDDs kept from one event to the next other than previous
    /// values: timed states, seen values and comparison relations.
    pub fn kept_others(&self) -> impl Iterator<Item = Bdd> {
        self.timed
            .iter()
            .flatten()
            .flat_map(TimedState::bdds)
            .chain(self.seen.iter().flatten().map(|s| s.set))
            .chain(self.cmp.iter().flatten().copied())
            .chain(self.future.iter().flat_map(|f| f.bdds()))
            .chain(self.computed.iter().flatten().flat_map(|c| c.bdds()))
    }

    /// Lists every BDD of the state for a collection: the kept ones and
    /// the current values (`now`).
    pub fn keep_roots(&mut self, roots: &mut Roots) {
        roots.keep_all(&mut self.now);
        self.for_each_kept(|b| roots.keep(b));
    }

    /// Number of values that have a code now, over all classes.
    pub fn live_values(&self) -> usize {
        self.classes.iter().map(Enumeration::len).sum()
    }
}

/// Per rule call: the codes of its constant arguments (enumerated now).
fn call_consts(
    plan: &PropPlan,
    classes: &mut [Enumeration],
    max_bits: usize,
) -> Result<Vec<Vec<Option<Code>>>, StepError> {
    let mut out = vec![Vec::new(); plan.nodes.len()];
    for (i, node) in plan.nodes.iter().enumerate() {
        let Op::RuleCall { rule, args } = &node.op else {
            continue;
        };
        for (arg, &p) in args.iter().zip(&plan.rules[*rule].params) {
            out[i].push(match arg {
                Arg::Const(c) => {
                    let class = &mut classes[plan.vars[p].class];
                    let found = class
                        .get_or_insert(c.as_bytes(), max_bits)
                        .map_err(|_| StepError::out_of_codes(plan, max_bits))?;
                    Some(found.code)
                }
                Arg::Var(_) => None,
            });
        }
    }
    Ok(out)
}

/// The BDD constants of a property in its monitor's space: renamings of rule
/// calls and of twins, and the bits of quantified variables (prepared once;
/// the space keeps them for good, so they are never roots).
#[derive(Clone, Debug)]
pub(super) struct SpaceConsts {
    /// Per rule call: the substitution of arguments for parameters.
    pub call_renaming: Vec<Option<Renaming>>,
    /// Per quantifier: its variable's bits.
    pub quant_bits: Vec<Option<VarSet>>,
    /// Per twin: the renaming of its source's bits to its own.
    pub twin_renaming: Vec<Option<Renaming>>,
    /// Per quantifier of the point form's sets: its variables' bits.
    pub scoped_bits: Vec<VarSet>,
}

impl SpaceConsts {
    pub fn new(c: &CompiledProp, space: &mut Space) -> SpaceConsts {
        let plan = &c.plan;
        // Arguments that share their parameter's bits need no renaming.
        let call_renaming = c
            .call_pairs
            .iter()
            .map(|pairs| (!pairs.is_empty()).then(|| space.renaming(pairs)))
            .collect();
        let quant_bits = plan
            .nodes
            .iter()
            .map(|node| match &node.op {
                Op::Quant(_, v, _) => Some(space.var_set(&plan.vars[*v].bits)),
                _ => None,
            })
            .collect();
        let twin_renaming = c
            .twins
            .of
            .iter()
            .map(|t| match t {
                Some((_, bits)) if !bits.is_empty() => Some(space.renaming(bits)),
                _ => None,
            })
            .collect();
        let scoped_bits = (c.point.scoped.iter())
            .map(|vars| {
                let bits: Vec<_> = (vars.iter())
                    .flat_map(|v| plan.vars[*v].bits.iter().copied())
                    .collect();
                space.var_set(&bits)
            })
            .collect();
        SpaceConsts {
            call_renaming,
            quant_bits,
            twin_renaming,
            scoped_bits,
        }
    }
}

/// The values seen for one variable.
#[derive(Clone, Debug)]
pub(super) struct Seen {
    /// Their codes as a set.
    pub set: Bdd,
    /// Their codes in order of first sight.
    pub codes: Vec<Code>,
    member: Vec<bool>,
}

impl Seen {
    fn new(space: &Space) -> Seen {
        Seen {
            set: space.ff(),
            codes: Vec::new(),
            member: Vec::new(),
        }
    }

    pub fn contains(&self, code: Code) -> bool {
        self.member.get(code.index()).copied().unwrap_or(false)
    }

    pub fn insert(&mut self, space: &mut Space, code: Code, cube: Bdd) {
        let i = code.index();
        if self.member.len() <= i {
            self.member.resize(i + 1, false);
        }
        self.member[i] = true;
        self.codes.push(code);
        self.set = space.or(self.set, cube);
    }
}
