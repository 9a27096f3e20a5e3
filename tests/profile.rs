//! End-to-end tests of `hindsight run --profile` and `hindsight plot`.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{bin, scratch_dir, stderr};

fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    scratch_dir("profile").join(name)
}

/// Profiles `specs/EXAMPLE.csv` every `every` events into `out`.
fn profile(example: &str, every: &str, out: &Path) -> Output {
    bin()
        .args(["run", "--profile"])
        .arg(out)
        .args(["--profile-every", every])
        .arg(spec(&format!("{example}.qtl")))
        .arg(spec(&format!("{example}.csv")))
        .output()
        .expect("runs")
}

fn rows(path: &Path) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .expect("profile")
        .records()
        .map(|r| r.expect("row").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn spawning_profile_has_fixed_columns_and_a_final_row() {
    let out = tmp("spawning.csv");
    let o = profile("spawning", "5", &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = rows(&out);
    assert_eq!(
        rows[0],
        [
            "event",
            "seconds",
            "spawning/rule spawned",
            "spawning/@#8 spawned(x,y)",
            "spawning/@#9 spawned(x,z)",
            "spawning/x=spawned.x codes",
            "spawning/y=spawned.y=spawned.z codes",
            "spawning/d codes",
            "spawning/gc collections",
        ]
    );
    // Every 5 events, and the last event (18).
    let events: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(events, ["5", "10", "15", "18"]);
    // Live codes at the end: x in {root, a, b, c, other, p, o}, the ten
    // values of y and z, nine of d (no collection ran on this short trace).
    assert_eq!(rows[4][5..], ["7", "10", "9", "0"]);
    let seconds: Vec<f64> = rows[1..]
        .iter()
        .map(|r| r[1].parse().expect("seconds"))
        .collect();
    assert!(seconds.windows(2).all(|w| w[0] <= w[1]), "{seconds:?}");
    for r in &rows[1..] {
        assert_eq!(r.len(), rows[0].len());
        let nodes: usize = r[2].parse().expect("nodes");
        assert!(nodes > 0);
    }
}

#[test]
fn a_future_property_profiles_its_open_steps() {
    let out = tmp("responses.csv");
    let o = bin()
        .args(["run", "--profile"])
        .arg(&out)
        .args(["--profile-every", "4"])
        .arg(spec("responses.qtl"))
        .arg(spec("responses.timed.csv"))
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = rows(&out);
    assert_eq!(
        rows[0],
        [
            "event",
            "seconds",
            "answered/r codes",
            "answered/gc collections",
            "answered/open steps",
            "answered/future nodes",
            "quiet/r codes",
            "quiet/gc collections",
            "quiet/open steps",
            "quiet/future nodes",
        ]
    );
    let events: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(events, ["4", "8", "11"]);
    // After event 4 (time 4): request 1 (time 0) waits for time 5, and
    // every later step for it; cancel 3 at event 4 waits for time 14.
    assert_eq!(rows[1][4], "4");
    assert_eq!(rows[1][8], "1");
    // After event 11 (time 31): request 6 (time 30) and the step after it
    // for `answered`; cancel 5 (time 25) and the two after it for `quiet`.
    assert_eq!(rows[3][4], "2");
    assert_eq!(rows[3][8], "3");
    assert!(rows[3][5].parse::<usize>().expect("nodes") > 0);
}

#[test]
fn telemetry_profile_names_rules_and_operands_of_at() {
    let out = tmp("telemetry.csv");
    let o = profile("telemetry", "1000", &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = rows(&out);
    assert_eq!(
        rows[0],
        [
            "event",
            "seconds",
            "telemetry1/rule closed",
            "telemetry1/@#4 !closed(x)",
            "telemetry1/x=closed.x codes",
            "telemetry1/gc collections",
            "telemetry2/rule closed",
            "telemetry2/rule open",
            "telemetry2/@#18 true",
            "telemetry2/@#19 closed(x)",
            "telemetry2/@#20 open(x)",
            "telemetry2/@#21 open(x)",
            "telemetry2/@#22 closed(x)",
            "telemetry2/x=closed.x=open.x codes",
            "telemetry2/gc collections",
        ]
    );
    // Fewer events than the period: only the final row.
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0], "14");
}

#[test]
fn an_unwritable_profile_is_an_error_before_any_event() {
    let o = profile("spawning", "5", Path::new("/nonexistent-dir/profile.csv"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: cannot write /nonexistent-dir/profile.csv: "),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn a_zero_period_is_rejected() {
    let o = profile("spawning", "0", &tmp("zero.csv"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--profile-every"), "{}", stderr(&o));
}

#[test]
fn plot_draws_every_series_with_its_name() {
    let csv = tmp("plot.csv");
    profile("spawning", "2", &csv);
    let svg = tmp("plot.svg");
    let _ = std::fs::remove_file(&svg);
    let o = bin()
        .arg("plot")
        .arg(&csv)
        .arg("-o")
        .arg(&svg)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).expect("SVG written");
    assert!(text.starts_with("<svg"), "{}", &text[..100.min(text.len())]);
    for name in [
        "spawning/rule spawned (22)",
        "spawning/@#8 spawned(x,y) (= rule spawned)",
        "spawning/@#9 spawned(x,z) (= rule spawned)",
        "spawning/x=spawned.x codes (7)",
        "spawning/y=spawned.y=spawned.z codes (10)",
        "spawning/d codes (9)",
        "BDD nodes per summary",
        "live value codes per enumeration class",
        "elapsed time",
        "events processed",
    ] {
        assert!(text.contains(name), "{name} missing");
    }
    // No collections ran: no panel for them.
    assert!(!text.contains("gc collections"));
}

#[test]
fn plot_can_keep_one_property() {
    let csv = tmp("plot-telemetry.csv");
    profile("telemetry", "3", &csv);
    let svg = tmp("plot-telemetry1.svg");
    let o = bin()
        .arg("plot")
        .arg(&csv)
        .args(["--property", "telemetry1", "-o"])
        .arg(&svg)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).expect("SVG written");
    assert!(text.contains("telemetry1/rule closed"));
    assert!(!text.contains("telemetry2"));
    let o = bin()
        .arg("plot")
        .arg(&csv)
        .args(["--property", "nope", "-o"])
        .arg(tmp("nope.svg"))
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no series of a property `nope`"));
}

#[test]
fn plot_rejects_a_file_that_is_not_a_profile() {
    let bad = tmp("bad.csv");
    let plot = || {
        bin()
            .arg("plot")
            .arg(&bad)
            .arg("-o")
            .arg(tmp("bad.svg"))
            .output()
            .expect("runs")
    };
    std::fs::write(&bad, "event,seconds,p/x codes\n1,0.1,three\n").expect("write");
    let o = plot();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.csv:2: column `p/x codes` is not a number: `three`"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&bad, "open,1\n").expect("write");
    let o = plot();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a hindsight profile"),
        "{}",
        stderr(&o)
    );
}
