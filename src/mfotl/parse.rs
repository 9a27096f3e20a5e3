//! A recursive-descent parser for MonPoly formulas, building QTL's AST.
//!
//! Precedence follows MonPoly's grammar (loosest first): `SINCE` and
//! `UNTIL` (right-associative), the prefix temporal operators `PREVIOUS NEXT
//! ONCE EVENTUALLY PAST_ALWAYS ALWAYS`, the quantifiers `EXISTS FORALL`, `EQUIV`, `IMPLIES`
//! (right-associative), `OR`, `AND`, then `NOT`, which binds tightest. A prefix
//! operator's operand extends over every operator that binds tighter than
//! itself: `ONCE p AND q` is `ONCE (p AND q)`, `NOT p SINCE q` is
//! `(NOT p) SINCE q`, `EXISTS x . p IMPLIES q` is `EXISTS x . (p IMPLIES q)`.

use std::collections::HashMap;

use super::lex::Tok;
use super::sig::{Predicate, Type};
use crate::syntax::{Arena, BinOp, Const, Diagnostic, Form, FormId, Ident, Quant, RelOp, Span};
use crate::syntax::{Term, TimeBound};

const SINCE: u8 = 1;
const TEMPORAL: u8 = 2;
const QUANT: u8 = 3;
const NOT: u8 = 8;

/// The parser's state.
pub struct Parser<'a> {
    pub(super) toks: Vec<(Tok, Span)>,
    pub(super) pos: usize,
    end: usize,
    /// The formula nodes built.
    pub arena: Arena,
    sig: &'a [Predicate],
    /// The predicates used, in order of first use, with that use's place.
    pub used: Vec<(usize, Span)>,
    /// The type of each named variable, with the place that fixed it.
    pub var_types: HashMap<String, (Type, Span)>,
    /// Comparisons of two variables of types not known when they were read.
    pub(super) pending: Vec<(Ident, Ident)>,
    /// Variables of arithmetic (numbers) whose type was not known when read.
    pub(super) numeric: Vec<Ident>,
    /// The types of the number and string constants of terms, by place.
    pub(super) const_types: HashMap<Span, Type>,
    /// The `LET` definitions in scope, innermost last.
    pub(super) lets: Vec<super::binders::LetScope>,
    pub(super) fresh: usize,
}

pub(super) type Parsed<T> = Result<T, Diagnostic>;

/// The interval of a temporal operator.
#[derive(Clone, Copy, Debug)]
enum Interval {
    /// None written (or `[0,*)`): any time.
    Any,
    /// The ages within these bounds.
    Within(TimeBound),
    /// An open interval between two consecutive numbers, `(2,3)`: no age.
    Empty,
}

impl Interval {
    /// As the optional bound of QTL's `P` and `H` (not for [`Interval::Empty`]).
    fn bound(self) -> Option<TimeBound> {
        match self {
            Interval::Within(t) => Some(t),
            _ => None,
        }
    }
}

fn outside(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "{what} is outside the fragment of MFOTL that hindsight reads (NOT AND OR IMPLIES EQUIV, EXISTS FORALL, PREVIOUS NEXT ONCE EVENTUALLY PAST_ALWAYS ALWAYS SINCE UNTIL with intervals, comparisons, arithmetic, aggregations and LET)"
        ),
    )
}

/// The error of a future operator `name` (at `span`) whose interval has no
/// finite upper bound, as MonPoly refuses it.
fn bounded_future(name: &str, bound: Interval, span: Span) -> Parsed<()> {
    match bound {
        Interval::Empty => return Ok(()),
        Interval::Within(t) if t.hi.is_some() => return Ok(()),
        _ => {}
    }
    Err(Diagnostic::error(
        span,
        format!(
            "the future operator `{name}` needs an interval with a finite upper bound (as `{name}[0,10]`): whether it holds at a time-point could only be known at the end of the log, so MFOTL formulas with unbounded future operators are not monitorable"
        ),
    ))
}

