//! Compilation to a monitor plan: for each property the table of its
//! subformulas (shared when equal) in evaluation order, its variables with their
//! enumeration classes and BDD bit layout, and its rules.
//!
//! The evaluation order is the paper's *mixed evaluation order*: a topological
//! order of the subformula graph in which `@φ` reads the `pre` value of φ (its
//! `now` at the previous event) and so does not depend on φ within an event. Rule
//! bodies are only allowed to reference rules under `@`, which makes that graph
//! acyclic; a rule call depends on the body of its rule. The [`Phase`] of each
//! node names the paper's four groups: (a) rule-body subformulas not under `@`,
//! (b) rule relations, (c) rule-body subformulas under `@`, (d) the statement.

mod build;
pub mod compute;
mod constrain;
mod dot;
pub mod future;
mod layout;
mod order;
mod show;
pub mod slice;
pub mod split;
pub mod ticks;
pub mod twins;

pub use build::{compile, compile_source, compile_source_timed};

use std::collections::BTreeMap;

use crate::syntax::walk::Kids;
use crate::syntax::{AggOp, Quant, RelOp, Span, TimeBound};

/// Index of a subformula in [`PropPlan::nodes`].
pub type NodeIx = usize;
/// Index of a variable in [`PropPlan::vars`].
pub type VarIx = usize;

/// An argument of an event pattern or rule call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    /// A variable.
    Var(VarIx),
    /// A constant, as the text a trace field must equal.
    Const(String),
}

/// What a subformula computes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `true`
    True,
    /// `false`
    False,
    /// The current event is `event` with arguments matching `args`.
    Atom {
        /// Event name.
        event: String,
        /// Argument patterns.
        args: Vec<Arg>,
    },
    /// Comparison of a variable with a variable or constant.
    Cmp {
        /// The operator.
        op: RelOp,
        /// The left variable.
        left: VarIx,
        /// The right side.
        right: Arg,
    },
    /// Negation.
    Not(NodeIx),
    /// Conjunction.
    And(NodeIx, NodeIx),
    /// Disjunction.
    Or(NodeIx, NodeIx),
    /// Implication.
    Implies(NodeIx, NodeIx),
    /// Equivalence.
    Iff(NodeIx, NodeIx),
    /// `@φ`: the `pre` value of φ.
    Prev(NodeIx),
    /// `φ S ψ`.
    Since(NodeIx, NodeIx),
    /// `φ S[a,b] ψ` (also `S[<=d]`, `S[>d]`), never with the trivial
    /// interval `[0,*)`, which is `Since`.
    SinceTimed(TimeBound, NodeIx, NodeIx),
    /// The time since the previous event lies in the interval (false at the
    /// first event): `@[a,b] φ` is `@φ & Gap([a,b])`.
    Gap(TimeBound),
    /// `φ Z[<=d] ψ`.
    Zince(u64, NodeIx, NodeIx),
    /// `X[a,b] φ`: φ holds at the next event, and the time from this event
    /// to it lies in the interval (any interval, also `[0,*)`). Its value at
    /// an event is known once the next event is.
    Next(TimeBound, NodeIx),
    /// `φ U[a,b] ψ`: ψ holds at this or a later event whose time from this
    /// one lies in the interval, and φ at every event from this one up to
    /// (not including) it. The interval has a finite upper bound `b`, so the
    /// value at an event is known once an event more than `b` later is.
    /// (`F[a,b] ψ` is `true U[a,b] ψ`.)
    Until(TimeBound, NodeIx, NodeIx),
    /// A quantifier over one variable.
    Quant(Quant, VarIx, NodeIx),
    /// A call of rule `rule` with the given arguments.
    RuleCall {
        /// Index into [`PropPlan::rules`].
        rule: usize,
        /// One argument per parameter.
        args: Vec<Arg>,
    },
    /// `φ & z = t`: φ's assignments, each with `z` the value of the term
    /// `t` on it (the checker makes sure φ binds the variables of `t`).
    Assign {
        /// φ.
        body: NodeIx,
        /// `z`.
        target: VarIx,
        /// `t`.
        term: compute::Term,
    },
    /// `φ & C`: φ's assignments that satisfy the combination of
    /// comparisons `C` (whose variables φ binds).
    Filter {
        /// φ.
        body: NodeIx,
        /// `C`.
        cond: compute::Cond,
    },
    /// `y <- OP x; g . φ`: for each assignment of the group variables `g`
    /// (none: one), `y` is `OP` of the values of `x` over φ's satisfying
    /// assignments with those group values. With `once`, the operand is
    /// `P[once] body` (computed over the window of `body`'s assignments, as
    /// MonPoly does, rather than as a set).
    Agg {
        /// The operator.
        op: AggOp,
        /// `y`.
        result: VarIx,
        /// `x`.
        of: VarIx,
        /// `g`.
        group: Vec<VarIx>,
        /// The interval of the `P` around `body`, if the operand is one.
        once: Option<TimeBound>,
        /// φ (or the operand of `P[once]`).
        body: NodeIx,
    },
}

impl Op {
    /// The subformulas this one reads within the same event (not through `@`).
    pub fn same_step_children(&self) -> Vec<NodeIx> {
        self.same_step_kids().iter().collect()
    }

