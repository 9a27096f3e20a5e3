//! A pass-through [`Read`] adapter that watches the raw bytes on their way to
//! the CSV parser.
//!
//! The `csv` crate is lenient: it silently accepts a quoted field that is never
//! closed (it runs to the end of the input) and characters after the closing
//! quote of a quoted field (`"ab"c` reads as `abc`). A [`ByteRecord`] keeps no
//! trace of the raw bytes, so these problems are detected here, by a small
//! state machine that mirrors `csv-core`'s quoting rules (quote `"`, doubled
//! quotes inside quoted fields, delimiter `,`, terminator `\n`). The first
//! problem of each kind is remembered with its byte offset; the reader reports
//! it when it reads the record that contains that offset. (The watcher runs
//! ahead of the parser by at most one buffer.)
//!
//! The watcher also counts the bytes and remembers the last one, which lets the
//! reader tell a record ended by a newline from one ended by the end of the
//! input (for line numbers), and it notes the line ends that follow a quoted
//! field whose content ends with `\r` (that `\r` is data, not half of a CRLF).
//!
//! It also bounds the size of a record: when the record being read grows
//! beyond the limit, the watcher passes on one byte past the limit (so that
//! the parser never sees the record end) and then fails the next read; the
//! reader turns that into an error naming the record's line. Memory stays
//! bounded however long a line (or an unterminated quoted field) is.
//!
//! It copies nothing: outside quoted fields it only looks for `"` bytes (and
//! for the last line end of a quote-free stretch, searching backwards).
//!
//! [`ByteRecord`]: csv::ByteRecord

use std::collections::VecDeque;
use std::io::{self, Read};

/// Where the quoting state machine is, between two bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the start of a field (or of a record, or between records).
    Start,
    /// At the start of a field after spaces or tabs: a `"` here is an ordinary
    /// byte for the CSV parser.
    StartBlanks,
    /// Inside an unquoted field; a `"` here is an ordinary byte.
    Unquoted,
    /// Inside a quoted field.
    Quoted,
    /// Just after a `"` inside a quoted field: either the closing quote or the
    /// first half of a doubled quote.
    QuoteInQuoted,
    /// After a closing quote and spaces or tabs.
    QuoteBlanks,
    /// After a closing quote (and maybe blanks) and a `\r`: fine if a `\n`
    /// follows.
    QuoteCr,
}

/// A quoting problem found in the raw input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// A quoted field opened at `offset` is still open at the end of input.
    Unterminated {
        /// Byte offset of the opening quote.
        offset: u64,
    },
    /// The byte `byte` at `offset` follows the closing quote of a quoted
    /// field (only `,`, a line end, or another `"` may; blanks may too in the
    /// CRV format).
    AfterQuote {
        /// Byte offset of the offending byte.
        offset: u64,
        /// The offending byte.
        byte: u8,
    },
    /// A `"` at `offset` follows spaces or tabs at the start of a field: a
    /// literal character in the plain format, a mistake in the CRV format
    /// (where it looks like a quoted field but is not read as one).
    QuoteAfterBlanks {
        /// Byte offset of the quote.
        offset: u64,
    },
    /// A record longer than `limit` bytes (its line end excluded) ends in the
    /// input already read. (One that does not is reported by failing the
    /// read; see [`Watch::too_long`].)
    TooLong {
        /// Byte offset of the record's first byte past the limit.
        offset: u64,
        /// The maximum size of a record.
        limit: u64,
    },
}

impl Fault {
    /// Byte offset of the problem in the input.
    pub(super) fn offset(self) -> u64 {
        match self {
            Fault::Unterminated { offset }
            | Fault::AfterQuote { offset, .. }
            | Fault::QuoteAfterBlanks { offset }
            | Fault::TooLong { offset, .. } => offset,
        }
    }
}

/// The watching adapter around the user's reader.
pub(super) struct Watch<R> {
    inner: R,
    state: State,
    total: u64,
    last_byte: Option<u8>,
    saw_quoted_field: bool,
    open_quote: u64,
    /// The first problem in any format.
    fault: Option<Fault>,
    /// The first blank after a closing quote (a problem in the plain format).
    plain_fault: Option<Fault>,
    /// The first quote after leading blanks (a problem in the CRV format).
    crv_fault: Option<Fault>,
    /// The first record beyond the limit that ends in the input read so far
    /// (reported before any other problem in the same record).
    long_fault: Option<Fault>,
    /// Whether the content of the current quoted field so far ends with `\r`.
    content_cr: bool,
    /// Offsets of line ends (`\n`, or the input's length for its end) right
    /// after a quoted field whose content ends with `\r`: that `\r` is data,
    /// not half of a CRLF. Only those ahead of the CSV parser are kept.
    kept_cr: VecDeque<u64>,
    /// The maximum size of a record in bytes, its line end excluded.
    limit: u64,
    /// Offset of the first byte of the current record (just after the line
    /// end of the previous one).
    record_start: u64,
    /// Line ends inside quoted fields of the current record so far.
    record_inner_lines: u64,
    /// Set when the current record grew beyond `limit`: the line ends inside
    /// the part of it that was passed on. The next read fails.
    too_long: Option<u64>,
}

