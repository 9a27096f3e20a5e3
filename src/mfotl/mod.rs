//! The MFOTL front end: MonPoly's past-time fragment, read as it is and
//! translated to QTL's AST, then checked and compiled as any QTL
//! specification (docs/MFOTL.md).
//!
//! - `lex`: MonPoly's tokens, comments and time units;
//! - `sig`: signature files (`name(attr:type, ...)`);
//! - `parse`: formulas, with MonPoly's precedences, checked against the
//!   signature (predicates, arities, constants' types).
//!
//! MonPoly reports where a formula is *satisfied* (users write the violation
//! pattern), or with `-negate` where it is violated. Both become one QTL
//! property whose violations are exactly those points: with the formula φ
//! and its free variables x1..xn, `Forall x1 . ... Forall xn . !φ` by
//! default and `Forall x1 . ... Forall xn . φ` with `--negate`. Outside the
//! fragment (future operators, aggregations, `LET`, regular expressions,
//! arithmetic) is an error naming the construct and its place.

mod binders;
mod rename;
mod terms;
mod types;
internal! {
    lex;
    parse;
    sig;
    typing;
    values;
}

pub use sig::{Predicate, Type};
pub use typing::{Misfit, Typing};

use std::collections::{HashMap, HashSet};

use crate::syntax::show;
use crate::syntax::{
    Def, Diagnostic, EventDecl, Form, FormId, Ident, Quant, Spec, SpecError, Warnings,
};

/// An error in the formula or in the signature file.
#[derive(Clone, Debug)]
pub enum MfotlError {
    /// In the formula file.
    Formula(Diagnostic),
    /// In the signature file.
    Signature(Diagnostic),
    /// Well-formedness errors of the translation, placed in the formula file.
    Checks(SpecError),
}

impl std::fmt::Display for MfotlError {
    /// The message of the (first) error, and where it is.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MfotlError::Formula(d) => write!(f, "in the formula: {}", d.message),
            MfotlError::Signature(d) => write!(f, "in the signature: {}", d.message),
            MfotlError::Checks(e) => write!(f, "in the formula: {e}"),
        }
    }
}

impl std::error::Error for MfotlError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MfotlError::Checks(e) => Some(e),
            _ => None,
        }
    }
}

/// What the QTL property stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// MonPoly's default: the formula is a pattern; the points (and tuples)
    /// where it holds are reported.
    Satisfactions,
    /// `--negate`: the formula is the property; its violations are reported.
    Violations,
}

/// A formula translated to QTL.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The specification: the used predicates' declarations and one property.
    pub spec: Spec,
    /// The formula's free variables, in MonPoly's order (see
    /// [`Arena::free_vars_monpoly`](crate::syntax::ast::Arena::free_vars_monpoly)):
    /// the outermost quantifiers of the property.
    pub free: Vec<String>,
    /// The specification as QTL text (what `compile --show-qtl` prints).
    pub qtl: String,
    /// The signature.
    pub signature: Vec<sig::Predicate>,
    /// The predicates the formula uses (indices into `signature`).
    pub used: Vec<usize>,
    /// The type of each named variable (a variable compared only with
    /// variables of unknown type is a string).
    pub var_types: std::collections::HashMap<String, sig::Type>,
}

impl Translation {
    /// The types of the free variables, in the order of `free`.
    pub fn free_types(&self) -> Vec<sig::Type> {
        self.free
            .iter()
            .map(|v| self.var_types.get(v).copied().unwrap_or(sig::Type::Str))
            .collect()
    }
}

