//! Typed ids of the runtime, so that the integers it indexes by cannot be
//! mixed up: a value's code is not a count, a node or a variable.

use std::fmt;

/// The code of a data value in its enumeration class (see
/// `Enumeration`): the BDDs range over the bits of codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(pub u32);

impl Code {
    /// The code as an index into per-code tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Bit `i` of the code (0 is the least significant; `i` below 32).
    #[inline]
    pub fn bit(self, i: usize) -> bool {
        debug_assert!(i < 32);
        self.0.wrapping_shr(i as u32) & 1 == 1
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
