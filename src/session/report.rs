//! [`Report`]: where a session's verdicts, warnings, errors, progress and
//! summary go; [`Collect`], a report that keeps them.

use std::io;

use super::{RunError, Warning};
use crate::report::{Printer, Summary, Undecided, Violation};
use crate::runtime::witness::WitnessValue;

/// The receiver of a run's results, called as they happen. Only
/// [`Report::violation`] is required; the rest do nothing by default.
///
/// A method that writes returns an error to end the run (the reader of the
/// output went away): the session stops at once, and calls no
/// [`Report::summary`].
pub trait Report {
    /// Property `v.property` is violated at event `v.event`; `witness`
    /// (with the option `witness`) gives the values that falsify it.
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()>;

    /// For an MFOTL pattern (the option `satisfactions`): time point
    /// `point` (from 0) at MonPoly time stamp `ts` satisfies it, with these
    /// tuples. By default, reported as a violation.
    fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        let _ = (point, ts, tuples);
        self.violation(v, None)
    }

    /// Whether [`Report::satisfaction`] reads the event of its violation
    /// (`v.name`, `v.args`, `v.line`). A time-point's satisfaction is due
    /// to one of its events, which the session finds by a walk of the
    /// witnesses; when this is `false` it finds none, and the violation
    /// names the time-point itself (`@`, no arguments).
    fn satisfaction_names_event(&self) -> bool {
        true
    }

    /// With a future operator: a step whose verdict the trace ended before
    /// (its horizon lies beyond the last event), neither satisfied nor
    /// violated, with the properties that could not decide it; called at
    /// the end of the run, in trace order.
    fn undecided(&mut self, u: &Undecided<'_>) -> io::Result<()> {
        let _ = u;
        Ok(())
    }

    /// A warning (never printed by the library).
    fn warning(&mut self, warning: &Warning) {
        let _ = warning;
    }

    /// The error that ended the run, or made it fail; called once, at its end.
    fn error(&mut self, error: &RunError) {
        let _ = error;
    }

    /// Called after each step of a trace, with the events processed so far
    /// and the bytes of input read so far (for a progress indicator).
    #[inline]
    fn progress(&mut self, events: u64, bytes_read: &dyn Fn() -> u64) {
        let _ = (events, bytes_read);
    }

    /// Called after each event that [`Session::run`](super::Session::run)
    /// steps on its own (not one of a time-point of several events stepped
    /// at once), with its name, arguments, time stamp (`None` in an untimed
    /// trace) and line: for a caller that keeps the events, as `hindsight
    /// why` does.
    #[inline]
    fn stepped(&mut self, name: &[u8], args: &[&[u8]], time: Option<u64>, line: u64) {
        let _ = (name, args, time, line);
    }

    /// Called after `n` repeats of the last event [`Report::stepped`] (the
    /// same record on the `n` lines after it) are taken at once: the
    /// monitor was at a fixed point for it with no time bound (see
    /// [`Monitor::repeat_is_noop`](crate::runtime::Monitor::repeat_is_noop)),
    /// so that no repeat changes anything, and the truth of every
    /// subformula, under any values, is at each repeat what it was at the
    /// last event.
    #[inline]
    fn repeated(&mut self, n: u64) {
        let _ = n;
    }

    /// A parallel run of a stream waits for more of it (see
    /// [`Session::run_parallel_stream`](super::Session::run_parallel_stream)):
    /// what was reported so far should show (a buffered output is flushed).
    fn waiting(&mut self) {}

    /// Called once when no more events come, before the warnings, errors
    /// and summary of the end of the run.
    fn end(&mut self) {}

    /// The summary of the run, last.
    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        let _ = summary;
        Ok(())
    }
}

/// The text and JSON printer is a report (warnings and errors are left to
/// its caller).
impl<W: io::Write> Report for Printer<W> {
    #[inline]
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        self.violation_with_witness(v, witness)
    }

    fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        Printer::satisfaction(self, v, point, ts, tuples)
    }

    fn satisfaction_names_event(&self) -> bool {
        Printer::satisfaction_names_event(self)
    }

    fn undecided(&mut self, u: &Undecided<'_>) -> io::Result<()> {
        Printer::undecided(self, u)
    }

    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        Printer::summary(self, summary)
    }
}

/// A report that keeps what it is told: `(property, event)` per violation,
/// the undecided events, the warnings and the error.
#[derive(Clone, Debug, Default)]
pub struct Collect {
    /// `(property index, event number)` of each violation, in order.
    pub violations: Vec<(usize, u64)>,
    /// The events left undecided at the end of the trace, in order.
    pub undecided: Vec<u64>,
    /// The warnings, in order.
    pub warnings: Vec<Warning>,
    /// The error that ended the run.
    pub error: Option<RunError>,
}

impl Report for Collect {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        _: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        self.violations.push((v.property, v.event));
        Ok(())
    }

    fn undecided(&mut self, u: &Undecided<'_>) -> io::Result<()> {
        self.undecided.push(u.event);
        Ok(())
    }

    fn warning(&mut self, warning: &Warning) {
        self.warnings.push(warning.clone());
    }

    fn error(&mut self, error: &RunError) {
        self.error = Some(error.clone());
    }
}
