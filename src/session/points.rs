//! A whole time-point as one step: MonPoly's semantics, where all the
//! events of a time-point hold at once (`timepoints`, and an MFOTL session
//! on a MonPoly log). A violation names the time-point's number, and the
//! event of the time-point that the violation is due to: see
//! [`crate::runtime::Monitor::culprit`].

use std::ops::ControlFlow;

use super::delayed::Fields;
use super::step::{Step, misfit};
use super::{Report, RunError, Session};
use crate::mfotl::typing::Typing;
use crate::runtime::StepError;
use crate::trace::{TimePoint, TraceError};

/// What the session needs of a time-point besides its events.
#[derive(Clone, Copy, Debug)]
pub(super) struct Head {
    pub number: u64,
    pub time: u64,
    pub line: u64,
    pub timed: bool,
}

impl Head {
    pub(super) fn of(point: &TimePoint<'_>) -> Head {
        Head {
            number: point.number,
            time: point.time,
            line: point.line,
            timed: point.timed,
        }
    }

    /// The MonPoly time stamp: the time, or the number in an untimed trace.
    fn stamp(&self) -> u64 {
        if self.timed { self.time } else { self.number }
    }
}

/// The events of `point` into `buf` (cleared first), their arguments
/// typed against `typing` when there is one (MFOTL): an error for an event
/// that does not fit the signature.
pub(super) fn type_point(
    typing: Option<&Typing>,
    point: &TimePoint<'_>,
    buf: &mut Fields,
) -> Result<(), TraceError> {
    buf.clear();
    for e in point.events() {
        buf.bytes.extend_from_slice(e.name);
        buf.ends.push(buf.bytes.len());
        let first = buf.ends.len();
        match typing {
            None => {
                for a in e.args() {
                    buf.bytes.extend_from_slice(a);
                    buf.ends.push(buf.bytes.len());
                }
            }
            Some(typing) => typing
                .read_into(e.name, e.args(), &mut buf.bytes, &mut buf.ends)
                .map_err(|m| misfit(typing, &e, m))?,
        }
        buf.events.push((first - 1, buf.ends.len() - first, e.line));
    }
    Ok(())
}

impl Session {
    /// Whether `out` reads the event a time-point's violation is due to
    /// (its culprit): always, but for satisfactions of a report that
    /// prints none (see [`Report::satisfaction_names_event`]).
    pub(super) fn culprits_read<P: Report + ?Sized>(&self, out: &P) -> bool {
        !self.options.satisfactions || out.satisfaction_names_event()
    }

    /// Steps the time-point `point`, counts its events and reports its
    /// violations.
    pub(super) fn timepoint<P: Report + ?Sized>(
        &mut self,
        point: &TimePoint<'_>,
        out: &mut P,
    ) -> ControlFlow<()> {
        // The events' fields, typed, copied into the session's buffer (kept
        // from one time-point to the next).
        let mut buf = std::mem::take(&mut self.point_buf);
        if let Err(error) = type_point(self.typing.as_ref(), point, &mut buf) {
            self.point_buf = buf;
            if self.skip() {
                // The whole time-point is left out.
                self.bad.skip(error.line, || error.to_string());
                return ControlFlow::Continue(());
            }
            self.error = Some(RunError::Trace(error));
            return ControlFlow::Break(());
        }
        self.typed_point(Head::of(point), buf, out)
    }

    /// Steps the time-point `head` whose typed events are in `buf`, counts
    /// its events and reports its violations; a buffer to fill next is left
    /// in `point_buf`.
    pub(super) fn typed_point<P: Report + ?Sized>(
        &mut self,
        head: Head,
        buf: Fields,
        out: &mut P,
    ) -> ControlFlow<()> {
        let before = self.monitor.events();
        let flow = self.step_point(head, &buf, out);
        // A time-point skipped (a bad event in it) was not stepped: nothing
        // to hold.
        if flow.is_break() || !self.monitor.has_future() || self.monitor.events() == before {
            self.point_buf = buf;
            return flow;
        }
        // Held until decided: the buffer goes with the step.
        self.point_buf = self.held.room();
        let at = (head.time, head.timed, head.line);
        self.hold_point(buf, head.number, head.stamp(), at, out)
    }

