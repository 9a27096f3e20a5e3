//! The monitor of one property: `now`/`pre` summaries per subformula,
//! evaluated at each event in the plan's mixed evaluation order.

mod point;

use hashbrown::HashMap;

use super::MonitorError;
use super::enumeration::Enumeration;
use super::kept::KeptSummary;
use super::time::{Clock, Tick, TimedState};
use super::tuples;
use super::witness::{self, WitnessValue};
use crate::bdd::{Bdd, BddVar, Renaming, Space, VarSet};
use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::syntax::{Quant, RelOp};
use crate::value::relop_holds;

/// Entries of the cache of code cubes, per variable.
const CUBE_CACHE: usize = 4096;

/// The runtime state of one property.
#[derive(Clone, Debug)]
pub struct PropMonitor {
    plan: PropPlan,
    space: Space,
    clock: Clock,
    classes: Vec<Enumeration>,
    /// Per variable whose seen values matter: those values' codes.
    seen: Vec<Option<Seen>>,
    now: Vec<Bdd>,
    /// Per node: its value at the previous event, kept for `@` operands and `S` nodes.
    pre: Vec<Option<Bdd>>,
    keeps_pre: Vec<bool>,
    timed: Vec<Option<TimedState>>,
    /// Per comparison node: the pairs of seen values that satisfy it.
    cmp: Vec<Option<Bdd>>,
    /// Per rule call: the codes of its constant arguments.
    call_consts: Vec<Vec<Option<u32>>>,
    /// Per rule call: the substitution of arguments for parameters.
    call_renaming: Vec<Option<Renaming>>,
    /// Per quantifier: its variable's bits.
    quant_bits: Vec<Option<VarSet>>,
    /// Scratch: the literals of a cube.
    cube_lits: Vec<(BddVar, bool)>,
    /// Per variable: the cubes `v = code` of recent codes, direct-mapped by
    /// code (so that few nodes are held; cleared when the width grows).
    code_cubes: Vec<Vec<Option<(u32, Bdd)>>>,
    /// Per variable: the variable whose `code_cubes` it uses (the first one
    /// with the same bits; variables sharing bits share their cubes).
    cube_owner: Vec<VarIx>,
    atoms_by_event: HashMap<Box<[u8]>, Vec<NodeIx>>,
    atom_nodes: Vec<NodeIx>,
    /// Scratch: matched atoms of the current event, each with the range of
    /// its variables' codes in `matched_codes`.
    matched: Vec<(NodeIx, std::ops::Range<usize>)>,
    matched_codes: Vec<(VarIx, u32)>,
    /// Scratch: newly seen (variable, code) pairs of the current event.
    newly_seen: Vec<(VarIx, u32)>,
    first: bool,
    gc: GcState,
    /// Per node: whether its `now` may differ from the previous event's.
    changed: Vec<bool>,
    /// Per node kept in `pre`: whether it changed at the previous event.
    pre_changed: Vec<bool>,
    /// Per atom: whether it matched at the previous event.
    atom_active: Vec<bool>,
    /// Scratch: the previous values of the atoms active at the previous event.
    atom_previous: Vec<(NodeIx, Bdd)>,
    /// Per comparison: whether it gained pairs at this event.
    cmp_dirty: Vec<bool>,
    /// Per variable: whether a value was seen for it for the first time at this event.
    seen_dirty: Vec<bool>,
    /// Recompute every node at the next event (after widths grew or codes were released).
    all_dirty: bool,
    /// Whether no operator of the property reads time stamps.
    untimed: bool,
    /// Whether the previous event left every kept summary as it was: then
    /// the same event again leaves it so once more, with the same verdict.
    fixed: bool,
    /// The verdict at the previous event.
    last_holds: bool,
    /// Whether to find a witness at each violation (off: no cost).
    witness_on: bool,
    /// The witness of the violation at the last event (empty if none).
    witness: Vec<(VarIx, WitnessValue)>,
    /// The statement's point form and the nodes computed as sets.
    point: point::Analysis,
    /// Whether the statement is evaluated by [`point`] (on by default).
    point_on: bool,
    /// Scratch for point evaluation.
    point_env: point::Env,
    /// The nodes computed at every event, in evaluation order.
    set_order: Vec<NodeIx>,
    /// The nodes whose previous value is kept.
    kept_nodes: Vec<NodeIx>,
    /// With all witnesses on (`Some(limit)`): the first `limit` falsifying
    /// tuples at the last event, and their number.
    all_witnesses: Option<(usize, Vec<witness::Tuple>, u64)>,
    /// Whether the satisfying tuples of violations are recorded.
    tuples_on: bool,
    /// The satisfying tuples of the violation at the last event.
    tuples: Vec<Vec<WitnessValue>>,
}

/// When and how much garbage collection of value codes happened.
#[derive(Clone, Debug, Default)]
struct GcState {
    policy: GcPolicy,
    /// Codes in use right after the last collection.
    live_after: usize,
    collections: u64,
    released: u64,
}

/// When to reclaim value codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcPolicy {
    /// When the codes in use have doubled since the last collection (at least 1024).
    #[default]
    Auto,
    /// After every event (for testing).
    Always,
    /// Never.
    Never,
}

