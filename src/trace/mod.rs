//! Trace readers: stream the events of a CSV trace from any [`Read`] (a file or
//! stdin), one at a time, without holding the trace in memory.
//!
//! # Formats
//!
//! - **Plain** (DejaVu): no header, one event per line, `name,arg1,...,argn`,
//!   with RFC 4180 quoting (`"a,b"` is one field, `""` inside quotes is a `"`;
//!   a `"` inside an unquoted field is an ordinary character). Fields are taken
//!   verbatim, spaces included, so only `,` or a line end may follow a closing
//!   quote.
//! - **CRV**: the same, preceded by a header line whose first field is `event`
//!   (`event, field, ...`); spaces and tabs around every field of every line
//!   are trimmed (`open, 1, 2` is `open(1,2)`), also after a closing quote. A
//!   quoted field must start right after the comma (`a,"x, y"`, not
//!   `a, "x, y"`: that is an error). The header's other fields are ignored.
//! - [`Format::Auto`] picks CRV when the first non-blank line's first field,
//!   trimmed of spaces and tabs, is exactly `event`, and plain otherwise. (A
//!   plain trace whose first event is named `event` needs [`Format::Plain`].)
//!
//! In a **timed** trace ([`TraceOptions::timed`]; see [`timed_by_name`]) the last
//! field of every event is its time, a natural number written with decimal
//! digits only, that fits in a `u64` and never decreases; it is not an
//! argument. Untimed events have time 0.
//!
//! # Lines
//!
//! Lines end with `\n` or `\r\n` (a lone `\r` is an ordinary byte, and so is
//! a `\r` ending a quoted field's content); the final line end may be missing.
//! Blank lines and lines of only spaces and tabs (or a lone `""`) are skipped:
//! they are not events. A quoted field may span lines; an event's
//! [`line`](EventRef::line) is the line where it starts. Fields are bytes:
//! invalid UTF-8 and NUL bytes are accepted as they are.
//!
//! # Size
//!
//! An event (its record: all its lines if a quoted field spans several, not
//! counting the final line end) may be at most
//! [`DEFAULT_MAX_EVENT_SIZE`] bytes, 16 MiB, or the size set with
//! [`TraceReader::max_event_size`]. A longer one is an error, found as soon
//! as the limit is passed: memory stays bounded by the limit whatever the
//! input, a 100 MB line without a line end or a quote never closed.
//!
//! # Errors
//!
//! Every problem is a [`TraceError`] naming the line: broken quoting (a quoted
//! field never closed, text after a closing quote, in CRV a quote after
//! leading spaces), an empty (or blank) event name, a missing, malformed,
//! out-of-range or decreasing timestamp, a missing CRV header when
//! [`Format::Crv`] is forced, an event beyond the maximum size, and read
//! errors. The first error ends the trace:
//! later calls to [`TraceReader::next_event`] return `Ok(None)`.

mod diag;
mod event;
mod watch;

#[cfg(test)]
mod tests;

use std::fmt;
use std::io::Read;
use std::path::Path;

use csv::ByteRecord;

use diag::{check_fault, parse_time, show, too_long};
pub use event::EventRef;
use event::{Fields, trim_blanks};
use watch::{Fault, Watch};

/// The CSV dialect of a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// Detect: CRV if the first non-blank line's first field, trimmed, is
    /// `event`, plain otherwise.
    #[default]
    Auto,
    /// DejaVu CSV: no header, fields verbatim.
    Plain,
    /// CRV competition CSV: a header line `event, ...` (required), fields
    /// trimmed of spaces and tabs.
    Crv,
}

/// How to read a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TraceOptions {
    /// Whether the last field of each event is its timestamp.
    pub timed: bool,
    /// The CSV dialect.
    pub format: Format,
}

/// A problem in a trace, with the line where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The 1-based line of the input where the offending event (or line) starts.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

/// Whether the file name of `path` (its last component) contains `.timed.`,
/// the convention for timestamped traces (`log1.timed.csv`).
pub fn timed_by_name(path: &Path) -> bool {
    path.file_name().is_some_and(|name| {
        name.as_encoded_bytes()
            .windows(b".timed.".len())
            .any(|w| w == b".timed.")
    })
}

/// The default maximum size of one event in bytes (16 MiB); see
/// [`TraceReader::max_event_size`].
pub const DEFAULT_MAX_EVENT_SIZE: u64 = 16 << 20;

