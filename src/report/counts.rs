//! The events of a run counted by name ([`EventCounts`]), for the summary.

use std::collections::BTreeMap;

/// Events counted per name, cheaply for the few names a log interleaves
/// (the common case): an event of one of the last few names seen touches no
/// hash table.
#[derive(Debug, Default)]
pub struct EventCounts {
    totals: hashbrown::HashMap<Vec<u8>, u64>,
    /// Per index of a name known by index ([`add_indexed`](Self::add_indexed)):
    /// the name and its count.
    indexed: Vec<Option<(Box<[u8]>, u64)>>,
    /// The names seen last and their counts not yet in `totals`, and the
    /// slot the next new name takes when they are [`RECENT`].
    recent: Vec<(Vec<u8>, u64)>,
    next_slot: usize,
    /// The slot of the last name counted (looked at first: runs of one
    /// name are common too).
    last: usize,
}

/// How many names [`EventCounts`] counts without a hash table.
const RECENT: usize = 4;

impl EventCounts {
    /// Counts one event named `name`.
    #[inline]
    pub fn add(&mut self, name: &[u8]) {
        if let Some((n, count)) = self.recent.get_mut(self.last)
            && n == name
        {
            *count += 1;
            return;
        }
        if let Some(i) = self.recent.iter().position(|(n, _)| n == name) {
            self.recent[i].1 += 1;
            self.last = i;
            return;
        }
        self.add_new(name);
    }

    /// [`add`](Self::add) of a name not among the recent ones: it takes a
    /// slot, whose name's count goes to the table.
    fn add_new(&mut self, name: &[u8]) {
        if self.recent.len() < RECENT {
            self.last = self.recent.len();
            self.recent.push((name.to_vec(), 1));
            return;
        }
        let slot = self.next_slot;
        self.last = slot;
        self.next_slot = (slot + 1) % RECENT;
        let (old, count) = &mut self.recent[slot];
        // A name seen before (the usual case) costs no allocation.
        match self.totals.get_mut(old.as_slice()) {
            Some(total) => *total += *count,
            None => {
                self.totals.insert(old.clone(), *count);
            }
        }
        old.clear();
        old.extend_from_slice(name);
        *count = 1;
    }

    /// Counts `n` events named `name`.
    pub fn add_n(&mut self, name: &[u8], n: u64) {
        if n == 0 {
            return;
        }
        self.add(name);
        if let Some((_, count)) = self.recent.iter_mut().find(|(k, _)| k == name) {
            *count += n - 1;
        }
    }

    /// Counts `n` events named `name`, whose index among the names the
    /// caller knows is `index`: an array update, with no look-up of the
    /// name. One `EventCounts` must be given one index per name.
    #[inline]
    pub fn add_indexed(&mut self, index: u32, name: &[u8], n: u64) {
        let i = index as usize;
        if let Some(Some((_, count))) = self.indexed.get_mut(i) {
            *count += n;
            return;
        }
        if self.indexed.len() <= i {
            self.indexed.resize(i + 1, None);
        }
        self.indexed[i] = Some((name.into(), n));
    }

    /// Adds the counts of `other` (another stretch of the same trace).
    pub fn merge(&mut self, other: EventCounts) {
        let indexed = other.indexed.into_iter().flatten();
        for (k, v) in (other.totals.into_iter())
            .chain(other.recent)
            .chain(indexed.map(|(k, v)| (k.into(), v)))
        {
            self.add_n(&k, v);
        }
    }

    /// The counts per name (names decoded lossily as UTF-8; names that
    /// decode alike are added up).
    pub fn into_counts(self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        let indexed = self.indexed.into_iter().flatten();
        for (k, v) in (self.totals.into_iter())
            .chain(self.recent)
            .chain(indexed.map(|(k, v)| (k.into(), v)))
        {
            *out.entry(String::from_utf8_lossy(&k).into_owned())
                .or_insert(0) += v;
        }
        out
    }
}

#[cfg(test)]
mod count_tests {
    use super::EventCounts;

    #[test]
    fn runs_and_interleavings_are_counted() {
        let mut c = EventCounts::default();
        for name in ["a", "a", "b", "a", "b", "b", "b"] {
            c.add(name.as_bytes());
        }
        let counts: Vec<(String, u64)> = c.into_counts().into_iter().collect();
        assert_eq!(counts, vec![("a".to_string(), 3), ("b".to_string(), 4)]);
    }

    #[test]
    fn more_names_than_the_recent_ones_are_counted() {
        let mut c = EventCounts::default();
        for i in 0..1000u32 {
            c.add(format!("e{}", i % 7).as_bytes());
            c.add_n(format!("f{}", i % 3).as_bytes(), 2);
        }
        let counts = c.into_counts();
        assert_eq!(counts.len(), 10);
        assert_eq!(counts["e0"], 143);
        assert_eq!(counts["e6"], 142);
        assert_eq!(counts["f0"], 2 * 334);
        assert_eq!(counts.values().sum::<u64>(), 3000);
    }

    #[test]
    fn counts_by_index_and_by_name_add_up() {
        let mut c = EventCounts::default();
        c.add_indexed(2, b"b", 3);
        c.add_indexed(0, b"a", 1);
        c.add_indexed(2, b"b", 2);
        c.add_n(b"a", 4);
        c.add(b"z");
        let counts: Vec<(String, u64)> = c.into_counts().into_iter().collect();
        assert_eq!(
            counts,
            vec![
                ("a".to_string(), 5),
                ("b".to_string(), 5),
                ("z".to_string(), 1)
            ]
        );
    }
}

#[cfg(test)]
mod tests {
    use super::EventCounts;

    #[test]
    fn merged_counts_add_up_per_name() {
        let (mut a, mut b) = (EventCounts::default(), EventCounts::default());
        for name in ["p", "q", "r", "s", "t", "p"] {
            a.add(name.as_bytes());
        }
        b.add_indexed(0, b"p", 3);
        b.add_n(b"u", 2);
        a.merge(b);
        let counts = a.into_counts();
        let get = |n: &str| counts.get(n).copied();
        assert_eq!((get("p"), get("q"), get("u"), get("t")), (Some(5), Some(1), Some(2), Some(1)));
        assert_eq!(counts.len(), 6);
    }
}
