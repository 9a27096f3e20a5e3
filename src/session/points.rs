//! A whole time-point as one step: MonPoly's semantics, where all the
//! events of a time-point hold at once (`timepoints`, and an MFOTL session
//! on a MonPoly log). A violation names the time-point's number, and the
//! event of the time-point that the violation is due to: see
//! [`crate::runtime::Monitor::culprit`].

use std::borrow::Cow;
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
        let mut typed: Vec<Vec<Cow<'_, [u8]>>> = Vec::with_capacity(point.len());
        for e in point.events() {
            let raw: Vec<&[u8]> = e.args().collect();
            let args = match &self.typing {
                None => raw.into_iter().map(Cow::Borrowed).collect(),
                Some(typing) => match typing.read(e.name, &raw) {
                    Ok(args) => args
                        .into_iter()
                        .map(|a| Cow::Owned(a.into_owned()))
                        .collect(),
                    Err(m) => {
                        let error = misfit(typing, &e, m);
                        if self.skip() {
                            // The whole time-point is left out.
                            self.bad.skip(error.line, || error.to_string());
                            return ControlFlow::Continue(());
                        }
                        self.error = Some(RunError::Trace(error));
                        return ControlFlow::Break(());
                    }
                },
            };
            typed.push(args);
        }
        let args: Vec<Vec<&[u8]>> = typed
            .iter()
            .map(|a| a.iter().map(|c| &**c).collect())
            .collect();
        let events: Vec<(&[u8], &[&[u8]])> = point
            .events()
            .zip(&args)
            .map(|(e, args)| (e.name, &args[..]))
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
        let lines: Vec<u64> = point.events().map(|e| e.line).collect();
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
