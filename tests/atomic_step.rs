//! A refused event changes nothing: after it, the monitor goes on exactly as
//! a fresh monitor fed the trace without it (the same verdicts at the same
//! event numbers: a refused event is not counted). One test per refusal:
//! wrong arity, time going back with strict time, value codes running out
//! (after an earlier property took the event). And a monitor moved to
//! another thread halfway gives the sequential verdicts.

use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions, StepError};

/// An event: name, arguments, time.
type Ev = (&'static str, &'static [&'static str], u64);

/// Per accepted event: the monitor's event count after it and the violated
/// properties; per refused one, its error.
fn feed(m: &mut Monitor, trace: &[Ev]) -> Vec<Result<(u64, Vec<usize>), StepError>> {
    trace
        .iter()
        .map(|(name, args, time)| {
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
            let violated = m.step(name.as_bytes(), &args, *time)?.to_vec();
            Ok((m.events(), violated))
        })
        .collect()
}

fn monitor(spec: &str, options: &MonitorOptions) -> Monitor {
    Monitor::from_source(spec, options.clone()).expect("well-formed")
}

/// Feeds `trace` with `bad` inserted at `at`; checks that `bad` alone is
/// refused, that the rest gives what a fresh monitor gives on `trace`, with
/// the same live values in every property; returns the refusal.
fn refused_changes_nothing(
    spec: &str,
    options: &MonitorOptions,
    trace: &[Ev],
    at: usize,
    bad: Ev,
) -> StepError {
    let mut with = trace.to_vec();
    with.insert(at, bad);
    let mut m = monitor(spec, options);
    let mut got = feed(&mut m, &with);
    let error = got.remove(at).expect_err("the inserted event is refused");
    let mut fresh = monitor(spec, options);
    let want = feed(&mut fresh, trace);
    assert_eq!(got, want, "after refusing {bad:?}");
    assert_eq!(m.events(), trace.len() as u64);
    let live =
        |m: &Monitor| -> Vec<usize> { m.properties().iter().map(|p| p.live_values()).collect() };
    assert_eq!(live(&m), live(&fresh));
    error
}

const OPEN_CLOSE: &str = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))";

#[test]
fn an_event_of_the_wrong_arity_changes_nothing() {
    let trace: &[Ev] = &[
        ("open", &["a"], 0),
        ("close", &["a"], 0),
        ("close", &["a"], 0),
        ("open", &["b"], 0),
        ("close", &["b"], 0),
        ("close", &["b"], 0),
    ];
    let options = MonitorOptions::default();
    // Refused between a close and the close that violates.
    let e = refused_changes_nothing(OPEN_CLOSE, &options, trace, 2, ("open", &["a", "x"], 0));
    assert!(
        matches!(&e, StepError::Arity { event, expected: 1, found: 2 } if event == "open"),
        "{e:?}"
    );
    assert!(e.to_string().contains("`open` has 2 arguments"), "{e}");
    // The verdicts themselves: violations at events 3 and 6 either way.
    let mut m = monitor(OPEN_CLOSE, &options);
    let v: Vec<u64> = feed(&mut m, trace)
        .into_iter()
        .filter_map(|r| r.ok().filter(|(_, v)| !v.is_empty()).map(|(n, _)| n))
        .collect();
    assert_eq!(v, [3, 6]);
}

#[test]
fn a_time_stamp_going_back_with_strict_time_changes_nothing() {
    let spec = "prop quick : Forall f . close(f) -> P[<=5] open(f)";
    let trace: &[Ev] = &[
        ("open", &["a"], 10),
        ("close", &["a"], 12),
        ("open", &["b"], 14),
        ("close", &["a"], 16),
        ("close", &["b"], 18),
    ];
    let options = MonitorOptions {
        strict_time: true,
        ..MonitorOptions::default()
    };
    // Refused after time 14: had it been taken (time 3 < 14), the clock
    // and `open(a)` would differ.
    let e = refused_changes_nothing(spec, &options, trace, 3, ("open", &["a"], 3));
    assert_eq!(
        e,
        StepError::TimeBackwards {
            previous: 14,
            time: 3
        }
    );
    assert!(
        e.to_string().contains("smaller than the previous one, 14"),
        "{e}"
    );
    let mut m = monitor(spec, &options);
    let got = feed(&mut m, trace);
    assert_eq!(
        got[3],
        Ok((4, vec![0])),
        "close(a) at 16 is 6 after open(a)"
    );
    assert_eq!(got[4], Ok((5, vec![])));
}