/// Translates the MFOTL `formula` with the signature `signature` to a QTL
/// property named `name`.
///
/// ```
/// use hindsight::mfotl::{Reading, translate};
/// let t = translate(
///     "FORALL f . close(f) IMPLIES ONCE[0,5] open(f)",
///     "open(f:string) close(f:string)",
///     "files",
///     Reading::Violations,
/// )
/// .expect("in the fragment");
/// assert!(t.qtl.contains("prop files : Forall f . (close(f) -> P[<=5] open(f))"));
/// ```
pub fn translate(
    formula: &str,
    signature: &str,
    name: &str,
    reading: Reading,
) -> Result<Translation, MfotlError> {
    let sig = sig::parse_signature(signature).map_err(MfotlError::Signature)?;
    let toks = lex::tokens(formula).map_err(MfotlError::Formula)?;
    let mut parser = parse::Parser::new(toks, formula.len(), &sig);
    let phi = parser.formula().map_err(MfotlError::Formula)?;
    let used = std::mem::take(&mut parser.used);
    let var_types: std::collections::HashMap<String, sig::Type> =
        std::mem::take(&mut parser.var_types)
            .into_iter()
            .map(|(v, (ty, _))| (v, ty))
            .collect();
    let mut arena = std::mem::take(&mut parser.arena);
    // MonPoly's order: the columns of the satisfactions.
    let free = arena.free_vars_monpoly(phi);
    let names: Vec<String> = free.iter().map(|v| v.name.clone()).collect();
    let (phi, renamed) = rename::unshadow(&mut arena, phi, &names);
    let mut var_types: std::collections::HashMap<String, sig::Type> = var_types;
    for (new, old) in renamed {
        if let Some(&ty) = var_types.get(&old) {
            var_types.insert(new, ty);
        }
    }
    let span = arena.span(phi);
    let mut body = match reading {
        Reading::Violations => phi,
        Reading::Satisfactions => arena.push(Form::Not(phi), span),
    };
    for v in free.iter().rev() {
        body = arena.push(Form::Quant(Quant::Forall, v.clone(), body), span);
    }
    let decls: Vec<EventDecl> = used
        .iter()
        .map(|&(p, at)| EventDecl {
            name: Ident {
                name: sig[p].name.clone(),
                span: at,
            },
            params: sig[p]
                .params
                .iter()
                .map(|(a, _)| Ident {
                    name: a.clone(),
                    span: at,
                })
                .collect(),
        })
        .collect();
    let prop = Ident {
        name: name.to_string(),
        span,
    };
    let mut qtl = String::new();
    if !decls.is_empty() {
        let shown: Vec<String> = decls
            .iter()
            .map(|d| {
                let ps: Vec<String> = plain_names(d.params.iter().map(|p| p.name.as_str()));
                format!("{}({})", show::event_name(&d.name.name), ps.join(", "))
            })
            .collect();
        qtl.push_str(&format!("pred {}\n", shown.join(", ")));
    }
    let renamed = plain_renaming(&arena);
    qtl.push_str(&format!(
        "prop {name} : {}\n",
        arena.show_renamed(body, &renamed)
    ));
    let spec = Spec {
        mfotl: true,
        defs: vec![
            Def::Events(decls),
            Def::Prop {
                name: prop,
                body,
                rules: Vec::new(),
            },
        ],
        arena,
    };
    Ok(Translation {
        spec,
        free: free.into_iter().map(|v| v.name).collect(),
        qtl,
        used: used.iter().map(|&(p, _)| p).collect(),
        signature: sig,
        var_types,
    })
}

internal_item! {
    /// Translates and compiles: the monitor plan, the translation, and the
    /// checker's warnings (placed in the formula file).
    pub fn compile(
        formula: &str,
        signature: &str,
        name: &str,
        reading: Reading,
    ) -> Result<(crate::plan::Plan, Translation, Warnings), MfotlError> {
        let t = translate(formula, signature, name, reading)?;
        let checks = |e| MfotlError::Checks(SpecError::from(e));
        let checked = crate::check::check(t.spec.clone()).map_err(checks)?;
        let mut plan = crate::plan::compile(&checked).map_err(|d| checks(vec![d]))?;
        // Strings order as text, also those that look like numbers; ints and
        // floats compute as their types say.
        for var in plan.props.iter_mut().flat_map(|p| &mut p.vars) {
            let ty = t.var_types.get(&var.name);
            var.text_order = ty == Some(&sig::Type::Str);
            var.compare_later = true;
            var.numeric = match ty {
                Some(sig::Type::Int) => crate::plan::Numeric::Int,
                Some(sig::Type::Float) => crate::plan::Numeric::Float,
                _ => crate::plan::Numeric::Text,
            };
        }
        Ok((plan, t, checked.warnings))
    }
}

/// A property name made of the letters, digits and `_` of `stem` (a file
/// name without its extension), starting with a letter.
pub fn property_name(stem: &str) -> String {
    let name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        _ => format!("mfotl{name}"),
    }
}

/// `names` as QTL reads them: a keyword (`P`, `where`) becomes a fresh name,
/// `P_` (or `P__`, ... if that is taken).
fn plain_names<'n>(names: impl Iterator<Item = &'n str> + Clone) -> Vec<String> {
    let taken: HashSet<&str> = names.clone().collect();
    let mut given: HashSet<String> = HashSet::new();
    names
        .map(|n| {
            if show::is_plain_name(n) {
                return n.to_string();
            }
            let mut fresh = format!("{n}_");
            while taken.contains(fresh.as_str()) || given.contains(&fresh) {
                fresh.push('_');
            }
            given.insert(fresh.clone());
            fresh
        })
        .collect()
}

/// The variables of the formulas of `arena` that QTL does not read as names,
/// each with the fresh name the QTL text gives it (see [`plain_names`]).
fn plain_renaming(arena: &crate::syntax::Arena) -> HashMap<String, String> {
    let mut vars: Vec<&str> = Vec::new();
    for i in 0..arena.len() {
        let id = FormId(u32::try_from(i).unwrap_or(u32::MAX));
        let form = arena.form(id);
        vars.extend(form.used_vars().into_iter().map(|v| v.name.as_str()));
        match form {
            Form::Quant(_, v, _) => vars.push(&v.name),
            Form::Agg(g, _) => vars.push(&g.of.name),
            Form::Let(d, ..) => vars.extend(d.params.iter().map(|p| p.name.as_str())),
            _ => {}
        }
    }
    vars.sort_unstable();
    vars.dedup();
    let plain = plain_names(vars.iter().copied());
    vars.iter()
        .zip(plain)
        .filter(|(v, p)| **v != p.as_str())
        .map(|(v, p)| (v.to_string(), p))
        .collect()
}

#[cfg(test)]
mod tests;
