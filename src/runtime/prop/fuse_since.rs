//! Event patterns fused into the sinces that read them.
//!
//! An interval `[p(x), q(x))` is `!q(x) S p(x)`: at a `p` event its
//! summary gains the event's tuple, at a `q` event it loses it. Computed
//! node by node, each such event builds the cube of its match (a node per
//! bit of its codes), and then the disjunction or difference with the
//! previous value, a recursion that consults the operation cache at every
//! level of the cube for results it seldom holds (the tuples of successive
//! events differ). Fused, the since adds or removes each match's tuple by
//! one walk down its previous value along the match's literals
//! ([`BddSpace::edit_cube`]), which makes only the nodes of the changed
//! path. (On the `gen_access.py` log of 50,000 users, the logins,
//! logouts, opens and closes that access's two intervals read are 30% of
//! the events, and `run --jobs 1` executes 8% fewer instructions.)
//!
//! An atom is fused into a since, with point evaluation on, when it is the
//! since's right operand, or the operand of a negation fused into it (see
//! [`fuse`](super::fuse)) that no other node reads; when the since is the
//! only node computed as a set that reads it (nothing from one event to
//! the next, no leaf of the point form, no other rewriting); and when its
//! variables are all of the since's, so that the walk meets no variable
//! that its literals do not fix. Its value is then not built at an event,
//! only whether it changed (as an atom fused into a conjunction, see
//! [`fuse_atom`](super::fuse_atom)); a witness computes it afterwards.

use super::absorb::Absorbed;
use super::point::Analysis;
use super::restrict::Bypass;
use super::twins::Twins;
use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, Op, PropPlan};

/// The atoms fused into a since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SinceAtoms {
    /// The atom whose negation is the since's left operand.
    pub neg: Option<NodeIx>,
    /// The since's right operand.
    pub pos: Option<NodeIx>,
}

/// Per node: for a since with fused atoms, which. `fused` are the fused
/// negations, `atom_fused` the atoms fused into conjunctions already.
pub(super) fn analyse(
    plan: &PropPlan,
    point: &Analysis,
    keeps_pre: &[bool],
    rewritten: (&Bypass, &Twins, &Absorbed),
    exists_and: &[Option<(NodeIx, NodeIx)>],
    (fused, atom_fused): (&[bool], &[bool]),
) -> Vec<Option<SinceAtoms>> {
    let (bypass, twins, _) = rewritten;
    // A twin computed by renaming reads its source's value.
    let (readers, _) = super::fuse_and::reads(plan, point, bypass, twins, false, exists_and);
    let plain = |i: NodeIx| super::fuse_and::plain(point, rewritten, i);
    let lone = super::fuse_atom::lone_atoms(plan, point, keeps_pre, rewritten, exists_and);
    let fusable = |x: NodeIx, s: NodeIx| {
        let vars = &plan.nodes[x].free;
        lone[x] && !atom_fused[x] && plan.nodes[s].free.iter().all(|v| vars.contains(v))
    };
    (0..plan.nodes.len())
        .map(|s| {
            let Op::Since(a, b) = plan.nodes[s].op else {
                return None;
            };
            if !plain(s) || twins.aliased[s] || a == b {
                return None;
            }
            let pos = fusable(b, s).then_some(b);
            let neg = match plan.nodes[a].op {
                Op::Not(x) if fused[a] && readers[a] == 1 && fusable(x, s) => Some(x),
                _ => None,
            };
            // An interval of tuples of two codes or more: its ends share
            // the cube of each tuple (see `PropMonitor::pair_cube`), and
            // the connectives on its small summary find their lower
            // levels in the operation cache.
            if let (Some(p), Some(_)) = (pos, neg)
                && plan.nodes[p].free.len() > 1
            {
                return None;
            }
            (pos.is_some() || neg.is_some()).then_some(SinceAtoms { neg, pos })
        })
        .collect()
}

impl PropMonitor {
    /// Since `n` with fused atoms: `ψ ∨ (φ ∧ pre)`, the fused atoms' matches
    /// removed from `pre` (the left operand) or added (the right one) by
    /// walks, if either operand changed.
    pub(super) fn since_atoms(&mut self, space: &mut Space, n: NodeIx, all: bool) {
        let (Some(f), &Op::Since(a, b)) = (self.compiled.since_atoms[n], &self.compiled.plan.nodes[n].op)
        else {
            unreachable!("only sinces with fused atoms")
        };
        let s = &self.state;
        if !(all || s.changed[a] || s.changed[b]) {
            self.state.changed[n] = false;
            return;
        }
        let fused = &self.compiled.fused_operand;
        let (fa, fb) = (fused[a], fused[b]);
        let now = &s.now;
        let (na, nb, nowa, nowb) = (fa.map(|x| now[x]), fb.map(|x| now[x]), now[a], now[b]);
        // φ ∧ pre (nothing before the first event).
        let kept = match (s.pre[n], f.neg) {
            (None, _) => space.ff(),
            (Some(pre), Some(x)) => self.edit_matches(space, pre, x, false),
            (Some(pre), None) => match na {
                Some(x) => space.and_not(pre, x),
                None => space.and(nowa, pre),
            },
        };
        let value = match (f.pos, nb) {
            (Some(x), _) => self.edit_matches(space, kept, x, true),
            // ¬x ∨ kept
            (None, Some(x)) => space.imp(x, kept),
            (None, None) if nowb.is_false() => kept,
            (None, None) => space.or(nowb, kept),
        };
        let s = &mut self.state;
        s.changed[n] = all || value != s.now[n];
        s.now[n] = value;
    }

