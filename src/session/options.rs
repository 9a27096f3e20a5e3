//! What a session is asked to do: [`SessionOptions`], with what a bad line
//! does ([`OnError`]) and how a trace with open future verdicts ends
//! ([`EndOfTrace`]); and which trace files are too small for a second
//! thread ([`small_trace`]).

use std::io::Read;
use std::path::Path;

use super::Segments;
use super::read::DEFAULT_MAX_SKIPPED;
use crate::runtime::MonitorOptions;
use crate::trace::{Compression, DEFAULT_MAX_EVENT_SIZE, TraceOptions, compression_of};

/// What a bad line does: end the run with an error, or skip it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OnError {
    /// End the run with an error.
    #[default]
    Stop,
    /// Skip the line and go on; the summary counts the skipped lines.
    Skip,
}

/// What the end of a trace means to the verdicts still waiting for later
/// events (with future operators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EndOfTrace {
    /// They are undecided: the trace may go on.
    Undecided,
    /// The trace is over, as MonPoly ends a log: a last step of no event
    /// at the greatest time stamp decides every verdict whose horizon is a
    /// time bound.
    Close,
}

/// How a session monitors (the options of `hindsight run` that are not
/// about the command line). `Default` is what the command line uses.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// The monitor's options (code width, strict time, garbage collection).
    pub monitor: MonitorOptions,
    /// How to read a trace: timed or not, and its format
    /// ([`Session::run_file`] also reads a file named `*.timed.*` as timed).
    pub trace: TraceOptions,
    /// The field that holds the time stamp of a timed XML or JSON event,
    /// matched by name (`None`: the first of `time`, `timestamp`, `ts` that
    /// the event has; see [`TraceReader::time_field`](crate::trace::TraceReader::time_field)).
    pub time_field: Option<String>,
    /// The largest event (its record) in bytes; a longer one is an input error.
    pub max_event_size: u64,
    /// An event whose name no property mentions is an input error (else it
    /// is counted and named in a warning).
    pub strict: bool,
    /// What a bad line does (a broken field, a wrong number of arguments, a
    /// time stamp going back with strict time, an unknown event when strict).
    pub on_error: OnError,
    /// With [`OnError::Skip`], the largest share of the lines (events and
    /// skipped lines, 0 to 1) that may be skipped: more, or every line, is
    /// [`RunError::Skipped`]. Default [`DEFAULT_MAX_SKIPPED`].
    pub max_skipped: f64,
    /// Each time-point of a MonPoly log is one step at which all its events
    /// hold. (An MFOTL session steps the time-points of a MonPoly log so
    /// anyway, unless `event_steps`.)
    pub timepoints: bool,
    /// An MFOTL session on a MonPoly log steps each event on its own (as
    /// QTL does) instead of each time-point (MonPoly's semantics).
    pub event_steps: bool,
    /// Give each violation a witness (see [`crate::monitor::Monitor::witness`]).
    pub witness: bool,
    /// Give a witness to the violations at this event (from 1) only, as
    /// `witness` does to all: no other violation costs a witness search.
    /// (With a future operator, whose verdicts come later, every violation
    /// gets one.)
    pub witness_at: Option<u64>,
    /// [`Session::run`](super::Session::run) reads the trace up to this
    /// event (from 1) and no further: the run ends there as at the end of
    /// the trace.
    pub until: Option<u64>,
    /// List up to this many falsifying tuples with each violation (0: off).
    pub all_witnesses: usize,
    /// Report MFOTL satisfactions (MonPoly's output) instead of violations.
    pub satisfactions: bool,
    /// End the run after the first event at which a property is violated.
    pub stop_at_first: bool,
    /// Threads the run may use: worker threads of
    /// [`Session::run_parallel`] and [`Session::run_parallel_file`]; with
    /// 1, one thread reads and monitors (sequential), and with more, a
    /// sequential run reads a trace file ahead in a second thread (see
    /// [`Session::run_file`]).
    pub jobs: usize,
    /// Whether [`Session::run_parallel_file`] may cut its file into time
    /// segments (see docs/PARALLEL.md).
    pub segments: Segments,
    /// The verdicts still open at the end of the trace: `None` is
    /// [`EndOfTrace::Close`] for an MFOTL session (MonPoly's behaviour) and
    /// [`EndOfTrace::Undecided`] otherwise.
    pub end_of_trace: Option<EndOfTrace>,
    /// Time stamps (and the spec's time bounds) are read in ticks of
    /// `10^-time_decimals` time units: a stamp with more decimal digits is an
    /// input error. [`Session::from_source`] raises it to the most decimals
    /// of the specification's bounds; with `Session::from_plan` it must be
    /// the precision the plan was compiled at
    /// (`plan::compile_source_timed`).
    pub time_decimals: u8,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            monitor: MonitorOptions::default(),
            trace: TraceOptions::default(),
            time_field: None,
            max_event_size: DEFAULT_MAX_EVENT_SIZE,
            strict: false,
            on_error: OnError::Stop,
            max_skipped: DEFAULT_MAX_SKIPPED,
            timepoints: false,
            event_steps: false,
            end_of_trace: None,
            witness: false,
            witness_at: None,
            until: None,
            all_witnesses: 0,
            satisfactions: false,
            stop_at_first: false,
            time_decimals: 0,
            jobs: 1,
            segments: Segments::Auto,
        }
    }
}

/// A trace file smaller than this (uncompressed) is monitored on one
/// thread unless more are asked for (`hindsight run` without `--jobs`, the
/// Python package without `jobs=`): a second thread (slices, time
/// segments, or reading ahead) costs about as much to start and to feed as
/// it saves on so few events. On the FMSD logs of 10,000 events (100 to
/// 160 KB) the default's two threads took 4% to 25% longer than `--jobs
/// 1`; on their first 25,000 events (260 to 390 KB), as long or less.
pub const SMALL_TRACE_BYTES: u64 = 256 << 10;

/// How many times its size a compressed trace file is counted as: logs
/// compress about five to ten times, so a compressed file is small only
/// when it would be even at a high ratio.
const COMPRESSED_RATIO: u64 = 16;

/// Whether the trace file at `path` is small ([`SMALL_TRACE_BYTES`]): a
/// regular file, whose size, times [`COMPRESSED_RATIO`] if it is
/// compressed, is under it. (Not a pipe or a device, whose size says
/// nothing.)
pub fn small_trace(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let mut head = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| f.read(&mut head));
    let Ok(n) = read else {
        return false;
    };
    let ratio = match compression_of(&head[..n]) {
        Compression::None => 1,
        _ => COMPRESSED_RATIO,
    };
    meta.len().saturating_mul(ratio) < SMALL_TRACE_BYTES
}
