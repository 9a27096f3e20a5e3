//! [`EventRef`]: a borrowed view of one event, and [`Batch`], the flat buffer
//! the readers of every format fill.
//!
//! A batch holds the events of one record (one event for CSV, XML and JSON,
//! a whole time-point for MonPoly logs): the range of each field, in the
//! bytes of all their fields one after the other, cleaned (unquoted,
//! unescaped, trimmed), or, for a CSV record that needs no cleaning but
//! trimming (no quote), in the reader's input buffer itself, read in place
//! without a copy. No field is allocated on its own.

use std::fmt;
use std::ops::Range;

/// What a batch knows of one of its events.
#[derive(Clone, Debug)]
struct Meta {
    /// Its range in `spans`: its name, then its arguments.
    fields: Range<usize>,
    time: u64,
    line: u64,
}

/// The events of one record, flat.
#[derive(Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    /// The range of each field: in `bytes`, or, when `borrowed`, in the
    /// buffer of the input.
    spans: Vec<(usize, usize)>,
    /// The line and column of each field, for the readers that know them
    /// (MonPoly logs; empty otherwise).
    places: Vec<(u64, u64)>,
    events: Vec<Meta>,
    /// Where the event being built starts in `spans`.
    open: usize,
    /// Where the event being built starts in `bytes`.
    open_bytes: usize,
    /// Where the field being built starts in `bytes`.
    start: usize,
    /// The next event to hand out.
    next: usize,
    /// Whether the spans are of the input's buffer (a CSV record read in
    /// place) rather than of `bytes`.
    pub(super) borrowed: bool,
    /// The time of the record (of its last event, or of the time-point).
    pub(super) time: u64,
    /// The line where the record starts.
    pub(super) line: u64,
}

impl Batch {
    /// Forgets every event.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
        self.places.clear();
        self.events.clear();
        self.open = 0;
        self.open_bytes = 0;
        self.start = 0;
        self.next = 0;
        self.borrowed = false;
    }

    /// Starts a new event; its fields (name first) follow with
    /// [`push`](Self::push) or [`extend`](Self::extend) and
    /// [`end_field`](Self::end_field), or, borrowed, with
    /// [`push_span`](Self::push_span).
    #[inline]
    pub(super) fn begin(&mut self) {
        self.open = self.spans.len();
        self.open_bytes = self.bytes.len();
        self.start = self.bytes.len();
    }

    /// Records the line and column where the next field starts (readers
    /// that know them call it before each field, name included).
    #[inline]
    pub(super) fn place(&mut self, line: u64, column: u64) {
        self.places.push((line, column));
    }

    /// Starts a new event with the name (and its place) of the last
    /// finished one: a MonPoly name followed by several tuples.
    pub(super) fn begin_like_last(&mut self) {
        let Some(first) = self.events.last().map(|m| m.fields.start) else {
            return;
        };
        let (start, end) = self.spans[first];
        let place = self.places.get(first).copied();
        self.begin();
        self.bytes.extend_from_within(start..end);
        if let Some((line, column)) = place {
            self.place(line, column);
        }
        self.end_field();
    }

    /// Appends bytes to the current field.
    #[inline]
    pub(super) fn extend(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends a byte to the current field.
    #[inline]
    pub(super) fn push(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    /// Ends the current field.
    #[inline]
    pub(super) fn end_field(&mut self) {
        let end = self.bytes.len();
        self.spans.push((self.start, end));
        self.start = end;
    }

    /// Adds a field of a borrowed event: `start..end` of the input's buffer.
    #[inline]
    pub(super) fn push_span(&mut self, start: usize, end: usize) {
        self.spans.push((start, end));
    }

    /// Number of fields of the event being built (name included).
    #[inline]
    pub(super) fn fields(&self) -> usize {
        self.spans.len() - self.open
    }

    /// Field `i` of the event being built; `buf` is the input's buffer, for
    /// a borrowed event.
    #[inline]
    pub(super) fn field<'a>(&'a self, i: usize, buf: &'a [u8]) -> &'a [u8] {
        let (start, end) = self.spans[self.open + i];
        let src = if self.borrowed { buf } else { &self.bytes };
        &src[start..end]
    }

    /// The range of field `i` of the event being built (in the input's
    /// buffer for a borrowed event).
    #[inline]
    pub(super) fn span(&self, i: usize) -> (usize, usize) {
        self.spans[self.open + i]
    }

    /// The bytes of the current (unfinished) field so far.
    #[inline]
    pub(super) fn current_field(&self) -> &[u8] {
        &self.bytes[self.start..]
    }

    /// Trims the current (unfinished) field's end to `len` bytes.
    #[inline]
    pub(super) fn truncate_current(&mut self, len: usize) {
        self.bytes.truncate(self.start + len);
    }

    /// Drops the last field of the event being built.
    pub(super) fn drop_last_field(&mut self) {
        if let Some((start, _)) = self.spans.pop()
            && !self.borrowed
        {
            self.bytes.truncate(start);
            self.start = start;
        }
    }

    /// Finishes the current event.
    #[inline]
    pub(super) fn finish(&mut self, time: u64, line: u64) {
        self.events.push(Meta {
            fields: self.open..self.spans.len(),
            time,
            line,
        });
        self.time = time;
        self.line = line;
    }

    /// Drops the event being built (after an error, or a blank record).
    #[inline]
    pub(super) fn abandon(&mut self) {
        self.bytes.truncate(self.open_bytes);
        self.start = self.open_bytes;
        self.spans.truncate(self.open);
        self.places.truncate(self.open);
        if self.events.is_empty() {
            self.borrowed = false;
        }
    }

    /// Number of finished events.
    pub(super) fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether every finished event has been handed out.
    #[inline]
    pub(super) fn exhausted(&self) -> bool {
        self.next >= self.events.len()
    }

    /// Event `i`, numbered `number`; `buf` is the input's buffer, for a
    /// borrowed event.
    #[inline]
    pub(super) fn get<'a>(&'a self, i: usize, number: u64, buf: &'a [u8]) -> EventRef<'a> {
        let m = &self.events[i];
        let src = if self.borrowed { buf } else { &self.bytes };
        let spans = &self.spans[m.fields.clone()];
        let (start, end) = spans[0];
        let places = self.places.get(m.fields.clone()).unwrap_or_default();
        EventRef {
            name: &src[start..end],
            time: m.time,
            line: m.line,
            number,
            bytes: src,
            spans,
            places,
        }
    }

    /// The index of the next event to hand out, moving on.
    #[inline]
    pub(super) fn take_next(&mut self) -> usize {
        self.next += 1;
        self.next - 1
    }

    /// Marks every event handed out.
    pub(super) fn take_all(&mut self) {
        self.next = self.events.len();
    }
}

/// One event of a trace, borrowing the [`TraceReader`](super::TraceReader)'s
/// buffer: valid until the next call to
/// [`next_event`](super::TraceReader::next_event).
///
/// Names and arguments are raw bytes, not necessarily UTF-8.
#[derive(Clone, Copy)]
pub struct EventRef<'a> {
    /// The event name, never empty.
    pub name: &'a [u8],
    /// The event's time: the last field in a timed trace, the time-point's
    /// time stamp in a MonPoly log, 0 otherwise.
    pub time: u64,
    /// The 1-based line of the input where the event starts.
    pub line: u64,
    /// The 1-based number of the event in the trace (blank lines and the CRV
    /// header are not events).
    pub number: u64,
    /// The buffer that holds the arguments: the reader's input buffer for
    /// a CSV record read in place, or its batch of cleaned fields.
    bytes: &'a [u8],
    /// The range of the name, then of each argument, in `bytes`.
    spans: &'a [(usize, usize)],
    /// The line and column of the name, then of each argument, where the
    /// reader knows them (empty otherwise).
    places: &'a [(u64, u64)],
}

