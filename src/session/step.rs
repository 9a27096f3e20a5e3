//! One step of the session: an event stepped, counted and its violations
//! reported, or a run of repeats of the last event stepped at once.

use std::ops::ControlFlow;

use super::read::FirstEvents;
use super::{Report, RunError, Session, StepError, names};
use crate::report::Violation;

/// An event as the session steps it.
#[derive(Clone, Copy)]
pub(super) struct Step<'a> {
    pub(super) name: &'a [u8],
    pub(super) args: &'a [&'a [u8]],
    pub(super) time: u64,
    pub(super) line: u64,
    pub(super) timed: bool,
}

impl<'a> Step<'a> {
    /// The violation of `property` at this step, event `number`.
    pub(super) fn violation<'w>(
        &self,
        property: usize,
        number: u64,
        all_witnesses: Option<(&'w [crate::runtime::witness::Witness], u64)>,
    ) -> Violation<'w>
    where
        'a: 'w,
    {
        Violation {
            property,
            event: number,
            name: self.name,
            args: self.args,
            time: self.timed.then_some(self.time),
            line: self.line,
            all_witnesses,
        }
    }
}

impl Session {
    /// `n` repeats of `event` (the last event stepped, at a fixed point:
    /// [`Monitor::repeat_is_noop`]) on the lines after it, each counted and
    /// its violations reported as its own step would be.
    #[inline(never)]
    pub(super) fn repeats<P: Report + ?Sized>(
        &mut self,
        event: &crate::trace::EventRef<'_>,
        n: u64,
        out: &mut P,
    ) -> ControlFlow<()> {
        if self.monitor.violated().is_empty() {
            // No verdict to report: the whole run at once.
            self.monitor.step_repeats(n);
            self.counts.add_n(event.name, n);
            return ControlFlow::Continue(());
        }
        let args: Vec<&[u8]> = event.args().collect();
        let timed = self.options.trace.timed;
        for k in 1..=n {
            self.monitor.step_repeats(1);
            self.counts.add_n(event.name, 1);
            let step = Step {
                name: event.name,
                args: &args,
                time: event.time,
                line: event.line + k,
                timed,
            };
            let number = self.monitor.events();
            let ts = if timed { event.time } else { number };
            self.report_violated(out, &step, number, ts, true)?;
        }
        ControlFlow::Continue(())
    }

    /// One event: steps the monitor, counts it, reports its violations.
    #[inline(always)]
    pub(super) fn step<P: Report + ?Sized>(
        &mut self,
        ev: Step<'_>,
        out: &mut P,
    ) -> ControlFlow<()> {
        self.last_ok = false;
        let skip = self.skip();
        if self.options.strict && self.monitor.arity_of(ev.name).is_none() {
            let spec = &self.spec_events;
            let message = || names::unknown_event(spec, ev.name);
            if skip {
                self.bad
                    .skip(ev.line, || format!("line {}: {}", ev.line, message()));
                return ControlFlow::Continue(());
            }
            let message = message();
            self.error = Some(RunError::UnknownEvent {
                line: ev.line,
                message,
            });
            return ControlFlow::Break(());
        }
        if let Err(e) = self.monitor.step(ev.name, ev.args, ev.time) {
            let skippable = matches!(e, StepError::Arity { .. } | StepError::TimeBackwards { .. });
            let timed = self.options.trace.timed;
            let error = RunError::step(ev.line, e, timed, ev.args.last().copied());
            if skip && skippable {
                self.bad.skip(ev.line, || error.to_string());
                return ControlFlow::Continue(());
            }
            self.error = Some(error);
            return ControlFlow::Break(());
        }
        self.counts.add(ev.name);
        let number = self.monitor.events();
        if FirstEvents::wants(number) {
            self.first
                .note(number, ev.line, ev.name, ev.args.iter().copied());
        }
        self.last_ok = true;
        if self.monitor.violated().is_empty() {
            return ControlFlow::Continue(());
        }
        let ts = if ev.timed { ev.time } else { number };
        self.report_violated(out, &ev, number, ts, true)
    }

    /// Reports every property violated at the last step `ev`, event
    /// `number`; `ts` is its MonPoly time stamp; `listed`: whether the
    /// falsifying tuples are listed (not for a time-point of several
    /// events). `Break` when the report failed or at the first violation
    /// with `stop_at_first`.
    #[inline(never)]
    pub(super) fn report_violated<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        ev: &Step<'_>,
        number: u64,
        ts: u64,
        listed: bool,
    ) -> ControlFlow<()> {
        let monitor = &self.monitor;
        for &property in monitor.violated() {
            let all =
                (listed && self.options.all_witnesses > 0).then(|| monitor.all_witnesses(property));
            let v = ev.violation(
                property,
                number,
                all.as_ref().map(|(t, n)| (t.as_slice(), *n)),
            );
            let (count, first) = &mut self.tally[property];
            *count += 1;
            first.get_or_insert(number);
            let written = if self.options.satisfactions {
                // Each step is a time point, counted from 0.
                out.satisfaction(&v, number - 1, ts, monitor.tuples(property).1)
            } else {
                let witness = self.options.witness.then(|| monitor.witness(property));
                out.violation(&v, witness.as_deref())
            };
            if written.is_err() {
                self.closed = true;
                return ControlFlow::Break(());
            }
        }
        // Every property violated at the first violating event is reported.
        if self.options.stop_at_first && !monitor.violated().is_empty() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}
