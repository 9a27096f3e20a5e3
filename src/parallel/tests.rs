//! Unit tests of the parallel driver against the sequential monitor.

use super::{Stopped, distribute, run, worker::slice_of};
use crate::plan::compile_source;
use crate::runtime::{Monitor, MonitorOptions};
use crate::trace::{Format, TraceOptions, TraceReader};

/// `(event, property)` violations of a sequential run.
fn sequential(spec: &str, trace: &str) -> Vec<(u64, usize)> {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut m = Monitor::new(plan, MonitorOptions::default()).expect("monitor");
    let mut reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Vec::new();
    while let Some(e) = reader.next_event().expect("trace") {
        let args: Vec<&[u8]> = e.args().collect();
        for &p in m.step(e.name, &args, e.time).expect("step") {
            out.push((e.number, p));
        }
    }
    out
}

fn options() -> TraceOptions {
    TraceOptions {
        timed: false,
        format: Format::Plain,
    }
}

fn parallel(spec: &str, trace: &str, jobs: usize) -> (Vec<(u64, usize)>, Option<Stopped>) {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Vec::new();
    let outcome = run(
        &plan,
        reader,
        &MonitorOptions::default(),
        jobs,
        &|| false,
        |ev, props| {
            out.extend(props.iter().map(|&p| (ev.number, p)));
            true
        },
    );
    (out, outcome.stopped)
}

const FILES: &str = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))\n\
                     prop neverEmpty : Exists f . P open(f) | P tick\n";

#[test]
fn slices_and_unsliced_properties_give_the_sequential_verdicts() {
    let trace =
        "close,a\nopen,a\nopen,b\nclose,b\nclose,b\ntick\nclose,c\nopen,d\nclose,a\nclose,d\n";
    let expected = sequential(FILES, trace);
    assert_eq!(expected, [(1, 0), (1, 1), (5, 0), (7, 0)]);
    for jobs in 1..6 {
        assert_eq!(parallel(FILES, trace, jobs).0, expected, "jobs {jobs}");
    }
}

#[test]
fn values_spread_over_the_slices() {
    let slices: std::collections::BTreeSet<u64> = (0..64)
        .map(|i| slice_of(format!("v{i}").as_bytes(), 4))
        .collect();
    assert_eq!(slices.len(), 4);
    let (plan, _) = compile_source(FILES).expect("well-formed");
    let workers = distribute(&plan, 3);
    // Three slices of closeOnlyOpen, neverEmpty whole on the first worker.
    assert_eq!(workers.len(), 3);
    assert_eq!(workers[0].len(), 2);
    assert_eq!(workers[0][1].global, [1]);
    assert_eq!(workers[2][0].route.slice, 2);
}

