//! Garbage collection of value codes: verdicts never depend on it, and it
//! keeps the number of codes in use bounded by the live values.

mod common;

use std::path::Path;

use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};

fn monitor(spec: &str, gc: GcPolicy) -> Monitor {
    Monitor::from_source(
        spec,
        MonitorOptions {
            gc,
            start_bits: 1,
            ..Default::default()
        },
    )
    .expect("well-formed")
}

/// Violating event numbers of `spec` on `events` under a collection policy.
fn verdicts(spec: &str, gc: GcPolicy, events: &[(String, Vec<String>)]) -> Vec<(usize, u64)> {
    let mut m = monitor(spec, gc);
    let mut out = Vec::new();
    for (i, (name, args)) in events.iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        for &p in m.step(name.as_bytes(), &args, 0).expect("valid") {
            out.push((p, i as u64 + 1));
        }
    }
    out
}

/// Files opened and closed in a sliding window of `live`, file `bad` closed twice.
fn files(n: usize, live: usize, bad: usize) -> Vec<(String, Vec<String>)> {
    let mut ev = Vec::new();
    for i in 0..n + live {
        if i < n {
            ev.push(("open".to_string(), vec![format!("f{i}")]));
        }
        if i >= live {
            let j = i - live;
            ev.push(("close".to_string(), vec![format!("f{j}")]));
            if j == bad {
                ev.push(("close".to_string(), vec![format!("f{j}")]));
            }
        }
    }
    ev
}

const FILE: &str = "prop file : Forall f . close(f) -> @ [open(f), close(f))";

#[test]
fn collection_keeps_codes_bounded_by_live_values() {
    let mut m = monitor(FILE, GcPolicy::Always);
    let mut most = 0;
    for (name, args) in files(3000, 10, usize::MAX) {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        assert!(m.step(name.as_bytes(), &args, 0).expect("valid").is_empty());
        most = most.max(m.properties()[0].live_values());
    }
    // At most 10 files are open, plus the one that just arrived.
    assert!(most <= 11, "{most} codes in use");
    let (collections, released) = m.gc_stats();
    assert_eq!(collections, 6000);
    assert!(released >= 2990, "{released}");
}

#[test]
fn automatic_collection_runs_when_codes_double() {
    let mut m = monitor(FILE, GcPolicy::Auto);
    for (name, args) in files(5000, 10, usize::MAX) {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        m.step(name.as_bytes(), &args, 0).expect("valid");
        assert!(m.properties()[0].live_values() <= 1024);
    }
    assert!(m.gc_stats().0 >= 4, "{:?}", m.gc_stats());
}

#[test]
fn verdicts_do_not_depend_on_collection() {
    let trace = files(300, 7, 150);
    let specs = [
        FILE,
        // Seen values are pinned by `forall`, comparisons and rule constants.
        "prop p : forall f . close(f) -> (P open(f) | f = \"f3\")",
        "prop p : Forall f . Forall g . close(f) & @ P open(g) -> (g < f | g >= f | P close(g))",
        "prop p : Forall f . close(f) -> opened(f) where opened(x) := open(x) | @opened(x) & !close(x)",
        "prop p : Forall f . close(f) -> !r(\"f150\") | f = \"f150\" where r(x) := @r(x) | close(x)",
    ];
    for spec in specs {
        let never = verdicts(spec, GcPolicy::Never, &trace);
        assert_eq!(verdicts(spec, GcPolicy::Always, &trace), never, "{spec}");
        assert_eq!(verdicts(spec, GcPolicy::Auto, &trace), never, "{spec}");
    }
    // File 150 is closed twice at event 310: 158 opens and 151 closes before it.
    assert_eq!(verdicts(FILE, GcPolicy::Never, &trace), vec![(0, 310)]);
}

#[test]
fn values_seen_by_forall_are_never_reclaimed() {
    let mut m = monitor("prop p : forall f . P open(f)", GcPolicy::Always);
    for i in 0..50 {
        m.step(b"open", &[format!("f{i}").as_bytes()], 0)
            .expect("valid");
    }
    assert_eq!(m.properties()[0].live_values(), 50);
}

/// Traces in `specs/` without a specification of their own, skipped by
/// name (none today).
const WITHOUT_SPEC: [&str; 0] = [];

