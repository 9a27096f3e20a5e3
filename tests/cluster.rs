//! `hindsight run --cluster` (feature `cluster`): with 1, 2 and 4 Timely
//! Dataflow workers in one process, and with 2 processes on localhost
//! (the trace read by process 0, or in two consecutive parts, one per
//! process), the verdicts, summary and exit status of the sequential run.
#![cfg(feature = "cluster")]

mod common;

use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn hindsight(args: &[&str]) -> Output {
    common::bin().args(args).output().expect("the binary runs")
}

/// Stdout without the line with the time taken (the only one that may
/// differ), and the exit status.
fn verdicts(o: &Output) -> (String, Option<i32>) {
    let text = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("events processed:"))
        .fold(String::new(), |mut s, l| {
            let _ = writeln!(s, "{l}");
            s
        });
    (text, o.status.code())
}

fn sequential(spec: &str, trace: &str) -> (String, Option<i32>) {
    verdicts(&hindsight(&["run", "--jobs", "1", spec, trace]))
}

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("cluster").join(name)
}

/// A longer access-control trace (many pieces, several slices per user):
/// logins, grants, accesses, revokes and logouts of 40 users on 6
/// resources, from a fixed seed.
fn long_access_trace() -> String {
    let path = scratch("access-long.csv");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut text = String::new();
    for _ in 0..30_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let user = seed % 40;
        let res = (seed >> 8) % 6;
        let line = match (seed >> 16) % 10 {
            0 => format!("login,u{user}"),
            1 => format!("logout,u{user}"),
            2 | 3 => format!("grant,u{user},r{res}"),
            4 => format!("revoke,u{user},r{res}"),
            5 if user == 0 => format!("audit,u{user}"),
            _ => format!("access,u{user},r{res}"),
        };
        let _ = writeln!(text, "{line}");
    }
    std::fs::write(&path, text).expect("trace written");
    path.display().to_string()
}

/// Specifications and traces: sliceable (accessAllowed, locks), not
/// sliceable (auditComplete's `forall`, telemetry), timed (deadline), with
/// violations and without.
fn cases() -> Vec<(String, String)> {
    let mut cases: Vec<(String, String)> = [
        ("specs/access.qtl", "specs/access.csv"),
        ("specs/access.qtl", "specs/access-ok.csv"),
        ("specs/file_access.qtl", "specs/file_access.csv"),
        ("specs/locks.qtl", "specs/locks.csv"),
        ("specs/telemetry.qtl", "specs/telemetry.csv"),
        ("specs/spawning.qtl", "specs/spawning.csv"),
        ("specs/deadline.qtl", "specs/deadline.timed.csv"),
    ]
    .iter()
    .map(|(s, t)| (s.to_string(), t.to_string()))
    .collect();
    cases.push(("specs/access.qtl".into(), long_access_trace()));
    cases
}

#[test]
fn one_process_with_1_2_and_4_workers_gives_the_sequential_verdicts() {
    for (spec, trace) in cases() {
        let expected = sequential(&spec, &trace);
        assert!(
            expected.0.contains("STATUS:"),
            "{spec} {trace}: {}",
            expected.0
        );
        for workers in ["1", "2", "4"] {
            let got = verdicts(&hindsight(&[
                "run",
                "--cluster",
                "--workers",
                workers,
                &spec,
                &trace,
            ]));
            assert_eq!(got, expected, "{spec} {trace} with {workers} workers");
        }
    }
}

#[test]
fn the_long_trace_has_violations_of_both_kinds() {
    // The long trace exercises slicing (accessAllowed) and a property run
    // whole (auditComplete): make sure both are violated in it.
    let (text, code) = sequential("specs/access.qtl", &long_access_trace());
    assert_eq!(code, Some(1));
    assert!(text.contains("property accessAllowed: "), "{text}");
    assert!(text.contains("property auditComplete: "), "{text}");
    assert!(!text.contains("accessAllowed: no violation"), "{text}");
    assert!(!text.contains("auditComplete: no violation"), "{text}");
}

/// Two free ports on localhost, in a host file.
fn host_file(name: &str) -> String {
    let ports: Vec<u16> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect::<Vec<_>>()
        .iter()
        .map(|l| l.local_addr().expect("an address").port())
        .collect();
    let path = scratch(name);
    let text = format!(
        "# two processes\n127.0.0.1:{}\n127.0.0.1:{}\n",
        ports[0], ports[1]
    );
    std::fs::write(&path, text).expect("host file written");
    path.display().to_string()
}

