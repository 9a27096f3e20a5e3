//! The engine on both BDD packages: every example specification in `specs/`
//! runs on its traces through `hindsight::runtime::Monitor` with
//! `Package::Shared` and `Package::Biodivine`, under the default options and
//! under 1-bit codes with collection after every event (which exercises
//! renaming, restriction and code reuse); both must give the violations that
//! tests/examples.rs derives by hand, event by event.

use std::path::{Path, PathBuf};

use hindsight::bdd::Package;
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};

/// The violating events of each property.
type Expected = &'static [(&'static str, &'static [u64])];

/// Every QTL example with its traces and the violations (property, events)
/// each must give (the same expectations as tests/examples.rs).
const EXAMPLES: &[(&str, &str, Expected)] = &[
    (
        "file_access.qtl",
        "file_access.csv",
        &[("accessWhileOpen", &[1, 5, 8, 11]), ("noReopen", &[9])],
    ),
    ("file_access.qtl", "file_access-ok.csv", &[]),
    (
        "locks.qtl",
        "locks.csv",
        &[("releaseOnlyHeld", &[5, 7, 12]), ("exclusive", &[6, 7, 9])],
    ),
    ("locks.qtl", "locks-ok.csv", &[]),
    (
        "auction.qtl",
        "auction.csv",
        &[
            ("increasing", &[6, 7]),
            ("noBidAfterSale", &[10, 13]),
            ("reserveMet", &[11, 14]),
        ],
    ),
    ("auction.qtl", "auction-ok.csv", &[]),
    (
        "iterator.qtl",
        "iterator.csv",
        &[
            ("nextAfterHasNext", &[4, 7, 10]),
            ("unsafeMapIterator", &[10, 14]),
        ],
    ),
    ("iterator.qtl", "iterator-ok.csv", &[]),
    (
        "access.qtl",
        "access.csv",
        &[
            ("accessAllowed", &[4, 6, 10, 12]),
            ("auditComplete", &[15, 19, 20]),
        ],
    ),
    ("access.qtl", "access-ok.csv", &[]),
    (
        "telemetry.qtl",
        "telemetry.csv",
        &[
            ("telemetry1", &[1, 4, 8, 11]),
            ("telemetry2", &[1, 4, 8, 11]),
        ],
    ),
    ("telemetry.qtl", "telemetry-ok.csv", &[]),
    (
        "spawning.qtl",
        "spawning.csv",
        &[("spawning", &[6, 9, 11, 14, 17])],
    ),
    ("spawning.qtl", "spawning-ok.csv", &[]),
    ("even.qtl", "even.csv", &[("even", &[4, 6, 10])]),
    ("even.qtl", "even-ok.csv", &[]),
    (
        "deadline.qtl",
        "deadline.timed.csv",
        &[("deadline", &[4, 11, 14, 15]), ("cooldown", &[9])],
    ),
    ("deadline.qtl", "deadline-ok.timed.csv", &[]),
    (
        "responses.qtl",
        "responses.timed.csv",
        &[("answered", &[1]), ("quiet", &[4, 9])],
    ),
    ("responses.qtl", "responses-ok.timed.csv", &[]),
    (
        "sessions.qtl",
        "sessions.csv",
        &[("sendWhileLive", &[3, 13]), ("ackOnlyPending", &[5, 6, 11])],
    ),
    ("sessions.qtl", "sessions-ok.csv", &[]),
];

fn specs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("specs")
}

/// The events of an example trace: name, arguments and time stamp (the last
/// field of a `.timed.` trace; 0 otherwise).
fn events(trace: &str) -> Vec<(String, Vec<String>, u64)> {
    let text = std::fs::read_to_string(specs().join(trace)).expect("example trace");
    let timed = trace.contains(".timed.");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut fields: Vec<String> = line.split(',').map(|f| f.trim().to_string()).collect();
            let time = if timed {
                let t = fields.pop().expect("a time stamp");
                t.parse()
                    .unwrap_or_else(|_| panic!("time stamp `{t}` in {trace}"))
            } else {
                0
            };
            let name = fields.remove(0);
            (name, fields, time)
        })
        .collect()
}

/// The violations (property, event number from 1) of `spec` on `trace`.
fn violations(spec: &str, trace: &str, options: MonitorOptions) -> Vec<(String, u64)> {
    let source = std::fs::read_to_string(specs().join(spec)).expect("example spec");
    let package = options.bdd;
    let mut monitor = Monitor::from_source(&source, options).expect("well-formed example");
    let names: Vec<String> = monitor
        .property_names()
        .into_iter()
        .map(String::from)
        .collect();
    let mut found = Vec::new();
    for (i, (name, args, time)) in events(trace).iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let violated = monitor
            .step(name.as_bytes(), &args, *time)
            .unwrap_or_else(|e| panic!("{spec} on {trace} with {package}: {e}"));
        found.extend(violated.iter().map(|&p| (names[p].clone(), i as u64 + 1)));
        // Delayed verdicts (future operators) come once decided.
        for d in monitor.take_decided() {
            let names = &names;
            found.extend(
                (d.violations.iter()).map(move |v| (names[v.property].clone(), d.step + 1)),
            );
        }
    }
    monitor.finish_trace(false);
    for d in monitor.take_decided() {
        found.extend((d.violations.iter()).map(|v| (names[v.property].clone(), d.step + 1)));
    }
    found.sort();
    found
}

fn option_sets(bdd: Package) -> [MonitorOptions; 2] {
    [
        MonitorOptions {
            bdd,
            ..MonitorOptions::default()
        },
        MonitorOptions {
            bdd,
            start_bits: 1,
            gc: GcPolicy::Always,
            ..MonitorOptions::default()
        },
    ]
}

#[test]
fn both_packages_give_the_expected_violations_on_every_example() {
    for &(spec, trace, expected) in EXAMPLES {
        let mut want: Vec<(String, u64)> = expected
            .iter()
            .flat_map(|(p, evs)| evs.iter().map(move |&e| (p.to_string(), e)))
            .collect();
        want.sort();
        for (shared, bio) in option_sets(Package::Shared)
            .into_iter()
            .zip(option_sets(Package::Biodivine))
        {
            let what = format!("{spec} on {trace}, start_bits {}", shared.start_bits);
            let by_shared = violations(spec, trace, shared);
            let by_bio = violations(spec, trace, bio);
            assert_eq!(by_shared, by_bio, "the packages differ: {what}");
            assert_eq!(by_shared, want, "{what}");
        }
    }
}

/// No example is left out: every `.qtl` file and every trace in `specs/`
/// (the MFOTL examples aside, which tests/mfotl.rs runs) is listed above.
#[test]
fn every_qtl_example_is_run_on_both_packages() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(specs()).expect("specs/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let listed = EXAMPLES.iter().any(|&(s, t, _)| s == name || t == name);
        let mfotl = name.starts_with("payments") || name.starts_with("suspicious");
        if (name.ends_with(".qtl") || name.ends_with(".csv")) && !mfotl && !listed {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "examples not run on both packages: {missing:?}"
    );
}
