//! The CSV reader (plain DejaVu CSV and the CRV competition's variant). A
//! record without a quote that lies whole in the input buffer (nearly every
//! record) is read in place: one scan for `,`, `"` and the line end, and its
//! fields are spans of the buffer (trimmed of spaces and tabs, a CRLF's `\r`
//! dropped), handed on without a copy. Any other record (quoted fields, a
//! record longer than the buffer) goes through a byte-oriented state machine
//! that writes the cleaned fields straight into the [`Batch`]. Neither
//! allocates per field or per record. Their rules are the module docs of
//! [`super`].

use std::io::Read;

use memchr::{memchr, memchr_iter, memchr2, memrchr};

use super::diag::{header_word, parse_time, show, too_long};
use super::event::{Batch, trim_blanks};
use super::fields::time_kind;
use super::input::Input;
use super::{TraceError, TraceErrorKind as K};
use crate::runtime::names::same_bytes;

/// The high bit of every byte of a word.
const HIGH: u64 = u64::from_le_bytes([0x80; 8]);

/// The bytes of a word (eight bytes, little-endian) that may be a comma,
/// a line end or a quote: the high bit of each such byte is set. A byte
/// that is one is always flagged; a byte just above one may be flagged
/// too (the borrow of the subtraction), so each flagged byte is looked at.
#[inline(always)]
fn specials(word: u64) -> u64 {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    zero(word ^ (ONES * u64::from(b',')))
        | zero(word ^ (ONES * u64::from(b'\n')))
        | zero(word ^ (ONES * u64::from(b'"')))
}

/// Where the parser is, between two bytes of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the start of a field.
    Start,
    /// At the start of a field after blanks.
    StartBlanks,
    /// In an unquoted field.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// After a `"` in a quoted field: closing, or half of a `""`.
    QuoteInQuoted,
    /// After a closing quote and blanks.
    QuoteBlanks,
    /// After a closing quote (and maybe blanks) and a `\r`.
    QuoteCr,
}

/// The CSV reader's state between records.
pub(super) struct Csv {
    /// Whether the next record is the trace's first (after a CRV header).
    first: bool,
    /// Whether the CRV header is still to come (the two dialects differ in
    /// that only: both trim blanks around fields, and a quote may follow
    /// them).
    header: bool,
    /// `Some(decimals)` in a timed trace: the time stamps' precision.
    timed: Option<u8>,
    /// The line of the next byte.
    line: u64,
    pub(super) limit: u64,
    /// Whether the last error concerned one event only (its record was
    /// read whole): reading may go on after it.
    pub(super) bad_event: bool,
    /// Where the last record read in place starts in the input's buffer
    /// (for the columns of errors).
    record_start: usize,
    /// Whether the last event read was a record read in place (its bytes
    /// are `record_start..pos` of the input's buffer, line end included).
    in_place: bool,
}

