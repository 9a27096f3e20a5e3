//! End-to-end tests of `hindsight run --witness` on the examples in `specs/`:
//! the exact witness of every violation, in text and in JSON lines.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn spec(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("specs")
        .join(name)
}

fn run(args: &[&str], example: &str) -> Output {
    common::bin()
        .arg("run")
        .args(args)
        .arg(spec(&format!("{example}.qtl")))
        .arg(spec(&format!("{example}.csv")))
        .output()
        .expect("runs")
}

/// The violation lines of a text run with `--witness`.
fn text_violations(example: &str) -> Vec<String> {
    let out = run(&["--witness"], example);
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("property ") && l.contains(" violated at "))
        .map(str::to_string)
        .collect()
}

/// `(property, event, witness)` of every violation of a JSON run.
fn json_witnesses(example: &str) -> Vec<(String, u64, serde_json::Value)> {
    let out = run(&["--witness", "--report", "json"], example);
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|o| o["kind"] == "violation")
        .map(|o| {
            (
                o["property"].as_str().expect("name").to_string(),
                o["event"].as_u64().expect("event"),
                o["witness"].clone(),
            )
        })
        .collect()
}

#[test]
fn auction_witnesses_in_text() {
    assert_eq!(
        text_violations("auction"),
        [
            // b: the first earlier bid on the lamp that is not below 700.
            "property increasing violated at event 6: bid(lamp, 700); witness: i=lamp a=700 b=700",
            "property increasing violated at event 7: bid(vase, 90); witness: i=vase a=90 b=90",
            "property noBidAfterSale violated at event 10: bid(lamp, 1200); witness: i=lamp a=1200",
            "property reserveMet violated at event 11: sold(vase); witness: i=vase",
            "property noBidAfterSale violated at event 13: bid(vase, 95); witness: i=vase a=95",
            "property reserveMet violated at event 14: sold(clock); witness: i=clock",
        ]
    );
}

#[test]
fn locks_witnesses_in_text() {
    assert_eq!(
        text_violations("locks"),
        [
            "property releaseOnlyHeld violated at event 5: release(12, door); witness: t=12 l=door",
            // Threads 3 and 12 both hold the door; t < u orders them.
            "property exclusive violated at event 6: acquire(12, door); witness: l=door t=3 u=12",
            "property releaseOnlyHeld violated at event 7: release(7, vault); witness: t=7 l=vault",
            // Still the door, whatever the current event is about.
            "property exclusive violated at event 7: release(7, vault); witness: l=door t=3 u=12",
            "property exclusive violated at event 9: acquire(7, vault); witness: l=vault t=7 u=12",
            "property releaseOnlyHeld violated at event 12: release(7, vault); witness: t=7 l=vault",
        ]
    );
}

#[test]
fn spawning_witnesses_in_text() {
    assert_eq!(
        text_violations("spawning"),
        [
            "property spawning violated at event 6: report(root, c, 1); witness: x=c y=root d=1",
            "property spawning violated at event 9: report(e, root, 3); witness: x=root y=e d=3",
            "property spawning violated at event 11: report(e, root, 4); witness: x=root y=e d=4",
            "property spawning violated at event 14: report(a, a, 0); witness: x=a y=a d=0",
            "property spawning violated at event 17: report(q, o, 8); witness: x=o y=q d=8",
        ]
    );
}

#[test]
fn auction_witnesses_in_json() {
    use serde_json::json;
    assert_eq!(
        json_witnesses("auction"),
        [
            (
                "increasing".into(),
                6,
                json!({"i": "lamp", "a": "700", "b": "700"})
            ),
            (
                "increasing".into(),
                7,
                json!({"i": "vase", "a": "90", "b": "90"})
            ),
            (
                "noBidAfterSale".into(),
                10,
                json!({"i": "lamp", "a": "1200"})
            ),
            ("reserveMet".into(), 11, json!({"i": "vase"})),
            ("noBidAfterSale".into(), 13, json!({"i": "vase", "a": "95"})),
            ("reserveMet".into(), 14, json!({"i": "clock"})),
        ]
    );
}

#[test]
fn locks_witnesses_in_json() {
    use serde_json::json;
    assert_eq!(
        json_witnesses("locks"),
        [
            ("releaseOnlyHeld".into(), 5, json!({"t": "12", "l": "door"})),
            (
                "exclusive".into(),
                6,
                json!({"l": "door", "t": "3", "u": "12"})
            ),
            ("releaseOnlyHeld".into(), 7, json!({"t": "7", "l": "vault"})),
            (
                "exclusive".into(),
                7,
                json!({"l": "door", "t": "3", "u": "12"})
            ),
            (
                "exclusive".into(),
                9,
                json!({"l": "vault", "t": "7", "u": "12"})
            ),
            (
                "releaseOnlyHeld".into(),
                12,
                json!({"t": "7", "l": "vault"})
            ),
        ]
    );
}

