//! A whole time-point as one step: MonPoly's semantics, where all the
//! events of a time-point hold at once (`timepoints`, and an MFOTL session
//! on a MonPoly log). A violation names the time-point's number, and the
//! event of the time-point that the violation is due to: see
//! [`crate::runtime::Monitor::culprit`].

use std::ops::ControlFlow;

use super::delayed::Fields;
use super::step::{Step, misfit};
use super::{Report, RunError, Session};
use crate::trace::TimePoint;

impl Session {
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
        buf.clear();
        for e in point.events() {
            buf.bytes.extend_from_slice(e.name);
            buf.ends.push(buf.bytes.len());
            let first = buf.ends.len();
            match &self.typing {
                None => {
                    for a in e.args() {
                        buf.bytes.extend_from_slice(a);
                        buf.ends.push(buf.bytes.len());
                    }
                }
                Some(typing) => {
                    if let Err(m) =
                        typing.read_into(e.name, e.args(), &mut buf.bytes, &mut buf.ends)
                    {
                        let error = misfit(typing, &e, m);
                        self.point_buf = buf;
                        if self.skip() {
                            // The whole time-point is left out.
                            self.bad.skip(error.line, || error.to_string());
                            return ControlFlow::Continue(());
                        }
                        self.error = Some(RunError::Trace(error));
                        return ControlFlow::Break(());
                    }
                }
            }
            buf.events.push((first - 1, buf.ends.len() - first, e.line));
        }
        let flow = self.step_point(point, &buf, out);
        if flow.is_break() || !self.monitor.has_future() {
            self.point_buf = buf;
            return flow;
        }
        // Held until decided: the buffer goes with the step.
        self.point_buf = self.held.room();
        let at = (point.time, point.timed, point.line);
        self.hold_point(buf, point.number, stamp(point), at, out)
    }

    /// Steps the time-point `point` whose typed events are in `buf`.
    fn step_point<P: Report + ?Sized>(
        &mut self,
        point: &TimePoint<'_>,
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
        point: &TimePoint<'_>,
        buf: &Fields,
        events: &[(&[u8], &[&[u8]])],
        out: &mut P,
    ) -> ControlFlow<()> {
        if let Err(e) = self.monitor.step_set(events, point.time) {
            self.error = Some(RunError::step(point.line, e, false, None));
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
        let ts = stamp(point);
        if self.monitor.violated().is_empty() {
            return ControlFlow::Continue(());
        }
        for i in 0..self.monitor.violated().len() {
            let property = self.monitor.violated()[i];
            // The event the violation is due to; the time-point's first
            // when it is due to no one event (or the time-point has none).
            let culprit = self.monitor.culprit(property, events).unwrap_or(0);
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
fn recycle<'b>(mut v: Vec<&[u8]>) -> Vec<&'b [u8]> {
    v.clear();
    v.into_iter().map(|_| &[][..]).collect()
}

/// [`recycle`] for split events.
fn recycle_events<'b>(mut v: SplitEvents<'_>) -> SplitEvents<'b> {
    v.clear();
    v.into_iter().map(|_| (&[][..], &[][..])).collect()
}

/// The MonPoly time stamp of `point`: its time, or its number in an untimed
/// trace.
fn stamp(point: &TimePoint<'_>) -> u64 {
    if point.timed {
        point.time
    } else {
        point.number
    }
}
