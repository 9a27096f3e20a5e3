//! A deliberately simple reference evaluator for QTL (docs/LANGUAGE.md), used as
//! the oracle of the differential tests.
//!
//! It follows the definitions literally: a formula is evaluated at event `i`
//! by recursion over the trace prefix, with explicit values, explicit sets of
//! seen values and no BDDs. The only optimisation is a memo table keyed by
//! (context, formula, event, values of the formula's free variables), which
//! keeps the nested temporal operators of small cases fast.
//!
//! Conventions:
//! - events are numbered from 1; `clock[i]` is the effective time of event `i`:
//!   `c_1 = t_1`, `c_i = c_{i-1} + max(0, t_i - t_{i-1})`;
//! - `Exists`/`Forall` range over every value of the trace, every constant of
//!   the specification and one fresh value (which stands for all the others);
//! - comparisons: `=` is textual equality, the orders are `compare_values`;
//! - `exists`/`forall` and comparisons use the seen sets: the values bound to a
//!   variable by matching event atoms at events `1..=i`. A variable is its
//!   binding occurrence (a quantifier, or a parameter of a rule), not its
//!   name: the environment maps a name to its value *and* its binder, and the
//!   atoms of a binder are the event atoms of its scope (the quantifier's
//!   body, the rule's body) that mention the name, not counting those under
//!   an inner quantifier of the same name. So two sibling quantifiers over
//!   `x` have their own seen values, by construction.

#[path = "reference_agg.rs"]
mod agg;

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use hindsight::check::{Checked, Property};
use hindsight::syntax::{Arena, BinOp, Form, FormId, Quant, RelOp, Term, TimeBound};
use hindsight::value::compare_values;

/// One event of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The event name.
    pub name: String,
    /// The argument values.
    pub args: Vec<String>,
    /// The time stamp (0 in untimed traces).
    pub time: u64,
}

impl Event {
    /// An event from string slices.
    pub fn new(name: &str, args: &[&str], time: u64) -> Event {
        Event {
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            time,
        }
    }
}

/// The violations of every property of `spec` on `trace`: the pairs
/// (property index, event number), event numbers counted from 1.
pub fn violations(spec: &Checked, trace: &[Event]) -> BTreeSet<(usize, usize)> {
    violations_clocked(spec, trace, false)
}

/// [`violations`], where with `step_clock` each event's time is its number
/// (the clock of an untimed trace: event `i` at time `i`).
pub fn violations_clocked(
    spec: &Checked,
    trace: &[Event],
    step_clock: bool,
) -> BTreeSet<(usize, usize)> {
    let numbered: Vec<Event>;
    let trace = if step_clock {
        numbered = (trace.iter().enumerate())
            .map(|(i, e)| Event {
                time: i as u64 + 1,
                ..e.clone()
            })
            .collect();
        &numbered[..]
    } else {
        trace
    };
    let mut out = BTreeSet::new();
    for (pi, prop) in spec.props.iter().enumerate() {
        let mut eval = Evaluator::new(&spec.arena, prop, trace);
        eval.close_domain();
        for i in 1..=trace.len() {
            if !eval.eval(STATEMENT, prop.body, i, &Env::new()) {
                out.insert((pi, i));
            }
        }
    }
    out
}

/// Where a formula sits: the statement, or the body of rule `k` (context `k + 1`).
type Ctx = usize;
const STATEMENT: Ctx = 0;

/// A binding occurrence of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Binder {
    /// The quantifier node `FormId` in context `Ctx`.
    Quant(Ctx, FormId),
    /// Parameter `k` of the rule of context `Ctx`.
    Param(Ctx, usize),
}

/// A variable's value and its binder.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Bound {
    value: String,
    binder: Binder,
}

/// Variable name → value and binder.
type Env = BTreeMap<String, Bound>;

/// An event atom `name(args)`.
struct Atom {
    name: String,
    args: Vec<Term>,
}

struct Evaluator<'a> {
    arena: &'a Arena,
    prop: &'a Property,
    trace: &'a [Event],
    /// `clock[i]` for `i` in `1..=n` (`clock[0]` is unused).
    clock: Vec<u64>,
    /// The domain of `Exists`/`Forall`: trace values, constants, one fresh value.
    domain: Vec<String>,
    /// Free variables of every formula node (sorted).
    free: HashMap<FormId, Vec<String>>,
    /// Per binder, the event atoms of its scope that mention its variable.
    atoms: HashMap<Binder, Vec<Atom>>,
    /// (binder, i) → seen values.
    seen: HashMap<(Binder, usize), BTreeSet<String>>,
    memo: HashMap<(Ctx, FormId, usize, Vec<Bound>), bool>,
    /// (binder, name) → the values computed for the variable, with the
    /// events they are computed at (see `agg`).
    computed: HashMap<(Binder, String), BTreeSet<(usize, String)>>,
}

