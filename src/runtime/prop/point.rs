//! Point (guarded) evaluation of the statement.
//!
//! The statement is closed: at each event only its truth value matters, not
//! the set of its assignments. Most of it need not be built as a BDD over all
//! bindings. A quantified formula such as `Forall x . a(x, ..) -> ψ` (or
//! `!a(..) | ψ`, `ψ | !a(..)`, `(a(..) & χ) -> ψ`, and the existential duals
//! `Exists x . a(x, ..) & ψ`) can only be false at the binding of the
//! current event, when the event is `a`: elsewhere its *guard* `a(..)` is
//! false. So the quantifier is answered by evaluating its body at that one
//! binding, following the binding's codes down the BDDs of the subformulas
//! that are kept as sets (a walk down one path), instead of building the body
//! over all bindings.
//!
//! [`analyse`] decides which subformulas are still computed as sets at every
//! event: those a temporal operator, a rule or a comparison reads as a set
//! (the operands of `@`, `S` and the timed operators, rule bodies, and
//! everything below them), and the bodies of quantifiers without a guard. The
//! rest of the statement is the [`Point`] tree, evaluated per event by
//! `PropMonitor::point_holds`. A universal quantifier over a conjunction is
//! split (`∀x.(φ∧ψ) = ∀x.φ ∧ ∀x.ψ`), and so is an existential one over a
//! disjunction, so that each part can find its own guard.

use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::runtime::ids::Code;
use crate::syntax::Quant;
use crate::syntax::walk::{Fold, Kids, Step, Walker};

/// How (part of) the statement is evaluated at the bound codes.
#[derive(Clone, Debug)]
pub(super) enum Point {
    /// A node computed as a set: its `now` at the bound codes.
    Set(NodeIx),
    /// An event pattern: whether the event matched it with the bound codes.
    Atom(NodeIx),
    /// `¬φ`
    Not(Box<Point>),
    /// `φ ∧ ψ`
    And(Box<Point>, Box<Point>),
    /// `φ ∨ ψ`
    Or(Box<Point>, Box<Point>),
    /// `φ → ψ`
    Implies(Box<Point>, Box<Point>),
    /// `φ ↔ ψ`
    Iff(Box<Point>, Box<Point>),
    /// `∀vars . body` (`forall`) or `∃vars . body`, where the body is true
    /// (resp. false) unless the atom `guard`, which mentions every variable
    /// of `vars`, holds.
    Guarded {
        forall: bool,
        vars: Vec<VarIx>,
        guard: NodeIx,
        body: Box<Point>,
    },
    /// `∀vars . set` or `∃vars . set` for a node computed as a set, its other
    /// free variables bound.
    Quant {
        forall: bool,
        vars: Vec<VarIx>,
        set: NodeIx,
    },
    /// `∀vars . body` or `∃vars . body` within a guard (so only at the
    /// guard's matches), the connectives of the body applied to the sets
    /// of its parts there rather than computed as a set at every event.
    Expr {
        forall: bool,
        vars: Vec<VarIx>,
        body: NodeIx,
        expr: SetExpr,
        /// Whether `vars` are all the body's free variables (then `conj`
        /// may decide it without building it).
        closed: bool,
    },
}

/// A boolean combination of sets, built when a [`Point::Expr`] is reached.
#[derive(Clone, Debug)]
pub(super) enum SetExpr {
    /// A node computed as a set.
    Set(NodeIx),
    /// A part without the quantified variables: a constant at the binding.
    Point(Box<Point>),
    /// `∀` (`forall`) or `∃` over the variables of `Analysis::scoped[slot]`.
    Quant {
        forall: bool,
        slot: usize,
        inner: Box<SetExpr>,
    },
    Not(Box<SetExpr>),
    And(Box<SetExpr>, Box<SetExpr>),
    Or(Box<SetExpr>, Box<SetExpr>),
    Implies(Box<SetExpr>, Box<SetExpr>),
    Iff(Box<SetExpr>, Box<SetExpr>),
}

/// The result of [`analyse`].
#[derive(Clone, Debug)]
pub(super) struct Analysis {
    /// How to evaluate the statement.
    pub root: Point,
    /// Per node: whether its `now` is computed as a set at every event.
    pub needs_set: Vec<bool>,
    /// The variables of each [`SetExpr::Quant`], by slot (see `scope`).
    pub scoped: Vec<Vec<VarIx>>,
}

