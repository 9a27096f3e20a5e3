//! Conjunction chains: their conjuncts, the constraints not applied yet, and
//! applying them in an order where each finds its variables restricted.

use super::{Names, Pass};
use crate::syntax::{BinOp, Diagnostic, Expr, Form, FormId, RelOp, Term};

/// A conjunct that is a constraint (or, in MFOTL, a plain equality that
/// may be an assignment), waiting for its variables to be restricted.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    /// The conjunct.
    pub id: FormId,
    /// Its variables.
    pub vars: Names,
    /// The variables it restricts as a plain comparison.
    pub rr: Names,
    /// Whether it compares arithmetic terms (else it is a plain equality).
    pub hard: bool,
}

/// What the pass knows of a subformula.
#[derive(Clone, Debug, Default)]
pub(crate) struct Arr {
    /// The subformula rebuilt: the chain's conjuncts that are applied (for
    /// a pure combination, the combination itself).
    pub id: FormId,
    /// The variables it restricts (for a chain: with its applied
    /// assignments).
    pub rr: Names,
    /// Whether it is a combination of comparisons only.
    pub pure: bool,
    /// Whether it compares arithmetic terms somewhere.
    pub has_rel: bool,
    /// Its variables (of a pure combination).
    pub vars: Names,
    /// Of a pure combination: its conjuncts (itself if not a conjunction).
    pub conjuncts: Vec<Piece>,
    /// Whether the chain has conjuncts applied (otherwise `id` means `true`).
    pub has_base: bool,
    /// The chain's constraints not applied yet, in order.
    pub pending: Vec<Piece>,
}

impl Arr {
    /// A subformula that is not a combination of comparisons.
    pub fn base(id: FormId, rr: Names) -> Arr {
        Arr {
            id,
            rr,
            has_base: true,
            ..Arr::default()
        }
    }

    /// A comparison, or `true`/`false`.
    pub fn pure(id: FormId, has_rel: bool, vars: Names) -> Arr {
        // A plain comparison restricts its variables (over the values
        // seen); one of arithmetic terms does not by itself.
        let rr = if has_rel { Names::new() } else { vars.clone() };
        Arr::pure_with(id, has_rel, vars, rr)
    }

    /// A combination of comparisons that restricts `rr`.
    pub fn pure_with(id: FormId, has_rel: bool, vars: Names, rr: Names) -> Arr {
        Arr {
            id,
            pure: true,
            has_rel,
            conjuncts: vec![Piece {
                id,
                vars: vars.clone(),
                rr: rr.clone(),
                hard: has_rel,
            }],
            rr,
            vars,
            has_base: true,
            ..Arr::default()
        }
    }

    /// Whether it is a combination of comparisons one of which compares
    /// arithmetic terms.
    pub fn is_constraint(&self) -> bool {
        self.pure && self.has_rel
    }
}

/// `z = t` or `t = z` with a plain variable `z`: the variable and the
/// other side (a plain equality of MFOTL may be read either way round).
pub(crate) fn soft_equality(form: &Form) -> Option<(String, Term)> {
    match form {
        Form::Cmp {
            op: RelOp::Eq,
            left,
            right,
        } => Some((left.name.clone(), right.clone())),
        _ => None,
    }
}

impl Pass<'_, '_> {
    /// `a & b`: a combination when both are, else a chain.
    pub(super) fn and(&mut self, id: FormId, a: Arr, b: Arr) -> Arr {
        if a.pure && b.pure {
            let id = self.rebuild(id, [a.id, b.id]);
            let vars = a.vars.union(&b.vars).cloned().collect();
            let mut out = Arr::pure(id, a.has_rel || b.has_rel, vars);
            out.rr = a.rr.union(&b.rr).cloned().collect();
            out.conjuncts = a.conjuncts;
            out.conjuncts.extend(b.conjuncts);
            return out;
        }
        let mut base: Vec<(FormId, Names)> = Vec::new();
        let mut pending = Vec::new();
        for side in [a, b] {
            self.split(side, &mut base, &mut pending);
        }
        self.apply(base, pending, false)
    }

    /// The conjuncts of `side`: applied ones to `base`, the others to `pending`.
    fn split(&mut self, side: Arr, base: &mut Vec<(FormId, Names)>, pending: &mut Vec<Piece>) {
        if side.pure {
            for mut c in side.conjuncts {
                let soft = self.mfotl && soft_equality(self.arena.form(c.id)).is_some();
                if c.hard || soft {
                    c.hard = !soft;
                    pending.push(c);
                } else {
                    base.push((c.id, c.rr));
                }
            }
        } else {
            if side.has_base {
                base.push((side.id, side.rr));
            }
            pending.extend(side.pending);
        }
    }

    /// `a -> b` for a constraint `b`: `!(a & !b)`.
    pub(super) fn implies(&mut self, a: Arr, b: Arr) -> Arr {
        let not_b = self.push(Form::Not(b.id), b.id);
        let piece = Piece {
            id: not_b,
            vars: b.vars,
            rr: Names::new(),
            hard: true,
        };
        let mut base = Vec::new();
        let mut pending = Vec::new();
        self.split(a, &mut base, &mut pending);
        pending.push(piece);
        let chain = self.apply(base, pending, true);
        let id = self.push(Form::Not(chain.id), chain.id);
        Arr::base(id, Names::new())
    }

