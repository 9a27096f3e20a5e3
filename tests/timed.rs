//! Timed operators at their boundaries: a gap of exactly `d`, `d + 1`, 0, many
//! events at one time, the first event; inside quantifiers and rule bodies.
//! Every expectation is derived by hand from docs/LANGUAGE.md in the comments.

use hindsight::runtime::{Monitor, MonitorOptions};

/// Runs `spec` on `(name, args, time)` events; returns the violating event numbers.
fn violations(spec: &str, events: &[(&str, &[&str], u64)]) -> Vec<u64> {
    let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
    let mut out = Vec::new();
    for (i, (name, args, time)) in events.iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        if !m
            .step(name.as_bytes(), &args, *time)
            .expect("valid event")
            .is_empty()
        {
            out.push(i as u64 + 1);
        }
    }
    out
}

const NO: &[&str] = &[];

#[test]
fn once_within_bound() {
    let spec = "prop p : q -> P[<=3] r";
    let trace = [
        ("r", NO, 0),
        ("q", NO, 3), // 2: r 3 ago, 3 <= 3: holds
        ("q", NO, 4), // 3: r 4 ago: violated
        ("r", NO, 4),
        ("q", NO, 4), // 5: r at the same time (gap 0): holds
        ("q", NO, 7), // 6: r 3 ago: holds
        ("q", NO, 8), // 7: 4 ago: violated
    ];
    assert_eq!(violations(spec, &trace), vec![3, 7]);
}

#[test]
fn once_more_than_bound() {
    let spec = "prop p : q -> P[>3] r";
    let trace = [
        ("q", NO, 0), // 1: no r at all: violated
        ("r", NO, 1),
        ("q", NO, 4), // 3: r 3 ago, not more than 3: violated
        ("q", NO, 5), // 4: 4 ago: holds
        ("r", NO, 5),
        ("q", NO, 5), // 6: the r at time 1 still counts: holds
    ];
    assert_eq!(violations(spec, &trace), vec![1, 3]);
}

#[test]
fn since_within_bound_needs_an_unbroken_chain() {
    let spec = "prop p : q -> (!s S[<=2] r)";
    let trace = [
        ("r", NO, 0),
        ("q", NO, 2), // 2: r 2 ago, no s since: holds
        ("s", NO, 2),
        ("q", NO, 2), // 4: s broke the chain: violated
        ("r", NO, 3),
        ("q", NO, 5), // 6: r 2 ago: holds
        ("q", NO, 6), // 7: 3 ago: violated
    ];
    assert_eq!(violations(spec, &trace), vec![4, 7]);
}

#[test]
fn since_more_than_bound_keeps_the_earliest_start() {
    let spec = "prop p : q -> (!s S[>2] r)";
    let trace = [
        ("r", NO, 0),
        ("q", NO, 2), // 2: 2 ago, not more than 2: violated
        ("q", NO, 3), // 3: 3 ago: holds
        ("s", NO, 3),
        ("q", NO, 10), // 5: chain broken by s: violated
        ("r", NO, 10),
        ("q", NO, 13), // 7: r 3 ago: holds
    ];
    assert_eq!(violations(spec, &trace), vec![2, 5]);
}

#[test]
fn zince_excludes_the_current_event() {
    // A q within 2 time units of an earlier q, with no s in between, is a violation.
    let spec = "prop p : q -> !(!s Z[<=2] q)";
    let trace = [
        ("q", NO, 0), // 1: no earlier q (the current one does not count): holds
        ("q", NO, 2), // 2: earlier q 2 ago: violated
        ("q", NO, 5), // 3: latest earlier q is 3 ago: holds
        ("s", NO, 5),
        ("q", NO, 6), // 5: s since the q at 3: holds
        ("q", NO, 6), // 6: q at 5, gap 0: violated
    ];
    assert_eq!(violations(spec, &trace), vec![2, 6]);
}