#[test]
fn an_arity_error_ends_the_run_after_the_verdicts_before_it() {
    let trace = "close,a\nopen,a\nclose,a,b\nclose,z\n";
    let (found, stopped) = parallel(FILES, trace, 2);
    assert_eq!(found, [(1, 0), (1, 1)]);
    match stopped {
        Some(Stopped::Monitor { line: 3, error, .. }) => {
            assert!(error.to_string().contains("has 2 arguments"), "{error}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn threads_are_used_only_where_they_can_gain() {
    let gain = |spec: &str| {
        let (plan, _) = compile_source(spec).expect("well-formed");
        super::can_gain(&plan)
    };
    // Sliceable, splittable, or several properties.
    assert!(gain("prop p : Forall x . q(x) -> P p(x)"));
    assert!(gain(
        "prop p : Forall x . Forall y . q(x, y) -> P p(x) & P r(y)"
    ));
    assert!(gain(
        "prop p : Exists x . P p(x)\nprop q : Exists y . P q(y)"
    ));
    // One property that can be neither: the sequential engine.
    assert!(!gain("prop p : Exists x . P p(x)"));
    assert!(!gain(
        "prop c : Forall a . Forall b . (q(a, b) & P q(b, a)) -> P r(a)"
    ));
}

#[test]
fn simulated_workers_receive_every_event_once_and_find_the_violations() {
    use super::simulate::{Events, SimError, route_worker, step_worker};
    let (plan, _) = compile_source(FILES).expect("well-formed");
    // A repeated record (lines 3-5) is one event of the batch with repeats.
    let trace = "close,a\nopen,a\nclose,b\nclose,b\nclose,b\ntick\nopen,d\nclose,d\n";
    let reader = || TraceReader::new(trace.as_bytes(), options());
    let events = Events::read(&plan, reader()).expect("events");
    assert_eq!(events.len(), 8);
    let expected = sequential(FILES, trace);
    let monitor = MonitorOptions::default();
    for jobs in [1, 3] {
        let (mut delivered, mut ticks, mut violations, mut stepped) = (0, 0, 0, 0);
        for w in 0..jobs {
            let routed = route_worker(&plan, &events, jobs, w);
            let s = step_worker(&routed, &monitor).expect("run");
            let r = routed.stats();
            assert_eq!((r.delivered, r.ticks), (s.delivered, s.ticks));
            assert_eq!(r.violations, 0);
            stepped += routed.stepped();
            delivered += s.delivered;
            ticks += s.ticks;
            violations += s.violations;
        }
        if jobs == 1 {
            // One monitor of both properties.
            assert_eq!((delivered, ticks), (8, 0));
        } else {
            // neverEmpty (whole) gets its 3 `open` and `tick` events and
            // 5 ticks; each closeOnlyOpen slice gets the events of its
            // values, and a tick for every other one (`tick`, which it does
            // not mention, too).
            assert_eq!((delivered, ticks), (3 + 7, 5 + 7 * 2 + 3));
        }
        // Routed records: one per unit and event (a repeated record is one),
        // but for the ticks a tick-invariant slice skips.
        if jobs == 1 {
            assert_eq!(stepped, 6);
        } else {
            assert!(stepped < 6 * 4, "{stepped}");
        }
        assert_eq!(violations, expected.len() as u64, "jobs {jobs}");
    }
    let wrong = "close,a\nopen,a,b\n";
    let events = Events::read(&plan, TraceReader::new(wrong.as_bytes(), options()));
    assert!(matches!(events, Err(SimError::Monitor(_))), "arity error");
}

/// Values of which the hash puts `n` in slice `slice` of 2.
fn values_in_slice(slice: u64, n: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("f{i}"))
        .filter(|v| slice_of(v.as_bytes(), 2) == slice)
        .take(n)
        .collect()
}

#[test]
fn values_the_hash_would_crowd_into_one_slice_are_spread_by_the_sample() {
    use super::simulate::{Events, simulate_worker};
    use super::{choose, distribute_as_run};
    let spec = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))";
    let (plan, _) = compile_source(spec).expect("well-formed");
    // Four files, all in slice 0 by their hash: opened and closed in turn,
    // and one closed twice (a violation each time it is closed again).
    let files = values_in_slice(0, 4);
    let mut trace = String::new();
    for round in 0..50 {
        for f in &files {
            trace.push_str(&format!("open,{f}\nclose,{f}\n"));
        }
        if round % 10 == 3 {
            trace.push_str(&format!("close,{}\n", files[2]));
        }
    }
    let expected = sequential(spec, &trace);
    assert_eq!(expected.len(), 5);
    for jobs in 2..5 {
        assert_eq!(parallel(spec, &trace, jobs).0, expected, "jobs {jobs}");
    }
    let events =
        Events::read(&plan, TraceReader::new(trace.as_bytes(), options())).expect("events");
    let sample = batches(&plan, &trace);
    let workers = choose(&plan, 2, &sample).layout(&plan, 2);
    let (a, b) = (&workers[0][0].route, &workers[1][0].route);
    let (Some(ta), Some(tb)) = (&a.assigned, &b.assigned) else {
        panic!("no values assigned")
    };
    assert!(std::sync::Arc::ptr_eq(ta, tb), "one table for both slices");
    assert_eq!(ta.len(), 4);
    // Two files on each slice (the busiest first: files[2], closed most).
    assert_eq!(ta.values().filter(|&&s| s == 0).count(), 2);
    assert_eq!(a.slice_of_value(files[2].as_bytes()), 0);
    let monitor = MonitorOptions::default();
    let received: Vec<u64> = (0..2)
        .map(|w| (simulate_worker(&plan, &events, &monitor, 2, w).expect("run")).delivered)
        .collect();
    assert_eq!(received.iter().sum::<u64>(), 405);
    assert!(received[0].abs_diff(received[1]) <= 5, "{received:?}");
    assert_eq!(
        distribute_as_run(&plan, 2, &sample)[1][0]
            .route
            .assigned
            .as_ref()
            .map(|t| t.len()),
        Some(4)
    );
}

