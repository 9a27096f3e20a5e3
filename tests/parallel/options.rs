//! Options on the parallel path: `--jobs 2` and `--jobs 3` print what
//! `--jobs 1` prints, byte for byte but for the time taken and the
//! collection counts (summed over the monitors of a parallel run, which
//! also tells that the parallel engine ran), on traces long enough that the
//! workers read them in turn and the layout is revised on the sample.

use std::path::Path;
use std::process::Output;

use super::{comparable, run, temp_dir, write};

/// Access control: `access` guards both variables, `close` the one of
/// `f`: the violating event gives each witness.
pub(super) const ACCESS: &str = "prop access : Forall user . Forall file . access(user, file) -> \
                      [login(user), logout(user)) & [open(file), close(file))\n\
                      prop closing : Forall f . close(f) -> Exists m . @ [grant(f, m), close(f))\n";

/// `n` rounds of 50 users and 20 files logging in and out, opening and
/// closing, with an access now and then: some by a user logged out or to a
/// file closed (violations of `access`), a close of a file not open
/// (violations of `closing`), and values that a witness quotes.
pub(super) fn access_log(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        let (u, f) = (i % 50, i % 20);
        let user = if i % 7 == 3 {
            format!("\"u {u}\"")
        } else {
            format!("u{u}")
        };
        match i % 9 {
            0 => t.push_str(&format!("login,{user}\n")),
            1 => {
                let mode = if i % 2 == 0 { "r" } else { "w" };
                t.push_str(&format!("open,f{f}\ngrant,f{f},{mode}\n"));
            }
            2..=4 => t.push_str(&format!("access,{user},f{f}\n")),
            5 if i % 4 == 1 => t.push_str(&format!("logout,{user}\n")),
            6 if i % 5 == 0 => t.push_str(&format!("close,f{f}\n")),
            7 if i % 1001 == 7 => t.push_str(&format!("close,g{i}\naccess,{user},g{i}\n")),
            _ => t.push_str(&format!("login,{user}\n")),
        }
    }
    t
}

/// Standard output without the time taken, and the summary's collection
/// counts (text or JSON) apart.
pub(super) fn split(o: &Output) -> (String, String) {
    let text = comparable(o);
    let mut gc = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(mut v) if v.get("seconds").is_some() => {
                gc = format!("{} {}", v["collections"], v["codes_released"]);
                v["seconds"] = 0.into();
                v["collections"] = 0.into();
                v["codes_released"] = 0.into();
                out.push(v.to_string());
            }
            _ => out.push(line.to_string()),
        }
    }
    (out.join("\n"), gc)
}

/// Each option set of `extras` on 2 and 3 jobs gives the output, errors and
/// exit status of 1 job; `parallel` says whether the collection counts
/// differ (a parallel run) or not (the sequential engine).
pub(super) fn same_as_sequential(spec: &Path, trace: &Path, extras: &[&[&str]], parallel: bool) {
    for &extra in extras {
        let json: Vec<&str> = extra
            .iter()
            .copied()
            .chain(["--json", "--gc", "always"])
            .collect();
        let first = run(spec, trace, 1, &json);
        let (want, gc1) = split(&first);
        assert!(want.lines().count() > 3, "{extra:?}: {want}");
        let text = run(spec, trace, 1, extra);
        for jobs in [2, 3] {
            let o = run(spec, trace, jobs, &json);
            assert_eq!(
                o.status.code(),
                first.status.code(),
                "{extra:?} --jobs {jobs}"
            );
            let (got, gc) = split(&o);
            assert_eq!(got, want, "{extra:?} --jobs {jobs}");
            assert_eq!(o.stderr, first.stderr, "{extra:?} --jobs {jobs}");
            assert_eq!(
                gc != gc1,
                parallel,
                "{extra:?} --jobs {jobs}: {gc} against {gc1}"
            );
            let o = run(spec, trace, jobs, extra);
            assert_eq!(comparable(&o), comparable(&text), "{extra:?} --jobs {jobs}");
        }
    }
}

