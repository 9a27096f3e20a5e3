//! Per-event cost of the engine on small and large summaries.
//!
//! Each benchmark first drives a monitor into a state whose summaries hold
//! `n` values (channels toggled open, tasks spawned), then measures one more
//! event that touches a single value. With shared BDD nodes and a persistent
//! operation cache, that cost should not grow with `n`:
//!
//! ```sh
//! cargo bench --bench engine
//! ```

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hindsight::runtime::{Monitor, MonitorOptions};

const TELEMETRY: &str = "prop telemetry1 : Forall x . closed(x) -> !telem(x)
  where closed(x) := toggle(x) <-> @!closed(x)";

const SPAWNING: &str =
    "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where
  spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))";

const ACCESS: &str = "prop access : Forall u . Forall f . access(u,f) -> ([login(u),logout(u)) & [open(f),close(f)))";

fn monitor(spec: &str) -> Monitor {
    Monitor::from_source(spec, MonitorOptions::default()).expect("valid spec")
}

fn step(m: &mut Monitor, name: &str, args: &[&str]) {
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    black_box(m.step(name.as_bytes(), &args, 0).expect("event"));
}

/// Telemetry with `n` open channels; then toggling one channel and sending
/// on another, alternately (never the same event twice in a row).
fn telemetry(c: &mut Criterion) {
    let mut g = c.benchmark_group("telemetry1 toggle+telem");
    for n in [10usize, 1_000, 100_000] {
        let mut m = monitor(TELEMETRY);
        let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        for x in &names {
            step(&mut m, "toggle", &[x]);
        }
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let x = &names[i % n];
                step(&mut m, "toggle", &[x]);
                step(&mut m, "telem", &[x]);
                i += 1;
            })
        });
    }
    g.finish();
}

/// Spawning with `n` tasks in one chain below a root; then spawning a new
/// child of a random-ish task and a report from it.
fn spawning(c: &mut Criterion) {
    let mut g = c.benchmark_group("spawning spawn+report");
    for n in [10usize, 300, 2_000] {
        let mut m = monitor(SPAWNING);
        for i in 0..n {
            let (parent, child) = (i.to_string(), (i + 1).to_string());
            step(&mut m, "spawn", &[&parent, &child]);
        }
        let mut next = n + 1;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let parent = (next * 7919 % n).to_string();
                let child = next.to_string();
                step(&mut m, "spawn", &[&parent, &child]);
                step(&mut m, "report", &[&child, &parent, "d"]);
                next += 1;
            })
        });
    }
    g.finish();
}

/// Access control with `n` users logged in and `n` files open; then one
/// access by a logged-in user to an open file, and one login/logout pair.
fn access(c: &mut Criterion) {
    let mut g = c.benchmark_group("access login+access+logout");
    for n in [10usize, 1_000, 100_000] {
        let mut m = monitor(ACCESS);
        let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        for x in &names {
            step(&mut m, "login", &[x]);
            step(&mut m, "open", &[x]);
        }
        let mut i = 0usize;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let u = &names[i % n];
                let f = &names[(i * 31) % n];
                step(&mut m, "access", &[u, f]);
                step(&mut m, "logout", &[u]);
                step(&mut m, "login", &[u]);
                i += 1;
            })
        });
    }
    g.finish();
}

criterion_group!(benches, telemetry, spawning, access);
criterion_main!(benches);
