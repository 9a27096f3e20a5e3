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
//!   an event evaluated by restriction, and [`twins`], subformulas computed
//!   as the renaming of their twin;
//! - [`gc`]: garbage collection of value codes;
//! - [`explain`]: witnesses, tuples and profile introspection.
//!
//! A step is two phases so that it is all or nothing across the properties
//! of a [`Monitor`](super::Monitor): binding, which can be refused (value
//! codes run out) and then undone exactly, and evaluation, which cannot fail.

mod bind;
pub mod compiled;
mod eval;
mod explain;
mod fuse;
pub mod future;
mod gc;
mod point;
mod restrict;
mod scratch;
pub mod snapshot;
mod state;
mod twins;

use std::sync::Arc;

pub use compiled::CompiledProp;
pub use gc::GcPolicy;

use super::StepError;
use super::time::Tick;
use crate::bdd::Space;
use crate::plan::PropPlan;
use scratch::Scratch;
use state::{SpaceConsts, State};

/// The runtime state of one property.
///
/// Its BDDs live in a space it may share with the other properties of its
/// [`Monitor`](super::Monitor), so it is neither `Send` nor `Clone`; the
/// monitor as a whole is `Send`.
#[derive(Debug)]
pub struct PropMonitor {
    /// The compiled property (shared).
    compiled: Arc<CompiledProp>,
    /// The BDD space of the summaries.
    space: Space,
    /// The property's BDD constants in `space`.
    consts: SpaceConsts,
    state: State,
    scratch: Scratch,
    explain: explain::Explain,
    /// Whether the statement is evaluated by [`point`] (on by default).
    point_on: bool,
    /// The widest value codes, in bits.
    max_bits: usize,
}

/// How a property's monitor starts: the part of the
/// [`MonitorOptions`](super::MonitorOptions) it reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PropOptions {
    pub start_bits: usize,
    pub max_code_bits: usize,
    pub gc: GcPolicy,
}

impl PropMonitor {
    /// A fresh monitor for `plan` in a space of its own, with codes starting
    /// at `start_bits` bits.
    pub fn new(plan: PropPlan, start_bits: usize, gc: GcPolicy) -> Result<PropMonitor, StepError> {
        let options = PropOptions {
            start_bits,
            max_code_bits: super::MAX_CODE_BITS,
            gc,
        };
        let space = Space::new(plan.bdd_vars);
        Self::in_space(Arc::new(CompiledProp::new(plan)), options, space)
    }

    /// A fresh monitor for `compiled` whose BDDs live in `table`'s node table
    /// (the properties of one [`Monitor`](super::Monitor) share one table).
    pub(crate) fn sharing(
        compiled: Arc<CompiledProp>,
        options: PropOptions,
        table: &Space,
    ) -> Result<PropMonitor, StepError> {
        let space = table.sharing(compiled.plan.bdd_vars);
        Self::in_space(compiled, options, space)
    }

    fn in_space(
        compiled: Arc<CompiledProp>,
        options: PropOptions,
        space: Space,
    ) -> Result<PropMonitor, StepError> {
        let plan = &compiled.plan;
        let max_bits = options.max_code_bits.min(plan.bits_per_var);
        Ok(PropMonitor {
            consts: SpaceConsts::new(&compiled, &space),
            state: State::new(&compiled, &space, options.start_bits, max_bits, options.gc)?,
            scratch: Scratch::new(plan.vars.len()),
            explain: explain::Explain::default(),
            point_on: !compiled.future,
            max_bits,
            space,
            compiled,
        })
    }

    /// The plan being monitored.
    pub fn plan(&self) -> &PropPlan {
        &self.compiled.plan
    }

    /// The compiled property (shared by the monitors of the property).
    pub fn compiled(&self) -> &Arc<CompiledProp> {
        &self.compiled
    }