impl<'a> Parser<'a> {
    /// A parser of the tokens of a formula of `len` bytes.
    pub fn new(toks: Vec<(Tok, Span)>, len: usize, sig: &'a [Predicate]) -> Parser<'a> {
        Parser {
            toks,
            pos: 0,
            end: len,
            arena: Arena::new(),
            sig,
            used: Vec::new(),
            var_types: HashMap::new(),
            pending: Vec::new(),
            numeric: Vec::new(),
            const_types: HashMap::new(),
            lets: Vec::new(),
            fresh: 0,
        }
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|(t, _)| t)
    }

    pub(super) fn span(&self) -> Span {
        self.toks
            .get(self.pos)
            .map_or(Span::new(self.end, self.end), |(_, s)| *s)
    }

    pub(super) fn last_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|p| self.toks.get(p))
            .map_or(0, |(_, s)| s.end)
    }

    pub(super) fn expected(&self, what: &str) -> Diagnostic {
        match self.peek() {
            Some(t) => Diagnostic::error(
                self.span(),
                format!("expected {what}, found {}", t.describe()),
            ),
            None => Diagnostic::error(
                self.span(),
                format!("expected {what}, found the end of the formula"),
            ),
        }
    }

    pub(super) fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, p: &str) -> Parsed<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{p}`")))
        }
    }

    pub(super) fn mk(&mut self, form: Form, start: usize) -> FormId {
        let end = self.last_end();
        self.arena.push(form, Span::new(start, end.max(start)))
    }

    /// The whole formula.
    pub fn formula(&mut self) -> Parsed<FormId> {
        let f = self.expr(0)?;
        self.resolve_pending()?;
        match self.peek() {
            None => Ok(f),
            Some(t) => Err(Diagnostic::error(
                self.span(),
                format!("unexpected {} after a complete formula", t.describe()),
            )),
        }
    }

    pub(super) fn expr(&mut self, min: u8) -> Parsed<FormId> {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.expr_inner(min))
    }

    fn expr_inner(&mut self, min: u8) -> Parsed<FormId> {
        let start = self.span().start;
        let mut lhs = self.prefix()?;
        loop {
            let (level, right, op) = match self.peek() {
                Some(Tok::Keyword("SINCE")) => (SINCE, true, None),
                Some(Tok::Keyword("UNTIL")) => (SINCE, true, None),
                Some(Tok::Keyword("EQUIV")) => (4, false, Some(BinOp::Iff)),
                Some(Tok::Keyword("IMPLIES")) => (5, true, Some(BinOp::Implies)),
                Some(Tok::Keyword("OR")) => (6, false, Some(BinOp::Or)),
                Some(Tok::Keyword("AND")) => (7, false, Some(BinOp::And)),
                _ => break,
            };
            if level < min {
                break;
            }
            let until = matches!(self.peek(), Some(Tok::Keyword("UNTIL")));
            let op_span = self.span();
            self.pos += 1;
            let bound = if op.is_none() {
                self.interval()?
            } else {
                Interval::Any
            };
            if until {
                bounded_future("UNTIL", bound, op_span)?;
            }
            let rhs = self.expr(if right { level } else { level + 1 })?;
            let form = match (op, bound) {
                (Some(op), _) => Form::Bin(op, lhs, rhs),
                // No time stamp difference is in the interval: never.
                (None, Interval::Empty) => {
                    let both = self.mk(Form::Bin(BinOp::And, lhs, rhs), start);
                    self.never(both)
                }
                (None, b) if until => Form::Until(b.bound(), lhs, rhs),
                (None, b) => Form::Since(b.bound(), lhs, rhs),
            };
            lhs = self.mk(form, start);
        }
        Ok(lhs)
    }

    /// A formula that never holds in place of `f`: `false`, or `false & f`
    /// when `f` has free variables (they stay free, as in MonPoly: an
    /// aggregation may count over them).
    fn never(&mut self, f: FormId) -> Form {
        if self.arena.free_vars(f).is_empty() {
            Form::False
        } else {
            let span = self.arena.span(f);
            let no = self.arena.push(Form::False, span);
            Form::Bin(BinOp::And, no, f)
        }
    }

    fn prefix(&mut self) -> Parsed<FormId> {
        let span = self.span();
        let start = span.start;
        let Some(tok) = self.peek().cloned() else {
            return Err(self.expected("a formula"));
        };
        match tok {
            Tok::Keyword("NOT") => {
                self.pos += 1;
                let a = self.expr(NOT + 1)?;
                Ok(self.mk(Form::Not(a), start))
            }
            Tok::Keyword(
                k @ ("PREVIOUS" | "ONCE" | "PAST_ALWAYS" | "NEXT" | "EVENTUALLY" | "ALWAYS"),
            ) => {
                self.pos += 1;
                let bound = self.interval()?;
                if matches!(k, "EVENTUALLY" | "ALWAYS") {
                    bounded_future(k, bound, span)?;
                }
                let a = self.expr(TEMPORAL + 1)?;
                let form = match (k, bound) {
                    // An interval with no natural number in it: PREVIOUS,
                    // NEXT, ONCE and EVENTUALLY never hold, PAST_ALWAYS
                    // and ALWAYS always do.
                    ("PAST_ALWAYS" | "ALWAYS", Interval::Empty) => Form::True,
                    (_, Interval::Empty) => self.never(a),
                    ("PREVIOUS", Interval::Within(t)) => Form::PrevIn(t, a),
                    ("PREVIOUS", Interval::Any) => Form::Prev(a),
                    ("ONCE", b) => Form::Once(b.bound(), a),
                    ("NEXT", b) => Form::Next(b.bound(), a),
                    ("EVENTUALLY", b) => Form::Eventually(b.bound(), a),
                    ("ALWAYS", b) => Form::Always(b.bound(), a),
                    (_, b) => Form::Hist(b.bound(), a),
                };
                Ok(self.mk(form, start))
            }
            Tok::Keyword(k @ ("EXISTS" | "FORALL")) => {
                self.pos += 1;
                let mut vars = Vec::new();
                loop {
                    match self.peek() {
                        Some(Tok::Ident(v)) => {
                            vars.push(Ident {
                                name: v.clone(),
                                span: self.span(),
                            });
                            self.pos += 1;
                        }
                        _ => return Err(self.expected("a variable")),
                    }
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect(".")?;
                let mut body = self.expr(QUANT + 1)?;
                let q = if k == "EXISTS" {
                    Quant::Exists
                } else {
                    Quant::Forall
                };
                for v in vars.into_iter().rev() {
                    body = self.mk(Form::Quant(q, v, body), start);
                }
                Ok(body)
            }
            Tok::Keyword("TRUE") => {
                self.pos += 1;
                Ok(self.mk(Form::True, start))
            }
            Tok::Keyword("FALSE") => {
                self.pos += 1;
                Ok(self.mk(Form::False, start))
            }
            Tok::Keyword("LET") => self.let_in(start),
            Tok::Keyword("LETPAST") => Err(outside(span, "`LETPAST`")),
            Tok::Keyword(k @ ("CNT" | "MIN" | "MAX" | "SUM" | "AVG" | "MED")) => {
                Err(Diagnostic::error(
                    span,
                    format!("`{k}` needs a result variable: write `y <- {k} x; g1, ..., gk φ`"),
                ))
            }
            Tok::Keyword(k @ ("MATCHF" | "MATCHP")) | Tok::Punct(k @ ("|>" | "<|")) => Err(
                outside(span, &format!("the regular expression operator `{k}`")),
            ),
            Tok::Punct("(") => {
                let at = self.pos;
                self.pos += 1;
                let formula = self.expr(0).and_then(|f| self.expect(")").map(|()| f));
                match formula {
                    Ok(f) => Ok(f),
                    // A term in parentheses: `(x + 1) * 2 > y`.
                    Err(e) => {
                        let after = self.pos;
                        self.pos = at;
                        self.comparison().map_err(|_| {
                            self.pos = after;
                            e
                        })
                    }
                }
            }
            Tok::Ident(name) if matches!(self.peek_at(1), Some(Tok::Punct("("))) => {
                self.predicate(name, span)
            }
            Tok::Ident(_) if matches!(self.peek_at(1), Some(Tok::Punct("<-"))) => {
                self.aggregation(start)
            }
            _ => self.comparison(),
        }
    }

    /// An optional interval after a temporal operator: `[` or `(`, a number
    /// (with an optional unit), `,`, a number or `*`, then `]` or `)`.
    fn interval(&mut self) -> Parsed<Interval> {
        let lo_open = match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Punct("[")), _) => false,
            (Some(Tok::Punct("(")), Some(Tok::Int(_) | Tok::Unit(..))) => true,
            _ => return Ok(Interval::Any),
        };
        let start = self.span().start;
        self.pos += 1;
        let lo = self.duration()?;
        self.expect(",")?;
        let hi = if self.eat("*") {
            None
        } else {
            Some(self.duration()?)
        };
        let hi_open = if self.eat(")") {
            true
        } else if self.eat("]") {
            false
        } else {
            return Err(self.expected("`]` or `)` closing the interval"));
        };
        // `(a,a+1)`: MonPoly takes it (it is not empty over the reals), and
        // no time stamp difference, a whole number, is in it.
        if lo_open && hi_open && hi == lo.checked_add(1) {
            return Ok(Interval::Empty);
        }
        TimeBound::within(lo, lo_open, hi, hi_open).map(Interval::Within).ok_or_else(|| {
            Diagnostic::error(
                Span::new(start, self.last_end()),
                "this interval contains no natural number (write its ends as lower,upper with lower <= upper)",
            )
        })
    }

    /// A natural number, possibly with a unit (`s`, `m`, `h`, `d`: in seconds).
    fn duration(&mut self) -> Parsed<u64> {
        let span = self.span();
        let (digits, factor) = match self.peek() {
            Some(Tok::Int(n)) => (n.clone(), 1),
            Some(Tok::Unit(n, u)) => {
                let factor = match u {
                    's' => 1,
                    'm' => 60,
                    'h' => 3600,
                    'd' => 86400,
                    _ => {
                        return Err(Diagnostic::error(
                            span,
                            format!("unknown time unit `{u}`: the units are s, m, h and d"),
                        ));
                    }
                };
                (n.clone(), factor)
            }
            _ => return Err(self.expected("a time bound (a natural number)")),
        };
        self.pos += 1;
        digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(factor))
            .ok_or_else(|| {
                Diagnostic::error(
                    span,
                    format!("a time bound must be a natural number below 2^64, not `{digits}`"),
                )
            })
    }

    fn predicate(&mut self, name: String, span: Span) -> Parsed<FormId> {
        if let Some(k) = self.lets.iter().rposition(|l| l.name == name) {
            return self.let_call(k, name, span);
        }
        let Some(p) = self.sig.iter().position(|p| p.name == name) else {
            return Err(Diagnostic::error(
                span,
                format!("predicate `{name}` is not declared in the signature"),
            ));
        };
        if !self.used.iter().any(|&(q, _)| q == p) {
            self.used.push((p, span));
        }
        let types: Vec<Option<Type>> = self.sig[p].params.iter().map(|(_, t)| Some(*t)).collect();
        self.call(name, span, &types, "predicate", "in the signature")
    }

    /// The call `name(args)` (the name read, `(` next) of something with
    /// arguments of types `types` (`None`: any): a predicate, or a `LET`.
    pub(super) fn call(
        &mut self,
        name: String,
        span: Span,
        types: &[Option<Type>],
        what: &str,
        where_: &str,
    ) -> Parsed<FormId> {
        let start = span.start;
        self.pos += 2;
        let mut args = Vec::new();
        let mut anonymous = Vec::new();
        if !self.eat(")") {
            loop {
                let arg_span = self.span();
                let ty = types.get(args.len()).copied().flatten();
                let term = if self.eat("_") {
                    self.fresh += 1;
                    let v = Ident {
                        name: format!("_{}", self.fresh),
                        span: arg_span,
                    };
                    anonymous.push(v.clone());
                    Term::Var(v)
                } else {
                    self.term()?
                };
                let mut term = term;
                if let Some(ty) = ty {
                    self.check_type(&mut term, ty)?;
                }
                args.push(term);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        let arity = types.len();
        if args.len() != arity {
            return Err(Diagnostic::error(
                Span::new(start, self.last_end()),
                format!(
                    "{what} `{name}` has {arity} argument{} {where_}, not {}",
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let ident = Ident { name, span };
        let mut f = self.mk(Form::Call { name: ident, args }, start);
        // `_` is a fresh variable, existentially quantified at the predicate.
        for v in anonymous.into_iter().rev() {
            f = self.mk(Form::Quant(Quant::Exists, v, f), start);
        }
        Ok(f)
    }

    fn term(&mut self) -> Parsed<Term> {
        let span = self.span();
        let term = match self.peek() {
            Some(Tok::Ident(v)) => Term::Var(Ident {
                name: v.clone(),
                span,
            }),
            Some(Tok::Int(n) | Tok::Float(n)) => Term::Const(Const {
                text: n.clone(),
                span,
            }),
            Some(Tok::Str(s)) => Term::Const(Const {
                text: s.clone(),
                span,
            }),
            _ => return Err(self.expected("a variable or a constant")),
        };
        self.pos += 1;
        if let Some(Tok::Punct(op @ ("+" | "-" | "*" | "/"))) | Some(Tok::Keyword(op @ "MOD")) =
            self.peek()
        {
            return Err(Diagnostic::error(
                self.span(),
                format!(
                    "arithmetic (`{op}`) in an argument of a predicate is not monitorable (as in MonPoly): bind a variable and compute with it, as in `p(y) AND x = y {op} 1`"
                ),
            ));
        }
        Ok(term)
    }

    fn comparison(&mut self) -> Parsed<FormId> {
        let start = self.span().start;
        if !matches!(
            self.peek(),
            Some(Tok::Ident(_) | Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Punct("-" | "("))
        ) {
            return Err(self.expected("a formula"));
        }
        let left = self.expr_term()?;
        let op_span = self.span();
        let op = match self.peek() {
            Some(Tok::Punct("=")) => RelOp::Eq,
            Some(Tok::Punct("<")) => RelOp::Lt,
            Some(Tok::Punct("<=")) => RelOp::Le,
            Some(Tok::Punct(">")) => RelOp::Gt,
            Some(Tok::Punct(">=")) => RelOp::Ge,
            Some(Tok::Keyword(k @ ("SUBSTRING" | "MATCHES"))) => {
                return Err(outside(op_span, &format!("`{k}`")));
            }
            _ => {
                return Err(self.expected(
                    "a comparison (`=`, `<`, `<=`, `>`, `>=`) or `(` after a predicate name",
                ));
            }
        };
        self.pos += 1;
        let right = self.expr_term()?;
        let (Some(mut l), Some(mut r)) = (left.as_term(), right.as_term()) else {
            self.type_arithmetic(&left, &right)?;
            return Ok(self.mk(Form::relate(op, left, right), start));
        };
        self.type_comparison(&mut l, &mut r)?;
        Ok(self.mk(Form::compare(op, l, r), start))
    }
}