/// Splits the statement of `plan` into its point part and the nodes computed as sets.
pub(super) fn analyse(plan: &PropPlan) -> Analysis {
    let mut a = Analyser {
        plan,
        needs_set: vec![false; plan.nodes.len()],
        depth: 0,
        guarded: false,
        scoped: Vec::new(),
    };
    // Whatever is kept from one event to the next is a set, computed at every event.
    for (i, node) in plan.nodes.iter().enumerate() {
        match node.op {
            Op::Prev(x) => a.mark(x),
            Op::Since(..) | Op::SinceTimed(..) | Op::Zince(..) => a.mark(i),
            // Computing nodes keep a state of their own (one over the
            // window of an event reads its matches, not its set).
            _ if super::window::reads_matches(plan, i) => a.needs_set[i] = true,
            Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => a.mark(i),
            _ => {}
        }
    }
    for r in &plan.rules {
        a.mark(r.body);
    }
    let root = a.build(plan.root);
    Analysis {
        root,
        needs_set: a.needs_set,
        scoped: a.scoped,
    }
}

/// The deepest point form built: below that, a subformula is computed as a
/// set (so that evaluating and dropping the form needs little stack, even
/// for formulas nested a hundred thousand deep).
const MAX_DEPTH: u32 = 500;

/// [`Analyser::mark`] as a fold: marks each node once, following `@` and
/// rule calls to the nodes they read.
struct Marker<'a, 'b> {
    plan: &'a PropPlan,
    needs_set: &'b mut Vec<bool>,
}

impl Fold for Marker<'_, '_> {
    type Node = NodeIx;
    type Ctx = ();
    type Out = ();

    fn enter(&mut self, n: NodeIx, _: &()) -> Step<NodeIx, (), ()> {
        if std::mem::replace(&mut self.needs_set[n], true) {
            return Step::Done(());
        }
        let kids = match &self.plan.nodes[n].op {
            Op::Prev(a) => Kids::one(*a),
            Op::RuleCall { rule, .. } => Kids::one(self.plan.rules[*rule].body),
            op => op.same_step_kids(),
        };
        Step::Into(kids, ())
    }

    fn leave(&mut self, _: NodeIx, _: &(), _: [(); 2]) {}
}

struct Analyser<'a> {
    plan: &'a PropPlan,
    needs_set: Vec<bool>,
    /// Nesting of `build` and `quant` calls.
    depth: u32,
    /// Whether the form being built is evaluated only at a guard's matches.
    guarded: bool,
    /// See [`Analysis::scoped`].
    scoped: Vec<Vec<VarIx>>,
}

