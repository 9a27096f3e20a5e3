//! One Timely Dataflow worker of a cluster run.
//!
//! The dataflow, with pieces of the trace stamped by their position
//! (`part << 40 | piece`):
//!
//! ```text
//! input ─┬─ broadcast ── Monitor (each worker: its units, pieces in time order) ─┐
//!        └────────────────────────────────────────────────────────── concat ──── exchange to worker 0 ── Print
//! ```
//!
//! The reading worker feeds the input and waits, after each piece, until
//! the monitors are at most [`LAG`] pieces behind, so memory stays bounded.
//! `Print` hands each piece, once complete (the frontier has passed it),
//! with its verdicts to the main thread.

use std::collections::BTreeMap;
use std::sync::Arc;

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::vec::{Broadcast, Map};
use timely::dataflow::operators::{Concat, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

use super::piece::{Msg, Piece, read_pieces};
use super::{Delivery, InputMode, Shared};
use crate::parallel::worker::Route;
use crate::parallel::{distribute, for_monitors};
use crate::runtime::Monitor;

/// Pieces the reader may be ahead of the monitors.
const LAG: u64 = 8;
/// The bits of a time stamp that number the pieces of a part.
const PART_SHIFT: u32 = 40;

/// The monitors of one worker.
struct Units {
    monitors: Vec<(Monitor, Vec<usize>, Route)>,
    /// Why they could not be built, or the first event they refused.
    failed: Option<String>,
    reported: bool,
    worker: u32,
}

impl Units {
    fn new(shared: &Shared, worker: usize, peers: usize) -> Units {
        let mut all = distribute(&shared.plan, peers);
        let options = for_monitors(&shared.options, all.iter().map(Vec::len).sum());
        let mine = if worker < all.len() {
            std::mem::take(&mut all[worker])
        } else {
            Vec::new()
        };
        let mut units = Units {
            monitors: Vec::new(),
            failed: None,
            reported: false,
            worker: worker as u32,
        };
        for u in mine {
            match Monitor::new(u.plan, options.clone()) {
                Ok(m) => units.monitors.push((m, u.global, u.route)),
                Err(e) => units.failed = Some(e.to_string()),
            }
        }
        units
    }

    /// Steps every monitor through `piece`: delivered or as a tick.
    fn step(&mut self, piece: &Piece, give: &mut impl FnMut(Msg)) {
        if let Some(message) = &self.failed {
            if !self.reported && !piece.events.is_empty() {
                self.reported = true;
                give(Msg::Refused {
                    index: 0,
                    message: message.clone(),
                });
            }
            return;
        }
        let mut fields = Vec::new();
        'events: for (index, ev) in piece.events.iter().enumerate() {
            piece.fields_of(ev, &mut fields);
            for (monitor, global, route) in &mut self.monitors {
                let delivered = route.delivers(&fields);
                let result = route.step(monitor, delivered, &fields, ev.time, |i| {
                    give(Msg::Violated {
                        index: index as u32,
                        property: global[i] as u32,
                    });
                });
                match result {
                    Ok(()) => {}
                    Err(e) => {
                        let message = e.to_string();
                        give(Msg::Refused {
                            index: index as u32,
                            message: message.clone(),
                        });
                        self.failed = Some(message);
                        self.reported = true;
                        break 'events;
                    }
                }
            }
        }
        let (collections, released) = self
            .monitors
            .iter()
            .map(|(m, _, _)| m.gc_stats())
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        give(Msg::Gc {
            worker: self.worker,
            collections,
            released,
        });
    }
}

/// The pieces of one time, with what the monitors said about them.
#[derive(Default)]
struct Pending {
    piece: Option<Piece>,
    msgs: Vec<Msg>,
}

