//! The monitor of one property: `now`/`pre` summaries per subformula,
//! evaluated at each event in the plan's mixed evaluation order.
//!
//! The parts, one concern each:
//! - [`compiled`]: the compiled property, immutable and shared (`Arc`);
//! - [`state`]: what is kept from one event to the next;
//! - [`scratch`]: buffers of the current step and caches;
//! - [`bind`]: binding an event (matching atoms, enumerating values);
//! - [`eval`]: evaluating a bound step, [`point`], the point evaluation
//!   of the statement, and [`restrict`], quantifiers over a conjunction with
//!   an event evaluated by restriction ([`absorb`]: in one walk with the
//!   disjunction that reads them), and [`twins`], subformulas computed
//!   as the renaming of their twin; [`fuse`], [`fuse_and`], [`fuse_atom`]
//!   and [`fuse_since`], nodes taken in by the one node that reads them;
//! - [`gc`]: garbage collection of value codes;
//! - [`explain`]: witnesses, tuples and profile introspection.
//!
//! A step is two phases so that it is all or nothing across the properties
//! of a [`Monitor`](super::Monitor): binding, which can be refused (value
//! codes run out) and then undone exactly, and evaluation, which cannot fail.
//!
//! The BDD space is the [`Monitor`](super::Monitor)'s, shared by all its
//! properties: every method that builds or walks a BDD takes it as an
//! argument, and a property's summaries are plain numbers in it. Those
//! numbers are the roots a collection keeps ([`PropMonitor::keep_roots`]).
//! Evaluation offers the space a collection between two subformulas (a
//! *safe point*: every value of the step so far is in the state), listing
//! the roots of this property and, through an [`Outside`], those of the
//! others; the monitor offers one after each event.

mod absorb;
mod aggregate;
mod bind;
mod call;
pub mod compiled;
mod compute;
mod eval;
mod explain;
mod fuse;
mod fuse_and;
mod fuse_atom;
mod fuse_since;
pub mod future;
mod gc;
mod point;
mod restrict;
mod scratch;
pub mod snapshot;
mod state;
mod twins;
mod window;

use std::sync::Arc;

pub use compiled::CompiledProp;
pub use gc::GcPolicy;

use super::StepError;
use super::time::Tick;
use crate::bdd::{Bdd, BddSpace, Roots, Space};
use crate::plan::PropPlan;
use scratch::Scratch;
use state::{SpaceConsts, State};

/// The runtime state of one property.
///
/// Its BDDs live in the space of its [`Monitor`](super::Monitor), shared
/// with the other properties there: its summaries are numbers in that
/// space, meaningful only with it.
#[derive(Clone, Debug)]
pub struct PropMonitor {
    /// The compiled property (shared).
    compiled: Arc<CompiledProp>,
    /// The property's BDD constants in the monitor's space.
    consts: SpaceConsts,
    state: State,
    scratch: Scratch,
    explain: explain::Explain,
    /// Whether the statement is evaluated by [`point`] (on by default).
    point_on: bool,
    /// The widest value codes, in bits.
    max_bits: usize,
    /// The error that stopped the evaluation of a computing node (see
    /// [`StepError::Eval`]): the monitor is stopped.
    failed: Option<StepError>,
}

/// How a property's monitor starts: the part of the
/// [`MonitorOptions`](super::MonitorOptions) it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PropOptions {
    pub start_bits: usize,
    pub max_code_bits: usize,
    pub gc: GcPolicy,
}

/// The roots held outside the property being evaluated (by the other
/// properties of its monitor), listed when a collection runs in its step.
pub(crate) type Outside<'a> = dyn FnMut(&mut Roots) + 'a;

impl PropMonitor {
    /// A fresh monitor for `compiled` whose BDDs live in `space` (the
    /// properties of one [`Monitor`](super::Monitor) share one space).
    pub(crate) fn new(
        compiled: Arc<CompiledProp>,
        options: PropOptions,
        space: &mut Space,
    ) -> Result<PropMonitor, StepError> {
        let plan = &compiled.plan;
        let max_bits = options.max_code_bits.min(plan.bits_per_var);
        Ok(PropMonitor {
            consts: SpaceConsts::new(&compiled, space),
            state: State::new(&compiled, space, options.start_bits, max_bits, options.gc)?,
            scratch: Scratch::new(plan.vars.len()),
            explain: explain::Explain::default(),
            point_on: !compiled.future,
            max_bits,
            failed: None,
            compiled,
        })
    }