    /// `f` with the tuple of each match of atom `atom` at this event added
    /// (`add`) or removed.
    fn edit_matches(&mut self, space: &mut Space, mut f: Bdd, atom: NodeIx, add: bool) -> Bdd {
        for i in 0..self.scratch.binding.matched.len() {
            let (m, ref range) = self.scratch.binding.matched[i];
            if m != atom {
                continue;
            }
            let mut lits = std::mem::take(&mut self.scratch.cube_lits);
            self.match_lits(range.clone(), &mut lits);
            // The since's variables are the atom's: the walk meets no
            // variable the literals do not fix.
            let walked = space.edit_cube(f, &lits, add);
            self.scratch.cube_lits = lits;
            f = match walked {
                Some(r) => r,
                None => {
                    let cube = self.match_cube(space, i);
                    if add {
                        space.or(f, cube)
                    } else {
                        space.and_not(f, cube)
                    }
                }
            };
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::compile_source;
    use crate::runtime::prop::compiled::{CompiledProp, Step};

    /// The (since, left atom, right atom) of the property of `text` whose
    /// atoms are fused into sinces.
    fn fused(text: &str) -> Vec<(String, Option<String>, Option<String>)> {
        let (plan, _) = compile_source(text).expect("compiles");
        let c = CompiledProp::new(plan.props.into_iter().next().expect("one property"));
        let op = |n: usize| format!("{:?}", c.plan.nodes[n].op);
        (c.point_steps.iter())
            .filter_map(|s| match *s {
                Step::SinceAtoms(n) => {
                    let f = c.since_atoms[n].expect("fused");
                    for x in f.neg.iter().chain(&f.pos) {
                        assert!(c.atom_fused[*x] && !c.point_set[*x]);
                    }
                    Some((op(n), f.neg.map(op), f.pos.map(op)))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_events_of_an_interval_are_fused_into_it() {
        let got = fused(
            "prop access : Forall user . Forall file .
               access(user,file) -> [login(user),logout(user)) & [open(file),close(file))",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        for (since, neg, pos) in &got {
            assert!(since.starts_with("Since"), "{got:?}");
            assert!(neg.as_ref().is_some_and(|n| n.starts_with("Atom")), "{got:?}");
            assert!(pos.as_ref().is_some_and(|p| p.starts_with("Atom")), "{got:?}");
        }
    }

    #[test]
    fn an_atom_read_elsewhere_or_of_fewer_variables_is_not_fused() {
        // `login(user)` is read by the statement too; `reset` has fewer
        // variables than the since.
        let got = fused(
            "prop p : Forall user . (login(user) | out(user)) -> [login(user), reset)",
        );
        assert!(got.is_empty(), "{got:?}");
        // `@ login(user)` reads it from one event to the next.
        let got = fused("prop p : Forall user . @ login(user) -> [login(user), logout(user))");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].1.as_deref().map(|n| n.starts_with("Atom")), Some(true));
        assert_eq!(got[0].2, None, "{got:?}");
    }

    #[test]
    fn a_time_point_adds_and_removes_the_tuples_of_every_match() {
        use crate::runtime::{Monitor, MonitorOptions};
        let spec = "prop p : Forall u . access(u) -> [login(u), logout(u))";
        let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
        let mut step = |events: &[(&str, &[&str])]| -> bool {
            let args: Vec<Vec<&[u8]>> =
                events.iter().map(|(_, a)| a.iter().map(|x| x.as_bytes()).collect()).collect();
            let set: Vec<(&[u8], &[&[u8]])> =
                (events.iter().zip(&args)).map(|((n, _), a)| (n.as_bytes(), &a[..])).collect();
            !m.step_set(&set, 0).expect("accepted").is_empty()
        };
        // Two logins at once: both added.
        assert!(!step(&[("login", &["a"]), ("login", &["b"])]));
        assert!(!step(&[("access", &["a"]), ("access", &["b"])]));
        // A logout and a login of the same user at once: `ψ ∨ (¬φ ∧ pre)`
        // holds (the login); b's logout alone removes b.
        assert!(!step(&[("logout", &["a"]), ("login", &["a"]), ("logout", &["b"])]));
        assert!(!step(&[("access", &["a"])]));
        assert!(step(&[("access", &["b"])]));
        // Removing what is not there, adding what is: nothing changes.
        assert!(!step(&[("logout", &["c"]), ("login", &["a"])]));
        assert!(!step(&[("access", &["a"])]));
        assert!(step(&[("access", &["c"])]));
    }

    #[test]
    fn an_interval_of_pairs_keeps_its_shared_cubes_and_a_once_of_pairs_is_fused() {
        // Both ends of tuples of two codes: neither is fused.
        let got = fused("prop p : Forall t . Forall l . rel(t,l) -> @ [acq(t,l),rel(t,l))");
        assert!(got.is_empty(), "{got:?}");
        // One end only (the other has fewer variables), or a `P`.
        let got = fused("prop p : Forall f . close(f) -> Exists m . @ [open(f,m),close(f))");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!((got[0].1.is_none(), got[0].2.is_some()), (true, true), "{got:?}");
        let got = fused("prop p : Forall t . Forall x . read(t,x) -> P write(t,x)");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!((got[0].1.is_none(), got[0].2.is_some()), (true, true), "{got:?}");
    }
}