#[test]
fn witnesses_of_a_parallel_run_are_the_sequential_ones() {
    let dir = temp_dir("options-witness");
    let spec = write(&dir, "access.qtl", ACCESS);
    let trace = write(&dir, "access.csv", &access_log(60_000));
    let extras: [&[&str]; 4] = [
        &["--witness"],
        &["--all-witnesses"],
        &["--all-witnesses", "--max-witnesses", "1", "--witness"],
        &["--witness", "--segments", "always"],
    ];
    same_as_sequential(&spec, &trace, &extras, true);
    // The witnesses themselves, at the first violations of each property.
    let o = run(&spec, &trace, 2, &["--witness"]);
    assert_eq!(o.status.code(), Some(1));
    let text = comparable(&o);
    assert!(
        text.contains(
            "property access violated at event 4: access(u2, f2); witness: user=u2 file=f2\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "property access violated at event 5: access(u 3, f3); witness: user=\"u 3\" file=f3\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("property closing violated at event 9: close(g7); witness: f=g7\n"),
        "{text}"
    );
}

#[test]
fn witnesses_that_the_event_does_not_give_are_found_sequentially() {
    // `l` is not bound by `sleep(t)`: the witness depends on the state.
    let dir = temp_dir("options-witness-whole");
    let spec = write(
        &dir,
        "locks.qtl",
        "prop sleeping : Forall t . Forall l . sleep(t) -> ![acq(t,l),rel(t,l))\n\
         prop once : Forall t . Forall l . acq(t, l) -> ! @ [acq(t,l),rel(t,l))\n",
    );
    let mut t = String::new();
    for i in 0..40_000 {
        let (th, l) = (i % 13, i % 5);
        t.push_str(&match i % 4 {
            0 => format!("acq,t{th},l{l}\n"),
            1 if i % 3 == 0 => format!("sleep,t{th}\n"),
            2 => format!("rel,t{th},l{l}\n"),
            _ => format!("acq,t{th},l{}\n", (l + 1) % 5),
        });
    }
    let trace = write(&dir, "locks.csv", &t);
    same_as_sequential(
        &spec,
        &trace,
        &[&["--witness"], &["--all-witnesses"]],
        false,
    );
    // Without witnesses, the same specification runs in parallel.
    same_as_sequential(&spec, &trace, &[&[]], true);
}

/// Two properties sliced on `f`, and a long trace of files opened and
/// closed, with a violation of each now and then.
pub(super) const FILES: &str = "prop closed : Forall f . close(f) -> @ (!close(f) S open(f))\n\
                     prop once : Forall f . open(f) -> ! @ (!close(f) S open(f))\n";

/// `n` events over 300 files (and a file closed that was never opened
/// every 5,003), with the lines of `bad` (line index, text) put in.
pub(super) fn files(n: usize, bad: &[(usize, &str)]) -> String {
    let mut lines = Vec::new();
    for i in 0..n {
        let f = i % 300;
        lines.push(if i % 2 == 0 {
            format!("open,f{f}")
        } else {
            format!("close,f{f}")
        });
        if i % 5003 == 17 {
            lines.push(format!("close,g{i}"));
        }
    }
    for &(at, text) in bad.iter().rev() {
        lines.insert(at, text.to_string());
    }
    lines.join("\n") + "\n"
}

#[test]
fn strict_stops_where_the_sequential_run_stops() {
    let dir = temp_dir("options-strict");
    let spec = write(&dir, "files.qtl", FILES);
    // An unknown name far into the trace, then an arity error after it.
    let trace = write(
        &dir,
        "files.csv",
        &files(60_000, &[(45_000, "unknown,x"), (50_000, "open,a,b")]),
    );
    same_as_sequential(&spec, &trace, &[&["--strict"]], true);
    let o = run(&spec, &trace, 2, &["--strict"]);
    assert_eq!(o.status.code(), Some(2));
    let text = comparable(&o);
    assert!(text.contains("events processed: 45000\n"), "{text}");
    assert!(
        super::common::stderr(&o).contains(
            "files.csv:line 45001: event `unknown` is not in the specification (--strict)"
        ),
        "{}",
        super::common::stderr(&o)
    );
    // Without the unknown name, the arity error.
    let trace = write(&dir, "arity.csv", &files(60_000, &[(50_000, "open,a,b")]));
    same_as_sequential(&spec, &trace, &[&["--strict"]], true);
}

#[test]
fn skipped_bad_lines_are_the_sequential_ones() {
    let dir = temp_dir("options-skip");
    let spec = write(&dir, "files.qtl", FILES);
    // Another arity, an empty name, an unknown name (bad with --strict)
    // in every block or so, and broken quoting (which ends any run) near
    // the end of one trace.
    let mut bad: Vec<(usize, &str)> = Vec::new();
    for k in 0..12 {
        bad.push((k * 5_000 + 3, "open,a,b"));
        bad.push((k * 5_000 + 1_001, ",x"));
        bad.push((k * 5_000 + 2_002, "unknown,x"));
    }
    let trace = write(&dir, "files.csv", &files(60_000, &bad));
    bad.push((59_990, "open,\"abc\"d"));
    let broken = write(&dir, "broken.csv", &files(60_000, &bad));
    let extras: [&[&str]; 4] = [
        &["--skip-bad-lines"],
        &["--skip-bad-lines", "--strict"],
        &["--on-error", "skip", "--max-violations", "3000"],
        &["--skip-bad-lines", "--max-skipped", "0.0001"],
    ];
    same_as_sequential(&spec, &trace, &extras, true);
    same_as_sequential(&spec, &broken, &extras[..2], true);
    let o = run(&spec, &trace, 2, &["--skip-bad-lines", "--strict"]);
    assert_eq!(o.status.code(), Some(1));
    let text = comparable(&o);
    assert!(
        text.contains("bad lines skipped: 36 (lines 4, 1003, 2005, 5007, 6006, ...)\n"),
        "{text}"
    );
    assert!(text.contains("events processed: 60012\n"), "{text}");
}

/// `run --jobs=JOBS --json --gc always FILES_SPEC` reading `trace` on
/// standard input: redirected from the file, or through a pipe.
fn from_stdin(spec: &Path, trace: &Path, jobs: usize, pipe: bool) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut command = super::common::bin();
    command
        .arg("run")
        .arg(format!("--jobs={jobs}"))
        .args(["--json", "--gc", "always"])
        .arg(spec)
        .env_remove("HINDSIGHT_JOBS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !pipe {
        let file = std::fs::File::open(trace).expect("the trace");
        return command.stdin(file).output().expect("runs");
    }
    let mut child = command.stdin(Stdio::piped()).spawn().expect("runs");
    let text = std::fs::read(trace).expect("the trace");
    let mut stdin = child.stdin.take().expect("a pipe");
    let writer = std::thread::spawn(move || stdin.write_all(&text));
    let o = child.wait_with_output().expect("runs");
    writer.join().expect("the writer").expect("written");
    o
}