impl<'a> Evaluator<'a> {
    fn new(arena: &'a Arena, prop: &'a Property, trace: &'a [Event]) -> Self {
        let mut clock = vec![0];
        for (k, e) in trace.iter().enumerate() {
            let c = if k == 0 {
                e.time
            } else {
                clock[k] + e.time.saturating_sub(trace[k - 1].time)
            };
            clock.push(c);
        }

        let mut roots = vec![prop.body];
        roots.extend(prop.rules.iter().map(|r| r.body));
        let mut values: BTreeSet<String> =
            trace.iter().flat_map(|e| e.args.iter().cloned()).collect();
        for &root in &roots {
            let mut stack = vec![root];
            while let Some(id) = stack.pop() {
                let form = arena.form(id);
                match form {
                    Form::Call { args, .. } => {
                        for a in args {
                            if let Term::Const(c) = a {
                                values.insert(c.text.clone());
                            }
                        }
                    }
                    Form::Cmp {
                        right: Term::Const(c),
                        ..
                    } => {
                        values.insert(c.text.clone());
                    }
                    _ => {}
                }
                stack.extend(form.children());
            }
        }
        let mut fresh = String::from("fresh");
        while values.contains(&fresh) {
            fresh.push('\'');
        }
        let mut domain: Vec<String> = values.into_iter().collect();
        domain.push(fresh);

        Evaluator {
            arena,
            prop,
            trace,
            clock,
            domain,
            free: HashMap::new(),
            atoms: HashMap::new(),
            seen: HashMap::new(),
            memo: HashMap::new(),
            computed: HashMap::new(),
        }
    }

    /// The free variables of `id`, sorted.
    fn free_vars(&mut self, id: FormId) -> Vec<String> {
        if let Some(v) = self.free.get(&id) {
            return v.clone();
        }
        let mut vars = BTreeSet::new();
        match self.arena.form(id) {
            Form::Call { args, .. } => {
                for a in args {
                    if let Term::Var(v) = a {
                        vars.insert(v.name.clone());
                    }
                }
            }
            Form::Cmp { left, right, .. } => {
                vars.insert(left.name.clone());
                if let Term::Var(v) = right {
                    vars.insert(v.name.clone());
                }
            }
            Form::Quant(_, x, body) => {
                let body = *body;
                vars.extend(self.free_vars(body));
                vars.remove(&x.name);
            }
            form @ (Form::Rel { .. } | Form::Agg(..)) => {
                vars.extend(form.used_vars().into_iter().map(|v| v.name.clone()));
            }
            form => {
                let kids: Vec<FormId> = form.children().collect();
                for k in kids {
                    vars.extend(self.free_vars(k));
                }
            }
        }
        let vars: Vec<String> = vars.into_iter().collect();
        self.free.insert(id, vars.clone());
        vars
    }

    /// Whether the event atom `name(args)` matches event `j`; if so, the
    /// values it binds to its variables (a repeated variable must get equal
    /// values).
    fn match_atom(&self, name: &str, args: &[Term], j: usize) -> Option<BTreeMap<String, String>> {
        let e = &self.trace[j - 1];
        if e.name != name || e.args.len() != args.len() {
            return None;
        }
        let mut env = BTreeMap::new();
        for (a, field) in args.iter().zip(&e.args) {
            match a {
                Term::Const(c) => {
                    if c.text != *field {
                        return None;
                    }
                }
                Term::Var(v) => match env.get(&v.name) {
                    Some(old) if old != field => return None,
                    Some(_) => {}
                    None => {
                        env.insert(v.name.clone(), field.clone());
                    }
                },
            }
        }
        Some(env)
    }

