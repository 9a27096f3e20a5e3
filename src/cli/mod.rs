//! The `hindsight` binary (the `cli` feature; not part of the library's
//! API: private, behind [`crate::cli_main`]): its arguments and
//! subcommands, and its support: standard
//! output that may be closed under us, a trace input that an interruption
//! (Ctrl-C) can end even while it waits for data, and size arguments.
//!
//! - [`Output`]: buffered standard output shared by the printer and the
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
//! - [`args`]: the arguments (with [`mfotl`]'s and `cluster`'s);
//!   [`commands`]: `check` and `compile`; [`spec`]: the loading of a
//!   specification that every subcommand shares; [`run`]: `hindsight run`
//!   on the library's session (sequential, parallel, or in cluster mode),
//!   with the command line's report; [`progress`]: the progress
//!   bar; [`plot`]: `hindsight plot`; [`hints`]: hints for the usual
//!   mistakes; [`target`]: the report's format, file and colours;
//!   [`resolve`]: a run's options resolved, and its engine chosen, alike for
//!   every spelling; [`run_parts`]: `--prop`; [`testbed`]: `equiv` and `gen`;
//!   [`why`]: `hindsight why`; [`serve`]: `hindsight serve`, the web page and
//!   its API.

pub mod args;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod commands;
pub mod hints;
mod input;
pub mod mfotl;
mod output;
pub mod plot;
pub mod progress;
pub mod resolve;
pub mod run;
pub mod run_parts;
pub mod serve;
mod size;
pub mod spec;
pub mod target;
pub mod testbed;
pub mod why;

pub use input::{Interrupt, open_input};
pub use output::Output;
pub use size::{parse_percent, parse_size};
