//! Value enumeration: each data value gets, on first sight, a small integer
//! code in its enumeration class; the BDDs range over the bits of those codes.
//!
//! With a width of `w` bits, codes `0 ..= 2^w - 2` are handed out and the code
//! `2^w - 1` (all ones) stands for every value not seen yet. Codes not yet
//! handed out behave exactly like that reserved code in every summary (no
//! operation distinguishes them), so a new value needs no BDD work; when the
//! codes run out the width grows by one bit (see `PropMonitor::grow`).

use hashbrown::HashMap;

/// The value table of one enumeration class.
#[derive(Clone, Debug)]
pub struct Enumeration {
    codes: HashMap<Box<[u8]>, u32>,
    values: Vec<Box<[u8]>>,
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

    /// Number of values enumerated.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value has been enumerated.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The code of `value`, if it has one.
    pub fn get(&self, value: &[u8]) -> Option<u32> {
        self.codes.get(value).copied()
    }

    /// The value with code `code`.
    pub fn value(&self, code: u32) -> &[u8] {
        &self.values[code as usize]
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
        self.values.push(value.into());
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
        assert!(e.get_or_insert(b"c", 2).is_ok());
        assert_eq!(e.get_or_insert(b"d", 2), Err(2));
    }
}
