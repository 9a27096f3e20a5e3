//! Building a [`Plan`] from a checked specification.

use std::collections::HashMap;

use super::layout::{layout_vars, share_bits};
use super::order::{classify, free_vars, remap, topological_order};
use super::{Arg, Node, NodeIx, Op, Plan, PropPlan, RulePlan, VarIx, VarKind};
use crate::bdd::{BddVar, MAX_VARS};
use crate::check::{Checked, Property};
use crate::syntax::walk::{self, Fold, Kids, Step};
use crate::syntax::{
    Arena, BinOp, Diagnostic, Form, FormId, Quant, Span, SpecError, Term, TimeBound, Warnings,
};

/// Widest code of a data variable, in bits.
pub const MAX_BITS: usize = 32;
/// Largest time bound accepted (time stamps are kept modulo a power of two above twice the bound).
pub const MAX_TIME_BOUND: u64 = 1 << 62;

/// Parses, checks and compiles a specification; returns the plan and the
/// warnings, or every error found. Time bounds are natural numbers (see
/// [`compile_source_timed`]).
pub fn compile_source(text: &str) -> Result<(Plan, Warnings), SpecError> {
    let checked = crate::check::check_source(text)?;
    let plan = compile(&checked)?;
    Ok((plan, checked.warnings))
}

/// [`compile_source`] with the time bounds in ticks of `10^-d` time units,
/// `d` at least `decimals` and enough for every bound (see
/// [`crate::syntax::parse_timed`]); also returns `d`, the precision at which
/// the trace's time stamps are to be read.
pub fn compile_source_timed(text: &str, decimals: u8) -> Result<(Plan, Warnings, u8), SpecError> {
    let (checked, decimals) = crate::check::check_source_timed(text, decimals)?;
    let plan = compile(&checked)?;
    Ok((plan, checked.warnings, decimals))
}

/// Compiles a checked specification into its monitor plan.
pub fn compile(checked: &Checked) -> Result<Plan, Diagnostic> {
    let props = checked
        .props
        .iter()
        .map(|p| compile_prop(&checked.arena, p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Plan {
        props,
        events: checked.events.clone(),
    })
}

pub(super) struct Builder<'a> {
    pub(super) arena: &'a Arena,
    pub(super) ops: Vec<(Op, Span)>,
    memo: HashMap<Op, NodeIx>,
    vars: Vec<(String, VarKind)>,
    /// The variables in scope, by name, innermost last. Every binding
    /// occurrence (a quantifier, a rule parameter) is its own variable,
    /// whatever its name: sibling quantifiers over `x` are two variables,
    /// with their own seen values and enumeration classes.
    in_scope: HashMap<String, Vec<VarIx>>,
    rule_ix: HashMap<String, usize>,
    /// The variables of the quantifiers around the formula being translated.
    quants: Vec<VarIx>,
    /// The variables of the aggregations around the formula being
    /// translated, innermost last.
    pub(super) agg_locals: Vec<Vec<(String, VarIx)>>,
    /// Per op made so far: its free variables (sorted).
    pub(super) free: Vec<Vec<VarIx>>,
}

