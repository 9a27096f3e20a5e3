//! The abstract syntax tree of a QTL specification.
//!
//! Formulas live in an [`Arena`] and refer to each other by [`FormId`], so a
//! formula nested a hundred thousand levels deep is a flat vector: it is never
//! dropped recursively and passes over it can choose their own traversal.

use super::expr::{AggOp, Expr};
use super::span::Span;

pub use super::term::{Const, Ident, Term};

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `=`
    Eq,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl RelOp {
    /// The operator with its sides swapped: `c op x` is `x op.flip() c`.
    pub fn flip(self) -> RelOp {
        match self {
            RelOp::Lt => RelOp::Gt,
            RelOp::Le => RelOp::Ge,
            RelOp::Eq => RelOp::Eq,
            RelOp::Gt => RelOp::Lt,
            RelOp::Ge => RelOp::Le,
        }
    }

    /// The operator as written in QTL.
    pub fn symbol(self) -> &'static str {
        match self {
            RelOp::Lt => "<",
            RelOp::Le => "<=",
            RelOp::Eq => "=",
            RelOp::Gt => ">",
            RelOp::Ge => ">=",
        }
    }
}

/// Binary boolean connectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `&`
    And,
    /// `|`
    Or,
    /// `->`
    Implies,
    /// `<->`
    Iff,
}

impl BinOp {
    /// The operator as written in QTL.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Implies => "->",
            BinOp::Iff => "<->",
        }
    }
}

/// A timing constraint on a temporal operator: the elapsed time must lie in
/// the interval `[lo, hi]` of natural numbers (`hi = None`: no upper bound).
///
/// Every written form is normalised to closed integer ends: `(a,b]` is
/// `[a+1,b]`, `[a,b)` is `[a,b-1]`, `[a,*)` has no upper bound; the one-sided
/// forms are sugar: `[<=d]` is `[0,d]` and `[>d]` is `[d+1,*)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeBound {
    /// The smallest elapsed time allowed.
    pub lo: u64,
    /// The largest elapsed time allowed, if any.
    pub hi: Option<u64>,
}

impl TimeBound {
    /// `[<=d]`: at most `d` time units ago.
    pub fn at_most(d: u64) -> TimeBound {
        TimeBound { lo: 0, hi: Some(d) }
    }

    /// `[>d]`: more than `d` time units ago (`None` when `d` is `u64::MAX`:
    /// no elapsed time is that large).
    pub fn more_than(d: u64) -> Option<TimeBound> {
        Some(TimeBound {
            lo: d.checked_add(1)?,
            hi: None,
        })
    }

    /// The interval between `lo` and `hi` (`None`: unbounded) with open or
    /// closed ends, or `None` when it contains no natural number.
    pub fn within(lo: u64, lo_open: bool, hi: Option<u64>, hi_open: bool) -> Option<TimeBound> {
        let lo = if lo_open { lo.checked_add(1)? } else { lo };
        let hi = match hi {
            None => None,
            Some(h) if hi_open => Some(h.checked_sub(1)?),
            Some(h) => Some(h),
        };
        if hi.is_some_and(|h| h < lo) {
            return None;
        }
        Some(TimeBound { lo, hi })
    }

    /// `[<=d]`, under the name of the one-sided form as written in QTL.
    #[allow(non_snake_case)]
    pub fn AtMost(d: u64) -> TimeBound {
        TimeBound::at_most(d)
    }

    /// `[>d]`, under the name of the one-sided form as written in QTL, for
    /// `d` below `u64::MAX` (a larger `d` is clamped to `[2^64-1,*)`; the
    /// parser rejects `[>18446744073709551615]` through [`TimeBound::more_than`]).
    #[allow(non_snake_case)]
    pub fn MoreThan(d: u64) -> TimeBound {
        TimeBound {
            lo: d.saturating_add(1),
            hi: None,
        }
    }

    /// Whether the elapsed time `gap` lies in the interval.
    pub fn contains(self, gap: u64) -> bool {
        gap >= self.lo && self.hi.is_none_or(|h| gap <= h)
    }

