use super::*;
use crate::plan::compile_source;
use crate::runtime::prop::CompiledProp;
use crate::runtime::prop::GcPolicy;
use crate::runtime::{Monitor, MonitorOptions};

const SPAWNING: &str =
    "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where
  spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))";

fn plan(text: &str) -> PropPlan {
    let (plan, _) = compile_source(text).expect("compiles");
    plan.props.into_iter().next().expect("one property")
}

/// The first node whose operator satisfies `pred`.
fn node(p: &PropPlan, pred: impl Fn(&Op) -> bool) -> NodeIx {
    p.nodes
        .iter()
        .position(|n| pred(&n.op))
        .expect("the node exists")
}

fn exists_node(p: &PropPlan) -> NodeIx {
    node(p, |op| matches!(op, Op::Quant(Quant::Exists, ..)))
}

#[test]
fn spawning_restricts_the_previous_relation_and_skips_the_renamed_call() {
    let p = plan(SPAWNING);
    let c = CompiledProp::new(p.clone());
    let b = &c.bypass;
    let ex = exists_node(&p);
    let Op::Quant(_, z, and) = p.nodes[ex].op else {
        unreachable!()
    };
    let Op::And(prev, atom) = p.nodes[and].op else {
        panic!("the body is a conjunction")
    };
    let Op::Prev(call) = p.nodes[prev].op else {
        panic!("@spawned(x,z)")
    };
    let body = p.rules[0].body;
    assert_eq!(
        b.restricted[ex],
        Some(Restricted {
            var: z,
            atom,
            source: Source::PreCall {
                call,
                body,
                renames: false
            }
        })
    );
    // The conjunction, `@spawned(x,z)`, `spawned(x,z)` and `spawn(z,y)`
    // (read through its matches) are not computed.
    let skipped: Vec<NodeIx> = (0..p.nodes.len()).filter(|&k| b.skipped[k]).collect();
    let mut want = vec![and, prev, call, atom];
    want.sort_unstable();
    assert_eq!(skipped, want);
    assert_eq!(b.lazy, vec![call]);
    assert!(b.hidden[body], "the relation is kept for the restriction");
    assert!(
        !CompiledProp::order(&c.point_steps).contains(&call)
            && CompiledProp::order(&c.all_steps).contains(&call)
    );
    assert!(c.kept_point.contains(&body) && !c.kept_point.contains(&call));
    assert!(c.kept_all.contains(&call));
}

#[test]
fn a_call_that_moves_other_arguments_renames_after_restricting() {
    let p = plan(
        "prop s : Forall x . Forall y . report(y,x) -> k(x,y) where
           k(x,y) := spawn(x,y) | Exists z . (spawn(z,y) & @k(z,x))",
    );
    let c = CompiledProp::new(p.clone());
    let r = c.bypass.restricted[exists_node(&p)].expect("restricted");
    assert!(matches!(r.source, Source::PreCall { renames: true, .. }));
}

#[test]
fn other_sources_are_restricted_as_sets() {
    let p = plan(
        "prop r : Forall x . Forall y . e(x, y) -> k(x, y) where
           k(x, y) := Exists z . (e(z, y) & P q(x, z))",
    );
    let c = CompiledProp::new(p.clone());
    let ex = exists_node(&p);
    let r = c.bypass.restricted[ex].expect("restricted");
    let since = node(&p, |op| matches!(op, Op::Since(..)));
    assert_eq!(r.source, Source::Set(since));
    // Only the conjunction and the atom are skipped: `P q(x,z)` is kept.
    let Op::Quant(_, _, and) = p.nodes[ex].op else {
        unreachable!()
    };
    let skipped: Vec<NodeIx> = (0..p.nodes.len())
        .filter(|&k| c.bypass.skipped[k])
        .collect();
    let mut want = vec![and, r.atom];
    want.sort_unstable();
    assert_eq!(skipped, want);
    assert!(c.bypass.lazy.is_empty());
}

#[test]
fn other_shapes_are_not_restricted() {
    for text in [
        // The atom does not bind z.
        "prop r : Forall x . e(x) -> k(x) where k(x) := Exists z . (@k(z) & e(x))",
        // Not an existential over all values.
        "prop r : Forall x . e(x) -> k(x) where k(x) := exists z . (@k(z) & q(z, x))",
        "prop r : Forall x . e(x) -> k(x) where k(x) := Forall z . (@k(z) | q(z, x))",
        // Not a conjunction.
        "prop r : Forall x . e(x) -> k(x) where k(x) := Exists z . (@k(z) | q(z, x))",
    ] {
        let c = CompiledProp::new(plan(text));
        assert!(
            c.bypass.restricted.iter().all(Option::is_none),
            "restricted: {text}"
        );
        assert!(c.bypass.skipped.iter().all(|s| !s), "skipped: {text}");
    }
}

