//! Parallel monitoring, with the verdicts of a sequential run in the same
//! order: one core, and schedulers over it.
//!
//! The core:
//! - [`block`]: the one event type, a [`Block`](block::Block) of consecutive events,
//!   owned (serializable under the `cluster` feature);
//! - [`read`]: a trace read into blocks, with the one arity check;
//! - [`route`]: which events a unit's monitor receives as they are (its
//!   slice's; see [`crate::plan::slice`]), the others being ticks for it;
//! - [`worker`]: a [`Worker`](worker::Worker) steps its units' monitors through each
//!   block (delivered events, ticks, skipped ticks of tick-invariant
//!   units, runs of repeats at once) and answers with a [`Found`]: the
//!   violations of the steps decided, how far every step is decided (a
//!   property with future operators decides a step later), and at the end
//!   the steps left undecided;
//! - [`merge`]: the [`Merger`] hands the events on in trace order, each
//!   once every worker has decided it, to a [`Sink`];
//! - [`Stop`]: the one reason why a run ended before its trace did;
//! - [`planner`]: every decision of how a run is laid out (which
//!   properties are sliced or split, how values are spread over the
//!   slices, how many workers, whether a file is cut into time segments),
//!   made from the run's [`Options`] and a sample of the trace.
//!
//! The schedulers: `pipeline` (threads of one process, the workers
//! reading the trace in turn), [`segments`] (a file cut into stretches
//! monitored whole), `crate::cluster` (Timely Dataflow workers, under the
//! `cluster` feature) and [`simulate`] (one worker of a larger run,
//! alone, for `benches/parallel_sim.rs`).
//!
//! Each worker builds its monitors where it runs. Every event is stepped,
//! delivered or as a tick: runs of ticks are cheap in untimed properties,
//! since a repeated event whose kept summaries stopped changing costs no
//! BDD work (a timed property evaluates each tick); a tick-invariant unit
//! skips them.

mod assign;
pub mod block;
pub mod merge;
mod pipeline;
pub mod planner;
pub mod read;
pub mod route;
pub mod segments;
#[cfg(any(test, feature = "internals"))]
pub mod simulate;
pub mod worker;

#[cfg(feature = "cluster")]
use serde::{Deserialize, Serialize};

use crate::runtime::{MonitorOptions, StepError};
use crate::trace::{Format, TraceError};

#[cfg(feature = "cluster")]
pub use block::Block;
pub use block::Args;
pub use merge::Merger;
pub use planner::{Options, Segments, can_gain, run, run_file};
#[cfg(feature = "cluster")]
pub use worker::Worker;
pub use worker::{Found, Work};

/// One event as the merger hands it on, with the properties violated at it.
#[derive(Clone, Copy, Debug)]
pub struct EventView<'a> {
    /// The 1-based event number.
    pub number: u64,
    /// Its line in the trace.
    pub line: u64,
    /// Its time stamp (0 untimed).
    pub time: u64,
    /// Its name.
    pub name: &'a [u8],
    /// Its name's index in the plan's events (`None`: a name the plan does
    /// not know, or not known).
    pub name_index: Option<u32>,
    /// Its arguments.
    pub args: Args<'a>,
    /// How many events after it are the same (numbers `number + 1 ..=
    /// number + repeats`, one line each after `line`, at the same time):
    /// a view stands for `1 + repeats` events, and only a view of one
    /// event (`repeats` 0) can have violations.
    pub repeats: u64,
    /// Bytes of the input read so far (at least up to this event).
    pub bytes_read: u64,
    /// Whether the trace has time stamps.
    pub timed: bool,
}

/// Where the merger hands the events on, in trace order.
pub trait Sink {
    /// The decided event `ev`, with the properties violated at it
    /// (ascending); false ends the run.
    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool;

    /// The trace has ended: the events that follow were decided at its end
    /// or are undecided (with future operators). Nothing by default.
    fn ended(&mut self) {}

