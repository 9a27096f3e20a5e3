//! The merger: the workers' answers to each block ([`Found`]) turned into
//! the trace's events, in order, each handed on once every worker has
//! decided it, with the properties violated at it (a violation that
//! several slices or parts find, once).
//!
//! The events are numbered in order, one after the other, but for the
//! numbers of bad time-points skipped (`--timepoints`: see
//! [`super::read::Blocks::timepoints`]), which no block holds.
//!
//! Without future operators every answer decides its whole block, and the
//! merger hands a block on as soon as it has every worker's answer. With
//! them, a block is held until its steps are decided; at the end of the
//! trace the steps left are handed on after [`Sink::ended`]: each decided
//! one with its violations, each undecided one with the properties that
//! did not decide it ([`Sink::undecided`]), as the sequential run reports
//! them at its end.

use std::collections::VecDeque;
use std::sync::Arc;

use super::block::{Block, Ev};
use super::read::Skipped;
use super::worker::{Found, Work};
use super::{EventView, Outcome, Sink, Stop};
use crate::runtime::StepError;

/// What the merger knows of one worker.
#[derive(Debug, Default)]
struct Answered {
    /// Every event up to this one is decided by the worker.
    decided: u64,
    /// Its steps left undecided, once finished (see [`Found::undecided`]).
    undecided: Vec<(u64, Vec<usize>)>,
    /// Its open properties before it finished (see [`Found::open`]).
    open: Vec<(u64, usize)>,
    finished: bool,
    gc: (u64, u64),
    work: Work,
}

/// The merge of the workers' answers, block after block.
#[derive(Default)]
pub struct Merger {
    /// How the run ended, so far.
    pub outcome: Outcome,
    /// Blocks with events not handed on yet, in order.
    held: VecDeque<Arc<Block>>,
    /// Of the first held block: the index of the first event not wholly
    /// handed on.
    at: usize,
    /// The number of the next event to hand on.
    next: u64,
    /// Violations found at events not handed on yet (sorted when used).
    violations: Vec<(u64, usize)>,
    workers: Vec<Answered>,
    /// Blocks wholly handed on, for the caller to take back.
    spent: Vec<Arc<Block>>,
    violated: Vec<usize>,
    /// Bad lines skipped and not handed on yet, in order.
    skipped: VecDeque<Skipped>,
}

impl Merger {
    /// A merger of the answers of `workers` workers.
    pub fn new(workers: usize) -> Merger {
        Merger {
            next: 1,
            workers: (0..workers).map(|_| Answered::default()).collect(),
            ..Merger::default()
        }
    }

    /// From the next block on, the answers come from `workers` new workers
    /// (the layout changed; they stepped every event so far, and what they
    /// found in the events already handed on is dropped).
    pub fn switch(&mut self, workers: usize) {
        self.workers = (0..workers).map(|_| Answered::default()).collect();
        self.outcome.revised = true;
    }