#[test]
fn standard_input_is_read_in_parallel() {
    let dir = temp_dir("options-stdin");
    let spec = write(&dir, "files.qtl", FILES);
    let trace = write(&dir, "files.csv", &files(60_000, &[(59_000, "open,a,b")]));
    let named = run(&spec, &trace, 1, &["--json", "--gc", "always"]);
    let (want, gc1) = split(&named);
    assert_eq!(named.status.code(), Some(2));
    // The file's name is `<stdin>` in the errors.
    let stderr =
        |o: &Output| super::common::stderr(o).replace(trace.to_str().expect("UTF-8"), "<stdin>");
    for (jobs, pipe, parallel) in [
        (1, false, false),
        (2, false, true),
        (3, false, true),
        (2, true, true),
        (3, true, true),
    ] {
        let o = from_stdin(&spec, &trace, jobs, pipe);
        assert_eq!(o.status.code(), Some(2), "--jobs {jobs}, pipe {pipe}");
        let (got, gc) = split(&o);
        assert_eq!(
            got,
            want.replace(trace.to_str().expect("UTF-8"), "<stdin>"),
            "--jobs {jobs}, pipe {pipe}"
        );
        assert_eq!(
            super::common::stderr(&o),
            stderr(&named),
            "--jobs {jobs}, pipe {pipe}"
        );
        assert_eq!(
            gc != gc1,
            parallel,
            "--jobs {jobs}, pipe {pipe}: {gc} against {gc1}"
        );
    }
}

