//! [`TraceError`]: a problem in a trace, typed by [`TraceErrorKind`], with the
//! line (and, where known, the column) where it is.

use std::fmt;
use std::io;

/// What kind of problem a [`TraceError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cluster", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// Broken CSV quoting: a quoted field never closed, or text after the
    /// closing quote of a quoted field.
    Quoting,
    /// An empty (or blank) event name.
    EmptyName,
    /// A timed event without its time stamp (no field after the name, or an
    /// empty last field).
    MissingTime,
    /// A time stamp that is malformed or out of range.
    BadTime,
    /// A time stamp smaller than the previous one.
    DecreasingTime,
    /// No CRV header line `event, ...` where [`Format::Crv`](super::Format::Crv)
    /// requires one.
    MissingHeader,
    /// An event longer than the maximum event size.
    TooLong,
    /// Malformed XML, JSON or MonPoly syntax.
    Syntax,
    /// A named field (XML, JSON) that is missing, unknown or given twice.
    Field,
    /// Reading the input failed.
    Io,
    /// Decompressing a gzip or zstd input failed (a corrupt or truncated
    /// stream).
    Decompress,
    /// An event that does not fit the MFOTL signature it is read with: a
    /// predicate the signature does not declare, or a value that is not of
    /// its attribute's type.
    Signature,
}

/// A problem in a trace: its kind, the line (and column, where known) where
/// it is, and a message for people. Its [`Display`](fmt::Display) is
/// `line L: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cluster", derive(serde::Serialize, serde::Deserialize))]
pub struct TraceError {
    /// What is wrong.
    pub kind: TraceErrorKind,
    /// The 1-based line of the input where the offending event (or line) starts.
    pub line: u64,
    /// The 1-based column (in bytes) on that line of the offending byte or
    /// field, where the reader knows it.
    pub column: Option<u64>,
    message: String,
}

impl TraceError {
    /// An error of `kind` at `line` described by `message`.
    pub fn new(kind: TraceErrorKind, line: u64, message: impl Into<String>) -> Self {
        TraceError {
            kind,
            line,
            column: None,
            message: message.into(),
        }
    }

    /// The same error, at `column` (1-based) of its line.
    #[must_use]
    pub fn at_column(mut self, column: u64) -> Self {
        self.column = Some(column);
        self
    }

    /// The same error, at `column` if known.
    pub(super) fn with_column(mut self, column: Option<u64>) -> Self {
        self.column = column;
        self
    }

    /// The description, without the line.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TraceError {}

/// The error for a failed read at `line`: [`TraceErrorKind::Decompress`]
/// when the decoder of a compressed input failed (not the user's reader).
pub(super) fn read_error(line: u64, error: &io::Error, decoding: bool) -> TraceError {
    let kind = if decoding {
        TraceErrorKind::Decompress
    } else {
        TraceErrorKind::Io
    };
    TraceError::new(kind, line, format!("cannot read the trace: {error}"))
}
