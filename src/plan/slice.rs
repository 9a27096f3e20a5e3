//! Slicing analysis: whether a property can be monitored on parts of the
//! trace split by a data value (parametric slicing), and on which variable.
//!
//! A property `Forall x . φ` (the statement, possibly under further outer
//! `Forall`s) is *sliceable on x* when every atom that mentions x, directly or
//! through a rule parameter that carries it, binds it at one argument position
//! per event name (its *route*), and no atom of a routed event name lacks it.
//! The monitor of slice `h` then receives the events whose value at the route
//! hashes to `h`, every event of an unrouted name (*broadcast*), and a tick (an
//! event that matches nothing, at the same time stamp) for every other event.
//!
//! Why this is exact. Call a variable *carrying* if it is x in the statement,
//! or a rule parameter that every call of its rule passes a carrying variable
//! (a rule has at most one). Every occurrence of a carrying variable is an
//! argument at the route of an atom or at the carrying parameter of a rule
//! call. So, under an assignment that gives the carrying variable a value `v`
//! of slice `h`, an event withheld from slice `h` (its route holds `v' ≠ v`)
//! matches no atom, exactly as a tick: every subformula has the same value for
//! such assignments as in the whole run. Under a value `v'` of another slice,
//! every atom with the carrying variable is false in slice `h`, and every other
//! atom sees the same events as in the whole run: the slice computes what the
//! whole run computes for a value never seen, which the whole run's `Forall`
//! includes too. Hence slice `h` is violated at event `i` exactly when some
//! value of `h`, or the unseen value, violates the property at `i`; and the
//! property is violated at `i` exactly when some slice is.
//!
//! What is refused (the traps): comparisons and `exists`/`forall` over seen
//! values (seen values come from events of every slice); an outer quantifier
//! other than `Forall`; an event name that mentions x at different positions,
//! or that mentions it in one atom and not in another (a value of another
//! slice could reach the slice through that atom, e.g. under a negation); a
//! rule called with something else than the carrying variable at its carrying
//! parameter (recursion that moves x to another position, or a constant).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{Arg, Op, Plan, PropPlan, VarIx};
use crate::syntax::Quant;
use crate::syntax::walk::{Fold, Kids, Step, Walker};

/// How a property can be sliced on one variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slicing {
    /// The statement's outer `Forall` variable the slices split.
    pub var: VarIx,
    /// Its name.
    pub var_name: String,
    /// Per routed event name: the argument position (0-based) of the value
    /// that selects the slice.
    pub routes: BTreeMap<String, usize>,
    /// The event names the property mentions that go to every slice.
    pub broadcast: BTreeSet<String>,
}

/// The slicing decision for one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceAnalysis {
    /// The chosen slicing, if any (the one routing the most event names,
    /// the outermost on ties).
    pub chosen: Option<Slicing>,
    /// Every variable the property could be sliced on.
    pub options: Vec<Slicing>,
    /// Why the property, or a candidate variable, cannot be sliced on:
    /// `(variable or None for the whole property, reason)`.
    pub refused: Vec<(Option<String>, String)>,
}

impl PropPlan {
    /// Whether and how this property can be sliced (see [`slice`](self)).
    pub fn slicing(&self) -> SliceAnalysis {
        let mut refused = Vec::new();
        for (n, node) in self.nodes.iter().enumerate() {
            match node.op {
                Op::Cmp { .. } => refused.push((
                    None,
                    format!(
                        "the comparison `{}` depends on the values seen in every slice",
                        self.describe(n)
                    ),
                )),
                Op::Quant(Quant::ForallSeen, v, _) => refused.push((
                    None,
                    format!(
                        "`forall {}` ranges over the values seen in every slice",
                        self.vars[v].name
                    ),
                )),
                Op::Agg { .. } | Op::Assign { .. } | Op::Filter { .. } => refused.push((
                    None,
                    format!(
                        "`{}` computes values from the values of every slice",
                        self.describe(n)
                    ),
                )),
                _ => {}
            }
        }
        let mut candidates = Vec::new();
        let mut root = self.root;
        while let Op::Quant(Quant::Forall, v, body) = self.nodes[root].op {
            candidates.push(v);
            root = body;
        }
        if candidates.is_empty() {
            refused.push((
                None,
                "the statement is not universally quantified (`Forall x . ...`)".into(),
            ));
        }
        let mut options = Vec::new();
        if refused.is_empty() {
            for x in candidates {
                match self.slice_on(x) {
                    Ok(s) => options.push(s),
                    Err(why) => refused.push((Some(self.vars[x].name.clone()), why)),
                }
            }
        }
        let chosen = options.iter().rev().max_by_key(|s| s.routes.len()).cloned();
        SliceAnalysis {
            chosen,
            options,
            refused,
        }
    }

