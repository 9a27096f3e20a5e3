//! hindsight: a runtime-verification engine for QTL, first-order past-time
//! temporal logic with recursive rules and timing constraints.
//!
//! The pipeline, one module per stage:
//! [`syntax`] (grammar, AST, diagnostics) → [`check`] (well-formedness, macro
//! expansion) → [`plan`] (the monitor plan: subformula table, evaluation order,
//! variable and bit layout) → [`runtime`] (BDD evaluation of `now`/`pre`
//! summaries, value enumeration, time) ← [`trace`] (CSV readers) → [`report`].
#![warn(missing_docs)]

pub mod bdd;
pub mod check;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod mfotl;
pub mod parallel;
pub mod plan;
pub mod profile;
pub mod report;
pub mod runtime;
pub mod syntax;
pub mod trace;
pub mod value;

/// The examples of `docs/API.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/API.md")]
pub struct ApiPageExamples;