    /// Steps the time-point `point` whose typed events are in `buf`.
    fn step_point<P: Report + ?Sized>(
        &mut self,
        point: Head,
        buf: &Fields,
        out: &mut P,
    ) -> ControlFlow<()> {
        let mut fields = recycle(std::mem::take(&mut self.rooms.0));
        buf.fields_into(&mut fields);
        let mut events = recycle_events(std::mem::take(&mut self.rooms.1));
        buf.events_into(&fields, &mut events);
        let flow = self.step_events(point, buf, &events, out);
        let events = recycle_events(events);
        self.rooms = (recycle(fields), events);
        flow
    }

    /// [`step_point`](Self::step_point) once the events are split.
    fn step_events<P: Report + ?Sized>(
        &mut self,
        point: Head,
        buf: &Fields,
        events: &[(&[u8], &[&[u8]])],
        out: &mut P,
    ) -> ControlFlow<()> {
        let skip = self.skip();
        // As a run of single events: with --strict a name the specification
        // does not use is an error, and a bad event is skipped with
        // --skip-bad-lines (its whole time-point: the step is refused).
        if self.options.strict
            && let Some(i) =
                (events.iter()).position(|(name, _)| self.monitor.arity_of(name).is_none())
        {
            let line = buf.line(i);
            let message = super::names::unknown_event(&self.spec_events, events[i].0);
            if skip {
                self.bad.skip(line, || format!("line {line}: {message}"));
                return ControlFlow::Continue(());
            }
            self.error = Some(RunError::UnknownEvent { line, message });
            return ControlFlow::Break(());
        }
        // Typed against the signature, the events have their names' arities.
        let stepped = if self.typing.is_some() {
            self.monitor.step_set_typed(events, point.time)
        } else {
            self.monitor.step_set(events, point.time)
        };
        if let Err(e) = stepped {
            let skippable = matches!(e, StepError::Arity { .. } | StepError::TimeBackwards { .. });
            // The event at fault: the first of another arity than the
            // specification's (its line, and its last field for the hint).
            let at = matches!(e, StepError::Arity { .. })
                .then(|| {
                    (events.iter()).position(|(name, args)| {
                        self.monitor.arity_of(name).is_some_and(|k| k != args.len())
                    })
                })
                .flatten();
            let (line, last) = match at {
                Some(i) => (buf.line(i), events[i].1.last().copied()),
                None => (point.line, None),
            };
            let error = RunError::step(line, e, self.options.trace.timed, last);
            if skip && skippable {
                self.bad.skip(line, || error.to_string());
                return ControlFlow::Continue(());
            }
            self.error = Some(error);
            return ControlFlow::Break(());
        }
        for (name, args) in events {
            self.counts.add(name);
            if super::read::FirstEvents::wants(point.number) {
                let args = args.iter().copied();
                self.first.note(point.number, point.line, name, args);
            }
        }
        if self.monitor.has_future() {
            // Held by the caller.
            return ControlFlow::Continue(());
        }
        let ts = point.stamp();
        if self.monitor.violated().is_empty() {
            return ControlFlow::Continue(());
        }
        for i in 0..self.monitor.violated().len() {
            let property = self.monitor.violated()[i];
            // The event the violation is due to; the time-point's first
            // when it is due to no one event (or the time-point has none).
            let culprit = if self.culprits_read(out) {
                self.monitor.culprit(property, events).unwrap_or(0)
            } else {
                0
            };
            let (name, args, line) = match events.get(culprit) {
                Some(&(name, args)) => (name, args, buf.line(culprit)),
                None => (&b"@"[..], &[][..], point.line),
            };
            let ev = Step {
                name,
                args,
                time: point.time,
                line,
                timed: point.timed,
            };
            self.report_one(out, property, &ev, point.number, ts, true)?;
        }
        self.after_report()
    }
}

/// The rooms of a time-point's split fields and events, kept between
/// time-points (their borrows end with each time-point).
pub(super) type Rooms = (Vec<&'static [u8]>, SplitEvents<'static>);

/// Events split into their names and arguments.
type SplitEvents<'a> = Vec<(&'a [u8], &'a [&'a [u8]])>;

/// An empty vector with the room of `v`, for borrows of another lifetime
/// (the standard library collects in place, without allocating).
pub(super) fn recycle<'b>(mut v: Vec<&[u8]>) -> Vec<&'b [u8]> {
    v.clear();
    v.into_iter().map(|_| &[][..]).collect()
}

/// [`recycle`] for split events.
pub(super) fn recycle_events<'b>(mut v: SplitEvents<'_>) -> SplitEvents<'b> {
    v.clear();
    v.into_iter().map(|_| (&[][..], &[][..])).collect()
}
