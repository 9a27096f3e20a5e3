//! The CSV reader (plain DejaVu CSV and the CRV competition's variant): a
//! byte-oriented state machine over the input buffer that writes the cleaned
//! fields of one record straight into the [`Batch`], with no allocation per
//! field or per record. Its rules are the module docs of [`super`].

use std::io::Read;

use super::diag::{parse_time, show, too_long};
use super::event::{Batch, trim_blanks};
use super::input::Input;
use super::{TraceError, read_error};

/// Where the parser is, between two bytes of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the start of a field.
    Start,
    /// At the start of a field after blanks (CRV only).
    StartBlanks,
    /// In an unquoted field.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// After a `"` in a quoted field: closing, or half of a `""`.
    QuoteInQuoted,
    /// After a closing quote and blanks (CRV only).
    QuoteBlanks,
    /// After a closing quote (and maybe blanks) and a `\r`.
    QuoteCr,
}

/// The CSV reader's state between records.
pub(super) struct Csv {
    /// CRV: trim blanks, quotes may follow blanks, a header comes first.
    crv: bool,
    /// Whether the CRV header is still to come.
    header: bool,
    /// `Some(decimals)` in a timed trace: the time stamps' precision.
    timed: Option<u8>,
    /// The line of the next byte.
    line: u64,
    pub(super) limit: u64,
    /// Whether the last error concerned one event only (its record was
    /// read whole): reading may go on after it.
    pub(super) bad_event: bool,
}

impl Csv {
    pub(super) fn new(crv: bool, timed: Option<u8>, line: u64, limit: u64) -> Self {
        Csv {
            crv,
            header: crv,
            timed,
            line,
            limit,
            bad_event: false,
        }
    }

    /// Reads the next event into `batch` (cleared first); `Ok(false)` at the
    /// end of the input.
    pub(super) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<bool, TraceError> {
        batch.clear();
        loop {
            let line = self.line;
            if !self.record(input, batch)? {
                return Ok(false);
            }
            let blank = batch.fields() == 1
                && batch
                    .field(0)
                    .first()
                    .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r'))
                && trim_blanks(batch.field(0)).is_empty();
            if blank {
                batch.abandon();
                continue;
            }
            if self.header {
                self.header = false;
                if trim_blanks(batch.field(0)).eq_ignore_ascii_case(b"event") {
                    batch.abandon();
                    continue;
                }
                return Err(TraceError {
                    line,
                    message: format!(
                        "expected the CRV header line `event, ...`, found `{}`",
                        show(batch.field(0))
                    ),
                });
            }
            let time = self
                .check(batch, line)
                .inspect_err(|_| self.bad_event = true)?;
            batch.finish(time, line);
            return Ok(true);
        }
    }

    /// Checks the record as an event; its time.
    #[inline]
    fn check(&self, batch: &mut Batch, line: u64) -> Result<u64, TraceError> {
        let error = |message: String| TraceError { line, message };
        let name = batch.field(0);
        if name.first().is_none_or(|b| matches!(b, b' ' | b'\t')) && trim_blanks(name).is_empty() {
            return Err(error("empty event name".to_owned()));
        }
        let Some(decimals) = self.timed else {
            return Ok(0);
        };
        let n = batch.fields();
        if n < 2 {
            return Err(error(format!(
                "missing timestamp: event `{}` has no fields after its name, but a \
                 timed trace needs the time as the last field",
                show(batch.field(0))
            )));
        }
        let time = parse_time(batch.field(n - 1), decimals).map_err(error)?;
        batch.drop_last_field();
        Ok(time)
    }

    /// Ends the current field: in an unquoted field, drops the `\r` of a CRLF
    /// (`last`: the record ends here) and, in CRV, trailing blanks.
    #[inline(always)]
    fn end_field(&self, batch: &mut Batch, state: State, last: bool) {
        if state == State::Unquoted
            && let Some(&end) = batch.current_field().last()
            && (self.crv || (last && end == b'\r'))
        {
            let field = batch.current_field();
            let mut len = field.len();
            if last && field.ends_with(b"\r") {
                len -= 1;
            }
            if self.crv {
                while len > 0 && matches!(field[len - 1], b' ' | b'\t') {
                    len -= 1;
                }
            }
            batch.truncate_current(len);
        }
        batch.end_field();
    }

