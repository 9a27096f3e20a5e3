//! A trace from a pipe on the parallel path: `--jobs 2` and `--jobs 3`
//! print what `--jobs 1` prints on the same trace as a file, byte for byte
//! but for the time taken and the collection counts (which differ, so the
//! parallel engine ran), also when the writer pauses mid-trace (blocks then
//! end where the stream waits); and the verdicts of the events written so
//! far show while the writer waits.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::options::{ACCESS, FILES, access_log, files, split};
use super::{common, run, temp_dir, write};

/// `hindsight run --jobs=JOBS EXTRA... SPEC TRACE_ARG`, its standard input
/// a pipe (its output too), started.
fn start(spec: &Path, trace_arg: &str, jobs: usize, extra: &[&str]) -> Child {
    common::bin()
        .arg("run")
        .arg(format!("--jobs={jobs}"))
        .args(extra)
        .arg(spec)
        .arg(trace_arg)
        .env_remove("HINDSIGHT_JOBS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs")
}

/// [`start`], with `text` written to its standard input in pieces of
/// `piece` lines, `pause` apart.
fn piped(
    spec: &Path,
    trace_arg: &str,
    text: &str,
    jobs: usize,
    extra: &[&str],
    (piece, pause): (usize, Duration),
) -> Output {
    let mut child = start(spec, trace_arg, jobs, extra);
    let mut stdin = child.stdin.take().expect("a pipe");
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    let writer = std::thread::spawn(move || {
        for chunk in lines.chunks(piece) {
            // The run may end before the trace does (an error).
            if stdin.write_all(chunk.concat().as_bytes()).is_err() {
                return;
            }
            let _ = stdin.flush();
            std::thread::sleep(pause);
        }
    });
    let o = child.wait_with_output().expect("runs");
    writer.join().expect("the writer");
    o
}

/// With each option set of `extras`: the trace `text` piped to 2 and 3
/// jobs (in one go, and in pieces with pauses) gives the output, errors
/// and exit status of 1 job on it as the file `trace`, named `<stdin>`;
/// the run is parallel (its collection counts differ).
fn same_as_sequential(spec: &Path, trace: &Path, extras: &[&[&str]]) {
    let text = std::fs::read_to_string(trace).expect("the trace");
    let name = trace.to_str().expect("UTF-8");
    for &extra in extras {
        let json: Vec<&str> = extra
            .iter()
            .copied()
            .chain(["--json", "--gc", "always"])
            .collect();
        let first = run(spec, trace, 1, &json);
        let (want, gc1) = split(&first);
        let want = want.replace(name, "<stdin>");
        let want_err = common::stderr(&first).replace(name, "<stdin>");
        assert!(want.lines().count() > 3, "{extra:?}: {want}");
        let whole = (usize::MAX, Duration::ZERO);
        let paused = (9_000, Duration::from_millis(40));
        for (jobs, pieces) in [(2, whole), (3, whole), (2, paused)] {
            let o = piped(spec, "-", &text, jobs, &json, pieces);
            let what = format!("{extra:?} --jobs {jobs}, pieces {pieces:?}");
            assert_eq!(o.status.code(), first.status.code(), "{what}");
            let (got, gc) = split(&o);
            assert_eq!(got, want, "{what}");
            assert_eq!(common::stderr(&o), want_err, "{what}");
            assert_ne!(gc, gc1, "{what}: not a parallel run");
        }
    }
}

#[test]
fn a_piped_trace_gives_the_sequential_output() {
    let dir = temp_dir("streams-access");
    let spec = write(&dir, "access.qtl", ACCESS);
    let trace = write(&dir, "access.csv", &access_log(60_000));
    same_as_sequential(&spec, &trace, &[&[], &["--witness"], &["--all-witnesses"]]);
}

#[test]
fn errors_and_bad_lines_of_a_piped_trace_are_the_sequential_ones() {
    let dir = temp_dir("streams-errors");
    let spec = write(&dir, "files.qtl", FILES);
    // Bad lines here and there, an unknown name (an error with --strict),
    // and an event of another arity far into the trace (the end of a run
    // that does not skip it).
    let mut bad: Vec<(usize, &str)> = Vec::new();
    for k in 0..10 {
        bad.push((k * 5_000 + 3, ",x"));
        bad.push((k * 5_000 + 2_002, "unknown,x"));
    }
    bad.push((52_000, "open,a,b"));
    let trace = write(&dir, "files.csv", &files(60_000, &bad));
    same_as_sequential(
        &spec,
        &trace,
        &[&["--skip-bad-lines"], &["--skip-bad-lines", "--strict"]],
    );
    let ended = write(
        &dir,
        "ended.csv",
        &files(60_000, &[(45_000, "unknown,x"), (50_000, "open,a,b")]),
    );
    // (Without --strict, the arity error: `standard_input_is_read_in_parallel`.)
    same_as_sequential(&spec, &ended, &[&["--strict"]]);
    let o = piped(
        &spec,
        "-",
        &files(60_000, &[(52_000, "open,a,b")]),
        2,
        &[],
        (usize::MAX, Duration::ZERO),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("<stdin>:line 52001: "),
        "{}",
        common::stderr(&o)
    );
    assert!(
        common::stdout(&o).contains("events processed: 52000 in "),
        "{}",
        common::stdout(&o)
    );
}