    /// [`Op::same_step_children`] without allocating, for [`crate::syntax::walk`].
    pub fn same_step_kids(&self) -> Kids<NodeIx> {
        match *self {
            Op::Not(a) | Op::Quant(_, _, a) | Op::Next(_, a) => Kids::one(a),
            Op::Assign { body, .. } | Op::Filter { body, .. } | Op::Agg { body, .. } => {
                Kids::one(body)
            }
            Op::And(a, b)
            | Op::Or(a, b)
            | Op::Implies(a, b)
            | Op::Iff(a, b)
            | Op::Since(a, b)
            | Op::SinceTimed(_, a, b)
            | Op::Zince(_, a, b)
            | Op::Until(_, a, b) => Kids::two(a, b),
            _ => Kids::none(),
        }
    }
}

/// The paper's four groups of the mixed evaluation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// (a) a rule-body subformula not under `@`.
    RuleBody,
    /// (b) the body root of a rule: the rule relation.
    RuleRelation,
    /// (c) a rule-body subformula under `@`.
    RuleBodyUnderPrev,
    /// (d) a subformula of the statement.
    Statement,
}

impl Phase {
    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Phase::RuleBody => "a",
            Phase::RuleRelation => "b",
            Phase::RuleBodyUnderPrev => "c",
            Phase::Statement => "d",
        }
    }
}

/// One subformula of a property.
#[derive(Clone, Debug)]
pub struct Node {
    /// What it computes.
    pub op: Op,
    /// Its free variables, sorted.
    pub free: Vec<VarIx>,
    /// Its group in the mixed evaluation order.
    pub phase: Phase,
    /// Where it was written (for a desugared operator, the operator it came from).
    pub span: Span,
}

/// How a variable is introduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Bound by a quantifier.
    Quantified(Quant),
    /// A parameter of the given rule.
    RuleParam(usize),
}

/// A variable of a property.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name as written in the specification (rule variables are shown
    /// as `rule.name`); several variables may have the same name (sibling
    /// quantifiers, a macro called twice). Witnesses use it.
    pub name: String,
    /// A name unique within the property, for listings: the name, followed
    /// by `'2`, `'3`, ... for the second, third, ... variable of that name.
    pub label: String,
    /// How it is introduced.
    pub kind: VarKind,
    /// Its enumeration class: variables whose codes must agree share one.
    pub class: usize,
    /// Whether the runtime must track the values seen for it (for
    /// `exists`/`forall` and comparisons).
    pub needs_seen: bool,
    /// Whether its orderings (`<`, `<=`, ...) compare values as text even
    /// when they are numerals: an MFOTL `string` attribute (set by
    /// [`crate::mfotl::compile`]; QTL compares numerals as numbers).
    pub text_order: bool,
    /// Whether a comparison of it at a position may read the values seen
    /// after that position too, by the time the position is decided: an
    /// MFOTL variable (set by [`crate::mfotl::compile`]). MonPoly compares
    /// any values, and a safe formula binds every compared variable, so
    /// the values seen by then are enough. QTL compares only the values
    /// seen up to the position.
    pub compare_later: bool,
    /// How arithmetic and aggregations read its values: as their text
    /// says (QTL), or as the ints or floats of an MFOTL attribute (set by
    /// [`crate::mfotl::compile`]).
    pub numeric: Numeric,
    /// Its BDD bits, most significant first.
    pub bits: Vec<crate::bdd::BddVar>,
}

/// How arithmetic reads a variable's values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Numeric {
    /// By their text: an integer numeral is an int, one with a point a float.
    #[default]
    Text,
    /// Ints (an MFOTL `int` attribute).
    Int,
    /// Floats (an MFOTL `float` attribute).
    Float,
}

/// A rule of a property.
#[derive(Clone, Debug)]
pub struct RulePlan {
    /// The rule name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<VarIx>,
    /// The root of its body.
    pub body: NodeIx,
}

/// The monitor plan of one property.
#[derive(Clone, Debug)]
pub struct PropPlan {
    /// The property name.
    pub name: String,
    /// The subformulas in evaluation order: a node only reads nodes before it,
    /// except that `@φ` reads the previous value of φ.
    pub nodes: Vec<Node>,
    /// The statement's root.
    pub root: NodeIx,
    /// The rules.
    pub rules: Vec<RulePlan>,
    /// The variables.
    pub vars: Vec<Var>,
    /// Number of enumeration classes.
    pub classes: usize,
    /// Bits reserved per variable.
    pub bits_per_var: usize,
    /// BDD bits of the time stamps kept by timed operators, most significant first.
    pub time_bits: Vec<crate::bdd::BddVar>,
    /// Total number of BDD variables.
    pub bdd_vars: usize,
    /// The statement's text in the specification.
    pub source: Span,
}

/// The compiled monitor of a whole specification.
#[derive(Clone, Debug)]
pub struct Plan {
    /// One plan per property, in source order.
    pub props: Vec<PropPlan>,
    /// Every event the specification knows, with its arity.
    pub events: BTreeMap<String, usize>,
}