impl PropMonitor {
    /// A fresh monitor for `plan`, with codes starting at `start_bits` bits.
    pub fn new(
        plan: PropPlan,
        start_bits: usize,
        gc: GcPolicy,
    ) -> Result<PropMonitor, MonitorError> {
        let space = Space::new(plan.bdd_vars);
        Self::in_space(plan, start_bits, gc, space)
    }

    /// A fresh monitor for `plan` whose BDDs live in `table`'s node table
    /// (the properties of one [`Monitor`](super::Monitor) share one table).
    pub fn sharing(
        plan: PropPlan,
        start_bits: usize,
        gc: GcPolicy,
        table: &Space,
    ) -> Result<PropMonitor, MonitorError> {
        let space = table.sharing(plan.bdd_vars);
        Self::in_space(plan, start_bits, gc, space)
    }

    fn in_space(
        plan: PropPlan,
        start_bits: usize,
        gc: GcPolicy,
        space: Space,
    ) -> Result<PropMonitor, MonitorError> {
        let n = plan.nodes.len();
        let mut keeps_pre = vec![false; n];
        let mut timed = vec![None; n];
        let mut atoms_by_event: HashMap<Box<[u8]>, Vec<NodeIx>> = HashMap::new();
        let mut atom_nodes = Vec::new();
        for (i, node) in plan.nodes.iter().enumerate() {
            match &node.op {
                Op::Prev(a) => keeps_pre[*a] = true,
                Op::Since(..) => keeps_pre[i] = true,
                Op::SinceTimed(t, ..) => timed[i] = Some(TimedState::since(&space, *t)),
                Op::Zince(d, ..) => timed[i] = Some(TimedState::at_most(&space, *d, true)),
                Op::Atom { event, .. } => {
                    atoms_by_event
                        .entry(event.as_bytes().into())
                        .or_default()
                        .push(i);
                    atom_nodes.push(i);
                }
                _ => {}
            }
        }
        let start = start_bits.clamp(1, plan.bits_per_var.max(1));
        let mut classes: Vec<Enumeration> =
            (0..plan.classes).map(|_| Enumeration::new(start)).collect();
        let mut call_consts = vec![Vec::new(); n];
        for (i, node) in plan.nodes.iter().enumerate() {
            if let Op::RuleCall { rule, args } = &node.op {
                let params = &plan.rules[*rule].params;
                for (arg, &p) in args.iter().zip(params) {
                    let code = match arg {
                        Arg::Const(c) => {
                            let class = plan.vars[p].class;
                            let found = classes[class]
                                .get_or_insert(c.as_bytes(), plan.bits_per_var)
                                .map_err(|_| MonitorError::OutOfCodes {
                                    property: plan.name.clone(),
                                })?;
                            Some(found.code)
                        }
                        Arg::Var(_) => None,
                    };
                    call_consts[i].push(code);
                }
            }
        }
        let seen = plan
            .vars
            .iter()
            .map(|v| v.needs_seen.then(|| Seen::new(&space)))
            .collect();
        let call_renaming = plan
            .nodes
            .iter()
            .map(|node| match &node.op {
                Op::RuleCall { rule, args } => {
                    let params = &plan.rules[*rule].params;
                    let mut pairs = Vec::new();
                    for (arg, &p) in args.iter().zip(params) {
                        if let Arg::Var(v) = arg
                            && *v != p
                        {
                            let (from, to) = (&plan.vars[p].bits, &plan.vars[*v].bits);
                            pairs.extend(
                                from.iter()
                                    .copied()
                                    .zip(to.iter().copied())
                                    .filter(|(f, t)| f != t),
                            );
                        }
                    }
                    // Arguments that share their parameter's bits need no renaming.
                    (!pairs.is_empty()).then(|| space.renaming(&pairs))
                }
                _ => None,
            })
            .collect();
        let quant_bits = plan
            .nodes
            .iter()
            .map(|node| match &node.op {
                Op::Quant(_, v, _) => Some(space.var_set(&plan.vars[*v].bits)),
                _ => None,
            })
            .collect();
        let cmp = plan
            .nodes
            .iter()
            .map(|node| matches!(node.op, Op::Cmp { .. }).then(|| space.ff()))
            .collect();
        let kept_nodes = (0..n).filter(|&i| keeps_pre[i]).collect();
        Ok(PropMonitor {
            clock: Clock::new(plan.time_bits.clone()),
            now: vec![space.ff(); n],
            pre: vec![None; n],
            keeps_pre,
            timed: timed.clone(),
            cmp,
            call_consts,
            call_renaming,
            quant_bits,
            cube_lits: Vec::new(),
            code_cubes: vec![Vec::new(); plan.vars.len()],
            cube_owner: (0..plan.vars.len())
                .map(|v| {
                    let first = plan.vars[v].bits.first();
                    (0..v)
                        .find(|&w| plan.vars[w].bits.first() == first)
                        .unwrap_or(v)
                })
                .collect(),
            atoms_by_event,
            atom_nodes,
            seen,
            classes,
            matched: Vec::new(),
            matched_codes: Vec::new(),
            newly_seen: Vec::new(),
            first: true,
            changed: vec![true; n],
            pre_changed: vec![true; n],
            atom_active: vec![false; n],
            atom_previous: Vec::new(),
            cmp_dirty: vec![false; n],
            seen_dirty: vec![false; plan.vars.len()],
            all_dirty: true,
            untimed: timed.iter().all(Option::is_none)
                && !plan.nodes.iter().any(|n| matches!(n.op, Op::Gap(_))),
            fixed: false,
            last_holds: true,
            witness_on: false,
            witness: Vec::new(),
            set_order: Vec::new(),
            kept_nodes,
            point: point::analyse(&plan),
            point_on: true,
            point_env: point::Env::default(),
            all_witnesses: None,
            tuples_on: false,
            tuples: Vec::new(),
            gc: GcState {
                policy: gc,
                ..GcState::default()
            },
            space,
            plan,
        }
        .with_set_order())
    }

