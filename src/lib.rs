//! hindsight: a runtime-verification engine for QTL, first-order past-time
//! temporal logic with recursive rules and timing constraints.
//!
//! The pipeline, one module per stage:
//! [`syntax`] (grammar, AST, diagnostics) → [`check`] (well-formedness, macro
//! expansion) → [`plan`] (the monitor plan: subformula table, evaluation order,
//! variable and bit layout) → [`runtime`] (BDD evaluation of `now`/`pre`
//! summaries, value enumeration, time) ← [`trace`] (CSV readers) → [`report`].
//! [`session`] drives them all: a specification and a trace in, verdicts,
//! counts, warnings and a profile out, through a reporter of your choice.
//!
//! Cargo features: `cli` (default) builds the `hindsight` binary and its
//! dependencies (clap, plotters, indicatif, ctrlc); without it
//! (`default-features = false`) the library has the engine's dependencies
//! only. `biodivine` swaps in another BDD package (see [`bdd`]).
#![warn(missing_docs)]

pub mod arith;
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
pub mod session;
pub mod syntax;
mod ticks;
pub mod trace;
pub mod value;

/// The examples of `docs/API.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/API.md")]
pub struct ApiPageExamples;
