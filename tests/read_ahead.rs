//! An MFOTL run on a MonPoly log file that may use two threads (`--jobs
//! 2`) reads the log ahead, in a thread of its own (src/session/ahead.rs),
//! and so does a sequential QTL run on a CSV file
//! (src/session/ahead_events.rs); through a pipe, and with `--jobs 1`,
//! both read in the monitor's thread. Both print the same thing and exit with the same
//! status: on long logs (many batches), with a past and a future property,
//! at a bad time stamp, at an event that does not fit the signature (or
//! the specification), with `--skip-bad-lines`, and with `--stop-at-first`;
//! for QTL also over runs of repeated lines, with witnesses, `--strict` and
//! `--profile`.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{bin, scratch_file, stdout};

const SIG: &str = "req(r:int)\nresp(r:int)\n";

/// A log of `n` time-points, one time unit apart: at `t`, a request for
/// `t mod 50`, the answer to the request of `t - 3` unless `t` is a
/// multiple of 3, and at multiples of 7 an answer 10 units late.
fn log(n: u64) -> String {
    let mut text = String::new();
    for t in 0..n {
        text.push_str(&format!("@{t} req({})", t % 50));
        if t % 3 != 0 {
            text.push_str(&format!(" resp({})", (t + 47) % 50));
        }
        if t % 7 == 0 {
            text.push_str(&format!(" resp({})", (t + 40) % 50));
        }
        text.push('\n');
    }
    text
}

/// `run --jobs 2 ARGS... SPEC --sig SIG` on the file `log`, and on the
/// same log given on standard input.
fn both(dir: &str, formula: &str, log: &str, args: &[&str]) -> [Output; 2] {
    let sig = scratch_file(dir, "spec.sig", SIG);
    let sig = sig.to_string_lossy().into_owned();
    let mut all = vec!["--jobs", "2"];
    all.extend_from_slice(args);
    runs(dir, ("spec.mfotl", formula), &["--sig", &sig], log, &all)
}

/// `run ARGS... SPEC AFTER...` (`spec`: the file's name and text) on the
/// file `log`, and on the same log given on standard input.
fn runs(dir: &str, spec: (&str, &str), after: &[&str], log: &str, args: &[&str]) -> [Output; 2] {
    let spec = scratch_file(dir, spec.0, spec.1);
    let file = scratch_file(dir, "trace.log", log);
    let run = |input: Option<&Path>| {
        let mut cmd = bin();
        cmd.arg("run").args(args).arg(&spec).args(after);
        match input {
            Some(path) => cmd.arg(path).output().expect("runs"),
            None => {
                let mut child = cmd
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("runs");
                if let Some(mut stdin) = child.stdin.take() {
                    // A run that stops early closes its input: not an error.
                    let _ = stdin.write_all(log.as_bytes());
                }
                child.wait_with_output().expect("runs")
            }
        }
    };
    [run(Some(&file)), run(None)]
}

/// `text` with the trace's name (its path, or `<stdin>`) as `TRACE`.
fn unnamed(text: &str) -> String {
    let text = text.replace("<stdin>", "TRACE");
    let line = |l: &str| match l.find("trace.log") {
        // The path of the file, as a word.
        Some(at) => {
            let start = l[..at].rfind(' ').map_or(0, |i| i + 1);
            format!("{}TRACE{}", &l[..start], &l[at + "trace.log".len()..])
        }
        None => l.to_owned(),
    };
    text.lines().map(line).collect::<Vec<_>>().join("\n")
}