/// The size of the CSV reader's buffer.
const BUFFER_CAPACITY: usize = 64 * 1024;

/// What the reader found out about the current event's record, to make the
/// view.
#[derive(Clone, Copy, Default)]
struct Current {
    args_end: usize,
    time: u64,
    line: u64,
    trim: bool,
    strip_cr: bool,
}

/// A streaming reader of trace events.
///
/// Memory use is bounded by the longest event, itself bounded by the maximum
/// event size: one [`ByteRecord`] is reused for every event, and the input is
/// read through a fixed-size buffer.
pub struct TraceReader<R: Read> {
    csv: csv::Reader<Watch<R>>,
    record: ByteRecord,
    timed: bool,
    /// The format in use; `Auto` until the first non-blank line is read.
    format: Format,
    /// Whether the first non-blank line was read (and the format decided).
    decided: bool,
    events: u64,
    last_time: u64,
    /// Whether a timestamp smaller than the previous one is accepted.
    allow_decrease: bool,
    failed: bool,
    /// Whether a bad event (not a broken file) lets reading go on.
    skip_bad: bool,
    /// Whether the last error was about one event only.
    bad_event: bool,
    current: Current,
}

impl<R: Read> TraceReader<R> {
    /// A reader of the trace `input` (consider a buffered or raw file; the
    /// reader does its own buffering).
    pub fn new(input: R, options: TraceOptions) -> Self {
        let mut watch = Watch::new(input);
        watch.set_limit(DEFAULT_MAX_EVENT_SIZE);
        let csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .terminator(csv::Terminator::Any(b'\n'))
            .buffer_capacity(BUFFER_CAPACITY)
            .from_reader(watch);
        TraceReader {
            csv,
            record: ByteRecord::new(),
            timed: options.timed,
            format: options.format,
            decided: options.format == Format::Plain,
            events: 0,
            last_time: 0,
            allow_decrease: false,
            failed: false,
            skip_bad: false,
            bad_event: false,
            current: Current::default(),
        }
    }

    /// Accepts (`true`) or rejects (`false`, the default) timestamps smaller
    /// than the previous one. Accepted, they are passed on as they are: what a
    /// step back in time means is the monitor's business. (Real logs have
    /// them; the reference tool accepts them.)
    pub fn allow_decreasing_time(mut self, allow: bool) -> Self {
        self.allow_decrease = allow;
        self
    }

    /// Goes on after an error that concerns one event only (an empty name, a
    /// bad or decreasing time stamp): [`TraceReader::next_event`] returns the
    /// error and then the following events. Errors in the file's structure
    /// (broken quoting, an event too long, a failed read) still end it; see
    /// [`TraceReader::failed`]. Off by default.
    pub fn skip_bad_events(mut self, skip: bool) -> Self {
        self.skip_bad = skip;
        self
    }

    /// Whether reading has ended on an error.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Sets the maximum size of one event in bytes (default
    /// [`DEFAULT_MAX_EVENT_SIZE`]): the bytes of its record, all its lines if a
    /// quoted field spans several, without the final line end. A longer event
    /// is an error naming its line. At least 1.
    pub fn max_event_size(mut self, bytes: u64) -> Self {
        self.csv.get_mut().set_limit(bytes.max(1));
        self
    }

