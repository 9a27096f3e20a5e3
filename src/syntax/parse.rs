//! Running the LALRPOP parser and turning its errors into diagnostics.

use std::cell::RefCell;

use lalrpop_util::ParseError;

use super::ast::{Arena, Form, FormId, Spec};
use super::diag::Diagnostic;
use super::span::Span;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, missing_docs)]
    qtl,
    "/qtl.rs"
);

/// An error raised inside a grammar action (e.g. a time bound out of range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxIssue {
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

/// Stores a node in the arena; called from the grammar actions.
pub(crate) fn mk(arena: &RefCell<Arena>, form: Form, l: usize, r: usize) -> FormId {
    arena.borrow_mut().push(form, Span::new(l, r))
}

/// The value of a string literal token: quotes removed, `\"` and `\\` unescaped.
pub(crate) fn unquote(token: &str) -> String {
    let inner = &token[1..token.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses a whole specification.
pub fn parse(text: &str) -> Result<Spec, Diagnostic> {
    let arena = RefCell::new(Arena::new());
    let defs = qtl::DefsParser::new()
        .parse(&arena, text)
        .map_err(|e| to_diagnostic(text, e))?;
    Ok(Spec {
        defs,
        arena: arena.into_inner(),
    })
}

/// Parses a single formula (for tests and the library API).
pub fn parse_formula(text: &str) -> Result<(Arena, FormId), Diagnostic> {
    let arena = RefCell::new(Arena::new());
    let root = qtl::FormParser::new()
        .parse(&arena, text)
        .map_err(|e| to_diagnostic(text, e))?;
    Ok((arena.into_inner(), root))
}

type LalrError<'t> = ParseError<usize, qtl::Token<'t>, SyntaxIssue>;

fn to_diagnostic(text: &str, err: LalrError<'_>) -> Diagnostic {
    match err {
        ParseError::InvalidToken { location } => {
            let rest = &text[location..];
            let (len, message) = if rest.starts_with("/*") {
                (
                    2,
                    "this comment is never closed: `/*` needs a matching `*/`".to_string(),
                )
            } else if rest.starts_with('"') {
                (
                    1,
                    "this string is never closed: a `\"` is missing on this line".to_string(),
                )
            } else {
                let c = rest.chars().next().unwrap_or(' ');
                (
                    c.len_utf8(),
                    format!("unexpected character `{}`", c.escape_debug()),
                )
            };
            Diagnostic::error(Span::new(location, location + len), message)
        }
        ParseError::UnrecognizedEof { location, expected } => Diagnostic::error(
            Span::new(location, location),
            format!(
                "the specification ends too early{}",
                expected_list(&expected)
            ),
        ),
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => Diagnostic::error(
            Span::new(l, r),
            format!("unexpected `{}`{}", tok.1, expected_list(&expected)),
        ),
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::error(
            Span::new(l, r),
            format!("unexpected `{}` after the end", tok.1),
        ),
        ParseError::User { error } => Diagnostic::error(error.span, error.message),
    }
}

fn expected_list(expected: &[String]) -> String {
    let names: Vec<String> = expected
        .iter()
        .map(|e| match e.as_str() {
            "IDENT" => "a name".to_string(),
            "INT" => "an integer".to_string(),
            "STR" => "a string".to_string(),
            other => format!("`{}`", other.trim_matches('"')),
        })
        .collect();
    match names.len() {
        0 => String::new(),
        1 => format!("; expected {}", names[0]),
        n if n <= 8 => format!("; expected one of {}", names.join(", ")),
        _ => format!("; expected one of {}, ...", names[..8].join(", ")),
    }
}
