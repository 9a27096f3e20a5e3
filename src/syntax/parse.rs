//! Running the LALRPOP parser and turning its errors into diagnostics.

use std::cell::{Cell, RefCell};

use lalrpop_util::ParseError;

use super::ast::{Arena, Const, Form, FormId, Spec, Term};
use super::diag::Diagnostic;
use super::expr::{ArithOp, Expr};
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

/// `a - n` for the number token `n` read right after the term `a`: the
/// lexer reads `x-1` as `x` and `-1`. A number without its `-` there is
/// an error (two terms side by side).
pub(crate) fn minus_number<T>(
    a: Expr,
    n: &str,
    l: usize,
    nl: usize,
    r: usize,
) -> Result<Expr, ParseError<usize, T, SyntaxIssue>> {
    match n.strip_prefix('-') {
        Some(digits) => {
            let b = Expr::term(Term::Const(Const {
                text: digits.to_string(),
                span: Span::new(nl + 1, r),
            }));
            Ok(Expr::bin(ArithOp::Sub, a, b, Span::new(l, r)))
        }
        None => Err(ParseError::User {
            error: SyntaxIssue {
                span: Span::new(nl, r),
                message: format!(
                    "unexpected number `{n}` after a term; expected an operator (`+ - * / %`) between them"
                ),
            },
        }),
    }
}

