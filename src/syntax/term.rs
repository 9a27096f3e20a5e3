//! The terms of QTL: the arguments of events, macro and rule calls, and
//! the sides of comparisons (variables and constants), with the places
//! where they were written. Beneath the formulas ([`super::ast`]) and the
//! expressions ([`super::expr`]), which both hold them.

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
