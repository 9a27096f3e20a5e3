//! The nodes that compute values: assignments `φ & z = t`, filters
//! `φ & C` and aggregations (in [`aggregate`](super::aggregate)).
//!
//! Each works on the satisfying assignments of its operand φ, which the
//! checker made sure are finitely many values of the trace or computed from
//! them (`check::range`): it enumerates those it has not met yet (a walk
//! that picks one assignment at a time), computes on their values, and
//! enters the values it computes into the enumeration of the variable that
//! gets them, like the values of events. What it keeps is a set over the
//! operand's projection: for an assignment, the pairs (inputs, value) met;
//! for a filter, the inputs met and those that passed. Both are cut down to
//! the operand's projection at every evaluation, so they hold no more than
//! the operand does, and the garbage collection of value codes sees them
//! (they are kept summaries).
//!
//! A computation can fail (division by zero, a value that is not a number,
//! codes running out): the error stops the monitor (see
//! [`StepError::Eval`](crate::runtime::StepError::Eval)).

use super::PropMonitor;
use super::future::Future;
use crate::arith::{self, ArithError};
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::compute::{CondItem, TermItem, cond_vars, term_vars};
use crate::plan::{NodeIx, Op, VarIx};
use crate::runtime::StepError;
use crate::runtime::ids::Code;
use crate::runtime::time::Tick;
use crate::syntax::RelOp;

/// What a computing node keeps from one evaluation to the next.
#[derive(Debug)]
pub(super) enum Computed {
    /// An assignment or a filter: the inputs met, and the set derived from
    /// them (pairs of inputs and value, or the inputs that passed).
    Table { met: Bdd, kept: Bdd },
    /// An aggregation.
    Agg(super::aggregate::AggState),
    /// An aggregation over `P[a,b] ψ`.
    Window(super::window::WindowState),
}

impl Computed {
    /// Its BDDs.
    pub fn bdds(&self) -> Vec<Bdd> {
        match self {
            Computed::Table { met, kept } => vec![*met, *kept],
            Computed::Agg(a) => vec![a.body, a.result],
            Computed::Window(w) => vec![w.result],
        }
    }

    /// Applies `f` to each of its BDDs.
    pub fn for_each_bdd(&mut self, mut f: impl FnMut(&mut Bdd)) {
        match self {
            Computed::Table { met, kept } => {
                f(met);
                f(kept);
            }
            Computed::Agg(a) => {
                f(&mut a.body);
                f(&mut a.result);
            }
            Computed::Window(w) => f(&mut w.result),
        }
    }
}

/// Where a computing node is evaluated: at the current step, or (a node
/// that reads a future operator) at a position of the delayed state, whose
/// sets it reads and whose sets are widened with the others when a value
/// it computes needs a wider code.
pub(super) struct Place<'f> {
    /// The delayed state and the position, for a delayed node.
    pub future: Option<(&'f mut Future, u64)>,
    /// The time of the step or position.
    pub tick: Tick,
}

impl Place<'_> {
    /// The value of node `k` here.
    pub fn value(&self, m: &PropMonitor, k: NodeIx) -> Bdd {
        match &self.future {
            Some((f, p)) => f.val(k, *p),
            None => m.state.now[k],
        }
    }
}

impl PropMonitor {
    /// The value of computing node `n` at the current step (see
    /// [`compute_at`](Self::compute_at)).
    pub(super) fn compute_node(&mut self, space: &mut Space, n: NodeIx, tick: Tick) -> Bdd {
        let mut place = Place { future: None, tick };
        self.compute_at(space, n, &mut place)
    }

