//! The events of a run counted by name ([`EventCounts`]), for the summary.

use std::collections::BTreeMap;

/// Events counted per name, cheaply for runs of the same name (the common
/// case in logs): consecutive events of one name touch no hash table.
#[derive(Debug, Default)]
pub struct EventCounts {
    totals: hashbrown::HashMap<Vec<u8>, u64>,
    /// Per index of a name known by index ([`add_indexed`](Self::add_indexed)):
    /// the name and its count.
    indexed: Vec<Option<(Box<[u8]>, u64)>>,
    /// The name of the current run of equal names, and its length so far.
    run: Vec<u8>,
    run_len: u64,
}

impl EventCounts {
    /// Counts one event named `name`.
    #[inline]
    pub fn add(&mut self, name: &[u8]) {
        if self.run_len > 0 && self.run == name {
            self.run_len += 1;
        } else {
            self.flush();
            self.run.clear();
            self.run.extend_from_slice(name);
            self.run_len = 1;
        }
    }

    /// Counts `n` events named `name`.
    pub fn add_n(&mut self, name: &[u8], n: u64) {
        if n == 0 {
            return;
        }
        self.add(name);
        self.run_len += n - 1;
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

    fn flush(&mut self) {
        if self.run_len > 0 {
            // A name seen before (the usual case) costs no allocation.
            match self.totals.get_mut(self.run.as_slice()) {
                Some(total) => *total += self.run_len,
                None => {
                    self.totals.insert(self.run.clone(), self.run_len);
                }
            }
            self.run_len = 0;
        }
    }

    /// The counts per name (names decoded lossily as UTF-8; names that
    /// decode alike are added up).
    pub fn into_counts(mut self) -> BTreeMap<String, u64> {
        self.flush();
        let mut out = BTreeMap::new();
        let indexed = self.indexed.into_iter().flatten();
        for (k, v) in self
            .totals
            .into_iter()
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
