//! The session driver: verdicts, counts, warnings and errors through a
//! report, from a trace or events pushed one by one.

use std::io;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::*;
use crate::report::{OutputFormat, Printer, Summary, Violation};
use crate::runtime::witness::{WitnessValue, format_witness};

const FILES: &str = "prop closeOnlyOpen : Forall f . close(f) -> @ [open(f), close(f))";

fn session(spec: &str, options: SessionOptions) -> Session {
    Session::from_source(spec, options).expect("well-formed")
}

/// A report of the caller's own: each violation with its line, time and
/// witness, and whether the summary came.
#[derive(Default)]
struct Mine {
    seen: Vec<(usize, u64, u64, Option<u64>, String)>,
    summary: Option<Summary>,
    /// Fail the write of this violation (counted from 1), as a closed output.
    fail_at: Option<usize>,
}

impl Report for Mine {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        if self.fail_at == Some(self.seen.len() + 1) {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
        }
        let w = witness.map(format_witness).unwrap_or_default();
        self.seen.push((v.property, v.event, v.line, v.time, w));
        Ok(())
    }

    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        self.summary = Some(summary.clone());
        Ok(())
    }
}

#[test]
fn a_custom_report_gets_each_violation_with_its_line_time_and_witness() {
    let options = SessionOptions {
        witness: true,
        ..SessionOptions::default()
    };
    let trace =
        "event, file, time\nopen, a, 1\nclose, a, 2\nclose, a, 5\nopen, b, 7\nclose, c, 9\n";
    let mut s = session(FILES, options);
    s.options.trace.timed = true;
    let mut mine = Mine::default();
    let outcome = s.run(trace.as_bytes(), &mut mine);
    assert_eq!(
        mine.seen,
        [
            (0, 3, 4, Some(5), "f=a".to_owned()),
            (0, 5, 6, Some(9), "f=c".to_owned())
        ]
    );
    assert_eq!(outcome.verdict, Verdict::Violated);
    assert_eq!(outcome.violations(), 2);
    assert_eq!(
        outcome.properties,
        [PropertyVerdict {
            name: "closeOnlyOpen".into(),
            violations: 2,
            first: Some(3)
        }]
    );
    let summary = mine.summary.expect("the summary is reported");
    assert_eq!(summary.events, 5);
    assert_eq!(summary.counts.get("close"), Some(&3));
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
}

#[test]
fn events_pushed_one_by_one() {
    let mut s = session(FILES, SessionOptions::default());
    let mut found = Collect::default();
    let events: [(&str, &str); 5] = [
        ("open", "log"),
        ("close", "log"),
        ("close", "log"),
        ("open", "tmp"),
        ("close", "etc"),
    ];
    for (name, arg) in events {
        let flow = s.push(name.as_bytes(), &[arg.as_bytes()], None, &mut found);
        assert_eq!(flow, ControlFlow::Continue(()));
    }
    assert_eq!(found.violations, [(0, 3), (0, 5)]);
    // A wrong arity ends the run; later pushes are refused.
    let flow = s.push(b"open", &[b"x", b"y"], None, &mut found);
    assert_eq!(flow, ControlFlow::Break(()));
    assert_eq!(
        s.push(b"open", &[b"z"], None, &mut found),
        ControlFlow::Break(())
    );
    let outcome = s.finish(&mut found);
    assert_eq!(outcome.verdict, Verdict::Failed);
    assert_eq!(outcome.summary.events, 5);
    let error = outcome.error.expect("the arity error");
    assert!(matches!(
        error,
        RunError::Step {
            error: StepError::Arity {
                expected: 1,
                found: 2,
                ..
            },
            ..
        }
    ));
    assert_eq!(found.error, Some(error));
    assert_eq!(
        outcome.summary.failure.as_deref(),
        Some("input error at line 6; 2 violations found before it")
    );
}

#[test]
fn a_trace_error_stops_the_run_with_its_line_after_the_violations_before_it() {
    let s = session(FILES, SessionOptions::default());
    let mut found = Collect::default();
    let outcome = s.run(&b"open,a\nclose,a\nclose,a\nopen,\"x\n"[..], &mut found);
    assert_eq!(found.violations, [(0, 3)]);
    assert_eq!(outcome.verdict, Verdict::Failed);
    let error = outcome.error.expect("a trace error");
    assert!(
        matches!(&error, RunError::Trace(e) if e.line == 4),
        "{error:?}"
    );
    assert_eq!(error.line(), Some(4));
    assert_eq!(
        outcome.summary.error.as_deref(),
        Some(format!("<stdin>:{error}").as_str())
    );
}