    /// Reads one record (maybe blank) into `batch`; `Ok(false)` if the input
    /// ends before it starts.
    #[inline]
    fn record<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<bool, TraceError> {
        let start_line = self.line;
        let mut size = 0u64;
        let mut state = State::Start;
        batch.begin();
        let fail = |message: String| TraceError {
            line: start_line,
            message,
        };
        loop {
            if input.pos == input.filled {
                let more = input.read_more().map_err(|e| read_error(self.line, &e))?;
                if !more {
                    break;
                }
            }
            let chunk = &input.buf[input.pos..input.filled];
            let mut i = 0;
            while i < chunk.len() {
                if state == State::Start && !matches!(chunk[i], b'"' | b',' | b'\n' | b' ' | b'\t')
                {
                    // An unquoted field (in CRV too: no leading blank).
                    state = State::Unquoted;
                }
                if state == State::Unquoted {
                    // The fast path: copy up to the next `,` or line end.
                    let rest = &chunk[i..];
                    let k = rest
                        .iter()
                        .position(|&b| b == b',' || b == b'\n')
                        .unwrap_or(rest.len());
                    if size + k as u64 > self.limit {
                        input.pos += i + (self.limit - size) as usize + 1;
                        return Err(fail(too_long(self.limit)));
                    }
                    size += k as u64;
                    batch.extend(&rest[..k]);
                    i += k;
                    if i == chunk.len() {
                        break;
                    }
                } else if state == State::Quoted {
                    let rest = &chunk[i..];
                    let k = rest.iter().position(|&b| b == b'"').unwrap_or(rest.len());
                    if size + k as u64 > self.limit {
                        let over = (self.limit - size) as usize + 1;
                        self.line += count_lines(&rest[..over]);
                        input.pos += i + over;
                        return Err(fail(too_long(self.limit)));
                    }
                    size += k as u64;
                    self.line += count_lines(&rest[..k]);
                    batch.extend(&rest[..k]);
                    i += k;
                    if i == chunk.len() {
                        break;
                    }
                }
                let b = chunk[i];
                i += 1;
                if b == b'\n' && state != State::Quoted {
                    self.end_field(batch, state, true);
                    self.line += 1;
                    input.pos += i;
                    return Ok(true);
                }
                size += 1;
                if size > self.limit {
                    input.pos += i;
                    return Err(fail(too_long(self.limit)));
                }
                state = match (state, b) {
                    (State::Start | State::StartBlanks, b'"') => State::Quoted,
                    (State::Start | State::StartBlanks, b' ' | b'\t') if self.crv => {
                        State::StartBlanks
                    }
                    (State::Start | State::StartBlanks, b',') => {
                        batch.end_field();
                        State::Start
                    }
                    (State::Start | State::StartBlanks, _) => {
                        batch.push(b);
                        State::Unquoted
                    }
                    (State::Unquoted, b',') => {
                        self.end_field(batch, state, false);
                        State::Start
                    }
                    (State::Unquoted, _) => {
                        batch.push(b);
                        State::Unquoted
                    }
                    (State::Quoted, _) => State::QuoteInQuoted, // b == '"'
                    (State::QuoteInQuoted, b'"') => {
                        batch.push(b'"');
                        State::Quoted
                    }
                    (State::QuoteInQuoted | State::QuoteBlanks, b',') => {
                        batch.end_field();
                        State::Start
                    }
                    (State::QuoteInQuoted | State::QuoteBlanks, b'\r') => State::QuoteCr,
                    (State::QuoteInQuoted | State::QuoteBlanks, b' ' | b'\t') if self.crv => {
                        State::QuoteBlanks
                    }
                    (State::QuoteInQuoted | State::QuoteBlanks, _) => {
                        input.pos += i;
                        return Err(fail(after_quote(b)));
                    }
                    (State::QuoteCr, _) => {
                        input.pos += i;
                        return Err(fail(after_quote(b'\r')));
                    }
                };
            }
            input.pos += i;
        }
        // The end of the input.
        match state {
            State::Start if size == 0 && batch.fields() == 0 => {
                batch.abandon();
                Ok(false)
            }
            State::Quoted => Err(fail(format!(
                "broken quoting: a quoted field is never closed (unterminated `\"`; {HINT})"
            ))),
            _ => {
                self.end_field(batch, state, true);
                Ok(true)
            }
        }
    }
}

const HINT: &str = "write a literal quote as `\"\"` inside a quoted field";

fn after_quote(byte: u8) -> String {
    format!(
        "broken quoting: unexpected `{}` after the closing quote of a quoted field ({HINT})",
        show(&[byte])
    )
}

#[inline]
fn count_lines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Whether the first non-blank line of `head` (the start of the input)
/// is a CRV header: its first field, unquoted and trimmed, is `event` in any
/// case. `None` if `head` holds no complete such line yet and more input may
/// follow (`eof` false).
pub(super) fn is_crv_header(head: &[u8], eof: bool) -> Option<bool> {
    let mut rest = head;
    loop {
        let end = rest.iter().position(|&b| b == b'\n');
        let line = &rest[..end.unwrap_or(rest.len())];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if trim_blanks(line).is_empty() {
            match end {
                Some(e) => {
                    rest = &rest[e + 1..];
                    continue;
                }
                None => return eof.then_some(false),
            }
        }
        let first = line.split(|&b| b == b',').next().unwrap_or_default();
        let first = trim_blanks(first);
        let first = first
            .strip_prefix(b"\"")
            .and_then(|f| f.strip_suffix(b"\""))
            .unwrap_or(first);
        if end.is_none() && !eof {
            return None;
        }
        return Some(first.eq_ignore_ascii_case(b"event"));
    }
}