    /// Lists every BDD the property holds, for a collection of its space.
    pub(crate) fn keep_roots(&mut self, roots: &mut Roots) {
        self.state.keep_roots(roots);
        self.scratch.keep_roots(roots);
    }

    /// The plan being monitored.
    pub fn plan(&self) -> &PropPlan {
        &self.compiled.plan
    }

    /// [`bind_event_at`](Self::bind_event_at) of an event by its name
    /// (tests).
    #[inline]
    #[cfg(test)]
    pub(crate) fn bind_event(
        &mut self,
        name: &[u8],
        args: &[&[u8]],
        repeat: bool,
    ) -> Result<(), StepError> {
        let event = self.compiled.event_index.get(name).copied();
        self.bind_event_at(event.unwrap_or(u32::MAX), args, repeat)
    }

    /// The first phase of a step: binds the event (by the index of its
    /// name in the plan's events, `u32::MAX` for a name it does not know:
    /// see [`CompiledProp::with_events`]), changing nothing but
    /// the enumerations (undone by [`refuse`](Self::refuse) on error).
    ///
    /// `repeat` says that the event is the same as the previous one (name and
    /// arguments). An untimed property whose kept summaries the previous event
    /// left unchanged is at a fixed point for that event: the state after
    /// `σ(i-1)` equals the state after `σ(i-2)`, so with `σ(i) = σ(i-1)` it is
    /// unchanged again and the verdict is the previous one. Such an event
    /// costs no BDD work at all.
    #[inline]
    pub(crate) fn bind_event_at(
        &mut self,
        event: u32,
        args: &[&[u8]],
        repeat: bool,
    ) -> Result<(), StepError> {
        // At a fixed point the matches of the previous event stand (nothing
        // reads them), and nothing is enumerated, so nothing is to be undone.
        if repeat && self.state.fixed && self.compiled.untimed {
            let b = &mut self.scratch.binding;
            b.fresh.clear();
            b.repeat = true;
            return Ok(());
        }
        self.scratch.binding.clear();
        self.bind(event, args)
    }

    /// Whether the same event again would be a no-op here: the summaries
    /// are at a fixed point and the property has no time bound (the test
    /// of [`bind_event`](Self::bind_event)'s shortcut for a repeat).
    #[inline]
    pub(crate) fn repeat_is_noop(&self) -> bool {
        self.state.fixed && self.compiled.untimed
    }

    /// Steps over repeats of the last event when
    /// [`repeat_is_noop`](Self::repeat_is_noop): what `bind_event` and
    /// `evaluate_bound` do for one such repeat, and so for any number of them.
    #[inline]
    pub(crate) fn skip_repeats(&mut self) {
        let b = &mut self.scratch.binding;
        b.fresh.clear();
        b.repeat = true;
    }

    /// The first phase of a step at which every event of `events` holds (a
    /// time-point of several events): each atom's value is the union of its
    /// matches with the events. `indices` holds the index of each event's
    /// name in the plan's events, as for [`bind_event_at`](Self::bind_event_at).
    pub(crate) fn bind_set(
        &mut self,
        indices: &[u32],
        events: &[(&[u8], &[&[u8]])],
    ) -> Result<(), StepError> {
        self.scratch.binding.clear();
        for (&event, &(_, args)) in indices.iter().zip(events) {
            self.bind(event, args)?;
        }
        Ok(())
    }

    /// Undoes the binding of a refused step.
    pub(crate) fn refuse(&mut self) {
        self.unbind();
    }

    /// The second phase of a step: evaluates the bound step at `tick` and
    /// returns whether the property holds. A collection of `space` may run
    /// in it, keeping the roots of this property and those `outside` lists.
    #[inline]
    pub(crate) fn evaluate_bound(
        &mut self,
        space: &mut Space,
        tick: Tick,
        outside: &mut Outside<'_>,
    ) -> bool {
        if self.scratch.binding.repeat {
            return self.state.last_holds;
        }
        self.evaluate_step(space, tick, outside)
    }

