//! Value enumeration: each data value gets, on first sight, a small integer
//! code in its enumeration class; the BDDs range over the bits of those codes.
//!
//! With a width of `w` bits, codes `0 ..= 2^w - 2` are handed out and the code
//! `2^w - 1` (all ones) stands for every value not seen yet. Codes not yet
//! handed out behave exactly like that reserved code in every summary (no
//! operation distinguishes them), so a new value needs no BDD work; when the
//! codes run out the width grows by one bit (see `PropMonitor::grow`).
//!
//! Garbage collection hands codes back ([`Enumeration::release`]): the smallest
//! released code is reused for the next new value, before any fresh code, which
//! keeps the codes in use dense (and the summaries over them regular).

use hashbrown::HashMap;

/// The value table of one enumeration class.
#[derive(Clone, Debug)]
pub struct Enumeration {
    codes: HashMap<Box<[u8]>, u32>,
    /// Value of each code handed out; `None` for a released code.
    values: Vec<Option<Box<[u8]>>>,
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    width: usize,
}

/// The result of looking a value up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// Its code.
    pub code: u32,
    /// Whether the value was new.
    pub fresh: bool,
    /// Whether the width grew to make room for it.
    pub grew: bool,
}

impl Enumeration {
    /// An empty table whose codes start with `width` bits.
    pub fn new(width: usize) -> Enumeration {
        Enumeration {
            codes: HashMap::new(),
            values: Vec::new(),
            free: std::collections::BinaryHeap::new(),
            width: width.max(1),
        }
    }

    /// Current width in bits.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The code that stands for every value not seen yet.
    pub fn unseen(&self) -> u64 {
        (1u64 << self.width) - 1
    }

    /// Number of values that have a code now.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Whether no value has a code.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The codes handed out and not released, in increasing order.
    pub fn live_codes(&self) -> impl Iterator<Item = u32> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_some())
            .map(|(c, _)| c as u32)
    }

    /// Forgets the value of `code`; the code will be handed out again.
    pub fn release(&mut self, code: u32) {
        if let Some(value) = self.values.get_mut(code as usize).and_then(Option::take) {
            self.codes.remove(&value);
            self.free.push(std::cmp::Reverse(code));
        }
    }

    /// The code of `value`, if it has one.
    pub fn get(&self, value: &[u8]) -> Option<u32> {
        self.codes.get(value).copied()
    }

    /// The value with code `code` (empty for a code not in use).
    pub fn value(&self, code: u32) -> &[u8] {
        self.values
            .get(code as usize)
            .and_then(|v| v.as_deref())
            .unwrap_or(&[])
    }

    /// The value with code `code`, or `None` when no value has that code now
    /// (a code not handed out yet, released, or the reserved unseen code).
    pub fn decode(&self, code: u32) -> Option<&[u8]> {
        self.values.get(code as usize).and_then(|v| v.as_deref())
    }

    /// The code of `value`, enumerating it if it is new. Fails when `max_width`
    /// bits cannot hold another code.
    pub fn get_or_insert(&mut self, value: &[u8], max_width: usize) -> Result<Lookup, usize> {
        if let Some(&code) = self.codes.get(value) {
            return Ok(Lookup {
                code,
                fresh: false,
                grew: false,
            });
        }
        if let Some(std::cmp::Reverse(code)) = self.free.pop() {
            self.values[code as usize] = Some(value.into());
            self.codes.insert(value.into(), code);
            return Ok(Lookup {
                code,
                fresh: true,
                grew: false,
            });
        }
        let code = self.values.len() as u64;
        let mut grew = false;
        if code >= self.unseen() {
            if self.width >= max_width {
                return Err(self.width);
            }
            self.width += 1;
            grew = true;
        }
        let code = code as u32;
        self.values.push(Some(value.into()));
        self.codes.insert(value.into(), code);
        Ok(Lookup {
            code,
            fresh: true,
            grew,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_and_the_width_grows_before_the_reserved_code() {
        let mut e = Enumeration::new(1);
        assert_eq!(e.unseen(), 1);
        let a = e.get_or_insert(b"a", 32).expect("room");
        assert_eq!(
            a,
            Lookup {
                code: 0,
                fresh: true,
                grew: false
            }
        );
        let b = e.get_or_insert(b"b", 32).expect("room");
        assert_eq!(
            b,
            Lookup {
                code: 1,
                fresh: true,
                grew: true
            }
        );
        assert_eq!(e.width(), 2);
        assert_eq!(e.unseen(), 3);
        assert_eq!(e.get_or_insert(b"a", 32).expect("room").code, 0);
        assert_eq!(e.value(1), b"b");
        assert_eq!(e.decode(1), Some(&b"b"[..]));
        assert_eq!(e.decode(2), None);
        assert_eq!(e.decode(3), None);
        assert!(e.get_or_insert(b"c", 2).is_ok());
        assert_eq!(e.get_or_insert(b"d", 2), Err(2));
    }

    #[test]
    fn released_codes_are_reused_first() {
        let mut e = Enumeration::new(4);
        for v in [b"a", b"b", b"c"] {
            e.get_or_insert(v, 32).expect("room");
        }
        e.release(1);
        assert_eq!(e.get(b"b"), None);
        assert_eq!(e.len(), 2);
        assert_eq!(e.live_codes().collect::<Vec<_>>(), vec![0, 2]);
        let d = e.get_or_insert(b"d", 32).expect("room");
        assert_eq!(
            d,
            Lookup {
                code: 1,
                fresh: true,
                grew: false
            }
        );
        assert_eq!(e.value(1), b"d");
        assert_eq!(e.get_or_insert(b"e", 32).expect("room").code, 3);
    }
}
