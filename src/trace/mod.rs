//! Trace readers: stream the events of a trace from any [`Read`](std::io::Read) (a file or
//! stdin), one at a time, without holding the trace in memory. One reader,
//! [`TraceReader`], reads every format, gzip- or zstd-compressed or not.
//!
//! # Formats
//!
//! - **Plain** (DejaVu): no header, one event per line, `name,arg1,...,argn`,
//!   with RFC 4180 quoting (`"a,b"` is one field, `""` inside quotes is a `"`;
//!   a `"` inside an unquoted field is an ordinary character). Spaces and
//!   tabs around every field are trimmed (`login, root` is `login(root)`),
//!   also before an opening and after a closing quote (`a, "x, y"` is `a`
//!   with the field `x, y`); a quoted field's content is kept as it is
//!   (`a," x "` has the argument ` x `). Only blanks, `,` or a line end may
//!   follow a closing quote.
//! - **CRV**: the same, preceded by a header line whose first field is `event`
//!   in any case (`event, field, ...`, `Event,user`), whose other fields are
//!   ignored. The two dialects read fields alike: the header is their only
//!   difference.
//! - **XML** (CRV): a `<log>` of `<event>` elements, each with a `<name>` and
//!   `<field>` elements holding a `<name>` and a `<value>`; see [`xml`].
//! - **JSON** (CRV): one object per event, `{"name": {"field": "value", ...}}`,
//!   as JSON lines or any sequence of such objects; see [`json`].
//! - **MonPoly** logs: `@TS name(a, b) name2(c) ...`, several events per
//!   time-point; see [`monpoly`].
//! - [`Format::Auto`] detects the format from the content: the first byte
//!   that is not white space is `<` for XML, `{` for JSON, `@` or `#` for
//!   MonPoly; otherwise CSV, CRV when the first non-blank line's first field,
//!   trimmed of spaces and tabs (and unquoted), is `event` in any case, and
//!   plain otherwise. (A plain trace whose first event is named `event` needs
//!   [`Format::Plain`].)
//!
//! XML and JSON fields are named: with [`TraceReader::field_names`] (the
//! parameter names of the specification's declarations, [`FieldNames`]) they
//! are put in the declared order, and a missing or unknown field is an error;
//! for an event without declared names they are taken in the order written.
//!
//! In a **timed** CSV trace ([`TraceOptions::timed`]; see [`timed_by_name`])
//! the last field of every event is its time; in a timed XML or JSON trace,
//! the field named by [`TraceReader::time_field`] (by default the first of
//! `time`, `timestamp`, `ts` that the event has), whatever its place (of
//! positional JSON values, the last). The time is a natural
//! (`12`) or decimal (`0.25`) number that never decreases; it is not an
//! argument. Times are counted in ticks of `10^-d` time units, `d` set with
//! [`TraceReader::time_decimals`] (0 by default): a stamp with more than `d`
//! decimal digits, or whose ticks do not fit in a `u64`, is an error. Untimed events have time 0. A MonPoly
//! log always has time stamps: its events have their time-point's.
//!
//! # Compression
//!
//! A gzip or zstd stream (recognised by its first bytes, whatever the file
//! name) is decompressed on the fly; line numbers and sizes are those of the
//! decompressed text.
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
//! counting the final line end; in XML its `<event>` element, in JSON its
//! object, in MonPoly its whole time-point) may be at most
//! [`DEFAULT_MAX_EVENT_SIZE`] bytes, 16 MiB, or the size set with
//! [`TraceReader::max_event_size`]. A longer one is an error, found as soon
//! as the limit is passed: memory stays bounded by the limit whatever the
//! input, a 100 MB line without a line end or a quote never closed.
//!
//! # Errors
//!
//! Every problem is a [`TraceError`] naming the line: broken quoting (a quoted
//! field never closed, text after a closing quote), an empty (or blank)
//! event name, a missing, malformed, out-of-range or decreasing timestamp, a
//! missing CRV header when [`Format::Crv`] is forced, malformed XML, JSON or
//! MonPoly syntax, a missing or unknown named field, an event beyond the
//! maximum size, and read (or decompression) errors. The first error ends the
//! trace: later calls to [`TraceReader::next_event`] return `Ok(None)`.

mod csv;
mod diag;
mod error;
mod event;
mod fields;
mod input;
pub mod json;
pub mod monpoly;
mod reader;
pub mod xml;

#[cfg(test)]
mod tests;

use std::path::Path;

pub(crate) use diag::header_word;
pub use diag::{MAX_TIME_DECIMALS, format_time};
pub use error::{TraceError, TraceErrorKind};
pub use event::EventRef;
pub use fields::{FieldNames, TIME_FIELDS};
pub use input::{Compression, compression_of};
pub use reader::{Resume, TimePoint, TraceReader};

/// The format of a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// Detect from the content (see the [module](self) docs).
    #[default]
    Auto,
    /// DejaVu CSV: no header, fields trimmed of spaces and tabs.
    Plain,
    /// CRV competition CSV: a header line `event, ...` (required), then
    /// fields read as in [`Format::Plain`].
    Crv,
    /// CRV competition XML.
    Xml,
    /// CRV competition JSON (JSON lines or a sequence of objects).
    Json,
    /// MonPoly logs: `@TS name(args) ...`.
    MonPoly,
}

/// How to read a trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TraceOptions {
    /// Whether the last field of each event is its timestamp (CSV, XML and
    /// JSON; MonPoly logs have their own).
    pub timed: bool,
    /// The format.
    pub format: Format,
}

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