/// Two properties: `a` takes `p`'s value first; `b` also counts the values
/// of `s`, and runs out of 2-bit codes (3 values) at the fourth value.
const TWO_PROPS: &str = "prop a : Forall x . q(x) -> @ P p(x)\n\
                         prop b : Forall x . p(x) -> !P s(x)";

fn small_codes() -> MonitorOptions {
    MonitorOptions {
        start_bits: 1,
        max_code_bits: 2,
        gc: GcPolicy::Never,
        ..MonitorOptions::default()
    }
}

#[test]
fn running_out_of_codes_in_a_later_property_changes_nothing_in_earlier_ones() {
    let trace: &[Ev] = &[
        ("s", &["1"], 0),
        ("s", &["2"], 0),
        ("p", &["1"], 0),
        ("s", &["3"], 0),
        ("q", &["4"], 0),
        ("q", &["1"], 0),
    ];
    // p(4) would be `a`'s second value but `b`'s fourth: refused, and `a`
    // never saw it, so q(4) violates `a` at event 5.
    let e = refused_changes_nothing(TWO_PROPS, &small_codes(), trace, 4, ("p", &["4"], 0));
    assert_eq!(
        e,
        StepError::OutOfCodes {
            property: "b".into(),
            bits: 2
        }
    );
    let text = e.to_string();
    assert!(
        text.contains("`b`") && text.contains("2-bit codes") && text.contains("at most 3"),
        "{text}"
    );
    let mut m = monitor(TWO_PROPS, &small_codes());
    let got = feed(&mut m, trace);
    assert_eq!(got[2], Ok((3, vec![1])), "p(1) after s(1) violates b");
    assert_eq!(got[4], Ok((5, vec![0])));
    assert_eq!(got[5], Ok((6, vec![])));
}

#[test]
fn a_step_of_several_events_running_out_of_codes_changes_nothing() {
    let options = small_codes();
    let mut m = monitor(TWO_PROPS, &options);
    let mut fresh = monitor(TWO_PROPS, &options);
    for m in [&mut m, &mut fresh] {
        for v in ["1", "2", "3"] {
            m.step_set(&[(b"s", &[v.as_bytes()])], 0).expect("room");
        }
    }
    let one: &[&[u8]] = &[b"1"];
    let four: &[&[u8]] = &[b"4"];
    let e = m
        .step_set(&[(b"p", one), (b"p", four)], 0)
        .map(<[usize]>::to_vec);
    assert!(
        matches!(e, Err(StepError::OutOfCodes { bits: 2, .. })),
        "{e:?}"
    );
    assert_eq!(m.events(), 3);
    for m in [&mut m, &mut fresh] {
        assert_eq!(
            m.step_set(&[(b"q", four)], 0).map(<[usize]>::to_vec),
            Ok(vec![0])
        );
        assert_eq!(
            m.step_set(&[(b"p", one)], 0).map(<[usize]>::to_vec),
            Ok(vec![1])
        );
        assert_eq!(m.events(), 5);
    }
}

#[test]
fn a_monitor_moved_to_another_thread_halfway_gives_the_sequential_verdicts() {
    let spec = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))\n\
                prop quick : Forall f . close(f) -> P[<=5] open(f)";
    let trace: Vec<(String, u64)> = (0..400u64)
        .map(|i| {
            let f = (i * 7919) % 23;
            let name = if i % 3 == 0 { "open" } else { "close" };
            (format!("{name} {f}"), i)
        })
        .collect();
    let step = |m: &mut Monitor, (event, time): &(String, u64)| -> (u64, Vec<usize>) {
        let (name, arg) = event.split_once(' ').expect("name and argument");
        let violated = m
            .step(name.as_bytes(), &[arg.as_bytes()], *time)
            .expect("event")
            .to_vec();
        (m.events(), violated)
    };
    let options = MonitorOptions::default();
    let mut m = monitor(spec, &options);
    let sequential: Vec<_> = trace.iter().map(|e| step(&mut m, e)).collect();
    assert!(
        sequential.iter().any(|(_, v)| !v.is_empty()),
        "some violations"
    );
    let mut m = monitor(spec, &options);
    let (first, second) = trace.split_at(trace.len() / 2);
    let mut got: Vec<_> = first.iter().map(|e| step(&mut m, e)).collect();
    let second = second.to_vec();
    let rest =
        std::thread::spawn(move || second.iter().map(|e| step(&mut m, e)).collect::<Vec<_>>())
            .join()
            .expect("the thread ends");
    got.extend(rest);
    assert_eq!(got, sequential);
}
