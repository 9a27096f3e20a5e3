//! Which events a unit's monitor receives as they are ([`Route`]): every
//! event of a name its properties mention, or, for a slice, those whose
//! routed value is of the slice; every other event is a tick for it.

use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use crate::plan::ticks::TickVerdict;
use crate::plan::{Op, Plan};

/// Which events a unit's monitor receives as they are; it gets a tick (an
/// event matching nothing, at the same time) for every other event.
#[derive(Clone, Debug)]
pub struct Route {
    /// This unit's slice, of `slices`.
    pub slice: u64,
    /// The number of slices (1: not sliced).
    pub slices: u64,
    /// Whether the unit's properties are all tick invariant (see
    /// [`PropPlan::tick_invariant`](crate::plan::PropPlan::tick_invariant)):
    /// then it skips the events it does not receive instead of stepping a
    /// tick for each.
    pub skip_ticks: bool,
    /// Per property of the unit, when it skips ticks: whether a tick has the
    /// verdict of the step before ([`TickVerdict::AsBefore`]), else it holds
    /// at every tick.
    pub as_before: Vec<bool>,
    /// Per event name of the plan, in [`Plan::events`] order (the index
    /// that blocks carry): how an event of
    /// that name is delivered.
    pub by_name: Vec<Delivery>,
    /// Routed values, by their [`value_hash`], given their slice (from a
    /// sample of the trace, where the hash would leave the slices uneven);
    /// every other value goes to the slice of its hash ([`slice_of`]). The
    /// same for every slice of the group, so that a value's events all go
    /// to one slice (a value whose hash another value's equals goes where
    /// that one does: still one slice per value).
    pub assigned: Option<Arc<Assigned>>,
}

/// Value hashes given their slice ([`Route::assigned`]).
pub type Assigned = HashMap<u64, u64, BuildHasherDefault<Hashed>>;

/// The hasher of tables keyed by [`value_hash`]: the keys are hashes
/// already.
#[derive(Default)]
pub struct Hashed(u64);

impl Hasher for Hashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used by `u64` keys; any byte input still hashes.
        self.0 = value_hash(bytes);
    }

    fn write_u64(&mut self, h: u64) {
        // Spread over the high bits too, which the table's probing uses.
        self.0 = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ h;
    }
}

/// The slices that receive an event as it is ([`Route::receivers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receivers {
    /// None: it is a tick for every slice.
    None,
    /// Every slice.
    All,
    /// This one slice.
    One(u64),
}

/// How a unit receives an event of one name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// As a tick: its properties do not mention the name.
    Tick,
    /// As it is, whatever its arguments.
    All,
    /// As it is when its argument at this position is of the unit's slice.
    Arg(usize),
}

impl Route {
    /// The route of a unit monitoring `plan` (a subset of the properties of
    /// a run over `events`) on slice `slice` of `slices`.
    pub fn new(
        events: &std::collections::BTreeMap<String, usize>,
        plan: &Plan,
        routes: HashMap<Box<[u8]>, usize>,
        slice: u64,
        slices: u64,
    ) -> Route {
        let mentioned: HashSet<Box<[u8]>> = plan
            .props
            .iter()
            .flat_map(|p| p.nodes.iter())
            .filter_map(|n| match &n.op {
                Op::Atom { event, .. } => Some(event.as_bytes().into()),
                _ => None,
            })
            .collect();
        let verdicts: Vec<_> = plan.props.iter().map(|p| p.tick_invariant()).collect();
        let by_name = events
            .keys()
            .map(|e| {
                let e = e.as_bytes();
                if !mentioned.contains(e) {
                    Delivery::Tick
                } else if let Some(&k) = routes.get(e) {
                    Delivery::Arg(k)
                } else {
                    Delivery::All
                }
            })
            .collect();
        Route {
            slice,
            slices,
            skip_ticks: verdicts.iter().all(Result::is_ok),
            as_before: verdicts
                .iter()
                .map(|v| v == &Ok(TickVerdict::AsBefore))
                .collect(),
            by_name,
            assigned: None,
        }
    }

    /// The slice of routed value `value`.
    #[inline]
    pub fn slice_of_value(&self, value: &[u8]) -> u64 {
        let h = value_hash(value);
        match self.assigned.as_ref().and_then(|a| a.get(&h)) {
            Some(&s) => s,
            None => h % self.slices.max(1),
        }
    }

    /// Whether an event of name number `name` (its index in the plan's
    /// events, `u32::MAX` for a name the plan does not know) whose argument
    /// `k` is `arg(k)` is delivered as it is (the name already looked up
    /// in the plan's events).
    #[inline]
    pub fn delivers_named<'a>(
        &self,
        name: u32,
        arg: impl FnOnce(usize) -> Option<&'a [u8]>,
    ) -> bool {
        match self.receivers(name, arg) {
            Receivers::None => false,
            Receivers::All => true,
            Receivers::One(slice) => slice == self.slice,
        }
    }

    /// Which slices of this route's receive an event of name number
    /// `name` whose argument `k` is `arg(k)` as it is (the others get a
    /// tick).
    #[inline]
    pub fn receivers<'a>(
        &self,
        name: u32,
        arg: impl FnOnce(usize) -> Option<&'a [u8]>,
    ) -> Receivers {
        match self.by_name.get(name as usize) {
            None | Some(Delivery::Tick) => Receivers::None,
            Some(Delivery::All) => Receivers::All,
            Some(&Delivery::Arg(k)) => match arg(k) {
                Some(v) => Receivers::One(self.slice_of_value(v)),
                None => Receivers::All,
            },
        }
    }

    /// The value by which an event of name number `name` whose argument `k`
    /// is `arg(k)` is routed, if it is routed by one.
    #[inline]
    pub fn routed_value<'a>(
        &self,
        name: u32,
        arg: impl FnOnce(usize) -> Option<&'a [u8]>,
    ) -> Option<&'a [u8]> {
        match self.by_name.get(name as usize) {
            Some(&Delivery::Arg(k)) => arg(k),
            _ => None,
        }
    }

    /// Whether `monitor`, this unit's, skips an event it does not receive
    /// (it is tick invariant and has stepped an event before).
    #[inline]
    pub fn skips(&self, monitor: &crate::runtime::Monitor) -> bool {
        self.skip_ticks && monitor.events() > 0
    }
}

/// The slice of a value: its [`value_hash`] modulo `slices`.
#[cfg(any(test, feature = "internals"))]
pub fn slice_of(value: &[u8], slices: u64) -> u64 {
    value_hash(value) % slices.max(1)
}

/// A fixed hash of a value: FNV-1a, with its high bits mixed in (FNV's low
/// bits are weak for short keys).
pub fn value_hash(value: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in value {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ (h >> 29)
}