impl Analyser<'_> {
    /// Marks `n` and everything it reads within an event as computed as a set.
    fn mark(&mut self, n: NodeIx) {
        let mut marker = Marker {
            plan: self.plan,
            needs_set: &mut self.needs_set,
        };
        Walker::new().fold(&mut marker, n, ());
    }

    fn set(&mut self, n: NodeIx) -> Point {
        self.mark(n);
        Point::Set(n)
    }

    /// The point form of `n`, all of whose free variables will be bound.
    fn build(&mut self, n: NodeIx) -> Point {
        if self.depth >= MAX_DEPTH {
            return self.set(n);
        }
        self.depth += 1;
        let p = self.build_inner(n);
        self.depth -= 1;
        p
    }

    fn build_inner(&mut self, n: NodeIx) -> Point {
        let b = |s: &mut Self, x: NodeIx| Box::new(s.build(x));
        match self.plan.nodes[n].op {
            Op::Atom { .. } => Point::Atom(n),
            Op::Not(a) => Point::Not(b(self, a)),
            Op::And(x, y) => Point::And(b(self, x), b(self, y)),
            Op::Or(x, y) => Point::Or(b(self, x), b(self, y)),
            Op::Implies(x, y) => Point::Implies(b(self, x), b(self, y)),
            Op::Iff(x, y) => Point::Iff(b(self, x), b(self, y)),
            Op::Quant(q @ (Quant::Forall | Quant::Exists), v, body) => {
                self.quant(q == Quant::Forall, vec![v], body)
            }
            _ => self.set(n),
        }
    }

    /// The point form of `∀vars . body` (`forall`) or `∃vars . body`.
    fn quant(&mut self, forall: bool, vars: Vec<VarIx>, body: NodeIx) -> Point {
        if self.depth >= MAX_DEPTH {
            // Too deep: the quantifier over the body's set.
            self.mark(body);
            return Point::Quant {
                forall,
                vars,
                set: body,
            };
        }
        self.depth += 1;
        let p = self.quant_inner(forall, vars, body);
        self.depth -= 1;
        p
    }

    fn quant_inner(&mut self, forall: bool, mut vars: Vec<VarIx>, body: NodeIx) -> Point {
        let free = &self.plan.nodes[body].free;
        // A variable the body does not mention changes nothing (domains are not empty).
        vars.retain(|v| free.contains(v));
        if vars.is_empty() {
            return self.build(body);
        }
        let same = if forall { Quant::Forall } else { Quant::Exists };
        let mentions = |s: &Self, n: NodeIx| vars.iter().any(|v| s.plan.nodes[n].free.contains(v));
        let bx = Box::new;
        match self.plan.nodes[body].op {
            Op::Quant(q, v, inner) if q == same => {
                vars.push(v);
                return self.quant(forall, vars, inner);
            }
            // ∀x.¬φ = ¬∃x.φ
            Op::Not(a) => return Point::Not(bx(self.quant(!forall, vars, a))),
            // ∀x.(φ∧ψ) = ∀x.φ ∧ ∀x.ψ, ∃x.(φ∨ψ) = ∃x.φ ∨ ∃x.ψ
            Op::And(x, y) if forall => {
                let left = self.quant(forall, vars.clone(), x);
                return Point::And(bx(left), bx(self.quant(forall, vars, y)));
            }
            Op::Or(x, y) if !forall => {
                let left = self.quant(forall, vars.clone(), x);
                return Point::Or(bx(left), bx(self.quant(forall, vars, y)));
            }
            // ∃x.(φ→ψ) = ¬∀x.φ ∨ ∃x.ψ
            Op::Implies(x, y) if !forall => {
                let left = Point::Not(bx(self.quant(true, vars.clone(), x)));
                return Point::Or(bx(left), bx(self.quant(false, vars, y)));
            }
            _ => {}
        }
        if let Some((guard, bound)) = self.guard(body, !forall, &vars) {
            let rest: Vec<VarIx> = vars
                .iter()
                .copied()
                .filter(|v| !bound.contains(v))
                .collect();
            let outer = std::mem::replace(&mut self.guarded, true);
            let body = if rest.is_empty() {
                self.build(body)
            } else {
                self.quant(forall, rest, body)
            };
            self.guarded = outer;
            return Point::Guarded {
                forall,
                vars: bound,
                guard,
                body: bx(body),
            };
        }
        // ∀x.(φ∨ψ) = φ ∨ ∀x.ψ when φ does not mention x (and the duals).
        match self.plan.nodes[body].op {
            Op::Or(x, y) if forall && !mentions(self, x) => {
                return Point::Or(bx(self.build(x)), bx(self.quant(forall, vars, y)));
            }
            Op::Or(x, y) if forall && !mentions(self, y) => {
                let left = self.quant(forall, vars, x);
                return Point::Or(bx(left), bx(self.build(y)));
            }
            Op::Implies(x, y) if forall && !mentions(self, x) => {
                return Point::Implies(bx(self.build(x)), bx(self.quant(forall, vars, y)));
            }
            Op::Implies(x, y) if forall && !mentions(self, y) => {
                let left = self.quant(false, vars, x);
                return Point::Implies(bx(left), bx(self.build(y)));
            }
            Op::And(x, y) if !forall && !mentions(self, x) => {
                return Point::And(bx(self.build(x)), bx(self.quant(forall, vars, y)));
            }
            Op::And(x, y) if !forall && !mentions(self, y) => {
                let left = self.quant(forall, vars, x);
                return Point::And(bx(left), bx(self.build(y)));
            }
            _ => {}
        }
        let connective = matches!(
            self.plan.nodes[body].op,
            Op::Not(_) | Op::And(..) | Op::Or(..) | Op::Implies(..) | Op::Iff(..)
        );
        // Under a guard, only at its matches: its parts as sets, combined
        // there. Closed, outside guards: decided by `conj` (its verdict
        // kept).
        if connective
            && (self.guarded || conj::closed_conjunction(self.plan, body, forall, &vars))
        {
            let mut expr = self.set_expr(body, &vars);
            let closed = (self.plan.nodes[body].free.iter()).all(|v| vars.contains(v));
            if !closed {
                // (A closed one is decided by `conj`, on its parts.)
                expr = scope::push(self.plan, expr, forall, &vars, &mut self.scoped);
            }
            return Point::Expr {
                forall,
                vars,
                body,
                expr,
                closed,
            };
        }
        self.mark(body);
        Point::Quant {
            forall,
            vars,
            set: body,
        }
    }

    /// The parts of `n` that mention `vars` as sets (their connectives
    /// kept), the others in point form.
    fn set_expr(&mut self, n: NodeIx, vars: &[VarIx]) -> SetExpr {
        let mentions = vars.iter().any(|v| self.plan.nodes[n].free.contains(v));
        if !mentions {
            return SetExpr::Point(Box::new(self.build(n)));
        }
        if self.depth >= MAX_DEPTH {
            self.mark(n);
            return SetExpr::Set(n);
        }
        self.depth += 1;
        let b = |s: &mut Self, x: NodeIx| Box::new(s.set_expr(x, vars));
        let e = match self.plan.nodes[n].op {
            Op::Not(a) => SetExpr::Not(b(self, a)),
            Op::And(x, y) => SetExpr::And(b(self, x), b(self, y)),
            Op::Or(x, y) => SetExpr::Or(b(self, x), b(self, y)),
            Op::Implies(x, y) => SetExpr::Implies(b(self, x), b(self, y)),
            Op::Iff(x, y) => SetExpr::Iff(b(self, x), b(self, y)),
            _ => {
                self.mark(n);
                SetExpr::Set(n)
            }
        };
        self.depth -= 1;
        e
    }

    /// A guard of `n` for (some of) the variables `vars`: an atom such that
    /// `n` is false wherever the atom is (`conj`: `n` implies the atom), or
    /// such that `n` is true wherever the atom is false (not `conj`: `n` is a
    /// disjunction with the atom's negation among its disjuncts). Of the
    /// candidates, the one mentioning most variables of `vars`, with those
    /// variables.
    fn guard(&self, n: NodeIx, conj: bool, vars: &[VarIx]) -> Option<(NodeIx, Vec<VarIx>)> {
        let mut best: Option<(NodeIx, Vec<VarIx>)> = None;
        self.guards(n, conj, vars, &mut best, 0);
        best
    }

    fn guards(
        &self,
        n: NodeIx,
        conj: bool,
        vars: &[VarIx],
        best: &mut Option<(NodeIx, Vec<VarIx>)>,
        depth: u32,
    ) {
        if depth >= MAX_DEPTH {
            return;
        }
        let depth = depth + 1;
        match (&self.plan.nodes[n].op, conj) {
            (Op::Atom { args, .. }, true) => {
                let bound: Vec<VarIx> = vars
                    .iter()
                    .copied()
                    .filter(|v| args.contains(&Arg::Var(*v)))
                    .collect();
                if !bound.is_empty() && best.as_ref().is_none_or(|(_, b)| b.len() < bound.len()) {
                    *best = Some((n, bound));
                }
            }
            (Op::And(a, b), true) | (Op::Or(a, b), false) => {
                self.guards(*a, conj, vars, best, depth);
                self.guards(*b, conj, vars, best, depth);
            }
            (Op::Implies(a, b), false) => {
                self.guards(*a, true, vars, best, depth);
                self.guards(*b, false, vars, best, depth);
            }
            (Op::Not(a), c) => self.guards(*a, !c, vars, best, depth),
            _ => {}
        }
    }
}

