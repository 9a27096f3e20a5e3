//! [`EventRef`]: a borrowed view of one event, and [`Batch`], the flat buffer
//! the readers of every format fill.
//!
//! A batch holds the events of one record (one event for CSV, XML and JSON,
//! a whole time-point for MonPoly logs): the bytes of all their fields one
//! after the other, cleaned (unquoted, unescaped, trimmed), and the offsets
//! where each field ends. No field is allocated on its own.

use std::fmt;
use std::ops::Range;

/// What a batch knows of one of its events.
#[derive(Clone, Debug)]
struct Meta {
    /// Its range in `bounds`: the start of its name, then the end of each
    /// field (name first).
    bounds: Range<usize>,
    time: u64,
    line: u64,
}

/// The events of one record, flat.
#[derive(Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    bounds: Vec<usize>,
    events: Vec<Meta>,
    /// Where the event being built starts in `bounds`.
    open: usize,
    /// The next event to hand out.
    next: usize,
    /// The time of the record (of its last event, or of the time-point).
    pub(super) time: u64,
    /// The line where the record starts.
    pub(super) line: u64,
}

impl Batch {
    /// Forgets every event.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.bounds.clear();
        self.events.clear();
        self.open = 0;
        self.next = 0;
    }

    /// Starts a new event; its fields (name first) follow with
    /// [`push`](Self::push) or [`extend`](Self::extend) and
    /// [`end_field`](Self::end_field).
    #[inline]
    pub(super) fn begin(&mut self) {
        self.open = self.bounds.len();
        self.bounds.push(self.bytes.len());
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
        self.bounds.push(self.bytes.len());
    }

    /// Number of fields of the event being built (name included).
    #[inline]
    pub(super) fn fields(&self) -> usize {
        self.bounds.len() - self.open - 1
    }

    /// Field `i` of the event being built.
    #[inline]
    pub(super) fn field(&self, i: usize) -> &[u8] {
        let b = &self.bounds[self.open..];
        &self.bytes[b[i]..b[i + 1]]
    }

    /// The bytes of the current (unfinished) field so far.
    #[inline]
    pub(super) fn current_field(&self) -> &[u8] {
        &self.bytes[self.bounds[self.bounds.len() - 1]..]
    }

    /// Trims the current (unfinished) field's end to `len` bytes.
    #[inline]
    pub(super) fn truncate_current(&mut self, len: usize) {
        let start = self.bounds[self.bounds.len() - 1];
        self.bytes.truncate(start + len);
    }

    /// Drops the last field of the event being built.
    pub(super) fn drop_last_field(&mut self) {
        self.bounds.pop();
        let end = self.bounds[self.bounds.len() - 1];
        self.bytes.truncate(end);
    }

    /// Finishes the current event.
    #[inline]
    pub(super) fn finish(&mut self, time: u64, line: u64) {
        self.events.push(Meta {
            bounds: self.open..self.bounds.len(),
            time,
            line,
        });
        self.time = time;
        self.line = line;
    }

    /// Drops the event being built (after an error, or a blank record).
    #[inline]
    pub(super) fn abandon(&mut self) {
        let start = self.bounds[self.open];
        self.bytes.truncate(start);
        self.bounds.truncate(self.open);
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

    /// Event `i`, numbered `number`.
    #[inline]
    pub(super) fn get(&self, i: usize, number: u64) -> EventRef<'_> {
        let m = &self.events[i];
        let bounds = &self.bounds[m.bounds.clone()];
        EventRef {
            name: &self.bytes[bounds[0]..bounds[1]],
            time: m.time,
            line: m.line,
            number,
            bytes: &self.bytes,
            bounds: &bounds[1..],
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
    bytes: &'a [u8],
    /// The end of the name, then the end of each argument, in `bytes`.
    bounds: &'a [usize],
}

impl<'a> EventRef<'a> {
    /// The number of arguments (the timestamp is not one).
    #[inline]
    pub fn arity(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The arguments, in order.
    #[inline]
    pub fn args(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        let (bytes, bounds) = (self.bytes, self.bounds);
        bounds.windows(2).map(move |w| &bytes[w[0]..w[1]])
    }

    /// Argument `i` (0-based), or `None` if `i >= self.arity()`.
    #[inline]
    pub fn get_arg(&self, i: usize) -> Option<&'a [u8]> {
        let end = *self.bounds.get(i + 1)?;
        Some(&self.bytes[self.bounds[i]..end])
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