/// The right side of `x<-5`, read as `x < -5`: the constant after `<`.
pub(crate) fn less_than_negative(token: &str, l: usize, r: usize) -> Expr {
    Expr::term(Term::Const(Const {
        text: token[1..].to_string(),
        span: Span::new(l + 1, r),
    }))
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

/// The largest number of decimal digits of a time bound.
pub const MAX_TIME_DECIMALS: u8 = crate::ticks::MAX_TIME_DECIMALS;

/// The precision of the time bounds during one parse: every bound is read in
/// ticks of `10^-decimals` time units; a bound with more decimal digits
/// raises `needed`, and the text is parsed again with that many.
pub(crate) struct TimeScale {
    decimals: u8,
    needed: Cell<u8>,
    /// Whether `decimals` may not be raised: a finer bound is an error.
    fixed: bool,
}

/// A time bound's number (`5`, `0.25`) in ticks of `scale`; called from the
/// grammar.
pub(crate) fn time_bound<T>(
    scale: &TimeScale,
    text: &str,
    l: usize,
    r: usize,
) -> Result<u64, ParseError<usize, T, SyntaxIssue>> {
    let error = |message: String| ParseError::User {
        error: SyntaxIssue {
            span: Span::new(l, r),
            message,
        },
    };
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.starts_with('-') {
        return Err(error(format!(
            "a time bound must be a natural or decimal number, not `{text}`"
        )));
    }
    if frac.len() > usize::from(MAX_TIME_DECIMALS) {
        return Err(error(format!(
            "a time bound has at most {MAX_TIME_DECIMALS} decimal digits, `{text}` has {}",
            frac.len()
        )));
    }
    let k = frac.len() as u8;
    if k > scale.decimals && scale.fixed {
        return Err(error(format!(
            "time bound `{text}` has decimals, but this reading of the specification \
             takes whole time bounds only (decimal bounds are read by `parse_timed`, \
             `check_source_timed` and `compile_source_timed`, which count time in ticks)"
        )));
    }
    if k > scale.decimals {
        // Parsed again with `k` decimals: any value does meanwhile.
        scale.needed.set(scale.needed.get().max(k));
        return Ok(0);
    }
    format!("{int}{frac}")
        .parse::<u64>()
        .ok()
        .and_then(|t| t.checked_mul(10u64.pow(u32::from(scale.decimals - k))))
        .ok_or_else(|| {
            let max = crate::ticks::format_time(u64::MAX, scale.decimals);
            error(if scale.decimals == 0 {
                format!("a time bound must be a natural number below 2^64, not `{text}`")
            } else {
                format!(
                    "time bound `{text}` is too large: with {} decimals (the most of any \
                     time bound or time stamp), the largest is {max}",
                    scale.decimals
                )
            })
        })
}

/// Runs `parse` with the smallest precision of time bounds, at least
/// `decimals`, that reads every bound exactly; that precision with the result.
fn with_time_scale<T>(
    decimals: u8,
    fixed: bool,
    parse: impl Fn(&TimeScale) -> Result<T, Diagnostic>,
) -> Result<(T, u8), Diagnostic> {
    let mut decimals = decimals.min(MAX_TIME_DECIMALS);
    loop {
        let scale = TimeScale {
            decimals,
            needed: Cell::new(decimals),
            fixed,
        };
        let result = parse(&scale);
        // A parse that met a finer bound is done again (its result, or its
        // error, may come from the stand-in value).
        if scale.needed.get() > decimals {
            decimals = scale.needed.get();
            continue;
        }
        return result.map(|t| (t, decimals));
    }
}

/// Parses a whole specification whose time bounds are natural numbers (a
/// decimal bound is an error: see [`parse_timed`]).
pub fn parse(text: &str) -> Result<Spec, Diagnostic> {
    parse_defs(text, 0, true).map(|(spec, _)| spec)
}

/// Parses a whole specification, with its time bounds in ticks of
/// `10^-d` time units, where `d` is at least `decimals` and the largest
/// number of decimal digits of a time bound (`P[<=0.25]` needs 2); also
/// returns `d`. Natural bounds are ticks as they are when `d` is 0.
pub fn parse_timed(text: &str, decimals: u8) -> Result<(Spec, u8), Diagnostic> {
    parse_defs(text, decimals, false)
}

/// The parser of specifications, made once: making it builds its lexer's
/// automaton, which costs more than parsing a specification, and a run
/// parses its specification more than once (the checker, the trace's field
/// names).
static DEFS: std::sync::LazyLock<qtl::DefsParser> = std::sync::LazyLock::new(qtl::DefsParser::new);

fn parse_defs(text: &str, decimals: u8, fixed: bool) -> Result<(Spec, u8), Diagnostic> {
    with_time_scale(decimals, fixed, |scale| {
        let arena = RefCell::new(Arena::new());
        let defs = DEFS
            .parse(&arena, scale, text)
            .map_err(|e| to_diagnostic(text, e))?;
        Ok(Spec {
            mfotl: false,
            defs,
            arena: arena.into_inner(),
        })
    })
}

/// Parses a single formula (for tests and the library API); its time
/// bounds are natural numbers, as with [`parse`].
#[cfg(any(test, feature = "internals"))]
pub fn parse_formula(text: &str) -> Result<(Arena, FormId), Diagnostic> {
    with_time_scale(0, true, |scale| {
        let arena = RefCell::new(Arena::new());
        let root = qtl::FormParser::new()
            .parse(&arena, scale, text)
            .map_err(|e| to_diagnostic(text, e))?;
        Ok((arena.into_inner(), root))
    })
    .map(|(parsed, _)| parsed)
}

type LalrError<'t> = ParseError<usize, qtl::Token<'t>, SyntaxIssue>;

/// The parser's error as a diagnostic, with a hint when another language's
/// spelling caused it (see [`hints`](super::hints)).
fn to_diagnostic(text: &str, err: LalrError<'_>) -> Diagnostic {
    // The grammar's own errors (a time bound out of range) have no hint, nor
    // has the end of the text.
    let own = matches!(
        err,
        ParseError::User { .. } | ParseError::UnrecognizedEof { .. }
    );
    let d = lalrpop_diagnostic(text, err);
    if own {
        return d;
    }
    match super::hints::for_error(text, d.span.start, d.span.end) {
        Some(hint) => d.with_hint(hint),
        None => d,
    }
}

fn lalrpop_diagnostic(text: &str, err: LalrError<'_>) -> Diagnostic {
    // `/*` without its `*/` lexes as `/` and `*` (operators of terms): the
    // error then comes at or after it.
    let at = match &err {
        ParseError::UnrecognizedToken { token: (l, ..), .. }
        | ParseError::ExtraToken { token: (l, ..) } => Some(*l),
        ParseError::UnrecognizedEof { location, .. } => Some(*location),
        _ => None,
    };
    if let Some(at) = at
        && let Some(open) = text.rfind("/*")
        && open <= at
        && !text[open..].contains("*/")
    {
        return Diagnostic::error(
            Span::new(open, open + 2),
            "this comment is never closed: `/*` needs a matching `*/`",
        );
    }
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
            "DEC" => "a decimal number".to_string(),
            "LTNEG" => "`<`".to_string(),
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
