//! Checking and macro expansion: turns a parsed [`Spec`]
//! into a [`Checked`] specification, or reports every well-formedness error
//! with its source place.
//!
//! After this stage every property formula and rule body is macro-free: a
//! [`Form::Call`](crate::syntax::Form::Call) names either an event or a rule of
//! the same property, every variable is bound, and no quantifier hides another.
//!
//! The stage runs in four steps, each linear in the size of the specification
//! (plus the size of the macro expansions) and free of deep recursion:
//!
//! 1. `defs`: name tables; duplicate and clashing names, repeated parameters,
//!    recursive macros;
//! 2. `scope`: free, hiding and unused variables, per definition;
//! 3. `expand`: macro expansion, name resolution of calls, arities, undeclared
//!    events, rules referenced outside `@` (also through macros);
//! 4. here: arity consistency of events across the whole specification, and
//!    the warnings.
//!
//! Calls are resolved as follows: a rule of the enclosing property if one has
//! that name, else a macro if one has that name, else an event. Quantified
//! variables of a macro body are renamed at every expansion to `name'n` (the
//! `'` cannot occur in an identifier), so they never capture anything.

mod defs;
mod expand;
mod range;
mod scope;

use std::collections::{BTreeMap, HashMap};

use crate::syntax::{Arena, Diagnostic, FormId, Ident, Rule, Span, Spec, Warnings};

use expand::{Ctx, Expander};
use scope::Owner;

/// A property after checking and macro expansion.
#[derive(Clone, Debug)]
pub struct Property {
    /// The property name.
    pub name: Ident,
    /// The statement, macro-free, closed.
    pub body: FormId,
    /// The rules, macro-free; each body's free variables are among its parameters.
    pub rules: Vec<Rule>,
}

/// A well-formed specification.
#[derive(Clone, Debug)]
pub struct Checked {
    /// All formula nodes: the parsed ones and those made by macro expansion.
    pub arena: Arena,
    /// The properties in source order.
    pub props: Vec<Property>,
    /// Every event name the properties use or the declarations name, with its arity.
    pub events: BTreeMap<String, usize>,
    /// Warnings (unused declarations and macros).
    pub warnings: Warnings,
}

/// Parses and checks a specification. A syntax error is returned as the only
/// diagnostic.
/// Time bounds are natural numbers (see [`check_source_timed`]).
pub fn check_source(text: &str) -> Result<Checked, Vec<Diagnostic>> {
    let spec = crate::syntax::parse(text).map_err(|d| vec![d])?;
    check(spec)
}

/// [`check_source`] with the time bounds in ticks of `10^-d` time units,
/// `d` at least `decimals` (see [`crate::syntax::parse_timed`]); also returns `d`.
pub fn check_source_timed(text: &str, decimals: u8) -> Result<(Checked, u8), Vec<Diagnostic>> {
    let (spec, decimals) = crate::syntax::parse_timed(text, decimals).map_err(|d| vec![d])?;
    check(spec).map(|checked| (checked, decimals))
}

/// Checks a parsed specification and expands its macros.
///
/// On failure the result holds every error found, sorted by position (the
/// warnings are left out: they are in [`Checked::warnings`] on success).
pub fn check(spec: Spec) -> Result<Checked, Vec<Diagnostic>> {
    let Spec {
        defs,
        mut arena,
        mfotl,
    } = spec;
    let mut diags = Vec::new();
    let mut table = defs::collect(&defs, &mut diags);

    for m in &table.macros {
        let owner = Owner::Macro(&m.name.name);
        scope::check(&arena, m.body, m.params, owner, &mut diags);
    }
    for p in &table.props {
        scope::check(&arena, p.body, &[], Owner::Prop(&p.name.name), &mut diags);
        for r in p.rules {
            scope::check(
                &arena,
                r.body,
                &r.params,
                Owner::Rule(&r.name.name),
                &mut diags,
            );
        }
    }
    defs::find_recursion(&mut table, &arena, &mut diags);

    let mut ex = Expander::new(&table, &mut arena, &mut diags);
    let mut props = Vec::with_capacity(table.props.len());
    for (pi, p) in table.props.iter().enumerate() {
        let body = ex.expand(
            p.body,
            Ctx {
                prop: Some(pi),
                rule: None,
            },
        );
        let rules = p
            .rules
            .iter()
            .map(|r| Rule {
                name: r.name.clone(),
                params: r.params.clone(),
                body: ex.expand(
                    r.body,
                    Ctx {
                        prop: Some(pi),
                        rule: Some(&r.name),
                    },
                ),
            })
            .collect();
        props.push(Property {
            name: p.name.clone(),
            body,
            rules,
        });
    }
    // Macro bodies no property expanded (unused, recursive or duplicate
    // definitions) are still checked once, on their own.
    for (mi, m) in table.macros.iter().enumerate() {
        if !ex.visited(mi) {
            ex.expand(
                m.body,
                Ctx {
                    prop: None,
                    rule: None,
                },
            );
        }
    }
    let out = ex.finish();
    if !diags.iter().any(Diagnostic::is_error) {
        for p in &mut props {
            range::arrange(&mut arena, p, mfotl, &mut diags);
        }
    }

    check_event_arities(&table, &out.uses, &mut diags);
    let mut warnings = Vec::new();
    for d in &table.decls {
        if !out.events.contains_key(d.name.name.as_str()) {
            warnings.push(Diagnostic::warning(
                d.name.span,
                format!(
                    "event `{}` is declared but no property uses it",
                    d.name.name
                ),
            ));
        }
    }
    for (mi, m) in table.macros.iter().enumerate() {
        if !out.macro_used[mi] {
            warnings.push(Diagnostic::warning(
                m.name.span,
                format!("macro `{}` is never used by any property", m.name.name),
            ));
        }
    }
    if table.props.is_empty() {
        // Likely the wrong file: say so, though the verdict is right.
        warnings.push(Diagnostic::warning(
            Span::default(),
            "the specification has no properties: every trace satisfies it",
        ));
    }
    sort_diagnostics(&mut warnings);
    let mut events = out.events;
    for d in &table.decls {
        events.entry(d.name.name.clone()).or_insert(d.params.len());
    }

    diags.retain(Diagnostic::is_error);
    if !diags.is_empty() {
        sort_diagnostics(&mut diags);
        return Err(diags);
    }
    Ok(Checked {
        arena,
        props,
        events,
        warnings: Warnings::new(warnings),
    })
}