/// Runs one worker of the cluster run described by `shared`.
pub(super) fn work(worker: &mut Worker, shared: &Arc<Shared>) {
    let index = worker.index();
    let peers = worker.peers();
    let mut units = Units::new(shared, index, peers);
    let printer = if index == 0 {
        shared.to_main.lock().ok().and_then(|mut tx| tx.take())
    } else {
        None
    };
    let mut input = InputHandle::<u64, CapacityContainerBuilder<Vec<Piece>>>::new();
    let probe = ProbeHandle::new();
    worker.dataflow::<u64, _, _>(|scope| {
        let raw = input.to_stream(scope);
        let verdicts = raw
            .clone()
            .broadcast()
            .unary_frontier::<CapacityContainerBuilder<Vec<Msg>>, _, _, _>(
                Pipeline,
                "Monitor",
                move |_capability, _info| {
                    let mut queues = BTreeMap::new();
                    move |(input, frontier), output| {
                        input.for_each_stamp(|cap, data| {
                            if let Some(cap) = cap.retain_least(output.output_index()) {
                                let queue = queues
                                    .entry(*cap.time())
                                    .or_insert_with(|| (cap, Vec::new()));
                                for batch in data {
                                    queue.1.append(batch);
                                }
                            }
                        });
                        while let Some(entry) = queues.first_entry() {
                            if frontier.less_equal(entry.key()) {
                                break;
                            }
                            let (cap, pieces) = entry.remove();
                            let mut session = output.session(&cap);
                            for piece in &pieces {
                                units.step(piece, &mut |m| session.give(m));
                            }
                        }
                    }
                },
            )
            .probe_with(&probe);
        let mut pending: BTreeMap<u64, Pending> = BTreeMap::new();
        let mut gc: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        raw.map(Msg::Piece).concat(verdicts).sink(
            Exchange::new(|_: &Msg| 0),
            "Print",
            move |(input, frontier)| {
                input.for_each_stamp(|cap, data| {
                    // Every message is sent at one time.
                    let Some(&time) = cap.least() else { return };
                    let p = pending.entry(time).or_default();
                    for batch in data {
                        for msg in batch.drain(..) {
                            match msg {
                                Msg::Piece(piece) => p.piece = Some(piece),
                                Msg::Gc {
                                    worker,
                                    collections,
                                    released,
                                } => {
                                    gc.insert(worker, (collections, released));
                                }
                                other => p.msgs.push(other),
                            }
                        }
                    }
                });
                while let Some(entry) = pending.first_entry() {
                    if frontier.less_equal(entry.key()) {
                        break;
                    }
                    let done = entry.remove();
                    let (Some(tx), Some(piece)) = (&printer, done.piece) else {
                        continue;
                    };
                    let mut violated = Vec::new();
                    let mut refused = None;
                    for msg in done.msgs {
                        match msg {
                            Msg::Violated { index, property } => violated.push((index, property)),
                            Msg::Refused { index, message } => {
                                if refused.as_ref().is_none_or(|(i, _)| index < *i) {
                                    refused = Some((index, message));
                                }
                            }
                            Msg::Piece(_) | Msg::Gc { .. } => {}
                        }
                    }
                    violated.sort_unstable();
                    violated.dedup();
                    let gc = gc.values().fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
                    // A main thread that stopped listening ends nothing here:
                    // its reader stops, and the dataflow drains.
                    let _ = tx.send(Delivery {
                        piece,
                        violated,
                        refused,
                        gc,
                    });
                }
            },
        );
    });
    let part = match shared.config.input {
        InputMode::Shared if index == 0 => Some(0u64),
        InputMode::PerProcess if index.is_multiple_of(shared.config.workers.max(1)) => {
            Some(shared.config.process as u64)
        }
        _ => None,
    };
    let source = part.and_then(|_| shared.source.lock().ok().and_then(|mut s| s.take()));
    if let (Some(part), Some(source)) = (part, source) {
        let base = part << PART_SHIFT;
        input.advance_to(base);
        let mut next = base;
        let stop = || (shared.stop)();
        read_pieces(
            source.reader,
            &shared.arity,
            &source.name,
            part as u32,
            &stop,
            |piece| {
                input.send(piece);
                next += 1;
                input.advance_to(next);
                while probe.less_than(&next.saturating_sub(LAG).max(base)) {
                    worker.step();
                }
                true
            },
        );
    }
    drop(input);
}
