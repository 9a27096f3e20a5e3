//! MonPoly logs: a sequence of time-points, each an `@`, a time stamp and
//! the events that happen at that time-point, read as MonPoly 1.4 reads
//! them:
//!
//! ```text
//! @1438 login(alice) access(alice, f1)
//! @1440 logout (alice)   # a comment
//! @1441 open(a)(b)(c)    # three events: open(a), open(b), open(c)
//! @1442;
//! ```
//!
//! - A time stamp is a natural or decimal number (leading zeros allowed),
//!   read in ticks as in the other formats (see the [module](super) docs);
//!   time stamps must not decrease. (MonPoly itself reads whole numbers
//!   only: the MFOTL front end refuses decimals, see docs/MFOTL.md.)
//! - An event is a name followed by its tuple of arguments in parentheses,
//!   separated by commas: `p(a, b)`, `p()`; a name alone is an event
//!   without arguments. Several tuples may follow one name: `p(a)(b)` is the
//!   two events `p(a)` and `p(b)`. Spaces, tabs and line ends may appear
//!   between any two tokens, so a time-point may span lines, and a line may
//!   hold several time-points. A time-point may have no event, and may end
//!   with `;`.
//! - A name or an unquoted value is a run of bytes other than white space
//!   and `( ) , @ # ; " { }` (MonPoly's own runs are letters, digits and
//!   `_ [ ] / : - . !`; hindsight also takes the other bytes, so a value such
//!   as `+5` or `a=b` is read rather than refused).
//! - A quoted value (or name) is anything between two `"`, line ends
//!   included, where `\` takes the next byte as it is (`"say \"hi\""`); as in
//!   MonPoly, the value keeps the backslashes. `r"..."` (MonPoly's regular
//!   expression constants) is the quoted value.
//! - `#` starts a comment that runs to the end of the line.
//! - MonPoly's commands (`>print<`, `>terminate<`, ...) are not read: a `>`
//!   where a time-point or an event should start is an error that says so.
//!
//! Each event's line is the line of its name (of its tuple, for the second
//! and later tuples of a name); a time-point's is the line of its `@`. Each
//! field's line and column are kept ([`super::EventRef::place`]). The
//! maximum event size applies to a whole time-point.

use std::io::Read;

use super::diag::{parse_time, show, too_long};
use super::event::Batch;
use super::input::Input;
use super::{TraceError, TraceErrorKind as K};

/// The MonPoly reader.
pub(super) struct MonPoly {
    line: u64,
    /// The 1-based column (in bytes) of the next byte on its line.
    column: u64,
    limit: u64,
    /// The time stamps' precision: ticks of `10^-decimals` time units.
    decimals: u8,
    /// Bytes of the current time-point so far.
    size: u64,
    /// The line where the current time-point starts.
    start: u64,
    /// The time stamp being read (a buffer kept between time-points).
    stamp: Vec<u8>,
}

/// Whether `b` may be part of a name or an unquoted value.
#[inline]
fn is_token(b: u8) -> bool {
    TOKEN[b as usize]
}

/// [`is_token`] as a table, for scanning.
const TOKEN: [bool; 256] = {
    let mut t = [true; 256];
    let stops = b" \t\r\n(),@#;\"{}";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = false;
        i += 1;
    }
    t
};

/// `b` as an error message shows it.
fn found(b: Option<u8>) -> String {
    b.map_or("the end of the log".to_owned(), |b| {
        format!("`{}`", show(&[b]))
    })
}

impl MonPoly {
    pub(super) fn new(limit: u64, decimals: u8) -> Self {
        MonPoly {
            line: 1,
            column: 1,
            limit,
            decimals,
            size: 0,
            start: 1,
            stamp: Vec::new(),
        }
    }

    /// The reader of a log whose first byte is on line `line`.
    pub(super) fn at_line(mut self, line: u64) -> Self {
        self.line = line;
        self.start = line;
        self
    }