impl<'a> EventRef<'a> {
    /// The number of arguments (the timestamp is not one).
    #[inline]
    pub fn arity(&self) -> usize {
        self.spans.len() - 1
    }

    /// The arguments, in order.
    #[inline]
    pub fn args(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        let (bytes, spans) = (self.bytes, self.spans);
        spans[1..]
            .iter()
            .map(move |&(start, end)| &bytes[start..end])
    }

    /// The name and the arguments as one stretch of bytes, when they lie
    /// one after the other, each but the last followed by exactly one byte
    /// (the `,` of a CSV line read in place, untrimmed): from the name's
    /// first byte to the last argument's last. `None` otherwise.
    #[inline]
    pub fn contiguous(&self) -> Option<&'a [u8]> {
        let (first, last) = (self.spans.first()?, self.spans.last()?);
        let adjacent = self.spans.windows(2).all(|w| w[1].0 == w[0].1 + 1);
        adjacent.then(|| &self.bytes[first.0..last.1])
    }

    /// The line and column (1-based, in bytes) where argument `i` (0-based)
    /// starts, where the reader knows it (MonPoly logs); `None` otherwise.
    #[inline]
    pub fn place(&self, i: usize) -> Option<(u64, u64)> {
        self.places.get(i.checked_add(1)?).copied()
    }

    /// The line and column where the name starts, where the reader knows
    /// it (MonPoly logs).
    #[inline]
    pub fn name_place(&self) -> Option<(u64, u64)> {
        self.places.first().copied()
    }

    /// Argument `i` (0-based), or `None` if `i >= self.arity()`.
    #[inline]
    pub fn get_arg(&self, i: usize) -> Option<&'a [u8]> {
        let &(start, end) = self.spans.get(i.checked_add(1)?)?;
        Some(&self.bytes[start..end])
    }

    /// Argument `i` (0-based).
    ///
    /// # Panics
    ///
    /// If `i >= self.arity()`; see [`get_arg`](Self::get_arg).
    #[inline]
    pub fn arg(&self, i: usize) -> &'a [u8] {
        match self.get_arg(i) {
            Some(arg) => arg,
            None => panic!(
                "argument {i} out of range: the event has {} arguments",
                self.arity()
            ),
        }
    }
}

impl fmt::Debug for EventRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<_> = self.args().map(String::from_utf8_lossy).collect();
        f.debug_struct("EventRef")
            .field("name", &String::from_utf8_lossy(self.name))
            .field("args", &args)
            .field("time", &self.time)
            .field("line", &self.line)
            .field("number", &self.number)
            .finish()
    }
}

/// `field` without leading and trailing spaces and tabs.
#[inline]
pub(super) fn trim_blanks(field: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = field.iter().position(|b| !blank(b)).unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |e| e + 1);
    &field[start..end]
}