    /// The plan being monitored.
    pub fn plan(&self) -> &PropPlan {
        &self.plan
    }

    /// Processes one event; returns whether the property holds after it.
    ///
    /// `repeat` says that the event is the same as the previous one (name and
    /// arguments). An untimed property whose kept summaries the previous event
    /// left unchanged is at a fixed point for that event: the state after
    /// `σ(i-1)` equals the state after `σ(i-2)`, so with `σ(i) = σ(i-1)` it is
    /// unchanged again and the verdict is the previous one. Such an event
    /// costs no BDD work at all.
    pub fn step(
        &mut self,
        name: &[u8],
        args: &[&[u8]],
        tick: Tick,
        repeat: bool,
    ) -> Result<bool, MonitorError> {
        if repeat && self.fixed && self.untimed {
            return Ok(self.last_holds);
        }
        self.clear_bindings();
        self.bind(name, args)?;
        self.finish_step(tick)
    }

    /// Processes one step at which every event of `events` holds (a
    /// time-point of several events): each atom's value is the union of
    /// its matches with the events. Returns whether the property holds.
    pub fn step_set(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        tick: Tick,
    ) -> Result<bool, MonitorError> {
        self.clear_bindings();
        for &(name, args) in events {
            self.bind(name, args)?;
        }
        self.finish_step(tick)
    }

    /// Evaluates the step whose events are bound.
    fn finish_step(&mut self, tick: Tick) -> Result<bool, MonitorError> {
        self.update_comparisons();
        let recompute_all = self.all_dirty || self.first;
        self.evaluate(tick);
        let holds = if self.point_on {
            let mut env = std::mem::take(&mut self.point_env);
            let holds = self.point_holds(&mut env);
            self.point_env = env;
            holds
        } else {
            self.now[self.plan.root].is_true()
        };
        let any_witness = self.witness_on || self.tuples_on || self.all_witnesses.is_some();
        if any_witness && !holds && self.point_on {
            self.complete_point_nodes();
        }
        if self.witness_on {
            self.record_witness(holds);
        }
        if self.all_witnesses.is_some() {
            self.record_all_witnesses(holds);
        }
        if self.tuples_on {
            self.record_tuples(holds);
        }
        let mut kept_changed = false;
        for &n in &self.kept_nodes {
            self.pre_changed[n] = self.changed[n];
            if self.changed[n] {
                kept_changed = true;
                self.pre[n] = Some(self.now[n].clone());
            }
        }
        self.fixed = !recompute_all && !kept_changed && self.newly_seen.is_empty();
        self.last_holds = holds;
        self.first = false;
        self.all_dirty = false;
        let in_use: usize = self.classes.iter().map(Enumeration::len).sum();
        let due = match self.gc.policy {
            GcPolicy::Never => false,
            GcPolicy::Always => true,
            GcPolicy::Auto => in_use >= (2 * self.gc.live_after).max(1024),
        };
        if due && self.collect_garbage() > 0 {
            self.all_dirty = true;
            self.fixed = false;
        }
        Ok(holds)
    }

    /// Number of garbage collections so far, and codes released by them.
    pub fn gc_stats(&self) -> (u64, u64) {
        (self.gc.collections, self.gc.released)
    }

    /// Number of values that have a code now, over all classes.
    pub fn live_values(&self) -> usize {
        self.classes.iter().map(Enumeration::len).sum()
    }

    /// Releases every code that no kept summary distinguishes from the code
    /// for unseen values and that nothing pins (values seen for an
    /// `exists`/`forall` or compared variable, constants of rule calls).
    /// Such a value can no longer influence any verdict; if it occurs again
    /// it is enumerated afresh. Returns the number of codes released.
    pub fn collect_garbage(&mut self) -> usize {
        let dead: Vec<(usize, Vec<u32>)> = (0..self.classes.len())
            .map(|c| (c, self.dead_codes(c)))
            .collect();
        let mut released = 0;
        for (class, codes) in dead {
            released += codes.len();
            for code in codes {
                self.classes[class].release(code);
            }
        }
        self.gc.collections += 1;
        self.gc.released += released as u64;
        self.gc.live_after = self.live_values();
        released
    }

