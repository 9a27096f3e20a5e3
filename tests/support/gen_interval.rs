//! Proptest strategies for timed QTL formulas with intervals (issue 22):
//! `P`, `H`, `S` and `@` with every shape of time bound (closed and open
//! ends, `*`, the one-sided forms), over the events `p(x)`, `q(x)` and `r`,
//! and timed traces whose time stamps start at 0 or just below 2^64 and
//! advance by 0 to 3 (so that many events share a time stamp).

use proptest::prelude::*;

/// A time bound as written, with its ends' kinds.
#[derive(Clone, Debug)]
pub struct Bound {
    lo: u64,
    hi: Option<u64>,
    lo_open: bool,
    hi_open: bool,
    /// Written as `[<=d]` (when `lo` is 0 and `hi` is `d`) or `[>d]`
    /// (when `hi` is unbounded and `lo` is `d`).
    one_sided: bool,
}

impl Bound {
    /// The bound as QTL text, or `None` when it contains no natural number.
    fn text(&self) -> Option<String> {
        if self.one_sided {
            return Some(match self.hi {
                Some(h) => format!("[<={h}]"),
                None => format!("[>{}]", self.lo),
            });
        }
        let lo = self.lo + u64::from(self.lo_open);
        if let Some(h) = self.hi {
            let hi = if self.hi_open { h.checked_sub(1)? } else { h };
            if hi < lo {
                return None;
            }
        }
        let open = if self.lo_open { "(" } else { "[" };
        Some(match self.hi {
            Some(h) => format!(
                "{open}{},{h}{}",
                self.lo,
                if self.hi_open { ")" } else { "]" }
            ),
            None => format!("{open}{},*)", self.lo),
        })
    }
}

fn bound() -> impl Strategy<Value = Bound> {
    (
        0..5u64,
        prop::option::weighted(0.75, 0..5u64),
        any::<bool>(),
        any::<bool>(),
        0..6u8,
    )
        .prop_map(|(lo, width, lo_open, hi_open, kind)| {
            let one_sided = kind == 0;
            let hi = if one_sided && width.is_some() {
                Some(lo)
            } else {
                width.map(|w| lo + w)
            };
            Bound {
                lo: if one_sided && hi.is_some() { 0 } else { lo },
                hi,
                lo_open,
                hi_open,
                one_sided,
            }
        })
        .prop_filter("a non-empty interval", |b| b.text().is_some())
}

/// A formula over `x` as QTL text.
pub fn formula() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("p(x)".to_string()),
        Just("q(x)".to_string()),
        Just("r".to_string()),
        Just("true".to_string()),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        let t = |b: &Bound| b.text().unwrap_or_default();
        prop_oneof![
            inner.clone().prop_map(|a| format!("!{a}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} & {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} | {b})")),
            inner.clone().prop_map(|a| format!("@{a}")),
            (bound(), inner.clone()).prop_map(move |(b, a)| format!("@{} {a}", t(&b))),
            (bound(), inner.clone()).prop_map(move |(b, a)| format!("P{} {a}", t(&b))),
            (bound(), inner.clone()).prop_map(move |(b, a)| format!("H{} {a}", t(&b))),
            (bound(), inner.clone(), inner.clone())
                .prop_map(move |(b, a, c)| format!("({a} S{} {c})", t(&b))),
        ]
    })
}

/// A specification of one or two properties `Forall x . φ` (or `φ` when
/// φ does not mention `x`).
pub fn spec() -> impl Strategy<Value = String> {
    prop::collection::vec(formula(), 1..3).prop_map(|fs| {
        fs.iter()
            .enumerate()
            .map(|(i, f)| match f.contains("(x)") {
                true => format!("prop p{i} : Forall x . {f}\n"),
                false => format!("prop p{i} : {f}\n"),
            })
            .collect()
    })
}

/// A timed trace: (name, arguments, time) with non-decreasing times starting
/// at 0 or close to 2^64.
pub fn trace() -> impl Strategy<Value = Vec<(String, Vec<String>, u64)>> {
    let event = (0..3u8, 0..2u8, 0..4u64);
    (any::<bool>(), prop::collection::vec(event, 1..14)).prop_map(|(high, evs)| {
        let mut t = if high { u64::MAX - 45 } else { 0 };
        evs.into_iter()
            .map(|(name, value, step)| {
                t += step;
                let v = ["a", "b"][value as usize].to_string();
                match name {
                    0 => ("p".to_string(), vec![v], t),
                    1 => ("q".to_string(), vec![v], t),
                    _ => ("r".to_string(), Vec::new(), t),
                }
            })
            .collect()
    })
}