    /// The next event, or `Ok(None)` at the end of the trace (or after an
    /// error). The returned view borrows the reader's buffer.
    pub fn next_event(&mut self) -> Result<Option<EventRef<'_>>, TraceError> {
        if self.failed {
            return Ok(None);
        }
        match self.advance() {
            Ok(true) => {
                let c = self.current;
                let fields = Fields::new(&self.record, c.trim, c.strip_cr);
                Ok(Some(EventRef::new(
                    fields,
                    c.args_end,
                    c.time,
                    c.line,
                    self.events,
                )))
            }
            Ok(false) => Ok(None),
            Err(e) => {
                self.failed = !(self.skip_bad && self.bad_event);
                self.bad_event = false;
                Err(e)
            }
        }
    }

    /// Bytes of the input consumed so far (for progress reports).
    pub fn bytes_read(&self) -> u64 {
        self.csv.position().byte()
    }

    /// The number of events read so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// The format in use: as given, or, with [`Format::Auto`], the detected one
    /// once the first non-blank line has been read (`Auto` before).
    pub fn format(&self) -> Format {
        self.format
    }

    /// Reads records until the next event, checking it.
    fn advance(&mut self) -> Result<bool, TraceError> {
        loop {
            let more = self
                .csv
                .read_byte_record(&mut self.record)
                .map_err(|e| self.read_error(&e))?;
            if !more {
                return Ok(false);
            }
            let end = self.csv.position().byte();
            let (line, strip_cr) = self.locate();
            check_fault(self.csv.get_ref().long_fault(), end, line)?;
            check_fault(self.csv.get_ref().fault(), end, line)?;
            let raw = Fields::new(&self.record, true, strip_cr);
            if raw.len() == 0 || (raw.len() == 1 && raw.at(0).is_empty()) {
                continue; // a blank line
            }
            let mut header = false;
            if !self.decided {
                self.decided = true;
                header = raw.at(0) == b"event";
                if header {
                    self.format = Format::Crv;
                } else if self.format == Format::Crv {
                    return Err(TraceError {
                        line,
                        message: format!(
                            "expected the CRV header line `event, ...`, found `{}`",
                            show(raw.at(0))
                        ),
                    });
                } else {
                    self.format = Format::Plain;
                }
            }
            let crv = self.format == Format::Crv;
            check_fault(self.csv.get_ref().format_fault(crv), end, line)?;
            if header {
                continue;
            }
            self.accept(line, strip_cr)
                .inspect_err(|_| self.bad_event = true)?;
            return Ok(true);
        }
    }

    /// The error for a failed read of the next record.
    fn read_error(&self, error: &csv::Error) -> TraceError {
        // The parser has consumed all the bytes passed on, and counted their
        // line ends.
        let line = self.csv.position().line();
        let watch = self.csv.get_ref();
        match watch.too_long() {
            Some(inner) => TraceError {
                line: line.saturating_sub(inner).max(1),
                message: too_long(watch.limit()),
            },
            None => TraceError {
                line,
                message: format!("cannot read the trace: {error}"),
            },
        }
    }

    /// Checks the current (non-blank, non-header) record as an event.
    fn accept(&mut self, line: u64, strip_cr: bool) -> Result<(), TraceError> {
        let trim = self.format == Format::Crv;
        let fields = Fields::new(&self.record, trim, strip_cr);
        let error = |message: String| TraceError { line, message };
        if trim_blanks(fields.at(0)).is_empty() {
            return Err(error("empty event name".to_owned()));
        }
        let n = fields.len();
        let (args_end, time) = if self.timed {
            if n < 2 {
                return Err(error(format!(
                    "missing timestamp: event `{}` has no fields after its name, but a \
                     timed trace needs the time as the last field",
                    show(fields.at(0))
                )));
            }
            let time = parse_time(fields.at(n - 1)).map_err(error)?;
            if time < self.last_time && !self.allow_decrease {
                return Err(error(format!(
                    "timestamp {time} is smaller than the previous timestamp {}: time \
                     must not decrease",
                    self.last_time
                )));
            }
            self.last_time = time;
            (n - 1, time)
        } else {
            (n, 0)
        };
        self.events += 1;
        self.current = Current {
            args_end,
            time,
            line,
            trim,
            strip_cr,
        };
        Ok(())
    }

    /// The line where the record just read starts, and whether a `\r` ending
    /// its last field is half of a CRLF line end (to be dropped).
    ///
    /// The CSV reader counts the `\n` bytes it consumed; the record's own ones
    /// are those inside its (quoted) fields plus its terminator, unless it was
    /// ended by the end of the input.
    fn locate(&mut self) -> (u64, bool) {
        let end = self.csv.position().clone();
        let record = &self.record;
        let watch = self.csv.get_mut();
        let inner = if watch.saw_quoted_field() {
            record.as_slice().iter().filter(|&&b| b == b'\n').count() as u64
        } else {
            0
        };
        let unterminated = matches!(watch.fault(), Some(Fault::Unterminated { .. }));
        let ended_by_newline =
            end.byte() < watch.total() || (watch.last_byte() == Some(b'\n') && !unterminated);
        let line = end
            .line()
            .saturating_sub(inner + u64::from(ended_by_newline));
        let ends_with_cr = (record.len().checked_sub(1))
            .and_then(|i| record.get(i))
            .is_some_and(|f| f.ends_with(b"\r"));
        let line_end = end.byte().saturating_sub(u64::from(ended_by_newline));
        let strip_cr = ends_with_cr && !watch.keeps_cr(line_end);
        (line.max(1), strip_cr)
    }
}