/// The message of the read error that follows a record beyond the limit.
const TOO_LONG: &str = "event beyond the maximum size";

impl<R: Read> Watch<R> {
    /// Wraps `inner`.
    pub(super) fn new(inner: R) -> Self {
        Watch {
            inner,
            state: State::Start,
            total: 0,
            last_byte: None,
            saw_quoted_field: false,
            open_quote: 0,
            fault: None,
            plain_fault: None,
            crv_fault: None,
            long_fault: None,
            content_cr: false,
            kept_cr: VecDeque::new(),
            limit: u64::MAX,
            record_start: 0,
            record_inner_lines: 0,
            too_long: None,
        }
    }

    /// Sets the maximum size of a record, in bytes, its line end excluded.
    pub(super) fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// The maximum size of a record.
    pub(super) fn limit(&self) -> u64 {
        self.limit
    }

    /// If the input failed because a record grew beyond the limit: the number
    /// of line ends inside quoted fields in the part of it read.
    pub(super) fn too_long(&self) -> Option<u64> {
        self.too_long
    }

    /// Notes that the record ends with the line end at `offset`, and whether
    /// it is too long.
    #[inline]
    fn end_record(&mut self, offset: u64) {
        if offset - self.record_start > self.limit {
            let fault = Fault::TooLong {
                offset: self.record_start + self.limit,
                limit: self.limit,
            };
            Self::note(&mut self.long_fault, fault);
        }
        self.record_start = offset + 1;
        self.record_inner_lines = 0;
    }

    /// Notes the record ends in `bytes`, which start at `offset` and lie
    /// outside quoted fields: each `\n` ends a record.
    #[inline]
    fn line_ends(&mut self, bytes: &[u8], offset: u64) {
        if offset + bytes.len() as u64 - self.record_start <= self.limit {
            // No record ending here is too long: only the last line end
            // matters (searched backwards, usually found at once).
            if let Some(p) = bytes.iter().rposition(|&b| b == b'\n') {
                self.end_record(offset + p as u64);
            }
        } else {
            let mut from = 0;
            while let Some(p) = bytes[from..].iter().position(|&b| b == b'\n') {
                self.end_record(offset + (from + p) as u64);
                from += p + 1;
            }
        }
    }

    /// Bytes passed through so far.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// The last byte passed through, if any.
    pub(super) fn last_byte(&self) -> Option<u8> {
        self.last_byte
    }

    /// Whether any quoted field was opened so far (only quoted fields can
    /// contain newlines).
    pub(super) fn saw_quoted_field(&self) -> bool {
        self.saw_quoted_field
    }

    /// The first quoting problem found so far that is one in any format.
    pub(super) fn fault(&self) -> Option<Fault> {
        self.fault
    }

    /// The first record beyond the limit found so far.
    pub(super) fn long_fault(&self) -> Option<Fault> {
        self.long_fault
    }

    /// The first quoting problem found so far that is one in the given format
    /// only (`crv` or plain).
    pub(super) fn format_fault(&self, crv: bool) -> Option<Fault> {
        if crv {
            self.crv_fault
        } else {
            self.plain_fault
        }
    }

    /// Whether the `\r` that ends the last field of a record is data (inside
    /// quotes) rather than half of a CRLF line end, given the offset of the
    /// record's terminating `\n` (or the input's length if it has none).
    /// Records must be asked about in order.
    pub(super) fn keeps_cr(&mut self, line_end: u64) -> bool {
        while let Some(&front) = self.kept_cr.front() {
            if front > line_end {
                break;
            }
            self.kept_cr.pop_front();
            if front == line_end {
                return true;
            }
        }
        false
    }

    fn note(slot: &mut Option<Fault>, fault: Fault) {
        if slot.is_none() {
            *slot = Some(fault);
        }
    }

    /// The state after the quote-free bytes `plain`, starting in `self.state`
    /// (one of `Start`, `StartBlanks`, `Unquoted`).
    fn after_plain(&self, plain: &[u8]) -> State {
        match plain.iter().rposition(|&b| !is_blank(b)) {
            None if plain.is_empty() || self.state == State::Unquoted => self.state,
            None => State::StartBlanks,
            Some(p) if matches!(plain[p], b',' | b'\n') => {
                if p + 1 == plain.len() {
                    State::Start
                } else {
                    State::StartBlanks
                }
            }
            Some(_) => State::Unquoted,
        }
    }