/// Scratch for point evaluation: the code bound to each variable, and a
/// valuation of the BDD variables.
#[derive(Clone, Debug, Default)]
pub(super) struct Env {
    bound: Vec<Option<Code>>,
    bits: Vec<bool>,
    /// The bits fixed for a quantified set (`None`: free).
    fixed: Vec<Option<bool>>,
    /// The codes guards bound before binding their match's (a stack).
    saved: Vec<(VarIx, Option<Code>)>,
    /// Per body node: the verdict kept for a closed quantifier (`conj`).
    kept: Vec<Option<conj::Kept>>,
    /// Per body node: its parts were too large for a walk (`conj`).
    too_large: Vec<bool>,
    /// Per quantifier slot: the last set quantified and its result (`scope`).
    scoped: Vec<Option<(Bdd, Bdd)>>,
}

impl PropMonitor {
    /// Whether the statement holds at the current event, by point evaluation
    /// (the nodes of [`Analysis::needs_set`] are up to date).
    pub(super) fn point_holds(&self, space: &mut Space, env: &mut Env) -> bool {
        env.bound.clear();
        env.bound.resize(self.compiled.plan.vars.len(), None);
        env.bits.resize(self.compiled.plan.bdd_vars, false);
        self.point(space, &self.compiled.point.root, env)
    }

