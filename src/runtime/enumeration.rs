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

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::ids::Code;
use super::packed::pack;

/// The value table of one enumeration class.
///
/// The values' bytes live in one buffer (no allocation per value), and the
/// hash table holds codes only: a value costs its bytes and about 32 bytes.
/// The bytes of released values are reclaimed by compacting the buffer once
/// they make up half of it. A value of at most
/// [`SHORT`](super::packed::SHORT) bytes (most values of a log: numbers,
/// names, addresses) is also kept packed in one `u128`
/// ([`super::packed`]), and is hashed and compared as that integer, where
/// a longer one is hashed as bytes and compared with `memcmp`.
#[derive(Clone, Debug)]
pub struct Enumeration {
    /// The codes in use, hashed by their values.
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// The values' bytes, one after the other.
    bytes: Vec<u8>,
    /// Per code handed out: where its value lies in `bytes`; `None` for a released code.
    spans: Vec<Option<(usize, u32)>>,
    /// Per code handed out: its value packed ([`pack`]), or [`NO_KEY`] for
    /// a longer value or a released code.
    keys: Vec<u128>,
    /// Bytes of released values still in `bytes`.
    dead_bytes: usize,
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    width: usize,
    /// The code returned last: events often repeat the previous event's
    /// value (one comparison then, no hashing nor probing).
    last: Option<u32>,
}

/// The result of looking a value up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// Its code.
    pub code: Code,
    /// Whether the value was new.
    pub fresh: bool,
    /// Whether the width grew to make room for it.
    pub grew: bool,
    /// Whether a new value took a released code (rather than a fresh one).
    pub reused: bool,
}

fn slice(bytes: &[u8], span: Option<(usize, u32)>) -> Option<&[u8]> {
    span.map(|(start, len)| &bytes[start..start + len as usize])
}

/// The key of a code whose value is not packed: its highest byte is no
/// packed value's length, so it equals no packed value.
const NO_KEY: u128 = u128::MAX;

/// How a value is looked for: its packed key, or its bytes when longer.
#[derive(Clone, Copy)]
enum Probe<'v> {
    Short(u128),
    Long(&'v [u8]),
}

impl<'v> Probe<'v> {
    #[inline(always)]
    fn of(value: &'v [u8]) -> Probe<'v> {
        pack(value).map_or(Probe::Long(value), Probe::Short)
    }

    /// Its hash: the key's, or the bytes' (a value's length decides which,
    /// so equal values hash alike).
    #[inline(always)]
    fn hash(self, hasher: &DefaultHashBuilder) -> u64 {
        match self {
            Probe::Short(key) => hasher.hash_one(key),
            Probe::Long(value) => hasher.hash_one(value),
        }
    }
}

impl Enumeration {
    /// An empty table whose codes start with `width` bits.
    pub fn new(width: usize) -> Enumeration {
        Enumeration {
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            bytes: Vec::new(),
            spans: Vec::new(),
            keys: Vec::new(),
            dead_bytes: 0,
            free: std::collections::BinaryHeap::new(),
            width: width.max(1),
            last: None,
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
        self.table.len()
    }

    /// The codes handed out and not released, in increasing order.
    pub fn live_codes(&self) -> impl Iterator<Item = Code> + '_ {
        self.spans
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_some())
            .map(|(c, _)| Code(c as u32))
    }

    /// Forgets the value of `code`; the code will be handed out again.
    pub fn release(&mut self, code: Code) {
        let Some(span) = self.spans.get_mut(code.index()).and_then(Option::take) else {
            return;
        };
        let value = &self.bytes[span.0..span.0 + span.1 as usize];
        let hash = Probe::of(value).hash(&self.hasher);
        if let Ok(entry) = self.table.find_entry(hash, |&c| c == code.0) {
            entry.remove();
        }
        self.keys[code.index()] = NO_KEY;
        self.dead_bytes += span.1 as usize;
        self.free.push(std::cmp::Reverse(code.0));
        if self.dead_bytes > 4096 && 2 * self.dead_bytes > self.bytes.len() {
            self.compact();
        }
    }