/// Reports every use of an event whose number of arguments differs from its
/// declaration or, for undeclared events, from its first use in the source.
fn check_event_arities(
    table: &defs::Table<'_>,
    uses: &HashMap<String, Vec<(Span, usize)>>,
    diags: &mut Vec<Diagnostic>,
) {
    for (name, uses) in uses {
        let declared = table
            .decl_by_name
            .get(name.as_str())
            .map(|&di| table.decls[di]);
        let (ref_span, ref_arity) = match declared {
            Some(d) => (d.name.span, d.params.len()),
            None => match uses.iter().min_by_key(|(span, _)| (span.start, span.end)) {
                Some(&reference) => reference,
                None => continue,
            },
        };
        for &(span, arity) in uses.iter().filter(|&&(_, arity)| arity != ref_arity) {
            let (message, note) = if declared.is_some() {
                (
                    format!(
                        "event `{name}` is used with {}, but it is declared with {}",
                        arguments(arity),
                        arguments(ref_arity)
                    ),
                    format!("`{name}` is declared here"),
                )
            } else {
                (
                    format!(
                        "event `{name}` is used with {} here, but with {} elsewhere; an event must always have the same number of arguments",
                        arguments(arity),
                        arguments(ref_arity)
                    ),
                    format!("`{name}` is first used with {} here", arguments(ref_arity)),
                )
            };
            diags.push(Diagnostic::error(span, message).with_note(ref_span, note));
        }
    }
}

/// "1 argument", "2 arguments".
pub(crate) fn arguments(n: usize) -> String {
    if n == 1 {
        "1 argument".to_string()
    } else {
        format!("{n} arguments")
    }
}

/// Sorts by position and removes repeated reports of the same error (a macro
/// body is checked once per expansion).
fn sort_diagnostics(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        (a.span.start, a.span.end, &a.message).cmp(&(b.span.start, b.span.end, &b.message))
    });
    diags.dedup_by(|a, b| a.span == b.span && a.message == b.message);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_sorted_and_deduplicated() {
        let mut d = vec![
            Diagnostic::error(Span::new(5, 6), "b"),
            Diagnostic::error(Span::new(1, 2), "a"),
            Diagnostic::error(Span::new(5, 6), "b"),
            Diagnostic::error(Span::new(5, 6), "a"),
        ];
        sort_diagnostics(&mut d);
        let got: Vec<_> = d
            .iter()
            .map(|d| (d.span.start, d.message.as_str()))
            .collect();
        assert_eq!(got, vec![(1, "a"), (5, "a"), (5, "b")]);
    }

    #[test]
    fn events_include_declarations_and_uses() {
        let c = check_source("pred a(x), b, c(x, y)\nprop p : Forall x . a(x) -> c(x, 1)")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let got: Vec<_> = c.events.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(got, vec![("a", 1), ("b", 0), ("c", 2)]);
        assert_eq!(c.warnings.len(), 1);
        assert!(c.warnings[0].message.contains("`b` is declared but"));
        let c = check_source("prop p : Forall x . a(x) -> @ c(x, \"k\")")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let got: Vec<_> = c.events.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(got, vec![("a", 1), ("c", 2)]);
    }
}
