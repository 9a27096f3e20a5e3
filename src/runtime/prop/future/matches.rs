//! The matches of an event pattern kept as code tuples, for point mode.
//!
//! In point mode (see [`point`](super::point)) an event pattern that only
//! the guard or the delayed body reads, over the statement's leading
//! variables, is never needed as a set: it is read at one tuple at a time.
//! So it is not built as a BDD at all. Its matches at each position are
//! kept as the codes of its variables, and reading it at a tuple is looking
//! the tuple up among them. The codes are pinned for the garbage collection
//! of value codes while they are held (see [`Future::held_codes`]).
//!
//! When every event pattern with variables is kept so, and nothing else
//! reads the variables ([`Future::raw`]), the matches keep the values
//! themselves: binding enumerates no value, and there are no codes to
//! collect. A violation's tuples then come in the order of their values
//! (with codes, in the order of their codes).

use hashbrown::HashSet;

use super::Future;
use crate::bdd::{BddSpace, Space};
use crate::plan::future::PointForm;
use crate::plan::{Arg, NodeIx, Op, PropPlan, VarIx};
use crate::runtime::ids::Code;

/// The matches of one event pattern, position by position.
#[derive(Clone, Debug, Default)]
pub(crate) struct Matches {
    /// Per variable of a match's codes (the pattern's variables in the
    /// order of their first place): its place among the point form's.
    pub(super) places: Vec<usize>,
    /// Per position from `first` on (those before are dropped): the index
    /// of its first code in `codes`.
    starts: Vec<usize>,
    first: usize,
    /// The codes of every match, one match after the other, from `head`
    /// on (those before belong to positions dropped). Kept as values
    /// ([`Future::raw`]): each value's start and end in `bytes` instead.
    codes: Vec<u32>,
    head: usize,
    bytes: Vec<u8>,
}

/// Whether two values are the same: their last bytes first, which tell
/// most different values of one length apart without a call.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.last() == b.last() && a == b
}

/// The tuple of the point form's variables at which a node is read: their
/// codes, or with matches kept as values, the values.
#[derive(Clone, Copy, Debug)]
pub(super) enum Tuple<'a> {
    Codes(&'a [u64]),
    Values(&'a [&'a [u8]]),
}

impl Matches {
    /// The matches of pattern `n` if it can be kept as tuples in point
    /// form `form`: an atom whose variables are all the form's, that only
    /// delayed nodes read (or that is the guard itself).
    pub(super) fn new(
        plan: &PropPlan,
        delayed: &[bool],
        form: &PointForm,
        n: NodeIx,
    ) -> Option<Self> {
        let Op::Atom { args, .. } = &plan.nodes[n].op else {
            return None;
        };
        let mut vars: Vec<VarIx> = Vec::new();
        for a in args {
            if let Arg::Var(v) = a
                && !vars.contains(v)
            {
                vars.push(*v);
            }
        }
        let places = (vars.iter())
            .map(|v| form.vars.iter().position(|w| w == v))
            .collect::<Option<Vec<usize>>>()?;
        let read_as_set = (0..plan.nodes.len())
            .any(|i| !delayed[i] && crate::plan::future::reads(plan, i).any(|k| k == n));
        if read_as_set || plan.rules.iter().any(|r| r.body == n) {
            return None;
        }
        Some(Matches {
            places,
            ..Matches::default()
        })
    }

    /// Appends the next position, with no match yet.
    pub(super) fn open(&mut self) {
        self.starts.push(self.codes.len());
    }

    /// Adds a match to the last position: its codes (a pattern without
    /// variables keeps one code, 0, per match).
    pub(super) fn add(&mut self, codes: impl Iterator<Item = u32>) {
        if self.places.is_empty() {
            self.codes.push(0);
        } else {
            self.codes.extend(codes);
        }
    }

    /// Adds a match to the last position kept as values: its values
    /// `spans` in `raw`.
    pub(super) fn add_values(&mut self, spans: &[(u32, u32)], raw: &[u8]) {
        for &(a, b) in spans {
            let at = self.bytes.len() as u32;
            self.bytes.extend_from_slice(&raw[a as usize..b as usize]);
            self.codes.extend([at, self.bytes.len() as u32]);
        }
        if self.places.is_empty() {
            self.codes.extend([0, 0]);
        }
    }

