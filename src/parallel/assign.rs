//! How the properties of a run are spread over the workers: each property
//! whole or as its parts ([`PropPlan::parallel`]), sliced where the plan
//! allows, the sliced ones grouped by route into one monitor per slice, the
//! others spread round robin.
//!
//! Whether a property is better monitored whole or as its parts depends on
//! the trace: `access(u,f) -> [login(u),logout(u)) & [open(f),close(f))`
//! sliced on `u` sends every `open` and `close` to every slice, while its two
//! parts, sliced on `u` and on `f`, each step every `access`. With a sample
//! of the trace (its first events, or about 4,096 of them spread over a
//! longer sample), [`distribute_sampled`] counts the steps each worker
//! would take both ways and keeps the way whose busiest worker
//! takes fewer, unless even that one steps more than three quarters of the
//! events (most of them sent to every slice): then the property is monitored
//! whole, unsliced, by one worker. Without a sample, a property is split when
//! its parts slice with fewer events sent to every slice.
//!
//! A slice receives the events whose routed value hashes to it. With few
//! values (200 files over 16 slices, say) the hash leaves some slices with
//! twice the events of others; then the values of the sample are given
//! slices instead, the busiest first, each on the least loaded worker
//! ([`balance`]), and values the sample did not have still go by hash. Any
//! assignment of values to slices gives the same verdicts: it only has to
//! be the same for every slice of a group, and it is fixed for the run.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use hashbrown::HashMap;

use super::block::Block;
use super::route::{Assigned, Hashed, Receivers, Route, value_hash};
use super::worker::Unit;
use crate::plan::slice::{Parallel, Slicing};
use crate::plan::{Plan, PropPlan};

/// One way to monitor a property: its units' plans (the property, or its
/// parts), each with its slicing.
type Way = Vec<(PropPlan, Option<Slicing>)>;

/// How each property of a plan is monitored: whole or as its parts, each
/// sliced or not ([`choose`]), before the units are laid out on the
/// workers ([`Choice::layout`]).
#[derive(Clone)]
pub struct Choice {
    ways: Vec<Way>,
    /// The workers the choice was made for.
    jobs: usize,
    /// Per group of sliced units (their routes), the values a sample of
    /// the trace gave their slices ([`balance`]); a group without one
    /// routes by hash alone.
    assigned: BTreeMap<RoutesKey, Arc<Assigned>>,
}

/// The routes of a group of sliced units: per routed event name, the
/// argument position routed.
type RoutesKey = Vec<(String, usize)>;

impl Choice {
    /// The choice that replaces this running one once the sample `kept`
    /// is read (when the trace goes on after it), if the sample suggests
    /// another.
    pub fn revised(&self, plan: &Plan, jobs: usize, kept: &[Arc<Block>]) -> Option<Choice> {
        Some(choose(plan, jobs, kept)).filter(|better| !better.same_as(self))
    }

    /// Whether `self` and `other` monitor every property the same way
    /// (both choices are of one plan). The values they give slices are not
    /// compared: any assignment gives the same verdicts.
    pub fn same_as(&self, other: &Choice) -> bool {
        let key = |w: &Way| -> Vec<Option<BTreeMap<String, usize>>> {
            w.iter()
                .map(|(_, s)| s.as_ref().map(|s| s.routes.clone()))
                .collect()
        };
        self.ways.len() == other.ways.len()
            && self
                .ways
                .iter()
                .zip(&other.ways)
                .all(|(a, b)| key(a) == key(b))
    }

    /// The units of each of (at most) `jobs` workers: one monitor per group
    /// of sliced units with the same routes and slice, the others round
    /// robin.
    pub fn layout(&self, plan: &Plan, jobs: usize) -> Vec<Vec<Unit>> {
        let jobs = jobs.max(1);
        // Sliced properties (or parts) grouped by their routes: one monitor per
        // group and slice.
        let mut sliced: BTreeMap<RoutesKey, Group> = BTreeMap::new();
        let mut whole = Vec::new();
        for (i, way) in self.ways.iter().enumerate() {
            for (q, chosen) in way {
                match chosen {
                    Some(s) => sliced
                        .entry(s.routes.clone().into_iter().collect())
                        .or_default()
                        .push((i, q.clone())),
                    None => whole.push((i, q.clone())),
                }
            }
        }
        let workers = if sliced.is_empty() {
            jobs.min(whole.len()).max(1)
        } else {
            jobs
        };
        let mut out: Vec<Vec<Unit>> = vec![Vec::new(); workers];
        for (key, props) in &sliced {
            let routes = route_map(key.iter().map(|(e, k)| (e.as_str(), *k)));
            let assigned = self.assigned.get(key).filter(|_| workers == self.jobs);
            for (slice, units) in out.iter_mut().enumerate() {
                let mut u = unit(plan, props, routes.clone(), slice, workers);
                u.route.assigned = assigned.cloned();
                units.push(u);
            }
        }
        // Properties that cannot be sliced, round robin, the first ones on the
        // workers with the fewest sliced groups (all have the same number).
        let mut per_worker: Vec<Group> = vec![Vec::new(); workers];
        for (k, p) in whole.into_iter().enumerate() {
            per_worker[k % workers].push(p);
        }
        for (units, props) in out.iter_mut().zip(per_worker) {
            if !props.is_empty() {
                units.push(unit(plan, &props, HashMap::new(), 0, 1));
            }
        }
        out
    }
}