fn compile_prop(arena: &Arena, prop: &Property) -> Result<PropPlan, Diagnostic> {
    let mut b = Builder {
        arena,
        ops: Vec::new(),
        memo: HashMap::new(),
        vars: Vec::new(),
        in_scope: HashMap::new(),
        rule_ix: prop
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.name.clone(), i))
            .collect(),
        quants: Vec::new(),
        agg_locals: Vec::new(),
        free: Vec::new(),
    };
    let mut rule_params = Vec::new();
    for (r, rule) in prop.rules.iter().enumerate() {
        let params: Vec<VarIx> = rule
            .params
            .iter()
            .map(|p| b.var(Some(r), &p.name, VarKind::RuleParam(r)))
            .collect();
        rule_params.push(params);
    }
    let root = b.translate(prop.body, None);
    let rule_roots: Vec<NodeIx> = prop
        .rules
        .iter()
        .enumerate()
        .map(|(r, rule)| {
            for (p, &v) in rule.params.iter().zip(&rule_params[r]) {
                b.bind(&p.name, v);
            }
            let root = b.translate(rule.body, Some(r));
            for p in &rule.params {
                b.unbind(&p.name);
            }
            root
        })
        .collect();
    let Builder { ops, vars, .. } = b;

    let order = topological_order(&ops, &rule_roots).ok_or_else(|| {
        Diagnostic::error(prop.name.span, format!(
            "the rules of property `{}` depend on each other within one event; a rule may only be referenced under `@` in a rule body",
            prop.name.name
        ))
    })?;
    let phases = classify(&ops, &rule_roots);
    let mut order = order;
    order.sort_by_key(|&n| phases[n]);
    let mut new_ix = vec![0; ops.len()];
    for (pos, &n) in order.iter().enumerate() {
        new_ix[n] = pos;
    }
    // Free variables are syntactic: compute them in creation order, where
    // every operand (also of `@`) precedes its parent.
    let mut free: Vec<Vec<VarIx>> = Vec::with_capacity(ops.len());
    for (op, _) in &ops {
        let f = free_vars(op, &free);
        free.push(f);
    }
    let mut nodes: Vec<Node> = Vec::with_capacity(ops.len());
    for &n in &order {
        let (op, span) = &ops[n];
        let op = remap(op, &new_ix);
        nodes.push(Node {
            op,
            free: std::mem::take(&mut free[n]),
            phase: phases[n],
            span: *span,
        });
    }
    let rules = prop
        .rules
        .iter()
        .enumerate()
        .map(|(r, rule)| RulePlan {
            name: rule.name.name.clone(),
            params: rule_params[r].clone(),
            body: new_ix[rule_roots[r]],
        })
        .collect::<Vec<_>>();
    let quantified: Vec<bool> = vars
        .iter()
        .map(|(_, kind)| matches!(kind, VarKind::Quantified(_)))
        .collect();
    let joined = super::twins::merged_pairs(&nodes, &quantified);
    let (vars, classes) = layout_vars(vars, &nodes, &rules, &joined);
    let max_bound = nodes
        .iter()
        .filter_map(|n| match n.op {
            Op::SinceTimed(t, ..) => Some((modulus_bound(&t), n.span)),
            Op::Zince(d, ..) => Some((d, n.span)),
            _ => None,
        })
        .max_by_key(|&(d, _)| d);
    let time_width = match max_bound {
        None => 0,
        Some((d, span)) if d > MAX_TIME_BOUND => {
            return Err(Diagnostic::error(
                span,
                format!("time bound {d} is too large; the largest supported is 2^62"),
            ));
        }
        // Time stamps are kept modulo 2^w with 2^w >= 2d + 2.
        Some((d, _)) => (64 - (2 * d + 1).leading_zeros() as usize).max(1),
    };
    let nvars = vars.len();
    let bits_per_var = (MAX_VARS - time_width)
        .checked_div(nvars)
        .map_or(0, |b| MAX_BITS.min(b));
    if nvars > 0 && bits_per_var < 8 {
        return Err(Diagnostic::error(
            prop.name.span,
            format!(
                "property `{}` has {nvars} variables; at most {} fit in one monitor",
                prop.name.name,
                (MAX_VARS - time_width) / 8
            ),
        ));
    }
    let mut vars = vars;
    let (slot, slots) = share_bits(&vars, &nodes, &rules);
    for (v, var) in vars.iter_mut().enumerate() {
        // Interleaved order: bit level L of every slot, most significant level first.
        var.bits = (0..bits_per_var)
            .map(|level| BddVar((level * slots + slot[v]) as u16))
            .collect();
    }
    let base = bits_per_var * slots;
    let time_bits = (0..time_width).map(|j| BddVar((base + j) as u16)).collect();
    Ok(PropPlan {
        name: prop.name.name.clone(),
        nodes,
        root: new_ix[root],
        rules,
        vars,
        classes,
        bits_per_var,
        time_bits,
        bdd_vars: base + time_width,
        source: arena.span(prop.body),
    })
}

