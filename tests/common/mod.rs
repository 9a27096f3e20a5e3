//! Helpers shared by the end-to-end tests that run the binary: the command
//! itself, scratch files under the target directory, and the text of a
//! finished run's output. Not part of the product.

// Each test crate uses some of these helpers, never all of them.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `hindsight` binary of this build, as a command to add arguments to.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hindsight"))
}

/// The scratch directory `dir` under the target directory, created.
pub fn scratch_dir(dir: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&path).expect("scratch directory");
    path
}

/// Writes `contents` to the file `name` of the scratch directory `dir`;
/// its path.
pub fn scratch_file(dir: &str, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = scratch_dir(dir).join(name);
    std::fs::write(&path, contents).expect("write scratch file");
    path
}

/// A run's standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run's standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The event numbers of the violation lines (`... at event N ...`) of a
/// text report, in order.
pub fn violation_events(o: &Output) -> Vec<u64> {
    stdout(o)
        .lines()
        .filter_map(|l| l.split(" at event ").nth(1))
        .filter_map(|rest| rest.split([' ', ':']).next()?.parse().ok())
        .collect()
}
