//! Garbage collection of value codes: a code that no kept summary
//! distinguishes from the code of unseen values, and that nothing pins, can
//! no longer influence a verdict; it is handed back to its enumeration.

use hashbrown::HashSet;

use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{Op, VarIx};
use crate::runtime::ids::Code;

/// When to reclaim value codes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcPolicy {
    /// When the codes in use have doubled since the last collection (at least 256:
    /// fewer codes keep the codes narrow, which pays for more collections when
    /// values come and go, as the requests of a response property do).
    #[default]
    Auto,
    /// After every event (for testing).
    Always,
    /// Never.
    Never,
}

/// When and how much garbage collection of value codes happened.
#[derive(Clone, Debug, Default)]
pub(super) struct GcState {
    policy: GcPolicy,
    /// Codes in use right after the last collection.
    live_after: usize,
    pub collections: u64,
    pub released: u64,
}

impl GcState {
    pub fn new(policy: GcPolicy) -> GcState {
        GcState {
            policy,
            ..GcState::default()
        }
    }

    /// Whether a collection is due with `in_use` codes in use.
    pub fn due(&self, in_use: usize) -> bool {
        match self.policy {
            GcPolicy::Never => false,
            GcPolicy::Always => true,
            GcPolicy::Auto => in_use >= (2 * self.live_after).max(256),
        }
    }
}

impl PropMonitor {
    /// Releases every code that no kept summary distinguishes from the code
    /// for unseen values and that nothing pins (values seen for an
    /// `exists`/`forall` or compared variable, constants of rule calls).
    /// Such a value can no longer influence any verdict; if it occurs again
    /// it is enumerated afresh. Returns the number of codes released.
    pub(crate) fn collect_garbage(&mut self, space: &mut Space) -> usize {
        let dead: Vec<(usize, Vec<Code>)> = (0..self.state.classes.len())
            .map(|c| (c, self.dead_codes(space, c)))
            .collect();
        let mut released = 0;
        for (class, codes) in dead {
            released += codes.len();
            for code in codes {
                self.state.classes[class].release(code);
            }
        }
        let live = self.state.live_values();
        let gc = &mut self.state.gc;
        gc.collections += 1;
        gc.released += released as u64;
        gc.live_after = live;
        released
    }

    /// Collects garbage if it is due; returns whether codes were released.
    pub(super) fn collect_if_due(&mut self, space: &mut Space) -> bool {
        self.state.gc.due(self.state.live_values()) && self.collect_garbage(space) > 0
    }

    /// The codes of `class` that no kept summary distinguishes from the
    /// unseen code and that nothing pins.
    fn dead_codes(&self, space: &mut Space, class: usize) -> Vec<Code> {
        let plan = &self.compiled.plan;
        let state = &self.state;
        let width = state.classes[class].width();
        let mut pinned = HashSet::new();
        let mut distinguishing: Vec<(VarIx, Bdd)> = Vec::new();
        let summaries = self.kept_summaries_now(space);
        let kept: Vec<(Bdd, Vec<BddVar>)> =
            (summaries.iter()).map(|&b| (b, space.support(b))).collect();
        for (v, var) in plan.vars.iter().enumerate() {
            if var.class != class {
                continue;
            }
            if let Some(seen) = &state.seen[v] {
                pinned.extend(seen.codes.iter().copied());
            }
            // The codes on which some summary differs from its value at the
            // unseen code: ∃ other variables . (B ⊕ B[v := unseen]).
            let low = &var.bits[var.bits.len() - width..];
            let unseen: Vec<(BddVar, bool)> = low.iter().map(|&b| (b, true)).collect();
            let mut acc = space.ff();
            for &(b, ref support) in &kept {
                if low.iter().any(|x| support.contains(x)) {
                    let others: Vec<BddVar> = support
                        .iter()
                        .copied()
                        .filter(|x| !low.contains(x))
                        .collect();
                    let at_unseen = space.restrict(b, &unseen);
                    let differs = space.xor(b, at_unseen);
                    let codes = space.exists(differs, &others);
                    acc = space.or(acc, codes);
                }
            }
            distinguishing.push((v, acc));
        }
        if let Some(f) = &state.future {
            f.held_codes(plan, class, &mut pinned);
        }
        for (n, consts) in state.call_consts.iter().enumerate() {
            if let Op::RuleCall { rule, .. } = &plan.nodes[n].op {
                for (&p, code) in plan.rules[*rule].params.iter().zip(consts) {
                    if let Some(code) = code
                        && plan.vars[p].class == class
                    {
                        pinned.insert(*code);
                    }
                }
            }
        }
        distinguishing.retain(|(_, set)| !set.is_false());
        let space = &*space;
        // Each set depends on its variable's low bits only: one walk down
        // a path per code, with those bits in one assignment. Codes come in
        // increasing order: only the bits that differ from the code written
        // last in the same bits (variables may share bits) are rewritten.
        let mut values = vec![false; plan.bdd_vars];
        let mut written: Vec<(Option<&BddVar>, u32)> = Vec::new();
        let mut dead = Vec::new();
        for code in state.classes[class].live_codes() {
            if pinned.contains(&code) {
                continue;
            }
            let distinguished = distinguishing.iter().any(|(v, set)| {
                let bits = &plan.vars[*v].bits;
                let slot = match written.iter().position(|w| w.0 == bits.first()) {
                    Some(i) => i,
                    None => {
                        // The assignment starts all false: code 0.
                        written.push((bits.first(), 0));
                        written.len() - 1
                    }
                };
                let mut diff = written[slot].1 ^ code.0;
                written[slot].1 = code.0;
                while diff != 0 {
                    let i = diff.trailing_zeros() as usize;
                    diff &= diff - 1;
                    if i < width
                        && let Some(b) = bits.len().checked_sub(i + 1).and_then(|k| bits.get(k))
                        && let Some(x) = values.get_mut(usize::from(b.0))
                    {
                        *x = code.bit(i);
                    }
                }
                space.eval_bits(*set, &values)
            });
            if !distinguished {
                dead.push(code);
            }
        }
        dead
    }
}
