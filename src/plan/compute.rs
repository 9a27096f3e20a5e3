//! The computing parts of a plan: arithmetic terms over a property's
//! variables, the combinations of comparisons that filter an operand's
//! assignments, and how they are shown.

use super::VarIx;
use crate::syntax::{ArithOp, RelOp};

/// One item of a term in postfix order (see [`crate::syntax::Expr`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermItem {
    /// A variable's value.
    Var(VarIx),
    /// A constant, as written.
    Const(String),
    /// Unary minus of the item before.
    Neg,
    /// A binary operator on the two items before.
    Bin(ArithOp),
}

/// A term: items in postfix order.
pub type Term = Vec<TermItem>;

/// One item of a combination of comparisons in postfix order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CondItem {
    /// A comparison of two terms. With `arith` (a side has an operator)
    /// numbers compare as numbers, `=` included; without, as the plain
    /// comparison `x op y` compares values (docs/LANGUAGE.md).
    Cmp {
        /// The operator.
        op: RelOp,
        /// The left side.
        left: Term,
        /// The right side.
        right: Term,
        /// Whether a side has an operator.
        arith: bool,
    },
    /// A constant truth value.
    Const(bool),
    /// Negation of the item before.
    Not,
    /// Conjunction of the two items before.
    And,
    /// Disjunction of the two items before.
    Or,
    /// Implication between the two items before.
    Implies,
    /// Equivalence of the two items before.
    Iff,
}

/// A combination of comparisons: items in postfix order.
pub type Cond = Vec<CondItem>;

/// The variables of a term, in order, with repeats.
pub fn term_vars(t: &[TermItem]) -> impl Iterator<Item = VarIx> + '_ {
    t.iter().filter_map(|i| match i {
        TermItem::Var(v) => Some(*v),
        _ => None,
    })
}

/// The variables of a combination of comparisons, with repeats.
pub fn cond_vars(c: &[CondItem]) -> impl Iterator<Item = VarIx> + '_ {
    c.iter().flat_map(|i| match i {
        CondItem::Cmp { left, right, .. } => term_vars(left).chain(term_vars(right)).collect(),
        _ => Vec::new(),
    })
}

/// A term as text, variables named by `var` (for listings).
pub fn show_term(t: &[TermItem], var: &dyn Fn(VarIx) -> String) -> String {
    let items: Vec<crate::syntax::Item> = t
        .iter()
        .map(|i| {
            let ident = |name: String| crate::syntax::Ident {
                name,
                span: crate::syntax::Span::default(),
            };
            match i {
                TermItem::Var(v) => crate::syntax::Item::Var(ident(var(*v))),
                TermItem::Const(c) => crate::syntax::Item::Const(crate::syntax::Const {
                    text: c.clone(),
                    span: crate::syntax::Span::default(),
                }),
                TermItem::Neg => crate::syntax::Item::Neg,
                TermItem::Bin(op) => crate::syntax::Item::Bin(*op),
            }
        })
        .collect();
    crate::syntax::Expr {
        items,
        span: crate::syntax::Span::default(),
    }
    .show(true)
}

/// A combination of comparisons as text (for listings).
pub fn show_cond(c: &[CondItem], var: &dyn Fn(VarIx) -> String) -> String {
    let mut stack: Vec<String> = Vec::new();
    for item in c {
        let mut pop = || stack.pop().unwrap_or_default();
        let s = match item {
            CondItem::Cmp {
                op, left, right, ..
            } => format!(
                "{} {} {}",
                show_term(left, var),
                op.symbol(),
                show_term(right, var)
            ),
            CondItem::Const(b) => b.to_string(),
            CondItem::Not => format!("!({})", pop()),
            CondItem::And | CondItem::Or | CondItem::Implies | CondItem::Iff => {
                let b = pop();
                let a = pop();
                let sym = match item {
                    CondItem::And => "&",
                    CondItem::Or => "|",
                    CondItem::Implies => "->",
                    _ => "<->",
                };
                format!("({a} {sym} {b})")
            }
        };
        stack.push(s);
    }
    stack.pop().unwrap_or_default()
}
