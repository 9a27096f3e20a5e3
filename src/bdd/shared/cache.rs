//! The operation cache: a lossy, direct-mapped table of results that
//! survives from one operation to the next, grows with the node table and
//! keeps the entries about surviving nodes across a collection.

use super::table::{Id, Manager, mix};

/// Cache entries per node in the table, up to [`MAX_CACHE`]: results about
/// every node of the summaries must survive from one event to the next.
pub(super) const CACHE_PER_NODE: usize = 2;
/// Cache entries per node for a space that saves memory: half as many.
pub(super) const LEAN_CACHE_PER_NODE: usize = 1;
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
pub(super) struct Entry {
    op: Op,
    a: Id,
    b: Id,
    c: Id,
    r: Id,
}

pub(super) const EMPTY: Entry = Entry {
    op: Op::Empty,
    a: 0,
    b: 0,
    c: 0,
    r: 0,
};

impl Manager {
    /// Sets the node count past which the cache doubles: when it holds
    /// fewer than [`cache_per_node`](Self::cache_per_node) entries per two nodes, up to
    /// [`MAX_CACHE`].
    pub(super) fn set_grow_cache_at(&mut self) {
        self.grow_cache_at = if self.cache.len() < MAX_CACHE {
            2 * self.cache.len() / self.cache_per_node()
        } else {
            usize::MAX
        };
    }

    /// Doubles the cache, keeping its entries.
    #[cold]
    #[inline(never)]
    pub(super) fn grow_cache(&mut self) {
        self.resize_cache(2 * self.cache.len(), |e| e.op != Op::Empty);
    }

    /// Grows the cache to `len` entries (a power of two, at least its
    /// length) in place, keeping the entries `keep` accepts. An entry's slot
    /// is the low bits of its hash, so one at slot `i` of `n` moves to slot
    /// `i + k * n` for some `k`: beyond the old entries, in the new part,
    /// where no other old entry goes. No second cache is ever in memory.
    fn resize_cache(&mut self, len: usize, keep: impl Fn(&Entry) -> bool) {
        let old = self.cache.len();
        debug_assert!(len.is_power_of_two() && len >= old);
        if len == old {
            for e in &mut self.cache {
                if !keep(e) {
                    *e = EMPTY;
                }
            }
            return;
        }
        self.cache.resize(len, EMPTY);
        self.set_grow_cache_at();
        for i in 0..old {
            let e = self.cache[i];
            if !keep(&e) {
                self.cache[i] = EMPTY;
                continue;
            }
            let to = self.slot(e.op, e.a, e.b, e.c);
            if to != i {
                self.cache[to] = e;
                self.cache[i] = EMPTY;
            }
        }
    }

    #[inline]
    pub(super) fn slot(&self, op: Op, a: Id, b: Id, c: Id) -> usize {
        (mix(a as u64 ^ ((op as u64) << 32), b as u64, c as u64) as usize) & (self.cache.len() - 1)
    }

    #[inline]
    pub(super) fn cached(&self, op: Op, a: Id, b: Id, c: Id) -> Option<Id> {
        let e = &self.cache[self.slot(op, a, b, c)];
        (e.op == op && e.a == a && e.b == b && e.c == c).then_some(e.r)
    }

    /// [`cached`](Self::cached) at a slot computed by [`slot`](Self::slot).
    #[inline]
    pub(super) fn cached_at(&self, slot: usize, op: Op, a: Id, b: Id, c: Id) -> Option<Id> {
        let e = &self.cache[slot];
        (e.op == op && e.a == a && e.b == b && e.c == c).then_some(e.r)
    }

    /// [`remember`](Self::remember) at a slot computed by [`slot`](Self::slot)
    /// for the cache's current size.
    #[inline]
    pub(super) fn remember_at(&mut self, slot: usize, op: Op, a: Id, b: Id, c: Id, r: Id) {
        self.cache[slot] = Entry { op, a, b, c, r };
    }

    #[inline]
    pub(super) fn remember(&mut self, op: Op, a: Id, b: Id, c: Id, r: Id) {
        let i = self.slot(op, a, b, c);
        self.cache[i] = Entry { op, a, b, c, r };
    }

    /// After a collection: keeps the entries whose nodes all survive (a live
    /// node keeps its identity), drops the others, and grows the cache to fit
    /// `live` nodes (it never shrinks).
    pub(super) fn keep_cache_entries(&mut self, marked: &[bool], live: usize) {
        let wanted = (self.cache_per_node() * live)
            .next_power_of_two()
            .clamp(MIN_CACHE, MAX_CACHE)
            .max(self.cache.len());
        let valid = |e: &Entry| {
            e.op != Op::Empty
                && marked[e.a as usize]
                && marked[e.r as usize]
                && (e.op == Op::Rename || marked[e.b as usize])
                && marked[e.c as usize]
        };
        self.resize_cache(wanted, valid);
    }
}