#[test]
fn values_the_hash_spreads_evenly_keep_the_hash() {
    use super::choose;
    let spec = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))";
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut trace = String::new();
    for f in values_in_slice(0, 3).iter().chain(&values_in_slice(1, 3)) {
        trace.push_str(&format!("open,{f}\nclose,{f}\n"));
    }
    let workers = choose(&plan, 2, &batches(&plan, &trace)).layout(&plan, 2);
    assert!(workers.iter().all(|w| w[0].route.assigned.is_none()));
}

/// The batches of `trace`, as a run reads them.
fn batches(plan: &crate::plan::Plan, trace: &str) -> Vec<std::sync::Arc<super::Batch>> {
    let reader = TraceReader::new(trace.as_bytes(), options());
    let events = super::simulate::Events::read(plan, reader).expect("events");
    events.batches().to_vec()
}

#[test]
fn segment_bounds_are_line_starts_with_the_lines_before_them() {
    use super::segments::{layout, scan};
    use std::io::Cursor;
    let text: String = (0..400)
        .map(|i| format!("e,{}\n", "x".repeat(i % 7)))
        .collect();
    let size = text.len() as u64;
    let l = layout(&mut Cursor::new(&text), size, 3)
        .expect("read")
        .expect("a layout");
    assert_eq!((l.bounds[0], l.bounds[3]), (0, size));
    let lines = scan(text.as_bytes(), &l).expect("read").expect("no quote");
    assert_eq!(lines[0], 0);
    for (s, &before) in lines.iter().enumerate().skip(1) {
        let b = l.bounds[s] as usize;
        assert_eq!(&text[b - 1..b], "\n", "segment {s} starts a line");
        assert_eq!(before, text[..b].matches('\n').count() as u64);
        let w = l.warm[s] as usize;
        assert!(l.bounds[s - 1] as usize <= w && w < b, "{l:?}");
        assert_eq!(&text[w - 1..w], "\n", "warm-up {s} starts a line");
    }
    // The first segment has no warm-up; the others step about as many
    // bytes as it does (a line more or less).
    assert_eq!(l.warm[0], 0);
    let work: Vec<u64> = (0..3).map(|s| l.bounds[s + 1] - l.warm[s]).collect();
    assert!(work.iter().all(|&w| w.abs_diff(work[0]) <= 20), "{work:?}");
    // A quote may hide a line end; fewer lines than segments leave none.
    let quoted = format!("{text}q,\"a\"\n");
    assert_eq!(scan(quoted.as_bytes(), &l).expect("read"), None);
    assert_eq!(
        layout(&mut Cursor::new(b"a\nb\n"), 4, 3).expect("read"),
        None
    );
}

