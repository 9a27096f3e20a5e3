//! MonPoly's aggregations and `LET`.
//!
//! - `y <- OP x; g1, ..., gk φ` (without `; ...` for no group variables):
//!   the operand φ extends as far to the right as possible, as in MonPoly
//!   (write `(y <- CNT x φ) AND y > 3` for a condition on the result). Its
//!   result is an int for `CNT`, a float for `AVG` and `MED`, and of `x`'s
//!   type for `SUM`, `MIN` and `MAX` (`x` must be a number for `SUM`,
//!   `AVG` and `MED`).
//! - `LET p(x1, ..., xn) = φ IN ψ`: in ψ, `p(t1, ..., tn)` is φ with the
//!   terms for the parameters; φ's free variables are exactly the
//!   parameters, and `p` may hide a predicate of the signature.

use std::collections::HashMap;

use super::lex::Tok;
use super::parse::{Parsed, Parser};
use super::sig::Type;
use crate::syntax::{AggOp, Aggregation, Diagnostic, Form, FormId, Ident, LetDef, Span};

/// A `LET` in scope: its name and its parameters' types (`None`: not known
/// from the definition).
#[derive(Clone, Debug)]
pub(crate) struct LetScope {
    /// The name defined.
    pub name: String,
    /// Its parameters' types.
    pub types: Vec<Option<Type>>,
}

impl Parser<'_> {
    /// A variable name (the current token).
    fn variable(&mut self) -> Parsed<Ident> {
        match self.peek().cloned() {
            Some(Tok::Ident(name)) => {
                let span = self.span();
                self.pos += 1;
                Ok(Ident { name, span })
            }
            _ => Err(self.expected("a variable")),
        }
    }

    /// `y <- OP x; g1, ..., gk φ`, at its first token.
    pub(super) fn aggregation(&mut self, start: usize) -> Parsed<FormId> {
        let y = self.variable()?;
        self.expect("<-")?;
        let op = match self.peek() {
            Some(Tok::Keyword(k)) if AggOp::from_keyword(k).is_some() => {
                AggOp::from_keyword(k).unwrap_or(AggOp::Cnt)
            }
            _ => return Err(self.expected("an aggregation (CNT, SUM, MIN, MAX, AVG or MED)")),
        };
        self.pos += 1;
        let x = self.variable()?;
        let mut group = Vec::new();
        if self.eat(";") {
            while let Some(Tok::Ident(_)) = self.peek() {
                group.push(self.variable()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        let body = self.expr(0)?;
        let free = self.arena.free_vars(body);
        if free.iter().any(|v| v.name == y.name) && !group.iter().any(|g| g.name == y.name) {
            return Err(Diagnostic::error(
                y.span,
                format!(
                    "the result variable `{}` also occurs in the aggregated formula; give one of them another name",
                    y.name
                ),
            ));
        }
        self.type_aggregation(op, &y, &x)?;
        let g = Aggregation {
            op,
            result: y,
            of: x,
            group,
        };
        Ok(self.mk(Form::Agg(Box::new(g), body), start))
    }

    /// The types of an aggregation's result `y` and aggregated variable `x`.
    fn type_aggregation(&mut self, op: AggOp, y: &Ident, x: &Ident) -> Parsed<()> {
        let known = self.var_types.get(&x.name).map(|&(t, _)| t);
        if matches!(op, AggOp::Sum | AggOp::Avg | AggOp::Med) {
            match known {
                Some(Type::Str) => {
                    return Err(Diagnostic::error(
                        x.span,
                        format!(
                            "`{}` takes numbers, but `{}` is a string",
                            op.keyword(),
                            x.name
                        ),
                    ));
                }
                Some(_) => {}
                None => self.numeric.push(x.clone()),
            }
        }
        match op {
            AggOp::Cnt => self.typed_var(y, Type::Int),
            AggOp::Avg | AggOp::Med => self.typed_var(y, Type::Float),
            AggOp::Sum | AggOp::Min | AggOp::Max => match known {
                Some(t) => self.typed_var(y, t),
                None => {
                    self.pending.push((x.clone(), y.clone()));
                    Ok(())
                }
            },
        }
    }

    /// `LET p(x1, ..., xn) = φ IN ψ`, at `LET`.
    pub(super) fn let_in(&mut self, start: usize) -> Parsed<FormId> {
        self.pos += 1;
        let name = self.variable()?;
        let mut params = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                params.push(self.variable()?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.expected("`,` or `)`"));
                }
            }
        }
        self.expect("=")?;
        // The parameters are variables of the definition only.
        let outer: HashMap<String, _> = params
            .iter()
            .filter_map(|p| self.var_types.remove(&p.name).map(|t| (p.name.clone(), t)))
            .collect();
        let def = self.expr(0)?;
        if !matches!(self.peek(), Some(Tok::Keyword("IN"))) {
            return Err(self.expected("`IN` after the definition of the `LET`"));
        }
        self.pos += 1;
        let types: Vec<Option<Type>> = params
            .iter()
            .map(|p| self.var_types.get(&p.name).map(|&(t, _)| t))
            .collect();
        let free = self.arena.free_vars(def);
        let stray: Vec<&Ident> = free
            .iter()
            .filter(|v| !params.iter().any(|p| p.name == v.name))
            .collect();
        if let Some(v) = stray.first() {
            return Err(Diagnostic::error(
                v.span,
                format!(
                    "variable `{}` is free in the definition of `{}` but is not one of its parameters (the free variables of the definition must be its parameters)",
                    v.name, name.name
                ),
            ));
        }
        for p in &params {
            self.var_types.remove(&p.name);
            if !free.iter().any(|v| v.name == p.name) {
                return Err(Diagnostic::error(
                    p.span,
                    format!(
                        "parameter `{}` of `{}` does not occur free in its definition",
                        p.name, name.name
                    ),
                ));
            }
        }
        self.var_types.extend(outer);
        self.lets.push(LetScope {
            name: name.name.clone(),
            types,
        });
        let body = self.expr(0);
        self.lets.pop();
        let body = body?;
        let d = LetDef { name, params };
        Ok(self.mk(Form::Let(Box::new(d), def, body), start))
    }

    /// A call of the `k`th `LET` in scope (its name read, `(` next).
    pub(super) fn let_call(&mut self, k: usize, name: String, span: Span) -> Parsed<FormId> {
        let types = self.lets[k].types.clone();
        self.call(name, span, &types, "`LET`", "in its definition")
    }
}
