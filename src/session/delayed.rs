//! Delayed verdicts in a session: with a future operator in the
//! specification, the verdict at a step is known only once the trace has
//! passed its horizon. Each step's event (or time-point) is held until
//! every property has decided it; then its violations are reported, in
//! trace order; at the end of the trace the steps left undecided are
//! reported as such ([`Report::undecided`]), never as satisfied or violated.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use super::step::Step;
use super::{EndOfTrace, Report, Session};
use crate::report::Undecided;
use crate::runtime::StepViolation;

/// The events of a step: their fields (names and arguments) one after the
/// other in `bytes`, each field's end in `ends`, and per event its name's
/// field, its number of arguments and its line. A time-point's typed
/// events are read into one; a step held until it is decided keeps its own
/// (recycled when it is reported).
#[derive(Debug, Default)]
pub(super) struct Fields {
    pub(super) bytes: Vec<u8>,
    pub(super) ends: Vec<usize>,
    pub(super) events: Vec<(usize, usize, u64)>,
}

impl Fields {
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.events.clear();
    }

    /// Field `i`.
    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Adds an event.
    fn push(&mut self, name: &[u8], args: &[&[u8]], line: u64) {
        let first = self.ends.len();
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len());
        for a in args {
            self.bytes.extend_from_slice(a);
            self.ends.push(self.bytes.len());
        }
        self.events.push((first, args.len(), line));
    }

    /// Every field, in order, into `out` (emptied first).
    pub(super) fn fields_into<'a>(&'a self, out: &mut Vec<&'a [u8]>) {
        out.clear();
        out.extend((0..self.ends.len()).map(|i| self.field(i)));
    }

    /// Each event as its name and arguments, from its `fields` (of
    /// [`fields_into`](Self::fields_into)), into `out` (emptied first).
    pub(super) fn events_into<'a>(
        &self,
        fields: &'a [&'a [u8]],
        out: &mut Vec<(&'a [u8], &'a [&'a [u8]])>,
    ) {
        out.clear();
        out.extend(
            (self.events.iter())
                .map(|&(name, n, _)| (fields[name], &fields[name + 1..name + 1 + n])),
        );
    }

    /// The line of event `i`.
    pub(super) fn line(&self, i: usize) -> u64 {
        self.events[i].2
    }

    /// Event `i`'s name, arguments and line.
    fn event(&self, i: usize) -> Option<EventParts<'_>> {
        let &(name, n, line) = self.events.get(i)?;
        let args = (name + 1..name + 1 + n).map(|k| self.field(k)).collect();
        Some((self.field(name), args, line))
    }
}

/// An event's name, arguments and line.
type EventParts<'a> = (&'a [u8], Vec<&'a [u8]>, u64);

/// A step held until every property has decided it.
#[derive(Debug)]
struct HeldStep {
    /// Its number: the event number, or the time-point's number plus one.
    number: u64,
    /// Its MonPoly time stamp.
    ts: u64,
    /// Its time in the trace, and whether the trace is timed.
    time: u64,
    timed: bool,
    /// Its line (a time-point's first line).
    line: u64,
    /// Its events (one, or a time-point's).
    events: Fields,
    /// Whether it is a time-point: a violation names the event it is due to.
    point: bool,
}

/// The steps not decided yet, in order, and the buffers of steps reported.
#[derive(Debug, Default)]
pub(super) struct Held {
    steps: VecDeque<HeldStep>,
    rooms: Vec<Fields>,
    /// The room of the steps decided at a step (kept between steps).
    decided: Vec<crate::runtime::DecidedStep>,
}

impl Held {
    /// An empty buffer for events (one of a step reported, if any).
    pub(super) fn room(&mut self) -> Fields {
        self.rooms.pop().unwrap_or_default()
    }

    /// Takes back the buffer of a step reported.
    fn recycle(&mut self, step: HeldStep) {
        let mut events = step.events;
        events.clear();
        self.rooms.push(events);
    }
}

impl Session {
    /// Holds the event `ev` just stepped, event `number` at MonPoly time
    /// stamp `ts`, then reports what its step and earlier ones decided.
    pub(super) fn hold_event<P: Report + ?Sized>(
        &mut self,
        ev: &Step<'_>,
        number: u64,
        ts: u64,
        out: &mut P,
    ) -> ControlFlow<()> {
        let mut events = self.held.room();
        events.push(ev.name, ev.args, ev.line);
        self.held.steps.push_back(HeldStep {
            number,
            ts,
            time: ev.time,
            timed: ev.timed,
            line: ev.line,
            events,
            point: false,
        });
        self.report_decided(out)
    }

    /// Holds the time-point of `events` just stepped, then reports what is
    /// decided.
    pub(super) fn hold_point<P: Report + ?Sized>(
        &mut self,
        events: Fields,
        number: u64,
        ts: u64,
        (time, timed, line): (u64, bool, u64),
        out: &mut P,
    ) -> ControlFlow<()> {
        self.held.steps.push_back(HeldStep {
            number,
            ts,
            time,
            timed,
            line,
            events,
            point: true,
        });
        self.report_decided(out)
    }