/// A run of `spec` over `trace` in `jobs` time segments: its violations,
/// events and `(taken, stepped again)` segments.
fn in_segments(spec: &str, trace: &str, jobs: usize) -> (Vec<(u64, usize)>, u64, (usize, usize)) {
    use super::segments::{layout, run};
    let (plan, _) = compile_source(spec).expect("well-formed");
    let path = std::env::temp_dir().join(format!(
        "hindsight-segments-{}-{jobs}-{}.csv",
        std::process::id(),
        trace.len()
    ));
    std::fs::write(&path, trace).expect("write");
    let l = layout(
        &mut std::io::Cursor::new(trace.as_bytes()),
        trace.len() as u64,
        jobs,
    )
    .expect("read")
    .expect("a layout");
    let reader = |r| TraceReader::new(r, options());
    let (mut out, mut events) = (Vec::new(), 0);
    let outcome = run(
        &plan,
        &path,
        &l,
        &reader,
        &MonitorOptions::default(),
        &|| false,
        |ev, props| {
            assert_eq!(ev.number, events + 1);
            events += 1 + ev.repeats;
            out.extend(props.iter().map(|&p| (ev.number, p)));
            true
        },
    );
    std::fs::remove_file(&path).expect("remove");
    let outcome = outcome.expect("no quote");
    assert!(outcome.stopped.is_none(), "{:?}", outcome.stopped);
    (out, events, outcome.segments.expect("segments"))
}

const ACCESS: &str = "prop access : Forall u . Forall f . access(u, f) -> \
                      [login(u), logout(u)) & [open(f), close(f))";

/// Users `u1`-`u4` and files `f1`-`f3` in turn: every value is logged in
/// or out, opened or closed, every few events.
fn busy(rounds: usize) -> String {
    let mut t = String::new();
    for i in 0..rounds {
        let (u, f) = (1 + i % 4, 1 + i % 3);
        t.push_str(&format!("login,u{u}\nopen,f{f}\naccess,u{u},f{f}\n"));
        t.push_str(&format!("access,u{},f{f}\n", 1 + (i + 1) % 4));
        if i % 2 == 0 {
            t.push_str(&format!("logout,u{u}\nclose,f{f}\n"));
        }
    }
    t
}

#[test]
fn a_segment_whose_warm_up_reaches_the_true_state_is_taken() {
    let trace = busy(300);
    let expected = sequential(ACCESS, &trace);
    assert!(!expected.is_empty());
    for jobs in [2, 3, 4] {
        let (found, events, segments) = in_segments(ACCESS, &trace, jobs);
        assert_eq!(found, expected, "jobs {jobs}");
        assert_eq!(events, trace.lines().count() as u64);
        assert_eq!(segments, (jobs - 1, 0), "jobs {jobs}");
    }
}

#[test]
fn a_segment_whose_warm_up_missed_a_value_is_stepped_again() {
    // `u0` logs in first and is never seen again until the last access,
    // which is allowed: a segment that started later would not know it.
    let trace = format!("login,u0\nopen,f9\n{}access,u0,f9\n", busy(300));
    let expected = sequential(ACCESS, &trace);
    assert!(
        expected
            .iter()
            .all(|&(n, _)| n < trace.lines().count() as u64)
    );
    for jobs in [2, 3] {
        let (found, _, segments) = in_segments(ACCESS, &trace, jobs);
        assert_eq!(found, expected, "jobs {jobs}");
        assert_eq!(segments, (0, jobs - 1), "jobs {jobs}");
    }
}

#[test]
fn a_warm_up_steps_only_the_events_that_change_the_state() {
    use super::segments::warm_steps;
    let (plan, _) = compile_source(ACCESS).expect("well-formed");
    let names: Vec<&str> = plan.props[0].state_events().into_iter().collect();
    assert_eq!(names, ["close", "login", "logout", "open"]);
    let steps = warm_steps(&plan).expect("tick invariant");
    let stepped: Vec<&str> = (plan.events.keys().zip(&steps))
        .filter(|&(_, &s)| s)
        .map(|(e, _)| e.as_str())
        .collect();
    assert_eq!(stepped, ["close", "login", "logout", "open"]);
    // `@ p(x)` changes at every step: every event is stepped.
    let (prev, _) = compile_source("prop q : Forall x . q(x) -> @ p(x)").expect("well-formed");
    assert_eq!(warm_steps(&prev), None);
}