impl Csv {
    pub(super) fn new(crv: bool, timed: Option<u8>, line: u64, limit: u64) -> Self {
        Csv {
            first: true,
            header: crv,
            timed,
            line,
            limit,
            bad_event: false,
            record_start: 0,
            in_place: false,
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
        self.in_place = false;
        loop {
            let line = self.line;
            let more = match self.record_in_place(input, batch)? {
                Some(more) => more,
                None => self.record(input, batch)?,
            };
            if !more {
                return Ok(false);
            }
            let buf = &input.buf[..];
            let first = batch.field(0, buf);
            let blank = batch.fields() == 1
                && first
                    .first()
                    .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r'))
                && trim_blanks(first).is_empty();
            if blank {
                batch.abandon();
                continue;
            }
            if self.header {
                self.header = false;
                if trim_blanks(first).eq_ignore_ascii_case(b"event") {
                    batch.abandon();
                    continue;
                }
                return Err(TraceError::new(
                    K::MissingHeader,
                    line,
                    format!(
                        "expected the CRV header line `event, ...`, found `{}`",
                        show(first)
                    ),
                ));
            }
            let first = std::mem::replace(&mut self.first, false);
            let time = self
                .check(batch, buf, line)
                .map_err(|e| if first { header_row(e, batch, buf) } else { e })
                .inspect_err(|_| self.bad_event = true)?;
            batch.finish(time, line);
            self.in_place = batch.borrowed;
            return Ok(true);
        }
    }

    /// Skips the records that follow the last event read (read in place,
    /// a whole line) and are byte for byte the same line, as far as the
    /// input's buffer holds them, up to `max`: their number. They are the
    /// same event (name, arguments, time stamp) on the next lines; the
    /// last event's spans stay valid (the buffer is not refilled).
    pub(super) fn repeats<R: Read>(&mut self, input: &mut Input<R>, max: u64) -> u64 {
        if !self.in_place {
            return 0;
        }
        let (start, end) = (self.record_start, input.pos);
        let buf = &input.buf[..input.filled];
        if end <= start || buf[end - 1] != b'\n' {
            return 0;
        }
        let record = &buf[start..end];
        let len = record.len();
        let mut at = end;
        let mut n = 0;
        while n < max
            && buf
                .get(at..at + len)
                .is_some_and(|next| same_bytes(next, record))
        {
            at += len;
            n += 1;
        }
        input.pos = at;
        self.line += n;
        n
    }

    /// Checks the record as an event; its time.
    #[inline]
    fn check(&self, batch: &mut Batch, buf: &[u8], line: u64) -> Result<u64, TraceError> {
        // The column of the start (or end) of field `i`, known for a record
        // read in place.
        let column = |batch: &Batch, i: usize, end: bool| {
            let (start, stop) = batch.span(i);
            let at = if end { stop } else { start };
            batch.borrowed.then(|| (at - self.record_start + 1) as u64)
        };
        let error = |kind, message: String, column: Option<u64>| {
            TraceError::new(kind, line, message).with_column(column)
        };
        let name = batch.field(0, buf);
        if name.first().is_none_or(|b| matches!(b, b' ' | b'\t')) && trim_blanks(name).is_empty() {
            return Err(error(K::EmptyName, "empty event name".to_owned(), Some(1)));
        }
        let Some(decimals) = self.timed else {
            return Ok(0);
        };
        let n = batch.fields();
        if n < 2 {
            return Err(error(
                K::MissingTime,
                format!(
                    "missing timestamp: event `{}` has no fields after its name, but a \
                     timed trace needs the time as the last field",
                    show(name)
                ),
                column(batch, 0, true),
            ));
        }
        let stamp = batch.field(n - 1, buf);
        let time = parse_time(stamp, decimals)
            .map_err(|m| error(time_kind(stamp), m, column(batch, n - 1, false)))?;
        batch.drop_last_field();
        Ok(time)
    }

    /// Reads one record (maybe blank) in place when it has no quote and lies
    /// whole in the input's buffer: its fields are spans of the buffer.
    /// `Some(false)` at the end of the input; `None` (nothing consumed) for
    /// a record to read with [`record`](Self::record).
    #[inline]
    fn record_in_place<R: Read>(
        &mut self,
        input: &mut Input<R>,
        batch: &mut Batch,
    ) -> Result<Option<bool>, TraceError> {
        loop {
            let base = input.pos;
            let available = &input.buf[base..input.filled];
            if available.is_empty() && input.at_eof() {
                return Ok(Some(false));
            }
            batch.borrowed = true;
            batch.begin();
            let mut start = 0;
            let mut newline = None;
            // Records are short (tens of bytes): rather than a SIMD search
            // started at every field, eight bytes at a time are tested for
            // the three that matter ([`specials`]), and each one found is
            // looked at.
            let mut word = 0;
            'scan: loop {
                let at = 8 * word;
                let mut flags = match available.get(at..at + 8).and_then(|w| w.first_chunk::<8>()) {
                    Some(w) => specials(u64::from_le_bytes(*w)),
                    // The last few bytes: each is looked at.
                    None if at < available.len() => {
                        HIGH & ((1u64 << (8 * (available.len() - at))) - 1)
                    }
                    None => break,
                };
                while flags != 0 {
                    let k = at + flags.trailing_zeros() as usize / 8;
                    flags &= flags - 1;
                    match available[k] {
                        b',' => {
                            self.push_span(batch, available, base, start..k, false);
                            start = k + 1;
                        }
                        b'\n' => {
                            newline = Some(k);
                            break 'scan;
                        }
                        b'"' => {
                            batch.abandon();
                            return Ok(None);
                        }
                        _ => {}
                    }
                }
                word += 1;
            }
            let len = match newline {
                Some(k) => k,
                None if input.at_eof() => available.len(),
                None => {
                    // The record goes on past the buffer: more input, then
                    // again from its start.
                    batch.abandon();
                    if !input.fill(self.line)? && !input.at_eof() {
                        return Ok(None); // Longer than the buffer.
                    }
                    continue;
                }
            };
            if len as u64 > self.limit {
                batch.abandon();
                return Ok(None);
            }
            self.push_span(batch, available, base, start..len, true);
            self.record_start = base;
            input.pos += len + usize::from(newline.is_some());
            self.line += u64::from(newline.is_some());
            return Ok(Some(true));
        }
    }

    /// Adds the field `range` of `record` (at `base` in the input's buffer)
    /// to `batch`, without the `\r` of a CRLF (`last`: the record ends
    /// there), trimmed of spaces and tabs.
    #[inline(always)]
    fn push_span(
        &self,
        batch: &mut Batch,
        record: &[u8],
        base: usize,
        range: std::ops::Range<usize>,
        last: bool,
    ) {
        let (mut start, mut end) = (range.start, range.end);
        if last && end > start && record[end - 1] == b'\r' {
            end -= 1;
        }
        // Nearly every field starts and ends with a byte above the space:
        // one test of each end, and the trimming only when it may apply.
        if let Some(field) = record.get(start..end)
            && let (Some(&first), Some(&last)) = (field.first(), field.last())
            && (first <= b' ' || last <= b' ')
        {
            trim(record, &mut start, &mut end);
        }
        batch.push_span(base + start, base + end);
    }