#[test]
fn spawning_witnesses_in_json() {
    use serde_json::json;
    assert_eq!(
        json_witnesses("spawning"),
        [
            (
                "spawning".into(),
                6,
                json!({"x": "c", "y": "root", "d": "1"})
            ),
            (
                "spawning".into(),
                9,
                json!({"x": "root", "y": "e", "d": "3"})
            ),
            (
                "spawning".into(),
                11,
                json!({"x": "root", "y": "e", "d": "4"})
            ),
            ("spawning".into(), 14, json!({"x": "a", "y": "a", "d": "0"})),
            ("spawning".into(), 17, json!({"x": "o", "y": "q", "d": "8"})),
        ]
    );
}

#[test]
fn without_the_flag_there_is_no_witness() {
    let out = run(&[], "locks");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("property exclusive violated at event 6: acquire(12, door)\n"));
    assert!(!text.contains("witness"), "{text}");
    let out = run(&["--report", "json"], "locks");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("witness"));
}

#[test]
fn an_unseen_value_is_spelled_out_in_text_and_null_in_json() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("witness");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let qtl = dir.join("all.qtl");
    let csv = dir.join("all.csv");
    std::fs::write(&qtl, "prop everyUserLoggedIn : Forall u . P login(u)\n").expect("write");
    std::fs::write(&csv, "login,ann\n").expect("write");
    let bin = common::bin;
    let out = bin()
        .args(["run", "--witness"])
        .arg(&qtl)
        .arg(&csv)
        .output()
        .expect("runs");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(
            "property everyUserLoggedIn violated at event 1: login(ann); witness: u=<any unseen value>\n"
        )
    );
    let out = bin()
        .args(["run", "--witness", "--report", "json"])
        .arg(&qtl)
        .arg(&csv)
        .output()
        .expect("runs");
    let first: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .expect("a line"),
    )
    .expect("JSON");
    assert_eq!(first["witness"], serde_json::json!({"u": null}));
}

#[test]
fn witnesses_are_the_same_with_and_without_garbage_collection() {
    for example in ["auction", "locks", "spawning"] {
        let never = run(&["--witness", "--gc", "never"], example);
        let always = run(&["--witness", "--gc", "always"], example);
        let lines = |o: &Output| -> Vec<String> {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter(|l| l.contains("; witness: "))
                .map(str::to_string)
                .collect()
        };
        assert!(!lines(&never).is_empty());
        assert_eq!(lines(&never), lines(&always), "{example}");
    }
}

fn scratch(name: &str, contents: &str) -> PathBuf {
    common::scratch_file("witness", name, contents)
}

fn hindsight(args: &[&std::ffi::OsStr]) -> Output {
    common::bin().args(args).output().expect("runs")
}

#[test]
fn a_nested_quantifier_is_blamed_by_both_options() {
    let spec = scratch(
        "nested.qtl",
        "prop p : shutdown() -> Forall f . !([open(f), close(f)))",
    );
    let trace = scratch("nested.csv", "open,a\nopen,b\nclose,a\nopen,c\nshutdown\n");
    let run = |opts: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref()];
        args.extend(opts.iter().map(std::ffi::OsStr::new));
        args.push(spec.as_os_str());
        args.push(trace.as_os_str());
        let o = hindsight(&args);
        assert_eq!(o.status.code(), Some(1));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        run(&["--witness"]),
        "property p violated at event 5: shutdown; witness: f=b"
    );
    assert_eq!(
        run(&["--all-witnesses"]),
        "property p violated at event 5: shutdown; 2 witnesses: f=b | f=c"
    );
    let v: serde_json::Value =
        serde_json::from_str(&run(&["--all-witnesses", "--json"])).expect("JSON");
    assert_eq!(v["witness_count"], 2);
    assert_eq!(v["witnesses"], serde_json::json!([{"f": "b"}, {"f": "c"}]));
}

#[test]
fn a_time_point_violation_names_the_event_it_is_due_to() {
    let spec = scratch("tp.qtl", "prop p : Forall f . close(f) -> @ P open(f)");
    let trace = scratch(
        "tp.log",
        "@1 open(a) open(b)\n@2 close(a) close(c) close(b)\n",
    );
    let o = hindsight(&[
        "run".as_ref(),
        "--timepoints".as_ref(),
        "--witness".as_ref(),
        spec.as_os_str(),
        trace.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        out.lines().next(),
        Some("property p violated at event 2 at time 2: close(c); witness: f=c"),
        "{out}"
    );
    // Due to no one event (what the time-point lacks): its first event,
    // or `@` for a time-point without events.
    let spec = scratch("lack.qtl", "prop q : Forall f . P open(f)");
    let trace = scratch("lack.log", "@1\n@2 close(a) open(a)\n");
    let o = hindsight(&[
        "run".as_ref(),
        "--timepoints".as_ref(),
        spec.as_os_str(),
        trace.as_os_str(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" violated at "))
        .collect();
    assert_eq!(
        lines,
        vec![
            "property q violated at event 1 at time 1: @",
            "property q violated at event 2 at time 2: close(a)",
        ]
    );
}
