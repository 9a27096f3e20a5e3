//! One Timely Dataflow worker of a cluster run: a scheduler over the
//! parallel core ([`crate::parallel`]).
//!
//! The dataflow, with blocks of the trace stamped by their position
//! (`part << 40 | block`):
//!
//! ```text
//! input ─┬─ broadcast ── Monitor (each worker: its units, blocks in time order) ─┐
//!        └────────────────────────────────────────────────────────── concat ──── exchange to worker 0 ── Print
//! ```
//!
//! The reading worker feeds the input and waits, after each block, until
//! the monitors are at most [`LAG`] blocks behind, so memory stays bounded.
//! `Monitor` steps the core's [`Worker`] through each block and sends its
//! answer; `Print` hands each block, once complete (the frontier has passed
//! it), with every worker's answer to the main thread, which merges them.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::vec::{Broadcast, Map};
use timely::dataflow::operators::{Concat, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker as Timely;

use super::{Delivery, InputMode, Numbering, Shared};
use crate::parallel::read::{Blocks, names};
use crate::parallel::{Block, Found, Worker, for_monitors, planner};

/// Blocks the reader may be ahead of the monitors.
const LAG: u64 = 8;
/// The bits of a time stamp that number the blocks of a part.
const PART_SHIFT: u32 = 40;

/// What goes to the printer (worker 0).
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Msg {
    /// A block of the trace, as read (from the reading worker).
    Block(Block),
    /// Worker `worker`'s answer to the block of the same time.
    Found { worker: u32, found: Found },
}

/// The monitors of one timely worker: the core's worker of its units (or
/// why they could not be built), and the numbering of the parts.
struct Units {
    worker: Result<Worker, crate::runtime::StepError>,
    numbering: Numbering,
    close: bool,
    reported: bool,
}

impl Units {
    fn new(shared: &Shared, worker: usize, peers: usize) -> Units {
        let mut all = planner::layout_without_sample(&shared.plan, peers);
        let options = for_monitors(&shared.options.monitor, all.iter().map(Vec::len).sum());
        let mine = if worker < all.len() {
            std::mem::take(&mut all[worker])
        } else {
            Vec::new()
        };
        Units {
            worker: Worker::new(mine, &options),
            numbering: Numbering::default(),
            close: shared.options.close,
            reported: false,
        }
    }

    /// The answer to `block`, numbered through the parts.
    fn answer(&mut self, block: &mut Block) -> Found {
        self.numbering.apply(block, false);
        match &mut self.worker {
            Ok(w) => {
                let mut found = w.process(block);
                if block.last {
                    w.finish(self.close && block.end.is_none(), &mut found);
                }
                found
            }
            // Reported once, at the first event, as a sequential run
            // fails before it reads any.
            Err(e) => Found {
                error: (!std::mem::replace(&mut self.reported, true)).then(|| (1, 0, e.clone())),
                finished: true,
                ..Found::default()
            },
        }
    }
}

/// The block of one time, and the workers' answers to it.
#[derive(Default)]
struct Pending {
    block: Option<Block>,
    found: Vec<(u32, Found)>,
}

/// Runs one worker of the cluster run described by `shared`.
pub(super) fn work(worker: &mut Timely, shared: &Arc<Shared>) {
    let index = worker.index();
    let peers = worker.peers();
    let mut units = Units::new(shared, index, peers);
    let printer = if index == 0 {
        shared.to_main.lock().ok().and_then(|mut tx| tx.take())
    } else {
        None
    };
    let mut input = InputHandle::<u64, CapacityContainerBuilder<Vec<Block>>>::new();
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
                                for blocks in data {
                                    queue.1.append(blocks);
                                }
                            }
                        });
                        while let Some(entry) = queues.first_entry() {
                            if frontier.less_equal(entry.key()) {
                                break;
                            }
                            let (cap, blocks) = entry.remove();
                            let mut session = output.session(&cap);
                            for mut block in blocks {
                                let found = units.answer(&mut block);
                                session.give(Msg::Found {
                                    worker: index as u32,
                                    found,
                                });
                            }
                        }
                    }
                },
            )
            .probe_with(&probe);
        let mut pending: BTreeMap<u64, Pending> = BTreeMap::new();
        raw.map(Msg::Block).concat(verdicts).sink(
            Exchange::new(|_: &Msg| 0),
            "Print",
            move |(input, frontier)| {
                input.for_each_stamp(|cap, data| {
                    // Every message is sent at one time.
                    let Some(&time) = cap.least() else { return };
                    let p = pending.entry(time).or_default();
                    for msgs in data {
                        for msg in msgs.drain(..) {
                            match msg {
                                Msg::Block(block) => p.block = Some(block),
                                Msg::Found { worker, found } => p.found.push((worker, found)),
                            }
                        }
                    }
                });
                while let Some(entry) = pending.first_entry() {
                    if frontier.less_equal(entry.key()) {
                        break;
                    }
                    let mut done = entry.remove();
                    let (Some(tx), Some(block)) = (&printer, done.block) else {
                        continue;
                    };
                    done.found.sort_unstable_by_key(|(w, _)| *w);
                    let mut found: Vec<Option<Found>> = (0..peers).map(|_| None).collect();
                    for (w, f) in done.found {
                        if let Some(slot) = found.get_mut(w as usize) {
                            *slot = Some(f);
                        }
                    }
                    // A main thread that stopped listening ends nothing here:
                    // its reader stops, and the dataflow drains.
                    let _ = tx.send(Delivery { block, found });
                }
            },
        );
    });
    let config = &shared.config;
    let part = match config.input {
        InputMode::Shared if index == 0 => Some(0u64),
        InputMode::PerProcess if index.is_multiple_of(config.workers.max(1)) => {
            Some(config.process as u64)
        }
        _ => None,
    };
    let source = part.and_then(|_| shared.source.lock().ok().and_then(|mut s| s.take()));
    if let (Some(part), Some(source)) = (part, source) {
        // The last block of the trace: the last part's.
        let last_part = match config.input {
            InputMode::Shared => 0,
            InputMode::PerProcess => config.hosts.len().max(1) as u64 - 1,
        };
        let base = part << PART_SHIFT;
        input.advance_to(base);
        let mut next = base;
        let stop = || (shared.stop)();
        let names = names(&shared.plan);
        let mut blocks = Blocks::new(source.reader, &names, &stop).part(part as u32, &source.name);
        while let Some(mut block) = blocks.next_block() {
            block.last &= part == last_part || block.end.is_some();
            input.send(block);
            next += 1;
            input.advance_to(next);
            while probe.less_than(&next.saturating_sub(LAG).max(base)) {
                worker.step();
            }
        }
    }
    drop(input);
}
