//! The end of a run: its [`Outcome`], the [`Warning`]s and [`RunError`]s a
//! session reports, and [`Session::finish`].

use std::fmt;

use super::names::{self, NameReport};
use super::read::{self, Misread, Skipped, Unread};
use super::{Report, Session, StepError};
use crate::report::Summary;

use crate::trace::TraceError;

/// Why a specification could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read (or is not UTF-8).
    Io(std::io::Error),
    /// The specification is not well-formed: its diagnostics (errors, and
    /// the warnings found with them).
    Spec(crate::syntax::SpecError),
    /// An MFOTL formula or signature is not well-formed.
    Mfotl(crate::mfotl::MfotlError),
    /// The monitor cannot be built.
    Monitor(StepError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "cannot read the specification: {e}"),
            LoadError::Spec(e) => write!(f, "{e}"),
            LoadError::Mfotl(e) => write!(f, "{e}"),
            LoadError::Monitor(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// What ended a run before the end of its trace, or made it fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Bad input (as the trace reader gives it).
    Trace(TraceError),
    /// An event the monitor refused, on `line` (a pushed event's number).
    Step {
        /// The event's line.
        line: u64,
        /// Why it was refused.
        error: StepError,
        /// A likely cause (a time stamp read as an argument, or the other
        /// way round).
        hint: Option<&'static str>,
    },
    /// With `strict`, an event whose name no property mentions.
    UnknownEvent {
        /// The event's line.
        line: u64,
        /// The message, with the likely cause.
        message: String,
    },
    /// An error that a worker of a cluster run (possibly in another
    /// process) met on `line`, as its message.
    Worker {
        /// The event's line.
        line: u64,
        /// The message.
        message: String,
    },
    /// No event of the trace is in the specification, and its first events
    /// have names in the shape of another format: the trace was misread
    /// (see `session/read.rs`).
    Misread(Misread),
    /// With [`OnError::Skip`](super::OnError), every line, or more than
    /// [`SessionOptions::max_skipped`](super::SessionOptions::max_skipped)
    /// of them, was skipped as bad.
    Skipped(Skipped),
}

impl RunError {
    /// The error for `error` at the event on `line`, with a hint for an
    /// arity mismatch (`timed`: whether the trace is read as timed; `last`:
    /// the event's last field).
    pub(super) fn step(line: u64, error: StepError, timed: bool, last: Option<&[u8]>) -> RunError {
        let hint = match &error {
            StepError::Arity {
                expected, found, ..
            } => arity_hint(*expected, *found, timed, last),
            _ => None,
        };
        RunError::Step { line, error, hint }
    }

    /// The line where the run stopped (`None` when it did not stop at a line).
    pub fn line(&self) -> Option<u64> {
        match self {
            RunError::Trace(e) => Some(e.line),
            RunError::Step { line, .. }
            | RunError::UnknownEvent { line, .. }
            | RunError::Worker { line, .. } => Some(*line),
            RunError::Misread(_) | RunError::Skipped(_) => None,
        }
    }
}