    /// The event atoms in the scope of `binder` that mention its variable
    /// `x`: those of the subformula `scope`, except under a quantifier that
    /// binds `x` again.
    fn find_atoms(&mut self, binder: Binder, x: &str) {
        let (arena, prop) = (self.arena, self.prop);
        self.atoms.entry(binder).or_insert_with(|| {
            let scope = match binder {
                Binder::Quant(_, id) => match arena.form(id) {
                    Form::Quant(_, _, body) => *body,
                    _ => id,
                },
                Binder::Param(ctx, _) => prop.rules[ctx - 1].body,
            };
            let mut list = Vec::new();
            let mut stack = vec![scope];
            while let Some(id) = stack.pop() {
                match arena.form(id) {
                    Form::Quant(_, y, _) if y.name == x => {}
                    Form::Call { name, args } => {
                        let rule = prop.rules.iter().any(|r| r.name.name == name.name);
                        let mentions = args
                            .iter()
                            .any(|a| matches!(a, Term::Var(v) if v.name == x));
                        if !rule && mentions {
                            list.push(Atom {
                                name: name.name.clone(),
                                args: args.clone(),
                            });
                        }
                    }
                    form => stack.extend(form.children()),
                }
            }
            list
        });
    }

    /// seen(x, i) of the variable `x` bound by `binder`: the values the atoms
    /// of its scope bound to it at events `1..=i`.
    fn seen(&mut self, binder: Binder, x: &str, i: usize) -> BTreeSet<String> {
        let key = (binder, i);
        if let Some(s) = self.seen.get(&key) {
            return s.clone();
        }
        let mut set = if i > 1 {
            self.seen(binder, x, i - 1)
        } else {
            BTreeSet::new()
        };
        self.find_atoms(binder, x);
        let found: Vec<String> = self.atoms[&binder]
            .iter()
            .filter_map(|atom| {
                self.match_atom(&atom.name, &atom.args, i)
                    .and_then(|b| b.get(x).cloned())
            })
            .collect();
        set.extend(found);
        if let Some(computed) = self.computed.get(&(binder, x.to_string())) {
            set.extend(
                computed
                    .iter()
                    .filter(|(j, _)| *j == i)
                    .map(|(_, v)| v.clone()),
            );
        }
        self.seen.insert(key, set.clone());
        set
    }

    fn term_value(env: &Env, t: &Term) -> String {
        match t {
            Term::Var(v) => env
                .get(&v.name)
                .unwrap_or_else(|| panic!("unbound variable {}", v.name))
                .value
                .clone(),
            Term::Const(c) => c.text.clone(),
        }
    }

    /// Whether the time between events `j` and `i` satisfies `bound`.
    fn within(&self, bound: Option<TimeBound>, j: usize, i: usize) -> bool {
        let elapsed = self.clock[i] - self.clock[j];
        bound.is_none_or(|b| b.contains(elapsed))
    }

    /// `∃ j ∈ [1, last]`: `bound(j, i)`, ψ at j and φ at every k in (j, i],
    /// where ψ and φ are given as closures over the evaluator.
    fn since_from(
        &mut self,
        i: usize,
        last: usize,
        bound: Option<TimeBound>,
        phi: &mut dyn FnMut(&mut Self, usize) -> bool,
        psi: &mut dyn FnMut(&mut Self, usize) -> bool,
    ) -> bool {
        // φ must hold on (j, i]; walking j down from i, stop once it fails.
        for k in (last + 1..=i).rev() {
            if !phi(self, k) {
                return false;
            }
        }
        for j in (1..=last).rev() {
            if self.within(bound, j, i) && psi(self, j) {
                return true;
            }
            if !phi(self, j) {
                return false;
            }
        }
        false
    }

    /// `∃ j ≥ i`: the time from i to j in `bound`, ψ at j and φ at every k
    /// in [i, j), where ψ and φ are given as closures over the evaluator.
    fn until_from(
        &mut self,
        i: usize,
        bound: Option<TimeBound>,
        phi: &mut dyn FnMut(&mut Self, usize) -> bool,
        psi: &mut dyn FnMut(&mut Self, usize) -> bool,
    ) -> bool {
        for j in i..=self.trace.len() {
            let elapsed = self.clock[j] - self.clock[i];
            if bound.is_some_and(|b| b.hi.is_some_and(|h| elapsed > h)) {
                return false;
            }
            if self.within(bound, i, j) && psi(self, j) {
                return true;
            }
            if !phi(self, j) {
                return false;
            }
        }
        false
    }

    /// Whether formula `id` holds at event `i` (1-based) in context `ctx`
    /// under `env` (which binds at least its free variables).
    fn eval(&mut self, ctx: Ctx, id: FormId, i: usize, env: &Env) -> bool {
        let free = self.free_vars(id);
        let vals: Vec<Bound> = free
            .iter()
            .map(|v| {
                env.get(v)
                    .unwrap_or_else(|| panic!("unbound variable {v}"))
                    .clone()
            })
            .collect();
        let key = (ctx, id, i, vals);
        if let Some(&b) = self.memo.get(&key) {
            return b;
        }
        let env: Env = free.iter().cloned().zip(key.3.iter().cloned()).collect();
        let b = self.eval_uncached(ctx, id, i, &env);
        self.memo.insert(key, b);
        b
    }