/// Every example in `specs/` gives the same verdicts with collection after
/// every event as with none. Each trace runs with its specification: the
/// `.qtl` of its name without `-ok` and `.timed`, or else the `.mfotl` with
/// its `.sig`; each run must succeed (exit 0 or 1; for a QTL example, 0 on
/// a `-ok` trace and 1 on the other).
#[test]
fn examples_agree_with_and_without_collection() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).expect("specs/") {
        let trace = entry.expect("entry").path();
        if trace.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let stem = trace
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if WITHOUT_SPEC.contains(&stem) {
            continue;
        }
        let name = stem.trim_end_matches(".csv").trim_end_matches(".timed");
        let (base, ok) = match name.strip_suffix("-ok") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let qtl = dir.join(format!("{base}.qtl"));
        let mfotl = dir.join(format!("{base}.mfotl"));
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        let expected = if qtl.exists() {
            args.push(qtl.into());
            Some(if ok { 0 } else { 1 })
        } else {
            assert!(mfotl.exists(), "{stem} has no specification");
            args.extend(["--sig".into(), dir.join(format!("{base}.sig")).into()]);
            args.push(mfotl.into());
            None
        };
        let run = |gc: &str| {
            let out = common::bin()
                .args(["run", "--report", "json", "--gc", gc])
                .args(&args)
                .arg(&trace)
                .output()
                .expect("runs");
            let code = out.status.code();
            match expected {
                Some(e) => assert_eq!(code, Some(e), "{stem} --gc {gc}"),
                None => assert!(matches!(code, Some(0 | 1)), "{stem} --gc {gc}: {code:?}"),
            }
            let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.contains("\"violation\"") || l.contains("\"satisfaction\""))
                .map(str::to_string)
                .collect();
            assert!(
                expected == Some(0) || !lines.is_empty(),
                "{stem}: nothing reported"
            );
            (code, lines)
        };
        assert_eq!(run("always"), run("never"), "{}", trace.display());
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} traces found");
}

/// Violating step numbers of a future statement, as they are decided.
fn delayed_verdicts(spec: &str, gc: GcPolicy, events: &[(String, Vec<String>)]) -> Vec<u64> {
    let mut m = monitor(spec, gc);
    m.set_step_clock(true);
    let mut out = Vec::new();
    for (name, args) in events {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        m.step(name.as_bytes(), &args, 0).expect("valid");
        for d in m.take_decided() {
            if !d.violations.is_empty() {
                out.push(d.step + 1);
            }
        }
    }
    out
}

#[test]
fn values_held_by_pending_future_verdicts_are_never_reclaimed() {
    // Requests answered 3 events later, but every 25th one never: the
    // requests' and answers' values are kept only by the positions not
    // decided yet (as codes, in point mode), while collections run at
    // every event.
    let mut trace = Vec::new();
    for i in 0..400 {
        trace.push(("req".to_string(), vec![format!("r{i}")]));
        if i >= 3 && (i - 3) % 25 != 7 {
            trace.push(("resp".to_string(), vec![format!("r{}", i - 3)]));
        }
    }
    let specs = [
        "prop answered : Forall r . req(r) -> F[<=8] resp(r)",
        "prop answered : Forall r . req(r) -> F[<=8] (resp(r) | cancel(r))",
        "prop answered : Forall r . !(req(r) & G[1,8] !resp(r))",
        "prop answered : Forall r . req(r) -> !resp(r) U[<=8] (resp(r) & X[<=3] !req(r))",
    ];
    for spec in specs {
        let never = delayed_verdicts(spec, GcPolicy::Never, &trace);
        assert_eq!(
            delayed_verdicts(spec, GcPolicy::Always, &trace),
            never,
            "{spec}"
        );
        assert_eq!(
            delayed_verdicts(spec, GcPolicy::Auto, &trace),
            never,
            "{spec}"
        );
    }
    // Request 7 (event 12: two events per request from the fourth on) is
    // the first never answered, and one in 25 after it; the last
    // requests' windows reach past the trace (undecided).
    let first = delayed_verdicts(specs[0], GcPolicy::Always, &trace);
    assert_eq!(first.first(), Some(&12));
    assert_eq!(first.len(), 16);
}