#[test]
fn skipping_at_the_edges_of_a_trace() {
    let dir = temp_dir("options-skip-edges");
    let spec = write(&dir, "files.qtl", FILES);
    let timed = write(
        &dir,
        "timed.qtl",
        "prop closed : Forall f . close(f) -> @ (!close(f) S open(f))\n\
         prop soon : Forall f . close(f) -> P[<=5] open(f)\n",
    );
    let long = files(40_000, &[]);
    // Time stamps that go back (refused with --strict-time), now and then.
    let mut stamped = String::new();
    for (i, line) in long.lines().enumerate() {
        let t = if i % 997 == 5 {
            i.saturating_sub(40)
        } else {
            i
        };
        stamped.push_str(&format!("{line},{t}\n"));
    }
    let cases: [(&str, String, &[&str]); 5] = [
        (
            "all-bad.csv",
            "open,a,b\n,x\nclose\n".repeat(5_000),
            &["--skip-bad-lines"],
        ),
        (
            "bad-end.csv",
            format!("{long}open,a,b\n,x\n"),
            &["--skip-bad-lines"],
        ),
        (
            "bad-start.csv",
            format!("open,a,b\n,x\n{long}"),
            &["--skip-bad-lines", "--strict"],
        ),
        (
            "only-bad-end.csv",
            format!("{long}open,a,b\n"),
            &["--on-error", "skip", "--max-skipped", "0"],
        ),
        (
            "stamped.timed.csv",
            stamped,
            &["--skip-bad-lines", "--strict-time", "--timed"],
        ),
    ];
    for (name, text, extra) in cases {
        let trace = write(&dir, name, &text);
        let spec = if name.contains("timed") {
            &timed
        } else {
            &spec
        };
        let first = run(spec, &trace, 1, extra);
        assert!(
            comparable(&first).contains("bad lines skipped") || first.status.code() == Some(2),
            "{name}: {}",
            comparable(&first)
        );
        for jobs in [2, 3] {
            let o = run(spec, &trace, jobs, extra);
            assert_eq!(o.status.code(), first.status.code(), "{name} --jobs {jobs}");
            assert_eq!(comparable(&o), comparable(&first), "{name} --jobs {jobs}");
            assert_eq!(o.stderr, first.stderr, "{name} --jobs {jobs}");
        }
    }
}

/// The rows of a profile CSV, header first.
fn profile_rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("profile written");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| r.expect("row").iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn a_parallel_run_profiles_each_of_its_monitors() {
    let dir = temp_dir("options-profile");
    let spec = write(&dir, "access.qtl", ACCESS);
    let trace = write(&dir, "access.csv", &access_log(60_000));
    let path = |jobs: usize| dir.join(format!("profile-{jobs}.csv"));
    let profiled = |jobs: usize| {
        let p = path(jobs);
        let args = [
            "--profile",
            p.to_str().expect("UTF-8"),
            "--profile-every",
            "10000",
        ];
        run(&spec, &trace, jobs, &args)
    };
    let one = profiled(1);
    assert_eq!(one.status.code(), Some(1));
    let sequential = profile_rows(&path(1));
    let events: Vec<&str> = sequential[1..].iter().map(|r| r[0].as_str()).collect();
    // Every 10,000 events, and the last one.
    let total = events.last().expect("a final row").to_string();
    assert_eq!(
        events.len(),
        total.parse::<usize>().expect("number") / 10_000 + 1
    );
    assert!(
        sequential[0][2..].iter().all(|c| !c.contains(" [")),
        "{:?}",
        sequential[0]
    );
    for jobs in [2, 3] {
        let o = profiled(jobs);
        // The verdicts are the sequential run's; it ran in parallel (the
        // collections are summed over its monitors).
        assert_eq!(comparable(&o), comparable(&one), "--jobs {jobs}");
        assert_eq!(o.status.code(), Some(1));
        let rows = profile_rows(&path(jobs));
        let header = &rows[0];
        assert_eq!(header[..2], ["event", "seconds"]);
        // Each slice's columns, named with its place in the layout.
        for k in 1..=jobs {
            let slice = format!("slice {k} of {jobs}]/");
            assert!(header.iter().any(|c| c.contains(&slice)), "{header:?}");
        }
        assert!(
            header[2..]
                .iter()
                .all(|c| c.starts_with("access [") || c.starts_with("closing")),
            "{header:?}"
        );
        let got: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
        assert_eq!(got, events, "--jobs {jobs}");
        assert!(rows.iter().all(|r| r.len() == header.len()));
        // Each slice holds some of the users' codes.
        let codes: Vec<u64> = (header.iter().enumerate())
            .filter(|(_, c)| c.starts_with("access [") && c.ends_with("/user codes"))
            .map(|(i, _)| rows[rows.len() - 1][i].parse().expect("a number"))
            .collect();
        assert!(
            codes.len() >= jobs && codes.iter().any(|&c| c > 0),
            "{codes:?}"
        );
    }
    // `hindsight plot --prop access` keeps every slice's columns.
    let svg = dir.join("profile.svg");
    let o = super::common::bin()
        .args(["plot", "--prop", "access", "-o"])
        .arg(&svg)
        .arg(path(2))
        .output()
        .expect("runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let drawn = std::fs::read_to_string(&svg).expect("svg");
    assert!(
        drawn.contains("access [part 1, slice 1 of 2]") || drawn.contains("access [slice 1 of 2]")
    );
}