impl Builder<'_> {
    /// A new variable for a binding occurrence of `name` (the name as the
    /// checker left it: a macro's quantified variable is `name'n`, shown as
    /// `name`).
    pub(super) fn var(&mut self, scope: Option<usize>, name: &str, kind: VarKind) -> VarIx {
        let name = user_name(name);
        let shown = match scope {
            Some(r) => format!("{}.{name}", self.rule_name(r)),
            None => name.to_string(),
        };
        self.vars.push((shown, kind));
        self.vars.len() - 1
    }

    fn in_scope_var(&self, name: &str) -> Option<&VarIx> {
        self.in_scope.get(name).and_then(|s| s.last())
    }

    /// Makes `name` refer to `v` until the matching [`Builder::unbind`].
    pub(super) fn bind(&mut self, name: &str, v: VarIx) {
        self.in_scope.entry(name.to_string()).or_default().push(v);
    }

    pub(super) fn unbind(&mut self, name: &str) {
        if let Some(slot) = self.in_scope.get_mut(name) {
            slot.pop();
        }
    }

    fn rule_name(&self, r: usize) -> String {
        self.rule_ix
            .iter()
            .find(|&(_, &i)| i == r)
            .map(|(n, _)| n.clone())
            .unwrap_or_default()
    }

    pub(super) fn lookup(&mut self, scope: Option<usize>, name: &str) -> VarIx {
        match self.in_scope_var(name) {
            Some(&v) => v,
            // The checker guarantees every variable is bound; should one not
            // be, it is a variable of its own (over all values).
            None => {
                let v = self.var(scope, name, VarKind::Quantified(Quant::Exists));
                self.bind(name, v);
                v
            }
        }
    }

    pub(super) fn mk(&mut self, op: Op, span: Span) -> NodeIx {
        let op = match op {
            Op::Not(a) => match self.ops[a].0 {
                Op::Not(inner) => return inner,
                Op::True => Op::False,
                Op::False => Op::True,
                _ => Op::Not(a),
            },
            other => other,
        };
        if let Some(&n) = self.memo.get(&op) {
            return n;
        }
        let f = free_vars(&op, &self.free);
        self.free.push(f);
        self.ops.push((op.clone(), span));
        let n = self.ops.len() - 1;
        self.memo.insert(op, n);
        n
    }

    fn arg(&mut self, scope: Option<usize>, t: &Term) -> Arg {
        match t {
            Term::Var(v) => Arg::Var(self.lookup(scope, &v.name)),
            Term::Const(c) => Arg::Const(c.text.clone()),
        }
    }

    /// The plan node of formula `f`, whose rule calls and variables belong
    /// to rule `scope` (`None`: the statement).
    fn translate(&mut self, f: FormId, scope: Option<usize>) -> NodeIx {
        walk::fold(self, f, scope)
    }

    fn once(&mut self, bound: Option<TimeBound>, a: NodeIx, span: Span) -> Op {
        let t = self.mk(Op::True, span);
        match bound {
            Some(b) if !b.is_trivial() => Op::SinceTimed(b, t, a),
            _ => Op::Since(t, a),
        }
    }
}