    /// Processes one event; returns whether the property holds after it. On
    /// error (value codes ran out) nothing changes.
    ///
    /// `repeat` says that the event is the same as the previous one (name and
    /// arguments). An untimed property whose kept summaries the previous event
    /// left unchanged is at a fixed point for that event: the state after
    /// `σ(i-1)` equals the state after `σ(i-2)`, so with `σ(i) = σ(i-1)` it is
    /// unchanged again and the verdict is the previous one. Such an event
    /// costs no BDD work at all.
    pub fn step(
        &mut self,
        name: &[u8],
        args: &[&[u8]],
        tick: Tick,
        repeat: bool,
    ) -> Result<bool, StepError> {
        self.bind_event(name, args, repeat)
            .inspect_err(|_| self.unbind())?;
        Ok(self.evaluate_step(tick))
    }

    /// Processes one step at which every event of `events` holds (a
    /// time-point of several events): each atom's value is the union of
    /// its matches with the events. Returns whether the property holds. On
    /// error nothing changes.
    pub fn step_set(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        tick: Tick,
    ) -> Result<bool, StepError> {
        self.bind_set(events).inspect_err(|_| self.unbind())?;
        Ok(self.evaluate_step(tick))
    }

    /// The first phase of [`step`](Self::step): binds the event, changing
    /// nothing but the enumerations (undone by `unbind` on error).
    #[inline]
    pub(crate) fn bind_event(
        &mut self,
        name: &[u8],
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
        self.bind(name, args)
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

    /// The first phase of [`step_set`](Self::step_set).
    pub(crate) fn bind_set(&mut self, events: &[(&[u8], &[&[u8]])]) -> Result<(), StepError> {
        self.scratch.binding.clear();
        for &(name, args) in events {
            self.bind(name, args)?;
        }
        Ok(())
    }

    /// Undoes the binding of a refused step.
    pub(crate) fn refuse(&mut self) {
        self.unbind();
    }

    /// The second phase of a step: evaluates the bound step at `tick` and
    /// returns whether the property holds.
    #[inline]
    pub(crate) fn evaluate_bound(&mut self, tick: Tick) -> bool {
        if self.scratch.binding.repeat {
            return self.state.last_holds;
        }
        self.evaluate_step(tick)
    }

    /// Whether the statement has future operators: its verdicts come later
    /// than its steps ([`take_decisions`](Self::take_decisions)).
    pub fn is_delayed(&self) -> bool {
        self.state.future.is_some()
    }

    /// The verdicts found since the last call, for a delayed statement:
    /// positions in increasing order.
    pub(crate) fn take_decisions(&mut self) -> Vec<future::Decision> {
        match &mut self.state.future {
            Some(f) => std::mem::take(&mut f.decided),
            None => Vec::new(),
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
            self.state.future = future::Future::new(&self.compiled.plan, self.explain.any());
            if let Some(f) = &mut self.state.future {
                f.next_gap = gap;
            }
        }
    }

    /// Number of garbage collections so far, and codes released by them.
    pub fn gc_stats(&self) -> (u64, u64) {
        (self.state.gc.collections, self.state.gc.released)
    }

    /// Number of values that have a code now, over all classes.
    pub fn live_values(&self) -> usize {
        self.state.live_values()
    }

    /// Turns point evaluation of the statement on (the default) or off; off,
    /// every subformula is computed as a set at every event. The verdicts are
    /// the same (for comparing the two).
    pub fn set_point_evaluation(&mut self, on: bool) {
        // A statement with future operators is computed as sets.
        let on = on && !self.compiled.future;
        if self.point_on != on {
            self.point_on = on;
            let s = &mut self.state;
            s.all_dirty = true;
            s.fixed = false;
            self.switch_lazy(on);
            self.switch_twins(on);
            let s = &mut self.state;
            // Atoms restart from false: a skipped one may hold a stale value.
            for &n in &self.compiled.atom_nodes {
                s.now[n] = self.space.ff();
                s.atom_active[n] = false;
            }
        }
    }
}