/// How each property of `plan` is best monitored on `jobs` workers: as the
/// steps on `sample` (the trace's first blocks) suggest, or, with no
/// sample, as the plan alone does.
pub fn choose(plan: &Plan, jobs: usize, sample: &[Arc<Block>]) -> Choice {
    let jobs = jobs.max(1);
    let ways: Vec<Way> = (plan.props.iter())
        .map(|p| way(plan, p, jobs, sample))
        .collect();
    let assigned = balance(plan, &ways, jobs, sample);
    Choice {
        ways,
        jobs,
        assigned,
    }
}

/// Per group of sliced units, the values of `sample` given slices of
/// `jobs` so as to even out the events each worker receives, where that
/// beats the hash by at least 5% on the sample (with a few values, such as
/// 200 files over 16 slices, the hash leaves some slices with twice the
/// events of others). The groups are taken in the order the workers get
/// their slices ([`Choice::layout`]: slice `w` of every group on worker
/// `w`), each evening out the loads the groups before it left: the
/// busiest values first, each on the least loaded worker. Events sent to
/// every slice load all workers alike and are not counted. With `jobs`
/// slices, `jobs / 2` times as many events of the sample are weighed as
/// for choosing the layout (up to all of them).
fn balance(
    plan: &Plan,
    ways: &[Way],
    jobs: usize,
    sample: &[Arc<Block>],
) -> BTreeMap<RoutesKey, Arc<Assigned>> {
    let mut out = BTreeMap::new();
    if jobs < 2 {
        return out;
    }
    let keys: BTreeSet<RoutesKey> = (ways.iter().flatten())
        .filter_map(|(_, s)| s.as_ref())
        .map(|s| s.routes.clone().into_iter().collect())
        .collect();
    // Each value's share of the events is estimated on more of the sample
    // the more slices there are to even out (all of it from 8 slices on).
    let stride = (stride(sample) * 2 / jobs as u64).max(1);
    let mut load = vec![0u64; jobs];
    for key in keys {
        // Per event name (by its index in the plan's events): the argument
        // that routes it.
        let position: Vec<Option<usize>> = (plan.events.keys())
            .map(|e| key.iter().find(|(n, _)| n == e).map(|&(_, k)| k))
            .collect();
        let mut counts = Counts::with_capacity_and_hasher(1024, Default::default());
        for block in sample {
            for ev in block.events.iter().filter(|ev| weighed(ev.number, stride)) {
                let value = (position.get(ev.name as usize))
                    .copied()
                    .flatten()
                    .and_then(|k| block.arg(ev, k));
                if let Some(v) = value {
                    count(&mut counts, v);
                }
            }
        }
        if let Some(table) = spread(counts, &mut load) {
            out.insert(key, Arc::new(table));
        }
    }
    out
}

/// Events per routed value of a sample, by the value's [`value_hash`]
/// (two values of one hash count as one, and go to one slice).
type Counts = HashMap<u64, u64, BuildHasherDefault<Hashed>>;

#[inline]
fn count(counts: &mut Counts, value: &[u8]) {
    *counts.entry(value_hash(value)).or_default() += 1;
}

/// Adds to the loads of the workers (`load`, one per slice) the events of
/// the routed values `counts`: by hash, or, where that would leave the
/// busiest worker at least 5% busier, each value in turn (the busiest
/// first) on the least loaded worker, and then returns the values' slices.
fn spread(counts: Counts, load: &mut [u64]) -> Option<Assigned> {
    let slices = load.len() as u64;
    let mut hashed = load.to_vec();
    let (mut total, mut heaviest) = (load.iter().sum::<u64>(), 0);
    for (h, c) in &counts {
        hashed[(h % slices) as usize] += c;
        total += c;
        heaviest = heaviest.max(*c);
    }
    let max = |l: &[u64]| l.iter().copied().max().unwrap_or(0);
    // No spreading does better than an even split, nor than the heaviest
    // value (and the busiest load before) alone: when the hash is within 5%
    // of that, it stays (many values, as usual).
    let floor = total.div_ceil(slices).max(heaviest).max(max(load));
    if max(&hashed) * 19 <= floor * 20 {
        load.copy_from_slice(&hashed);
        return None;
    }
    let mut values: Vec<(u64, u64)> = counts.into_iter().map(|(h, c)| (c, h)).collect();
    values.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut balanced = load.to_vec();
    let mut table = Assigned::default();
    for (c, h) in values {
        let (w, _) = (balanced.iter().enumerate())
            .min_by_key(|&(w, l)| (*l, w))
            .unwrap_or((0, &0));
        balanced[w] += c;
        table.insert(h, w as u64);
    }
    if max(&balanced) * 20 < max(&hashed) * 19 {
        load.copy_from_slice(&balanced);
        Some(table)
    } else {
        load.copy_from_slice(&hashed);
        None
    }
}

