//! `equiv`: a search for a trace on which two specifications give
//! different verdicts.
//!
//! The properties of the two sides are paired: the one property of each,
//! or by name. The verdict of a side at an event is the set of its paired
//! properties violated there; the two sides differ at an event when those
//! sets differ.
//!
//! First every trace of up to [`EquivOptions::length`] events over the
//! `Alphabet` is tried, depth first over the tree of their prefixes: both
//! monitors are stepped side by side, and each node of the tree clones the
//! two monitors of its parent, so no prefix is stepped twice. Once a
//! distinguishing trace of `n` events is found, only shorter ones are
//! looked for: the answer is the shortest, and among those the first in
//! the order of the alphabet. Then [`EquivOptions::random`] random traces
//! of [`EquivOptions::random_length`] events are tried; a difference found
//! there is cut at its first differing event and shrunk (events are left
//! out while the trace still distinguishes the two sides).
//!
//! Future operators give their verdicts only later. With one on either
//! side, a trace is compared as a complete trace: it is closed at its end
//! as MonPoly closes a log (which decides every bounded future operator),
//! and the two sides differ on it when they differ at any of its events
//! (`testbed::verdicts`). A node of the tree is then such a trace, and
//! the search is the same.

use super::verdicts::{AtStep, Side};
use super::{Alphabet, Letter, Rng, Spec, TestbedError};

/// What `equiv` searches.
#[derive(Clone, Debug)]
pub struct EquivOptions {
    /// Every trace of up to this many events is tried.
    pub length: usize,
    /// The data values: at most this many.
    pub values: usize,
    /// Then this many random traces...
    pub random: u64,
    /// ...of this many events.
    pub random_length: usize,
    /// The random traces' seed.
    pub seed: u64,
    /// The largest exhaustive search, in traces: a larger one is refused.
    pub max_traces: u128,
}

impl Default for EquivOptions {
    fn default() -> Self {
        EquivOptions {
            length: 4,
            values: 2,
            random: 1000,
            random_length: 20,
            seed: 0,
            max_traces: 1 << 32,
        }
    }
}

/// A trace on which the two sides differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The events: name and values.
    pub trace: Vec<(String, Vec<String>)>,
    /// At each event, the names of the paired properties violated on each
    /// side (the first side's names).
    pub verdicts: Vec<(Vec<String>, Vec<String>)>,
    /// At each event, those left undecided on each side (future operators
    /// only; the trace is closed at its end, which decides every bounded
    /// one, so this is empty in practice).
    pub undecided: Vec<(Vec<String>, Vec<String>)>,
    /// Whether the random search found it (else the exhaustive one did).
    pub random: bool,
}

/// What was searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The longest exhaustive traces.
    pub length: usize,
    /// The events of the alphabet (a name with values).
    pub letters: usize,
    /// The data values.
    pub values: Vec<String>,
    /// The traces of the exhaustive search (each prefix tree node is one).
    pub traces: u128,
    /// The random traces tried, and their length.
    pub random: (u64, usize),
    /// The random traces' seed.
    pub seed: u64,
}

/// The answer of [`equiv`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// A shortest distinguishing trace, if one was found.
    pub found: Option<Found>,
    /// What was searched.
    pub searched: Searched,
}

/// The two sides, stepped together.
type Pair = [Side; 2];

/// The search's fixed parts.
struct Search<'s> {
    /// Paired properties: index in `a`, index in `b`.
    pairs: Vec<(usize, usize)>,
    alphabet: Alphabet,
    letters: Vec<Letter>,
    /// Per letter, its arguments as each side reads them.
    args: Vec<[Vec<Box<[u8]>>; 2]>,
    specs: [&'s Spec; 2],
}