/// Runs process 1 and process 0 of a two-process cluster; gives process 0's
/// output, after checking that process 1 printed nothing and succeeded.
fn two_processes(extra: &[&str], spec: &str, traces: [&str; 2], hosts: &str) -> Output {
    let args = |p: &'static str, trace: &str| -> Vec<String> {
        let mut a: Vec<String> = ["run", "--cluster", "--processes", "2", "--process", p]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a.extend(["--hostfile".into(), hosts.into(), spec.into(), trace.into()]);
        a
    };
    let other = common::bin()
        .args(args("1", traces[1]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("process 1 starts");
    let first = common::bin()
        .args(args("0", traces[0]))
        .output()
        .expect("process 0 runs");
    let other = other.wait_with_output().expect("process 1 ends");
    assert_eq!(
        other.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    assert!(
        other.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&other.stdout)
    );
    first
}

#[test]
fn two_processes_on_localhost_give_the_sequential_verdicts() {
    for (i, (spec, trace)) in cases().into_iter().enumerate() {
        let expected = sequential(&spec, &trace);
        let hosts = host_file(&format!("hosts-{i}"));
        let o = two_processes(&["--workers", "2"], &spec, [&trace, &trace], &hosts);
        assert_eq!(verdicts(&o), expected, "{spec} {trace}");
    }
}

#[test]
fn two_processes_reading_consecutive_parts_give_the_sequential_verdicts() {
    for (i, (spec, trace)) in cases().into_iter().enumerate() {
        let text = std::fs::read_to_string(&trace).expect("trace");
        let lines: Vec<&str> = text.lines().collect();
        let half = lines.len() / 2;
        let name = Path::new(&trace)
            .file_name()
            .expect("a name")
            .to_string_lossy();
        let parts = [
            scratch(&format!("part0-{name}")),
            scratch(&format!("part1-{name}")),
        ];
        std::fs::write(&parts[0], lines[..half].join("\n") + "\n").expect("part 0");
        std::fs::write(&parts[1], lines[half..].join("\n") + "\n").expect("part 1");
        let parts = parts.map(|p| p.display().to_string());
        let expected = sequential(&spec, &trace);
        let hosts = host_file(&format!("hosts-parts-{i}"));
        let o = two_processes(
            &["--cluster-input", "per-process"],
            &spec,
            [&parts[0], &parts[1]],
            &hosts,
        );
        assert_eq!(verdicts(&o), expected, "{spec} {trace}");
    }
}

#[test]
fn bad_process_configurations_are_refused_with_exit_2() {
    let o = hindsight(&[
        "run",
        "--cluster",
        "--processes",
        "2",
        "--process",
        "2",
        "specs/access.qtl",
        "specs/access.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--process 2 is not below --processes 2"),
        "{err}"
    );
    let hosts = scratch("hosts-short");
    std::fs::write(&hosts, "127.0.0.1:1\n").expect("host file");
    let o = hindsight(&[
        "run",
        "--cluster",
        "--processes",
        "2",
        "--hostfile",
        &hosts.display().to_string(),
        "specs/access.qtl",
        "specs/access.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("2 processes need 2 addresses, the host file has 1"),
        "{err}"
    );
    // Options that the parallel engine takes but cluster mode does not.
    let said = "--cluster prints violations as a run without --witness";
    for option in [
        "--witness",
        "--all-witnesses",
        "--strict",
        "--skip-bad-lines",
    ] {
        let o = hindsight(&[
            "run",
            "--cluster",
            option,
            "specs/access.qtl",
            "specs/access.csv",
        ]);
        assert_eq!(o.status.code(), Some(2), "{option}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(said), "{option}: {err}");
    }
}

#[test]
fn a_bad_event_is_reported_at_its_line_as_in_the_sequential_run() {
    let trace = scratch("bad-arity.csv");
    std::fs::write(&trace, "login,alice\ngrant,alice,wiki\naccess,alice\n").expect("trace");
    let trace = trace.display().to_string();
    let seq = hindsight(&["run", "--jobs", "1", "specs/access.qtl", &trace]);
    let clu = hindsight(&[
        "run",
        "--cluster",
        "--workers",
        "2",
        "specs/access.qtl",
        &trace,
    ]);
    assert_eq!(clu.status.code(), Some(2));
    assert_eq!(verdicts(&clu), verdicts(&seq));
    assert_eq!(
        String::from_utf8_lossy(&clu.stderr),
        String::from_utf8_lossy(&seq.stderr)
    );
}
