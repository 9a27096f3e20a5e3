//! The monitor: a compiled specification that takes events one at a time
//! and says which properties each violates ([`Monitor`], its
//! [`MonitorOptions`] and the [`StepError`] of an event it refuses), the
//! witnesses of a violation ([`WitnessValue`], [`format_witness`]), and the
//! diagnostics of a specification that is not well-formed ([`SpecError`],
//! [`Diagnostic`]). [`crate::session::Session`] is built on it.
//!
//! ```
//! use hindsight::monitor::{Monitor, MonitorOptions};
//!
//! let mut monitor = Monitor::from_source(
//!     "prop closeOnlyOpen : Forall f . close(f) -> @ [open(f), close(f))",
//!     MonitorOptions::default(),
//! ).expect("well-formed");
//! assert!(monitor.step(b"open", &[b"a"], 0).unwrap().is_empty());
//! assert!(monitor.step(b"close", &[b"a"], 0).unwrap().is_empty());
//! assert_eq!(monitor.step(b"close", &[b"a"], 0).unwrap(), &[0]);
//! ```

pub use crate::bdd::Package;
pub use crate::runtime::witness::{Witness, format_witness};
pub use crate::runtime::{
    DecidedStep, GcPolicy, MAX_CODE_BITS, Monitor, MonitorOptions, Snapshot, StepError,
    StepViolation, WitnessValue,
};
pub use crate::syntax::span::line_column;
pub use crate::syntax::{Diagnostic, Severity, Span, SpecError, Warnings};