    /// The codes of `class` that no kept summary distinguishes from the
    /// unseen code and that nothing pins.
    fn dead_codes(&self, class: usize) -> Vec<u32> {
        let width = self.classes[class].width();
        let mut pinned = std::collections::HashSet::new();
        let mut distinguishing: Vec<(VarIx, Bdd)> = Vec::new();
        let states: Vec<(&Bdd, Vec<BddVar>)> = self.states().map(|b| (b, b.support())).collect();
        for (v, var) in self.plan.vars.iter().enumerate() {
            if var.class != class {
                continue;
            }
            if let Some(seen) = &self.seen[v] {
                pinned.extend(seen.codes.iter().copied());
            }
            // The codes on which some summary differs from its value at the
            // unseen code: ∃ other variables . (B ⊕ B[v := unseen]).
            let low = &var.bits[var.bits.len() - width..];
            let unseen: Vec<(BddVar, bool)> = low.iter().map(|&b| (b, true)).collect();
            let mut acc = self.space.ff();
            for (b, support) in &states {
                if low.iter().any(|x| support.contains(x)) {
                    let others: Vec<BddVar> = support
                        .iter()
                        .copied()
                        .filter(|x| !low.contains(x))
                        .collect();
                    acc = acc.or(&b.xor(&b.restrict(&unseen)).exists(&others));
                }
            }
            distinguishing.push((v, acc));
        }
        for (n, consts) in self.call_consts.iter().enumerate() {
            if let Op::RuleCall { rule, .. } = &self.plan.nodes[n].op {
                for (&p, code) in self.plan.rules[*rule].params.iter().zip(consts) {
                    if let Some(code) = code
                        && self.plan.vars[p].class == class
                    {
                        pinned.insert(*code);
                    }
                }
            }
        }
        distinguishing.retain(|(_, set)| !set.is_false());
        let mut lits = Vec::new();
        let mut dead = Vec::new();
        for code in self.classes[class].live_codes() {
            if pinned.contains(&code) {
                continue;
            }
            let distinguished = distinguishing.iter().any(|(v, set)| {
                lits.clear();
                self.code_cube(*v, code, &mut lits);
                set.eval(&lits)
            });
            if !distinguished {
                dead.push(code);
            }
        }
        dead
    }

    /// Every BDD kept from one event to the next.
    fn states(&self) -> impl Iterator<Item = &Bdd> {
        self.pre
            .iter()
            .flatten()
            .chain(self.timed.iter().flatten().flat_map(TimedState::bdds))
            .chain(self.seen.iter().flatten().map(|s| &s.set))
            .chain(self.cmp.iter().flatten())
    }

    /// Forgets the events bound at the previous step.
    fn clear_bindings(&mut self) {
        self.matched.clear();
        self.matched_codes.clear();
        self.newly_seen.clear();
    }

    /// Matches the event against the atoms of its name and enumerates the
    /// values bound to variables (growing code widths as needed). Adds to
    /// the matches of the step's other events (see [`step_set`](Self::step_set)).
    fn bind(&mut self, name: &[u8], args: &[&[u8]]) -> Result<(), MonitorError> {
        let Some(atoms) = self.atoms_by_event.get(name) else {
            return Ok(());
        };
        let mut grown = Vec::new();
        for &n in atoms {
            let Op::Atom { args: pattern, .. } = &self.plan.nodes[n].op else {
                continue;
            };
            if pattern.len() != args.len() || !matches_pattern(pattern, args) {
                continue;
            }
            let start = self.matched_codes.len();
            for (p, value) in pattern.iter().zip(args) {
                let Arg::Var(v) = p else { continue };
                if self.matched_codes[start..].iter().any(|&(w, _)| w == *v) {
                    continue;
                }
                let class = self.plan.vars[*v].class;
                let found = self.classes[class]
                    .get_or_insert(value, self.plan.bits_per_var)
                    .map_err(|_| MonitorError::OutOfCodes {
                        property: self.plan.name.clone(),
                    })?;
                if found.grew {
                    grown.push((class, self.classes[class].width()));
                }
                if self.seen[*v]
                    .as_ref()
                    .is_some_and(|s| !s.contains(found.code))
                {
                    self.newly_seen.push((*v, found.code));
                }
                self.matched_codes.push((*v, found.code));
            }
            self.matched.push((n, start..self.matched_codes.len()));
        }
        for (class, width) in grown {
            self.grow(class, width);
            self.all_dirty = true;
        }
        Ok(())
    }

    /// The cube `v = code` over the current width of `v`'s class.
    fn code_cube(&self, v: VarIx, code: u32, lits: &mut Vec<(BddVar, bool)>) {
        let var = &self.plan.vars[v];
        let width = self.classes[var.class].width();
        let bits = &var.bits;
        for i in 0..width {
            lits.push((bits[bits.len() - 1 - i], (code >> i) & 1 == 1));
        }
    }

    fn update_comparisons(&mut self) {
        let newly = std::mem::take(&mut self.newly_seen);
        for &(v, code) in &newly {
            if self.seen[v].as_ref().is_none_or(|s| s.contains(code)) {
                continue;
            }
            let mut lits = Vec::new();
            self.code_cube(v, code, &mut lits);
            let cube = self.space.cube(&lits);
            for n in 0..self.plan.nodes.len() {
                let Op::Cmp { op, left, right } = &self.plan.nodes[n].op else {
                    continue;
                };
                let add = self.comparison_delta(*op, *left, right, v, code);
                if let (Some(add), Some(rel)) = (add, &self.cmp[n]) {
                    self.cmp[n] = Some(rel.or(&add));
                    self.cmp_dirty[n] = true;
                }
            }
            if let Some(s) = &mut self.seen[v] {
                s.insert(code, &cube);
                self.seen_dirty[v] = true;
            }
        }
        self.newly_seen = newly;
    }

