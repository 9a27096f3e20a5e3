//! The types of an MFOTL formula's terms, as MonPoly types them: a constant
//! has the type of its literal (a quoted string, an integer, a number with
//! a point or an exponent) and is written as the trace's values of that
//! type are kept ([`super::values`]); a variable has one type, from the
//! attributes where it is used or from what it is compared with.

use super::lex::Tok;
use super::parse::{Parsed, Parser};
use super::sig::Type;
use crate::syntax::{Const, Diagnostic, Ident, Term};

impl Parser<'_> {
    /// The type of the constant just read (the last token): a quoted
    /// string, an integer or a number with a point or an exponent.
    fn literal_type(&self) -> Type {
        match self.toks.get(self.pos.wrapping_sub(1)).map(|(t, _)| t) {
            Some(Tok::Int(_)) => Type::Int,
            Some(Tok::Float(_)) => Type::Float,
            _ => Type::Str,
        }
    }

    /// Checks that the constant `c` (the last token) is of type `ty`, and
    /// writes it as the trace's values of that type are kept (`007` is
    /// `7`, see [`super::values`]).
    fn typed_constant(&self, c: &mut Const, ty: Type) -> Parsed<()> {
        let mismatch = || {
            Diagnostic::error(
                c.span,
                format!(
                    "this constant is not of type {}, the type of that argument in the signature",
                    ty.name()
                ),
            )
        };
        if self.literal_type() != ty {
            return Err(mismatch());
        }
        let canonical = super::values::canonical(ty, c.text.as_bytes())
            .map_err(|_| mismatch())?
            .into_owned();
        c.text = String::from_utf8_lossy(&canonical).into_owned();
        Ok(())
    }

    /// Gives variable `v` the type `ty`, or checks that it has it.
    pub(super) fn typed_var(&mut self, v: &Ident, ty: Type) -> Parsed<()> {
        match self.var_types.get(&v.name) {
            Some(&(other, at)) if other != ty => Err(Diagnostic::error(
                v.span,
                format!(
                    "variable `{}` is of type {} here but of type {} elsewhere",
                    v.name,
                    ty.name(),
                    other.name()
                ),
            )
            .with_note(at, format!("of type {} here", other.name()))),
            Some(_) => Ok(()),
            None => {
                self.var_types.insert(v.name.clone(), (ty, v.span));
                Ok(())
            }
        }
    }

    pub(super) fn check_type(&mut self, term: &mut Term, ty: Type) -> Parsed<()> {
        match term {
            Term::Const(c) => self.typed_constant(c, ty),
            Term::Var(v) if !v.name.starts_with('_') => {
                let v = v.clone();
                self.typed_var(&v, ty)
            }
            Term::Var(_) => Ok(()),
        }
    }

    /// Types the two sides of a comparison (just read): a constant fixes
    /// the type of the variable it is compared with, and two variables have
    /// one type (fixed later when neither is known yet).
    pub(super) fn type_comparison(&mut self, left: &mut Term, right: &mut Term) -> Parsed<()> {
        let known = |p: &Self, t: &Term| match t {
            Term::Var(v) => p.var_types.get(&v.name).map(|&(ty, _)| ty),
            Term::Const(_) => None,
        };
        match (&mut *left, &mut *right) {
            (Term::Var(a), Term::Var(b)) => {
                let (a, b) = (a.clone(), b.clone());
                match (known(self, left), known(self, right)) {
                    (Some(ty), _) => self.typed_var(&b, ty),
                    (None, Some(ty)) => self.typed_var(&a, ty),
                    (None, None) => {
                        self.pending.push((a, b));
                        Ok(())
                    }
                }
            }
            (Term::Var(v), Term::Const(c)) | (Term::Const(c), Term::Var(v)) => {
                let ty = self.literal_type_of(c);
                let v = v.clone();
                self.typed_var(&v, ty)?;
                let canonical = super::values::canonical(ty, c.text.as_bytes())
                    .map(|t| String::from_utf8_lossy(&t).into_owned());
                if let Ok(text) = canonical {
                    c.text = text;
                }
                Ok(())
            }
            (Term::Const(_), Term::Const(_)) => Ok(()),
        }
    }

    /// The type of constant `c` by the token it was read from.
    pub(super) fn literal_type_of(&self, c: &Const) -> Type {
        match self.toks.iter().find(|(_, s)| *s == c.span).map(|(t, _)| t) {
            Some(Tok::Int(_)) => Type::Int,
            Some(Tok::Float(_)) => Type::Float,
            _ => Type::Str,
        }
    }

    /// Types the variables compared with each other only (`x = y` where
    /// neither had a type when read): from each other, until nothing
    /// changes; those left have no type from the signature and are strings.
    pub(super) fn resolve_pending(&mut self) -> Parsed<()> {
        loop {
            let mut changed = false;
            for (a, b) in std::mem::take(&mut self.pending) {
                let ta = self.var_types.get(&a.name).map(|&(t, _)| t);
                let tb = self.var_types.get(&b.name).map(|&(t, _)| t);
                match (ta, tb) {
                    (Some(t), _) => {
                        self.typed_var(&b, t)?;
                        changed = true;
                    }
                    (None, Some(t)) => {
                        self.typed_var(&a, t)?;
                        changed = true;
                    }
                    (None, None) => self.pending.push((a, b)),
                }
            }
            if !changed {
                break;
            }
        }
        // Variables of arithmetic that nothing types are floats, as in
        // MonPoly; the others strings.
        for v in std::mem::take(&mut self.numeric) {
            match self.var_types.get(&v.name) {
                Some(&(Type::Str, at)) => {
                    return Err(Diagnostic::error(
                        v.span,
                        format!("arithmetic takes numbers, but `{}` is a string", v.name),
                    )
                    .with_note(at, "a string here"));
                }
                Some(_) => {}
                None => {
                    self.typed_var(&v, Type::Float)?;
                    if !self.pending.is_empty() {
                        return self.resolve_pending();
                    }
                }
            }
        }
        for (a, b) in std::mem::take(&mut self.pending) {
            self.typed_var(&a, Type::Str)?;
            self.typed_var(&b, Type::Str)?;
        }
        Ok(())
    }
}
