//! The abstract syntax tree of a QTL specification.
//!
//! Formulas live in an [`Arena`] and refer to each other by [`FormId`], so a
//! formula nested a hundred thousand levels deep is a flat vector: it is never
//! dropped recursively and passes over it can choose their own traversal.

use super::span::Span;

/// An identifier with its place in the source.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The identifier as written.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A constant argument: a string literal or an integer, kept as the text that a
/// trace field must equal (`"abc"` is `abc`, `5` and `"5"` are both `5`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    /// The value as it must appear in a trace field.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

/// An argument of an event, macro or rule call, or the right side of a comparison.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// A variable.
    Var(Ident),
    /// A constant.
    Const(Const),
}

impl Term {
    /// Where the term was written.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(v) => v.span,
            Term::Const(c) => c.span,
        }
    }
}

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

/// A timing constraint on a temporal operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeBound {
    /// `[<=d]`: at most `d` time units ago.
    AtMost(u64),
    /// `[>d]`: more than `d` time units ago.
    MoreThan(u64),
}

impl std::fmt::Display for TimeBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeBound::AtMost(d) => write!(f, "[<={d}]"),
            TimeBound::MoreThan(d) => write!(f, "[>{d}]"),
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// A quantified formula.
    Quant(Quant, Ident, FormId),
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

    /// The formula `id` as fully parenthesised QTL text (binary operators in
    /// parentheses, time bounds written out).
    pub fn show(&self, id: FormId) -> String {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.show_inner(id))
    }

    fn show_inner(&self, id: FormId) -> String {
        let term = |t: &Term| match t {
            Term::Var(v) => v.name.clone(),
            Term::Const(c) => format!("\"{}\"", c.text),
        };
        let bound = |b: &Option<TimeBound>| b.map(|b| b.to_string()).unwrap_or_default();
        match self.form(id) {
            Form::True => "true".into(),
            Form::False => "false".into(),
            Form::Call { name, args } => {
                let args: Vec<String> = args.iter().map(term).collect();
                format!("{}({})", name.name, args.join(","))
            }
            Form::Cmp { op, left, right } => {
                format!("{} {} {}", left.name, op.symbol(), term(right))
            }
            Form::Not(a) => format!("!{}", self.show(*a)),
            Form::Prev(a) => format!("@{}", self.show(*a)),
            Form::Once(b, a) => format!("P{} {}", bound(b), self.show(*a)),
            Form::Hist(b, a) => format!("H{} {}", bound(b), self.show(*a)),
            Form::Bin(op, a, b) => format!("({} {} {})", self.show(*a), op.symbol(), self.show(*b)),
            Form::Since(t, a, b) => format!("({} S{} {})", self.show(*a), bound(t), self.show(*b)),
            Form::Zince(d, a, b) => format!("({} Z[<={d}] {})", self.show(*a), self.show(*b)),
            Form::Interval(a, b) => format!("[{}, {})", self.show(*a), self.show(*b)),
            Form::Quant(q, v, a) => format!("{} {} . {}", q.keyword(), v.name, self.show(*a)),
        }
    }
}

impl Form {
    /// The direct subformulas, left to right.
    pub fn children(&self) -> impl Iterator<Item = FormId> + '_ {
        let (a, b) = match *self {
            Form::True | Form::False | Form::Call { .. } | Form::Cmp { .. } => (None, None),
            Form::Not(a) | Form::Prev(a) | Form::Once(_, a) | Form::Hist(_, a) => (Some(a), None),
            Form::Quant(_, _, a) => (Some(a), None),
            Form::Bin(_, a, b)
            | Form::Since(_, a, b)
            | Form::Zince(_, a, b)
            | Form::Interval(a, b) => (Some(a), Some(b)),
        };
        a.into_iter().chain(b)
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
}