/// Searches for a trace on which `a` and `b` differ: see the
/// [module](self) docs.
pub fn equiv(a: &Spec, b: &Spec, options: &EquivOptions) -> Result<Answer, TestbedError> {
    let pairs = pair(a, b)?;
    let root: Pair = [Side::new(a.monitor()?), Side::new(b.monitor()?)];
    let alphabet = Alphabet::with_other(&[a, b], options.values)?;
    let letters = alphabet.letters(&[a, b]);
    let args = letters
        .iter()
        .map(|l| {
            let (name, vals) = alphabet.event(l);
            // `letters` keeps only what both sides read.
            [a, b].map(|s| s.read(&name, &vals).unwrap_or_default())
        })
        .collect();
    let traces = tree_size(letters.len() as u128, options.length);
    if traces > options.max_traces {
        return Err(TestbedError::TooLarge { traces });
    }
    let search = Search {
        pairs,
        alphabet,
        letters,
        args,
        specs: [a, b],
    };
    let mut best: Option<Vec<Letter>> = None;
    let mut limit = options.length;
    let mut prefix = Vec::new();
    if !search.letters.is_empty() {
        search.dfs(&root, &mut prefix, &mut limit, &mut best)?;
    }
    let mut random = false;
    let mut tried = 0;
    if best.is_none() && !search.alphabet.names.is_empty() {
        let mut rng = Rng::new(options.seed);
        while tried < options.random && best.is_none() {
            tried += 1;
            let trace: Vec<Letter> = (0..options.random_length)
                .map(|_| search.alphabet.random(&mut rng))
                .collect();
            if let Some(cut) = search.first_difference(&root, &trace)? {
                best = Some(search.shrink(&root, trace[..cut].to_vec())?);
                random = true;
            }
        }
    }
    let found = match best {
        Some(trace) => Some(search.describe(&root, &trace, random)?),
        None => None,
    };
    Ok(Answer {
        found,
        searched: Searched {
            length: options.length,
            letters: search.letters.len(),
            values: search.alphabet.values.clone(),
            traces,
            random: (tried, options.random_length),
            seed: options.seed,
        },
    })
}

/// The traces of 1 to `length` events over `letters` events.
fn tree_size(letters: u128, length: usize) -> u128 {
    let mut total: u128 = 0;
    let mut level: u128 = 1;
    for _ in 0..length {
        level = level.saturating_mul(letters);
        total = total.saturating_add(level);
    }
    total
}

/// The paired properties: the one of each side, or those of the same name.
fn pair(a: &Spec, b: &Spec) -> Result<Vec<(usize, usize)>, TestbedError> {
    let (na, nb) = (a.property_names(), b.property_names());
    if na.len() == 1 && nb.len() == 1 {
        return Ok(vec![(0, 0)]);
    }
    let unmatched = |x: &[&str], y: &[&str]| -> Vec<String> {
        x.iter()
            .filter(|n| !y.contains(n))
            .map(|n| format!("`{n}`"))
            .collect()
    };
    let (only_a, only_b) = (unmatched(&na, &nb), unmatched(&nb, &na));
    if !only_a.is_empty() || !only_b.is_empty() {
        let mut why = format!(
            "the properties of {} and {} cannot be paired by name",
            a.label, b.label
        );
        if !only_a.is_empty() {
            why += &format!("; only {} has {}", a.label, only_a.join(", "));
        }
        if !only_b.is_empty() {
            why += &format!("; only {} has {}", b.label, only_b.join(", "));
        }
        return Err(TestbedError::Pairing(why));
    }
    Ok(na
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i, nb.iter().position(|m| m == n)?)))
        .collect())
}