/// The output without the time taken and the trace's name.
fn shown(o: &Output) -> String {
    unnamed(&stdout(o))
        .lines()
        .filter(|l| !l.starts_with("garbage collections:"))
        .map(|l| match l.split_once(" in ") {
            Some((head, _)) if l.starts_with("events processed:") => head,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts the two runs agree, and returns the file's output.
fn agree(runs: &[Output; 2]) -> String {
    let [file, piped] = runs;
    assert_eq!(file.status.code(), piped.status.code(), "exit status");
    assert_eq!(shown(file), shown(piped));
    let error = |o: &Output| {
        common::stderr(o)
            .lines()
            .filter(|l| l.starts_with("error"))
            .map(unnamed)
            .collect::<Vec<_>>()
    };
    assert_eq!(error(file), error(piped));
    shown(file)
}

#[test]
fn a_long_log_gives_the_same_satisfactions_read_ahead_or_not() {
    let log = log(3000);
    for (dir, formula) in [
        ("ahead-future", "req(r) AND NOT EVENTUALLY[0,3] resp(r)"),
        ("ahead-past", "resp(r) AND NOT ONCE[0,3] req(r)"),
    ] {
        let runs = both(dir, formula, &log, &[]);
        let out = agree(&runs);
        assert_eq!(runs[0].status.code(), Some(1));
        let count = out.lines().filter(|l| l.starts_with('@')).count();
        assert!(count > 300, "{dir}: {count} satisfactions");
    }
}

#[test]
fn the_first_satisfaction_is_at_the_same_time_point() {
    let log = log(3000);
    let formula = "req(r) AND NOT EVENTUALLY[0,3] resp(r)";
    let out = agree(&both("ahead-first", formula, &log, &["--stop-at-first"]));
    let first: Vec<&str> = out.lines().filter(|l| l.starts_with('@')).collect();
    // Time-point 0 requests 0, which no response answers by time 3.
    assert_eq!(first, ["@0 (time point 0): (0)"]);
    // The run stopped there: the time-points held are not closed as at
    // the end of the log (time-point 1 was decided, 2 to 4 were not).
    assert!(
        out.contains("property spec: 1 violation (first at event 1)"),
        "{out}"
    );
    assert!(
        out.contains("undecided at the end of the trace: 3 events (3, 4, 5)"),
        "{out}"
    );
}

#[test]
fn a_bad_time_stamp_ends_both_runs_at_its_line() {
    let mut log = log(1000);
    log.push_str("@12x req(1)\n");
    log.push_str(&self::log(10));
    let runs = both(
        "ahead-bad-time",
        "resp(r) AND NOT ONCE[0,3] req(r)",
        &log,
        &[],
    );
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains("line 1001"), "{err}");
}

#[test]
fn an_event_off_the_signature_is_an_error_or_skipped() {
    let mut log = log(700);
    // Line 701: a string where the signature says int.
    log.push_str("@700 req(\"x\") resp(3)\n");
    log.push_str("@701 req(5)\n");
    let formula = "resp(r) AND NOT ONCE[0,3] req(r)";
    let runs = both("ahead-misfit", formula, &log, &[]);
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains("line 701"), "{err}");
    // Skipped, the rest is monitored the same way.
    let runs = both("ahead-misfit-skip", formula, &log, &["--skip-bad-lines"]);
    let out = agree(&runs);
    assert!(out.contains("bad lines skipped: 1 (line 701)"), "{out}");
    assert!(out.contains("events processed: 701"), "{out}");
}

/// Locks taken and released: a release is bad unless its lock was taken
/// since it was last released. (Lock 99, which the logs never release,
/// may always be: `rel` then appears without the quantified lock, so the
/// property cannot be sliced by lock and a run with two jobs stays
/// sequential, reading ahead.)
const LOCKS: &str = "prop released : Forall l . rel(l) -> (@ (!rel(l) S acq(l)) | rel(99))\n";

/// `n` lines of acquisitions and releases of locks 0 to 4 and `tick`s, in
/// runs of 1 to 6 repeated lines (so that runs of repeats cross batches),
/// from a fixed seed; `timed` ends each line with a time stamp that grows
/// by one per run.
fn locks_log(n: usize, timed: bool) -> String {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |m: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % m
    };
    let mut text = String::new();
    let (mut lines, mut time) = (0, 0);
    while lines < n {
        let record = match next(3) {
            0 => format!("acq,{}", next(5)),
            1 => format!("rel,{}", next(5)),
            _ => "tick".to_owned(),
        };
        time += 1;
        for _ in 0..=next(6) {
            text.push_str(&record);
            if timed {
                text.push_str(&format!(",{time}"));
            }
            text.push('\n');
            lines += 1;
        }
    }
    text
}

/// [`runs`] of the QTL `spec` on a CSV `log`, two jobs (sequential: see
/// [`LOCKS`]).
fn qtl(dir: &str, spec: &str, log: &str, args: &[&str]) -> [Output; 2] {
    let mut all = vec!["--jobs", "2"];
    all.extend_from_slice(args);
    runs(dir, ("spec.qtl", spec), &[], log, &all)
}

#[test]
fn a_qtl_run_over_repeated_lines_gives_the_same_violations_read_ahead_or_not() {
    let log = locks_log(5000, false);
    for (dir, args) in [
        ("ahead-qtl", &[][..]),
        ("ahead-qtl-witness", &["--witness"][..]),
        ("ahead-qtl-all", &["--all-witnesses"][..]),
        ("ahead-qtl-first", &["--stop-at-first"][..]),
    ] {
        let runs = qtl(dir, LOCKS, &log, args);
        let out = agree(&runs);
        assert_eq!(runs[0].status.code(), Some(1), "{dir}");
        let count = out
            .lines()
            .filter(|l| l.contains("violated at event"))
            .count();
        if dir.ends_with("first") {
            assert_eq!(count, 1, "{dir}: {out}");
        } else {
            assert!(count > 500, "{dir}: {count} violations");
        }
    }
}

#[test]
fn repeats_of_a_violating_line_are_each_reported_at_their_own_line() {
    let log = "acq,1\nrel,1\nrel,1\nrel,1\nrel,1\ntick\ntick\nacq,1\nrel,1\n";
    let runs = qtl("ahead-qtl-repeats", LOCKS, log, &[]);
    let out = agree(&runs);
    let events = common::violation_events(&runs[0]);
    assert_eq!(events, [3, 4, 5], "{out}");
    // A profile samples every step: the same violations, one step each.
    let profile = common::scratch_dir("ahead-qtl-repeats").join("profile.csv");
    let profile = profile.to_string_lossy().into_owned();
    let runs = qtl("ahead-qtl-repeats", LOCKS, log, &["--profile", &profile]);
    agree(&runs);
    assert_eq!(common::violation_events(&runs[0]), [3, 4, 5]);
}

