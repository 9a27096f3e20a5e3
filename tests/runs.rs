//! End to end: a trace of long runs of identical records (read, stepped and
//! counted a run at a time) gives exactly the per-event results, which a
//! run with `--profile` (stepped one event at a time) shows.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{bin, scratch_file};

fn file(name: &str, text: &str) -> PathBuf {
    scratch_file("runs", name, text)
}

fn runs(records: &[(&str, usize)]) -> String {
    records
        .iter()
        .map(|(r, n)| format!("{r}\n").repeat(*n))
        .collect()
}

/// Runs `hindsight run ARGS SPEC TRACE`, and again with a profile (one
/// step per event): same exit status and standard output, but for the
/// run's duration.
fn run_both(args: &[&str], spec: &PathBuf, trace: &PathBuf) -> (Option<i32>, String) {
    let go = |extra: &[&str]| -> Output {
        bin()
            .arg("run")
            .args(args)
            .args(extra)
            .arg(spec)
            .arg(trace)
            .output()
            .expect("runs")
    };
    let fast = go(&[]);
    // One profile per trace: the tests run at the same time.
    let name = trace
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("trace");
    let profile = file(&format!("{name}.profile.csv"), "");
    let slow = go(&["--profile", profile.to_str().expect("utf-8 path")]);
    let strip = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with("events processed") && !l.contains("\"kind\":\"summary\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(fast.status.code(), slow.status.code());
    assert_eq!(strip(&fast), strip(&slow));
    (fast.status.code(), strip(&fast))
}

#[test]
fn violations_inside_runs_are_reported_at_each_event_and_line() {
    let spec = file(
        "files.qtl",
        "prop p : Forall f . close(f) -> @ [open(f), close(f))\n",
    );
    let trace = file(
        "files.csv",
        &runs(&[
            ("open,a", 500),
            ("close,a", 300),
            ("open,b", 200),
            ("close,a", 2),
            ("open,a", 1),
            ("close,a", 400),
        ]),
    );
    let (code, out) = run_both(&["--json", "--witness"], &spec, &trace);
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 299 + 2 + 399);
    assert!(
        lines[0].contains("\"event\":502") && lines[0].contains("\"line\":502"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("\"f\":\"a\""), "{}", lines[0]);
    assert!(lines[299].contains("\"event\":1001"), "{}", lines[299]);
    assert!(lines[699].contains("\"event\":1403"), "{}", lines[699]);
    let (code, text) = run_both(&["--stop-at-first"], &spec, &trace);
    assert_eq!(code, Some(1));
    assert_eq!(
        text.lines().next(),
        Some("property p violated at event 502: close(a)")
    );
}

#[test]
fn runs_crossing_a_time_change_and_broken_runs_match_per_event_stepping() {
    let spec = file(
        "deadline.qtl",
        "prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)\n\
         prop seen : Forall m . complete(m) -> P dispatch(m)\n",
    );
    let trace = file(
        "deadline.timed.csv",
        &runs(&[
            ("dispatch,c1,0", 100),
            ("complete,c1,2", 100),
            ("complete,c1,5", 50),
            ("complete,c2,5", 1),
            ("complete,c1,5", 50),
        ]),
    );
    let (code, out) = run_both(&["--json"], &spec, &trace);
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = out.lines().collect();
    // Every event at time 5 violates `deadline`; `complete,c2` also `seen`.
    assert_eq!(lines.len(), 101 + 1);
    assert!(
        lines[0].contains("\"event\":201") && lines[0].contains("\"time\":5"),
        "{}",
        lines[0]
    );
    let untimed = file(
        "files-untimed.qtl",
        "prop p : Forall f . close(f) -> @ [open(f), close(f))\n",
    );
    let trace = file(
        "files.timed.csv",
        &runs(&[
            ("open,a,1", 100),
            ("close,a,1", 100),
            ("close,a,2", 100),
            ("other,x,2", 1),
            ("close,a,2", 100),
        ]),
    );
    let (code, out) = run_both(&[], &untimed, &trace);
    assert_eq!(code, Some(1));
    assert_eq!(
        out.lines()
            .filter(|l| l.contains("violated at event"))
            .count(),
        99 + 100 + 100
    );
}

/// A session that keeps the events it steps (as `hindsight why` does):
/// each event stepped, each run of repeats taken at once, and the
/// violations with their witnesses.
#[derive(Default)]
struct Kept {
    stepped: Vec<(String, u64)>,
    repeated: Vec<u64>,
    violations: Vec<(u64, Option<String>)>,
}

impl hindsight::session::Report for Kept {
    fn violation(
        &mut self,
        v: &hindsight::report::Violation<'_>,
        witness: Option<&[(String, hindsight::runtime::WitnessValue)]>,
    ) -> std::io::Result<()> {
        let w = witness.map(hindsight::runtime::witness::format_witness);
        self.violations.push((v.event, w));
        Ok(())
    }

    fn stepped(&mut self, name: &[u8], args: &[&[u8]], _: Option<u64>, line: u64) {
        let args: Vec<String> = args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into())
            .collect();
        let name = String::from_utf8_lossy(name);
        self.stepped
            .push((format!("{name}({})", args.join(",")), line));
    }

    fn repeated(&mut self, n: u64) {
        self.repeated.push(n);
    }
}

/// `until` ends the run at an event, inside a run of repeats; `witness_at`
/// gives the violations at its event a witness, and no other: that event
/// is stepped on its own, also as a repeat.
#[test]
fn a_session_reads_up_to_an_event_with_the_witness_of_that_event() {
    use hindsight::session::{Session, SessionOptions};
    let spec = "prop again : Forall x . a(x) -> !@a(x)";
    let trace = runs(&[("a,1", 8), ("b,2", 1)]);
    let options = SessionOptions {
        witness_at: Some(5),
        until: Some(7),
        ..SessionOptions::default()
    };
    let session = Session::from_source(spec, options).expect("well-formed");
    let mut kept = Kept::default();
    let outcome = session.run(trace.as_bytes(), &mut kept);
    assert!(outcome.error.is_none());
    let events: Vec<u64> = kept.violations.iter().map(|v| v.0).collect();
    assert_eq!(events, [2, 3, 4, 5, 6, 7]);
    let witnessed: Vec<(u64, String)> = (kept.violations.iter())
        .filter_map(|(e, w)| w.clone().map(|w| (*e, w)))
        .collect();
    assert_eq!(witnessed, [(5, "x=1".to_owned())]);
    // Stepped and repeated account for exactly the 7 events read, and
    // event 5 was stepped on its own.
    let total = kept.stepped.len() as u64 + kept.repeated.iter().sum::<u64>();
    assert_eq!(total, 7, "{kept:?}", kept = (&kept.stepped, &kept.repeated));
    assert!(kept.stepped.iter().any(|s| s.1 == 5), "{:?}", kept.stepped);
    assert!(!kept.repeated.is_empty(), "no run was taken at once");
}
