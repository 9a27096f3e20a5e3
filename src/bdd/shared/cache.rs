//! The operation cache: a lossy, direct-mapped table of results that
//! survives from one operation to the next, grows with the node table and
//! keeps the entries about surviving nodes across a collection.
//!
//! It knows nodes only by their numbers ([`node`](super::node)); the table
//! owns it and tells it how many nodes there are.

use super::node::{Id, mix};

/// Cache entries per four nodes of the table, up to [`MAX_CACHE`]: one per
/// two nodes. Results about the nodes of the summaries must survive from
/// one event to the next; a cache twice as large (tried before) kept few
/// more of them, and the cache and unique table outgrew the processor's
/// second-level cache: on locks-cycles, cachegrind's simulation of this
/// machine's caches (32 KiB and 1 MiB per core) counts 54% fewer misses of
/// the 1 MiB cache, and 39-60% fewer on the other FMSD properties and the
/// spawning T6 trace, with at most 0.2% more instructions (fifo and T6 2%
/// fewer: a larger cache costs its copies as it grows).
pub(super) const CACHE_PER_FOUR_NODES: usize = 2;
/// Cache entries per four nodes for a space that saves memory: half as many.
pub(super) const LEAN_CACHE_PER_FOUR_NODES: usize = 1;
/// The initial (and smallest) number of cache entries.
pub(super) const MIN_CACHE: usize = 1 << 13;
/// The largest number of cache entries.
pub(super) const MAX_CACHE: usize = 1 << 22;

/// The operation a cache entry remembers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
pub(super) enum Op {
    Empty = 0,
    And,
    Or,
    Xor,
    Iff,
    AndNot,
    Imp,
    Not,
    Ite,
    Exists,
    Forall,
    AndExists,
    Restrict,
    Rename,
}

impl Op {
    pub(super) fn commutative(self) -> bool {
        matches!(self, Op::And | Op::Or | Op::Xor | Op::Iff)
    }
}

#[derive(Clone, Copy)]
struct Entry {
    op: Op,
    a: Id,
    b: Id,
    c: Id,
    r: Id,
}

const EMPTY: Entry = Entry {
    op: Op::Empty,
    a: 0,
    b: 0,
    c: 0,
    r: 0,
};

/// The cache of a node table.
#[derive(Clone)]
pub(super) struct Cache {
    entries: Vec<Entry>,
    /// The node count past which the cache doubles (`usize::MAX` once it
    /// is as large as it gets).
    grow_at: usize,
    /// Entries per four nodes it grows to.
    per_four_nodes: usize,
}

impl Cache {
    pub(super) fn new() -> Cache {
        Cache {
            entries: vec![EMPTY; MIN_CACHE],
            grow_at: 4 * MIN_CACHE / CACHE_PER_FOUR_NODES,
            per_four_nodes: CACHE_PER_FOUR_NODES,
        }
    }

    /// Number of entries.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Keeps [`LEAN_CACHE_PER_FOUR_NODES`] entries per four nodes from now on.
    pub(super) fn save_memory(&mut self) {
        self.per_four_nodes = LEAN_CACHE_PER_FOUR_NODES;
        self.set_grow_at();
    }

    /// Sets the node count past which the cache doubles: when it holds
    /// fewer than `per_four_nodes` entries per four nodes, up to
    /// [`MAX_CACHE`].
    fn set_grow_at(&mut self) {
        self.grow_at = if self.entries.len() < MAX_CACHE {
            4 * self.entries.len() / self.per_four_nodes
        } else {
            usize::MAX
        };
    }

    /// Grows (never shrinks) the cache with a table of `nodes` nodes,
    /// keeping its entries: results about every node of the summaries must
    /// survive from one event to the next.
    #[inline]
    pub(super) fn follow(&mut self, nodes: usize) {
        if nodes > self.grow_at {
            self.grow();
        }
    }

    /// Doubles the cache, keeping its entries.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.resize(2 * self.entries.len(), |e| e.op != Op::Empty);
    }

    /// Grows the cache to `len` entries (a power of two, at least its
    /// length) in place, keeping the entries `keep` accepts. An entry's slot
    /// is the low bits of its hash, so one at slot `i` of `n` moves to slot
    /// `i + k * n` for some `k`: beyond the old entries, in the new part,
    /// where no other old entry goes. No second cache is ever in memory.
    fn resize(&mut self, len: usize, keep: impl Fn(&Entry) -> bool) {
        let old = self.entries.len();
        debug_assert!(len.is_power_of_two() && len >= old);
        if len == old {
            for e in &mut self.entries {
                if !keep(e) {
                    *e = EMPTY;
                }
            }
            return;
        }
        self.entries.resize(len, EMPTY);
        self.set_grow_at();
        for i in 0..old {
            let e = self.entries[i];
            if !keep(&e) {
                self.entries[i] = EMPTY;
                continue;
            }
            let to = self.slot(e.op, e.a, e.b, e.c);
            if to != i {
                self.entries[to] = e;
                self.entries[i] = EMPTY;
            }
        }
    }

    #[inline]
    pub(super) fn slot(&self, op: Op, a: Id, b: Id, c: Id) -> usize {
        (mix(a as u64 ^ ((op as u64) << 32), b as u64, c as u64) as usize)
            & (self.entries.len() - 1)
    }

    #[inline]
    pub(super) fn get(&self, op: Op, a: Id, b: Id, c: Id) -> Option<Id> {
        self.get_at(self.slot(op, a, b, c), op, a, b, c)
    }

    /// [`get`](Self::get) at a slot computed by [`slot`](Self::slot).
    #[inline]
    pub(super) fn get_at(&self, slot: usize, op: Op, a: Id, b: Id, c: Id) -> Option<Id> {
        let e = &self.entries[slot];
        (e.op == op && e.a == a && e.b == b && e.c == c).then_some(e.r)
    }

    /// [`put`](Self::put) at a slot computed by [`slot`](Self::slot) for
    /// the cache's current size.
    #[inline]
    pub(super) fn put_at(&mut self, slot: usize, op: Op, a: Id, b: Id, c: Id, r: Id) {
        self.entries[slot] = Entry { op, a, b, c, r };
    }

    #[inline]
    pub(super) fn put(&mut self, op: Op, a: Id, b: Id, c: Id, r: Id) {
        let i = self.slot(op, a, b, c);
        self.entries[i] = Entry { op, a, b, c, r };
    }

    /// After a collection: keeps the entries whose nodes all survive
    /// (`marked`; a live node keeps its identity), drops the others, and
    /// grows the cache to fit `live` nodes (it never shrinks).
    pub(super) fn keep_surviving(&mut self, marked: &[bool], live: usize) {
        // The next collection comes at twice the live nodes.
        let wanted = (self.per_four_nodes * live / 2)
            .next_power_of_two()
            .clamp(MIN_CACHE, MAX_CACHE)
            .max(self.entries.len());
        let valid = |e: &Entry| {
            e.op != Op::Empty
                && marked[e.a as usize]
                && marked[e.r as usize]
                && (e.op == Op::Rename || marked[e.b as usize])
                && marked[e.c as usize]
        };
        self.resize(wanted, valid);
    }
}
