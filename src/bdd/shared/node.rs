//! Nodes and their numbers: what the table, the cache and the operations
//! all speak of. It depends on nothing else in the package.

/// A node's index in the table.
pub(super) type Id = u32;
/// The false terminal.
pub(super) const FALSE: Id = 0;
/// The true terminal.
pub(super) const TRUE: Id = 1;
/// The level of the two terminal nodes: below every variable.
pub(super) const TERMINAL: u16 = u16::MAX;
/// The level of a node on the free list.
pub(super) const FREED: u16 = u16::MAX - 1;

/// A decision node: `if var then hi else lo`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Node {
    pub(super) var: u16,
    pub(super) lo: Id,
    pub(super) hi: Id,
}

/// A mix of three words (node hashing and cache slots): each multiplied
/// by its own odd constant and rotated apart, then folded so that the low
/// bits (slots) depend on the high ones.
#[inline]
pub(super) fn mix(a: u64, b: u64, c: u64) -> u64 {
    let h = a.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(21)
        ^ c.wrapping_mul(0x1656_67B1_9E37_79F9).rotate_left(42);
    h ^ (h >> 29)
}