    /// Ends the current field: in an unquoted field, drops the `\r` of a CRLF
    /// (`last`: the record ends here) and trailing blanks.
    #[inline(always)]
    fn end_field(&self, batch: &mut Batch, state: State, last: bool) {
        if state == State::Unquoted
            && let Some(&end) = batch.current_field().last()
            && matches!(end, b'\r' | b' ' | b'\t')
        {
            let field = batch.current_field();
            let mut len = field.len();
            if last && field.ends_with(b"\r") {
                len -= 1;
            }
            while len > 0 && matches!(field[len - 1], b' ' | b'\t') {
                len -= 1;
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
        batch.borrowed = false;
        batch.begin();
        let fail = |kind, message: String| TraceError::new(kind, start_line, message);
        // Where the current line starts (an offset of the input), and the
        // column of the byte at offset `at` if it is on the record's first
        // line (the line that errors name).
        let mut line_start = input.offset();
        let column =
            |line: u64, at: u64, line_start: u64| (line == start_line).then(|| at - line_start + 1);
        let mut quote_column = None;
        loop {
            if input.pos == input.filled {
                let more = input.fill(self.line)?;
                if !more {
                    break;
                }
            }
            let chunk = &input.buf[input.pos..input.filled];
            let mut i = 0;
            while i < chunk.len() {
                if state == State::Start && !matches!(chunk[i], b'"' | b',' | b'\n' | b' ' | b'\t')
                {
                    // An unquoted field (no leading blank).
                    state = State::Unquoted;
                }
                if state == State::Unquoted {
                    // The fast path: copy up to the next `,` or line end.
                    let rest = &chunk[i..];
                    let k = memchr2(b',', b'\n', rest).unwrap_or(rest.len());
                    if size + k as u64 > self.limit {
                        input.pos += i + (self.limit - size) as usize + 1;
                        return Err(fail(K::TooLong, too_long(self.limit)));
                    }
                    size += k as u64;
                    batch.extend(&rest[..k]);
                    i += k;
                    if i == chunk.len() {
                        break;
                    }
                } else if state == State::Quoted {
                    let rest = &chunk[i..];
                    let k = memchr(b'"', rest).unwrap_or(rest.len());
                    if size + k as u64 > self.limit {
                        let over = (self.limit - size) as usize + 1;
                        self.line += count_lines(&rest[..over]);
                        input.pos += i + over;
                        return Err(fail(K::TooLong, too_long(self.limit)));
                    }
                    size += k as u64;
                    self.line += count_lines(&rest[..k]);
                    if let Some(p) = memrchr(b'\n', &rest[..k]) {
                        line_start = input.offset() + (i + p + 1) as u64;
                    }
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
                    return Err(fail(K::TooLong, too_long(self.limit)));
                }
                // The offset of `b`.
                let at = input.offset() + i as u64 - 1;
                state = match (state, b) {
                    (State::Start | State::StartBlanks, b'"') => {
                        quote_column = column(self.line, at, line_start);
                        State::Quoted
                    }
                    (State::Start | State::StartBlanks, b' ' | b'\t') => State::StartBlanks,
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
                    (State::QuoteInQuoted | State::QuoteBlanks, b' ' | b'\t') => State::QuoteBlanks,
                    (State::QuoteInQuoted | State::QuoteBlanks, _) => {
                        input.pos += i;
                        let e = fail(K::Quoting, after_quote(b));
                        let column = column(self.line, at, line_start);
                        return Err(e.with_column(column));
                    }
                    (State::QuoteCr, _) => {
                        input.pos += i;
                        let e = fail(K::Quoting, after_quote(b'\r'));
                        let column = column(self.line, at - 1, line_start);
                        return Err(e.with_column(column));
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
            State::Quoted => Err(fail(
                K::Quoting,
                format!(
                    "broken quoting: a quoted field is never closed (unterminated `\"`; {HINT})"
                ),
            )
            .with_column(quote_column)),
            _ => {
                self.end_field(batch, state, true);
                Ok(true)
            }
        }
    }
}

/// `error`, the first record's, with a hint when its time stamp is a word
/// and so are its other fields: a header row of column names
/// (`name,msg,ts`), whose last column is not a time stamp.
#[cold]
fn header_row(error: TraceError, batch: &Batch, buf: &[u8]) -> TraceError {
    let words = (0..batch.fields()).all(|i| header_word(batch.field(i, buf)));
    if error.kind != K::BadTime || batch.fields() < 2 || !words {
        return error;
    }
    let message = format!(
        "{} (the first line looks like a header row of column names: remove it, or name its \
         first column `event` to read it as the header of a CRV CSV trace)",
        error.message()
    );
    TraceError::new(error.kind, error.line, message).with_column(error.column)
}

/// Moves `start` and `end` past the spaces and tabs at the ends of
/// `record[start..end]`.
#[cold]
fn trim(record: &[u8], start: &mut usize, end: &mut usize) {
    while *start < *end && matches!(record.get(*start), Some(b' ' | b'\t')) {
        *start += 1;
    }
    while *end > *start && matches!(record.get(*end - 1), Some(b' ' | b'\t')) {
        *end -= 1;
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
    memchr_iter(b'\n', bytes).count() as u64
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
