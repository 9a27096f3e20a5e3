//! The unique table: the number of every decision node by its triple
//! `(var, lo, hi)`, so that equal nodes are one node.
//!
//! Open addressing with linear probing over a power-of-two array of
//! words. A word holds a node's number (low 32 bits), the top 16 bits of
//! the node's hash (a tag: a probe reads a node only when its tag agrees)
//! and the table's *epoch* when it was written (top 16 bits); a word of
//! another epoch is an empty slot. Nothing is ever removed one by one: a
//! collection empties the table by starting a new epoch, and puts the
//! surviving nodes back ([`Unique::clear`], [`Unique::insert_new`]), so it
//! costs the survivors, not the dead, and writes no slot it does not use.

use super::node::Id;

/// The fewest slots.
const MIN_SLOTS: usize = 1 << 11;
/// The epoch bits of a slot.
const EPOCH_SHIFT: u32 = 48;
/// The tag and epoch bits of a slot.
const KEY: u64 = !0xffff_ffff;

/// The unique table of a node table (which holds the nodes themselves).
#[derive(Clone)]
pub(super) struct Unique {
    slots: Vec<u64>,
    len: usize,
    /// The most entries before the table doubles.
    limit: usize,
    /// Whether the table may be fuller (three quarters, not half) before
    /// it grows.
    lean: bool,
    /// The epoch of the words in the table (never 0: a new word is empty).
    epoch: u64,
}

/// Where a node is, or would go (the slot, and the word's tag and epoch).
pub(super) enum Probe {
    Found(Id),
    Vacant(usize, u64),
}

impl Unique {
    pub(super) fn new() -> Unique {
        let mut u = Unique {
            slots: vec![0; MIN_SLOTS],
            len: 0,
            limit: 0,
            lean: false,
            epoch: 1,
        };
        u.set_limit();
        u
    }

    fn set_limit(&mut self) {
        let n = self.slots.len();
        self.limit = if self.lean { n / 4 * 3 } else { n / 2 };
    }

    /// Lets the table fill to three quarters from now on.
    pub(super) fn save_memory(&mut self) {
        self.lean = true;
        self.set_limit();
    }

    /// Number of nodes in the table.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Number of slots.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The tag and epoch of a node of hash `hash`.
    #[inline]
    fn key(&self, hash: u64) -> u64 {
        (self.epoch << EPOCH_SHIFT) | ((hash >> 48) << 32)
    }

    #[inline]
    fn start(&self, hash: u64) -> usize {
        (hash as usize) & (self.slots.len() - 1)
    }