#[test]
fn historically_within_and_beyond_bound() {
    let within = "prop p : q -> H[<=2] !s";
    let trace = [
        ("s", NO, 0),
        ("q", NO, 2), // 2: s 2 ago is within 2: violated
        ("q", NO, 3), // 3: 3 ago: holds
        ("s", NO, 3),
        ("q", NO, 3), // 5: s at the same time: violated
    ];
    assert_eq!(violations(within, &trace), vec![2, 5]);
    let beyond = "prop p : q -> H[>2] !s";
    let trace = [
        ("s", NO, 0),
        ("q", NO, 2), // 2: s only 2 ago: holds
        ("q", NO, 3), // 3: s 3 ago, more than 2: violated
    ];
    assert_eq!(violations(beyond, &trace), vec![3]);
}

#[test]
fn per_value_deadlines_under_a_quantifier() {
    let spec = "prop p : Forall m . suc(m) -> P[<=3] dis(m)";
    let trace: [(&str, &[&str], u64); 7] = [
        ("dis", &["a"], 0),
        ("dis", &["b"], 2),
        ("suc", &["a"], 3), // 3: a dispatched 3 ago: holds
        ("suc", &["b"], 6), // 4: b dispatched 4 ago: violated
        ("dis", &["a"], 10),
        ("suc", &["a"], 13), // 6: a re-dispatched 3 ago: holds
        ("suc", &["b"], 13), // 7: b still 11 ago: violated
    ];
    assert_eq!(violations(spec, &trace), vec![4, 7]);
}

#[test]
fn timed_operators_inside_rule_bodies() {
    // warm(x): pinged within 2, or warm before and kept now.
    let spec = "prop p : Forall x . use(x) -> warm(x)
        where warm(x) := P[<=2] ping(x) | (@warm(x) & keep(x))";
    let trace: [(&str, &[&str], u64); 5] = [
        ("ping", &["a"], 0),
        ("use", &["a"], 1),  // 2: pinged 1 ago: holds
        ("keep", &["a"], 5), // 3: warm through @warm(a) & keep(a)
        ("use", &["a"], 9),  // 4: ping 9 ago, not kept now: violated
        ("use", &["b"], 9),  // 5: b never pinged: violated
    ];
    assert_eq!(violations(spec, &trace), vec![4, 5]);
}

#[test]
fn bounds_beyond_32_bits_and_huge_gaps() {
    let spec = "prop p : q -> P[<=4294967296] r";
    let trace = [
        ("r", NO, 0),
        ("q", NO, 4_294_967_296), // 2: exactly the bound: holds
        ("q", NO, 4_294_967_297), // 3: one more: violated
    ];
    assert_eq!(violations(spec, &trace), vec![3]);
    let spec = "prop p : q -> P[<=3] r";
    let trace = [
        ("r", NO, 1 << 40),
        ("q", NO, (1 << 40) + 3), // 2: holds
        ("q", NO, 1 << 50),       // 3: huge gap: violated
        ("r", NO, 1 << 50),
        ("q", NO, (1 << 50) + 2), // 5: holds
    ];
    assert_eq!(violations(spec, &trace), vec![3]);
}

#[test]
fn untimed_traces_have_time_zero_everywhere() {
    // With every time stamp 0, S[<=d] is S and S[>d] never holds.
    let trace = [("r", NO, 0), ("s", NO, 0), ("q", NO, 0)];
    assert_eq!(
        violations("prop p : q -> P[<=0] r", &trace),
        Vec::<u64>::new()
    );
    assert_eq!(violations("prop p : q -> P[>0] r", &trace), vec![3]);
}

#[test]
fn a_decreasing_time_stamp_adds_no_time_unless_strict() {
    let spec = "prop p : q -> P[<=3] r";
    let trace = [
        ("r", NO, 10),
        ("q", NO, 5), // 2: back in time: no time elapsed since r: holds
        ("q", NO, 9), // 3: 4 units after the stamp 5: violated
    ];
    assert_eq!(violations(spec, &trace), vec![3]);
    let mut strict = Monitor::from_source(
        spec,
        MonitorOptions {
            strict_time: true,
            ..Default::default()
        },
    )
    .expect("ok");
    strict.step(b"r", &[], 10).expect("first event");
    let err = strict.step(b"q", &[], 5).expect_err("time went back");
    assert_eq!(
        err.to_string(),
        "time stamp 5 is smaller than the previous one, 10"
    );
}