    /// At the end of the trace, the event `ev`, which `properties` left
    /// undecided; false ends the run. By default an event without
    /// violations.
    fn undecided(&mut self, ev: &EventView<'_>, properties: &[usize]) -> bool {
        let _ = properties;
        self.event(ev, &[])
    }

    /// The run waits for more of its trace (a stream: see
    /// [`Options::online`]): what was handed on so far should show.
    /// Nothing by default.
    fn waiting(&mut self) {}

    /// The events `events` of `block`, each whole (with its repeats),
    /// decided, none violated and no bad line skipped before them: a
    /// stretch handed on at once (a sink that only counts them need not
    /// look at each); false ends the run. By default each through
    /// [`Sink::event`].
    fn quiet(&mut self, block: &block::Block, events: &[block::Ev]) -> bool {
        merge::one_by_one(self, block, events)
    }

    /// A bad line skipped (a run that skips them), before the events that
    /// follow it. Nothing by default.
    fn skipped(&mut self, skipped: &read::Skipped) {
        let _ = skipped;
    }

    /// With a profile ([`Options::profile`]), before the first event: the
    /// units of each worker laid out for `plan`, whose monitors' columns
    /// ([`crate::profile::Columns`]) the rows give, worker after worker.
    /// Nothing by default.
    fn layout(&mut self, plan: &crate::plan::Plan, workers: &[Vec<worker::Unit>]) {
        let _ = (plan, workers);
    }

    /// With a profile, the row of event `event`: the values of every
    /// worker's columns, in the order of [`Sink::layout`]. Nothing by
    /// default.
    fn profile(&mut self, event: u64, values: &[u64]) {
        let _ = (event, values);
    }
}

impl<F: FnMut(&EventView<'_>, &[usize]) -> bool> Sink for F {
    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
        self(ev, violated)
    }
}

/// Why a parallel run ended before the end of its trace: the one reason
/// every scheduler gives (and a cluster run sends between processes).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
pub enum Stop {
    /// Bad input, as the trace reader gives it.
    Trace(TraceError),
    /// An event refused: by the reader (another arity than the
    /// specification gives its name) or by a monitor.
    Refused {
        /// The event's line.
        line: u64,
        /// Why, as the monitor says.
        error: StepError,
        /// The event's last argument, when its arity is the error (for the
        /// hint about time stamps).
        last: Option<Box<[u8]>>,
    },
    /// The stop flag was set before an event (Ctrl-C).
    Interrupted,
    /// The sink asked to stop.
    ByCaller,
}

impl Stop {
    /// The same stop, its line moved `lines` further (a stretch of the
    /// trace read on its own, after `lines` lines).
    pub fn shifted(self, lines: u64) -> Stop {
        match self {
            Stop::Trace(mut e) => {
                e.line += lines;
                Stop::Trace(e)
            }
            Stop::Refused { line, error, last } => Stop::Refused {
                line: line + lines,
                error,
                last,
            },
            other => other,
        }
    }
}

/// The end of a parallel run.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Why it ended early, if it did.
    pub stopped: Option<Stop>,
    /// Garbage collections and codes released, summed over all monitors.
    pub gc: (u64, u64),
    /// What the monitors did with the events, summed over the workers of
    /// the layout the run ended on (see [`Work`]).
    pub work: Work,
    /// Whether the layout the run started with was replaced by the one
    /// the sample of the trace suggests (see `pipeline`).
    pub revised: bool,
    /// For a run in time segments ([`segments`]): how many segments after
    /// the first were taken from their speculative worker, and how many
    /// the worker before stepped again (their states did not agree).
    pub segments: Option<(usize, usize)>,
    /// The trace's format, as its reader found it.
    pub format: Option<Format>,
}

/// The options of each of `monitors` monitors of one process: with more
/// than one, each monitor's BDD tables grow in smaller steps, so that their
/// sum stays near one table's size.
pub(crate) fn for_monitors(options: &MonitorOptions, monitors: usize) -> MonitorOptions {
    MonitorOptions {
        save_memory: options.save_memory || monitors > 1,
        ..options.clone()
    }
}

#[cfg(test)]
pub(crate) mod tests;