    /// Rewrites the buffer with the values in use only.
    fn compact(&mut self) {
        let mut bytes = Vec::with_capacity(self.bytes.len() - self.dead_bytes);
        for span in self.spans.iter_mut().flatten() {
            let start = bytes.len();
            bytes.extend_from_slice(&self.bytes[span.0..span.0 + span.1 as usize]);
            span.0 = start;
        }
        self.bytes = bytes;
        self.dead_bytes = 0;
    }

    /// The code of `value`, if it has one.
    pub fn get(&self, value: &[u8]) -> Option<Code> {
        let probe = Probe::of(value);
        self.find(probe, probe.hash(&self.hasher)).map(Code)
    }

    /// The code whose value is `probe`'s, whose hash is `hash`.
    #[inline(always)]
    fn find(&self, probe: Probe<'_>, hash: u64) -> Option<u32> {
        match probe {
            Probe::Short(key) => (self.table.find(hash, |&c| self.keys[c as usize] == key)).copied(),
            Probe::Long(value) => self.table.find(hash, |&c| self.holds(c, value)).copied(),
        }
    }

    /// Whether `code`'s value is `value` (compared as bytes: a value of
    /// more than [`SHORT`](super::packed::SHORT) bytes).
    #[inline(always)]
    fn holds(&self, code: u32, value: &[u8]) -> bool {
        slice(&self.bytes, self.spans[code as usize]) == Some(value)
    }

    /// The value with code `code` (empty for a code not in use).
    pub fn value(&self, code: Code) -> &[u8] {
        self.decode(code).unwrap_or(&[])
    }

    /// The value with code `code`, or `None` when no value has that code now
    /// (a code not handed out yet, released, or the reserved unseen code).
    pub fn decode(&self, code: Code) -> Option<&[u8]> {
        slice(&self.bytes, self.spans.get(code.index()).copied().flatten())
    }

    /// The code of `value`, enumerating it if it is new. Fails when `max_width`
    /// bits cannot hold another code.
    pub fn get_or_insert(&mut self, value: &[u8], max_width: usize) -> Result<Lookup, usize> {
        let probe = Probe::of(value);
        // A released or undone code has no value: it never matches.
        let last = self.last.filter(|&c| match probe {
            Probe::Short(key) => self.keys.get(c as usize) == Some(&key),
            Probe::Long(value) => self.spans.get(c as usize).is_some() && self.holds(c, value),
        });
        let (found, hash) = match last {
            Some(c) => (Some(c), 0),
            None => {
                let hash = probe.hash(&self.hasher);
                (self.find(probe, hash), hash)
            }
        };
        if let Some(code) = found {
            self.last = Some(code);
            return Ok(Lookup {
                code: Code(code),
                fresh: false,
                grew: false,
                reused: false,
            });
        }
        let (code, grew, reused) = match self.free.pop() {
            Some(std::cmp::Reverse(code)) => (code, false, true),
            None => {
                let code = self.spans.len() as u64;
                let mut grew = false;
                if code >= self.unseen() {
                    if self.width >= max_width {
                        return Err(self.width);
                    }
                    self.width += 1;
                    grew = true;
                }
                self.spans.push(None);
                self.keys.push(NO_KEY);
                (code as u32, grew, false)
            }
        };
        let span = (self.bytes.len(), value.len() as u32);
        self.bytes.extend_from_slice(value);
        self.spans[code as usize] = Some(span);
        self.keys[code as usize] = match probe {
            Probe::Short(key) => key,
            Probe::Long(_) => NO_KEY,
        };
        let (bytes, spans, hasher) = (&self.bytes, &self.spans, &self.hasher);
        self.table.insert_unique(hash, code, |&c| {
            Probe::of(slice(bytes, spans[c as usize]).unwrap_or(&[])).hash(hasher)
        });
        self.last = Some(code);
        Ok(Lookup {
            code: Code(code),
            fresh: true,
            grew,
            reused,
        })
    }

