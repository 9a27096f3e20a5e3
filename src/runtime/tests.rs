//! Unit tests of the monitor: steps of several events, repeated events.
use super::{Monitor, MonitorOptions};

/// The events at which property 0 is violated.
fn violations(spec: &str, events: &[(&str, &[&str])]) -> Vec<usize> {
    let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    let mut out = Vec::new();
    for (i, (name, args)) in events.iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        if !m.step(name.as_bytes(), &args, 0).expect("event").is_empty() {
            out.push(i + 1);
        }
    }
    out
}

/// The steps (each a set of events) at which property 0 is violated.
fn set_violations(spec: &str, steps: &[&[(&str, &[&str])]]) -> Vec<usize> {
    let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    let mut out = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let args: Vec<Vec<&[u8]>> = step
            .iter()
            .map(|(_, args)| args.iter().map(|a| a.as_bytes()).collect())
            .collect();
        let events: Vec<(&[u8], &[&[u8]])> = step
            .iter()
            .zip(&args)
            .map(|((name, _), args)| (name.as_bytes(), &args[..]))
            .collect();
        if !m.step_set(&events, 0).expect("events").is_empty() {
            out.push(i + 1);
        }
    }
    out
}

#[test]
fn a_step_of_several_events_binds_every_tuple() {
    let spec = "prop p : Forall x . !(p(x) & q(x))";
    type Ev = (&'static str, &'static [&'static str]);
    let (pa, qa, qb): (Ev, Ev, Ev) = (("p", &["a"]), ("q", &["a"]), ("q", &["b"]));
    // Together in one step, p(a) and q(a) violate; one by one they do not.
    assert_eq!(
        set_violations(spec, &[&[pa, qb], &[pa, qa], &[qa], &[pa]]),
        [2]
    );
    assert_eq!(violations(spec, &[pa, qa]), Vec::<usize>::new());
    // An atom denotes the union of its matches: p(a) and p(b) both held.
    let spec = "prop r : Forall x . q(x) -> @ p(x)";
    let (pb, qc): (Ev, Ev) = (("p", &["b"]), ("q", &["c"]));
    assert_eq!(
        set_violations(spec, &[&[pa, pb], &[qa, qb]]),
        Vec::<usize>::new()
    );
    assert_eq!(set_violations(spec, &[&[pa, pb], &[qa, qc]]), [2]);
    // An empty step: no event holds.
    assert_eq!(set_violations(spec, &[&[pa], &[], &[qa]]), [3]);
}

#[test]
fn a_step_of_several_events_checks_arities() {
    let mut m = Monitor::from_source(
        "prop p : Forall x . p(x) -> !q(x)",
        MonitorOptions::default(),
    )
    .expect("well-formed");
    let one: &[&[u8]] = &[b"a"];
    let two: &[&[u8]] = &[b"a", b"b"];
    let e = m
        .step_set(&[(b"p", one), (b"q", two)], 0)
        .map(<[usize]>::to_vec);
    assert!(
        matches!(
            e,
            Err(super::StepError::Arity {
                expected: 1,
                found: 2,
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(m.events(), 0);
    assert_eq!(
        m.step_set(&[(b"p", one), (b"q", one)], 0)
            .map(<[usize]>::to_vec),
        Ok(vec![0])
    );
}

#[test]
fn a_repeated_event_is_skipped_only_at_a_fixed_point() {
    // `@@a` changes over the first three `a`s, then stays: the repeats
    // before that must be evaluated, the later ones may be skipped.
    let a: (&str, &[&str]) = ("a", &[]);
    assert_eq!(violations("prop p : a -> @@a", &[a, a, a, a, a]), [1, 2]);
    assert_eq!(violations("prop p : a -> !@a", &[a, a, a, a]), [2, 3, 4]);
    // With data: the second `open(f)` of a run violates, and so do the
    // ones after it (the skipped ones repeat the verdict).
    let open: (&str, &[&str]) = ("open", &["f"]);
    let close: (&str, &[&str]) = ("close", &["f"]);
    assert_eq!(
        violations(
            "prop p : Forall x . open(x) -> !@ [open(x), close(x))",
            &[open, open, open, close, open, open]
        ),
        [2, 3, 6]
    );
}

/// Steps `runs` (event, repeats) one event at a time and, in a second
/// monitor, with [`Monitor::step_repeats`] whenever a repeat is a no-op:
/// the verdicts after every event and the counts are the same.
fn compare_repeats(spec: &str, runs: &[(&str, &[&str], u64)]) -> u64 {
    let mut each = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    let mut runs_at_once =
        Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    let mut skipped = 0;
    for &(name, args, n) in runs {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let mut left = n;
        while left > 0 {
            if runs_at_once.repeat_is_noop() && runs_at_once.events() > 0 && left < n {
                assert!(runs_at_once.step_repeats(left));
                skipped += left;
                for _ in 0..left {
                    each.step(name.as_bytes(), &args, 0).expect("event");
                    assert_eq!(each.violated(), runs_at_once.violated());
                }
                left = 0;
            } else {
                each.step(name.as_bytes(), &args, 0).expect("event");
                runs_at_once.step(name.as_bytes(), &args, 0).expect("event");
                assert_eq!(each.violated(), runs_at_once.violated());
                left -= 1;
            }
            assert_eq!(each.events(), runs_at_once.events());
        }
    }
    skipped
}

#[test]
fn repeats_at_a_fixed_point_step_at_once_with_the_same_verdicts() {
    let spec = "prop p : Forall f . close(f) -> @ [open(f), close(f))\n\
                prop q : Forall f . close(f) -> P open(f)";
    let skipped = compare_repeats(
        spec,
        &[
            ("open", &["a"], 100),
            ("close", &["a"], 100),
            ("close", &["b"], 50),
            ("open", &["b"], 3),
            ("close", &["b"], 60),
        ],
    );
    // Most of the repeats went at once.
    assert!(skipped > 250, "{skipped}");
}

#[test]
fn step_repeats_refuses_when_a_repeat_is_not_a_no_op() {
    let mut m = Monitor::from_source(
        "prop p : Forall m . complete(m) -> P[<=3] dispatch(m)",
        MonitorOptions::default(),
    )
    .expect("well-formed");
    // Before any event there is nothing to repeat.
    assert!(!m.step_repeats(5));
    for _ in 0..5 {
        m.step(b"dispatch", &[b"c"], 0).expect("event");
    }
    // A property with a time bound steps every event.
    assert!(!m.repeat_is_noop());
    assert!(!m.step_repeats(5));
    assert_eq!(m.events(), 5);
}

/// A monitor of `spec` after `events` (untimed).
fn after(spec: &str, events: &[(&str, &[&str])]) -> Monitor {
    let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    for (name, args) in events {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        m.step(name.as_bytes(), &args, 0).expect("step");
    }
    m
}

#[test]
fn snapshots_of_different_histories_agree_exactly_when_their_summaries_hold_for_the_same_values() {
    let spec = "prop p : Forall u . access(u) -> [login(u), logout(u))\n\
                prop q : Forall f . use(f) -> !P bad(f)";
    let agree = |a: &[(&str, &[&str])], b: &[(&str, &[&str])]| {
        let (mut a, mut b) = (after(spec, a), after(spec, b));
        let (sa, sb) = (
            a.snapshot().expect("snapshot"),
            b.snapshot().expect("snapshot"),
        );
        assert_eq!(sa.agrees(&sb), sb.agrees(&sa), "symmetric");
        sa.agrees(&sb)
    };
    // `b` logged in on both sides, with other codes (first value here,
    // second there), and `a` logged out again: a value one side never saw.
    assert!(agree(
        &[("login", &["a"]), ("login", &["b"]), ("logout", &["a"])],
        &[("login", &["b"]), ("tick", &[])],
    ));
    // Logged in here, not there.
    assert!(!agree(
        &[("login", &["a"]), ("login", &["b"])],
        &[("login", &["b"]), ("logout", &["a"])],
    ));
    // A value only the other side numbered, in a summary that holds for
    // the unseen values (`!P bad(f)` kept as `P bad(f)`, false there): `c`
    // is bad on one side only.
    assert!(!agree(
        &[("bad", &["c"]), ("use", &["d"])],
        &[("use", &["d"]), ("use", &["c"])],
    ));
    assert!(agree(
        &[("bad", &["c"]), ("use", &["d"])],
        &[("use", &["d"]), ("bad", &["c"])],
    ));
    // A monitor that stepped nothing agrees with none that did.
    assert!(!agree(&[], &[("tick", &[])]));
    // Time bounds are not snapshot.
    let mut timed = after(
        "prop t : Forall u . access(u) -> P[<=3] login(u)",
        &[("login", &["a"])],
    );
    assert!(timed.snapshot().is_none());
}