/// Properties (or parts) monitored together, each with its index in the run.
type Group = Vec<(usize, PropPlan)>;

/// How property `p` is monitored with `jobs` workers.
fn way(plan: &Plan, p: &PropPlan, jobs: usize, sample: &[Arc<Block>]) -> Way {
    let unsliced = || vec![(p.clone(), None)];
    if jobs == 1 {
        return unsliced();
    }
    let (whole, split) = match p.parallel() {
        Parallel::Whole(a) => (a.chosen, None),
        Parallel::Split(parts) => {
            let split: Way = parts.into_iter().map(|(q, a)| (q, a.chosen)).collect();
            (p.slicing().chosen, Some(split))
        }
    };
    let whole = whole.map(|s| vec![(p.clone(), Some(s))]);
    let stride = stride(sample);
    let events = sample
        .iter()
        .flat_map(|b| &b.events)
        .filter(|ev| weighed(ev.number, stride))
        .count() as u64;
    if events == 0 {
        // No sample: the plan's choice.
        return split.or(whole).unwrap_or_else(unsliced);
    }
    // On a tie, split (as the plan alone would).
    [split, whole]
        .into_iter()
        .flatten()
        .map(|w| (busiest(plan, &w, jobs, sample, stride), w))
        .min_by_key(|(load, _)| *load)
        // Slices that step most events anyway (those sent to every slice)
        // cost more than they save: the property is monitored whole then.
        .filter(|(load, _)| load * 4 <= events * 3)
        .map_or_else(unsliced, |(_, w)| w)
}

/// How many events of a sample are weighed, about (see [`weighed`]).
const WEIGHED: u64 = 4_096;

/// One event in how many of `sample` is weighed: a long sample is weighed
/// on about [`WEIGHED`] of its events, picked by a hash of their numbers (a
/// trace with a period cannot fool it).
fn stride(sample: &[Arc<Block>]) -> u64 {
    let events: u64 = sample.iter().map(|b| b.events.len() as u64).sum();
    (events / WEIGHED).max(1)
}

/// Whether event `number` is weighed when one event in `stride` is.
#[inline]
fn weighed(number: u64, stride: u64) -> bool {
    stride == 1 || (number.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32).is_multiple_of(stride)
}

/// The steps the busiest of `jobs` workers takes on the events of `sample`
/// that are [`weighed`] when the units of `way` run alone: a delivered
/// event is a step, and so is every other event for a unit that cannot
/// skip its ticks.
fn busiest(plan: &Plan, way: &Way, jobs: usize, sample: &[Arc<Block>], stride: u64) -> u64 {
    let mut load = vec![0u64; jobs];
    let mut whole_at = 0;
    for (q, chosen) in way {
        let props = [(0, q.clone())];
        // The route of slice 0, and the worker of each slice.
        let (route, workers): (Route, Vec<usize>) = match chosen {
            Some(s) => {
                let routes = route_map(s.routes.iter().map(|(e, k)| (e.as_str(), *k)));
                (
                    unit(plan, &props, routes, 0, jobs).route,
                    (0..jobs).collect(),
                )
            }
            None => {
                whole_at = (whole_at + 1) % jobs;
                (
                    unit(plan, &props, HashMap::new(), 0, 1).route,
                    vec![whole_at],
                )
            }
        };
        // The events of each routed value, spread over the slices as the
        // run would ([`spread`]).
        let mut counts = Counts::with_capacity_and_hasher(1024, Default::default());
        for block in sample {
            for ev in block.events.iter().filter(|ev| weighed(ev.number, stride)) {
                let arg = |k| block.arg(ev, k);
                match route.routed_value(ev.name, arg) {
                    Some(v) if route.skip_ticks => count(&mut counts, v),
                    _ => match route.receivers(ev.name, arg) {
                        Receivers::None if route.skip_ticks => {}
                        // Stepped by every slice: as it is or as a tick.
                        _ => workers.iter().for_each(|&w| load[w] += 1),
                    },
                }
            }
        }
        if !counts.is_empty() {
            spread(counts, &mut load);
        }
    }
    load.into_iter().max().unwrap_or(0)
}

fn route_map<'a>(routes: impl Iterator<Item = (&'a str, usize)>) -> HashMap<Box<[u8]>, usize> {
    routes.map(|(e, k)| (e.as_bytes().into(), k)).collect()
}

fn unit(
    plan: &Plan,
    props: &[(usize, PropPlan)],
    routes: HashMap<Box<[u8]>, usize>,
    slice: usize,
    slices: usize,
) -> Unit {
    let part = Plan {
        props: props.iter().map(|(_, p)| p.clone()).collect(),
        events: plan.events.clone(),
    };
    let route = Route::new(&plan.events, &part, routes, slice as u64, slices as u64);
    Unit {
        plan: part,
        global: props.iter().map(|&(i, _)| i).collect(),
        route,
    }
}

/// One worker of the whole plan, nothing sliced (a time segment's).
pub(super) fn whole(plan: &Plan) -> Vec<Unit> {
    choose(plan, 1, &[])
        .layout(plan, 1)
        .pop()
        .unwrap_or_default()
}