    /// The pairs a comparison gains when `code` becomes seen for `v`.
    fn comparison_delta(
        &self,
        op: RelOp,
        left: VarIx,
        right: &Arg,
        v: VarIx,
        code: u32,
    ) -> Option<Bdd> {
        let value = |var: VarIx, c: u32| self.classes[self.plan.vars[var].class].value(c);
        let holds = |a: &[u8], b: &[u8]| relop_holds(op, a, b);
        let cube = |var: VarIx, c: u32| {
            let mut lits = Vec::new();
            self.code_cube(var, c, &mut lits);
            self.space.cube(&lits)
        };
        match right {
            Arg::Const(c) if v == left => {
                holds(value(v, code), c.as_bytes()).then(|| cube(v, code))
            }
            Arg::Var(r) if *r == left && v == left => {
                holds(value(v, code), value(v, code)).then(|| cube(v, code))
            }
            Arg::Var(r) if v == left || v == *r => {
                let other = if v == left { *r } else { left };
                let others = self.seen[other].as_ref()?;
                let mut acc = self.space.ff();
                for &oc in &others.codes {
                    let (a, b) = if v == left {
                        (value(v, code), value(other, oc))
                    } else {
                        (value(other, oc), value(v, code))
                    };
                    if holds(a, b) {
                        acc = acc.or(&cube(other, oc));
                    }
                }
                Some(acc.and(&cube(v, code)))
            }
            _ => None,
        }
    }

