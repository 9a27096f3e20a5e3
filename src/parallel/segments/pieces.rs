//! What a segment's worker hands the merger (counts of events, events
//! with violations, its end) and how the merger hands them on in order
//! (see [`super`]).

use super::super::batch::{Batch, Ev};
use super::super::worker::{Found, Worker};
use super::super::{Args, EventView, Outcome, Stopped};
use crate::runtime::Snapshot;

/// Events by name: per event name, its index in the plan's events
/// (`None`: unknown), its bytes and its count.
type Counts = Vec<(Option<u32>, Box<[u8]>, u64)>;

/// What a segment's worker hands the merger, in order.
pub(super) enum Piece {
    /// Its state after the warm-up (`None`: it could not be taken, or the
    /// warm-up failed).
    Start(Option<Vec<Snapshot>>),
    /// Events of the segment with no violation.
    Counts(Counts),
    /// An event with violations, on a line of the segment (the merger
    /// numbers the events).
    Violated {
        line: u64,
        name_index: Option<u32>,
        fields: Vec<Box<[u8]>>,
        props: Vec<usize>,
    },
    /// The segment's end: why it stopped early (lines within the
    /// segment), and the worker, whose monitor is at its end.
    End {
        stopped: Option<Stopped>,
        worker: Box<Option<Worker>>,
    },
}

/// The pieces of `batch` as `found` monitored it: counts, and the events
/// with violations; and a monitor error, which ends it.
pub(super) fn pieces(batch: &Batch, found: &Found) -> (Vec<Piece>, Option<Stopped>) {
    let mut out = Vec::new();
    let mut counts: Counts = Vec::new();
    let add = |counts: &mut Counts, ev: &Ev, n: u64| {
        let index = (ev.name != u32::MAX).then_some(ev.name);
        let name = batch.name_of(ev);
        // A known name by its index; an unknown one by its bytes.
        let same = |(i, b, _): &&mut (Option<u32>, Box<[u8]>, u64)| {
            *i == index && (index.is_some() || **b == *name)
        };
        match counts.iter_mut().find(same) {
            Some(c) => c.2 += n,
            None => counts.push((index, name.into(), n)),
        }
    };
    let mut next = 0;
    let mut fields = Vec::new();
    for ev in &batch.events {
        if let Some((number, line, error)) = &found.error
            && *number == ev.number
        {
            if !counts.is_empty() {
                out.push(Piece::Counts(std::mem::take(&mut counts)));
            }
            let stopped = Stopped::Monitor {
                line: *line,
                error: error.clone(),
                last: None,
            };
            return (out, Some(stopped));
        }
        let last = ev.number + ev.repeats;
        let mut number = ev.number;
        while number <= last {
            let v = &found.violations;
            if next < v.len() && v[next].0 == number {
                let mut props = Vec::new();
                while next < v.len() && v[next].0 == number {
                    props.push(v[next].1);
                    next += 1;
                }
                if !counts.is_empty() {
                    out.push(Piece::Counts(std::mem::take(&mut counts)));
                }
                batch.fields_of(ev, &mut fields);
                out.push(Piece::Violated {
                    line: ev.line + (number - ev.number),
                    name_index: (ev.name != u32::MAX).then_some(ev.name),
                    fields: fields.iter().map(|f| Box::from(*f)).collect(),
                    props,
                });
                number += 1;
            } else {
                // Up to the next violation, or the end of the run.
                let upto = v.get(next).map_or(last, |x| (x.0 - 1).min(last));
                add(&mut counts, ev, upto - number + 1);
                number = upto + 1;
            }
        }
    }
    if !counts.is_empty() {
        out.push(Piece::Counts(counts));
    }
    (out, None)
}

/// The merger's side: events handed on so far.
pub(super) struct Merge {
    pub(super) events: u64,
    pub(super) outcome: Outcome,
}

impl Merge {
    /// Hands `piece` of a segment after `lines` lines on (at its end, its
    /// worker to `truth`); false when the run stops.
    pub(super) fn piece(
        &mut self,
        piece: Piece,
        lines: u64,
        truth: &mut Option<Worker>,
        on_event: &mut impl FnMut(&EventView<'_>, &[usize]) -> bool,
    ) -> bool {
        match piece {
            Piece::Start(_) => true,
            Piece::Counts(counts) => {
                for (index, name, n) in counts {
                    let mut v = view_of(self.events + 1, lines + 1, &name, index);
                    v.repeats = n - 1;
                    self.events += n;
                    if !on_event(&v, &[]) {
                        self.outcome.stopped = Some(Stopped::ByCaller);
                        return false;
                    }
                }
                true
            }
            Piece::Violated {
                line,
                name_index,
                fields,
                props,
            } => {
                let args: Vec<&[u8]> = fields[1..].iter().map(|f| &**f).collect();
                let mut v = view_of(self.events + 1, lines + line, &fields[0], name_index);
                v.args = Args::from_fields(&args);
                self.events += 1;
                if !on_event(&v, &props) {
                    self.outcome.stopped = Some(Stopped::ByCaller);
                    return false;
                }
                true
            }
            Piece::End { stopped, worker } => {
                *truth = *worker;
                if let Some(w) = truth {
                    let (c, r) = w.gc();
                    self.outcome.gc = (self.outcome.gc.0 + c, self.outcome.gc.1 + r);
                }
                self.outcome.stopped = stopped.map(|s| shift(s, lines));
                self.outcome.stopped.is_none()
            }
        }
    }
}

/// A view of the event `number` on `line`, untimed, without arguments.
fn view_of(number: u64, line: u64, name: &[u8], name_index: Option<u32>) -> EventView<'_> {
    EventView {
        number,
        line,
        time: 0,
        name,
        name_index,
        args: Args::from_fields(&[]),
        repeats: 0,
        bytes_read: 0,
        timed: false,
    }
}

/// `stopped`, with a line within a segment moved to the whole file's.
fn shift(stopped: Stopped, lines: u64) -> Stopped {
    match stopped {
        Stopped::Trace(mut e) => {
            e.line += lines;
            Stopped::Trace(e)
        }
        Stopped::Monitor { line, error, last } => Stopped::Monitor {
            line: line + lines,
            error,
            last,
        },
        other => other,
    }
}