#[test]
fn a_bad_line_ends_a_qtl_run_at_its_line_or_is_skipped() {
    let mut log = locks_log(1500, false);
    let bad = log.lines().count() + 1;
    // A rel with two arguments, then an acq with none.
    log.push_str("rel,1,2\nacq\nrel,4\n");
    log.push_str(&locks_log(700, false));
    let runs = qtl("ahead-qtl-bad", LOCKS, &log, &[]);
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains(&format!("line {bad}:")), "{err}");
    let runs = qtl("ahead-qtl-bad-skip", LOCKS, &log, &["--skip-bad-lines"]);
    let out = agree(&runs);
    let skipped = format!("bad lines skipped: 2 (lines {bad}, {})", bad + 1);
    assert!(out.contains(&skipped), "{out}");
    let events = log.lines().count() - 2;
    assert!(
        out.contains(&format!("events processed: {events}\n")),
        "{out}"
    );
}

#[test]
fn an_unknown_event_is_an_error_with_strict_and_so_is_time_going_back_with_strict_time() {
    let mut log = locks_log(900, false);
    let unknown = log.lines().count() + 1;
    log.push_str("open,3\n");
    log.push_str(&locks_log(100, false));
    let spec = format!("{LOCKS}prop ticks : tick -> !(@ tick & @ @ tick)\n");
    let runs = qtl("ahead-qtl-strict", &spec, &log, &["--strict"]);
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains(&format!("line {unknown}:")), "{err}");
    let mut log = locks_log(900, true);
    let back = log.lines().count() + 1;
    log.push_str("acq,2,3\n");
    let runs = qtl("ahead-qtl-back", LOCKS, &log, &["--timed", "--strict-time"]);
    agree(&runs);
    assert_eq!(runs[0].status.code(), Some(2));
    let err = common::stderr(&runs[0]);
    assert!(err.contains(&format!("line {back}:")), "{err}");
}

/// Tells each violation's event number over a channel.
struct Tell(std::sync::mpsc::Sender<u64>);

impl hindsight::session::Report for Tell {
    fn violation(
        &mut self,
        v: &hindsight::session::Violation<'_>,
        _: Option<&[(String, hindsight::session::WitnessValue)]>,
    ) -> std::io::Result<()> {
        let _ = self.0.send(v.event);
        Ok(())
    }
}

/// A named pipe given to `Session::run_file` is a live stream: a violation
/// is reported once its event has come, not when a batch has filled or
/// the stream has ended.
#[cfg(unix)]
#[test]
fn a_named_pipe_is_read_as_it_comes() {
    use hindsight::session::{Session, SessionOptions};
    use std::time::Duration;
    let fifo = common::scratch_dir("ahead-fifo").join("live.csv");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let (tell, told) = std::sync::mpsc::channel();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new()
                .write(true)
                .open(&fifo)
                .expect("the pipe opens");
            pipe.write_all(b"acq,1\nrel,1\nrel,1\n").expect("written");
            // The stream stays open until the violation at event 3 is
            // reported (or long after it should have been).
            let first = told.recv_timeout(Duration::from_secs(30)).ok();
            pipe.write_all(b"acq,2\n").expect("written");
            first
        })
    };
    let options = SessionOptions {
        jobs: 2,
        ..SessionOptions::default()
    };
    let session = Session::from_source(LOCKS, options).expect("loads");
    let outcome = session.run_file(&fifo, &mut Tell(tell)).expect("opens");
    assert_eq!(writer.join().expect("the writer ends"), Some(3));
    assert_eq!(outcome.summary.events, 4);
}

/// Standard input redirected from a file is read ahead as a named file
/// is (with two jobs and with the default, where this specification stays
/// sequential; with one job, in the monitor's thread): the same output as
/// through a pipe.
#[test]
fn standard_input_from_a_file_is_read_as_the_file() {
    let log = locks_log(3000, false);
    for (dir, args) in [
        ("ahead-stdin-file", &["--jobs", "2"][..]),
        ("ahead-stdin-file-one", &["--jobs", "1"][..]),
        ("ahead-stdin-file-default", &[][..]),
        (
            "ahead-stdin-file-witness",
            &["--witness", "--stop-at-first"][..],
        ),
    ] {
        let [_, piped] = runs(dir, ("spec.qtl", LOCKS), &[], &log, args);
        let spec = common::scratch_dir(dir).join("spec.qtl");
        let file = common::scratch_dir(dir).join("trace.log");
        let redirected = bin()
            .arg("run")
            .args(args)
            .arg(&spec)
            .stdin(std::fs::File::open(&file).expect("opens"))
            .output()
            .expect("runs");
        let out = agree(&[redirected, piped]);
        assert!(out.contains("property released: "), "{dir}: {out}");
    }
}