#[test]
fn statement_nodes_and_shared_nodes_are_not_skipped() {
    // The statement reads the conjunction too (a shared node).
    let p = plan(
        "prop r : Forall x . Forall y . e(x, y) -> k(x, y) & !(Exists z . (@k(x,z) & e(z,y))) where
           k(x, y) := @k(x, y) | Exists z . (@k(x,z) & e(z,y))",
    );
    let c = CompiledProp::new(p.clone());
    let stmt: Vec<NodeIx> = {
        let mut seen = vec![false; p.nodes.len()];
        let mut stack = vec![p.root];
        while let Some(k) = stack.pop() {
            if !std::mem::replace(&mut seen[k], true) {
                match p.nodes[k].op {
                    Op::Prev(a) => stack.push(a),
                    ref op => stack.extend(op.same_step_kids().iter()),
                }
            }
        }
        (0..p.nodes.len()).filter(|&k| seen[k]).collect()
    };
    for k in stmt {
        assert!(!c.bypass.skipped[k], "statement node {k} skipped");
    }
}

/// Runs `text` on `trace` with garbage collection after every event and
/// point evaluation on (`mode` `None`), off (`Some(0)`) or switched every
/// `k` events (`Some(k)`); returns the verdicts and kept summary sizes.
fn run(text: &str, trace: &[(&str, Vec<&str>)], mode: Option<usize>) -> Vec<(bool, Vec<usize>)> {
    let options = MonitorOptions {
        start_bits: 1,
        gc: GcPolicy::Always,
        ..MonitorOptions::default()
    };
    let mut m = Monitor::from_source(text, options).expect("monitor");
    let mut out = Vec::new();
    for (i, (name, args)) in trace.iter().enumerate() {
        match mode {
            Some(0) => m.set_point_evaluation(false),
            Some(k) => m.set_point_evaluation(i % (2 * k) < k),
            None => {}
        }
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let holds = m
            .step(name.as_bytes(), &args, i as u64)
            .expect("step")
            .is_empty();
        let kept = m.properties()[0].kept_summaries();
        let sizes = kept
            .into_iter()
            .map(|k| m.kept_summary_nodes(0, k))
            .collect();
        out.push((holds, sizes));
    }
    out
}

fn spawn_trace() -> Vec<(&'static str, Vec<&'static str>)> {
    let v = ["0", "1", "2", "3", "4", "5", "6"];
    let mut t = Vec::new();
    for i in 0..40usize {
        let (a, b) = (v[(i * 3) % 7], v[(i * 5 + 1) % 7]);
        t.push(match i % 4 {
            0 | 1 => ("spawn", vec![a, b]),
            2 => ("report", vec![b, a, "d"]),
            _ => ("other", vec![]),
        });
    }
    t
}

#[test]
fn restriction_agrees_with_sets() {
    let trace = spawn_trace();
    for text in [
        SPAWNING,
        // Arguments swapped, repeated, constant; the conjunction reversed.
        "prop s : Forall x . Forall y . report(y,x,\"d\") -> k(x,y) where
           k(x,y) := @k(x,y) | spawn(x,y) | Exists z . (spawn(z,y) & @k(z,x))",
        "prop s : Forall x . Forall y . report(y,x,\"d\") -> k(x,y) where
           k(x,y) := spawn(x,y) | Exists z . (@k(z,z) & spawn(z,y)) | @k(x,y)",
        "prop s : Forall x . Forall y . report(y,x,\"d\") -> k(x,y) where
           k(x,y) := spawn(x,y) | Exists z . (@k(\"3\",z) & spawn(z,y)) | @k(x,y)",
        "prop s : Forall x . Forall y . report(y,x,\"d\") -> k(x,y) where
           k(x,y) := spawn(x,y) | (Exists z . (P spawn(x,z) & spawn(z,y)))",
    ] {
        let sets = run(text, &trace, Some(0));
        let point = run(text, &trace, None);
        let switched = run(text, &trace, Some(3));
        let violations = sets.iter().filter(|(h, _)| !h).count();
        assert!(
            violations > 0 && violations < sets.len(),
            "{violations} violations: {text}"
        );
        assert_eq!(point, sets, "point and sets differ: {text}");
        assert_eq!(switched, sets, "switching differs: {text}");
    }
}
