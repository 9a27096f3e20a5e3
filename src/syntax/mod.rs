//! Syntax: the QTL grammar (LALRPOP, `grammar/qtl.lalrpop`), the AST with source
//! spans, and diagnostics.

pub mod ast;
pub mod diag;
pub mod error;
pub mod expr;
mod free;
pub mod hints;
pub mod parse;
pub mod show;
pub mod span;
mod term;
pub mod walk;

pub use ast::*;
pub use diag::{Diagnostic, Severity};
pub use error::{SpecError, Warnings};
pub use expr::{AggOp, ArithOp, Expr, Item};
#[cfg(any(test, feature = "internals"))]
pub use parse::parse_formula;
pub use parse::{parse, parse_timed};
pub use span::Span;
