//! A worker thread: monitors of some properties, or of one slice of some
//! properties, each built inside the thread, fed every batch in order.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender};

use hashbrown::{HashMap, HashSet};

use super::batch::Batch;
use crate::plan::Plan;
use crate::runtime::{Monitor, MonitorOptions, StepError};

/// Which events a unit's monitor receives as they are; it gets a tick (an
/// event matching nothing, at the same time) for every other event.
#[derive(Clone, Debug)]
pub struct Route {
    /// The event names its properties mention: other events are ticks.
    pub mentioned: HashSet<Box<[u8]>>,
    /// Sliced: per routed event name, the argument that selects the slice.
    pub routes: HashMap<Box<[u8]>, usize>,
    /// This unit's slice, of `slices`.
    pub slice: u64,
    /// The number of slices (1: not sliced).
    pub slices: u64,
}

impl Route {
    /// Whether the event `fields` (name, then arguments) is delivered as it is.
    pub fn delivers(&self, fields: &[&[u8]]) -> bool {
        let name = fields[0];
        if !self.mentioned.contains(name) {
            return false;
        }
        match self.routes.get(name) {
            Some(&k) => fields
                .get(k + 1)
                .is_none_or(|v| slice_of(v, self.slices) == self.slice),
            None => true,
        }
    }
}

/// The slice of a value: FNV-1a, a fixed hash, modulo `slices`.
pub fn slice_of(value: &[u8], slices: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in value {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Mix the high bits in: FNV's low bits are weak for short keys.
    (h ^ (h >> 29)) % slices.max(1)
}

/// One monitor of a worker: a plan (a subset of the properties), the global
/// indices of its properties, and its route.
#[derive(Clone, Debug)]
pub struct Unit {
    /// The properties monitored (with every event's arity).
    pub plan: Plan,
    /// Per property of `plan`: its index in the whole run.
    pub global: Vec<usize>,
    /// Which events it receives.
    pub route: Route,
}

/// What a worker found in one batch.
#[derive(Debug, Default)]
pub struct Found {
    /// `(event number, global property index)`, sorted.
    pub violations: Vec<(u64, usize)>,
    /// A monitor error, at `(event number, line)`: the worker stops there.
    pub error: Option<(u64, u64, StepError)>,
    /// Garbage collections and codes released so far, over its monitors.
    pub gc: (u64, u64),
}

/// Runs a worker: builds its monitors, then answers every batch with a
/// [`Found`], until the batches end, an error, or the merger is gone.
pub fn work(
    units: Vec<Unit>,
    options: MonitorOptions,
    batches: Receiver<Arc<Batch>>,
    out: SyncSender<Found>,
) {
    let mut monitors = Vec::with_capacity(units.len());
    for u in units {
        match Monitor::new(u.plan, options.clone()) {
            Ok(m) => monitors.push((m, u.global, u.route)),
            Err(error) => {
                // Reported at the first event, as a sequential run fails
                // before it reads any.
                let _ = out.send(Found {
                    error: Some((1, 0, error)),
                    ..Found::default()
                });
                return;
            }
        }
    }
    for batch in batches {
        let mut fields: Vec<&[u8]> = Vec::new();
        let mut found = Found::default();
        'events: for ev in &batch.events {
            batch.fields_of(ev, &mut fields);
            for (monitor, global, route) in &mut monitors {
                let result = if route.delivers(&fields) {
                    monitor.step(fields[0], &fields[1..], ev.time)
                } else {
                    monitor.step(b"", &[], ev.time)
                };
                match result {
                    Ok(violated) => found
                        .violations
                        .extend(violated.iter().map(|&i| (ev.number, global[i]))),
                    Err(e) => {
                        found.error = Some((ev.number, ev.line, e));
                        break 'events;
                    }
                }
            }
        }
        found.violations.sort_unstable();
        found.gc = monitors
            .iter()
            .map(|(m, _, _)| m.gc_stats())
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
        let stop = found.error.is_some() || batch.end.is_some();
        if out.send(found).is_err() || stop {
            return;
        }
    }
}