    /// Whether the interval is `[0,*)`, no constraint at all.
    pub fn is_trivial(self) -> bool {
        self.lo == 0 && self.hi.is_none()
    }
}

impl std::fmt::Display for TimeBound {
    /// The one-sided forms where they apply (`[<=d]`, `[>d]`), else `[a,b]`
    /// or `[a,*)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.lo, self.hi) {
            (0, Some(d)) => write!(f, "[<={d}]"),
            (lo, None) if lo > 0 => write!(f, "[>{}]", lo - 1),
            (lo, None) => write!(f, "[{lo},*)"),
            (lo, Some(hi)) => write!(f, "[{lo},{hi}]"),
        }
    }
}

/// The two quantifier families and their polarity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quant {
    /// `Exists`: over the infinite domain of all values.
    Exists,
    /// `Forall`: over the infinite domain of all values.
    Forall,
    /// `exists`: over the values seen so far for the variable.
    ExistsSeen,
    /// `forall`: over the values seen so far for the variable.
    ForallSeen,
}

impl Quant {
    /// The keyword as written in QTL.
    pub fn keyword(self) -> &'static str {
        match self {
            Quant::Exists => "Exists",
            Quant::Forall => "Forall",
            Quant::ExistsSeen => "exists",
            Quant::ForallSeen => "forall",
        }
    }
}

/// Index of a formula node in an [`Arena`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormId(pub u32);

/// One formula node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// `true`
    True,
    /// `false`
    False,
    /// `name` or `name(args)`: an event, a macro call or a rule call.
    Call {
        /// The called name.
        name: Ident,
        /// The arguments (empty for `name` and `name()`).
        args: Vec<Term>,
    },
    /// `x op y` or `x op c`.
    Cmp {
        /// The operator.
        op: RelOp,
        /// The variable on the left.
        left: Ident,
        /// The variable or constant on the right.
        right: Term,
    },
    /// `!φ`
    Not(FormId),
    /// `@φ`: φ held at the previous event.
    Prev(FormId),
    /// `@[a,b] φ`: φ held at the previous event, and the time since that
    /// event lies in the interval.
    PrevIn(TimeBound, FormId),
    /// `P φ` or `P[..] φ`.
    Once(Option<TimeBound>, FormId),
    /// `H φ` or `H[..] φ`.
    Hist(Option<TimeBound>, FormId),
    /// A binary connective.
    Bin(BinOp, FormId, FormId),
    /// `φ S ψ` or `φ S[..] ψ`.
    Since(Option<TimeBound>, FormId, FormId),
    /// `φ Z[<=d] ψ`: as `S[<=d]`, with ψ at an earlier event.
    Zince(u64, FormId, FormId),
    /// `[φ, ψ)`: `!ψ S φ`.
    Interval(FormId, FormId),
    /// `X φ` or `X[..] φ`: φ holds at the next event, and the time until
    /// it lies in the interval.
    Next(Option<TimeBound>, FormId),
    /// `F[..] φ`: φ holds at this or a later event within the interval
    /// (the checker requires a finite upper bound).
    Eventually(Option<TimeBound>, FormId),
    /// `G[..] φ`: φ holds at this and every later event within the interval
    /// (the checker requires a finite upper bound).
    Always(Option<TimeBound>, FormId),
    /// `φ U[..] ψ`: ψ holds at this or a later event within the interval,
    /// and φ at every event from this one up to it (the checker requires a
    /// finite upper bound).
    Until(Option<TimeBound>, FormId, FormId),
    /// A quantified formula.
    Quant(Quant, Ident, FormId),
    /// `t1 op t2` where a side is an arithmetic term with an operator
    /// (`x + 1 > y`); a comparison of plain terms is [`Form::Cmp`].
    Rel {
        /// The operator.
        op: RelOp,
        /// The left term.
        left: Expr,
        /// The right term.
        right: Expr,
    },
    /// `y <- OP x; g1, ..., gk . φ`: `y` is `OP` of the values of `x` over
    /// the assignments of φ's free variables that satisfy it, for each
    /// assignment of the group variables `g` (the other free variables of
    /// φ are bound here).
    Agg(Box<Aggregation>, FormId),
    /// `LET p(x1, ..., xn) = φ IN ψ`: ψ, where a call `p(t1, ..., tn)` is φ
    /// with the terms for the parameters (expanded by the checker).
    Let(Box<LetDef>, FormId, FormId),
}

