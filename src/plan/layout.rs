//! Variables of a property plan: enumeration classes, which variables need
//! their seen values tracked, unique labels for listings, and the sharing of
//! BDD bit slots between variables.

use std::collections::HashMap;

use super::{Arg, Node, Op, RulePlan, Var, VarIx, VarKind};
use crate::syntax::Quant;

/// Assigns each variable a slot of BDD bits; variables may share a slot.
///
/// A rule call renames the rule's parameters to its arguments at every event
/// at which the relation changed. When an argument and its parameter never
/// occur free together in one subformula (they never "interfere"), they can
/// use the same bits and that part of the renaming disappears: typically the
/// call in the statement, `closed(x)` for `closed(p) := ...`. Variables are
/// merged greedily, call by call, only within one enumeration class (so the
/// code widths agree) and only when no variable of one group interferes with
/// one of the other. Returns each variable's slot and the number of slots.
pub(super) fn share_bits(vars: &[Var], nodes: &[Node], rules: &[RulePlan]) -> (Vec<usize>, usize) {
    let n = vars.len();
    let mut interferes = std::collections::HashSet::new();
    for node in nodes {
        for (i, &a) in node.free.iter().enumerate() {
            for &b in &node.free[i + 1..] {
                interferes.insert((a.min(b), a.max(b)));
            }
        }
    }
    let mut group: Vec<usize> = (0..n).collect();
    let mut members: Vec<Vec<VarIx>> = (0..n).map(|v| vec![v]).collect();
    for node in nodes {
        let Op::RuleCall { rule, args } = &node.op else {
            continue;
        };
        for (arg, &p) in args.iter().zip(&rules[*rule].params) {
            let Arg::Var(v) = arg else { continue };
            let (g, h) = (group[*v], group[p]);
            if g == h || vars[*v].class != vars[p].class {
                continue;
            }
            let clash = members[g].iter().any(|&a| {
                members[h]
                    .iter()
                    .any(|&b| interferes.contains(&(a.min(b), a.max(b))))
            });
            if !clash {
                let moved = std::mem::take(&mut members[h]);
                for &m in &moved {
                    group[m] = g;
                }
                members[g].extend(moved);
            }
        }
    }
    let mut slot_of_group = HashMap::new();
    let slot = (0..n)
        .map(|v| {
            let next = slot_of_group.len();
            *slot_of_group.entry(group[v]).or_insert(next)
        })
        .collect();
    (slot, slot_of_group.len())
}

/// Enumeration classes (variables joined by rule calls, and the pairs of
/// `joined`: the variables that twins rename, see [`super::twins`]) and which
/// variables need their seen values tracked.
pub(super) fn layout_vars(
    vars: Vec<(String, VarKind)>,
    nodes: &[Node],
    rules: &[RulePlan],
    joined: &[(VarIx, VarIx)],
) -> (Vec<Var>, usize) {
    let mut parent: Vec<usize> = (0..vars.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let mut needs_seen = vec![false; vars.len()];
    for &(x, y) in joined {
        let (a, b) = (find(&mut parent, x), find(&mut parent, y));
        parent[a] = b;
    }
    for node in nodes {
        match &node.op {
            Op::RuleCall { rule, args } => {
                for (arg, &p) in args.iter().zip(&rules[*rule].params) {
                    if let Arg::Var(v) = arg {
                        let (a, b) = (find(&mut parent, *v), find(&mut parent, p));
                        parent[a] = b;
                    }
                }
            }
            Op::Cmp { left, right, .. } => {
                needs_seen[*left] = true;
                if let Arg::Var(r) = right {
                    needs_seen[*r] = true;
                }
            }
            Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, v, _) => needs_seen[*v] = true,
            _ => {}
        }
    }
    let mut class_of_root = HashMap::new();
    let mut same_name: HashMap<String, usize> = HashMap::new();
    let out = vars
        .into_iter()
        .enumerate()
        .map(|(v, (name, kind))| {
            let root = find(&mut parent, v);
            let next = class_of_root.len();
            let class = *class_of_root.entry(root).or_insert(next);
            let k = same_name.entry(name.clone()).or_default();
            *k += 1;
            let label = if *k == 1 {
                name.clone()
            } else {
                format!("{name}'{k}")
            };
            Var {
                name,
                label,
                kind,
                class,
                needs_seen: needs_seen[v],
                text_order: false,
                compare_later: false,
                numeric: super::Numeric::Text,
                bits: Vec::new(),
            }
        })
        .collect();
    (out, class_of_root.len())
}