impl fmt::Display for RunError {
    /// `line 7: ...`, as the command line shows it after the trace's name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Trace(e) => write!(f, "{e}"),
            RunError::Step { line, error, hint } => {
                write!(f, "line {line}: {error}")?;
                match hint {
                    Some(h) => write!(f, " ({h})"),
                    None => Ok(()),
                }
            }
            RunError::UnknownEvent { line, message } | RunError::Worker { line, message } => {
                write!(f, "line {line}: {message}")
            }
            RunError::Misread(m) => write!(f, "{m}"),
            RunError::Skipped(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for RunError {}

/// A hint for an event with `found` fields where the specification expects
/// `expected` arguments, given whether the trace is read as timed and the
/// event's last field.
pub fn arity_hint(
    expected: usize,
    found: usize,
    timed: bool,
    last: Option<&[u8]>,
) -> Option<&'static str> {
    // A natural or decimal number (`12`, `0.25`), as a time stamp is written.
    let numeric = last.is_some_and(|f| {
        let (int, frac) = match f.iter().position(|&b| b == b'.') {
            Some(p) => (&f[..p], Some(&f[p + 1..])),
            None => (f, None),
        };
        let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        digits(int) && frac.is_none_or(digits)
    });
    if !timed && found == expected + 1 && numeric {
        Some("if the last field is the event's time stamp, use --timed")
    } else if timed && found + 1 == expected {
        Some(
            "the last field is read as the time stamp (--timed, or `.timed.` in the file name); \
             is the trace untimed?",
        )
    } else {
        None
    }
}

/// Something the caller should know that does not change the verdicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// The specification has time bounds but the trace is read without time
    /// stamps: each event is one time unit.
    UntimedTrace,
    /// Events whose time stamp was smaller than their predecessor's: no
    /// time elapsed at them.
    TimeRegressions(u64),
    /// Events whose name no property mentions, with their likely cause.
    UnknownNames(NameReport),
    /// The first line of a plain CSV trace looks like a header row of
    /// column names: the hint.
    HeaderRow(String),
    /// The trace has no event: nothing was checked.
    EmptyTrace,
    /// The profile could not be written during the run, and stopped.
    ProfileStopped(String),
    /// The profile's last row could not be written.
    ProfileUnwritten(String),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::UntimedTrace => write!(
                f,
                "the specification has time bounds but the trace is read without time \
                 stamps, so each event is one time unit (event i at time i); use --timed if the \
                 last field of each event is its time"
            ),
            Warning::TimeRegressions(n) => write!(
                f,
                "{n} time stamp(s) smaller than the previous one; no time elapsed at those events \
                 (use --strict-time to reject them)"
            ),
            Warning::UnknownNames(names) => write!(f, "{}", names.lines.join("\n")),
            Warning::HeaderRow(hint) => write!(f, "{hint}"),
            Warning::EmptyTrace => write!(
                f,
                "the trace has no event: nothing was checked (no property is violated on an \
                 empty trace)"
            ),
            Warning::ProfileStopped(e) => write!(f, "the profile stopped: {e}"),
            Warning::ProfileUnwritten(e) => write!(f, "cannot write the profile: {e}"),
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No violation (exit status 0).
    Satisfied,
    /// Some property was violated (exit status 1).
    Violated,
    /// The input or the run failed (exit status 2); violations found
    /// before are still reported.
    Failed,
    /// The cancel flag ended the run (exit status 130).
    Interrupted,
}

/// One property's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyVerdict {
    /// Its name.
    pub name: String,
    /// How many events violated it.
    pub violations: u64,
    /// The first of them.
    pub first: Option<u64>,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How it ended.
    pub verdict: Verdict,
    /// Per property, its violations.
    pub properties: Vec<PropertyVerdict>,
    /// The summary as the report printed it.
    pub summary: Summary,
    /// What stopped the run or made it fail.
    pub error: Option<RunError>,
    /// Every warning of the run, in order.
    pub warnings: Vec<Warning>,
    /// For a MonPoly log monitored in time segments (`session::segments`):
    /// the segments after the first whose workers' verdicts were taken,
    /// and those the run stepped itself (their state at the start did not
    /// agree, or the worker was unsure of its output).
    pub segments: Option<(usize, usize)>,
}

impl Outcome {
    /// Violations of all properties.
    pub fn violations(&self) -> u64 {
        self.properties.iter().map(|p| p.violations).sum()
    }
}

/// Bad lines skipped with [`OnError::Skip`](super::OnError): how many, and
/// the first few.
#[derive(Clone, Debug, Default)]
pub struct BadLines {
    /// Lines skipped.
    pub count: u64,
    /// The first few of them.
    pub first: Vec<u64>,
    /// Why the first was skipped (`line L: ...`).
    pub why: Option<String>,
}

impl BadLines {
    /// How many line numbers the summary shows.
    const SHOWN: usize = 5;

    /// Counts the bad line `line`, skipped for the reason `why()` (asked
    /// for the first line only).
    pub fn skip(&mut self, line: u64, why: impl FnOnce() -> String) {
        if self.count == 0 {
            self.why = Some(why());
        }
        self.count += 1;
        if self.first.len() < Self::SHOWN {
            self.first.push(line);
        }
    }
}

