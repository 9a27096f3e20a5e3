//! MonPoly logs: a sequence of time-points, each an `@`, a time stamp and
//! the events that happen at that time-point:
//!
//! ```text
//! @1438 login(alice) access(alice, f1)
//! @1440 logout (alice)   # a comment
//! @1441
//! ```
//!
//! - A time stamp is a natural or decimal number (leading zeros allowed),
//!   read in ticks as in the other formats (see the [module](super) docs);
//!   time stamps must not decrease.
//! - An event is a name followed by its arguments in parentheses, separated
//!   by commas: `p(a, b)`, `p()`; a name alone is an event without
//!   arguments. Spaces, tabs and line ends may appear between any two
//!   tokens, so a time-point may span lines, and a line may hold several
//!   time-points. A time-point may have no event, and may end with `;`.
//! - A name or an unquoted value is a run of bytes other than white space
//!   and `( ) , @ # ; "`; a quoted value is anything between two `"` (no
//!   escapes), line ends included.
//! - `#` starts a comment that runs to the end of the line.
//!
//! Each event's line is the line of its name; a time-point's is the line of
//! its `@`. The maximum event size applies to a whole time-point.

use std::io::Read;

use super::diag::{parse_time, show, too_long};
use super::event::Batch;
use super::input::Input;
use super::{TraceError, TraceErrorKind as K};

/// The MonPoly reader.
pub(super) struct MonPoly {
    line: u64,
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
    !matches!(
        b,
        b' ' | b'\t' | b'\r' | b'\n' | b'(' | b')' | b',' | b'@' | b'#' | b';' | b'"'
    )
}

impl MonPoly {
    pub(super) fn new(limit: u64, decimals: u8) -> Self {
        MonPoly {
            line: 1,
            limit,
            decimals,
            size: 0,
            start: 1,
            stamp: Vec::new(),
        }
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
        self.line += u64::from(b == b'\n');
        self.size += 1;
        if self.size > self.limit {
            return Err(TraceError::new(
                K::TooLong,
                self.start,
                too_long(self.limit),
            ));
        }
        Ok(())
    }

    /// Skips white space and comments; the next byte.
    fn skip<R: Read>(&mut self, input: &mut Input<R>) -> Result<Option<u8>, TraceError> {
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

    fn error(&self, message: String) -> TraceError {
        TraceError::new(K::Syntax, self.line, message)
    }

    /// Reads a name or unquoted value into `batch`; whether it is not empty.
    fn token<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<bool, TraceError> {
        let mut any = false;
        while let Some(b) = self.peek(input)? {
            if !is_token(b) {
                break;
            }
            batch.push(b);
            self.bump(input, b)?;
            any = true;
        }
        Ok(any)
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
        let found = |b: u8| format!("`{}`", show(&[b]));
        match self.skip(input)? {
            None => return Ok(false),
            Some(b'@') => {}
            Some(b) => {
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
        while let Some(b) = self.peek(input)? {
            if !is_token(b) {
                break;
            }
            stamp.push(b);
            self.bump(input, b)?;
        }
        if stamp.is_empty() {
            self.stamp = stamp;
            return Err(TraceError::new(
                K::MissingTime,
                self.line,
                "missing time stamp after `@`",
            ));
        }
        let time = parse_time(&stamp, self.decimals);
        self.stamp = stamp;
        let time = time.map_err(|e| {
            TraceError::new(
                K::BadTime,
                self.line,
                e.replacen("timestamp", "time stamp", 1),
            )
        })?;
        // The events.
        loop {
            let b = match self.skip(input)? {
                None | Some(b'@') => break,
                Some(b';') => {
                    self.bump(input, b';')?;
                    break;
                }
                Some(b) => b,
            };
            if !is_token(b) {
                return Err(self.error(format!("expected an event name, found {}", found(b))));
            }
            let line = self.line;
            batch.begin();
            self.token(input, batch)?;
            batch.end_field();
            if self.skip(input)? == Some(b'(') {
                self.bump(input, b'(')?;
                self.args(input, batch)?;
            }
            batch.finish(time, line);
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
            match self.skip(input)? {
                Some(b'"') => {
                    self.bump(input, b'"')?;
                    let line = self.line;
                    loop {
                        match self.peek(input)? {
                            Some(b'"') => break,
                            Some(b) => {
                                batch.push(b);
                                self.bump(input, b)?;
                            }
                            None => {
                                return Err(TraceError::new(
                                    K::Syntax,
                                    line,
                                    "a quoted value is never closed (unterminated `\"`)",
                                ));
                            }
                        }
                    }
                    self.bump(input, b'"')?;
                }
                Some(b) if is_token(b) => {
                    self.token(input, batch)?;
                }
                other => {
                    return Err(self.error(format!(
                        "expected a value, found {}",
                        other.map_or("the end of the log".to_owned(), |b| format!(
                            "`{}`",
                            show(&[b])
                        ))
                    )));
                }
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
                        other.map_or("the end of the log".to_owned(), |b| format!(
                            "`{}`",
                            show(&[b])
                        ))
                    )));
                }
            }
        }
    }
}
