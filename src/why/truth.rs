//! The truth of a property's subformulas under given values of their free
//! variables, at every event of a trace prefix: the series that `why`'s
//! proofs read.
//!
//! A series is the truth of one subformula under one assignment of its free
//! variables at events `1, 2, ...`, computed forward on demand, as the
//! monitor computes `now` from `pre` (the DejaVu recurrences), but on
//! explicit values instead of BDDs: `φ S ψ` at `i` is `ψ(i) | φ(i) & S(i-1)`,
//! a timed operator keeps the window of events that can still satisfy it,
//! a rule call is its body under the call's values; a series has one value
//! per step of [`Events`] (an event and the repeats taken at once with it).
//! Event atoms and comparisons are read off the event directly, and a
//! comparison of arithmetic terms off its values. The semantics are those of
//! docs/LANGUAGE.md: `Exists`/`Forall` range over the values of the trace
//! and one fresh value standing for all others; `exists`/`forall` and
//! comparisons use the values seen for the variable, those that the event
//! atoms of its binder's scope bound to it at events `1..=i`.

use std::collections::VecDeque;

use hashbrown::HashMap;

use super::events::{Events, FRESH, ValueId};
use super::quant::QuantOp;
use crate::check::Property;
use crate::syntax::{Arena, BinOp, Form, FormId, Term, TimeBound};

/// Where a formula sits: the statement (0) or the body of rule `k` (`k + 1`).
pub type Ctx = usize;

/// The statement's context.
pub const STATEMENT: Ctx = 0;

/// A binding occurrence of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binder {
    /// The quantifier node in a context.
    Quant(Ctx, FormId),
    /// Parameter `k` of the rule of a context.
    Param(Ctx, usize),
}

/// A variable bound to a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    /// The variable's name.
    pub name: String,
    /// Its value ([`FRESH`]: a value not seen).
    pub value: ValueId,
    /// Where it is bound.
    pub binder: Binder,
}

/// An environment: later bindings hide earlier ones of the same name.
pub type Env = Vec<Bound>;

/// The binding of `name` in `env`.
pub fn lookup<'e>(env: &'e Env, name: &str) -> Option<&'e Bound> {
    env.iter().rev().find(|b| b.name == name)
}

/// A subformula under an assignment, as [`Truth::value`] reads it.
#[derive(Clone, Debug)]
pub enum Kid {
    /// `true` or `false`.
    Const(bool),
    /// An event atom with all its arguments' values.
    Atom(ValueId, Vec<ValueId>),
    /// A comparison: whether it holds of the values, and the values that
    /// must have been seen (with their binders).
    Cmp(bool, Vec<(Binder, ValueId)>),
    /// A stored series.
    Series(usize),
}

/// `φ S ψ` and the operators made of it, with their operands possibly negated.
#[derive(Clone, Debug)]
pub(super) struct SinceOp {
    pub(super) bound: Option<TimeBound>,
    pub(super) phi: Option<(Kid, bool)>,
    pub(super) psi: (Kid, bool),
    /// `Z`: ψ at an earlier event only.
    pub(super) strict: bool,
    /// The result negated (`H φ` is `!P !φ`).
    pub(super) negate: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Pending,
    Not(Kid),
    Bin(BinOp, Kid, Kid),
    Prev(Option<TimeBound>, Kid),
    Since(SinceOp),
    Next(Option<TimeBound>, Kid),
    /// `φ U ψ` (φ `None`: `true`), negated when the flag is set.
    Until(Option<TimeBound>, Option<(Kid, bool)>, (Kid, bool), bool),
    /// A quantifier (see [`super::quant`]).
    Quant(QuantOp),
}

#[derive(Debug)]
pub(super) struct Series {
    op: Op,
    /// Its value per step (see [`Events`]): at each event of the step.
    bits: Vec<u64>,
    /// Steps `1..=done` are computed.
    done: usize,
    /// The last value of an untimed since, before any negation.
    pub(super) last: bool,
    /// Timed operators: the candidate steps, oldest first.
    pub(super) window: VecDeque<usize>,
}