/// The reason shown in the status line of a run ended by a bad line:
/// `input error at line 7; 2 violations found before it`.
fn stopped_at(line: u64, violations: u64) -> String {
    format!(
        "input error at line {line}; {violations} violation{} found before it",
        if violations == 1 { "" } else { "s" }
    )
}

/// The summary's note of an interrupted run.
const INTERRUPTED: &str = "interrupted (Ctrl-C)";

impl Session {
    /// Ends the run: the profile's last row, the warnings (time stamps that
    /// went back, unknown event names) and errors to `out`, then the summary
    /// (unless the report failed before); gives the outcome.
    pub fn finish<P: Report + ?Sized>(mut self, out: &mut P) -> Outcome {
        out.end();
        if let Some(p) = self.profile.take()
            && let Err(e) = p.finish(&mut self.monitor).and_then(|mut w| w.flush())
        {
            self.warn(out, Warning::ProfileUnwritten(e.to_string()));
        }
        let (events, regressions, gc) = self.parallel.unwrap_or((
            self.monitor.events(),
            self.monitor.time_regressions(),
            self.monitor.gc_stats(),
        ));
        if regressions > 0 {
            self.warn(out, Warning::TimeRegressions(regressions));
        }
        let undecided = if self.parallel.is_some() {
            self.finish_tail(out)
        } else {
            self.finish_delayed(out)
        };
        let total: u64 = self.tally.iter().map(|t| t.0).sum();
        let counts = std::mem::take(&mut self.counts).into_counts();
        let mut failure = None;
        if let Some(e) = &self.error {
            out.error(e);
            failure = e.line().map(|line| stopped_at(line, total));
        }
        let mut error = self.error.take();
        // Whether the trace was read: docs/TRACES.md's decision.
        let ended = error.is_none() && !self.interrupted && !self.closed;
        let skipped = (self.bad.count, &self.bad.first[..], self.bad.why.as_deref());
        let (spec, first, format) = (&self.spec_events, &self.first, self.format);
        let decision = read::decide(spec, &counts, first, format, skipped, self.max_skipped());
        let misread = matches!(decision, Err(Unread::Misread(_)));
        if ended && let Err(unread) = decision {
            let e = match unread {
                Unread::Skipped(s) => {
                    failure = Some(s.reason());
                    RunError::Skipped(s)
                }
                Unread::Misread(m) => {
                    failure = Some(m.reason());
                    RunError::Misread(m)
                }
            };
            out.error(&e);
            error = Some(e);
        }
        if !(ended && misread) {
            if ended && events == 0 && self.bad.count == 0 {
                self.warn(out, Warning::EmptyTrace);
            }
            let understood = names::check_names(&self.spec_events, &counts);
            if !understood.lines.is_empty() {
                self.warn(out, Warning::UnknownNames(understood));
            }
            if let Some(hint) = read::header_row(&self.spec_events, &counts, &self.first, format) {
                self.warn(out, Warning::HeaderRow(hint));
            }
        }
        // The summary names the input error (not a failure without a line).
        let mut note = error
            .as_ref()
            .filter(|e| e.line().is_some())
            .map(|e| format!("{}:{e}", self.name));
        if self.interrupted {
            note = Some(INTERRUPTED.to_owned());
        }
        let verdict = if self.interrupted {
            Verdict::Interrupted
        } else if failure.is_some() {
            Verdict::Failed
        } else if total > 0 {
            Verdict::Violated
        } else {
            Verdict::Satisfied
        };
        let summary = Summary {
            events,
            counts,
            spec_events: std::mem::take(&mut self.spec_events),
            elapsed: self.start.elapsed(),
            error: note,
            gc,
            skipped: (self.bad.count, std::mem::take(&mut self.bad.first)),
            failure,
            undecided,
        };
        if !self.closed {
            let _ = out.summary(&summary);
        }
        let properties = self
            .monitor
            .property_names()
            .into_iter()
            .zip(&self.tally)
            .map(|(name, &(violations, first))| PropertyVerdict {
                name: name.to_owned(),
                violations,
                first,
            })
            .collect();
        Outcome {
            verdict,
            properties,
            summary,
            error,
            warnings: self.warnings,
            segments: self.segments,
        }
    }
}
