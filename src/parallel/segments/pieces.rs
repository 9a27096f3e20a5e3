//! What a segment's worker hands the merger (counts of events, events
//! with violations, its end) and how the merger hands them on in order
//! (see [`super`]).

use super::super::worker::{Work, Worker};
use super::super::{Args, EventView, Outcome, Sink, Stop};
use crate::runtime::Snapshot;

/// Events by name: per event name, its index in the plan's events
/// (`None`: unknown), its bytes, its count and the line (in the segment)
/// of the first (where a `--strict` run stops at an unknown one).
type Counts = Vec<(Option<u32>, Box<[u8]>, u64, u64)>;

/// What a segment's worker hands the merger, in order.
pub(super) enum Piece {
    /// Its state after the warm-up (`None`: it could not be taken, or the
    /// warm-up failed), and what its monitors had done before it (a
    /// take-over's, whose monitor the merger already counted: see
    /// [`super::cut`]).
    Start {
        state: Option<Vec<Snapshot>>,
        before: Done,
    },
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
        stopped: Option<Stop>,
        worker: Box<Option<Worker>>,
    },
}

/// A segment's events, as its worker's merger hands them on, turned into
/// pieces: counts of the events without violations, and each event with
/// violations, handed to `send` as they fill up.
pub(super) struct Pieces<F: FnMut(Piece) -> bool> {
    counts: Counts,
    /// Per index of a known event name: its bytes, the events counted
    /// since the last counts went and the line of the first (added to
    /// `counts` when they go).
    by_index: Vec<(Box<[u8]>, u64, u64)>,
    send: F,
    /// Whether `send` still takes pieces.
    open: bool,
}

impl<F: FnMut(Piece) -> bool> Pieces<F> {
    pub(super) fn new(send: F) -> Self {
        Pieces {
            counts: Vec::new(),
            by_index: Vec::new(),
            send,
            open: true,
        }
    }

    /// Sends `piece`; false once the receiver stopped taking them.
    pub(super) fn send(&mut self, piece: Piece) -> bool {
        self.open = self.open && (self.send)(piece);
        self.open
    }

    /// Sends the counts gathered so far; false once the receiver stopped.
    pub(super) fn flush(&mut self) -> bool {
        self.gather();
        if self.counts.is_empty() {
            return self.open;
        }
        let counts = std::mem::take(&mut self.counts);
        self.send(Piece::Counts(counts))
    }

    /// The counts by index, into `counts`.
    fn gather(&mut self) {
        for (i, (name, n, line)) in self.by_index.iter_mut().enumerate() {
            if *n > 0 {
                (self.counts).push((Some(i as u32), name.clone(), *n, *line));
                *n = 0;
            }
        }
    }
}

impl<F: FnMut(Piece) -> bool> Sink for Pieces<F> {
    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
        if violated.is_empty() {
            if let Some(i) = ev.name_index {
                // A known name by its index.
                let i = i as usize;
                if i >= self.by_index.len() {
                    self.by_index.resize_with(i + 1, Default::default);
                }
                let (name, n, line) = &mut self.by_index[i];
                if name.is_empty() {
                    *name = ev.name.into();
                }
                if *n == 0 {
                    *line = ev.line;
                }
                *n += 1 + ev.repeats;
                return true;
            }
            // An unknown one by its bytes, after the known ones before it.
            self.gather();
            let same = |(i, b, _, _): &&mut (Option<u32>, Box<[u8]>, u64, u64)| {
                *i == ev.name_index && (ev.name_index.is_some() || **b == *ev.name)
            };
            match self.counts.iter_mut().find(same) {
                Some(c) => c.2 += 1 + ev.repeats,
                None => (self.counts).push((ev.name_index, ev.name.into(), 1 + ev.repeats, ev.line)),
            }
            return true;
        }
        if !self.flush() {
            return false;
        }
        let fields = std::iter::once(ev.name).chain(ev.args.iter());
        self.send(Piece::Violated {
            line: ev.line,
            name_index: ev.name_index,
            fields: fields.map(Box::from).collect(),
            props: violated.to_vec(),
        })
    }
}

/// What a worker's monitors did: garbage collections and codes released,
/// and their work.
pub(super) type Done = ((u64, u64), Work);

/// What `worker`'s monitors did so far.
pub(super) fn done(worker: &Worker) -> Done {
    (worker.gc(), worker.work())
}

/// The merger's side: events handed on so far.
pub(super) struct Merge {
    pub(super) events: u64,
    pub(super) outcome: Outcome,
    /// What the segment's worker had done before it, counted already.
    pub(super) before: Done,
}

impl Merge {
    /// Hands `piece` of a segment after `lines` lines on (at its end, its
    /// worker to `truth`); false when the run stops.
    pub(super) fn piece(
        &mut self,
        piece: Piece,
        lines: u64,
        truth: &mut Option<Worker>,
        sink: &mut impl Sink,
    ) -> bool {
        match piece {
            Piece::Start { .. } => true,
            Piece::Counts(counts) => {
                for (index, name, n, line) in counts {
                    let mut v = view_of(self.events + 1, lines + line, &name, index);
                    v.repeats = n - 1;
                    self.events += n;
                    if !sink.event(&v, &[]) {
                        self.outcome.stopped = Some(Stop::ByCaller);
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
                if !sink.event(&v, &props) {
                    self.outcome.stopped = Some(Stop::ByCaller);
                    return false;
                }
                true
            }
            Piece::End { stopped, worker } => {
                *truth = *worker;
                if let Some(w) = truth {
                    let ((c, r), work) = done(w);
                    let ((c0, r0), work0) = std::mem::take(&mut self.before);
                    let gc = &mut self.outcome.gc;
                    *gc = (gc.0 + c.saturating_sub(c0), gc.1 + r.saturating_sub(r0));
                    self.outcome.work = self.outcome.work.plus(work.minus(work0));
                }
                self.outcome.stopped = stopped.map(|s| s.shifted(lines));
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
