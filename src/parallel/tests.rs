//! Unit tests of the parallel driver against the sequential monitor.

use super::planner::{layout_of_long_trace, layout_without_sample};
use super::route::slice_of;
use super::{EventView, Options, Sink, Stop, run};
use crate::plan::compile_source;
use crate::runtime::{Monitor, MonitorOptions};
use crate::trace::{Format, TraceOptions, TraceReader};

/// `(event, property)` violations of a sequential run.
pub(super) fn sequential(spec: &str, trace: &str) -> Vec<(u64, usize)> {
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

pub(super) fn options() -> TraceOptions {
    TraceOptions {
        timed: false,
        format: Format::Plain,
    }
}

fn parallel(spec: &str, trace: &str, jobs: usize) -> (Vec<(u64, usize)>, Option<Stop>) {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Vec::new();
    let options = Options {
        jobs,
        ..Options::default()
    };
    let outcome = run(
        &plan,
        reader,
        &options,
        &|| false,
        &mut |ev: &EventView<'_>, props: &[usize]| {
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
    let workers = layout_without_sample(&plan, 3);
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
        Some(Stop::Refused { line: 3, error, .. }) => {
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
    // A repeated record (lines 3-5) is one event of the block with repeats.
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
    use super::assign::choose;
    use super::simulate::{Events, simulate_worker};
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
    let sample = blocks(&plan, &trace);
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
        layout_of_long_trace(&plan, 2, &sample)[1][0]
            .route
            .assigned
            .as_ref()
            .map(|t| t.len()),
        Some(4)
    );
}

#[test]
fn values_the_hash_spreads_evenly_keep_the_hash() {
    use super::assign::choose;
    let spec = "prop closeOnlyOpen : Forall f . close(f) -> @ (!close(f) S open(f))";
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut trace = String::new();
    for f in values_in_slice(0, 3).iter().chain(&values_in_slice(1, 3)) {
        trace.push_str(&format!("open,{f}\nclose,{f}\n"));
    }
    let workers = choose(&plan, 2, &blocks(&plan, &trace)).layout(&plan, 2);
    assert!(workers.iter().all(|w| w[0].route.assigned.is_none()));
}

/// The blocks of `trace`, as a run reads them.
fn blocks(plan: &crate::plan::Plan, trace: &str) -> Vec<std::sync::Arc<super::block::Block>> {
    let reader = TraceReader::new(trace.as_bytes(), options());
    let events = super::simulate::Events::read(plan, reader).expect("events");
    events.blocks().to_vec()
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
    assert_eq!((lines.before[0], lines.total), (0, 400));
    for (s, &before) in lines.before.iter().enumerate().skip(1) {
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
    use super::segments::layout;
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
    let (out, events, outcome) = laid_out(spec, &path, &l);
    std::fs::remove_file(&path).expect("remove");
    let outcome = outcome.expect("no quote");
    assert!(outcome.stopped.is_none(), "{:?}", outcome.stopped);
    (out, events, outcome.segments.expect("segments"))
}

pub(super) const ACCESS: &str = "prop access : Forall u . Forall f . access(u, f) -> \
                      [login(u), logout(u)) & [open(f), close(f))";

/// A run of `spec` over the file at `path` laid out as `layout`: its
/// violations (event number, property), its events and its outcome
/// (`None`: a quote).
pub(super) fn laid_out(
    spec: &str,
    path: &std::path::Path,
    layout: &super::segments::Layout,
) -> (Vec<(u64, usize)>, u64, Option<super::Outcome>) {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = |r| TraceReader::new(r, options());
    let (mut out, mut events) = (Vec::new(), 0);
    let outcome = super::segments::run(
        &plan,
        path,
        layout,
        &reader,
        &MonitorOptions::default(),
        &|| false,
        &mut |ev: &EventView<'_>, props: &[usize]| {
            assert_eq!(ev.number, events + 1);
            events += 1 + ev.repeats;
            out.extend(props.iter().map(|&p| (ev.number, p)));
            true
        },
    );
    (out, events, outcome)
}

/// Users `u1`-`u4` and files `f1`-`f3` in turn: every value is logged in
/// or out, opened or closed, every few events.
pub(super) fn busy(rounds: usize) -> String {
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
fn warm_ups_are_judged_on_the_first_blocks() {
    let judge = |spec: &str, trace: &str| {
        let (plan, _) = compile_source(spec).expect("well-formed");
        let options = MonitorOptions::default();
        super::segments::warm_up_agrees(&plan, &options, &blocks(&plan, trace))
    };
    // Logins and opens come back every few events: a warm-up sees them again.
    assert!(judge(ACCESS, &busy(3000)));
    // A toggle flips its value's state for good: a warm-up after it cannot
    // know it (telemetry on the rules paper's T2 and T3).
    let telemetry = "prop t : Forall x . closed(x) -> !telem(x) \
                     where closed(x) := toggle(x) <-> @!closed(x)";
    let toggles: String = (0..3000).map(|i| format!("toggle,{i}\n")).collect();
    let telems: String = (0..3000).map(|i| format!("telem,{i}\n")).collect();
    assert!(!judge(telemetry, &format!("{toggles}{telems}")));
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

/// What a run hands on: per event (by number) its violated properties, or
/// the properties that left it undecided; and the events, counted.
/// (Also the sink of the cluster's tests.)
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Steps {
    pub(crate) violated: Vec<(u64, usize)>,
    pub(crate) undecided: Vec<(u64, Vec<usize>)>,
    pub(crate) events: u64,
    /// The first event handed on after the end of the trace.
    pub(crate) ended_at: Option<u64>,
}

impl Sink for Steps {
    fn event(&mut self, ev: &EventView<'_>, violated: &[usize]) -> bool {
        assert_eq!(ev.number, self.events + 1, "in order, each once");
        self.events += 1 + ev.repeats;
        self.violated
            .extend(violated.iter().map(|&p| (ev.number, p)));
        true
    }

    fn ended(&mut self) {
        self.ended_at = Some(self.events + 1);
    }

    fn undecided(&mut self, ev: &EventView<'_>, properties: &[usize]) -> bool {
        assert_eq!((ev.number, ev.repeats), (self.events + 1, 0));
        self.events += 1;
        self.undecided.push((ev.number, properties.to_vec()));
        true
    }
}

/// The decided steps and undecided ones of a sequential run of `spec`
/// (with future operators) on the untimed `trace`, its end closed when
/// `close`.
fn sequential_delayed(spec: &str, trace: &str, close: bool) -> Steps {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut m = Monitor::new(plan, MonitorOptions::default()).expect("monitor");
    m.set_step_clock(true);
    let mut reader = TraceReader::new(trace.as_bytes(), options());
    let mut out = Steps::default();
    let take = |m: &mut Monitor, out: &mut Steps| {
        for d in m.take_decided() {
            out.violated
                .extend(d.violations.iter().map(|v| (d.step + 1, v.property)));
        }
    };
    while let Some(e) = reader.next_event().expect("trace") {
        let args: Vec<&[u8]> = e.args().collect();
        m.step(e.name, &args, 0).expect("step");
        take(&mut m, &mut out);
    }
    let open = m.finish_trace(close);
    take(&mut m, &mut out);
    out.violated.sort_unstable();
    out.undecided = open.into_iter().map(|(s, p)| (s + 1, p)).collect();
    out.events = m.events();
    out
}

/// The same on `jobs` threads, with the layout chosen on `sample` blocks.
fn parallel_delayed(spec: &str, trace: &str, close: bool, jobs: usize, sample: usize) -> Steps {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = TraceReader::new(trace.as_bytes(), options());
    let options = Options {
        jobs,
        close,
        sample,
        ..Options::default()
    };
    let mut out = Steps::default();
    let outcome = run(&plan, reader, &options, &|| false, &mut out);
    assert_eq!(outcome.stopped, None);
    out
}

/// Requests and responses of 50 values, a `send` now and then acked by the
/// next event or not, and runs of one record.
fn requests(n: usize) -> String {
    let mut t = String::new();
    let mut x: u64 = 0x9e37_79b9;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = x % 50;
        match x % 9 {
            0..=2 => t.push_str(&format!("req,v{v}\n")),
            3..=4 => t.push_str(&format!("resp,v{v}\n")),
            5 => t.push_str(&format!("send,v{v}\nack,v{v}\n")),
            6 => t.push_str(&format!("send,v{v}\n")),
            7 => t.push_str("tick\ntick\ntick\n"),
            _ => t.push_str(&format!("ack,v{}\n", i % 50)),
        }
    }
    t
}

const FUTURE: &str = "prop answered : Forall r . req(r) -> F[<=3] resp(r)\n\
                      prop acked : Forall m . send(m) -> X ack(m)\n\
                      prop once : Forall m . ack(m) -> P send(m)\n";

#[test]
fn delayed_verdicts_of_slices_merge_into_the_sequential_steps() {
    // Short (one worker, inline), and long enough for threads and a
    // revised layout; the end left open, and closed.
    for (n, jobs) in [(40, 2), (30_000, 2), (30_000, 3)] {
        let trace = requests(n);
        for close in [false, true] {
            let expected = sequential_delayed(FUTURE, &trace, close);
            assert!(!expected.violated.is_empty());
            assert!(close || !expected.undecided.is_empty(), "{n}");
            for sample in [0, 32] {
                let found = parallel_delayed(FUTURE, &trace, close, jobs, sample);
                let Steps {
                    violated,
                    undecided,
                    events,
                    ended_at,
                } = found;
                assert_eq!(violated, expected.violated, "{n} events, {jobs} jobs");
                assert_eq!(undecided, expected.undecided, "{n} events, {jobs} jobs");
                assert_eq!(events, expected.events);
                // Every step after the first undecided one comes after the end.
                let first = expected.undecided.first().map(|u| u.0);
                assert!(first.is_none_or(|f| ended_at.is_some_and(|e| e <= f)));
            }
        }
    }
}

#[test]
fn a_layout_revised_under_delayed_verdicts_keeps_them() {
    // Many users accessing few files first, then files opened and closed:
    // the layout of the first blocks (whole, sliced on `u`) is revised to
    // the parts; the future property is sliced on `r` all along.
    let mut trace = String::new();
    for i in 0..6000 {
        trace.push_str(&format!(
            "access,u{},f{}\nreq,r{}\n",
            i % 300,
            i % 3,
            i % 40
        ));
        if i % 7 == 0 {
            trace.push_str(&format!("resp,r{}\n", i % 40));
        }
    }
    for i in 0..40_000 {
        let what = if i % 2 == 0 { "open" } else { "close" };
        trace.push_str(&format!(
            "{what},f{}\nreq,r{}\nresp,r{}\n",
            i % 900,
            i % 40,
            i % 40
        ));
    }
    let spec = "prop access : Forall u . Forall f . access(u,f) -> [login(u),logout(u)) & [open(f),close(f))\n\
                prop answered : Forall r . req(r) -> F[<=2] resp(r)";
    let expected = sequential_delayed(spec, &trace, false);
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut found = Steps::default();
    let reader = TraceReader::new(trace.as_bytes(), options());
    let options = Options {
        jobs: 2,
        ..Options::default()
    };
    let outcome = run(&plan, reader, &options, &|| false, &mut found);
    assert!(outcome.revised, "the layout should move to the parts");
    assert_eq!(found.violated, expected.violated);
    assert_eq!(found.undecided, expected.undecided);
}
