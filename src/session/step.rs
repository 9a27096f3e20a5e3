//! One step of the session: an event stepped, counted and its violations
//! reported, or a run of repeats of the last event stepped at once; the
//! events of a time-point one step each; where a run that reads up to an
//! event ends.

use std::ops::ControlFlow;

use super::read::FirstEvents;
use super::{Report, RunError, Session, StepError, names};
use crate::report::Violation;
use crate::trace::{TimePoint, TraceError, TraceErrorKind};

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
    /// its violations reported as its own step would be. (`event.args` is
    /// read only when there are violations to report.)
    #[inline(never)]
    pub(super) fn repeats<P: Report + ?Sized>(
        &mut self,
        event: &Step<'_>,
        n: u64,
        out: &mut P,
    ) -> ControlFlow<()> {
        if self.monitor.violated().is_empty() {
            // No verdict to report: the whole run at once.
            self.monitor.step_repeats(n);
            self.counts.add_n(event.name, n);
            out.repeated(n);
            return ControlFlow::Continue(());
        }
        for k in 1..=n {
            self.monitor.step_repeats(1);
            self.counts.add_n(event.name, 1);
            out.repeated(1);
            let step = Step {
                line: event.line + k,
                ..*event
            };
            let number = self.monitor.events();
            let ts = if event.timed { event.time } else { number };
            self.report_violated(out, &step, number, ts, true)?;
        }
        ControlFlow::Continue(())
    }

    /// The events of `point`, one step each.
    #[inline]
    pub(super) fn events<P: Report + ?Sized>(
        &mut self,
        point: &TimePoint<'_>,
        out: &mut P,
    ) -> ControlFlow<()> {
        for event in point.events() {
            if self.at_end() {
                return ControlFlow::Break(());
            }
            // Up to 8 arguments live on the stack: no allocation per event.
            let mut few: [&[u8]; 8] = [&[]; 8];
            let many: Vec<&[u8]>;
            let mut args: &[&[u8]] = if event.arity() <= few.len() {
                for (slot, arg) in few.iter_mut().zip(event.args()) {
                    *slot = arg;
                }
                &few[..event.arity()]
            } else {
                many = event.args().collect();
                &many
            };
            let typed: Vec<std::borrow::Cow<'_, [u8]>>;
            let typed_args: Vec<&[u8]>;
            if let Some(typing) = &self.typing {
                match typing.read(event.name, args) {
                    Ok(t) => {
                        typed = t;
                        typed_args = typed.iter().map(|a| &**a).collect();
                        args = &typed_args;
                    }
                    Err(misfit) => {
                        let e = self::misfit(typing, &event, misfit);
                        if self.skip() {
                            self.bad.skip(e.line, || e.to_string());
                            continue;
                        }
                        self.error = Some(RunError::Trace(e));
                        return ControlFlow::Break(());
                    }
                }
            }
            let step = Step {
                name: event.name,
                args,
                time: event.time,
                line: event.line,
                timed: point.timed,
            };
            self.event(step, out)?;
        }
        ControlFlow::Continue(())
    }

    /// One event of a time-point read: stepped, and told to `out` when it
    /// was.
    #[inline(always)]
    pub(super) fn event<P: Report + ?Sized>(
        &mut self,
        ev: Step<'_>,
        out: &mut P,
    ) -> ControlFlow<()> {
        self.before_step();
        self.step(ev, out)?;
        if self.last_ok {
            out.stepped(ev.name, ev.args, ev.timed.then_some(ev.time), ev.line);
        }
        ControlFlow::Continue(())
    }

    /// Whether the run has read as far as [`SessionOptions::until`].
    #[inline(always)]
    pub(super) fn at_end(&self) -> bool {
        self.options
            .until
            .is_some_and(|u| self.monitor.events() >= u)
    }

    /// The most repeats of the last event that may be taken at once: up
    /// to [`SessionOptions::until`], and short of
    /// [`SessionOptions::witness_at`] (whose event is stepped on its own
    /// to find its witness).
    pub(super) fn repeats_before_end(&self) -> u64 {
        let events = self.monitor.events();
        let mut most = u64::MAX;
        if let Some(u) = self.options.until {
            most = most.min(u.saturating_sub(events));
        }
        if let Some(w) = self.options.witness_at
            && w > events
        {
            most = most.min(w - events - 1);
        }
        most
    }

    /// Before a step: witnesses on for the event of
    /// [`SessionOptions::witness_at`].
    #[inline(always)]
    pub(super) fn before_step(&mut self) {
        if let Some(w) = self.options.witness_at
            && w == self.monitor.events() + 1
            && !self.options.witness
            && !self.monitor.has_future()
        {
            self.monitor.enable_witnesses(true);
        }
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
        if self.monitor.has_future() {
            let number = self.monitor.events();
            let ts = if ev.timed { ev.time } else { number };
            return self.hold_event(&ev, number, ts, out);
        }
        if self.monitor.violated().is_empty() {
            return ControlFlow::Continue(());
        }
        let ts = if ev.timed { ev.time } else { number };
        self.report_violated(out, &ev, number, ts, true)
    }

    /// Reports every property violated at the last step `ev`, event
    /// `number`; `ts` is its MonPoly time stamp; `listed`: whether the
    /// falsifying tuples are listed. `Break` when the report failed or at
    /// the first violation with `stop_at_first`.
    #[inline(never)]
    pub(super) fn report_violated<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        ev: &Step<'_>,
        number: u64,
        ts: u64,
        listed: bool,
    ) -> ControlFlow<()> {
        for i in 0..self.monitor.violated().len() {
            let property = self.monitor.violated()[i];
            self.report_one(out, property, ev, number, ts, listed)?;
        }
        self.after_report()
    }

    /// Reports the violation of `property` at the last step `ev` (see
    /// [`Session::report_violated`]). `Break` when the report failed.
    pub(super) fn report_one<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        property: usize,
        ev: &Step<'_>,
        number: u64,
        ts: u64,
        listed: bool,
    ) -> ControlFlow<()> {
        let monitor = &self.monitor;
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
            let tuples = monitor.tuples(property).1;
            // Each step is a time point, counted from 0.
            match &self.typing {
                Some(typing) => {
                    let mut sorted = tuples.to_vec();
                    typing.sort_tuples(&mut sorted);
                    out.satisfaction(&v, number - 1, ts, &sorted)
                }
                None => out.satisfaction(&v, number - 1, ts, tuples),
            }
        } else {
            let witness = (self.options.witnessed(number)).then(|| monitor.witness(property));
            out.violation(&v, witness.as_deref())
        };
        if written.is_err() {
            self.closed = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// After the violations of a step are reported: `Break` with
    /// `stop_at_first` (every property violated at the first violating step
    /// is reported first).
    pub(super) fn after_report(&self) -> ControlFlow<()> {
        if self.options.stop_at_first && !self.monitor.violated().is_empty() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// The input error for an event that does not fit the signature `typing`.
pub(super) fn misfit(
    typing: &crate::mfotl::typing::Typing,
    event: &crate::trace::EventRef<'_>,
    misfit: crate::mfotl::typing::Misfit,
) -> TraceError {
    use crate::mfotl::typing::Misfit;
    let name = String::from_utf8_lossy(event.name);
    let (message, column) = match misfit {
        Misfit::Undeclared => (
            format!(
                "predicate `{name}` is not declared in the signature (it declares {})",
                typing
                    .declared()
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            event.name_place().map(|(_, c)| c),
        ),
        Misfit::Value { index, message } => {
            let place = event.place(index);
            let message = match place {
                Some((_, column)) => format!("column {column}: {message}"),
                None => message,
            };
            (message, place.map(|(_, c)| c))
        }
    };
    let error = TraceError::new(TraceErrorKind::Signature, event.line, message);
    match column {
        Some(c) => error.at_column(c),
        None => error,
    }
}

/// `error` for a trace read with an MFOTL formula: a time stamp with
/// decimals is refused as MonPoly refuses it (MFOTL time is whole numbers),
/// without the advice of a QTL run to read decimals.
pub(super) fn whole_time(error: TraceError) -> TraceError {
    if error.kind != TraceErrorKind::BadTime || !error.message().contains("--time-decimals") {
        return error;
    }
    let stamp = error
        .message()
        .split('`')
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let fresh = TraceError::new(
        TraceErrorKind::BadTime,
        error.line,
        format!(
            "time stamp `{stamp}` has decimals, but the time stamps of an MFOTL trace are \
             whole numbers, as in MonPoly (whose logs have integer time stamps); write the \
             times in a finer unit (`1.5` s is `1500` ms) and scale the formula's intervals"
        ),
    );
    match error.column {
        Some(c) => fresh.at_column(c),
        None => fresh,
    }
}
