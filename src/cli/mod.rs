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

mod input;
mod output;
mod size;
mod timepoints;

pub use input::{Interrupt, open_input};
pub use output::Output;
pub use size::parse_size;
pub use timepoints::step_timepoint;

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