    /// Undoes `lookup`, a [`get_or_insert`](Self::get_or_insert) that
    /// enumerated a new value: the table is as before that call. Lookups are
    /// undone latest first, with no release in between.
    pub fn undo(&mut self, lookup: Lookup) {
        if !lookup.fresh {
            return;
        }
        let code = lookup.code;
        let Some(Some((start, len))) = self.spans.get(code.index()).copied() else {
            return;
        };
        let hash = Probe::of(&self.bytes[start..start + len as usize]).hash(&self.hasher);
        if let Ok(entry) = self.table.find_entry(hash, |&c| c == code.0) {
            entry.remove();
        }
        self.bytes.truncate(start);
        if lookup.reused {
            self.spans[code.index()] = None;
            self.keys[code.index()] = NO_KEY;
            self.free.push(std::cmp::Reverse(code.0));
        } else {
            self.spans.pop();
            self.keys.pop();
        }
        if lookup.grew {
            self.width -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_code_is_reused_only_for_its_own_value() {
        let mut e = Enumeration::new(4);
        let a = e.get_or_insert(b"a", 32).expect("room").code;
        let again = e.get_or_insert(b"a", 32).expect("room");
        assert_eq!((again.code, again.fresh), (a, false));
        // Released: "a" is enumerated afresh (the released code, reused).
        e.release(a);
        let b = e.get_or_insert(b"b", 32).expect("room");
        assert_eq!((b.code, b.fresh, b.reused), (a, true, true));
        let a2 = e.get_or_insert(b"a", 32).expect("room");
        assert!(a2.fresh && a2.code != a);
        // Undone: the last code has no value any more.
        e.undo(a2);
        let a3 = e.get_or_insert(b"a", 32).expect("room");
        assert_eq!((a3.code, a3.fresh), (a2.code, true));
        assert_eq!(e.get_or_insert(b"b", 32).expect("room").code, b.code);
        assert_eq!(e.get(b"a"), Some(a3.code));
    }

    #[test]
    fn short_and_long_values_are_told_apart() {
        let mut e = Enumeration::new(1);
        // Values that pack alike but for their length, the longest packed
        // value and the shortest that is not, and the empty value.
        let values: [&[u8]; 7] = [
            b"a",
            b"a\0",
            b"\0",
            b"",
            b"fifteen-bytes-x",
            b"sixteen-bytes-xy",
            b"sixteen-bytes-xz",
        ];
        let codes: Vec<Code> = (values.iter())
            .map(|v| e.get_or_insert(v, 32).expect("room").code)
            .collect();
        for (v, &c) in values.iter().zip(&codes) {
            assert_eq!(e.get(v), Some(c), "{v:?}");
            assert_eq!(e.get_or_insert(v, 32).expect("room").code, c);
            assert_eq!(e.decode(c), Some(*v));
        }
        let distinct: std::collections::BTreeSet<_> = codes.iter().collect();
        assert_eq!(distinct.len(), values.len());
        // Released, neither kind is found, nor matched as the last code.
        e.release(codes[4]);
        e.release(codes[5]);
        assert_eq!((e.get(values[4]), e.get(values[5])), (None, None));
        let again = e.get_or_insert(values[5], 32).expect("room");
        assert!(again.fresh && again.reused);
        assert_eq!(e.get(values[6]), Some(codes[6]));
    }

    #[test]
    fn codes_are_dense_and_the_width_grows_before_the_reserved_code() {
        let mut e = Enumeration::new(1);
        assert_eq!(e.unseen(), 1);
        let a = e.get_or_insert(b"a", 32).expect("room");
        assert_eq!(
            a,
            Lookup {
                code: Code(0),
                fresh: true,
                grew: false,
                reused: false
            }
        );
        let b = e.get_or_insert(b"b", 32).expect("room");
        assert_eq!(
            b,
            Lookup {
                code: Code(1),
                fresh: true,
                grew: true,
                reused: false
            }
        );
        assert_eq!(e.width(), 2);
        assert_eq!(e.unseen(), 3);
        assert_eq!(e.get_or_insert(b"a", 32).expect("room").code, Code(0));
        assert_eq!(e.value(Code(1)), b"b");
        assert_eq!(e.decode(Code(1)), Some(&b"b"[..]));
        assert_eq!(e.decode(Code(2)), None);
        assert_eq!(e.decode(Code(3)), None);
        assert!(e.get_or_insert(b"c", 2).is_ok());
        assert_eq!(e.get_or_insert(b"d", 2), Err(2));
    }

    #[test]
    fn released_codes_are_reused_first() {
        let mut e = Enumeration::new(4);
        for v in [b"a", b"b", b"c"] {
            e.get_or_insert(v, 32).expect("room");
        }
        e.release(Code(1));
        assert_eq!(e.get(b"b"), None);
        assert_eq!(e.len(), 2);
        assert_eq!(e.live_codes().collect::<Vec<_>>(), vec![Code(0), Code(2)]);
        let d = e.get_or_insert(b"d", 32).expect("room");
        assert_eq!(
            d,
            Lookup {
                code: Code(1),
                fresh: true,
                grew: false,
                reused: true
            }
        );
        assert_eq!(e.value(Code(1)), b"d");
        assert_eq!(e.get_or_insert(b"e", 32).expect("room").code, Code(3));
    }

    #[test]
    fn released_bytes_are_reclaimed_and_values_survive_compaction() {
        let mut e = Enumeration::new(4);
        let mut kept = Vec::new();
        for round in 0..200u32 {
            for i in 0..100u32 {
                let v = format!("value-{round}-{i}");
                let code = e.get_or_insert(v.as_bytes(), 32).expect("room").code;
                if i == 0 {
                    kept.push((code, v));
                } else {
                    e.release(code);
                }
            }
        }
        assert_eq!(e.len(), 200);
        // The buffer holds about the live values' bytes, not all 20,000 values'.
        assert!(e.bytes.len() < 3 * 200 * 16, "{} bytes", e.bytes.len());
        for (code, v) in kept {
            assert_eq!(e.decode(code), Some(v.as_bytes()));
            assert_eq!(e.get(v.as_bytes()), Some(code));
        }
        assert_eq!(e.get(b"value-3-7"), None);
    }

    #[test]
    fn undoing_lookups_restores_the_table() {
        let mut e = Enumeration::new(1);
        let a = e.get_or_insert(b"a", 32).expect("room");
        let b = e.get_or_insert(b"b", 32).expect("room");
        e.release(a.code);
        // "c" reuses a's code, "d" takes a fresh one, "e" widens the codes.
        let c = e.get_or_insert(b"c", 32).expect("room");
        let d = e.get_or_insert(b"d", 32).expect("room");
        let f = e.get_or_insert(b"e", 32).expect("room");
        assert!(
            c.reused && !d.reused && !d.grew && f.grew,
            "{c:?} {d:?} {f:?}"
        );
        let again = e.get_or_insert(b"b", 32).expect("room");
        for l in [again, f, d, c] {
            e.undo(l);
        }
        assert_eq!(
            (e.len(), e.width(), e.get(b"c"), e.get(b"d")),
            (1, 2, None, None)
        );
        assert_eq!(e.get(b"b"), Some(b.code));
        // The same lookups again give the same codes.
        assert_eq!(e.get_or_insert(b"c", 32).expect("room"), c);
        assert_eq!(e.get_or_insert(b"d", 32).expect("room"), d);
        assert_eq!(e.get_or_insert(b"e", 32).expect("room"), f);
        assert_eq!(e.value(d.code), b"d");
    }
}