    /// Computes `now` of every node in the plan's order. A node none of whose
    /// inputs changed since the previous event keeps its value: exact, since
    /// every operator but the timed ones is a function of its inputs (and of
    /// `pre`, which changes only when the node's own value did).
    fn evaluate(&mut self, tick: Tick) {
        let all = self.all_dirty || self.first;
        // Atoms active at the previous event start again from false; their old
        // values decide exactly whether they changed.
        let mut previous = std::mem::take(&mut self.atom_previous);
        for &n in &self.atom_nodes {
            if !self.is_set(n) {
                continue;
            }
            self.changed[n] = all;
            if self.atom_active[n] {
                previous.push((n, std::mem::replace(&mut self.now[n], self.space.ff())));
            }
            self.atom_active[n] = false;
        }
        for i in 0..self.matched.len() {
            let n = self.matched[i].0;
            if !self.is_set(n) {
                continue;
            }
            let cube = self.match_cube(i);
            self.now[n] = self.now[n].or(&cube);
            self.changed[n] = true;
            self.atom_active[n] = true;
        }
        for (n, old) in previous.drain(..) {
            self.changed[n] = all || self.now[n] != old;
        }
        self.atom_previous = previous;
        let order = std::mem::take(&mut self.set_order);
        for &n in &order {
            let c = &self.changed;
            let dirty = all
                || match &self.plan.nodes[n].op {
                    Op::Atom { .. } => continue,
                    Op::True | Op::False => false,
                    Op::Cmp { .. } => std::mem::take(&mut self.cmp_dirty[n]),
                    Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, v, a) => {
                        c[*a] || self.seen_dirty[*v]
                    }
                    Op::Not(a) | Op::Quant(_, _, a) => c[*a],
                    Op::And(a, b) | Op::Or(a, b) | Op::Implies(a, b) | Op::Iff(a, b) => {
                        c[*a] || c[*b]
                    }
                    Op::Prev(a) => self.pre_changed[*a],
                    // With φ and ψ as before, φ S ψ is as before too:
                    // ψ ∨ (φ ∧ (ψ ∨ (φ ∧ S₋₂))) = ψ ∨ (φ ∧ S₋₂).
                    Op::Since(a, b) => c[*a] || c[*b],
                    Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => true,
                    Op::RuleCall { rule, .. } => c[self.plan.rules[*rule].body],
                };
            if !dirty {
                self.changed[n] = false;
                continue;
            }
            self.cmp_dirty[n] = false;
            let value = match &self.plan.nodes[n].op {
                Op::Atom { .. } => continue,
                Op::True => self.space.tt(),
                Op::False => self.space.ff(),
                Op::Cmp { .. } => self.cmp[n].clone().unwrap_or_else(|| self.space.ff()),
                Op::Not(a) => self.now[*a].not(),
                Op::And(a, b) => self.now[*a].and(&self.now[*b]),
                Op::Or(a, b) => self.now[*a].or(&self.now[*b]),
                Op::Implies(a, b) => self.now[*a].imp(&self.now[*b]),
                Op::Iff(a, b) => self.now[*a].iff(&self.now[*b]),
                Op::Prev(a) => self.pre[*a].clone().unwrap_or_else(|| self.space.ff()),
                Op::Since(a, b) => match &self.pre[n] {
                    Some(pre) => self.now[*b].or(&self.now[*a].and(pre)),
                    None => self.now[*b].clone(),
                },
                Op::SinceTimed(_, a, b) | Op::Zince(_, a, b) => self.timed_step(n, *a, *b, tick),
                Op::Gap(t) => self
                    .space
                    .constant(!self.first && t.contains(tick.now - tick.prev)),
                Op::Quant(q, v, a) => self.quant_value(n, *q, *v, *a),
                Op::RuleCall { rule, args } => self.rule_call(n, *rule, args),
            };
            self.changed[n] = all || value != self.now[n];
            self.now[n] = value;
        }
        self.set_order = order;
        self.seen_dirty.fill(false);
    }

    /// Fills `set_order` for the current mode.
    fn with_set_order(mut self) -> Self {
        self.set_order = (0..self.plan.nodes.len())
            .filter(|&n| self.is_set(n))
            .collect();
        self
    }

    /// Whether node `n`'s `now` is computed at every event.
    fn is_set(&self, n: NodeIx) -> bool {
        !self.point_on || self.point.needs_set[n]
    }

    /// The conjunction of the code cubes of the `i`th match of this event
    /// (true for an atom without variables).
    fn match_cube(&mut self, i: usize) -> Bdd {
        let mut cube: Option<Bdd> = None;
        for j in self.matched[i].1.clone() {
            let (v, code) = self.matched_codes[j];
            let c = self.cached_cube(v, code);
            cube = Some(match cube {
                None => c,
                Some(acc) => acc.and(&c),
            });
        }
        cube.unwrap_or_else(|| self.space.tt())
    }

    /// The cube `v = code` at the current width.
    fn cached_cube(&mut self, v: VarIx, code: u32) -> Bdd {
        let v = self.cube_owner[v];
        if self.code_cubes[v].is_empty() {
            self.code_cubes[v] = vec![None; CUBE_CACHE];
        }
        let slot = code as usize % CUBE_CACHE;
        if let Some((c, cube)) = &self.code_cubes[v][slot]
            && *c == code
        {
            return cube.clone();
        }
        let mut lits = std::mem::take(&mut self.cube_lits);
        lits.clear();
        self.code_cube(v, code, &mut lits);
        let cube = self.space.cube(&lits);
        self.cube_lits = lits;
        self.code_cubes[v][slot] = Some((code, cube.clone()));
        cube
    }

    /// The value of quantifier node `n` over variable `v` with body `a`.
    fn quant_value(&self, n: NodeIx, q: Quant, v: VarIx, a: NodeIx) -> Bdd {
        let Some(bits) = &self.quant_bits[n] else {
            unreachable!("every quantifier has its variable set")
        };
        let body = &self.now[a];
        match q {
            Quant::Exists => body.exists_in(bits),
            Quant::Forall => body.forall_in(bits),
            Quant::ExistsSeen => match &self.seen[v] {
                Some(seen) => seen.set.and_exists_in(body, bits),
                None => self.space.ff(),
            },
            Quant::ForallSeen => match &self.seen[v] {
                Some(seen) => seen.set.and_exists_in(&body.not(), bits).not(),
                None => self.space.tt(),
            },
        }
    }

    /// Computes, as sets, the nodes that point evaluation skipped at this
    /// event (for a witness, which reads every node of the statement). They
    /// are boolean connectives, quantifiers and atoms, functions of this
    /// event's match and of the nodes computed as sets.
    fn complete_point_nodes(&mut self) {
        for n in 0..self.plan.nodes.len() {
            if self.is_set(n) {
                continue;
            }
            let value = match &self.plan.nodes[n].op {
                Op::Atom { .. } => {
                    let mut acc = self.space.ff();
                    for i in 0..self.matched.len() {
                        if self.matched[i].0 == n {
                            acc = acc.or(&self.match_cube(i));
                        }
                    }
                    acc
                }
                Op::True => self.space.tt(),
                Op::False => self.space.ff(),
                Op::Not(a) => self.now[*a].not(),
                Op::And(a, b) => self.now[*a].and(&self.now[*b]),
                Op::Or(a, b) => self.now[*a].or(&self.now[*b]),
                Op::Implies(a, b) => self.now[*a].imp(&self.now[*b]),
                Op::Iff(a, b) => self.now[*a].iff(&self.now[*b]),
                Op::Quant(q, v, a) => self.quant_value(n, *q, *v, *a),
                _ => unreachable!("temporal operators, rules and comparisons are always sets"),
            };
            self.now[n] = value;
        }
    }

    /// Turns point evaluation of the statement on (the default) or off; off,
    /// every subformula is computed as a set at every event. The verdicts are
    /// the same (for comparing the two).
    pub fn set_point_evaluation(&mut self, on: bool) {
        if self.point_on != on {
            self.point_on = on;
            self.set_order = (0..self.plan.nodes.len())
                .filter(|&n| self.is_set(n))
                .collect();
            self.all_dirty = true;
            self.fixed = false;
            // Atoms restart from false: a skipped one may hold a stale value.
            for &n in &self.atom_nodes {
                self.now[n] = self.space.ff();
                self.atom_active[n] = false;
            }
        }
    }

    fn timed_step(&mut self, n: NodeIx, a: NodeIx, b: NodeIx, tick: Tick) -> Bdd {
        let Some(mut state) = self.timed[n].take() else {
            return self.space.ff();
        };
        let value = state.step(&self.space, &self.clock, tick, &self.now[a], &self.now[b]);
        self.timed[n] = Some(state);
        value
    }

    /// The rule's relation with its parameters replaced by the call's arguments.
    ///
    /// This is the simultaneous substitution `p_i := a_i`: a constant argument
    /// restricts its parameter to the constant's code; variable arguments,
    /// repeated or not, and even when they are themselves parameters of the
    /// rule, are substituted at once by [`Bdd::rename`].
    fn rule_call(&self, n: NodeIx, rule: usize, args: &[Arg]) -> Bdd {
        let rule_plan = &self.plan.rules[rule];
        let mut relation = self.now[rule_plan.body].clone();
        let mut restrict = Vec::new();
        for (i, (arg, &p)) in args.iter().zip(&rule_plan.params).enumerate() {
            if let Arg::Const(_) = arg
                && let Some(code) = self.call_consts[n].get(i).copied().flatten()
            {
                self.code_cube(p, code, &mut restrict);
            }
        }
        if !restrict.is_empty() {
            relation = relation.restrict(&restrict);
        }
        match &self.call_renaming[n] {
            Some(renaming) => relation.rename_by(renaming),
            None => relation,
        }
    }

    /// Widens class `class` by one bit: the new top bit was ignored so far; from
    /// now on codes with it set stand for unseen values, like the old reserved code.
    fn grow(&mut self, class: usize, width: usize) {
        for cubes in &mut self.code_cubes {
            cubes.clear();
        }
        let space = self.space.clone();
        let per_var: Vec<(Bdd, Vec<(BddVar, bool)>)> = self
            .plan
            .vars
            .iter()
            .filter(|v| v.class == class)
            .map(|v| {
                let len = v.bits.len();
                let top = space.lit(v.bits[len - width], true);
                (
                    top,
                    v.bits[len - width + 1..]
                        .iter()
                        .map(|&x| (x, true))
                        .collect(),
                )
            })
            .collect();
        let transform = |b: &mut Bdd| {
            for (top, old_low) in &per_var {
                if old_low.iter().all(|&(x, _)| !b.depends_on(x)) {
                    continue;
                }
                let unseen = b.restrict(old_low);
                *b = Bdd::ite(top, &unseen, b);
            }
        };
        self.for_each_state(transform);
    }

    /// Applies `f` to every BDD kept from one event to the next.
    fn for_each_state(&mut self, mut f: impl FnMut(&mut Bdd)) {
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
    }

    /// Total BDD nodes of the summaries kept between events.
    pub fn summary_nodes(&self) -> usize {
        self.states().map(Bdd::size).sum()
    }
}