    fn eval_uncached(&mut self, ctx: Ctx, id: FormId, i: usize, env: &Env) -> bool {
        let arena = self.arena;
        match arena.form(id) {
            Form::True => true,
            Form::False => false,
            Form::Call { name, args } => {
                if let Some(rk) = self
                    .prop
                    .rules
                    .iter()
                    .position(|r| r.name.name == name.name)
                {
                    let rule = &self.prop.rules[rk];
                    let inner: Env = rule
                        .params
                        .iter()
                        .zip(args)
                        .enumerate()
                        .map(|(k, (p, a))| {
                            let bound = Bound {
                                value: Self::term_value(env, a),
                                binder: Binder::Param(rk + 1, k),
                            };
                            (p.name.clone(), bound)
                        })
                        .collect();
                    return self.eval(rk + 1, rule.body, i, &inner);
                }
                let e = &self.trace[i - 1];
                e.name == name.name
                    && e.args.len() == args.len()
                    && args
                        .iter()
                        .zip(&e.args)
                        .all(|(a, field)| Self::term_value(env, a) == *field)
            }
            Form::Cmp { op, left, right } => {
                let Bound { value: vx, binder } = env[&left.name].clone();
                if !self.seen(binder, &left.name, i).contains(&vx) {
                    return false;
                }
                let vy = match right {
                    Term::Var(y) => {
                        let Bound { value: vy, binder } = env[&y.name].clone();
                        if !self.seen(binder, &y.name, i).contains(&vy) {
                            return false;
                        }
                        vy
                    }
                    Term::Const(c) => c.text.clone(),
                };
                // `=` is equality of the values as written (`01 = 1` is false,
                // as the constant `1` does not match the field `01`); the
                // orders compare integers numerically, anything else bytewise.
                let ord = compare_values(vx.as_bytes(), vy.as_bytes());
                match op {
                    RelOp::Eq => vx == vy,
                    RelOp::Lt => ord == Ordering::Less,
                    RelOp::Le => ord != Ordering::Greater,
                    RelOp::Gt => ord == Ordering::Greater,
                    RelOp::Ge => ord != Ordering::Less,
                }
            }
            Form::Rel { op, left, right } => Self::rel_holds(env, *op, left, right),
            Form::Agg(g, _) => {
                let y = env[&g.result.name].value.clone();
                self.agg_value(ctx, id, i, env) == Some(y)
            }
            Form::Let(..) => panic!("LET is expanded by the checker"),
            Form::Not(a) => !self.eval(ctx, *a, i, env),
            Form::Prev(a) => i > 1 && self.eval(ctx, *a, i - 1, env),
            // @[a,b] φ: φ at i-1, and the time since then in [a,b].
            Form::PrevIn(t, a) => {
                i > 1
                    && t.contains(self.clock[i] - self.clock[i - 1])
                    && self.eval(ctx, *a, i - 1, env)
            }
            // A constraint is evaluated only where the formula it is a
            // conjunct of holds (it may compute with nothing else).
            Form::Bin(BinOp::And, a, b) => {
                let (a, b) = (*a, *b);
                self.eval(ctx, a, i, env) && self.eval(ctx, b, i, env)
            }
            Form::Bin(op, a, b) => {
                let (a, b) = (*a, *b);
                let va = self.eval(ctx, a, i, env);
                let vb = self.eval(ctx, b, i, env);
                match op {
                    BinOp::And => va && vb,
                    BinOp::Or => va || vb,
                    BinOp::Implies => !va || vb,
                    BinOp::Iff => va == vb,
                }
            }
            // φ S ψ: ∃ j ≤ i with ψ at j, φ on (j, i], and the time bound.
            Form::Since(bound, a, b) => {
                let (bound, a, b) = (*bound, *a, *b);
                self.since_from(
                    i,
                    i,
                    bound,
                    &mut |s, k| s.eval(ctx, a, k, env),
                    &mut |s, j| s.eval(ctx, b, j, env),
                )
            }
            // φ Z[<=d] ψ: as S[<=d] with j < i.
            Form::Zince(d, a, b) => {
                let (d, a, b) = (*d, *a, *b);
                self.since_from(
                    i,
                    i - 1,
                    Some(TimeBound::at_most(d)),
                    &mut |s, k| s.eval(ctx, a, k, env),
                    &mut |s, j| s.eval(ctx, b, j, env),
                )
            }
            // P[b] φ = true S[b] φ.
            Form::Once(bound, a) => {
                let (bound, a) = (*bound, *a);
                self.since_from(i, i, bound, &mut |_, _| true, &mut |s, j| {
                    s.eval(ctx, a, j, env)
                })
            }
            // H[b] φ = !P[b] !φ.
            Form::Hist(bound, a) => {
                let (bound, a) = (*bound, *a);
                !self.since_from(i, i, bound, &mut |_, _| true, &mut |s, j| {
                    !s.eval(ctx, a, j, env)
                })
            }
            // [φ, ψ) = !ψ S φ.
            Form::Interval(a, b) => {
                let (a, b) = (*a, *b);
                self.since_from(
                    i,
                    i,
                    None,
                    &mut |s, k| !s.eval(ctx, b, k, env),
                    &mut |s, j| s.eval(ctx, a, j, env),
                )
            }
            // X[b] φ: φ at i+1, and the time until then in b.
            Form::Next(t, a) => {
                i < self.trace.len() && self.within(*t, i, i + 1) && self.eval(ctx, *a, i + 1, env)
            }
            // φ U[b] ψ: ∃ j ≥ i with ψ at j, φ on [i, j), and the time bound
            // (on the whole trace: a verdict the monitor gives early must be
            // this one, since no continuation can change it).
            Form::Until(bound, a, b) => {
                let (bound, a, b) = (*bound, *a, *b);
                self.until_from(i, bound, &mut |s, k| s.eval(ctx, a, k, env), &mut |s, j| {
                    s.eval(ctx, b, j, env)
                })
            }
            // F[b] φ = true U[b] φ; G[b] φ = !F[b] !φ.
            Form::Eventually(bound, a) => {
                let (bound, a) = (*bound, *a);
                self.until_from(i, bound, &mut |_, _| true, &mut |s, j| {
                    s.eval(ctx, a, j, env)
                })
            }
            Form::Always(bound, a) => {
                let (bound, a) = (*bound, *a);
                !self.until_from(i, bound, &mut |_, _| true, &mut |s, j| {
                    !s.eval(ctx, a, j, env)
                })
            }
            Form::Quant(q, x, body) => {
                let (q, body) = (*q, *body);
                let binder = Binder::Quant(ctx, id);
                let values: Vec<String> = match q {
                    Quant::Exists | Quant::Forall => self.domain.clone(),
                    Quant::ExistsSeen | Quant::ForallSeen => {
                        self.seen(binder, &x.name, i).into_iter().collect()
                    }
                };
                let mut inner = env.clone();
                let mut holds = |s: &mut Self, v: &String| {
                    let bound = Bound {
                        value: v.clone(),
                        binder,
                    };
                    inner.insert(x.name.clone(), bound);
                    s.eval(ctx, body, i, &inner)
                };
                match q {
                    Quant::Exists | Quant::ExistsSeen => values.iter().any(|v| holds(self, v)),
                    Quant::Forall | Quant::ForallSeen => values.iter().all(|v| holds(self, v)),
                }
            }
        }
    }
}

