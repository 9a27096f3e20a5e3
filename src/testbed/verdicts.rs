//! The verdicts of one side of [`super::equiv`] along a trace.
//!
//! A side without future operators gives the verdict at each event as the
//! event is stepped. A side with one gives it later, once the trace has
//! passed the event's horizon ([`Monitor::take_decided`]); to compare it at
//! the end of a trace, the trace is taken as complete: a copy of the
//! monitor is closed as MonPoly closes a log ([`Monitor::finish_trace`]),
//! which decides every bounded future operator.

use super::TestbedError;
use crate::runtime::Monitor;

/// A side's verdicts at a step: the properties violated there, and those
/// that could not decide it (by their indices).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct AtStep {
    pub violated: Vec<usize>,
    pub undecided: Vec<usize>,
}

impl AtStep {
    /// The verdict of property `p`: 0 holds, 1 violated, 2 undecided.
    pub fn of(&self, p: usize) -> u8 {
        if self.undecided.contains(&p) {
            2
        } else {
            u8::from(self.violated.contains(&p))
        }
    }
}

/// One side: its monitor, and the verdicts it has given so far.
#[derive(Clone)]
pub(super) struct Side {
    monitor: Monitor,
    /// Per step, its violated properties once decided.
    given: Vec<Option<Vec<usize>>>,
}

impl Side {
    pub fn new(monitor: Monitor) -> Side {
        Side {
            monitor,
            given: Vec::new(),
        }
    }

    /// Whether the verdicts come later than their events.
    pub fn future(&self) -> bool {
        self.monitor.has_future()
    }

    /// Steps the event `name(args)`, keeping the verdicts it gives.
    pub fn step(&mut self, name: &[u8], args: &[&[u8]]) -> Result<(), TestbedError> {
        let future = self.monitor.has_future();
        let violated = self.monitor.step(name, args, 0)?;
        if !future {
            let v = violated.to_vec();
            self.given.push(Some(v));
            return Ok(());
        }
        self.given.push(None);
        for d in self.monitor.take_decided() {
            if let Some(slot) = usize::try_from(d.step)
                .ok()
                .and_then(|s| self.given.get_mut(s))
            {
                *slot = Some(d.violations.iter().map(|v| v.property).collect());
            }
        }
        Ok(())
    }

    /// The properties violated at the last step, for a side without
    /// future operators.
    pub fn last(&self) -> &[usize] {
        self.given.last().and_then(|g| g.as_deref()).unwrap_or(&[])
    }

    /// The verdicts at every step, with the trace ended after the last.
    pub fn closed(&self) -> Vec<AtStep> {
        let mut out: Vec<AtStep> = self
            .given
            .iter()
            .map(|g| AtStep {
                violated: g.clone().unwrap_or_default(),
                undecided: Vec::new(),
            })
            .collect();
        if !self.future() {
            return out;
        }
        let mut m = self.monitor.clone();
        let open = m.finish_trace(true);
        for d in m.take_decided() {
            if let Some(at) = usize::try_from(d.step).ok().and_then(|s| out.get_mut(s)) {
                at.violated = d.violations.iter().map(|v| v.property).collect();
            }
        }
        for (step, props) in open {
            if let Some(at) = usize::try_from(step).ok().and_then(|s| out.get_mut(s)) {
                at.undecided = props;
            }
        }
        out
    }
}
