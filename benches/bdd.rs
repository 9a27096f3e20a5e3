//! The two BDD packages side by side in one build: the same monitor on the
//! same trace, once on the shared-node package and once on
//! `biodivine-lib-bdd` (chosen by `MonitorOptions::bdd`).
//!
//! ```sh
//! cargo bench --bench bdd
//! ```
//!
//! Each iteration builds a fresh monitor and runs it over a whole generated
//! trace: access control (logins, opened files and accesses of 40 users on
//! 40 files, 2,000 events) and spawning (a tree of 300 tasks with reports).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hindsight::bdd::Package;
use hindsight::runtime::{Monitor, MonitorOptions};

const ACCESS: &str = "prop access : Forall u . Forall f . access(u,f) -> ([login(u),logout(u)) & [open(f),close(f)))";

const SPAWNING: &str =
    "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where
  spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))";

type Trace = Vec<(&'static str, Vec<String>)>;

/// A deterministic access-control trace of `n` events.
fn access_trace(n: usize) -> Trace {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |k: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % k
    };
    (0..n)
        .map(|_| {
            let (u, f) = (format!("u{}", next(40)), format!("f{}", next(40)));
            match next(6) {
                0 => ("login", vec![u]),
                1 => ("logout", vec![u]),
                2 => ("open", vec![f]),
                3 => ("close", vec![f]),
                _ => ("access", vec![u, f]),
            }
        })
        .collect()
}

/// A spawn tree of `n` tasks, each spawned by an earlier one, with a report
/// of every task to the root after it is spawned.
fn spawning_trace(n: usize) -> Trace {
    let mut trace = Vec::new();
    for i in 1..n {
        let parent = (i * 7 + 3) % i;
        trace.push(("spawn", vec![format!("t{parent}"), format!("t{i}")]));
        trace.push((
            "report",
            vec![format!("t{i}"), "t0".to_string(), format!("d{}", i % 5)],
        ));
    }
    trace
}

/// Runs a fresh monitor of `spec` on `package` over `trace`; returns the
/// number of violations.
fn run(spec: &str, package: Package, trace: &Trace) -> usize {
    let options = MonitorOptions {
        bdd: package,
        ..MonitorOptions::default()
    };
    let mut m = Monitor::from_source(spec, options).expect("valid spec");
    let mut violations = 0;
    for (name, args) in trace {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        violations += m.step(name.as_bytes(), &args, 0).expect("event").len();
    }
    violations
}

fn packages(c: &mut Criterion) {
    let workloads = [
        ("access 2k events", ACCESS, access_trace(2_000)),
        ("spawning 300 tasks", SPAWNING, spawning_trace(300)),
    ];
    for (name, spec, trace) in &workloads {
        // Both packages must agree before they are compared.
        let verdicts: Vec<usize> = Package::ALL.iter().map(|&p| run(spec, p, trace)).collect();
        assert!(
            verdicts.windows(2).all(|w| w[0] == w[1]),
            "{name}: {verdicts:?}"
        );
        let mut g = c.benchmark_group(*name);
        g.sample_size(10);
        for package in Package::ALL {
            g.bench_with_input(BenchmarkId::from_parameter(package), &package, |b, &p| {
                b.iter(|| black_box(run(spec, p, trace)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, packages);
criterion_main!(benches);