impl Search<'_> {
    /// Steps `letter` (its index) on both sides: whether they differ.
    fn step(&self, pair: &mut Pair, letter: usize) -> Result<bool, TestbedError> {
        let l = &self.letters[letter];
        let name = self.alphabet.names[l.name].0.as_bytes();
        self.step_args(pair, name, &self.args[letter])
    }

    /// Steps `name(args)` (each side's reading of the arguments) on both
    /// sides: whether they differ on the trace that ends there.
    fn step_args(
        &self,
        pair: &mut Pair,
        name: &[u8],
        args: &[Vec<Box<[u8]>>; 2],
    ) -> Result<bool, TestbedError> {
        for (side, args) in pair.iter_mut().zip(args) {
            let vals: Vec<&[u8]> = args.iter().map(|a| &**a).collect();
            side.step(name, &vals)?;
        }
        if !pair[0].future() && !pair[1].future() {
            // The earlier events agreed: only the last can differ.
            let (a, b) = (pair[0].last(), pair[1].last());
            return Ok(self
                .pairs
                .iter()
                .any(|&(i, j)| a.contains(&i) != b.contains(&j)));
        }
        let (a, b) = (pair[0].closed(), pair[1].closed());
        Ok(a.iter()
            .zip(&b)
            .any(|(x, y)| self.pairs.iter().any(|&(i, j)| x.of(i) != y.of(j))))
    }

    /// The depth-first search below `node` (the monitors after `prefix`),
    /// for traces of at most `limit` events; a difference found sets
    /// `best` and lowers `limit` below its length.
    fn dfs(
        &self,
        node: &Pair,
        prefix: &mut Vec<usize>,
        limit: &mut usize,
        best: &mut Option<Vec<Letter>>,
    ) -> Result<(), TestbedError> {
        for letter in 0..self.letters.len() {
            if prefix.len() + 1 > *limit {
                return Ok(());
            }
            let mut child = node.clone();
            prefix.push(letter);
            if self.step(&mut child, letter)? {
                *best = Some(prefix.iter().map(|&i| self.letters[i].clone()).collect());
                *limit = prefix.len() - 1;
            } else {
                self.dfs(&child, prefix, limit, best)?;
            }
            prefix.pop();
        }
        Ok(())
    }

    /// The number of events up to the first at which the sides differ on
    /// `trace` (random letters), if any.
    fn first_difference(
        &self,
        root: &Pair,
        trace: &[Letter],
    ) -> Result<Option<usize>, TestbedError> {
        let mut pair = root.clone();
        for (i, l) in trace.iter().enumerate() {
            let (name, vals) = self.alphabet.event(l);
            let Some(args) = self.read_both(&name, &vals) else {
                continue;
            };
            if self.step_args(&mut pair, name.as_bytes(), &args)? {
                return Ok(Some(i + 1));
            }
        }
        Ok(None)
    }

    /// A letter's arguments as both sides read them (`None`: a side's
    /// signature refuses a value; the letter is left out).
    fn read_both(&self, name: &str, vals: &[String]) -> Option<[Vec<Box<[u8]>>; 2]> {
        Some([
            self.specs[0].read(name, vals)?,
            self.specs[1].read(name, vals)?,
        ])
    }

    /// Leaves out events of a distinguishing `trace` while it still
    /// distinguishes (and cuts it at its first difference).
    fn shrink(&self, root: &Pair, mut trace: Vec<Letter>) -> Result<Vec<Letter>, TestbedError> {
        let mut i = 0;
        while i < trace.len() {
            let mut shorter = trace.clone();
            shorter.remove(i);
            match self.first_difference(root, &shorter)? {
                Some(cut) => {
                    shorter.truncate(cut);
                    trace = shorter;
                }
                None => i += 1,
            }
        }
        Ok(trace)
    }

    /// The found trace with each side's verdicts at each event (on the
    /// whole trace, ended after its last event).
    fn describe(&self, root: &Pair, trace: &[Letter], random: bool) -> Result<Found, TestbedError> {
        let mut pair = root.clone();
        let names = self.specs[0].property_names();
        let mut out = Found {
            trace: Vec::new(),
            verdicts: Vec::new(),
            undecided: Vec::new(),
            random,
        };
        for l in trace {
            let (name, vals) = self.alphabet.event(l);
            let Some(args) = self.read_both(&name, &vals) else {
                continue;
            };
            self.step_args(&mut pair, name.as_bytes(), &args)?;
            out.trace.push((name, vals));
        }
        let (a, b) = (pair[0].closed(), pair[1].closed());
        let named = |at: &AtStep, first: bool, verdict: u8| -> Vec<String> {
            self.pairs
                .iter()
                .filter(|&&(i, j)| at.of(if first { i } else { j }) == verdict)
                .map(|&(i, _)| names[i].to_owned())
                .collect()
        };
        for (x, y) in a.iter().zip(&b) {
            out.verdicts.push((named(x, true, 1), named(y, false, 1)));
            out.undecided.push((named(x, true, 2), named(y, false, 2)));
        }
        Ok(out)
    }
}