    /// The value at position `p` of the delayed state `f` of node `n`, if
    /// it is a computing node.
    pub(super) fn compute_delayed(
        &mut self,
        space: &mut Space,
        f: &mut Future,
        n: NodeIx,
        p: u64,
    ) -> Option<Bdd> {
        if !matches!(
            self.compiled.plan.nodes[n].op,
            Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. }
        ) {
            return None;
        }
        let now = f.time(p);
        let prev = if p == 0 { now } else { f.time(p - 1) };
        let mut place = Place {
            future: Some((f, p)),
            tick: Tick { now, prev },
        };
        Some(self.compute_at(space, n, &mut place))
    }

    /// The value of computing node `n` at `place` (false once the monitor
    /// has failed: the error is kept, see [`PropMonitor::failure`]).
    pub(super) fn compute_at(
        &mut self,
        space: &mut Space,
        n: NodeIx,
        place: &mut Place<'_>,
    ) -> Bdd {
        if self.failed.is_some() {
            return space.ff();
        }
        let compiled = std::sync::Arc::clone(&self.compiled);
        let value = match &compiled.plan.nodes[n].op {
            Op::Assign { body, target, term } => {
                self.assign_value(space, n, *body, *target, term, place)
            }
            Op::Filter { body, cond } => self.filter_value(space, n, *body, cond, place),
            Op::Agg {
                op,
                result,
                of,
                group,
                once,
                body,
            } => {
                let a = super::aggregate::AggNode {
                    op: *op,
                    result: *result,
                    of: *of,
                    group,
                    body: *body,
                };
                match once {
                    Some(bound) => self.window_value(space, n, &a, *bound, place),
                    None => self.aggregate_value(space, n, &a, place),
                }
            }
            _ => Ok(space.ff()),
        };
        value.unwrap_or_else(|e| {
            self.failed = Some(e);
            space.ff()
        })
    }

    /// Widens class `class` to `width` bits in every set of the monitor:
    /// the kept ones and the values of this step's nodes.
    fn grow_everything(
        &mut self,
        space: &mut Space,
        class: usize,
        width: usize,
        place: &mut Place<'_>,
    ) {
        self.grow(space, class, width);
        let per_var = self.widening(space, class, width);
        for b in &mut self.state.now {
            super::bind::widen(space, &per_var, b);
        }
        if let Some((f, _)) = &mut place.future {
            f.for_each_bdd(&mut |b: &mut Bdd| super::bind::widen(space, &per_var, b));
        }
        self.state.all_dirty = true;
    }

    /// Every assignment of codes of `vars` under which `set` holds (`set`
    /// depends on no other variable), one pick at a time. An assignment with
    /// a code that stands for no value (the code of unseen values) means
    /// that `set` is not over values of the trace: an error.
    pub(super) fn assignments(
        &self,
        space: &mut Space,
        set: Bdd,
        vars: &[VarIx],
    ) -> Result<Vec<Vec<Code>>, String> {
        let bits: Vec<BddVar> = vars
            .iter()
            .flat_map(|&v| self.low_bits(v).to_vec())
            .collect();
        let mut out = Vec::new();
        let mut rest = set;
        while let Some(values) = space.pick(rest, &bits) {
            let lits: Vec<(BddVar, bool)> =
                bits.iter().copied().zip(values.iter().copied()).collect();
            let cube = space.cube(&lits);
            rest = space.and_not(rest, cube);
            let mut codes = Vec::with_capacity(vars.len());
            let mut at = 0;
            for &v in vars {
                let width = self.low_bits(v).len();
                let code = values[at..at + width]
                    .iter()
                    .fold(0u32, |acc, &b| (acc << 1) | u32::from(b));
                at += width;
                let class = self.compiled.plan.vars[v].class;
                if self.state.classes[class].decode(Code(code)).is_none() {
                    return Err(format!(
                        "variable `{}` has a value not seen in the trace here (the formula holds for infinitely many of its values)",
                        self.compiled.plan.vars[v].name
                    ));
                }
                codes.push(Code(code));
            }
            out.push(codes);
        }
        Ok(out)
    }

    /// The cube of `vars = codes`.
    pub(super) fn codes_cube(&self, space: &mut Space, vars: &[VarIx], codes: &[Code]) -> Bdd {
        let mut lits = Vec::new();
        for (&v, &c) in vars.iter().zip(codes) {
            self.code_cube(v, c, &mut lits);
        }
        space.cube(&lits)
    }

    /// `set` projected on `vars`: the other variables of node `n`'s
    /// operand `body` quantified away.
    pub(super) fn project(&self, space: &mut Space, set: Bdd, body: NodeIx, vars: &[VarIx]) -> Bdd {
        let plan = &self.compiled.plan;
        let others: Vec<BddVar> = plan.nodes[body]
            .free
            .iter()
            .filter(|v| !vars.contains(v))
            .flat_map(|&v| plan.vars[v].bits.iter().copied())
            .collect();
        if others.is_empty() {
            set
        } else {
            space.exists(set, &others)
        }
    }

    /// The value of variable `v` with code `code`.
    pub(super) fn value_of(&self, v: VarIx, code: Code) -> &[u8] {
        let class = self.compiled.plan.vars[v].class;
        self.state.classes[class].value(code)
    }

    /// The code of `value` for variable `v`, entering it in `v`'s class if
    /// it is new (widening the codes, and every summary, when they are
    /// full), and with `see` in the values seen for `v` (without, the value
    /// is only looked up or entered: a group's value of an aggregation over
    /// a window, which is no new value of `v`).
    pub(super) fn enter_value(
        &mut self,
        space: &mut Space,
        v: VarIx,
        value: &[u8],
        see: bool,
        place: &mut Place<'_>,
    ) -> Result<Code, StepError> {
        let plan = &self.compiled.plan;
        let class = plan.vars[v].class;
        let found = self.state.classes[class]
            .get_or_insert(value, self.max_bits)
            .map_err(|_| StepError::out_of_codes(plan, self.max_bits))?;
        if found.grew {
            let width = self.state.classes[class].width();
            self.grow_everything(space, class, width, place);
        }
        if see
            && self.state.seen[v]
                .as_ref()
                .is_some_and(|s| !s.contains(found.code))
        {
            self.see(space, v, found.code);
        }
        Ok(found.code)
    }

    /// An evaluation error of node `n`, for [`StepError::Eval`]: the
    /// computation (not its operand) and what went wrong.
    pub(super) fn eval_error(&self, n: NodeIx, why: &str) -> StepError {
        let plan = &self.compiled.plan;
        let var = |v: VarIx| plan.vars[v].label.clone();
        let what = match &plan.nodes[n].op {
            Op::Assign { target, term, .. } => {
                format!(
                    "`{} = {}`",
                    var(*target),
                    crate::plan::compute::show_term(term, &var)
                )
            }
            Op::Filter { cond, .. } => {
                format!("`{}`", crate::plan::compute::show_cond(cond, &var))
            }
            Op::Agg { op, result, of, .. } => {
                format!("`{} <- {} {}`", var(*result), op.keyword(), var(*of))
            }
            _ => format!("`{}`", plan.formula(n)),
        };
        StepError::Eval {
            property: plan.name.clone(),
            message: format!("{what}: {why}"),
        }
    }

    /// `φ & z = t` at node `n`.
    pub(super) fn assign_value(
        &mut self,
        space: &mut Space,
        n: NodeIx,
        body: NodeIx,
        target: VarIx,
        term: &[TermItem],
        place: &mut Place<'_>,
    ) -> Result<Bdd, StepError> {
        let mut inputs: Vec<VarIx> = term_vars(term).collect();
        inputs.sort_unstable();
        inputs.dedup();
        let set = place.value(self, body);
        let proj = self.project(space, set, body, &inputs);
        let (met, kept) = self.table(space, n, proj);
        let new = space.and_not(proj, met);
        self.state.computed[n] = Some(Computed::Table { met, kept });
        let found = self
            .assignments(space, new, &inputs)
            .map_err(|e| self.eval_error(n, &e))?;
        let mut results = Vec::with_capacity(found.len());
        for codes in &found {
            let value = self
                .term_value(term, &inputs, codes)
                .map_err(|e| self.eval_error(n, &e.to_string()))?;
            results.push(value);
        }
        let mut targets = Vec::with_capacity(results.len());
        for value in &results {
            targets.push(self.enter_value(space, target, value, true, place)?);
        }
        // The table again: entering values may have widened it.
        let (mut met, mut kept) = match &self.state.computed[n] {
            Some(Computed::Table { met, kept }) => (*met, *kept),
            _ => (space.ff(), space.ff()),
        };
        for (codes, &z) in found.iter().zip(&targets) {
            let inputs_cube = self.codes_cube(space, &inputs, codes);
            met = space.or(met, inputs_cube);
            let z_cube = self.codes_cube(space, &[target], &[z]);
            let pair = space.and(inputs_cube, z_cube);
            kept = space.or(kept, pair);
        }
        // The operand again: entering values may have widened it.
        let set = place.value(self, body);
        let value = space.and(set, kept);
        self.state.computed[n] = Some(Computed::Table { met, kept });
        Ok(value)
    }

    /// `φ & C` at node `n`.
    pub(super) fn filter_value(
        &mut self,
        space: &mut Space,
        n: NodeIx,
        body: NodeIx,
        cond: &[CondItem],
        place: &mut Place<'_>,
    ) -> Result<Bdd, StepError> {
        let mut vars: Vec<VarIx> = cond_vars(cond).collect();
        vars.sort_unstable();
        vars.dedup();
        let set = place.value(self, body);
        let proj = self.project(space, set, body, &vars);
        let (mut met, mut kept) = self.table(space, n, proj);
        let new = space.and_not(proj, met);
        let found = self
            .assignments(space, new, &vars)
            .map_err(|e| self.eval_error(n, &e))?;
        for codes in &found {
            let pass = self
                .cond_holds(cond, &vars, codes)
                .map_err(|e| self.eval_error(n, &e.to_string()))?;
            let cube = self.codes_cube(space, &vars, codes);
            met = space.or(met, cube);
            if pass {
                kept = space.or(kept, cube);
            }
        }
        let value = space.and(set, kept);
        self.state.computed[n] = Some(Computed::Table { met, kept });
        Ok(value)
    }

    /// The table of node `n` cut down to the operand's projection `proj`.
    fn table(&self, space: &mut Space, n: NodeIx, proj: Bdd) -> (Bdd, Bdd) {
        match &self.state.computed[n] {
            Some(Computed::Table { met, kept }) => (space.and(*met, proj), space.and(*kept, proj)),
            _ => (space.ff(), space.ff()),
        }
    }

    /// The value of `term` with `vars` bound to `codes`.
    fn term_value(
        &self,
        term: &[TermItem],
        vars: &[VarIx],
        codes: &[Code],
    ) -> Result<Vec<u8>, ArithError> {
        let plan = &self.compiled.plan;
        let lookup = |v: VarIx| {
            let code = vars.iter().position(|&w| w == v).map(|i| codes[i]);
            let value = code.map_or(&[][..], |c| self.value_of(v, c));
            (value, plan.vars[v].numeric)
        };
        arith::eval_term(term, &lookup)
    }

    /// Whether the combination of comparisons `cond` holds with `vars`
    /// bound to `codes`.
    fn cond_holds(
        &self,
        cond: &[CondItem],
        vars: &[VarIx],
        codes: &[Code],
    ) -> Result<bool, ArithError> {
        let plan = &self.compiled.plan;
        let mut stack: Vec<bool> = Vec::with_capacity(cond.len());
        for item in cond {
            let mut pop = || stack.pop().unwrap_or(false);
            let b = match item {
                CondItem::Const(b) => *b,
                CondItem::Not => !pop(),
                CondItem::And | CondItem::Or | CondItem::Implies | CondItem::Iff => {
                    let (y, x) = (pop(), pop());
                    match item {
                        CondItem::And => x && y,
                        CondItem::Or => x || y,
                        CondItem::Implies => !x || y,
                        _ => x == y,
                    }
                }
                CondItem::Cmp {
                    op,
                    left,
                    right,
                    arith,
                } => {
                    let a = self.term_value(left, vars, codes)?;
                    let b = self.term_value(right, vars, codes)?;
                    let text = !arith
                        && matches!(left.as_slice(), [TermItem::Var(v)] if plan.vars[*v].text_order);
                    compare(*op, &a, &b, *arith, text)
                }
            };
            stack.push(b);
        }
        Ok(stack.pop().unwrap_or(false))
    }
}

/// `a op b`: with `arith`, numerals as numbers (`=` too: `2 = 2.0`); as
/// text with `text`; else as plain comparisons compare values.
fn compare(op: RelOp, a: &[u8], b: &[u8], arith: bool, text: bool) -> bool {
    use std::cmp::Ordering;
    let ord = if text {
        a.cmp(b)
    } else {
        crate::value::compare_values(a, b)
    };
    let numeric = crate::value::is_numeral(a) && crate::value::is_numeral(b);
    match op {
        RelOp::Eq if arith && numeric => ord == Ordering::Equal,
        RelOp::Eq => a == b,
        RelOp::Lt => ord == Ordering::Less,
        RelOp::Le => ord != Ordering::Greater,
        RelOp::Gt => ord == Ordering::Greater,
        RelOp::Ge => ord != Ordering::Less,
    }
}