    /// The slicing on statement variable `x`, or why there is none.
    fn slice_on(&self, x: VarIx) -> Result<Slicing, String> {
        let name = |v: VarIx| self.vars[v].name.as_str();
        // The rule parameters that carry x: a fixed point over rule calls.
        let mut carrying: BTreeSet<VarIx> = BTreeSet::from([x]);
        loop {
            let mut grew = false;
            for node in &self.nodes {
                if let Op::RuleCall { rule, args } = &node.op {
                    for (k, a) in args.iter().enumerate() {
                        if matches!(a, Arg::Var(v) if carrying.contains(v)) {
                            grew |= carrying.insert(self.rules[*rule].params[k]);
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
        for (r, rule) in self.rules.iter().enumerate() {
            let params: Vec<usize> = (0..rule.params.len())
                .filter(|&k| carrying.contains(&rule.params[k]))
                .collect();
            if params.len() > 1 {
                return Err(format!(
                    "rule {} gets {} at more than one parameter",
                    rule.name,
                    name(x)
                ));
            }
            let Some(&k) = params.first() else { continue };
            for (n, node) in self.nodes.iter().enumerate() {
                if let Op::RuleCall { rule: called, args } = &node.op
                    && *called == r
                    && !matches!(&args[k], Arg::Var(v) if carrying.contains(v))
                {
                    return Err(format!(
                        "the call `{}` passes something else than {} at parameter {} of rule {}, which carries it elsewhere",
                        self.describe(n),
                        name(x),
                        name(rule.params[k]),
                        rule.name
                    ));
                }
            }
        }
        for node in &self.nodes {
            if let Op::Quant(_, v, _) = node.op
                && carrying.contains(&v)
                && v != x
            {
                return Err(format!("a quantifier binds {} inside", name(v)));
            }
            // `exists s . φ` is `Exists s . seen(s) & φ`, and a slice sees
            // fewer values: the same only when φ implies that an atom with s
            // and x matched at some event so far (delivered to the slice of x).
            if let Op::Quant(Quant::ExistsSeen, s, body) = node.op
                && !self.guarded(body, s, &carrying)
            {
                return Err(format!(
                    "`exists {}` ranges over the values seen in every slice, and its body does not imply a past event with {} and {}",
                    name(s),
                    name(s),
                    name(x)
                ));
            }
        }
        // Per event name: the positions of carrying variables common to all
        // its atoms that have one, and whether some atom has none.
        let mut common: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        let mut without: BTreeMap<String, usize> = BTreeMap::new();
        for (n, node) in self.nodes.iter().enumerate() {
            let Op::Atom { event, args } = &node.op else {
                continue;
            };
            let at: BTreeSet<usize> = (0..args.len())
                .filter(|&k| matches!(&args[k], Arg::Var(v) if carrying.contains(v)))
                .collect();
            if at.is_empty() {
                without.entry(event.clone()).or_insert(n);
            } else if let Some(c) = common.get_mut(event) {
                c.retain(|k| at.contains(k));
                if c.is_empty() {
                    return Err(format!(
                        "event {event} gets {} at different argument positions",
                        name(x)
                    ));
                }
            } else {
                common.insert(event.clone(), at);
            }
        }
        let mut routes = BTreeMap::new();
        for (event, at) in common {
            if let Some(&n) = without.get(&event) {
                return Err(format!(
                    "event {event} is used with {} and without it (`{}`): its other values would reach every slice",
                    name(x),
                    self.describe(n)
                ));
            }
            let first = at.first().copied().unwrap_or(0);
            routes.insert(event, first);
        }
        if routes.is_empty() {
            return Err(format!("no event binds {}", name(x)));
        }
        Ok(Slicing {
            var: x,
            var_name: name(x).to_string(),
            routes,
            broadcast: without.into_keys().collect(),
        })
    }
}

impl PropPlan {
    /// Whether node `n` implies that an atom with `s` and a carrying
    /// variable matched at the current or an earlier event.
    fn guarded(&self, n: usize, s: VarIx, carrying: &BTreeSet<VarIx>) -> bool {
        let mut guard = Guarded {
            prop: self,
            s,
            carrying,
        };
        Walker::new().fold(&mut guard, n, ())
    }
}

/// [`PropPlan::guarded`] as a fold over the plan's nodes (no recursion: a
/// conjunction can be nested tens of thousands deep).
struct Guarded<'p> {
    prop: &'p PropPlan,
    s: VarIx,
    carrying: &'p BTreeSet<VarIx>,
}

impl Fold for Guarded<'_> {
    type Node = usize;
    type Ctx = ();
    type Out = bool;

    fn enter(&mut self, n: usize, _: &()) -> Step<usize, (), bool> {
        let var_in = |args: &[Arg], pred: &dyn Fn(VarIx) -> bool| {
            args.iter().any(|a| matches!(a, Arg::Var(v) if pred(*v)))
        };
        match &self.prop.nodes[n].op {
            Op::Atom { args, .. } => Step::Done(
                var_in(args, &|v| v == self.s) && var_in(args, &|v| self.carrying.contains(&v)),
            ),
            Op::And(a, b) | Op::Or(a, b) => Step::Into(Kids::two(*a, *b), ()),
            Op::Prev(a) | Op::Quant(Quant::Exists | Quant::ExistsSeen, _, a) => {
                Step::Into(Kids::one(*a), ())
            }
            Op::Since(_, b) | Op::SinceTimed(_, _, b) | Op::Zince(_, _, b) => {
                Step::Into(Kids::one(*b), ())
            }
            _ => Step::Done(false),
        }
    }

    /// A conjunction is guarded when one side is, a disjunction when both are.
    fn leave(&mut self, n: usize, _: &(), [x, y]: [bool; 2]) -> bool {
        match self.prop.nodes[n].op {
            Op::And(..) => x || y,
            Op::Or(..) => x && y,
            _ => x,
        }
    }
}

/// How a parallel run monitors a property: whole, or as the parts of
/// [`PropPlan::parts`], each with its slicing analysis.
#[derive(Clone, Debug)]
pub enum Parallel {
    /// The property as it is.
    Whole(SliceAnalysis),
    /// Its parts, monitored apart (a violation of one is a violation of the
    /// property); its parts slice with fewer events sent to every slice.
    Split(Vec<(PropPlan, SliceAnalysis)>),
}

impl PropPlan {
    /// Whether a parallel run monitors this property whole or as its parts:
    /// as parts when some part slices with fewer events sent to every slice
    /// than the whole property (`access(u,f) -> A(u) & B(f)`), or slices
    /// where the whole does not.
    pub fn parallel(&self) -> Parallel {
        let whole = self.slicing();
        let cost = |a: &SliceAnalysis| a.chosen.as_ref().map_or(usize::MAX, |s| s.broadcast.len());
        let whole_cost = cost(&whole);
        if whole_cost == 0 {
            return Parallel::Whole(whole);
        }
        let Ok(parts) = self.parts() else {
            return Parallel::Whole(whole);
        };
        let parts: Vec<(PropPlan, SliceAnalysis)> = parts
            .into_iter()
            .map(|p| {
                let a = p.slicing();
                (p, a)
            })
            .collect();
        if parts.iter().any(|(_, a)| cost(a) < whole_cost) {
            Parallel::Split(parts)
        } else {
            Parallel::Whole(whole)
        }
    }
}

impl Plan {
    /// The slicing decision of every property, as `hindsight compile --explain`
    /// prints it.
    pub fn explain_slicing(&self) -> String {
        let mut out = String::new();
        for p in &self.props {
            match p.parallel() {
                Parallel::Whole(a) => explain(&mut out, &format!("property {}", p.name), &a, ""),
                Parallel::Split(parts) => {
                    let _ = writeln!(
                        out,
                        "property {}: split into {} parts, monitored apart (its statement is a conjunction under `Forall`)",
                        p.name,
                        parts.len()
                    );
                    for (k, (part, a)) in parts.iter().enumerate() {
                        let text = part.formula(part.root);
                        let text = match text.char_indices().nth(MAX_SHOWN) {
                            Some((cut, _)) => format!("{}...", &text[..cut]),
                            None => text,
                        };
                        let _ = writeln!(out, "  part {}: {text}", k + 1);
                        explain(&mut out, &format!("  part {}", k + 1), a, "  ");
                    }
                }
            }
        }
        out
    }
}

/// The longest part shown by [`Plan::explain_slicing`], in characters.
const MAX_SHOWN: usize = 200;

/// One slicing decision: `what` is sliced or not, then the reasons.
fn explain(out: &mut String, what: &str, a: &SliceAnalysis, indent: &str) {
    match &a.chosen {
        Some(s) => {
            let routes: Vec<String> = s
                .routes
                .iter()
                .map(|(e, k)| format!("{e}#{}", k + 1))
                .collect();
            let _ = writeln!(
                out,
                "{what}: sliced on {} (routed by argument: {}; to every slice: {})",
                s.var_name,
                routes.join(", "),
                if s.broadcast.is_empty() {
                    "none".to_string()
                } else {
                    s.broadcast.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            );
            let others: Vec<&str> = a
                .options
                .iter()
                .filter(|o| o.var != s.var)
                .map(|o| o.var_name.as_str())
                .collect();
            if !others.is_empty() {
                let _ = writeln!(
                    out,
                    "{indent}  could also be sliced on: {}",
                    others.join(", ")
                );
            }
        }
        None => {
            let _ = writeln!(out, "{what}: not sliced");
        }
    }
    for (var, why) in &a.refused {
        match var {
            Some(v) => {
                let _ = writeln!(out, "{indent}  not on {v}: {why}");
            }
            None => {
                let _ = writeln!(out, "{indent}  {why}");
            }
        }
    }
}

#[cfg(test)]
mod tests;