    /// Drops the first `n` positions.
    pub(super) fn drop_front(&mut self, n: usize, raw: bool) {
        let n = n.min(self.starts.len() - self.first);
        if n == 0 {
            return;
        }
        self.first += n;
        self.head = self.starts.get(self.first).copied().unwrap_or(self.codes.len());
        // The positions and codes before are dead: moved out once they are
        // most.
        if self.first > 64 && 2 * self.first > self.starts.len() {
            self.starts.drain(..self.first);
            self.first = 0;
        }
        if self.head > 64 && 2 * self.head > self.codes.len() {
            self.starts.drain(..self.first);
            self.first = 0;
            self.codes.drain(..self.head);
            for s in &mut self.starts {
                *s -= self.head;
            }
            self.head = 0;
            if raw {
                let first = self.codes.first().map_or(self.bytes.len(), |&a| a as usize);
                self.bytes.drain(..first);
                for c in &mut self.codes {
                    *c -= first as u32;
                }
            }
        }
    }

    /// The `j`th value of a position's codes kept as values.
    #[inline]
    fn value(&self, codes: &[u32], j: usize) -> &[u8] {
        &self.bytes[codes[2 * j] as usize..codes[2 * j + 1] as usize]
    }

    /// The codes of the `i`th kept position's matches.
    #[inline]
    fn at(&self, i: usize) -> &[u32] {
        let i = self.first + i;
        let end = self.starts.get(i + 1).copied().unwrap_or(self.codes.len());
        &self.codes[self.starts[i]..end]
    }

    /// Whether the `i`th kept position has no match.
    pub(super) fn is_empty_at(&self, i: usize) -> bool {
        self.at(i).is_empty()
    }

    /// Whether the `i`th kept position has a match at `tuple` (the codes
    /// of the point form's variables).
    #[inline]
    pub(super) fn contains_at(&self, i: usize, tuple: Tuple<'_>) -> bool {
        let codes = self.at(i);
        let tuple = match tuple {
            Tuple::Codes(t) => t,
            Tuple::Values(t) => {
                let w = self.places.len();
                return match self.places.as_slice() {
                    [] => !codes.is_empty(),
                    &[p] => (0..codes.len() / 2).any(|j| same(self.value(codes, j), t[p])),
                    places => (0..codes.len() / (2 * w)).any(|m| {
                        (places.iter().enumerate())
                            .all(|(k, &p)| same(self.value(codes, m * w + k), t[p]))
                    }),
                };
            }
        };
        match self.places.as_slice() {
            [] => !codes.is_empty(),
            &[p] => codes.iter().any(|&c| u64::from(c) == tuple[p]),
            places => codes.chunks_exact(places.len()).any(|m| {
                (m.iter().zip(places)).all(|(&c, &p)| u64::from(c) == tuple[p])
            }),
        }
    }

    /// Calls `f` with the tuple of each match of the `i`th kept position,
    /// as the codes of the point form's variables (in `tuple`, which has
    /// one for each).
    pub(super) fn for_each_tuple(&self, i: usize, tuple: &mut [u64], mut f: impl FnMut(&[u64])) {
        let places = &self.places;
        let codes = self.at(i);
        if places.is_empty() {
            if !codes.is_empty() {
                f(tuple);
            }
            return;
        }
        for m in codes.chunks_exact(places.len()) {
            for (&c, &p) in m.iter().zip(places) {
                tuple[p] = u64::from(c);
            }
            f(tuple);
        }
    }
}

