//! The testbed for expressiveness experiments: do two specifications mean
//! the same ([`equiv`]), and random traces over a specification's events
//! ([`generate`]).
//!
//! A [`Spec`] is a compiled specification (QTL, or MFOTL with its
//! signature) ready to be monitored on generated traces; an `Alphabet` is
//! the set of events a search or a generator draws from: the event names
//! and arities of one or more specifications, and a few data values (the
//! constants the specifications name first, then the fresh values `0`,
//! `1`, ...). Traces are untimed: event `i` is at time `i` (the clock of an
//! untimed trace, docs/TRACES.md), so a time bound counts events.
//!
//! ```
//! use hindsight::testbed::{Spec, equiv::{EquivOptions, equiv}};
//! let a = Spec::qtl("a", "prop p : Forall f . close(f) -> @ (!close(f) S open(f))").unwrap();
//! let b = Spec::qtl("b", "prop p : Forall f . close(f) -> P open(f)").unwrap();
//! let answer = equiv(&a, &b, &EquivOptions::default()).unwrap();
//! let found = answer.found.expect("they differ");
//! // open(0), close(0), close(0): a second close is fine for `b` only.
//! assert_eq!(found.trace.len(), 3);
//! ```

pub mod equiv;
pub mod generate;
#[cfg(test)]
mod tests;
mod verdicts;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::mfotl::typing::{Misfit, Typing};
use crate::mfotl::{MfotlError, Reading};
use crate::plan::{Arg, Op, Plan, compile_source_timed};
use crate::runtime::{Monitor, MonitorOptions, StepError};
use crate::syntax::SpecError;

/// A specification compiled for the testbed: its label (a file name, in
/// messages), its plan and, for MFOTL, the signature its events are read
/// against.
#[derive(Clone, Debug)]
pub struct Spec {
    /// What messages call it (its file's name).
    pub label: String,
    plan: Plan,
    typing: Option<Typing>,
}

impl Spec {
    /// The QTL specification `text`.
    pub fn qtl(label: &str, text: &str) -> Result<Spec, SpecError> {
        let (plan, _, _) = compile_source_timed(text, 0)?;
        Ok(Spec::from_plan(label, plan, None))
    }

    /// The MFOTL formula with its MonPoly signature; `reading` says whether
    /// the formula is the property ([`Reading::Violations`], MonPoly's
    /// `-negate`) or a pattern whose satisfactions are reported.
    pub fn mfotl(
        label: &str,
        formula: &str,
        signature: &str,
        reading: Reading,
    ) -> Result<Spec, MfotlError> {
        let stem = label.rsplit('/').next().unwrap_or(label);
        let stem = stem.split('.').next().unwrap_or(stem);
        let name = crate::mfotl::property_name(stem);
        let (plan, translation, _) = crate::mfotl::compile(formula, signature, &name, reading)?;
        Ok(Spec::from_plan(
            label,
            plan,
            Some(Typing::new(&translation)),
        ))
    }

    internal_item! {
        /// A compiled plan, with the typing of an MFOTL specification.
        pub fn from_plan(label: &str, plan: Plan, typing: Option<Typing>) -> Spec {
            Spec {
                label: label.to_owned(),
                plan,
                typing,
            }
        }
    }

    /// The properties' names, in order.
    pub fn property_names(&self) -> Vec<&str> {
        self.plan.props.iter().map(|p| p.name.as_str()).collect()
    }

    /// The events the specification knows, with their arities.
    pub fn events(&self) -> &BTreeMap<String, usize> {
        &self.plan.events
    }

    /// Whether this is an MFOTL specification (its events are read
    /// against a signature).
    pub fn is_mfotl(&self) -> bool {
        self.typing.is_some()
    }

    /// The constants the specification matches or compares data with, as
    /// text; with a whole number `c` a variable is compared with, also
    /// `c + 1`, so that values on both sides of `x <= c` are among them.
    pub fn constants(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for node in self.plan.props.iter().flat_map(|p| &p.nodes) {
            let args: &[Arg] = match &node.op {
                Op::Atom { args, .. } | Op::RuleCall { args, .. } => args,
                Op::Cmp { right, .. } => {
                    if let Arg::Const(c) = right
                        && let Ok(n) = c.parse::<i64>()
                        && let Some(above) = n.checked_add(1)
                    {
                        out.insert(above.to_string());
                    }
                    std::slice::from_ref(right)
                }
                _ => &[],
            };
            for a in args {
                if let Arg::Const(c) = a {
                    out.insert(c.clone());
                }
            }
        }
        out
    }

    /// A fresh monitor of the specification, on the clock of an untimed
    /// trace.
    pub fn monitor(&self) -> Result<Monitor, StepError> {
        let mut m = Monitor::new(self.plan.clone(), MonitorOptions::default())?;
        m.set_step_clock(true);
        Ok(m)
    }

    /// The arguments of `name(args)` as this specification reads them (an
    /// MFOTL specification's canonical values); `None` when the signature
    /// refuses a value.
    fn read(&self, name: &str, args: &[String]) -> Option<Vec<Box<[u8]>>> {
        let raw: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let Some(typing) = &self.typing else {
            return Some(raw.iter().map(|a| (*a).into()).collect());
        };
        match typing.read(name.as_bytes(), &raw) {
            Ok(canon) => Some(canon.iter().map(|a| (**a).into()).collect()),
            // A predicate this side does not declare is still a step of
            // its trace, which matches none of its atoms.
            Err(Misfit::Undeclared) => Some(raw.iter().map(|a| (*a).into()).collect()),
            Err(Misfit::Value { .. }) => None,
        }
    }
}

