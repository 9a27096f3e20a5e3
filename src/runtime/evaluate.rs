//! Evaluating a bound step in every property of a [`Monitor`], in the
//! monitor's one BDD space, and the questions about summaries that need
//! that space (their sizes).
//!
//! The space collects only where the monitor can name every BDD it holds:
//! after each event (every BDD is in a property's state), and inside a
//! property's step between two subformulas, where that property lists its
//! own state and the monitor lists the other properties' (see
//! `prop/eval.rs`).

use super::kept::KeptSummary;
use super::time::Tick;
use super::{Monitor, StepError};
use crate::bdd::{BddSpace, Roots};

impl Monitor {
    /// Evaluates the bound step in every property, then offers the space
    /// a collection (a safe point: every BDD the monitor holds is in its
    /// properties). A computation that fails stops the monitor
    /// ([`StepError::Eval`]).
    pub(super) fn evaluate_all(&mut self, tick: Tick) -> Result<(), StepError> {
        self.violated.clear();
        for i in 0..self.props.len() {
            let (before, rest) = self.props.split_at_mut(i);
            let Some((p, after)) = rest.split_first_mut() else {
                break;
            };
            // The roots of the other properties, for a collection in p's step.
            let mut outside = |roots: &mut Roots| {
                for q in before.iter_mut().chain(after.iter_mut()) {
                    q.keep_roots(roots);
                }
            };
            if !p.evaluate_bound(&mut self.space, tick, &mut outside) {
                self.violated.push(i);
            }
        }
        if self.delayed.is_some() {
            // Delayed verdicts: `violated` is left empty.
            self.record_decisions();
        }
        let props = &mut self.props;
        self.space.collect_if_due(|roots| {
            for p in props.iter_mut() {
                p.keep_roots(roots);
            }
        });
        match self.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The error that stopped the monitor, if a computation failed.
    pub(super) fn failure(&self) -> Option<StepError> {
        self.props.iter().find_map(|p| p.failure()).cloned()
    }

    /// The number of BDD nodes of kept summary `summary` of property
    /// `property` now (0 for one not computed yet, and for an unknown
    /// property); see `PropMonitor::kept_summaries`.
    pub fn kept_summary_nodes(&mut self, property: usize, summary: KeptSummary) -> usize {
        match self.props.get(property) {
            Some(p) => p.kept_summary_nodes(&mut self.space, summary),
            None => 0,
        }
    }

    /// The BDD nodes that property `property`'s future operators keep for
    /// the steps they have not decided (0 without future operators).
    pub fn future_nodes(&mut self, property: usize) -> usize {
        match self.props.get(property) {
            Some(p) => p.future_nodes(&mut self.space),
            None => 0,
        }
    }

    /// Total BDD nodes of the summaries that property `property` keeps
    /// between events (0 for an unknown property).
    pub fn summary_nodes(&mut self, property: usize) -> usize {
        match self.props.get(property) {
            Some(p) => p.summary_nodes(&mut self.space),
            None => 0,
        }
    }
}