impl Matches {
    /// [`for_each_tuple`](Self::for_each_tuple) of matches kept as values.
    pub(super) fn for_each_values<'a>(
        &'a self,
        i: usize,
        tuple: &mut [&'a [u8]],
        mut f: impl FnMut(&[&'a [u8]]),
    ) {
        let codes = self.at(i);
        let w = self.places.len();
        if w == 0 {
            if !codes.is_empty() {
                f(tuple);
            }
            return;
        }
        for m in 0..codes.len() / (2 * w) {
            for (k, &p) in self.places.iter().enumerate() {
                tuple[p] = self.value(codes, m * w + k);
            }
            f(tuple);
        }
    }
}

impl Future {
    /// Whether node `k` is kept as matches (not as sets).
    #[inline]
    pub(crate) fn is_matches(&self, k: NodeIx) -> bool {
        self.matches.get(k).is_some_and(Option::is_some)
    }

    /// Adds to `out` the codes of class `class` held by the kept matches
    /// (they must not be handed back while a position may read them).
    pub(crate) fn held_codes(&self, plan: &PropPlan, class: usize, out: &mut HashSet<Code>) {
        let Some(form) = &self.point else {
            return;
        };
        if self.raw {
            return;
        }
        for m in self.matches.iter().flatten() {
            let w = m.places.len();
            let in_class: Vec<bool> = (m.places.iter())
                .map(|&p| plan.vars[form.vars[p]].class == class)
                .collect();
            if w == 0 || !in_class.contains(&true) {
                continue;
            }
            for (j, &c) in m.codes[m.head..].iter().enumerate() {
                if in_class[j % w] {
                    out.insert(Code(c));
                }
            }
        }
    }
}

impl Future {
    /// Whether the guard `g` holds at no tuple at position `p`.
    pub(super) fn guard_empty(&self, g: NodeIx, p: u64) -> bool {
        match &self.matches[g] {
            Some(m) => m.is_empty_at((p - self.first[g]) as usize),
            None => self.val(g, p).is_false(),
        }
    }

    /// The value of immediate node `k` at position `q` (which it has) at
    /// the tuple whose codes are `tuple` and whose bits are set in `values`.
    #[inline]
    pub(super) fn read(
        &self,
        space: &Space,
        k: NodeIx,
        q: u64,
        values: &[bool],
        tuple: Tuple<'_>,
    ) -> bool {
        match &self.matches[k] {
            Some(m) => m.contains_at((q - self.first[k]) as usize, tuple),
            None => space.eval_bits(self.val(k, q), values),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Matches, Tuple};

    fn matches(width: usize) -> Matches {
        Matches {
            places: (0..width).rev().collect(),
            ..Matches::default()
        }
    }

    #[test]
    fn positions_keep_their_matches_as_the_front_is_dropped() {
        let mut m = matches(2);
        for p in 0..200u32 {
            m.open();
            // Position p: the matches (p, p+1) and, every third, (p, 0).
            m.add([p, p + 1].into_iter());
            if p % 3 == 0 {
                m.add([p, 0].into_iter());
            }
        }
        m.drop_front(150, false);
        // Places are reversed: a match's first code is the tuple's second.
        assert!(m.contains_at(0, Tuple::Codes(&[151, 150])));
        assert!(m.contains_at(0, Tuple::Codes(&[0, 150])));
        assert!(!m.contains_at(0, Tuple::Codes(&[150, 151])));
        assert!(!m.contains_at(1, Tuple::Codes(&[0, 151])));
        let mut seen = Vec::new();
        let mut tuple = [0u64; 2];
        m.for_each_tuple(3, &mut tuple, |t| seen.push(t.to_vec()));
        assert_eq!(seen, [vec![154, 153], vec![0, 153]]);
        m.drop_front(49, false);
        assert!(m.contains_at(0, Tuple::Codes(&[200, 199])));
        assert!(!m.is_empty_at(0));
    }

    #[test]
    fn positions_without_matches_are_dropped_too() {
        let mut m = matches(1);
        for p in 0..1000u32 {
            m.open();
            if p == 999 {
                m.add([7].into_iter());
            }
            m.open();
            m.drop_front(1, false);
        }
        // Of 2,000 positions, the last 1,000 are kept, as few starts.
        assert!(m.starts.len() - m.first == 1000);
        assert!(m.starts.len() < 2200 && m.first < 1100);
        assert!(m.contains_at(998, Tuple::Codes(&[7])));
        assert!(m.is_empty_at(999));
        m.drop_front(998, false);
        assert!(m.contains_at(0, Tuple::Codes(&[7])));
        assert!(m.is_empty_at(1));
        assert_eq!(m.starts.len() - m.first, 2);
        assert!(m.starts.len() <= 65);
    }

    #[test]
    fn a_pattern_without_variables_keeps_whether_it_matched() {
        let mut m = matches(0);
        m.open();
        m.open();
        m.add(std::iter::empty());
        assert!(m.is_empty_at(0));
        assert!(!m.contains_at(0, Tuple::Codes(&[])));
        assert!(m.contains_at(1, Tuple::Codes(&[])));
    }
}
