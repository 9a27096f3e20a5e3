//! A whole time-point as one step: MonPoly's semantics, where all the
//! events of a time-point hold at once (`timepoints`, and an MFOTL session
//! on a MonPoly log). A violation names the time-point's number, and the
//! event of the time-point that the violation is due to: see
//! [`crate::runtime::Monitor::culprit`].

use std::ops::ControlFlow;

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
        self.point_buf = buf;
        flow
    }

    /// Steps the time-point `point` whose typed events are in `buf`.
    fn step_point<P: Report + ?Sized>(
        &mut self,
        point: &TimePoint<'_>,
        buf: &PointBuf,
        out: &mut P,
    ) -> ControlFlow<()> {
        let fields: Vec<&[u8]> = (0..buf.ends.len()).map(|i| buf.field(i)).collect();
        let events: Vec<(&[u8], &[&[u8]])> = (buf.events.iter())
            .map(|&(name, n, _)| (fields[name], &fields[name + 1..name + 1 + n]))
            .collect();
        if let Err(e) = self.monitor.step_set(&events, point.time) {
            self.error = Some(RunError::step(point.line, e, false, None));
            return ControlFlow::Break(());
        }
        for (name, args) in &events {
            self.counts.add(name);
            if super::read::FirstEvents::wants(point.number) {
                let args = args.iter().copied();
                self.first.note(point.number, point.line, name, args);
            }
        }
        let ts = if point.timed {
            point.time
        } else {
            point.number
        };
        let lines: Vec<u64> = buf.events.iter().map(|e| e.2).collect();
        if self.monitor.has_future() {
            let at = (point.time, point.timed, point.line);
            return self.hold_point(&events, &lines, point.number, ts, at, out);
        }
        if self.monitor.violated().is_empty() {
            return ControlFlow::Continue(());
        }
        for i in 0..self.monitor.violated().len() {
            let property = self.monitor.violated()[i];
            // The event the violation is due to; the time-point's first
            // when it is due to no one event (or the time-point has none).
            let culprit = self.monitor.culprit(property, &events).unwrap_or(0);
            let (name, args, line) = match events.get(culprit) {
                Some(&(name, args)) => (name, args, lines[culprit]),
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

/// The typed events of a time-point: their fields (names and arguments)
/// one after the other in `bytes`, each field's end in `ends`, and per
/// event its name's field, its number of arguments and its line.
#[derive(Debug, Default)]
pub(super) struct PointBuf {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    events: Vec<(usize, usize, u64)>,
}

impl PointBuf {
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.events.clear();
    }

    /// Field `i`.
    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }
}