/// Why the testbed cannot search or generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestbedError {
    /// Two specifications use an event with different numbers of arguments.
    Arity {
        /// The event.
        event: String,
        /// Its arity in the first specification, and the specification.
        first: (usize, String),
        /// Its arity in the second, and the specification.
        second: (usize, String),
    },
    /// The properties of the two specifications cannot be paired.
    Pairing(String),
    /// The specification knows no event (nothing to generate).
    NoEvents(String),
    /// The search is too large to finish.
    TooLarge {
        /// The number of traces it would step.
        traces: u128,
    },
    /// A monitor refused a generated event.
    Step(StepError),
}

impl fmt::Display for TestbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestbedError::Arity {
                event,
                first,
                second,
            } => write!(
                f,
                "event `{event}` has {} argument(s) in {} but {} in {}",
                first.0, first.1, second.0, second.1
            ),
            TestbedError::Pairing(why) => write!(f, "{why}"),
            TestbedError::NoEvents(spec) => write!(f, "{spec} uses no event"),
            TestbedError::TooLarge { traces } => write!(
                f,
                "the search would step {traces} traces: lower --length or --values"
            ),
            TestbedError::Step(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TestbedError {}

impl From<StepError> for TestbedError {
    fn from(e: StepError) -> Self {
        TestbedError::Step(e)
    }
}

/// An event of an [`Alphabet`]: indices of its name and values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Letter {
    name: usize,
    args: Vec<usize>,
}

/// The events a search or a generator draws from: every name of the
/// specifications with its arity, and the data values.
#[derive(Clone, Debug)]
pub(crate) struct Alphabet {
    /// Event names with their arities, by name.
    pub names: Vec<(String, usize)>,
    /// The data values: the specifications' constants, then fresh numbers.
    pub values: Vec<String>,
}

impl Alphabet {
    /// The events of `specs` with `values` data values (at least one): the
    /// constants of the specifications first (in text order), then `0`,
    /// `1`, ... that are not constants, `values` in all.
    pub fn new(specs: &[&Spec], values: usize) -> Result<Alphabet, TestbedError> {
        Alphabet::build(specs, values, false)
    }

    /// [`Alphabet::new`] and one more event, without arguments, that no
    /// specification mentions: `other` (or `other2`, ... when taken). An
    /// event a specification does not mention is still a step of its
    /// trace (`@` looks past it; it is not `p`), so a search needs one.
    pub fn with_other(specs: &[&Spec], values: usize) -> Result<Alphabet, TestbedError> {
        Alphabet::build(specs, values, true)
    }

    fn build(specs: &[&Spec], values: usize, other: bool) -> Result<Alphabet, TestbedError> {
        let mut names: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
        let mut constants = BTreeSet::new();
        for s in specs {
            for (name, &arity) in s.events() {
                match names.get(name.as_str()) {
                    Some(&(a, other)) if a != arity => {
                        return Err(TestbedError::Arity {
                            event: name.clone(),
                            first: (a, other.to_owned()),
                            second: (arity, s.label.clone()),
                        });
                    }
                    _ => {
                        names.insert(name, (arity, &s.label));
                    }
                }
            }
            constants.extend(s.constants());
        }
        let mut vals: Vec<String> = constants.into_iter().take(values.max(1)).collect();
        let mut fresh = 0u64;
        while vals.len() < values.max(1) {
            let v = fresh.to_string();
            if !vals.contains(&v) {
                vals.push(v);
            }
            fresh += 1;
        }
        let mut names: Vec<(String, usize)> = names
            .into_iter()
            .map(|(n, (a, _))| (n.to_owned(), a))
            .collect();
        if other {
            let taken = |n: &str| names.iter().any(|(m, _)| m == n);
            let mut name = "other".to_owned();
            let mut k = 2;
            while taken(&name) {
                name = format!("other{k}");
                k += 1;
            }
            names.push((name, 0));
        }
        Ok(Alphabet {
            names,
            values: vals,
        })
    }

    /// Every event over the values, by name then values (in the order of
    /// [`Alphabet::values`]), that every MFOTL specification of `specs`
    /// can read.
    pub fn letters(&self, specs: &[&Spec]) -> Vec<Letter> {
        let k = self.values.len();
        let mut out = Vec::new();
        for (name, &(ref text, arity)) in self.names.iter().enumerate() {
            let count = k.checked_pow(arity as u32).unwrap_or(usize::MAX);
            for mut code in 0..count {
                let mut args = vec![0; arity];
                for slot in args.iter_mut().rev() {
                    *slot = code % k;
                    code /= k;
                }
                let letter = Letter { name, args };
                let (_, a) = self.event(&letter);
                if specs.iter().all(|s| s.read(text, &a).is_some()) {
                    out.push(letter);
                }
            }
        }
        out
    }

    /// A random event: a name, then each value, uniformly.
    pub fn random(&self, rng: &mut Rng) -> Letter {
        let name = rng.below(self.names.len() as u64) as usize;
        let arity = self.names[name].1;
        let args = (0..arity)
            .map(|_| rng.below(self.values.len() as u64) as usize)
            .collect();
        Letter { name, args }
    }

    /// A letter's name and values.
    pub fn event(&self, l: &Letter) -> (String, Vec<String>) {
        let name = self.names[l.name].0.clone();
        let args = l.args.iter().map(|&v| self.values[v].clone()).collect();
        (name, args)
    }
}

/// A small, fast pseudo-random generator (SplitMix64): the same seed gives
/// the same numbers on every machine and in every version.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            return 0;
        }
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }
}