#[test]
fn a_pipe_named_as_the_trace_is_read_in_parallel() {
    // `/dev/stdin` is the pipe: a trace named on the command line that is
    // not a regular file (as `<(zcat log.gz)` is).
    let dir = temp_dir("streams-named");
    let spec = write(&dir, "files.qtl", FILES);
    let trace = write(&dir, "files.csv", &files(50_000, &[]));
    let text = std::fs::read_to_string(&trace).expect("the trace");
    let json = ["--json", "--gc", "always"];
    let (want, gc1) = split(&run(&spec, &trace, 1, &json));
    let whole = (usize::MAX, Duration::ZERO);
    let o = piped(&spec, "/dev/stdin", &text, 2, &json, whole);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let (got, gc) = split(&o);
    assert_eq!(got, want);
    assert_ne!(gc, gc1, "not a parallel run");
}

#[test]
fn the_verdicts_of_a_stream_show_while_it_waits() {
    // The writer writes a few events (a violation of `closed` at event 4),
    // then waits until the run has printed that violation (or 20 s), then
    // writes the rest: the violation must come while the writer waits.
    let dir = temp_dir("streams-online");
    let spec = write(&dir, "files.qtl", FILES);
    let head = "open,a\nclose,a\nopen,b\nclose,c\n";
    let tail = files(30_000, &[]);
    let trace = write(&dir, "whole.csv", &format!("{head}{tail}"));
    let json = ["--json", "--gc", "always"];
    let mut child = start(&spec, "-", 2, &json);
    let mut stdin = child.stdin.take().expect("a pipe");
    let stdout = child.stdout.take().expect("a pipe");
    let seen = Arc::new(AtomicBool::new(false));
    let rest_written = Arc::new(AtomicBool::new(false));
    let (seen_w, rest_w) = (Arc::clone(&seen), Arc::clone(&rest_written));
    let writer = std::thread::spawn(move || {
        stdin.write_all(head.as_bytes())?;
        stdin.flush()?;
        for _ in 0..2_000 {
            if seen_w.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        rest_w.store(true, Ordering::SeqCst);
        stdin.write_all(tail.as_bytes())
    });
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().expect("a line").expect("text");
    let early = !rest_written.load(Ordering::SeqCst);
    seen.store(true, Ordering::SeqCst);
    assert!(
        first.contains(r#""event":4,"#) && first.contains(r#""property":"closed""#),
        "{first}"
    );
    assert!(early, "the violation came after the rest of the trace");
    let rest: Vec<String> = lines.map(|l| l.expect("text")).collect();
    writer.join().expect("the writer").expect("written");
    let status = child.wait().expect("ends");
    // The whole output is the sequential run's on the file, from a
    // parallel run.
    let sequential = run(&spec, &trace, 1, &json);
    assert_eq!(status.code(), sequential.status.code());
    let o = Output {
        status,
        stdout: format!("{first}\n{}\n", rest.join("\n")).into_bytes(),
        stderr: Vec::new(),
    };
    let ((got, gc), (want, gc1)) = (split(&o), split(&sequential));
    assert_eq!(got, want);
    assert_ne!(gc, gc1, "not a parallel run");
}

#[test]
fn a_run_whose_output_closes_ends_while_its_stream_waits() {
    // The writer keeps the pipe open after 9,000 violations (fewer blocks
    // than the merger's queue holds: once they are read, the reading waits
    // for the writer); the reader of the output goes away after one line. The run must end (as
    // a sequential one does) rather than wait for more of the stream.
    let dir = temp_dir("streams-closed");
    let spec = write(&dir, "files.qtl", FILES);
    let text: String = (0..9_000)
        .map(|i| format!("close,f{}\n", i % 300))
        .collect();
    for jobs in [1, 2, 3] {
        let mut child = start(&spec, "-", jobs, &[]);
        let mut stdin = child.stdin.take().expect("a pipe");
        stdin.write_all(text.as_bytes()).expect("written");
        stdin.flush().expect("flushed");
        let stdout = child.stdout.take().expect("a pipe");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().map(|l| l.expect("text"));
        assert_eq!(
            first.as_deref(),
            Some("property closed violated at event 1: close(f0)")
        );
        // Time to read the whole stream (the output pipe full meanwhile);
        // then the output is closed, and the stream stays open.
        std::thread::sleep(Duration::from_secs(1));
        drop(lines);
        let mut ended = None;
        for _ in 0..2_000 {
            ended = child.try_wait().expect("waits");
            if ended.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        drop(stdin);
        assert!(ended.is_some(), "--jobs {jobs}: still running");
    }
}
