//! The progress indicator of `hindsight run`: shown on a terminal, never when
//! stderr is a pipe, with `--no-progress`, for stdin or with JSON output.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/telemetry.qtl")
}

/// A trace long enough for several progress checks (one per 4096 events),
/// written once: the tests run in parallel and read it at the same time.
fn trace() -> PathBuf {
    static TRACE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TRACE
        .get_or_init(|| {
            let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("progress-trace.csv");
            let mut text = String::new();
            for i in 0..20_000 {
                text.push_str(&format!("telem,{}\n", i % 100 + 1000));
            }
            std::fs::write(&path, text).expect("write trace");
            path
        })
        .clone()
}

fn run(args: &[&str], stdin_trace: bool) -> (String, String) {
    let mut cmd = common::bin();
    cmd.env("HINDSIGHT_PROGRESS_DELAY_MS", "0")
        .arg("run")
        .args(args)
        .arg(spec());
    let trace = trace();
    if stdin_trace {
        cmd.stdin(Stdio::piped());
    } else {
        cmd.arg(&trace);
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("runs");
    // Feed stdin from a thread: the child writes its verdicts meanwhile.
    let feeder = child.stdin.take().map(|mut stdin| {
        let bytes = std::fs::read(&trace).expect("trace");
        std::thread::spawn(move || stdin.write_all(&bytes))
    });
    let out = child.wait_with_output().expect("waits");
    if let Some(f) = feeder {
        f.join().expect("feeder").expect("write stdin");
    }
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn nothing_on_stderr_when_it_is_a_pipe() {
    for (args, stdin) in [
        (&["-q"][..], false),
        (&[][..], false),
        (&["--no-progress"][..], false),
        (&["--report", "json"][..], false),
        (&[][..], true),
    ] {
        let (out, err) = run(args, stdin);
        assert_eq!(err, "", "{args:?}");
        assert!(!out.contains("events/s,"), "{args:?}");
        assert!(!out.contains('\r'), "{args:?}");
    }
}

/// With `script` (util-linux) the run gets a terminal; the indicator shows
/// there (this makes sure the test above would notice it). Needs `script`
/// (util-linux, on every Debian machine).
#[test]
fn shown_on_a_terminal_unless_switched_off() {
    let command = |extra: &str| {
        format!(
            "{} run -q {extra} {} {}",
            env!("CARGO_BIN_EXE_hindsight"),
            spec().display(),
            trace().display()
        )
    };
    let terminal = |extra: &str| {
        let out = Command::new("script")
            .args(["-qfec", &command(extra), "/dev/null"])
            .env("HINDSIGHT_PROGRESS_DELAY_MS", "0")
            // No colours on the terminal: this test is about the progress bar.
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("script runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = terminal("");
    assert!(shown.contains("events/s"), "{shown}");
    assert!(shown.contains("% of "), "{shown}");
    assert!(shown.ends_with("STATUS: Violated\r\n"), "{shown:?}");
    let off = terminal("--no-progress");
    assert_eq!(off, "STATUS: Violated\r\n");
}