    fn point(&self, space: &mut Space, p: &Point, env: &mut Env) -> bool {
        match p {
            Point::Set(n) => {
                let bdd = self.state.now[*n];
                if let Some(b) = bdd.as_bool() {
                    return b;
                }
                for &v in &self.compiled.plan.nodes[*n].free {
                    self.write_bits(v, env);
                }
                space.eval_bits(bdd, &env.bits)
            }
            Point::Atom(n) => (0..self.scratch.binding.matched.len())
                .any(|i| self.match_agrees(i, *n, &[], &env.bound)),
            Point::Not(a) => !self.point(space, a, env),
            Point::And(a, b) => self.point(space, a, env) && self.point(space, b, env),
            Point::Or(a, b) => self.point(space, a, env) || self.point(space, b, env),
            Point::Implies(a, b) => !self.point(space, a, env) || self.point(space, b, env),
            Point::Iff(a, b) => self.point(space, a, env) == self.point(space, b, env),
            Point::Guarded {
                forall,
                vars,
                guard,
                body,
            } => {
                // Only at the tuples of the guard's matches (several in a step
                // of several events) can the body decide the value.
                let mut saved = std::mem::take(&mut env.saved);
                let start = saved.len();
                saved.extend(vars.iter().map(|&v| (v, env.bound[v])));
                let mut value = *forall;
                for i in 0..self.scratch.binding.matched.len() {
                    for &(v, old) in &saved[start..] {
                        env.bound[v] = old;
                    }
                    if !self.match_agrees(i, *guard, vars, &env.bound) {
                        continue;
                    }
                    for j in self.scratch.binding.matched[i].1.clone() {
                        let (v, code) = self.scratch.binding.codes[j];
                        env.bound[v] = Some(code);
                    }
                    // Nested guards save theirs after ours.
                    env.saved = saved;
                    let holds = self.point(space, body, env);
                    saved = std::mem::take(&mut env.saved);
                    if holds != *forall {
                        value = !*forall;
                        break;
                    }
                }
                for &(v, old) in &saved[start..] {
                    env.bound[v] = old;
                }
                saved.truncate(start);
                env.saved = saved;
                value
            }
            Point::Quant { forall, vars, set } => {
                let free = &self.compiled.plan.nodes[*set].free;
                self.quantified(space, (*forall, vars), free, self.state.now[*set], env)
            }
            Point::Expr {
                forall,
                vars,
                body,
                expr,
                closed,
            } => {
                let q = (*forall, *body);
                if *closed && let Some(value) = self.conj_quantified(space, q, expr, env) {
                    return value;
                }
                let bdd = self.set_expr(space, expr, env);
                let free = &self.compiled.plan.nodes[*body].free;
                self.quantified(space, (*forall, vars), free, bdd, env)
            }
        }
    }

    /// Writes the code bound to `v` into the valuation of its bits.
    ///
    /// Only the bits of the class's current width: no BDD depends on the
    /// bits above it (they are ignored until the width grows).
    fn write_bits(&self, v: VarIx, env: &mut Env) {
        let code = env.bound[v].unwrap_or(Code(u32::MAX));
        let low = self.low_bits(v);
        let width = low.len();
        for (i, b) in low.iter().enumerate() {
            env.bits[b.0 as usize] = code.bit(width - 1 - i);
        }
    }

    /// The bits of `v` within its class's current width, most significant first.
    pub(super) fn low_bits(&self, v: VarIx) -> &[BddVar] {
        let var = &self.compiled.plan.vars[v];
        let width = self.state.classes[var.class].width().min(var.bits.len());
        &var.bits[var.bits.len() - width..]
    }

    /// Whether match `i` of this step is a match of atom `n` that agrees
    /// with the bound codes, except on the variables of `vars`, which may
    /// take any code.
    fn match_agrees(&self, i: usize, n: NodeIx, vars: &[VarIx], bound: &[Option<Code>]) -> bool {
        let (m, range) = &self.scratch.binding.matched[i];
        *m == n
            && self.scratch.binding.codes[range.clone()]
                .iter()
                .all(|&(v, code)| vars.contains(&v) || bound[v] == Some(code))
    }
}

#[path = "point_conj.rs"]
mod conj;
#[path = "point_scope.rs"]
mod scope;

#[cfg(test)]
#[path = "point_tests.rs"]
mod tests;