    /// Reports the violations of the steps every property has decided, in
    /// order. `Break` when the report failed, or after the first violating
    /// step with `stop_at_first`.
    pub(super) fn report_decided<P: Report + ?Sized>(&mut self, out: &mut P) -> ControlFlow<()> {
        let mut all = std::mem::take(&mut self.held.decided);
        self.monitor.take_decided_into(&mut all);
        let mut flow = ControlFlow::Continue(());
        for mut decided in all.drain(..) {
            let Some(step) = self.held.steps.pop_front() else {
                continue;
            };
            for v in &mut decided.violations {
                flow = self.report_delayed(out, &step, v);
                if flow.is_break() {
                    break;
                }
            }
            self.held.recycle(step);
            if flow.is_continue() && self.options.stop_at_first && !decided.violations.is_empty() {
                self.stopped_at_first = true;
                flow = ControlFlow::Break(());
            }
            if flow.is_break() {
                break;
            }
        }
        all.clear();
        self.held.decided = all;
        flow
    }

    /// Reports the violation `v` at the held step `step`.
    fn report_delayed<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        step: &HeldStep,
        v: &mut StepViolation,
    ) -> ControlFlow<()> {
        let named = !step.point || self.culprits_read(out);
        let blamed = if named && step.point && step.events.events.len() > 1 {
            // The buffers of the time-points' steps, lent.
            let mut fields = super::points::recycle(std::mem::take(&mut self.rooms.0));
            step.events.fields_into(&mut fields);
            let mut events = super::points::recycle_events(std::mem::take(&mut self.rooms.1));
            step.events.events_into(&fields, &mut events);
            let blamed = self.monitor.culprit_of(v, &events).unwrap_or(0);
            let events = super::points::recycle_events(events);
            self.rooms = (super::points::recycle(fields), events);
            blamed
        } else {
            0
        };
        let (name, args, line) = (named.then(|| step.events.event(blamed)).flatten()).unwrap_or((
            b"@",
            Vec::new(),
            step.line,
        ));
        let ev = Step {
            name,
            args: &args,
            time: step.time,
            line,
            timed: step.timed,
        };
        let all = (self.options.all_witnesses > 0 && !step.point)
            .then(|| (&v.all_witnesses.0[..], v.all_witnesses.1));
        let violation = ev.violation(v.property, step.number, all);
        let (count, first) = &mut self.tally[v.property];
        *count += 1;
        first.get_or_insert(step.number);
        let written = if self.options.satisfactions {
            match &self.typing {
                Some(typing) => {
                    typing.sort_tuples(&mut v.tuples);
                    out.satisfaction(&violation, step.number - 1, step.ts, &v.tuples)
                }
                None => out.satisfaction(&violation, step.number - 1, step.ts, &v.tuples),
            }
        } else {
            let witness = (self.options.witnessed(step.number)).then_some(&v.witness[..]);
            out.violation(&violation, witness)
        };
        if written.is_err() {
            self.closed = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// At the end of the trace: reports the steps decided after an
    /// undecided one, then every undecided step; returns how many there
    /// are and the first few of their numbers.
    pub(super) fn finish_delayed<P: Report + ?Sized>(&mut self, out: &mut P) -> (u64, Vec<u64>) {
        if !self.monitor.has_future() {
            return (0, Vec::new());
        }
        let close = self
            .options
            .end_of_trace
            .unwrap_or(if self.typing.is_some() {
                EndOfTrace::Close
            } else {
                EndOfTrace::Undecided
            })
            == EndOfTrace::Close;
        // A run stopped before the end of its trace does not close it: the
        // steps it holds stay undecided.
        let stopped = self.interrupted || self.error.is_some() || self.stopped_at_first;
        let open = self.monitor.finish_trace(close && !stopped);
        // Steps decided after an undecided one: reported in order, each
        // held step matched to its decision by its position.
        let base = self.monitor.events() - self.held.steps.len() as u64;
        let decided = self.monitor.take_decided();
        let mut steps: Vec<Option<HeldStep>> = self.held.steps.drain(..).map(Some).collect();
        if !self.closed && !self.stopped_at_first {
            for mut d in decided {
                let Some(step) = (d.step.checked_sub(base))
                    .and_then(|i| steps.get_mut(i as usize))
                    .and_then(Option::take)
                else {
                    continue;
                };
                for v in &mut d.violations {
                    if self.report_delayed(out, &step, v).is_break() {
                        break;
                    }
                }
            }
        }
        let names = self.monitor.property_names();
        let mut first = Vec::new();
        for (position, props) in &open {
            let Some(step) = (position.checked_sub(base))
                .and_then(|i| steps.get(i as usize))
                .and_then(Option::as_ref)
            else {
                continue;
            };
            if first.len() < FIRST_SHOWN {
                first.push(step.number);
            }
            if self.closed {
                continue;
            }
            let (name, args, line) = match step.events.event(0) {
                Some(e) if !step.point => e,
                _ => (&b"@"[..], Vec::new(), step.line),
            };
            let properties: Vec<&str> = props
                .iter()
                .filter_map(|&p| names.get(p).copied())
                .collect();
            let u = Undecided {
                event: step.number,
                line,
                name,
                args: &args,
                time: step.timed.then_some(step.time),
                properties: &properties,
            };
            if out.undecided(&u).is_err() {
                self.closed = true;
            }
        }
        (open.len() as u64, first)
    }
}

/// How many undecided step numbers the summary shows.
const FIRST_SHOWN: usize = 5;