#[test]
fn bad_lines_are_skipped_and_counted_when_asked() {
    // 2 of 5 lines skipped: within a bound of 40%.
    let options = SessionOptions {
        on_error: OnError::Skip,
        strict: true,
        max_skipped: 0.4,
        ..SessionOptions::default()
    };
    let s = session(FILES, options);
    let mut found = Collect::default();
    let trace = b"open,a\nopen,a,b\nping\nclose,a\nclose,a\n";
    let outcome = s.run(&trace[..], &mut found);
    // Lines 2 (arity) and 3 (unknown, strict) are skipped: 3 events.
    assert_eq!(found.violations, [(0, 3)]);
    assert_eq!(outcome.summary.skipped, (2, vec![2, 3]));
    assert_eq!(outcome.summary.events, 3);
    assert_eq!(outcome.verdict, Verdict::Violated);
}

#[test]
fn strict_makes_an_unknown_event_an_error_at_its_line() {
    let options = SessionOptions {
        strict: true,
        ..SessionOptions::default()
    };
    let outcome = session(FILES, options).run(&b"open,a\nclsoe,a\n"[..], &mut Collect::default());
    match outcome.error {
        Some(RunError::UnknownEvent { line: 2, message }) => {
            assert!(message.contains("did you mean `close`?"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn warnings_are_returned_not_printed() {
    let s = session(FILES, SessionOptions::default());
    let mut found = Collect::default();
    let outcome = s.run(&b"open,a\nclsoe,a\nclose,a\n"[..], &mut found);
    assert_eq!(outcome.verdict, Verdict::Satisfied);
    assert_eq!(found.warnings, outcome.warnings);
    match &outcome.warnings[..] {
        [Warning::UnknownNames(names)] => {
            assert_eq!(names.unknown_events, 1);
            assert!(
                names.lines[1].contains("did you mean `close`?"),
                "{names:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Time going back: counted, warned about.
    let mut s = session(
        "prop p : Forall x . b(x) -> P[<=3] a(x)",
        SessionOptions::default(),
    );
    s.options.trace.timed = true;
    let outcome = s.run(&b"a,1,10\nb,1,8\nb,1,20\n"[..], &mut found);
    assert_eq!(outcome.warnings, [Warning::TimeRegressions(1)]);
    assert_eq!(found.violations.last(), Some(&(0, 3)));
    assert!(
        session(
            "prop p : Forall x . b(x) -> P[<=3] a(x)",
            SessionOptions::default()
        )
        .untimed_warning(false)
        .is_some()
    );
}

#[test]
fn a_misread_trace_fails_and_a_trace_of_other_events_is_read() {
    // The spec's events behind another separator: misread, at line 1.
    let s = session(FILES, SessionOptions::default());
    let outcome = s.run(&b"open;a\nclose;a\n"[..], &mut Collect::default());
    assert_eq!(outcome.verdict, Verdict::Failed);
    let Some(RunError::Misread(m)) = &outcome.error else {
        panic!("{:?}", outcome.error);
    };
    assert_eq!((m.line, m.name.as_str()), (1, "open;a"));
    assert_eq!(
        outcome.summary.failure.as_deref(),
        Some("the trace looks misread (line 1: `open;a`)")
    );
    assert_eq!(outcome.summary.error, None);
    // Events the spec never mentions: read, satisfied, with a warning.
    let s = session(FILES, SessionOptions::default());
    let outcome = s.run(&b"start\ntick,1\nstop\n"[..], &mut Collect::default());
    assert_eq!(outcome.verdict, Verdict::Satisfied);
    assert!(outcome.error.is_none());
    let [Warning::UnknownNames(names)] = &outcome.warnings[..] else {
        panic!("{:?}", outcome.warnings);
    };
    assert_eq!((names.unknown_events, names.events), (3, 3));
    // Events pushed one by one have no format: never misread.
    let mut s = session(FILES, SessionOptions::default());
    let mut found = Collect::default();
    let _ = s.push(b"open;a", &[], None, &mut found);
    assert_eq!(s.finish(&mut found).verdict, Verdict::Satisfied);
}

#[test]
fn skipped_lines_beyond_the_bound_fail() {
    let skip = |max_skipped| SessionOptions {
        on_error: OnError::Skip,
        max_skipped,
        ..SessionOptions::default()
    };
    // 1 bad line of 10: within 10%.
    let mut trace = b"open,a,1\n".to_vec();
    trace.extend(b"open,b\n".repeat(9));
    let outcome = session(FILES, skip(0.1)).run(&trace[..], &mut Collect::default());
    assert_eq!(outcome.verdict, Verdict::Satisfied, "{:?}", outcome.error);
    // 2 of 10: beyond 10%, within 20%.
    trace.splice(0..0, b"close,a,2\n".iter().copied());
    let outcome = session(FILES, skip(0.1)).run(&trace[..], &mut Collect::default());
    assert_eq!(outcome.verdict, Verdict::Failed);
    let Some(RunError::Skipped(s)) = &outcome.error else {
        panic!("{:?}", outcome.error);
    };
    assert_eq!((s.skipped, s.lines, &s.first[..]), (2, 11, &[1, 2][..]));
    assert_eq!(s.bound_permille, 100);
    assert!(
        s.why.starts_with("line 1: event `close` has 2 arguments"),
        "{}",
        s.why
    );
    assert_eq!(
        outcome.summary.failure.as_deref(),
        Some("2 of 11 lines skipped as bad, more than 10%")
    );
    let outcome = session(FILES, skip(0.2)).run(&trace[..], &mut Collect::default());
    assert_eq!(outcome.verdict, Verdict::Satisfied);
    // Every line: always an error, whatever the bound.
    let outcome = session(FILES, skip(1.0)).run(&b"open,a,1\n"[..], &mut Collect::default());
    let Some(RunError::Skipped(s)) = &outcome.error else {
        panic!("{:?}", outcome.error);
    };
    assert_eq!((s.skipped, s.lines), (1, 1));
    assert_eq!(
        outcome.summary.failure.as_deref(),
        Some("all 1 line skipped as bad")
    );
}

#[test]
fn the_printer_is_a_report() {
    let names = vec!["closeOnlyOpen".to_owned()];
    let mut printer = Printer::new(Vec::new(), OutputFormat::Text, names.clone());
    let trace = &b"event,file\nopen,a\nclose,a\nclose,a\n"[..];
    let outcome = session(FILES, SessionOptions::default()).run(trace, &mut printer);
    assert_eq!(outcome.verdict, Verdict::Violated);
    let text = String::from_utf8(printer.into_inner().expect("a vector")).expect("UTF-8");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("property closeOnlyOpen violated at event 3 (line 4): close(a)")
    );
    assert_eq!(text.lines().last(), Some("STATUS: Violated"));
    let mut json = Printer::new(Vec::new(), OutputFormat::Json, names);
    session(FILES, SessionOptions::default()).run(&b"close,b\n"[..], &mut json);
    let text = String::from_utf8(json.into_inner().expect("a vector")).expect("UTF-8");
    let first: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).expect("JSON");
    assert_eq!(first["kind"], "violation");
    assert_eq!(first["event"], 1);
    assert_eq!(first["args"][0], "b");
}

#[test]
fn stop_at_first_a_failed_report_and_cancelling_end_the_run() {
    let options = SessionOptions {
        stop_at_first: true,
        ..SessionOptions::default()
    };
    let mut found = Collect::default();
    let trace = &b"close,a\nclose,b\nopen,c\n"[..];
    let outcome = session(FILES, options).run(trace, &mut found);
    assert_eq!(found.violations, [(0, 1)]);
    assert_eq!(outcome.summary.events, 1);
    let mut mine = Mine {
        fail_at: Some(2),
        ..Mine::default()
    };
    let outcome = session(FILES, SessionOptions::default()).run(trace, &mut mine);
    assert_eq!(mine.seen.len(), 1);
    assert!(mine.summary.is_none(), "no summary to a closed output");
    assert_eq!(outcome.violations(), 2);
    let mut s = session(FILES, SessionOptions::default());
    s.set_cancel(Arc::new(AtomicBool::new(true)));
    let outcome = s.run(trace, &mut found);
    assert_eq!(outcome.verdict, Verdict::Interrupted);
    assert_eq!(outcome.summary.events, 0);
}

#[test]
fn a_parallel_run_reports_what_a_sequential_run_does() {
    let spec = "prop a : Forall f . close(f) -> @ [open(f), close(f))\n\
                prop b : Forall f . open(f) -> !@ [open(f), close(f))";
    let mut trace = String::new();
    for i in 0..300 {
        let f = i % 7;
        trace.push_str(if i % 3 == 0 { "close," } else { "open," });
        trace.push_str(&format!("f{f}\n"));
    }
    let mut one = Collect::default();
    let seq = session(spec, SessionOptions::default()).run(trace.as_bytes(), &mut one);
    let options = SessionOptions {
        jobs: 3,
        ..SessionOptions::default()
    };
    let mut many = Collect::default();
    let par = session(spec, options).run_parallel(trace.as_bytes(), &mut many);
    assert!(!one.violations.is_empty());
    assert_eq!(one.violations, many.violations);
    assert_eq!(seq.properties, par.properties);
    assert_eq!(seq.summary.events, par.summary.events);
}

#[test]
fn spec_errors_and_warnings() {
    match Session::from_source(
        "prop p : Forall x . a(x) -> b(y)",
        SessionOptions::default(),
    ) {
        Err(LoadError::Spec(ds)) => assert!(ds[0].message.starts_with("free variable `y`")),
        _ => panic!("a free variable is an error"),
    }
}

/// Keeps each satisfaction as (time point, time stamp, tuples).
#[derive(Default)]
struct Satisfactions(Vec<(u64, u64, Vec<String>)>);

impl Report for Satisfactions {
    fn violation(
        &mut self,
        _: &Violation<'_>,
        _: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        panic!("an MFOTL pattern reports satisfactions");
    }

    fn satisfaction(
        &mut self,
        _: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        let shown = tuples
            .iter()
            .map(|t| {
                t.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        self.0.push((point, ts, shown));
        Ok(())
    }
}

#[test]
fn an_mfotl_pattern_reports_its_satisfactions() {
    let formula = "EXISTS ip . login(u, ip) AND ONCE[1,30] (EXISTS other . fail(u, other) AND NOT other = ip)";
    let signature = "login(user:string, ip:string)\nfail(user:string, ip:string)\n";
    let mut options = SessionOptions::default();
    options.trace.timed = true;
    let s = Session::from_mfotl(
        formula,
        signature,
        "suspicious",
        crate::mfotl::Reading::Satisfactions,
        options,
    )
    .expect("well-formed");
    let trace = "fail,bob,10.0.0.1,2\nlogin,alice,10.0.0.2,5\nfail,alice,10.0.0.2,9\nlogin,bob,10.0.0.3,12\n";
    let mut found = Satisfactions::default();
    let outcome = s.run(trace.as_bytes(), &mut found);
    assert_eq!(found.0, [(3, 12, vec!["bob".to_owned()])]);
    assert_eq!(outcome.properties[0].first, Some(4));
}

#[test]
fn run_file_reads_a_timed_name_as_timed_and_names_the_trace_in_errors() {
    let dir = std::env::temp_dir().join(format!("hindsight-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join("deadline.timed.csv");
    std::fs::write(&path, "dispatch,m1,10\ncomplete,m1,14\ncomplete,m1,x\n").expect("written");
    let spec = "prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)";
    let mut found = Collect::default();
    let outcome = session(spec, SessionOptions::default())
        .run_file(&path, &mut found)
        .expect("the file opens");
    std::fs::remove_dir_all(&dir).expect("removed");
    // Time 14 is 4 after the dispatch: too late, at event 2.
    assert_eq!(found.violations, [(0, 2)]);
    assert_eq!(found.error.as_ref().and_then(RunError::line), Some(3));
    let note = outcome.summary.error.expect("the bad time stamp");
    assert!(
        note.starts_with(&format!("{}:line 3: ", path.display())),
        "{note}"
    );
}

#[test]
fn arity_hints_name_timed() {
    use super::outcome::arity_hint as arity;
    assert!(arity(1, 2, false, Some(b"17")).is_some_and(|h| h.contains("--timed")));
    assert!(arity(1, 2, false, Some(b"x")).is_none());
    assert!(arity(1, 2, false, Some(b"0.25")).is_some_and(|h| h.contains("--timed")));
    assert!(arity(1, 2, false, Some(b"1.")).is_none());
    assert!(arity(1, 2, false, Some(b"1.2.3")).is_none());
    assert!(arity(2, 1, true, Some(b"x")).is_some_and(|h| h.contains("untimed")));
    assert!(arity(2, 3, true, Some(b"1")).is_none());
}

/// The trace of `runs` (record, how many times on consecutive lines).
fn trace_of_runs(runs: &[(&str, usize)]) -> String {
    runs.iter()
        .map(|(r, n)| format!("{r}\n").repeat(*n))
        .collect()
}

/// A violation as [`Mine`] keeps it: property, event, line, time, witness.
type Seen = (usize, u64, u64, Option<u64>, String);

/// The violations (property, event, line, time, witness) of `trace` read
/// whole by [`Session::run`], and of its events pushed one by one.
fn run_and_push(spec: &str, trace: &str, timed: bool) -> (Vec<Seen>, Vec<Seen>) {
    let options = || SessionOptions {
        witness: true,
        trace: crate::trace::TraceOptions {
            timed,
            ..Default::default()
        },
        ..SessionOptions::default()
    };
    let mut whole = Mine::default();
    let outcome = session(spec, options()).run(trace.as_bytes(), &mut whole);
    let mut one = Mine::default();
    let mut s = session(spec, options());
    for record in trace.lines() {
        let mut fields: Vec<&[u8]> = record.split(',').map(str::as_bytes).collect();
        let time = timed.then(|| {
            let t = fields.pop().expect("a time stamp");
            std::str::from_utf8(t)
                .expect("text")
                .parse::<u64>()
                .expect("a number")
        });
        assert!(
            s.push(fields[0], &fields[1..], time, &mut one)
                .is_continue()
        );
    }
    let pushed = s.finish(&mut one);
    assert_eq!(outcome.summary.events, pushed.summary.events);
    assert_eq!(outcome.summary.counts, pushed.summary.counts);
    assert_eq!(outcome.properties, pushed.properties);
    (whole.seen, one.seen)
}

#[test]
fn runs_of_repeated_records_give_the_per_event_results() {
    // A violation inside a long run, a run broken by another event, runs of
    // events that change nothing.
    let trace = trace_of_runs(&[
        ("open,a", 300),
        ("close,a", 1),
        ("close,a", 250),
        ("open,b", 100),
        ("close,a", 40),
        ("open,a", 1),
        ("close,a", 120),
    ]);
    let (whole, pushed) = run_and_push(FILES, &trace, false);
    assert_eq!(whole, pushed);
    // The first `close,a` after `open,a` holds, each repeat violates, at its own event and line.
    let first: Vec<u64> = whole.iter().map(|v| v.1).take(3).collect();
    assert_eq!(first, [302, 303, 304]);
    assert_eq!(whole.len(), 250 + 40 + 119);
    assert!(whole.iter().all(|v| v.1 == v.2 && v.4 == "f=a"));
    assert_eq!(
        whole.last().map(|v| v.1),
        Some(300 + 1 + 250 + 100 + 40 + 1 + 120)
    );
}

#[test]
fn a_run_crossing_a_time_change_gives_the_per_event_results() {
    let spec = "prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)\n\
                prop seen : Forall m . complete(m) -> P dispatch(m)";
    let trace = trace_of_runs(&[
        ("dispatch,c1,0", 50),
        ("complete,c1,1", 80),
        ("complete,c1,4", 60),
        ("complete,c2,4", 30),
        ("complete,c1,4", 30),
    ]);
    let (whole, pushed) = run_and_push(spec, &trace, true);
    assert_eq!(whole, pushed);
    // From time 4 the dispatch at 0 is too old: every event from 131 on
    // violates `deadline`, and `complete,c2` also `seen`.
    assert_eq!(
        whole.first().map(|v| (v.0, v.1, v.3)),
        Some((0, 131, Some(4)))
    );
    assert_eq!(whole.iter().filter(|v| v.0 == 0).count(), 120);
    assert_eq!(whole.iter().filter(|v| v.0 == 1).count(), 30);
}

#[test]
fn runs_of_an_untimed_spec_in_a_timed_trace_keep_each_time_and_line() {
    let trace = trace_of_runs(&[
        ("open,a,1", 20),
        ("close,a,2", 30),
        ("close,a,3", 30),
        ("open,a,3", 5),
        ("close,a,3", 25),
    ]);
    let (whole, pushed) = run_and_push(FILES, &trace, true);
    assert_eq!(whole, pushed);
    assert_eq!(whole.len(), 29 + 30 + 24);
    assert_eq!(whole.first().map(|v| (v.1, v.3)), Some((22, Some(2))));
    assert_eq!(
        whole.get(29).map(|v| (v.1, v.2, v.3)),
        Some((51, 51, Some(3)))
    );
}
