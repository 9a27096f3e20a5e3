//! Which proofs can cite an event, decided on the formula alone.

use hashbrown::HashMap;

use crate::check::Property;
use crate::syntax::{Arena, BinOp, Form, FormId};

/// Whether a proof that a subformula has a truth value can cite an event
/// (an event atom that holds): a proof that cannot is shown shallow, and
/// left out of a range of events. For rule calls, the least fixpoint over
/// the rules (a cited event comes from a finite derivation).
pub struct Citing {
    /// Per rule name: whether a proof of it being false, true can cite.
    rules: HashMap<String, [bool; 2]>,
}

impl Citing {
    /// The table of `prop`'s rules.
    pub fn new(arena: &Arena, prop: &Property) -> Citing {
        let mut c = Citing {
            rules: (prop.rules.iter())
                .map(|r| (r.name.name.clone(), [false, false]))
                .collect(),
        };
        loop {
            let mut changed = false;
            for r in &prop.rules {
                for h in [false, true] {
                    let v = c.may_cite(arena, r.body, h);
                    let slot = &mut c.rules.get_mut(&r.name.name).expect("a rule")[h as usize];
                    if v && !*slot {
                        *slot = true;
                        changed = true;
                    }
                }
            }
            if !changed {
                return c;
            }
        }
    }

    /// Whether a proof that `form` has the truth value `holds` can cite an event.
    pub fn may_cite(&self, arena: &Arena, form: FormId, holds: bool) -> bool {
        stacker::maybe_grow(64 * 1024, 1 << 20, || {
            let c = |f: FormId, h: bool| self.may_cite(arena, f, h);
            match arena.form(form) {
                Form::True | Form::False | Form::Cmp { .. } => false,
                // Refused before any proof (see `unexplained`).
                Form::Rel { .. } | Form::Agg(..) | Form::Let(..) => false,
                Form::Call { name, .. } => match self.rules.get(&name.name) {
                    Some(r) => r[holds as usize],
                    None => holds,
                },
                Form::Not(a) => c(*a, !holds),
                Form::Bin(BinOp::Implies, a, b) => c(*a, !holds) || c(*b, holds),
                Form::Bin(BinOp::Iff, a, b) => {
                    c(*a, true) || c(*a, false) || c(*b, true) || c(*b, false)
                }
                Form::Bin(_, a, b) => c(*a, holds) || c(*b, holds),
                Form::Prev(a)
                | Form::PrevIn(_, a)
                | Form::Next(_, a)
                | Form::Once(_, a)
                | Form::Hist(_, a)
                | Form::Eventually(_, a)
                | Form::Always(_, a)
                | Form::Quant(_, _, a) => c(*a, holds),
                Form::Since(_, a, b) | Form::Zince(_, a, b) | Form::Until(_, a, b) => {
                    c(*a, holds) || c(*b, holds)
                }
                Form::Interval(a, b) => c(*a, holds) || c(*b, !holds),
            }
        })
    }
}
