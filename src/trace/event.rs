//! [`EventRef`]: a borrowed view of one event in the reader's record buffer.
//!
//! Fields are cleaned lazily, on access, without copying: the carriage return
//! of a CRLF line end is dropped from the record's last field, and in the CRV
//! format spaces and tabs around every field are trimmed.

use std::fmt;

use csv::ByteRecord;

/// The raw fields of one record and how to clean them.
#[derive(Clone, Copy)]
pub(super) struct Fields<'a> {
    record: &'a ByteRecord,
    /// Whether the record's last field ends with the `\r` of a CRLF line end.
    last_cr: bool,
    /// Whether to trim spaces and tabs around fields (CRV format).
    trim: bool,
}

impl<'a> Fields<'a> {
    /// Views `record`, trimming fields if `trim`, and dropping the `\r` that
    /// ends the last field if `strip_cr` (the caller checked there is one).
    #[inline]
    pub(super) fn new(record: &'a ByteRecord, trim: bool, strip_cr: bool) -> Self {
        Fields {
            record,
            last_cr: strip_cr,
            trim,
        }
    }

    /// Number of raw fields.
    #[inline]
    pub(super) fn len(self) -> usize {
        self.record.len()
    }

    /// Field `i`, cleaned; `None` past the end.
    #[inline]
    pub(super) fn get(self, i: usize) -> Option<&'a [u8]> {
        let mut field = self.record.get(i)?;
        if self.last_cr && i + 1 == self.record.len() {
            field = field.strip_suffix(b"\r").unwrap_or(field);
        }
        if self.trim {
            field = trim_blanks(field);
        }
        Some(field)
    }

    /// Field `i`, cleaned; empty past the end.
    #[inline]
    pub(super) fn at(self, i: usize) -> &'a [u8] {
        self.get(i).unwrap_or_default()
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

/// One event of a trace, borrowing the [`TraceReader`](super::TraceReader)'s
/// buffer: valid until the next call to
/// [`next_event`](super::TraceReader::next_event).
///
/// Names and arguments are raw bytes, not necessarily UTF-8.
#[derive(Clone, Copy)]
pub struct EventRef<'a> {
    /// The event name (the first field), never empty.
    pub name: &'a [u8],
    /// The event's time: the last field in a timed trace, 0 in an untimed one.
    pub time: u64,
    /// The 1-based line of the input where the event starts.
    pub line: u64,
    /// The 1-based number of the event in the trace (blank lines and the CRV
    /// header are not events).
    pub number: u64,
    fields: Fields<'a>,
    /// One past the index of the last argument field.
    args_end: usize,
}

impl<'a> EventRef<'a> {
    /// Makes the view; fields `1..args_end` are the arguments.
    #[inline]
    pub(super) fn new(
        fields: Fields<'a>,
        args_end: usize,
        time: u64,
        line: u64,
        number: u64,
    ) -> Self {
        debug_assert!(1 <= args_end && args_end <= fields.len());
        EventRef {
            name: fields.at(0),
            time,
            line,
            number,
            fields,
            args_end,
        }
    }

    /// The number of arguments (the timestamp is not one).
    #[inline]
    pub fn arity(&self) -> usize {
        self.args_end - 1
    }

    /// The arguments, in order.
    #[inline]
    pub fn args(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        let fields = self.fields;
        (1..self.args_end).map(move |i| fields.at(i))
    }

    /// Argument `i` (0-based), or `None` if `i >= self.arity()`.
    #[inline]
    pub fn get_arg(&self, i: usize) -> Option<&'a [u8]> {
        if i < self.arity() {
            self.fields.get(i + 1)
        } else {
            None
        }
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