    /// A chain ends here (it is an operand of something other than `&`):
    /// what is left to apply is applied now or is an error.
    pub(super) fn close(&mut self, arr: Arr) -> Arr {
        let waiting = |p: &Self, c: &Piece| {
            c.hard || (p.mfotl && soft_equality(p.arena.form(c.id)).is_some())
        };
        if arr.pure && !arr.conjuncts.iter().any(|c| waiting(self, c)) {
            return arr;
        }
        if !arr.pure && arr.pending.is_empty() {
            return arr;
        }
        let mut base = Vec::new();
        let mut pending = Vec::new();
        self.split(arr, &mut base, &mut pending);
        self.apply(base, pending, true)
    }

    /// Applies what can be applied of `pending` to the conjunction of
    /// `base`, each constraint once its variables are restricted. `last`:
    /// the chain ends here (plain equalities left become conjuncts, other
    /// constraints left are errors); else they stay pending.
    fn apply(&mut self, base: Vec<(FormId, Names)>, mut pending: Vec<Piece>, last: bool) -> Arr {
        let mut rr = Names::new();
        let mut id: Option<FormId> = None;
        for (b, r) in base {
            rr.extend(r);
            id = Some(match id {
                None => b,
                Some(acc) => self.push(Form::Bin(BinOp::And, acc, b), b),
            });
        }
        loop {
            let mut progress = false;
            let mut i = 0;
            while i < pending.len() {
                let p = &pending[i];
                let applied = match self.assignment(p, &rr) {
                    Some((target, node)) => {
                        rr.insert(target);
                        Some(node)
                    }
                    None if p.hard && p.vars.is_subset(&rr) => Some(p.id),
                    None => None,
                };
                match applied {
                    Some(node) => {
                        id = Some(self.conjoin(id, node));
                        pending.remove(i);
                        progress = true;
                    }
                    None => i += 1,
                }
            }
            if !progress {
                break;
            }
        }
        if last {
            for p in std::mem::take(&mut pending) {
                if p.hard {
                    self.unrestricted(&p, &rr);
                } else {
                    rr.extend(p.rr.iter().cloned());
                    id = Some(self.conjoin(id, p.id));
                }
            }
        }
        let has_base = id.is_some();
        Arr {
            id: id.unwrap_or_default(),
            rr,
            has_base,
            pending,
            ..Arr::default()
        }
    }

    /// `acc & node` (`node` alone without `acc`).
    fn conjoin(&mut self, acc: Option<FormId>, node: FormId) -> FormId {
        match acc {
            None => {
                // A constraint on nothing (`1 + 1 = 2`): on `true`.
                if self.is_constraint_node(node) {
                    let t = self.push(Form::True, node);
                    self.push(Form::Bin(BinOp::And, t, node), node)
                } else {
                    node
                }
            }
            Some(acc) => self.push(Form::Bin(BinOp::And, acc, node), node),
        }
    }

    fn is_constraint_node(&self, id: FormId) -> bool {
        !matches!(self.arena.form(id), Form::Cmp { .. })
    }

    /// `p` as an assignment `z = t` if it is an equality with a plain
    /// variable `z` on one side and `rr` restricts the variables of `t`:
    /// the variable and the equality with `z` on the left. A plain
    /// equality is one only when `z` is not restricted yet.
    fn assignment(&mut self, p: &Piece, rr: &Names) -> Option<(String, FormId)> {
        let form = self.arena.form(p.id).clone();
        let (left, right) = match &form {
            Form::Rel {
                op: RelOp::Eq,
                left,
                right,
            } => (left.clone(), right.clone()),
            Form::Cmp {
                op: RelOp::Eq,
                left,
                right,
            } => (
                Expr::term(Term::Var(left.clone())),
                Expr::term(right.clone()),
            ),
            _ => return None,
        };
        let restricted = |e: &Expr| e.vars().all(|v| rr.contains(&v.name));
        let plain = |e: &Expr| match e.as_term() {
            Some(Term::Var(v)) => Some(v.name),
            _ => None,
        };
        let free = |z: &String| p.hard || !rr.contains(z);
        let (target, left, right) = match (plain(&left), plain(&right)) {
            (Some(z), _) if free(&z) && restricted(&right) => (z, left, right),
            (_, Some(z)) if free(&z) && restricted(&left) => (z, right, left),
            _ => return None,
        };
        let node = match &form {
            Form::Rel { left: l, .. } if *l == left => p.id,
            _ => self.push(
                Form::Rel {
                    op: RelOp::Eq,
                    left,
                    right,
                },
                p.id,
            ),
        };
        Some((target, node))
    }

    /// The error for constraint `p`, whose variables are not all restricted.
    fn unrestricted(&mut self, p: &Piece, rr: &Names) {
        let loose: Vec<String> = p
            .vars
            .iter()
            .filter(|v| !rr.contains(*v))
            .map(|v| format!("`{v}`"))
            .collect();
        let what = match self.arena.form(p.id) {
            Form::Rel { .. } => format!("the comparison `{}`", self.arena.show(p.id)),
            _ => format!("`{}`", self.arena.show(p.id)),
        };
        self.diags.push(Diagnostic::error(
            self.arena.span(p.id),
            format!(
                "{what} computes with {}, which nothing binds to finitely many values here: a comparison of arithmetic terms must be a conjunct `φ & t1 op t2` (or `φ -> t1 op t2`) of a formula φ that binds its variables (an event, a rule call, an aggregation or an assignment `x = t` that must hold), so that it is evaluated on φ's values",
                loose.join(", ")
            ),
        ));
    }
}
