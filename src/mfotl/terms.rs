//! MonPoly's arithmetic terms and comparisons, and their types.
//!
//! A term is a variable, a constant, `-t`, or `t op t` for `+ - * / MOD`;
//! `*`, `/` and `MOD` bind tighter than `+` and `-`, all left-associative,
//! unary minus tightest. A comparison `t1 op t2` has both sides of one type;
//! with arithmetic, a numeric one (int or float; `MOD` takes ints), as
//! MonPoly types them.

use super::lex::Tok;
use super::parse::{Parsed, Parser};
use super::sig::Type;
use crate::syntax::{ArithOp, Const, Diagnostic, Expr, Ident, Item, Span, Term};

impl Parser<'_> {
    /// A term with arithmetic.
    pub(super) fn expr_term(&mut self) -> Parsed<Expr> {
        let start = self.span().start;
        let mut left = self.product()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("+")) => ArithOp::Add,
                Some(Tok::Punct("-")) => ArithOp::Sub,
                // `x-1`: the lexer reads `-1` as a number.
                Some(Tok::Int(n) | Tok::Float(n)) if n.starts_with('-') => {
                    let (n, span) = (n[1..].to_string(), self.span());
                    let float = matches!(self.peek(), Some(Tok::Float(_)));
                    self.pos += 1;
                    let right = self.constant(n, Span::new(span.start + 1, span.end), float);
                    left = Expr::bin(ArithOp::Sub, left, right, Span::new(start, self.last_end()));
                    continue;
                }
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.product()?;
            left = Expr::bin(op, left, right, Span::new(start, self.last_end()));
        }
    }

    fn product(&mut self) -> Parsed<Expr> {
        let start = self.span().start;
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("*")) => ArithOp::Mul,
                Some(Tok::Punct("/")) => ArithOp::Div,
                Some(Tok::Keyword("MOD")) => ArithOp::Mod,
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.unary()?;
            left = Expr::bin(op, left, right, Span::new(start, self.last_end()));
        }
    }

    fn unary(&mut self) -> Parsed<Expr> {
        let start = self.span().start;
        if self.eat("-") {
            let a = self.unary()?;
            return Ok(Expr::neg(a, Span::new(start, self.last_end())));
        }
        if self.eat("(") {
            let e = self.expr_term()?;
            self.expect(")")?;
            return Ok(e);
        }
        let span = self.span();
        let term = match self.peek().cloned() {
            Some(Tok::Ident(f)) if matches!(self.peek_at(1), Some(Tok::Punct("("))) => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "the function `{f}` is outside the fragment of MFOTL that hindsight reads (MonPoly's conversion and date functions, f2i, i2f, YEAR, ..., are not read)"
                    ),
                ));
            }
            Some(Tok::Ident(v)) => Term::Var(Ident { name: v, span }),
            Some(Tok::Int(n)) => {
                self.pos += 1;
                return Ok(self.constant(n, span, false));
            }
            Some(Tok::Float(n)) => {
                self.pos += 1;
                return Ok(self.constant(n, span, true));
            }
            Some(Tok::Str(s)) => {
                self.const_types.insert(span, Type::Str);
                Term::Const(Const { text: s, span })
            }
            _ => return Err(self.expected("a variable or a constant")),
        };
        self.pos += 1;
        Ok(Expr::term(term))
    }

    /// A number constant of a term, written so that its text tells its
    /// type: an int in decimal, a float with a point or an exponent (`2.0`).
    fn constant(&mut self, n: String, span: Span, float: bool) -> Expr {
        let ty = if float { Type::Float } else { Type::Int };
        self.const_types.insert(span, ty);
        let text = if float {
            n.parse::<f64>().map_or(n, |x| format!("{x:?}"))
        } else {
            super::values::canonical(Type::Int, n.as_bytes())
                .map_or(n.clone(), |c| String::from_utf8_lossy(&c).into_owned())
        };
        Expr::term(Term::Const(Const { text, span }))
    }

    /// Types the two sides of a comparison with arithmetic (see the
    /// [module](self) docs): every variable and constant of both sides has
    /// one type, numeric.
    pub(super) fn type_arithmetic(&mut self, left: &Expr, right: &Expr) -> Parsed<()> {
        let items = left.items.iter().chain(&right.items);
        let int_only = items.clone().any(|i| *i == Item::Bin(ArithOp::Mod));
        let mut known: Option<(Type, Span)> = int_only.then_some((Type::Int, left.span));
        let mut vars: Vec<Ident> = Vec::new();
        for item in items {
            let (ty, at) = match item {
                Item::Var(v) => {
                    vars.push(v.clone());
                    match self.var_types.get(&v.name) {
                        Some(&(t, _)) => (t, v.span),
                        None => continue,
                    }
                }
                Item::Const(c) => match self.const_types.get(&c.span) {
                    Some(&t) => (t, c.span),
                    None => (self.literal_type_of(c), c.span),
                },
                _ => continue,
            };
            if ty == Type::Str {
                return Err(Diagnostic::error(
                    at,
                    "arithmetic takes numbers (ints or floats), not strings",
                ));
            }
            match known {
                Some((k, first)) if k != ty => {
                    return Err(Diagnostic::error(
                        at,
                        format!(
                            "this is {} but the term computes with {}s: MonPoly does not mix ints and floats (convert with a constant of the same type)",
                            article(ty),
                            k.name()
                        ),
                    )
                    .with_note(first, format!("{} here", article(k))));
                }
                _ => known = known.or(Some((ty, at))),
            }
        }
        match known {
            Some((ty, _)) => {
                for v in &vars {
                    self.typed_var(v, ty)?;
                }
            }
            None => {
                self.numeric.extend(vars.iter().cloned());
                for w in vars.windows(2) {
                    self.pending.push((w[0].clone(), w[1].clone()));
                }
            }
        }
        Ok(())
    }
}

fn article(t: Type) -> String {
    match t {
        Type::Int => "an int".into(),
        Type::Float => "a float".into(),
        Type::Str => "a string".into(),
    }
}
