//! hindsight: a runtime-verification engine for QTL, first-order past-time
//! temporal logic with recursive rules, timing constraints and bounded
//! future operators, and for MonPoly's MFOTL.
//!
//! The library's API is five modules (docs/API.md tells their story):
//!
//! - [`session`]: what `hindsight run` does, as a library: a specification
//!   and a trace in; verdicts, counts, warnings and a profile out, through a
//!   [`session::Report`] of your choice ([`session::Printer`] is the command
//!   line's text and JSON one), on one thread or several.
//! - [`monitor`]: the [`monitor::Monitor`] a session is built on, for events
//!   pushed one at a time; its options, the errors of an event it refuses,
//!   witnesses, and the diagnostics of a specification it refuses.
//! - [`trace`]: the readers of CSV, CRV, XML, JSON and MonPoly logs,
//!   gzip- or zstd-compressed or not.
//! - [`mfotl`]: the MFOTL front end, MonPoly's formulas and signatures
//!   translated to QTL.
//! - [`testbed`]: equivalence of two specifications and generated traces
//!   (docs/TESTBED.md).
//!
//! Inside, one module per stage: `syntax` (grammar, AST, diagnostics) →
//! `check` (well-formedness, macro expansion) → `plan` (the monitor plan)
//! → `runtime` (BDD evaluation of `now`/`pre` summaries, value enumeration,
//! time, delayed verdicts) ← `trace` → `report`; `parallel` (and `cluster`)
//! run the same monitors on several threads (or Timely Dataflow workers).
//! These are `pub(crate)`: public only under the `internals` feature, for
//! the project's own tests and benches, and not a stable API.
//!
//! Cargo features: `cli` (default) builds the `hindsight` binary and its
//! dependencies (clap, plotters, indicatif, ctrlc); without it
//! (`default-features = false`) the library has the engine's dependencies
//! only. `cluster` adds cluster mode (Timely Dataflow). `internals` makes
//! the internal modules public (see above). The BDD package is chosen at
//! run time ([`monitor::Package`]: hindsight's own, or `biodivine-lib-bdd`).
#![warn(missing_docs)]
// Without the command line, the code only it uses (plan listings, cluster
// mode) is unused; the dead-code check is that of the default build.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

/// Declares internal modules: `pub(crate)`, and public (for the
/// project's own tests, benches and tools) only under the `internals`
/// feature, which is not a stable API. Declared before the modules, so that
/// they can use it for internal modules of their own.
macro_rules! internal {
    ($($(#[$attr:meta])* $name:ident;)+) => {$(
        $(#[$attr])*
        #[cfg(feature = "internals")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )+};
}

/// Declares an item of a public module `pub(crate)`, or `pub` under the
/// `internals` feature: a function or method of the API's types that takes
/// or gives an internal one (a compiled plan, a property's monitor).
macro_rules! internal_item {
    ($(#[$attr:meta])* pub $($item:tt)+) => {
        $(#[$attr])*
        #[cfg(feature = "internals")]
        pub $($item)+
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        pub(crate) $($item)+
    };
}

pub mod mfotl;
pub mod monitor;
pub mod session;
pub mod testbed;
pub mod trace;

internal! {
    arith;
    bdd;
    check;
    #[cfg(feature = "cluster")]
    cluster;
    parallel;
    plan;
    profile;
    report;
    runtime;
    syntax;
    value;
    why;
}
#[cfg(feature = "cli")]
mod cli;
mod ticks;

/// Runs the `hindsight` command line (the binary's `main`; not part of the
/// library's API).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub fn cli_main() -> std::process::ExitCode {
    cli::commands::main()
}

/// The examples of `docs/API.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/API.md")]
pub struct ApiPageExamples;
