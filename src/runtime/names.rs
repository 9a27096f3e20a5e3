//! Maps keyed by event name, looked up at every event: the monitor's
//! arity check and each property's atoms of a name, and the parallel
//! core's names (the blocks a sliced run reads, time segments and their
//! warm-ups). A specification mentions a handful of event names, and for
//! so few a scan finds a name in fewer instructions than hashing it (the
//! arity check and the binding each hashed the name: about 100
//! instructions an event apiece on the FMSD logs); past [`FEW`] names the
//! map is a hash table. The scan compares each name's length and a
//! [`Probe`] of its bytes (two words read from its ends), and the bytes
//! themselves only past [`Probe::EXACT`] bytes: no call to `memcmp` for
//! the names of the field's logs.

use hashbrown::HashMap;

/// The most names a [`NameMap`] scans rather than hashes.
pub const FEW: usize = 16;

/// A map from event names to `V` (see the [module](self)).
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    /// The entries while they are [`FEW`] at most, else empty.
    few: Vec<(Probe, Box<[u8]>, V)>,
    /// The entries when they are more.
    many: HashMap<Box<[u8]>, V>,
}

impl<V> NameMap<V> {
    /// The value of `name`, if it has one.
    #[inline(always)]
    pub fn get(&self, name: &[u8]) -> Option<&V> {
        if self.many.is_empty() {
            find_few(&self.few, name)
        } else {
            self.many.get(name)
        }
    }
}

impl<V, const N: usize> From<[(Box<[u8]>, V); N]> for NameMap<V> {
    fn from(entries: [(Box<[u8]>, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> FromIterator<(Box<[u8]>, V)> for NameMap<V> {
    /// The map of the entries, the last value of a name standing.
    fn from_iter<I: IntoIterator<Item = (Box<[u8]>, V)>>(entries: I) -> Self {
        let many: HashMap<Box<[u8]>, V> = entries.into_iter().collect();
        if many.len() > FEW {
            return NameMap {
                few: Vec::new(),
                many,
            };
        }
        NameMap {
            few: (many.into_iter())
                .map(|(n, v)| (Probe::of(&n), n, v))
                .collect(),
            many: HashMap::new(),
        }
    }
}

/// What a scan compares of a name: its length and two words read from its
/// ends, which overlap for a name of up to [`Probe::EXACT`] bytes and then
/// hold every byte of it (so equal probes are equal names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Probe {
    len: usize,
    head: u64,
    tail: u64,
}

impl Probe {
    /// The longest name a probe holds whole.
    const EXACT: usize = 16;

    /// The probe of `name`: its first and last 8 bytes (4 and 4 for a name
    /// of 4 to 7 bytes; the first, middle and last for a shorter one).
    #[inline(always)]
    fn of(name: &[u8]) -> Probe {
        let len = name.len();
        let (head, tail) = if len >= 8 {
            (word8(name), word8(&name[len - 8..]))
        } else if len >= 4 {
            (word4(name), word4(&name[len - 4..]))
        } else if len > 0 {
            let bytes = [name[0], name[len / 2], name[len - 1]];
            (bytes.iter().fold(0, |w, &b| w << 8 | u64::from(b)), 0)
        } else {
            (0, 0)
        };
        Probe { len, head, tail }
    }
}

/// Whether `a` and `b` are the same bytes: by their probes up to
/// [`Probe::EXACT`] bytes (no call to compare bytes).
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && if a.len() <= Probe::EXACT { Probe::of(a) == Probe::of(b) } else { a == b }
}

/// The first 8 bytes of `b` (at least 8 long), as a word.
#[inline(always)]
fn word8(b: &[u8]) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The first 4 bytes of `b` (at least 4 long), as a word.
#[inline(always)]
fn word4(b: &[u8]) -> u64 {
    let mut w = [0; 4];
    w.copy_from_slice(&b[..4]);
    u64::from(u32::from_le_bytes(w))
}

/// The value of `name` among `few` entries, by a scan that compares
/// probes, and bytes only for a name longer than a probe holds.
#[inline(always)]
fn find_few<'a, V>(few: &'a [(Probe, Box<[u8]>, V)], name: &[u8]) -> Option<&'a V> {
    let probe = Probe::of(name);
    (few.iter())
        .find(|(p, n, _)| *p == probe && (probe.len <= Probe::EXACT || **n == *name))
        .map(|(_, _, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(names: &[&str]) -> NameMap<usize> {
        (names.iter().enumerate())
            .map(|(i, n)| (n.as_bytes().into(), i))
            .collect()
    }

    #[test]
    fn few_names_are_scanned_and_found_exactly() {
        let m = map(&["acq", "rel", "ac", "acqq", ""]);
        assert!(m.many.is_empty());
        assert_eq!(m.get(b"acq"), Some(&0));
        assert_eq!(m.get(b"rel"), Some(&1));
        assert_eq!(m.get(b"ac"), Some(&2));
        assert_eq!(m.get(b"acqq"), Some(&3));
        assert_eq!(m.get(b""), Some(&4));
        assert_eq!(m.get(b"acr"), None);
        assert_eq!(m.get(b"Acq"), None);
        assert_eq!(m.get(b"a"), None);
    }

    #[test]
    fn names_of_every_length_are_told_apart_by_their_probes() {
        // Names of 0 to 20 bytes, and for each, every name one byte away
        // from it (at each place): only the name itself is found.
        let names: Vec<Vec<u8>> = (0..=20u8).map(|n| (0..n).map(|i| b'a' + i).collect()).collect();
        for (i, name) in names.iter().enumerate() {
            let m: NameMap<usize> = [(name.clone().into_boxed_slice(), i)].into();
            assert_eq!(m.get(name), Some(&i), "{name:?}");
            for at in 0..name.len() {
                let mut other = name.clone();
                other[at] = b'Z';
                assert_eq!(m.get(&other), None, "{other:?} for {name:?}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert_eq!(m.get(&longer), None);
            assert_eq!(m.get(&name[..name.len().saturating_sub(1)]), (name.is_empty()).then_some(&i));
        }
        for (a, b) in names.iter().zip(&names[1..]) {
            assert!(same_bytes(a, a) && !same_bytes(a, b) && !same_bytes(b, a));
            for at in 0..b.len() {
                let mut c = b.clone();
                c[at] = b'Z';
                assert!(!same_bytes(b, &c));
            }
        }
        // Short names whose probes would clash if the length were not in it.
        let m = map(&["ab", "aab", "abb", "a"]);
        assert_eq!((m.get(b"ab"), m.get(b"aab"), m.get(b"abb"), m.get(b"a")), (Some(&0), Some(&1), Some(&2), Some(&3)));
        assert_eq!(m.get(b"bab"), None);
    }

    #[test]
    fn many_names_are_hashed_and_found_exactly() {
        let names: Vec<String> = (0..=FEW).map(|i| format!("e{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let m = map(&refs);
        assert!(m.few.is_empty());
        for (i, n) in refs.iter().enumerate() {
            assert_eq!(m.get(n.as_bytes()), Some(&i));
        }
        assert_eq!(m.get(b"e"), None);
        assert_eq!(map(&[]).get(b"x"), None);
    }
}