/// What an aggregation computes (its operand is the node's subformula).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aggregation {
    /// The operator.
    pub op: AggOp,
    /// The result variable `y`.
    pub result: Ident,
    /// The aggregated variable `x`.
    pub of: Ident,
    /// The group variables.
    pub group: Vec<Ident>,
}

/// The defined name of a `LET` (its definition and body are the node's
/// subformulas).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LetDef {
    /// The name defined.
    pub name: Ident,
    /// Its parameters.
    pub params: Vec<Ident>,
}

/// A formula node with its source span.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// What the node is.
    pub form: Form,
    /// Where it was written.
    pub span: Span,
}

/// Storage for the formula nodes of one specification.
#[derive(Clone, Debug, Default)]
pub struct Arena {
    nodes: Vec<Node>,
}

impl Arena {
    /// An empty arena.
    pub fn new() -> Arena {
        Arena::default()
    }

    /// Stores a node and returns its id.
    pub fn push(&mut self, form: Form, span: Span) -> FormId {
        let id = FormId(u32::try_from(self.nodes.len()).expect("fewer than 2^32 formula nodes"));
        self.nodes.push(Node { form, span });
        id
    }

    /// The node with the given id.
    pub fn node(&self, id: FormId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The formula of the node with the given id.
    pub fn form(&self, id: FormId) -> &Form {
        &self.nodes[id.0 as usize].form
    }

    /// The span of the node with the given id.
    pub fn span(&self, id: FormId) -> Span {
        self.nodes[id.0 as usize].span
    }

    /// Number of nodes stored.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is stored.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

impl Form {
    /// The comparison `left op right`: a constant on the left moves to the
    /// right (the operator flipped), and two constants fold to `true` or
    /// `false` as trace values would compare ([`crate::value::relop_holds`]).
    pub fn compare(op: RelOp, left: Term, right: Term) -> Form {
        match (left, right) {
            (Term::Var(left), right) => Form::Cmp { op, left, right },
            (Term::Const(c), Term::Var(right)) => Form::Cmp {
                op: op.flip(),
                left: right,
                right: Term::Const(c),
            },
            (Term::Const(a), Term::Const(b)) => {
                if crate::value::relop_holds(op, a.text.as_bytes(), b.text.as_bytes()) {
                    Form::True
                } else {
                    Form::False
                }
            }
        }
    }

    /// The comparison `left op right` of two terms: [`Form::compare`] when
    /// both are plain variables or constants, else [`Form::Rel`].
    pub fn relate(op: RelOp, left: Expr, right: Expr) -> Form {
        match (left.as_term(), right.as_term()) {
            (Some(a), Some(b)) => Form::compare(op, a, b),
            _ => Form::Rel { op, left, right },
        }
    }

    /// The variables this node itself uses (not those of its subformulas):
    /// the arguments of a call, the sides of a comparison, the result and
    /// group variables of an aggregation.
    pub fn used_vars(&self) -> Vec<&Ident> {
        match self {
            Form::Call { args, .. } => args
                .iter()
                .filter_map(|a| match a {
                    Term::Var(v) => Some(v),
                    Term::Const(_) => None,
                })
                .collect(),
            Form::Cmp { left, right, .. } => {
                let mut out = vec![left];
                if let Term::Var(v) = right {
                    out.push(v);
                }
                out
            }
            Form::Rel { left, right, .. } => left.vars().chain(right.vars()).collect(),
            Form::Agg(g, _) => std::iter::once(&g.result).chain(&g.group).collect(),
            _ => Vec::new(),
        }
    }

    /// The direct subformulas, left to right.
    pub fn children(&self) -> impl Iterator<Item = FormId> + '_ {
        let (a, b) = match *self {
            Form::True | Form::False | Form::Call { .. } | Form::Cmp { .. } | Form::Rel { .. } => {
                (None, None)
            }
            Form::Not(a)
            | Form::Prev(a)
            | Form::PrevIn(_, a)
            | Form::Once(_, a)
            | Form::Hist(_, a)
            | Form::Next(_, a)
            | Form::Eventually(_, a)
            | Form::Always(_, a) => (Some(a), None),
            Form::Quant(_, _, a) | Form::Agg(_, a) => (Some(a), None),
            Form::Let(_, a, b) => (Some(a), Some(b)),
            Form::Bin(_, a, b)
            | Form::Since(_, a, b)
            | Form::Zince(_, a, b)
            | Form::Until(_, a, b)
            | Form::Interval(a, b) => (Some(a), Some(b)),
        };
        a.into_iter().chain(b)
    }

    /// This node with the operands `a` and `b` in place of its own (in the
    /// order of [`Form::children`]; `b` unused for one operand, both for a
    /// leaf, which is itself).
    pub fn with_children(&self, [a, b]: [FormId; 2]) -> Form {
        match self {
            Form::Not(_) => Form::Not(a),
            Form::Prev(_) => Form::Prev(a),
            Form::PrevIn(t, _) => Form::PrevIn(*t, a),
            Form::Once(t, _) => Form::Once(*t, a),
            Form::Hist(t, _) => Form::Hist(*t, a),
            Form::Bin(op, _, _) => Form::Bin(*op, a, b),
            Form::Since(t, _, _) => Form::Since(*t, a, b),
            Form::Zince(d, _, _) => Form::Zince(*d, a, b),
            Form::Until(t, _, _) => Form::Until(*t, a, b),
            Form::Next(t, _) => Form::Next(*t, a),
            Form::Eventually(t, _) => Form::Eventually(*t, a),
            Form::Always(t, _) => Form::Always(*t, a),
            Form::Interval(_, _) => Form::Interval(a, b),
            Form::Quant(q, v, _) => Form::Quant(*q, v.clone(), a),
            Form::Agg(g, _) => Form::Agg(g.clone(), a),
            Form::Let(d, _, _) => Form::Let(d.clone(), a, b),
            leaf => leaf.clone(),
        }
    }
}

/// An event in a declaration: `name` or `name(p1, ..., pn)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDecl {
    /// The event name.
    pub name: Ident,
    /// The parameter names (documentation only; they give the arity).
    pub params: Vec<Ident>,
}

/// A rule of a property: `name(params) := body`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The rule (relation) name.
    pub name: Ident,
    /// The parameters.
    pub params: Vec<Ident>,
    /// The defining formula.
    pub body: FormId,
}

/// A top-level definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Def {
    /// `pred a(x), b` (also `preds`, `event`, `events`).
    Events(Vec<EventDecl>),
    /// `pred name(params) = body`.
    Macro {
        /// The macro name.
        name: Ident,
        /// Its parameters.
        params: Vec<Ident>,
        /// Its body.
        body: FormId,
    },
    /// `prop name : body where rules`.
    Prop {
        /// The property name.
        name: Ident,
        /// The statement.
        body: FormId,
        /// Its rules, possibly none.
        rules: Vec<Rule>,
    },
}

/// A parsed specification: its definitions and the formula nodes they use.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// The definitions in source order.
    pub defs: Vec<Def>,
    /// The formula nodes.
    pub arena: Arena,
    /// Whether equalities are read as MonPoly reads them: `φ & y = t`,
    /// where φ does not bind `y`, gives `y` the value of `t` (set by the
    /// MFOTL front end; see `check::range`).
    pub mfotl: bool,
}