/// Witnesses (see [`super::witness`]).
impl PropMonitor {
    /// Turns witnesses on or off. When on, every violation's witness is
    /// found at once (before garbage collection can release its codes) and
    /// kept until the next event; when off, nothing is computed.
    pub fn enable_witnesses(&mut self, on: bool) {
        self.witness_on = on;
        self.witness.clear();
    }

    /// The witness of the violation at the last event: the values of the
    /// statement's outer quantified variables that make the property false,
    /// outermost first, named as in the specification (two variables of one
    /// name in a witness, as in `(Exists w . φ) & (Exists w . ψ)`, are told
    /// apart as `hindsight compile` lists them: `w`, `w'2`). Empty when the
    /// property held at the last event, when witnesses are off, and for a
    /// property without quantifiers.
    pub fn witness(&self) -> Vec<(String, WitnessValue)> {
        let vars = &self.plan.vars;
        self.witness
            .iter()
            .map(|(v, value)| {
                let var = &vars[*v];
                let clash = self
                    .witness
                    .iter()
                    .any(|(w, _)| w != v && vars[*w].name == var.name);
                let name = if clash { &var.label } else { &var.name };
                (name.clone(), value.clone())
            })
            .collect()
    }

    /// Turns the listing of every falsifying tuple on (at most `limit` kept)
    /// or off (`None`); see [`witness::find_all`].
    pub fn enable_all_witnesses(&mut self, limit: Option<usize>) {
        self.all_witnesses = limit.map(|l| (l, Vec::new(), 0));
    }

    /// The falsifying tuples of the violation at the last event (at most the
    /// limit), named as in the specification, and their number.
    pub fn all_witnesses(&self) -> (Vec<witness::Witness>, u64) {
        let Some((_, tuples, total)) = &self.all_witnesses else {
            return (Vec::new(), 0);
        };
        let named = tuples
            .iter()
            .map(|t| {
                t.iter()
                    .map(|(v, value)| (self.plan.vars[*v].name.clone(), value.clone()))
                    .collect()
            })
            .collect();
        (named, *total)
    }

    fn record_all_witnesses(&mut self, holds: bool) {
        let Some((limit, _, _)) = self.all_witnesses else {
            return;
        };
        let (tuples, total) = if holds {
            (Vec::new(), 0)
        } else {
            witness::find_all(&self.witness_state(), limit)
        };
        self.all_witnesses = Some((limit, tuples, total));
    }

