//! Support for the `hindsight` binary (not part of the library): standard
//! output that may be closed under us, a trace input that an interruption
//! (Ctrl-C) can end even while it waits for data, and size arguments.
//!
//! - [`Output`]: buffered standard output shared by the reporter and the
//!   input. A write that fails (the reader of a pipe went away: `| head -1`)
//!   marks it closed; every later write fails at once, quietly, so that the run
//!   ends at its next violation without an error message.
//! - [`Interrupt`]: the first SIGINT sets a flag that the event loop checks
//!   before each event, and wakes the input if it is waiting; the run then
//!   ends with the summary of the events processed. A second SIGINT exits at
//!   once with status 130.
//! - [`open_input`]: a regular file is read directly (reading it never
//!   waits); standard input, a FIFO or a device is read by a helper thread, so
//!   that waiting for data can be interrupted, and the output is flushed
//!   whenever the monitor has caught up with its input: verdicts show up as
//!   soon as they are found, also behind a pipe.
//! - [`names`]: event names of the trace that the specification does not
//!   know, and their likely cause; [`hints`]: hints for the usual mistakes;
//!   [`report_to`]: the report's format, file and colours; [`run_parts`]:
//!   `--prop` and the bad lines skipped.

#[cfg(feature = "cluster")]
pub mod cluster;
pub mod hints;
mod input;
pub mod mfotl;
pub mod names;
mod output;
pub mod report_to;
pub mod run_parts;
mod size;
mod timepoints;

pub use input::{Interrupt, open_input};
pub use output::Output;
pub use size::parse_size;
pub use timepoints::step_timepoint;

use std::path::Path;
use std::process::ExitCode;

/// Reads the specification at `path` (`-`: standard input) as UTF-8 text;
/// on failure, prints the error and gives exit status 2.
pub fn read_spec(path: &Path) -> Result<String, ExitCode> {
    let read = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    read
        .map_err(|e| {
            eprintln!("error: cannot read {}: {e}", path.display());
            ExitCode::from(2)
        })
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|e| {
                let (line, column) = line_column(e.as_bytes(), e.utf8_error().valid_up_to());
                eprintln!(
                    "{}:{line}:{column}: error: invalid UTF-8 (byte {}): a specification must be UTF-8 text",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                ExitCode::from(2)
            })
        })
}

/// The 1-based line and column (in characters) of byte `offset` of `text`,
/// which is valid UTF-8 up to `offset`.
pub fn line_column(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count();
    (line, column)
}

/// The reason shown in the status line of a run ended by a bad line:
/// `input error at line 7; 2 violations found before it`.
pub fn stopped_at(line: u64, violations: u64) -> String {
    format!(
        "input error at line {line}; {violations} violation{} found before it",
        if violations == 1 { "" } else { "s" }
    )
}