    /// The next byte, not consumed; `None` at the end.
    #[inline]
    fn peek<R: Read>(&self, input: &mut Input<R>) -> Result<Option<u8>, TraceError> {
        if input.pos == input.filled && !input.fill(self.line)? {
            return Ok(None);
        }
        Ok(Some(input.buf[input.pos]))
    }

    /// Consumes the byte `b` just peeked.
    #[inline]
    fn bump<R: Read>(&mut self, input: &mut Input<R>, b: u8) -> Result<(), TraceError> {
        input.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        self.count(1)
    }

    /// Counts `n` more bytes of the time-point; an error past the limit.
    #[inline]
    fn count(&mut self, n: u64) -> Result<(), TraceError> {
        self.size += n;
        if self.size > self.limit {
            return Err(TraceError::new(
                K::TooLong,
                self.start,
                too_long(self.limit),
            ));
        }
        Ok(())
    }

    /// Consumes the next `n` bytes of the buffer, none a line end.
    #[inline]
    fn advance<R: Read>(&mut self, input: &mut Input<R>, n: usize) -> Result<(), TraceError> {
        input.pos += n;
        self.column += n as u64;
        self.count(n as u64)
    }

    /// Skips white space and comments; the next byte.
    #[inline]
    fn skip<R: Read>(&mut self, input: &mut Input<R>) -> Result<Option<u8>, TraceError> {
        // Most often nothing to skip: the next byte, without a call.
        match input.buf[input.pos..input.filled].first() {
            Some(&b) if !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'#') => Ok(Some(b)),
            _ => self.skip_slow(input),
        }
    }

    /// [`skip`](Self::skip) of at least one byte, or at the buffer's end.
    #[inline(never)]
    fn skip_slow<R: Read>(&mut self, input: &mut Input<R>) -> Result<Option<u8>, TraceError> {
        let mut comment = false;
        while let Some(b) = self.peek(input)? {
            match b {
                b'\n' => comment = false,
                _ if comment => {}
                b' ' | b'\t' | b'\r' => {}
                b'#' => comment = true,
                _ => return Ok(Some(b)),
            }
            self.bump(input, b)?;
        }
        Ok(None)
    }

    /// An error of `kind` at the current place.
    fn error_here(&self, kind: K, message: String) -> TraceError {
        TraceError::new(kind, self.line, message).at_column(self.column)
    }

    fn error(&self, message: String) -> TraceError {
        self.error_here(K::Syntax, message)
    }

    /// The error for a `>` where a time-point or an event should start.
    fn command(&self) -> TraceError {
        self.error(
            "`>` starts one of MonPoly's commands (`>print<`, `>terminate<`, ...), which \
             hindsight does not read; a log holds time-points (`@TS events`)"
                .to_owned(),
        )
    }

    /// Reads a name or a value, unquoted or quoted, into the current field
    /// of `batch` (after white space was skipped; the next byte is `first`).
    /// Returns whether something was read.
    fn field<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
        first: u8,
    ) -> Result<bool, TraceError> {
        if first == b'"' {
            self.quoted(input, batch)?;
            return Ok(true);
        }
        if !is_token(first) {
            return Ok(false);
        }
        let mut any = false;
        while let Some(b) = self.peek(input)? {
            if !is_token(b) {
                // `r"..."`: a regular expression constant, its text.
                if b == b'"' && batch.current_field() == b"r" {
                    batch.truncate_current(0);
                    self.quoted(input, batch)?;
                }
                break;
            }
            // The run of token bytes in the buffer at once (no line ends).
            let avail = &input.buf[input.pos..input.filled];
            let n = avail
                .iter()
                .position(|&b| !is_token(b))
                .unwrap_or(avail.len());
            batch.extend(&avail[..n]);
            self.advance(input, n)?;
            any = true;
        }
        Ok(any)
    }

    /// Reads `"..."` (the next byte is the `"`): its content, `\` taking
    /// the next byte as it is (both kept, as MonPoly keeps them).
    fn quoted<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<(), TraceError> {
        let (line, column) = (self.line, self.column);
        self.bump(input, b'"')?;
        let mut escaped = false;
        loop {
            match self.peek(input)? {
                Some(b'"') if !escaped => break,
                Some(b) => {
                    escaped = !escaped && b == b'\\';
                    batch.push(b);
                    self.bump(input, b)?;
                }
                None => {
                    return Err(TraceError::new(
                        K::Syntax,
                        line,
                        "a quoted value is never closed (unterminated `\"`)",
                    )
                    .at_column(column));
                }
            }
        }
        self.bump(input, b'"')
    }

    /// Reads the next time-point into `batch` (cleared first); `Ok(false)`
    /// at the end of the log.
    pub(super) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<bool, TraceError> {
        batch.clear();
        self.size = 0;
        match self.skip(input)? {
            None => return Ok(false),
            Some(b'@') => {}
            Some(b'>') => return Err(self.command()),
            b => {
                return Err(self.error(format!(
                    "expected `@` and the time stamp of a time-point, found {}",
                    found(b)
                )));
            }
        }
        self.start = self.line;
        self.size = 0;
        self.bump(input, b'@')?;
        // The time stamp.
        let mut stamp = std::mem::take(&mut self.stamp);
        stamp.clear();
        let (line, column) = (self.line, self.column);
        while let Some(b) = self.peek(input)? {
            if !is_token(b) {
                break;
            }
            let avail = &input.buf[input.pos..input.filled];
            let n = avail
                .iter()
                .position(|&b| !is_token(b))
                .unwrap_or(avail.len());
            stamp.extend_from_slice(&avail[..n]);
            self.advance(input, n)?;
        }
        if stamp.is_empty() {
            self.stamp = stamp;
            return Err(self.error_here(K::MissingTime, "missing time stamp after `@`".to_owned()));
        }
        let time = parse_time(&stamp, self.decimals);
        self.stamp = stamp;
        let time = time.map_err(|e| {
            TraceError::new(K::BadTime, line, e.replacen("timestamp", "time stamp", 1))
                .at_column(column)
        })?;
        // The events.
        loop {
            let b = match self.skip(input)? {
                None | Some(b'@') => break,
                Some(b';') => {
                    self.bump(input, b';')?;
                    break;
                }
                Some(b'>') => return Err(self.command()),
                Some(b) => b,
            };
            let line = self.line;
            batch.begin();
            batch.place(self.line, self.column);
            if !self.field(input, batch, b)? {
                return Err(self.error(format!("expected an event name, found {}", found(Some(b)))));
            }
            batch.end_field();
            if self.skip(input)? != Some(b'(') {
                batch.finish(time, line);
                continue;
            }
            // One event per tuple: `p(a)(b)` is `p(a)` and `p(b)`.
            let mut line = line;
            loop {
                self.bump(input, b'(')?;
                self.args(input, batch)?;
                batch.finish(time, line);
                if self.skip(input)? != Some(b'(') {
                    break;
                }
                line = self.line;
                batch.begin_like_last();
            }
        }
        batch.time = time;
        batch.line = self.start;
        Ok(true)
    }

    /// Reads `a, b, ...)` (after the `(`).
    fn args<R: Read>(&mut self, input: &mut Input<R>, batch: &mut Batch) -> Result<(), TraceError> {
        if self.skip(input)? == Some(b')') {
            self.bump(input, b')')?;
            return Ok(());
        }
        loop {
            let b = self.skip(input)?;
            batch.place(self.line, self.column);
            let read = match b {
                Some(b) => self.field(input, batch, b)?,
                None => false,
            };
            if !read {
                return Err(self.error(format!("expected a value, found {}", found(b))));
            }
            batch.end_field();
            match self.skip(input)? {
                Some(b',') => self.bump(input, b',')?,
                Some(b')') => {
                    self.bump(input, b')')?;
                    return Ok(());
                }
                other => {
                    return Err(self.error(format!(
                        "expected `,` or `)` after a value, found {}",
                        found(other)
                    )));
                }
            }
        }
    }
}