/// The translation of a formula to plan nodes: atoms, comparisons and
/// constants in `enter`, operators in `leave` from their operands' nodes; a
/// quantifier's variable is bound for the walk of its body.
impl Fold for Builder<'_> {
    type Node = FormId;
    type Ctx = Option<usize>;
    type Out = NodeIx;

    fn enter(&mut self, f: FormId, &scope: &Option<usize>) -> Step<FormId, Option<usize>, NodeIx> {
        let arena = self.arena;
        let op = match arena.form(f) {
            Form::True => Op::True,
            Form::False => Op::False,
            Form::Call { name, args } => {
                let args = args.iter().map(|t| self.arg(scope, t)).collect();
                match self.rule_ix.get(&name.name) {
                    Some(&rule) => Op::RuleCall { rule, args },
                    None => Op::Atom {
                        event: name.name.clone(),
                        args,
                    },
                }
            }
            Form::Cmp { op, left, right } => {
                let left = self.lookup(scope, &left.name);
                let right = self.arg(scope, right);
                Op::Cmp {
                    op: *op,
                    left,
                    right,
                }
            }
            Form::Rel { .. } => Op::False,
            Form::Bin(BinOp::And, a, b) if self.constraint(*b).is_some() => {
                return Step::Into(Kids::one(*a), scope);
            }
            Form::Agg(g, body) => {
                self.enter_aggregation(scope, g, *body);
                // Over `P[..] ψ`: over the window of ψ's assignments.
                let inner = match arena.form(*body) {
                    Form::Once(_, psi) => *psi,
                    _ => *body,
                };
                return Step::Into(Kids::one(inner), scope);
            }
            Form::Let(_, _, body) => return Step::Into(Kids::one(*body), scope),
            form => {
                if let Form::Quant(q, v, _) = form {
                    let var = self.var(scope, &v.name, VarKind::Quantified(*q));
                    self.bind(&v.name, var);
                    self.quants.push(var);
                }
                return Step::Into(Kids::of(form), scope);
            }
        };
        Step::Done(self.mk(op, arena.span(f)))
    }

    fn leave(&mut self, f: FormId, &scope: &Option<usize>, [a, b]: [NodeIx; 2]) -> NodeIx {
        let arena = self.arena;
        let span = arena.span(f);
        let op = match arena.form(f) {
            Form::Bin(BinOp::And, _, c) if let Some(c) = self.constraint(*c) => {
                self.constrained(scope, a, c)
            }
            Form::Agg(g, operand) => self.leave_aggregation(scope, g, *operand, a),
            Form::Let(..) => return a,
            Form::Not(_) => Op::Not(a),
            Form::Prev(_) => Op::Prev(a),
            Form::PrevIn(t, _) => {
                let prev = Op::Prev(a);
                if t.is_trivial() {
                    prev
                } else {
                    let prev = self.mk(prev, span);
                    let gap = self.mk(Op::Gap(*t), span);
                    Op::And(prev, gap)
                }
            }
            Form::Once(bound, _) => self.once(*bound, a, span),
            Form::Hist(bound, _) => {
                let not_a = self.mk(Op::Not(a), span);
                let once = self.once(*bound, not_a, span);
                let once = self.mk(once, span);
                Op::Not(once)
            }
            Form::Bin(op, ..) => match op {
                BinOp::And => Op::And(a, b),
                BinOp::Or => Op::Or(a, b),
                BinOp::Implies => Op::Implies(a, b),
                BinOp::Iff => Op::Iff(a, b),
            },
            Form::Since(bound, ..) => match bound {
                Some(t) if !t.is_trivial() => Op::SinceTimed(*t, a, b),
                _ => Op::Since(a, b),
            },
            Form::Zince(d, ..) => Op::Zince(*d, a, b),
            Form::Interval(..) => {
                let not_b = self.mk(Op::Not(b), span);
                Op::Since(not_b, a)
            }
            Form::Next(bound, _) => Op::Next(bound.unwrap_or(TRIVIAL), a),
            Form::Eventually(bound, _) => {
                let t = self.mk(Op::True, span);
                Op::Until(bound.unwrap_or(TRIVIAL), t, a)
            }
            Form::Always(bound, _) => {
                let t = self.mk(Op::True, span);
                let not_a = self.mk(Op::Not(a), span);
                let until = self.mk(Op::Until(bound.unwrap_or(TRIVIAL), t, not_a), span);
                Op::Not(until)
            }
            Form::Until(bound, ..) => Op::Until(bound.unwrap_or(TRIVIAL), a, b),
            Form::Quant(q, v, _) => {
                let var = self.quants.pop().unwrap_or_default();
                self.unbind(&v.name);
                Op::Quant(*q, var, a)
            }
            // Answered in `enter`.
            Form::True | Form::False | Form::Call { .. } | Form::Cmp { .. } | Form::Rel { .. } => {
                return a;
            }
        };
        self.mk(op, span)
    }
}

/// `[0,*)`: the interval of an operator written without one.
const TRIVIAL: TimeBound = TimeBound { lo: 0, hi: None };

/// A variable's name as the user wrote it: macro expansion renames the
/// quantified variables of a macro body to `name'n` (`'` cannot occur in an
/// identifier).
fn user_name(name: &str) -> &str {
    name.split('\'').next().unwrap_or(name)
}

/// The largest elapsed time an operator with this interval must tell apart:
/// its stamps are kept modulo `2^w >= 2 * bound + 2` (see `runtime::time`).
/// A bounded interval keeps the stamps of the last `hi` time units; an
/// unbounded one those younger than `lo` (at least 1: `[0,*)` is untimed).
fn modulus_bound(t: &TimeBound) -> u64 {
    t.hi.unwrap_or(t.lo.saturating_sub(1))
}