    fn record_witness(&mut self, holds: bool) {
        self.witness = if holds {
            Vec::new()
        } else {
            witness::find(&self.witness_state())
        };
    }
}

/// Satisfying tuples (see `runtime/tuples.rs`).
impl PropMonitor {
    /// Turns the recording of satisfying tuples on or off.
    pub fn enable_tuples(&mut self, on: bool) {
        self.tuples_on = on;
        self.tuples.clear();
    }

    /// The names of the statement's leading `Forall` variables, outermost first.
    pub fn tuple_vars(&self) -> Vec<String> {
        let mut n = self.plan.root;
        let mut names = Vec::new();
        while let Op::Quant(Quant::Forall, v, a) = &self.plan.nodes[n].op {
            names.push(self.plan.vars[*v].name.clone());
            n = *a;
        }
        names
    }

    /// Every assignment of [`PropMonitor::tuple_vars`] under which the
    /// property was false at the last event (empty when it held, or when
    /// tuples are off).
    pub fn tuples(&self) -> &[Vec<WitnessValue>] {
        &self.tuples
    }

    /// What the witness searches read: the plan, the summaries, the sets of
    /// seen values and the enumerations.
    fn witness_state(&self) -> witness::State<'_> {
        witness::State {
            plan: &self.plan,
            now: &self.now,
            seen: self
                .seen
                .iter()
                .map(|s| s.as_ref().map(|s| &s.set))
                .collect(),
            classes: &self.classes,
        }
    }

    fn record_tuples(&mut self, holds: bool) {
        self.tuples = if holds {
            Vec::new()
        } else {
            tuples::all(&self.witness_state())
        };
    }
}

/// Introspection for profiles (see [`super::kept`] and `crate::profile`).
impl PropMonitor {
    /// The BDDs this monitor keeps between events, in a fixed order that
    /// depends only on the plan: rule relations, then per node in evaluation
    /// order its previous value, timed state or comparison relation, then
    /// the seen-value sets.
    pub fn kept_summaries(&self) -> Vec<KeptSummary> {
        let bodies: Vec<NodeIx> = self.plan.rules.iter().map(|r| r.body).collect();
        let mut out: Vec<KeptSummary> = (0..self.plan.rules.len())
            .map(KeptSummary::Relation)
            .collect();
        for n in 0..self.plan.nodes.len() {
            if self.keeps_pre[n] && !bodies.contains(&n) {
                out.push(KeptSummary::Pre(n));
            }
            if self.timed[n].is_some() {
                out.push(KeptSummary::Timed(n));
            }
            if self.cmp[n].is_some() {
                out.push(KeptSummary::Comparison(n));
            }
        }
        out.extend(
            (0..self.plan.vars.len())
                .filter(|&v| self.seen[v].is_some())
                .map(KeptSummary::Seen),
        );
        out
    }

    /// The number of BDD nodes of a kept summary now (0 for one not
    /// computed yet, before the first event).
    pub fn kept_summary_nodes(&self, summary: KeptSummary) -> usize {
        match summary {
            KeptSummary::Relation(r) => self
                .plan
                .rules
                .get(r)
                .and_then(|r| self.now.get(r.body))
                .map_or(0, Bdd::size),
            KeptSummary::Pre(n) => self
                .pre
                .get(n)
                .and_then(Option::as_ref)
                .map_or(0, Bdd::size),
            KeptSummary::Timed(n) => self
                .timed
                .get(n)
                .and_then(Option::as_ref)
                .map_or(0, |t| t.bdds().map(Bdd::size).sum()),
            KeptSummary::Seen(v) => self
                .seen
                .get(v)
                .and_then(Option::as_ref)
                .map_or(0, |s| s.set.size()),
            KeptSummary::Comparison(n) => self
                .cmp
                .get(n)
                .and_then(Option::as_ref)
                .map_or(0, Bdd::size),
        }
    }

    /// The number of values that have a code now in enumeration class
    /// `class` (shared by the variables of that class, see [`crate::plan::Var::class`]).
    pub fn live_codes(&self, class: usize) -> usize {
        self.classes.get(class).map_or(0, Enumeration::len)
    }
}

/// The values seen for one variable.
#[derive(Clone, Debug)]
struct Seen {
    /// Their codes as a set.
    set: Bdd,
    /// Their codes in order of first sight.
    codes: Vec<u32>,
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

    fn contains(&self, code: u32) -> bool {
        self.member.get(code as usize).copied().unwrap_or(false)
    }

    fn insert(&mut self, code: u32, cube: &Bdd) {
        let i = code as usize;
        if self.member.len() <= i {
            self.member.resize(i + 1, false);
        }
        self.member[i] = true;
        self.codes.push(code);
        self.set = self.set.or(cube);
    }
}

fn matches_pattern(pattern: &[Arg], args: &[&[u8]]) -> bool {
    for (i, p) in pattern.iter().enumerate() {
        match p {
            Arg::Const(c) if c.as_bytes() != args[i] => return false,
            Arg::Var(v) => {
                if let Some(j) = pattern[..i].iter().position(|q| q == &Arg::Var(*v))
                    && args[j] != args[i]
                {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}