    /// Runs the state machine over `chunk`, which starts at byte offset `base`.
    fn scan(&mut self, chunk: &[u8], base: u64) {
        let mut i = 0;
        while i < chunk.len() {
            let offset = base + i as u64;
            match self.state {
                State::Start | State::StartBlanks | State::Unquoted => {
                    // `contains` is a fast (word-at-a-time) search.
                    let rest = &chunk[i..];
                    let found = rest
                        .contains(&b'"')
                        .then(|| rest.iter().position(|&b| b == b'"'));
                    let Some(k) = found.flatten() else {
                        self.line_ends(rest, offset);
                        self.state = self.after_plain(rest);
                        return;
                    };
                    self.line_ends(&rest[..k], offset);
                    self.state = match self.after_plain(&rest[..k]) {
                        State::Start => {
                            self.saw_quoted_field = true;
                            self.open_quote = offset + k as u64;
                            self.content_cr = false;
                            State::Quoted
                        }
                        State::StartBlanks => {
                            let fault = Fault::QuoteAfterBlanks {
                                offset: offset + k as u64,
                            };
                            Self::note(&mut self.crv_fault, fault);
                            State::Unquoted
                        }
                        _ => State::Unquoted,
                    };
                    i += k + 1;
                }
                State::Quoted => match chunk[i..].iter().position(|&b| b == b'"') {
                    None => {
                        self.record_inner_lines += count_line_ends(&chunk[i..]);
                        self.content_cr = chunk[chunk.len() - 1] == b'\r';
                        return;
                    }
                    Some(k) => {
                        self.record_inner_lines += count_line_ends(&chunk[i..i + k]);
                        if k > 0 {
                            self.content_cr = chunk[i + k - 1] == b'\r';
                        }
                        self.state = State::QuoteInQuoted;
                        i += k + 1;
                    }
                },
                State::QuoteInQuoted | State::QuoteBlanks => {
                    let b = chunk[i];
                    self.state = match b {
                        b'"' if self.state == State::QuoteInQuoted => {
                            self.content_cr = false;
                            State::Quoted
                        }
                        b'\n' if self.state == State::QuoteInQuoted && self.content_cr => {
                            self.kept_cr.push_back(offset);
                            self.end_record(offset);
                            State::Start
                        }
                        b'\n' => {
                            self.end_record(offset);
                            State::Start
                        }
                        b',' => State::Start,
                        b'\r' => State::QuoteCr,
                        b' ' | b'\t' => {
                            let fault = Fault::AfterQuote { offset, byte: b };
                            Self::note(&mut self.plain_fault, fault);
                            State::QuoteBlanks
                        }
                        _ => {
                            Self::note(&mut self.fault, Fault::AfterQuote { offset, byte: b });
                            State::Unquoted
                        }
                    };
                    i += 1;
                }
                State::QuoteCr => {
                    let b = chunk[i];
                    if b == b'\n' {
                        self.end_record(offset);
                        self.state = State::Start;
                    } else {
                        // The `\r` (one byte back, maybe in the previous chunk)
                        // is not part of a line end.
                        let fault = Fault::AfterQuote {
                            offset: offset - 1,
                            byte: b'\r',
                        };
                        Self::note(&mut self.fault, fault);
                        self.state = if b == b',' {
                            State::Start
                        } else {
                            State::Unquoted
                        };
                    }
                    i += 1;
                }
            }
        }
    }
}

/// The number of `\n` bytes in `bytes`.
fn count_line_ends(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Whether `b` is a space or a tab.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<R: Read> Read for Watch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.too_long.is_some() {
            return Err(io::Error::other(TOO_LONG));
        }
        let mut n = loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        if n == 0 {
            // End of input (maybe not the first time it is seen).
            if self.state == State::Quoted {
                let fault = Fault::Unterminated {
                    offset: self.open_quote,
                };
                Self::note(&mut self.fault, fault);
            }
            if self.state == State::QuoteInQuoted
                && self.content_cr
                && self.kept_cr.back() != Some(&self.total)
            {
                self.kept_cr.push_back(self.total);
            }
        } else {
            let chunk = &buf[..n];
            let base = self.total;
            self.scan(chunk, base);
            if (base + n as u64).saturating_sub(self.record_start) > self.limit {
                // The record started at `record_start` has no line end in the
                // chunk after it. Pass on one byte past the limit, so that the
                // parser needs more, and fail the next read. Within the
                // record, every `\n` is inside a quoted field.
                let cut = (self.record_start + self.limit + 1 - base) as usize;
                let beyond = count_line_ends(&chunk[cut..]);
                self.too_long = Some(self.record_inner_lines.saturating_sub(beyond));
                n = cut;
            }
            self.total += n as u64;
            self.last_byte = Some(chunk[n - 1]);
        }
        Ok(n)
    }
}