    /// Whether the statement has future operators: its verdicts come later
    /// than its steps ([`take_decisions`](Self::take_decisions)).
    pub fn is_delayed(&self) -> bool {
        self.state.future.is_some()
    }

    /// The verdicts found since the last call, for a delayed statement:
    /// positions in increasing order.
    /// (Give the emptied vector back with
    /// [`recycle_decisions`](Self::recycle_decisions), to keep its room.)
    pub(crate) fn take_decisions(&mut self) -> Vec<future::Decision> {
        match &mut self.state.future {
            Some(f) => std::mem::take(&mut f.decided),
            None => Vec::new(),
        }
    }

    /// At the end of a trace left open, the verdicts already definite at
    /// steps whose horizon is not passed (see
    /// [`take_decisions`](Self::take_decisions)).
    pub(crate) fn settle(&mut self, space: &mut Space) {
        if let Some(mut f) = self.state.future.take() {
            if f.point.is_some() {
                self.settle_point(space, &mut f);
            }
            self.state.future = Some(f);
        }
    }

    /// Gives back the vector of [`take_decisions`](Self::take_decisions),
    /// emptied.
    pub(crate) fn recycle_decisions(&mut self, mut v: Vec<future::Decision>) {
        if let Some(f) = &mut self.state.future {
            v.clear();
            f.decided = v;
        }
    }

    /// The steps taken whose verdict is not known yet (0 for a statement
    /// without future operators).
    pub fn undecided(&self) -> u64 {
        self.state
            .future
            .as_ref()
            .map_or(0, |f| f.undecided(self.compiled.plan.root))
    }

    /// The BDD nodes kept by the delayed state (0 without future
    /// operators): each distinct BDD counted once.
    pub(crate) fn future_nodes(&self, space: &mut Space) -> usize {
        let Some(f) = &self.state.future else {
            return 0;
        };
        let bdds: hashbrown::HashSet<Bdd> = f.bdds().collect();
        bdds.into_iter().map(|b| space.size(b)).sum()
    }

    /// Tells the delayed state that a step's time is its number (see
    /// [`Monitor::set_step_clock`](super::Monitor::set_step_clock)): then
    /// the next step is a time unit later than the last.
    pub(crate) fn set_step_clock(&mut self, on: bool) {
        if let Some(f) = &mut self.state.future {
            f.next_gap = u64::from(on);
        }
    }

    /// Builds the delayed state again before the first step, once
    /// explanations are asked for (they need more of it kept).
    fn refresh_future(&mut self) {
        if let Some(f) = &self.state.future
            && f.is_fresh()
        {
            let gap = f.next_gap;
            self.state.future =
                future::Future::new(&self.compiled.plan, self.explain.any()).map(Box::new);
            if let Some(f) = &mut self.state.future {
                f.next_gap = gap;
            }
        }
    }

    /// The error that stopped the monitor, if a computation failed (see
    /// [`StepError::Eval`]).
    pub fn failure(&self) -> Option<&StepError> {
        self.failed.as_ref()
    }

    /// Number of garbage collections so far, and codes released by them.
    pub fn gc_stats(&self) -> (u64, u64) {
        (self.state.gc.collections, self.state.gc.released)
    }

    /// Number of values that have a code now, over all classes.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))] // for the tests
    pub fn live_values(&self) -> usize {
        self.state.live_values()
    }

    /// Turns point evaluation of the statement on (the default) or off; off,
    /// every subformula is computed as a set at every event. The verdicts are
    /// the same (for comparing the two).
    pub(crate) fn set_point_evaluation(&mut self, space: &mut Space, on: bool) {
        // A statement with future operators is computed as sets.
        let on = on && !self.compiled.future;
        if self.point_on != on {
            self.point_on = on;
            let s = &mut self.state;
            s.all_dirty = true;
            s.fixed = false;
            self.switch_lazy(space, on);
            self.switch_twins(space, on);
            let s = &mut self.state;
            // Atoms restart from false: a skipped one may hold a stale value.
            for &n in &self.compiled.atom_nodes {
                s.now[n] = space.ff();
                s.atom_active[n] = false;
            }
        }
    }
}