#[cfg(test)]
mod tests {
    use crate::plan::PropPlan;
    use crate::plan::compile_source;

    fn prop(text: &str) -> PropPlan {
        let (plan, _) = compile_source(text).expect("compiles");
        plan.props.into_iter().next().expect("one property")
    }

    fn bits_of<'a>(p: &'a PropPlan, name: &str) -> &'a [crate::bdd::BddVar] {
        &p.vars
            .iter()
            .find(|v| v.name == name)
            .expect("variable")
            .bits
    }

    #[test]
    fn call_arguments_share_their_parameters_bits_unless_they_meet() {
        let p = prop(
            "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where
               spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))",
        );
        // The statement's call renames nothing: x and y use the parameters' bits.
        assert_eq!(bits_of(&p, "x"), bits_of(&p, "spawned.x"));
        assert_eq!(bits_of(&p, "y"), bits_of(&p, "spawned.y"));
        // z occurs together with y in `@spawned(x,z) & spawn(z,y)`: its own bits.
        assert_ne!(bits_of(&p, "spawned.z"), bits_of(&p, "spawned.y"));
        assert_ne!(bits_of(&p, "d"), bits_of(&p, "spawned.x"));
        // Four slots of 32 bits.
        assert_eq!(p.bdd_vars, 4 * 32);
    }

    /// Issue 16: a variable is its binding occurrence, not its name.
    #[test]
    fn sibling_quantifiers_same_name_are_distinct_variables() {
        let p = prop("prop h1 : (forall w . P p(w)) & (forall w . P q(w))");
        let names: Vec<(&str, &str, usize)> = p
            .vars
            .iter()
            .map(|v| (v.name.as_str(), v.label.as_str(), v.class))
            .collect();
        assert_eq!(names, vec![("w", "w", 0), ("w", "w'2", 1)]);
        assert!(p.vars.iter().all(|v| v.needs_seen));
        let quantified: Vec<usize> = p
            .nodes
            .iter()
            .filter_map(|n| match n.op {
                crate::plan::Op::Quant(_, v, _) => Some(v),
                _ => None,
            })
            .collect();
        assert_eq!(quantified, vec![0, 1]);
    }

    #[test]
    fn macro_and_rule_variables_are_named_as_written() {
        let p = prop(
            "pred seen2(u) = exists w . P q(u, w)
             prop a : Forall x . p(x) -> seen2(x) & @ seen2(x) & k(x)
               where k(y) := exists w . P q(w, y)",
        );
        let got: Vec<(&str, &str)> = p
            .vars
            .iter()
            .map(|v| (v.name.as_str(), v.label.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("k.y", "k.y"),
                ("x", "x"),
                ("w", "w"),
                ("w", "w'2"),
                ("k.w", "k.w")
            ]
        );
        let classes: std::collections::BTreeSet<usize> = p.vars.iter().map(|v| v.class).collect();
        // x and k.y are joined by the call; the three w are on their own.
        assert_eq!(classes.len(), 4);
    }

    #[test]
    fn variables_of_one_formula_never_share_bits() {
        let p = prop("prop p : Forall x . Forall y . q(x, y) -> r(y, x)");
        assert_ne!(bits_of(&p, "x"), bits_of(&p, "y"));
    }
}