    /// The node of hash `hash` for which `is` holds, or the slot where it
    /// goes. The slot stands until the table changes.
    #[inline]
    pub(super) fn probe(&self, hash: u64, is: impl Fn(Id) -> bool) -> Probe {
        let key = self.key(hash);
        let mask = self.slots.len() - 1;
        let mut i = self.start(hash);
        loop {
            let e = self.slots[i];
            if e & KEY == key {
                if is(e as Id) {
                    return Probe::Found(e as Id);
                }
            } else if e >> EPOCH_SHIFT != self.epoch {
                return Probe::Vacant(i, key);
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts node `id` at slot `slot` with the tag and epoch `key`, both
    /// given by [`probe`](Self::probe) since the table last changed (the
    /// key not computed twice: that depended on the compiler).
    #[inline]
    pub(super) fn insert_at(&mut self, (slot, key): (usize, u64), id: Id) {
        debug_assert!(self.slots[slot] >> EPOCH_SHIFT != self.epoch);
        self.slots[slot] = key | id as u64;
        self.len += 1;
    }

    /// Whether an insertion would overfill the table: then it must
    /// [`grow`](Self::grow) before probing for a new node.
    #[inline]
    pub(super) fn full(&self) -> bool {
        self.len >= self.limit
    }

    /// Doubles the slots, moving every entry; `hash` gives a node's hash.
    #[cold]
    #[inline(never)]
    pub(super) fn grow(&mut self, hash: impl Fn(Id) -> u64) {
        let len = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![0; len]);
        self.set_limit();
        self.len = 0;
        for e in old {
            if e >> EPOCH_SHIFT == self.epoch {
                self.insert_new(hash(e as Id), e as Id);
            }
        }
    }

    /// Empties the table, keeping room for `wanted` nodes.
    pub(super) fn clear(&mut self, wanted: usize) {
        self.len = 0;
        self.epoch += 1;
        if self.epoch == 1 << (64 - EPOCH_SHIFT) {
            self.epoch = 1;
            self.slots.fill(0);
        }
        while self.limit < wanted {
            let len = 2 * self.slots.len();
            self.slots = vec![0; len];
            self.set_limit();
        }
    }

    /// Puts node `id` of hash `hash`, known not to be in the table, in
    /// it, with room for it.
    #[inline]
    pub(super) fn insert_new(&mut self, hash: u64, id: Id) {
        debug_assert!(!self.full());
        let mask = self.slots.len() - 1;
        let mut i = self.start(hash);
        while self.slots[i] >> EPOCH_SHIFT == self.epoch {
            i = (i + 1) & mask;
        }
        self.insert_at((i, self.key(hash)), id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(u: &Unique, hash: u64, id: Id) -> Option<Id> {
        match u.probe(hash, |x| x == id) {
            Probe::Found(x) => Some(x),
            Probe::Vacant(..) => None,
        }
    }

    /// Puts `id` as the node table does.
    fn put(u: &mut Unique, hash: impl Fn(Id) -> u64 + Copy, id: Id) {
        if u.full() {
            u.grow(hash);
        }
        match u.probe(hash(id), |x| x == id) {
            Probe::Found(_) => panic!("{id} found before it was put"),
            Probe::Vacant(slot, key) => u.insert_at((slot, key), id),
        }
    }

    #[test]
    fn entries_are_found_through_growth_and_collisions() {
        let mut u = Unique::new();
        // Seven start slots, and equal tags: long probe sequences.
        let hash = |id: Id| (id as u64 % 7) | 0xbeef_0000_0000_0000;
        for id in 2..10_000 {
            put(&mut u, hash, id);
        }
        assert_eq!(u.len(), 9_998);
        assert!(u.capacity() >= 2 * 9_998);
        assert!((2..10_000).all(|id| find(&u, hash(id), id) == Some(id)));
        assert_eq!(find(&u, hash(10_000), 10_000), None);
    }

    #[test]
    fn clearing_keeps_only_what_is_put_back() {
        let mut u = Unique::new();
        let hash = |id: Id| (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for id in 2..5_000 {
            put(&mut u, hash, id);
        }
        let capacity = u.capacity();
        u.clear(100);
        assert_eq!(u.capacity(), capacity, "clearing never shrinks");
        for id in (2..5_000).step_by(3) {
            u.insert_new(hash(id), id);
        }
        assert_eq!(u.len(), (2..5_000).step_by(3).count());
        for id in 2..5_000 {
            let kept = (id - 2) % 3 == 0;
            assert_eq!(find(&u, hash(id), id).is_some(), kept, "node {id}");
        }
        // Room asked for is made.
        u.clear(capacity);
        assert!(u.capacity() >= 2 * capacity);
        assert_eq!(find(&u, hash(2), 2), None);
    }

    #[test]
    fn the_epoch_wraps_around_to_an_empty_table() {
        let mut u = Unique::new();
        let hash = |id: Id| (id as u64) << 20;
        for round in 0..(1u32 << 16) + 3 {
            let id = 2 + round % 1000;
            assert_eq!(find(&u, hash(id), id), None, "round {round}");
            put(&mut u, hash, id);
            assert_eq!(find(&u, hash(id), id), Some(id));
            u.clear(10);
        }
    }

    #[test]
    fn a_lean_table_fills_to_three_quarters() {
        let mut u = Unique::new();
        u.save_memory();
        let hash = |id: Id| (id as u64) << 40;
        for id in 2..(MIN_SLOTS / 4 * 3) as Id + 2 {
            assert!(!u.full());
            put(&mut u, hash, id);
        }
        assert!(u.full());
        assert_eq!(u.capacity(), MIN_SLOTS);
    }
}