    /// The blocks wholly handed on since the last call (to be filled again).
    pub fn spent(&mut self) -> std::vec::Drain<'_, Arc<Block>> {
        self.spent.drain(..)
    }

    /// Takes `found`, every worker's answer to `block` (`None` for a worker
    /// that failed), in worker order, and hands on every event now decided
    /// to `sink`. False when the run ends here: at the end of the trace,
    /// at an error (then [`Outcome::stopped`] says which), or when `sink`
    /// asks to stop.
    pub fn block(
        &mut self,
        block: Arc<Block>,
        found: impl IntoIterator<Item = Option<Found>>,
        sink: &mut impl Sink,
    ) -> bool {
        let mut error: Option<(u64, u64, StepError)> = None;
        let mut samples = Vec::new();
        for (w, found) in found.into_iter().enumerate() {
            let Some(mut found) = found else {
                self.outcome.stopped = Some(Stop::Refused {
                    line: block.events.first().map_or(0, |e| e.line),
                    error: StepError::OutOfCodes {
                        property: "(a worker thread failed)".into(),
                        bits: crate::runtime::MAX_CODE_BITS,
                    },
                    last: None,
                });
                return false;
            };
            if let Some(e) = found.error.clone()
                && error.as_ref().is_none_or(|f| e.0 < f.0)
            {
                error = Some(e);
            }
            if w >= self.workers.len() {
                self.workers.resize_with(w + 1, Answered::default);
            }
            let next = self.next;
            let a = &mut self.workers[w];
            a.decided = a.decided.max(found.decided);
            a.finished |= found.finished;
            a.gc = found.gc;
            a.work = found.work;
            a.open = found.open;
            if found.finished {
                a.undecided = found.undecided;
            }
            let fresh = found.violations.into_iter().filter(|v| v.0 >= next);
            self.violations.extend(fresh);
            samples.push(std::mem::take(&mut found.samples));
        }
        profile_rows(&samples, sink);
        self.outcome.gc = (self.workers.iter()).fold((0, 0), |(a, b), w| (a + w.gc.0, b + w.gc.1));
        self.outcome.work = (self.workers.iter()).fold(Work::default(), |a, w| a.plus(w.work));
        let end = block.end.clone();
        let ends = block.last;
        self.skipped.extend(block.skipped.iter().cloned());
        self.held.push_back(block);
        self.violations.sort_unstable();
        self.violations.dedup();
        let decided = self.workers.iter().map(|w| w.decided).min().unwrap_or(0);
        if let Some((number, line, e)) = error {
            // The events before the refused one, then the error.
            let go_on =
                self.hand_on(decided.min(number - 1), sink) && self.hand_on_tail(number - 1, sink);
            if go_on {
                self.skipped_before(line, sink);
                self.outcome.stopped = Some(Stop::Refused {
                    line,
                    error: e,
                    last: None,
                });
            }
            return false;
        }
        if !self.hand_on(decided, sink) {
            return false;
        }
        if !ends {
            return true;
        }
        // The trace ended (or its reading stopped): every worker answered
        // for the last time, and every held event is handed on.
        if self.hand_on_tail(u64::MAX, sink) {
            self.skipped_before(u64::MAX, sink);
            self.outcome.stopped = end;
        }
        false
    }

    /// Hands on the bad lines skipped before line `line`.
    fn skipped_before(&mut self, line: u64, sink: &mut impl Sink) {
        while self.skipped.front().is_some_and(|s| s.line() < line) {
            if let Some(s) = self.skipped.pop_front() {
                sink.skipped(&s);
            }
        }
    }

    /// Hands on the events from the next one up to event `upto`; false
    /// when the sink asks to stop.
    fn hand_on(&mut self, upto: u64, sink: &mut impl Sink) -> bool {
        let mut v = 0;
        let mut go_on = true;
        'blocks: while let Some(block) = self.held.front().cloned() {
            while let Some(ev) = block.events.get(self.at) {
                // Past the numbers of bad time-points skipped before it.
                self.next = self.next.max(ev.number);
                if self.next > upto {
                    break 'blocks;
                }
                if self.next == ev.number && self.skipped.is_empty() {
                    // The whole events up to the next violation, at once.
                    let bound = (self.violations.get(v)).map_or(upto, |x| (x.0 - 1).min(upto));
                    let quiet = block.events[self.at..]
                        .iter()
                        .take_while(|e| e.last() <= bound)
                        .count();
                    if quiet > 0 {
                        let events = &block.events[self.at..self.at + quiet];
                        let more = sink.quiet(&block, events);
                        self.next = events[quiet - 1].last() + 1;
                        self.at += quiet;
                        if !more {
                            self.outcome.stopped = Some(Stop::ByCaller);
                            go_on = false;
                            break 'blocks;
                        }
                        continue;
                    }
                }
                let last = ev.last().min(upto);
                let mut view = view(&block, ev, self.next);
                // The event, then its repeats: each violated one on its
                // own, the others in stretches.
                while view.number <= last {
                    self.violated.clear();
                    while v < self.violations.len() && self.violations[v].0 < view.number {
                        v += 1;
                    }
                    while v < self.violations.len() && self.violations[v].0 == view.number {
                        self.violated.push(self.violations[v].1);
                        v += 1;
                    }
                    view.repeats = if self.violated.is_empty() {
                        let end = (self.violations.get(v))
                            .map_or(last, |x| x.0.saturating_sub(1).min(last));
                        end - view.number
                    } else {
                        0
                    };
                    view.line = ev.line + (view.number - ev.number);
                    if !self.skipped.is_empty() {
                        self.skipped_before(view.line, sink);
                    }
                    if !sink.event(&view, &self.violated) {
                        self.outcome.stopped = Some(Stop::ByCaller);
                        go_on = false;
                        break 'blocks;
                    }
                    view.number += view.repeats + 1;
                }
                self.next = last + 1;
                if last < ev.last() {
                    break 'blocks;
                }
                self.at += 1;
            }
            self.at = 0;
            if let Some(spent) = self.held.pop_front() {
                self.spent.push(spent);
            }
        }
        self.violations.drain(..v);
        go_on
    }

    /// At the end of the run: hands on the events from the next one up to
    /// `limit` (decided late, or undecided), one by one, after
    /// [`Sink::ended`]; false when the sink asks to stop.
    fn hand_on_tail(&mut self, limit: u64, sink: &mut impl Sink) -> bool {
        if self.next > limit {
            return true;
        }
        sink.ended();
        let mut undecided: Vec<usize> = Vec::new();
        while let Some(block) = self.held.front().cloned() {
            while let Some(ev) = block.events.get(self.at) {
                self.next = self.next.max(ev.number);
                while self.next <= ev.last() {
                    if self.next > limit {
                        return true;
                    }
                    let mut view = view(&block, ev, self.next);
                    view.line = ev.line + (self.next - ev.number);
                    self.skipped_before(view.line, sink);
                    self.undecided_at(self.next, &mut undecided);
                    let go_on = if undecided.is_empty() {
                        self.violated.clear();
                        let number = self.next;
                        (self.violations.iter())
                            .filter(|v| v.0 == number)
                            .for_each(|v| self.violated.push(v.1));
                        sink.event(&view, &self.violated)
                    } else {
                        sink.undecided(&view, &undecided)
                    };
                    if !go_on {
                        self.outcome.stopped = Some(Stop::ByCaller);
                        return false;
                    }
                    self.next += 1;
                }
                self.at += 1;
            }
            self.at = 0;
            if let Some(spent) = self.held.pop_front() {
                self.spent.push(spent);
            }
        }
        true
    }

    /// The properties that left event `number` undecided, into `out`
    /// (sorted): those a finished worker says so of, and the open ones of
    /// a worker that stopped before deciding it.
    fn undecided_at(&self, number: u64, out: &mut Vec<usize>) {
        out.clear();
        for w in &self.workers {
            if w.finished {
                if let Ok(i) = w.undecided.binary_search_by_key(&number, |u| u.0) {
                    out.extend_from_slice(&w.undecided[i].1);
                }
            } else {
                out.extend(w.open.iter().filter(|o| o.0 < number).map(|o| o.1));
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// The profile's rows of the workers' `samples` of one block (in worker
/// order): per event sampled, every worker's values one after the other.
/// Every worker samples the same events (they step every event of every
/// block); an event that some worker did not sample (it stopped at an
/// error) has no row.
fn profile_rows(samples: &[Vec<(u64, Vec<u64>)>], sink: &mut impl Sink) {
    let Some(first) = samples.first() else {
        return;
    };
    let mut row = Vec::new();
    for (i, (event, _)) in first.iter().enumerate() {
        row.clear();
        for s in samples {
            match s.get(i) {
                Some((e, values)) if e == event => row.extend_from_slice(values),
                _ => return,
            }
        }
        sink.profile(*event, &row);
    }
}

/// The view of event `number` of `ev` (itself or one of its repeats) in
/// `block`, without repeats.
fn view<'a>(block: &'a Block, ev: &Ev, number: u64) -> EventView<'a> {
    EventView {
        number,
        line: ev.line,
        time: ev.time,
        name: block.name_of(ev),
        name_index: (ev.name != u32::MAX).then_some(ev.name),
        args: block.args_of(ev),
        repeats: 0,
        bytes_read: block.bytes_read,
        timed: block.timed,
    }
}

/// Hands the whole events `events` of `block` (with their repeats, none
/// violated) on to `sink` one by one ([`Sink::event`]); false when it asks
/// to stop.
pub fn one_by_one(sink: &mut (impl Sink + ?Sized), block: &Block, events: &[Ev]) -> bool {
    events.iter().all(|ev| {
        let mut view = view(block, ev, ev.number);
        view.repeats = ev.repeats;
        sink.event(&view, &[])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::read::{Blocks, Names};
    use crate::trace::{Format, TraceOptions, TraceReader};

    /// What a sink was handed: `(first number, events)` per stretch, and
    /// `(number, properties)` per event handed on by itself.
    #[derive(Default)]
    struct Calls {
        quiet: Vec<(u64, usize)>,
        event: Vec<(u64, Vec<usize>)>,
    }

    impl Sink for Calls {
        fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
            self.event.push((ev.number, violated.to_vec()));
            true
        }

        fn quiet(&mut self, _block: &Block, events: &[Ev]) -> bool {
            self.quiet.push((events[0].number, events.len()));
            true
        }
    }

    #[test]
    fn events_between_violations_are_handed_on_as_stretches() {
        let names: Names = [(b"p".as_slice().into(), (0, 1))].into();
        let trace = (1..=6).map(|i| format!("p,{i}\n")).collect::<String>();
        let options = TraceOptions {
            timed: false,
            format: Format::Plain,
        };
        let stop = || false;
        let mut source = Blocks::new(TraceReader::new(trace.as_bytes(), options), &names, &stop);
        let block = Arc::new(source.next_block().expect("a block"));
        assert!(block.last);
        let found = Found {
            violations: vec![(3, 0), (4, 1)],
            decided: 6,
            finished: true,
            ..Found::default()
        };
        let mut calls = Calls::default();
        let mut merger = Merger::new(1);
        assert!(!merger.block(block, [Some(found)], &mut calls));
        assert_eq!(calls.quiet, vec![(1, 2), (5, 2)]);
        assert_eq!(calls.event, vec![(3, vec![0]), (4, vec![1])]);
    }

    #[test]
    fn the_numbers_of_time_points_skipped_are_stepped_over() {
        let names: Names = [(b"p".as_slice().into(), (0, 1))].into();
        // Records 2 and 5 have another arity: as time-points, skipped with
        // their numbers.
        let trace = "p,1\np,2,x\np,3\np,4\np,5,x\np,6\n";
        let options = TraceOptions {
            timed: false,
            format: Format::Plain,
        };
        let stop = || false;
        let reader = TraceReader::new(trace.as_bytes(), options).skip_bad_events(true);
        let mut source = Blocks::new(reader, &names, &stop)
            .skipping(false)
            .timepoints();
        let block = Arc::new(source.next_block().expect("a block"));
        let found = Found {
            violations: vec![(4, 0)],
            decided: 6,
            finished: true,
            ..Found::default()
        };
        let mut calls = Calls::default();
        let mut merger = Merger::new(1);
        assert!(!merger.block(block, [Some(found)], &mut calls));
        // One by one (bad lines to hand on between them): 1, 3, 4
        // (violated) and 6, never 2 or 5.
        assert!(calls.quiet.is_empty());
        let want = vec![(1, vec![]), (3, vec![]), (4, vec![0]), (6, vec![])];
        assert_eq!(calls.event, want);
    }
}