/// The reference's truth of any subformula under given values, for checking
/// the nodes of `hindsight why`'s proofs.
pub struct Oracle<'a> {
    eval: Evaluator<'a>,
}

impl<'a> Oracle<'a> {
    /// The oracle of property `prop` of `spec` on `trace`.
    pub fn new(spec: &'a Checked, prop: usize, trace: &'a [Event]) -> Oracle<'a> {
        Oracle {
            eval: Evaluator::new(&spec.arena, &spec.props[prop], trace),
        }
    }

    /// Whether `id` holds at event `i` in context `ctx` (0: the statement,
    /// `k + 1`: rule `k`) under `env`: per variable its name, its value
    /// (`None`: a value not in the trace) and its binder.
    pub fn holds(
        &mut self,
        ctx: usize,
        id: FormId,
        i: usize,
        env: &[(String, Option<String>, hindsight::why::truth::Binder)],
    ) -> bool {
        use hindsight::why::truth::Binder as B;
        let fresh = self.eval.domain.last().cloned().unwrap_or_default();
        let env: Env = env
            .iter()
            .map(|(name, value, binder)| {
                let binder = match *binder {
                    B::Quant(c, f) => Binder::Quant(c, f),
                    B::Param(c, k) => Binder::Param(c, k),
                };
                let value = value.clone().unwrap_or_else(|| fresh.clone());
                (name.clone(), Bound { value, binder })
            })
            .collect();
        self.eval.eval(ctx, id, i, &env)
    }
}
