//! Checking and macro expansion: turns a parsed [`Spec`](crate::syntax::Spec)
//! into a [`Checked`] specification, or reports every well-formedness error
//! with its source place.
//!
//! After this stage every property formula and rule body is macro-free: a
//! [`Form::Call`](crate::syntax::Form::Call) names either an event or a rule of
//! the same property, every variable is bound, and no quantifier hides another.

use std::collections::BTreeMap;

use crate::syntax::{Arena, Diagnostic, FormId, Ident, Rule};

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
    pub warnings: Vec<Diagnostic>,
}