/// A pattern of an atom's argument for the seen sets.
#[derive(Clone, Debug)]
pub(super) enum Pat {
    Const(ValueId),
    Var(String),
}

/// A series' subformula: its context, its node, the values and binders
/// of its free variables.
type SeriesKey = (Ctx, FormId, Vec<(ValueId, Binder)>);

/// The truth of one property's subformulas over a trace prefix.
pub struct Truth<'a> {
    pub(super) arena: &'a Arena,
    pub(super) prop: &'a Property,
    pub(super) events: &'a Events,
    pub(super) rules: HashMap<&'a str, usize>,
    pub(super) free: HashMap<FormId, Vec<String>>,
    pub(super) consts: HashMap<String, ValueId>,
    pub(super) series: Vec<Series>,
    index: HashMap<SeriesKey, usize>,
    /// Per binder: the first event at which each value is seen.
    pub(super) seen: HashMap<Binder, HashMap<ValueId, usize>>,
    /// Per binder: its values in the order they are first seen.
    pub(super) seen_order: HashMap<Binder, Vec<ValueId>>,
    /// The domain of `Exists`/`Forall`: the values at argument places of
    /// the property's atoms, then [`FRESH`].
    pub(super) domain: Option<Vec<ValueId>>,
    /// Values to try first for the statement's quantified variables (the
    /// monitor's witness), by name.
    pub prefer: HashMap<String, ValueId>,
    /// Once set, no more is computed (every value reads false): the
    /// caller gave up (`hindsight serve`'s time limit).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'a> Truth<'a> {
    /// The truth of `prop`'s subformulas on `events`; `consts` interns the
    /// specification's constants (see [`Events::intern`]).
    pub fn new(
        arena: &'a Arena,
        prop: &'a Property,
        events: &'a Events,
        consts: HashMap<String, ValueId>,
    ) -> Truth<'a> {
        let rules = (prop.rules.iter().enumerate())
            .map(|(k, r)| (r.name.name.as_str(), k))
            .collect();
        Truth {
            arena,
            prop,
            events,
            rules,
            free: HashMap::new(),
            consts,
            series: Vec::new(),
            index: HashMap::new(),
            seen: HashMap::new(),
            seen_order: HashMap::new(),
            domain: None,
            prefer: HashMap::new(),
            cancel: None,
        }
    }

    /// The arena of the specification.
    pub fn arena(&self) -> &'a Arena {
        self.arena
    }

    /// The property.
    pub fn prop(&self) -> &'a Property {
        self.prop
    }

    /// The events.
    pub fn events(&self) -> &'a Events {
        self.events
    }

    /// The rule called `name`, if any.
    pub fn rule(&self, name: &str) -> Option<usize> {
        self.rules.get(name).copied()
    }


    /// The value of a term under `env` (a constant's interned id).
    pub fn term(&self, env: &Env, t: &Term) -> ValueId {
        match t {
            Term::Var(v) => lookup(env, &v.name).map_or(FRESH, |b| b.value),
            Term::Const(c) => self.consts.get(&c.text).copied().unwrap_or(FRESH),
        }
    }

    /// Whether `id` holds at event `i` in `ctx` under `env`. Connectives,
    /// quantifiers and rule calls are evaluated at `i` alone (a quantifier
    /// stops at the first value that decides it, trying the preferred value
    /// first); only the temporal operators below them are series.
    pub fn holds(&mut self, ctx: Ctx, id: FormId, env: &Env, i: usize) -> bool {
        stacker::maybe_grow(64 * 1024, 1 << 20, || self.holds_inner(ctx, id, env, i))
    }

    fn holds_inner(&mut self, ctx: Ctx, id: FormId, env: &Env, i: usize) -> bool {
        match self.arena.form(id) {
            Form::Not(a) => !self.holds(ctx, *a, env, i),
            Form::Bin(op, a, b) => {
                let (op, a, b) = (*op, *a, *b);
                let va = self.holds(ctx, a, env, i);
                match op {
                    BinOp::And if !va => false,
                    BinOp::Or if va => true,
                    BinOp::Implies if !va => true,
                    _ => {
                        let vb = self.holds(ctx, b, env, i);
                        match op {
                            BinOp::Iff => va == vb,
                            _ => vb,
                        }
                    }
                }
            }
            Form::Call { name, args } if self.rule(&name.name).is_some() => {
                let k = self.rule(&name.name).unwrap_or_default();
                let inner = self.rule_env(k, args, env);
                self.holds(k + 1, self.prop.rules[k].body, &inner, i)
            }
            Form::Quant(..) => self.quant_holds(ctx, id, env, i),
            _ => {
                let kid = self.kid(ctx, id, env);
                self.value(&kid, i)
            }
        }
    }

    /// The free variables of `id`, sorted.
    pub fn free_vars(&mut self, id: FormId) -> Vec<String> {
        if let Some(v) = self.free.get(&id) {
            return v.clone();
        }
        let mut vars = std::collections::BTreeSet::new();
        match self.arena.form(id) {
            Form::Call { args, .. } => {
                vars.extend(args.iter().filter_map(|a| match a {
                    Term::Var(v) => Some(v.name.clone()),
                    Term::Const(_) => None,
                }));
            }
            Form::Cmp { left, right, .. } => {
                vars.insert(left.name.clone());
                if let Term::Var(v) = right {
                    vars.insert(v.name.clone());
                }
            }
            Form::Rel { left, right, .. } => {
                vars.extend(left.vars().chain(right.vars()).map(|v| v.name.clone()));
            }
            Form::Quant(_, x, body) => {
                let body = *body;
                vars.extend(stacker::maybe_grow(64 * 1024, 1 << 20, || {
                    self.free_vars(body)
                }));
                vars.remove(&x.name);
            }
            form => {
                let kids: Vec<FormId> = form.children().collect();
                for k in kids {
                    vars.extend(stacker::maybe_grow(64 * 1024, 1 << 20, || {
                        self.free_vars(k)
                    }));
                }
            }
        }
        let vars: Vec<String> = vars.into_iter().collect();
        self.free.insert(id, vars.clone());
        vars
    }

    /// The environment of the body of the rule `k` called with `args`.
    pub fn rule_env(&self, k: usize, args: &[Term], env: &Env) -> Env {
        (self.prop.rules[k].params.iter().zip(args).enumerate())
            .map(|(p, (param, a))| Bound {
                name: param.name.clone(),
                value: self.term(env, a),
                binder: Binder::Param(k + 1, p),
            })
            .collect()
    }

    /// `id` in `ctx` under `env`, ready to be read at any event.
    pub fn kid(&mut self, ctx: Ctx, id: FormId, env: &Env) -> Kid {
        stacker::maybe_grow(64 * 1024, 1 << 20, || self.kid_inner(ctx, id, env))
    }

    fn kid_inner(&mut self, ctx: Ctx, id: FormId, env: &Env) -> Kid {
        let arena = self.arena;
        match arena.form(id) {
            Form::True => return Kid::Const(true),
            Form::False => return Kid::Const(false),
            Form::Call { name, args } => {
                if let Some(k) = self.rule(&name.name) {
                    let inner = self.rule_env(k, args, env);
                    return self.kid(k + 1, self.prop.rules[k].body, &inner);
                }
                let name = self.events.id(name.name.as_bytes()).unwrap_or(FRESH);
                let values = args.iter().map(|a| self.term(env, a)).collect();
                return Kid::Atom(name, values);
            }
            Form::Rel { op, left, right } => {
                // A comparison of arithmetic terms filters the values of the
                // formula it constrains: it holds of the values or not.
                let holds = match (self.expr_value(env, left), self.expr_value(env, right)) {
                    (Some(a), Some(b)) => crate::value::relop_holds(*op, &a, &b),
                    _ => false,
                };
                return Kid::Const(holds);
            }
            Form::Cmp { op, left, right } => {
                let mut need = Vec::new();
                let x =
                    lookup(env, &left.name).map_or((FRESH, None), |b| (b.value, Some(b.binder)));
                need.extend(x.1.map(|b| (b, x.0)));
                let y = match right {
                    Term::Var(v) => {
                        let y = lookup(env, &v.name)
                            .map_or((FRESH, None), |b| (b.value, Some(b.binder)));
                        need.extend(y.1.map(|b| (b, y.0)));
                        y.0
                    }
                    Term::Const(_) => self.term(env, right),
                };
                let holds = match (self.events.text(x.0), self.events.text(y)) {
                    (Some(a), Some(b)) => crate::value::relop_holds(*op, a, b),
                    _ => false,
                };
                let unbound = x.1.is_none() || (matches!(right, Term::Var(_)) && need.len() < 2);
                return Kid::Cmp(holds && !unbound, need);
            }
            _ => {}
        }
        let free = self.free_vars(id);
        let key_env: Vec<(ValueId, Binder)> = free
            .iter()
            .filter_map(|v| lookup(env, v).map(|b| (b.value, b.binder)))
            .collect();
        let key = (ctx, id, key_env);
        if let Some(&s) = self.index.get(&key) {
            return Kid::Series(s);
        }
        let sid = self.series.len();
        self.series.push(Series {
            op: Op::Pending,
            bits: Vec::new(),
            done: 0,
            last: false,
            window: VecDeque::new(),
        });
        self.index.insert(key, sid);
        let op = self.op(ctx, id, env);
        self.series[sid].op = op;
        Kid::Series(sid)
    }

    fn op(&mut self, ctx: Ctx, id: FormId, env: &Env) -> Op {
        let form = self.arena.form(id).clone();
        let k = |s: &mut Self, f: FormId| s.kid(ctx, f, env);
        let since = |bound, phi, psi, strict, negate| {
            Op::Since(SinceOp {
                bound,
                phi,
                psi,
                strict,
                negate,
            })
        };
        match form {
            Form::Not(a) => Op::Not(k(self, a)),
            Form::Bin(op, a, b) => Op::Bin(op, k(self, a), k(self, b)),
            Form::Prev(a) => Op::Prev(None, k(self, a)),
            Form::PrevIn(t, a) => Op::Prev(Some(t), k(self, a)),
            Form::Once(b, a) => since(b, None, (k(self, a), false), false, false),
            Form::Hist(b, a) => since(b, None, (k(self, a), true), false, true),
            Form::Since(b, p, q) => since(
                b,
                Some((k(self, p), false)),
                (k(self, q), false),
                false,
                false,
            ),
            Form::Zince(d, p, q) => since(
                Some(TimeBound::at_most(d)),
                Some((k(self, p), false)),
                (k(self, q), false),
                true,
                false,
            ),
            Form::Interval(a, b) => since(
                None,
                Some((k(self, b), true)),
                (k(self, a), false),
                false,
                false,
            ),
            Form::Next(t, a) => Op::Next(t, k(self, a)),
            Form::Eventually(b, a) => Op::Until(b, None, (k(self, a), false), false),
            Form::Always(b, a) => Op::Until(b, None, (k(self, a), true), true),
            Form::Until(b, p, q) => {
                Op::Until(b, Some((k(self, p), false)), (k(self, q), false), false)
            }
            Form::Quant(..) => Op::Quant(QuantOp::new(ctx, id, env)),
            Form::True | Form::False | Form::Call { .. } | Form::Cmp { .. } => Op::Pending,
            // Answered by `kid` (a comparison of terms), or refused before
            // any proof (see `unexplained`).
            Form::Rel { .. } | Form::Agg(..) | Form::Let(..) => Op::Pending,
        }
    }

    /// The value of `kid` at event `i` (false outside `1..=len`).
    pub fn value(&mut self, kid: &Kid, i: usize) -> bool {
        if i == 0 || i > self.events.len() {
            return false;
        }
        match kid {
            Kid::Cmp(holds, need) => {
                *holds
                    && need
                        .iter()
                        .all(|&(b, v)| self.first_seen(b, v).is_some_and(|f| f <= i))
            }
            _ => {
                let r = self.events.step_of(i);
                self.value_step(kid, r)
            }
        }
    }

    /// The value of `kid` at step `r` (from 1): at each of its events.
    pub(super) fn value_step(&mut self, kid: &Kid, r: usize) -> bool {
        match kid {
            Kid::Const(b) => *b,
            Kid::Atom(n, args) => {
                // Compared field by field: a call of `memcmp` costs more
                // than the one or two fields of an event.
                let have = self.events.step_args(r);
                self.events.step_name(r) == *n
                    && have.len() == args.len()
                    && have.iter().zip(args).all(|(a, b)| a == b)
            }
            Kid::Cmp(..) => {
                let i = self.events.first_event(r);
                self.value(kid, i)
            }
            Kid::Series(s) => {
                let s = *s;
                if self.series[s].done < r {
                    stacker::maybe_grow(64 * 1024, 1 << 20, || self.extend(s, r));
                }
                let bits = &self.series[s].bits;
                bits.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 == 1)
            }
        }
    }

    fn lit(&mut self, lit: &Option<(Kid, bool)>, i: usize) -> bool {
        match lit {
            None => true,
            Some((k, neg)) => self.value(k, i) != *neg,
        }
    }

    /// [`Truth::lit`] at step `r`.
    pub(super) fn lit_step(&mut self, lit: &Option<(Kid, bool)>, r: usize) -> bool {
        match lit {
            None => true,
            Some((k, neg)) => self.value_step(k, r) != *neg,
        }
    }

    /// Computes series `s` up to step `to`.
    fn extend(&mut self, s: usize, to: usize) {
        let mut op = std::mem::replace(&mut self.series[s].op, Op::Pending);
        while self.series[s].done < to {
            let r = self.series[s].done + 1;
            if r.is_multiple_of(1024) && self.cancelled() {
                self.series[s].done = to;
                break;
            }
            let v = self.step(s, &mut op, r);
            let series = &mut self.series[s];
            if series.bits.len() <= r / 64 {
                series.bits.resize(r / 64 + 1, 0);
            }
            if v {
                series.bits[r / 64] |= 1 << (r % 64);
            }
            series.done = r;
        }
        self.series[s].op = op;
    }

    /// Whether the caller gave up (see [`Truth::cancel`]).
    pub fn cancelled(&self) -> bool {
        (self.cancel.as_ref()).is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Whether the time from event `j` to event `i` (`j <= i`) lies in `bound`.
    pub fn within(&self, bound: Option<TimeBound>, j: usize, i: usize) -> bool {
        bound.is_none_or(|b| b.contains(self.events.clock(i) - self.events.clock(j)))
    }

    /// The value of series `s` (its operator `op`) at step `r`: at the
    /// step's first event, and so at each of its repeats.
    fn step(&mut self, s: usize, op: &mut Op, r: usize) -> bool {
        let i = self.events.first_event(r);
        match op {
            Op::Pending => false,
            Op::Not(a) => !self.value_step(a, r),
            Op::Bin(op, a, b) => {
                let a = self.value_step(a, r);
                let b = self.value_step(b, r);
                match op {
                    BinOp::And => a && b,
                    BinOp::Or => a || b,
                    BinOp::Implies => !a || b,
                    BinOp::Iff => a == b,
                }
            }
            // The event before the step's first is its previous step's last.
            Op::Prev(t, a) => r > 1 && self.within(*t, i - 1, i) && self.value_step(a, r - 1),
            Op::Since(op) => self.since_step(s, op, r),
            Op::Next(t, a) => {
                i < self.events.len() && self.within(*t, i, i + 1) && self.value(a, i + 1)
            }
            Op::Until(bound, phi, psi, negate) => {
                let mut found = false;
                for j in i..=self.events.len() {
                    let gap = self.events.clock(j) - self.events.clock(i);
                    if bound.is_some_and(|b| b.hi.is_some_and(|h| gap > h)) {
                        break;
                    }
                    if bound.is_none_or(|b| b.contains(gap)) && self.lit(&Some(psi.clone()), j) {
                        found = true;
                        break;
                    }
                    if !self.lit(phi, j) {
                        break;
                    }
                }
                found != *negate
            }
            Op::Quant(q) => self.quant_step(q, r),
        }
    }
}

pub use super::citing::Citing;
