//! The proofs of the temporal operators with a range of events: `S`,
//! `P`, `H`, `Z`, `[φ, ψ)` (since) and `U`, `F`, `G` (until).

use super::proof::{Lit, Proof, Prover};
use crate::syntax::TimeBound;

impl Prover<'_, '_> {
    /// The events `j <= last` within `bound` of event `i`: `lo..=hi`, or
    /// `None` when there is none.
    pub(super) fn range_back(
        &self,
        bound: Option<TimeBound>,
        i: usize,
        last: usize,
    ) -> Option<(usize, usize)> {
        let ev = self.truth.events();
        let gap = |j: usize| ev.clock(i) - ev.clock(j);
        let b = bound.unwrap_or(TimeBound { lo: 0, hi: None });
        let mut hi = last;
        while hi >= 1 && gap(hi) < b.lo {
            hi -= 1;
        }
        if hi == 0 {
            return None;
        }
        let mut lo = hi;
        while lo > 1 && b.hi.is_none_or(|h| gap(lo - 1) <= h) {
            lo -= 1;
        }
        (b.hi.is_none_or(|h| gap(hi) <= h)).then_some((lo, hi))
    }

    /// `φ S ψ` and its kin: `phi` (`None`: true) and `psi` with negation
    /// flags, `strict` for `Z`, the result negated for `H`.
    pub(super) fn since(
        &mut self,
        node: &mut Proof,
        bound: Option<TimeBound>,
        phi: Option<Lit>,
        psi: Lit,
        strict: bool,
        negate: bool,
    ) {
        let i = node.event;
        let sv = node.holds != negate;
        let within = bound.map(|b| format!(" within {b}")).unwrap_or_default();
        let top = if strict { i - 1 } else { i };
        if sv {
            // The latest ψ within the bound with φ ever since.
            let mut j = i;
            let mut found = None;
            if !strict || phi.is_none_or(|p| self.lit(node, p, i)) {
                if strict {
                    j = i - 1;
                }
                while j >= 1 {
                    if self.truth.within(bound, j, i) && self.lit(node, psi, j) {
                        found = Some(j);
                        break;
                    }
                    if phi.is_some_and(|p| !self.lit(node, p, j)) {
                        break;
                    }
                    j -= 1;
                }
            }
            let Some(j) = found else {
                node.reason = "inconsistent: no event makes it hold".into();
                return;
            };
            let (ctx, env) = (node.ctx, node.env.clone());
            node.reason = format!("{} at {j}", self.said(node, psi, true));
            if let Some(p) = phi
                && j < i
            {
                let f = self.show(p.0, &node.env, None);
                node.reason += &if p.1 {
                    format!(", and no `{f}` since")
                } else {
                    format!(", and `{f}` at every event since")
                };
            }
            node.children.push(self.prove(ctx, psi.0, &env, j));
            if let Some(p) = phi {
                self.citing(node, p, true, j + 1..=i);
            }
            return;
        }
        // The latest event where φ fails; ψ fails within the bound from there.
        let mut k = None;
        if let Some(p) = phi {
            let mut m = i;
            while m >= 1 {
                if !self.lit(node, p, m) {
                    k = Some(m);
                    break;
                }
                m -= 1;
            }
        }
        let from = k.unwrap_or(1);
        let range = if top >= from {
            self.range_back(bound, i, top)
                .filter(|&(_, hi)| hi >= from)
                .map(|(lo, hi)| (lo.max(from), hi))
        } else {
            None
        };
        let none = match (range, k) {
            (None, _) => format!("{} at any event{within}", self.said(node, psi, false)),
            (Some((lo, hi)), _) if lo == hi => format!("{} at {lo}", self.said(node, psi, false)),
            (Some((lo, hi)), _) => {
                format!("{} from {lo} to {hi}{within}", self.said(node, psi, false))
            }
        };
        let none = match (range, k) {
            (None, Some(_)) => format!("{} since{within}", self.said(node, psi, false)),
            _ => none,
        };
        if let (Some(k), Some(p)) = (k, phi) {
            // The reading of `[a, b)`: "`a` at 1, then `b` at 3".
            let mut before = None;
            let mut j = k;
            while j > 1 {
                j -= 1;
                if self.lit(node, psi, j) {
                    before = Some(j);
                    break;
                }
            }
            let ends = format!("{} at {k}", self.said(node, p, false));
            node.reason = match before {
                Some(j) => format!(
                    "{} at {j}, then {ends}, and {none}",
                    self.said(node, psi, true)
                ),
                None => format!("{ends}, and {none}"),
            };
            let (ctx, env) = (node.ctx, node.env.clone());
            node.children.push(self.prove(ctx, p.0, &env, k));
        } else {
            node.reason = none;
        }
        if let Some((lo, hi)) = range {
            self.citing(node, psi, false, (lo..=hi).rev());
        }
    }

    /// `φ U ψ` and its kin (`F`, and `G` as the negation of `F !φ`).
    pub(super) fn until(
        &mut self,
        node: &mut Proof,
        bound: Option<TimeBound>,
        phi: Option<Lit>,
        psi: Lit,
        negate: bool,
    ) {
        let i = node.event;
        let n = self.truth.events().len();
        let uv = node.holds != negate;
        let b = bound.unwrap_or(TimeBound { lo: 0, hi: None });
        let gap = |s: &Self, j: usize| s.truth.events().clock(j) - s.truth.events().clock(i);
        let within = bound.map(|b| format!(" within {b}")).unwrap_or_default();
        let mut j = i;
        let mut stop = None;
        let mut found = None;
        while j <= n {
            if b.hi.is_some_and(|h| gap(self, j) > h) {
                break;
            }
            if b.contains(gap(self, j)) && self.lit(node, psi, j) {
                found = Some(j);
                break;
            }
            if phi.is_some_and(|p| !self.lit(node, p, j)) {
                stop = Some(j);
                break;
            }
            j += 1;
        }
        let (ctx, env) = (node.ctx, node.env.clone());
        if uv {
            let Some(j) = found else {
                node.reason = "inconsistent: no event makes it hold".into();
                return;
            };
            node.reason = format!("{} at {j}", self.said(node, psi, true));
            node.children.push(self.prove(ctx, psi.0, &env, j));
            if let Some(p) = phi {
                self.citing(node, p, true, i..j);
            }
            return;
        }
        let last = stop.unwrap_or(j.min(n + 1) - 1);
        node.reason = format!("{} from {i} to {last}{within}", self.said(node, psi, false));
        if let Some(k) = stop {
            node.reason += &format!(
                ", and {} at {k}",
                self.said(node, phi.unwrap_or((psi.0, !psi.1)), false)
            );
            if let Some(p) = phi {
                node.children.push(self.prove(ctx, p.0, &env, k));
            }
        } else if j > n {
            node.reason += " (the end of the trace)";
        }
        let range: Vec<usize> = (i..=last).filter(|&j| b.contains(gap(self, j))).collect();
        self.citing(node, psi, false, range.into_iter());
    }
}
