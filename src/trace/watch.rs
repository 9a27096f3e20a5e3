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
//! It copies nothing: outside quoted fields it only looks for `"` bytes.
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
}

impl Fault {
    /// Byte offset of the problem in the input.
    pub(super) fn offset(self) -> u64 {
        match self {
            Fault::Unterminated { offset }
            | Fault::AfterQuote { offset, .. }
            | Fault::QuoteAfterBlanks { offset } => offset,
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
    /// Whether the content of the current quoted field so far ends with `\r`.
    content_cr: bool,
    /// Offsets of line ends (`\n`, or the input's length for its end) right
    /// after a quoted field whose content ends with `\r`: that `\r` is data,
    /// not half of a CRLF. Only those ahead of the CSV parser are kept.
    kept_cr: VecDeque<u64>,
}

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
            content_cr: false,
            kept_cr: VecDeque::new(),
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
                        self.state = self.after_plain(&chunk[i..]);
                        return;
                    };
                    self.state = match self.after_plain(&chunk[i..i + k]) {
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
                        self.content_cr = chunk[chunk.len() - 1] == b'\r';
                        return;
                    }
                    Some(k) => {
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
                            State::Start
                        }
                        b',' | b'\n' => State::Start,
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

/// Whether `b` is a space or a tab.
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<R: Read> Read for Watch<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let n = loop {
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
            self.scan(chunk, self.total);
            self.total += n as u64;
            self.last_byte = Some(chunk[n - 1]);
        }
        Ok(n)
    }
}
