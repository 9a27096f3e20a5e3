//! Maps keyed by event name, looked up at every event: the monitor's
//! arity check and each property's atoms of a name, and the parallel
//! core's names (the blocks a sliced run reads, time segments and their
//! warm-ups). A specification mentions a handful of event names, and for
//! so few a scan that compares lengths and first bytes before the bytes
//! finds a name in fewer instructions than hashing it (the arity check and
//! the binding each hashed the name: about 100 instructions an event
//! apiece on the FMSD logs); past [`FEW`] names the map is a hash table.

use hashbrown::HashMap;

/// The most names a [`NameMap`] scans rather than hashes.
pub const FEW: usize = 16;

/// A map from event names to `V` (see the [module](self)).
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    /// The entries while they are [`FEW`] at most, else empty.
    few: Vec<(Box<[u8]>, V)>,
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
            few: many.into_iter().collect(),
            many: HashMap::new(),
        }
    }
}

/// The value of `name` among `few` entries, by a scan that compares
/// lengths and first bytes before the bytes (most names differ there).
#[inline(always)]
fn find_few<'a, V>(few: &'a [(Box<[u8]>, V)], name: &[u8]) -> Option<&'a V> {
    let first = name.first();
    (few.iter())
        .find(|(n, _)| n.len() == name.len() && n.first() == first && **n == *name)
        .map(|(_, v)| v)
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
