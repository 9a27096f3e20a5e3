//! [`TraceReader`]: one streaming reader over every format, which detects the
//! format, hands out events (or whole time-points) and checks time stamps.

use std::io::Read;

use super::csv::{Csv, is_crv_header};
use super::diag::{MAX_TIME_DECIMALS, format_time};
use super::event::{Batch, EventRef};
use super::fields::FieldNames;
use super::input::{Compression, Input};
use super::json::Json;
use super::monpoly::MonPoly;
use super::xml::Xml;
use super::{DEFAULT_MAX_EVENT_SIZE, Format, TraceError, TraceErrorKind as K, TraceOptions};

/// The parser in use, with the input it reads.
enum Source<R: Read> {
    /// Before the first read: the format is not decided yet.
    Undecided(Input<R>),
    Csv(Input<R>, Csv),
    MonPoly(Input<R>, MonPoly),
    Json(Input<R>, Json),
    Xml(Box<Xml<R>>),
    /// Only while switching from `Undecided`.
    Gone,
}

impl<R: Read> Source<R> {
    /// The input's buffer, which a CSV record read in place borrows.
    #[inline]
    fn buffer(&self) -> &[u8] {
        match self {
            Source::Csv(input, _) => &input.buf,
            _ => &[],
        }
    }
}

/// A streaming reader of trace events, in any [`Format`].
///
/// Memory use is bounded by the largest event (or MonPoly time-point),
/// itself bounded by the maximum event size: one flat buffer is reused for
/// every event, and the input is read through a fixed-size buffer.
pub struct TraceReader<R: Read> {
    source: Source<R>,
    timed: bool,
    format: Format,
    limit: u64,
    names: FieldNames,
    batch: Batch,
    events: u64,
    timepoints: u64,
    last_time: u64,
    /// Whether a timestamp smaller than the previous one is accepted.
    allow_decrease: bool,
    failed: bool,
    /// Whether a bad event (not a broken file) lets reading go on.
    skip_bad: bool,
    /// Time stamps are read in ticks of `10^-decimals` time units.
    decimals: u8,
    /// An error met by [`detect_format`](TraceReader::detect_format), for
    /// the next read.
    pending: Option<TraceError>,
    /// The line of the input's first byte ([`TraceReader::resume`]).
    first_line: u64,
}

/// Where a reader of a log stood between two time-points, for another
/// reader that goes on from there ([`TraceReader::resume`]): the line of
/// the next time-point, the time-points and events read before it, and
/// the last time stamp.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// The line of the next time-point (of the input's first byte).
    pub line: u64,
    /// The time-points read before it.
    pub timepoints: u64,
    /// The events read before it.
    pub events: u64,
    /// The last time stamp read before it (0: none).
    pub last_time: u64,
}

/// The events of one time-point (see [`TraceReader::next_timepoint`]).
pub struct TimePoint<'a> {
    /// The 1-based number of the time-point.
    pub number: u64,
    /// Its time stamp (0 in an untimed trace).
    pub time: u64,
    /// The line where it starts.
    pub line: u64,
    /// Whether the trace has time stamps (see [`TraceReader::has_time`]).
    pub timed: bool,
    /// The trace's format (as detected, with [`Format::Auto`]).
    pub format: Format,
    batch: &'a Batch,
    /// The input's buffer, which a CSV record read in place borrows.
    buf: &'a [u8],
    /// The number of its first event, minus one.
    before: u64,
}

impl<'a> TimePoint<'a> {
    /// Its number of events (a MonPoly time-point may have none).
    pub fn len(&self) -> usize {
        self.batch.len()
    }

    /// Whether it has no event.
    pub fn is_empty(&self) -> bool {
        self.batch.len() == 0
    }

    /// Its events, numbered as [`TraceReader::next_event`] would.
    pub fn events(&self) -> impl ExactSizeIterator<Item = EventRef<'a>> + use<'a> {
        let (batch, before, buf) = (self.batch, self.before, self.buf);
        (0..batch.len()).map(move |i| batch.get(i, before + 1 + i as u64, buf))
    }
}

impl<R: Read> TraceReader<R> {
    /// A reader of the trace `input` (consider a buffered or raw file; the
    /// reader does its own buffering).
    pub fn new(input: R, options: TraceOptions) -> Self {
        TraceReader {
            source: Source::Undecided(Input::new(input)),
            timed: options.timed,
            format: options.format,
            limit: DEFAULT_MAX_EVENT_SIZE,
            names: FieldNames::default(),
            batch: Batch::default(),
            events: 0,
            timepoints: 0,
            last_time: 0,
            allow_decrease: false,
            failed: false,
            skip_bad: false,
            decimals: 0,
            pending: None,
            first_line: 1,
        }
    }

    /// Reads the input as the rest of a log that another reader read up to
    /// `at`, a time-point's start at a line start (in a MonPoly log or a
    /// plain CSV trace): lines, time-points and events are numbered on
    /// from there, and a time stamp smaller than `at.last_time` is refused
    /// as it would be in one reading of the whole log. (A parallel run's
    /// time segments read their stretches of a file so.)
    pub fn resume(mut self, at: Resume) -> Self {
        self.first_line = at.line.max(1);
        self.timepoints = at.timepoints;
        self.events = at.events;
        self.last_time = at.last_time;
        self
    }

    /// The time-points read so far.
    pub fn points_read(&self) -> u64 {
        self.timepoints
    }

    /// The last time stamp read (0 before the first).
    pub fn last_time(&self) -> u64 {
        self.last_time
    }

    /// Decides the format now (with [`Format::Auto`], from the first bytes
    /// of the input, which are not consumed) rather than at the first read,
    /// and returns it. A failed read is kept: the next read returns its
    /// error.
    pub fn detect_format(&mut self) -> Format {
        if let Source::Undecided(_) = self.source
            && let Err(e) = self.decide()
        {
            self.pending = Some(e);
        }
        self.format
    }

    /// Reads time stamps in ticks of `10^-decimals` time units (default 0:
    /// whole numbers; at most [`MAX_TIME_DECIMALS`]): `1.25` is 125 ticks
    /// with 2 decimals, and `3` is 300. A time stamp with more decimal digits
    /// is an error naming its line (never rounded); so is one whose value in
    /// ticks does not fit in a `u64`.
    pub fn time_decimals(mut self, decimals: u8) -> Self {
        self.decimals = decimals.min(MAX_TIME_DECIMALS);
        self
    }

    /// Accepts (`true`) or rejects (`false`, the default) timestamps smaller
    /// than the previous one. Accepted, they are passed on as they are: what a
    /// step back in time means is the monitor's business. (Real logs have
    /// them; the reference tool accepts them.)
    pub fn allow_decreasing_time(mut self, allow: bool) -> Self {
        self.allow_decrease = allow;
        self
    }

    /// Sets the maximum size of one event in bytes (default
    /// [`DEFAULT_MAX_EVENT_SIZE`]): the bytes of its record, all its lines if a
    /// quoted field spans several, without the final line end (a MonPoly
    /// time-point, an XML element, a JSON object). A longer event is an error
    /// naming its line. At least 1.
    pub fn max_event_size(mut self, bytes: u64) -> Self {
        self.limit = bytes.max(1);
        self
    }

    /// Goes on after an error that concerns one event only (in CSV: an empty
    /// name, a missing or bad time stamp; in every format: a decreasing time
    /// stamp): the error is returned, then the following events. Errors in
    /// the file's structure (broken quoting, an event too long, a failed
    /// read) still end it; see [`TraceReader::failed`]. Off by default.
    pub fn skip_bad_events(mut self, skip: bool) -> Self {
        self.skip_bad = skip;
        self
    }

    /// Whether reading has ended on an error.
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Sets the declared parameter names of events, to which the named fields
    /// of XML and JSON events are mapped.
    pub fn field_names(mut self, names: FieldNames) -> Self {
        let time = self.names.time.take();
        self.names = names;
        self.names.time = time;
        self
    }

    /// Names the field that holds the time stamp of a timed XML or JSON
    /// event, found by name whatever the order of the fields (`None`, the
    /// default: the first of the fields [`TIME_FIELDS`](super::TIME_FIELDS),
    /// `time`, `timestamp`, `ts`, that the event has). The time field is not
    /// an argument. (The time stamp of an event with positional fields, a
    /// JSON array, is its last value.)
    pub fn time_field(mut self, name: Option<&str>) -> Self {
        self.names.set_time_field(name);
        self
    }

    /// The next event, or `Ok(None)` at the end of the trace (or after an
    /// error). The returned view borrows the reader's buffer.
    pub fn next_event(&mut self) -> Result<Option<EventRef<'_>>, TraceError> {
        while self.batch.exhausted() {
            if !self.next_record()? {
                return Ok(None);
            }
        }
        let i = self.batch.take_next();
        self.events += 1;
        Ok(Some(self.batch.get(i, self.events, self.source.buffer())))
    }

    /// The next time-point: all the events of a MonPoly time-point, or one
    /// event of the other formats. `Ok(None)` at the end of the trace (or
    /// after an error). Do not mix with [`next_event`](Self::next_event).
    pub fn next_timepoint(&mut self) -> Result<Option<TimePoint<'_>>, TraceError> {
        if self.batch.exhausted() && !self.next_record()? {
            return Ok(None);
        }
        self.batch.take_all();
        self.timepoints += 1;
        let before = self.events;
        self.events += self.batch.len() as u64;
        let timed = self.has_time();
        Ok(Some(TimePoint {
            timed,
            format: self.format,
            number: self.timepoints,
            time: self.batch.time,
            line: self.batch.line,
            batch: &self.batch,
            buf: self.source.buffer(),
            before,
        }))
    }

    /// After an event of a CSV trace read with
    /// [`next_timepoint`](Self::next_timepoint): skips the records that
    /// repeat it byte for byte on the next lines (up to `max`, as far as
    /// the input's buffer holds them; 0 for other formats) and returns
    /// their number. Each is an event like the last one, on the line after
    /// the previous: see [`last_event`](Self::last_event).
    pub fn repeats(&mut self, max: u64) -> u64 {
        let Source::Csv(input, csv) = &mut self.source else {
            return 0;
        };
        if self.failed || self.batch.len() != 1 || !self.batch.exhausted() {
            return 0;
        }
        let n = csv.repeats(input, max);
        self.events += n;
        self.timepoints += n;
        n
    }

    /// The last event read, numbered as read (a repeat counted by
    /// [`repeats`](Self::repeats) is this event on a later line); `None`
    /// unless it is the only event of its record.
    pub fn last_event(&self) -> Option<EventRef<'_>> {
        (self.batch.len() == 1 && self.batch.exhausted())
            .then(|| self.batch.get(0, self.events, self.source.buffer()))
    }

    /// Bytes of the input consumed so far (for progress reports): of the
    /// compressed stream if it is compressed.
    pub fn bytes_read(&self) -> u64 {
        match &self.source {
            Source::Undecided(i)
            | Source::Csv(i, _)
            | Source::MonPoly(i, _)
            | Source::Json(i, _) => i.progress(),
            Source::Xml(x) => x.input().progress(),
            Source::Gone => 0,
        }
    }

    /// The compression of the input, known after the first read.
    pub fn compression(&self) -> Compression {
        match &self.source {
            Source::Undecided(i)
            | Source::Csv(i, _)
            | Source::MonPoly(i, _)
            | Source::Json(i, _) => i.compression(),
            Source::Xml(x) => x.input().compression(),
            Source::Gone => Compression::None,
        }
    }

    /// The number of events read so far.
    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// The format in use: as given, or, with [`Format::Auto`], the detected one
    /// once the first read is done (`Auto` before).
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether the next event is (probably) at hand without reading the
    /// input: one left of the record read, or a line end among the bytes
    /// read and not parsed yet (a record may span lines, so a read may
    /// still follow). For a reader of a stream, which must not hold
    /// verdicts back while the stream waits (`parallel::read`).
    pub fn event_at_hand(&self) -> bool {
        if !self.batch.exhausted() {
            return true;
        }
        let available = match &self.source {
            Source::Undecided(i)
            | Source::Csv(i, _)
            | Source::MonPoly(i, _)
            | Source::Json(i, _) => i.available(),
            Source::Xml(x) => x.input().available(),
            Source::Gone => &[],
        };
        memchr::memchr(b'\n', available).is_some()
    }

    /// Whether the events have time stamps: a timed trace, or a MonPoly log.
    pub fn has_time(&self) -> bool {
        self.timed || self.format == Format::MonPoly
    }

    /// Reads the next record into the batch; `Ok(false)` at the end (or
    /// after an error).
    fn next_record(&mut self) -> Result<bool, TraceError> {
        if self.failed {
            return Ok(false);
        }
        let mut bad_event = false;
        let result = self.read_record(&mut bad_event);
        if result.is_err() {
            let csv_event = match &mut self.source {
                Source::Csv(_, csv) => std::mem::take(&mut csv.bad_event),
                _ => false,
            };
            let one_event = bad_event || csv_event;
            self.failed = !(self.skip_bad && one_event);
            self.batch.clear();
        }
        result
    }

    /// Reads the next record; `bad_event` is set when the error is a
    /// decreasing time stamp (the record itself was read whole).
    fn read_record(&mut self, bad_event: &mut bool) -> Result<bool, TraceError> {
        if self.pending.is_some()
            && let Some(e) = self.pending.take()
        {
            return Err(e);
        }
        if let Source::Undecided(_) = self.source {
            self.decide()?;
        }
        let batch = &mut self.batch;
        let more = match &mut self.source {
            Source::Csv(input, csv) => csv.next(input, batch)?,
            Source::MonPoly(input, m) => m.next(input, batch)?,
            Source::Json(input, j) => j.next(input, batch, &self.names)?,
            Source::Xml(x) => x.next(batch, &self.names)?,
            Source::Undecided(_) | Source::Gone => false,
        };
        if !more {
            return Ok(false);
        }
        if self.has_time() {
            let time = self.batch.time;
            if time < self.last_time && !self.allow_decrease {
                *bad_event = true;
                return Err(TraceError::new(
                    K::DecreasingTime,
                    self.batch.line,
                    format!(
                        "timestamp {} is smaller than the previous timestamp {}: time \
                         must not decrease",
                        format_time(time, self.decimals),
                        format_time(self.last_time, self.decimals)
                    ),
                ));
            }
            self.last_time = time;
        }
        Ok(true)
    }

    /// Detects the format (if `Auto`) and starts its parser.
    fn decide(&mut self) -> Result<(), TraceError> {
        let Source::Undecided(mut input) = std::mem::replace(&mut self.source, Source::Gone) else {
            return Ok(());
        };
        if self.format == Format::Auto {
            self.format = detect(&mut input)?;
        }
        let (timed, limit) = (self.timed, self.limit);
        // `Some(decimals)`: the time stamps to read, and their precision.
        let time = timed.then_some(self.decimals);
        self.source = match self.format {
            Format::Auto | Format::Plain => {
                Source::Csv(input, Csv::new(false, time, self.first_line, limit))
            }
            Format::Crv => Source::Csv(input, Csv::new(true, time, self.first_line, limit)),
            Format::MonPoly => Source::MonPoly(
                input,
                MonPoly::new(limit, self.decimals).at_line(self.first_line),
            ),
            Format::Json => Source::Json(input, Json::new(time, limit)),
            Format::Xml => Source::Xml(Box::new(Xml::new(input, time, limit))),
        };
        Ok(())
    }
}

/// The format of the input, from its first bytes (read, not consumed).
fn detect<R: Read>(input: &mut Input<R>) -> Result<Format, TraceError> {
    let mut eof = false;
    loop {
        if let Some(format) = detect_in(input.available(), eof) {
            return Ok(format);
        }
        eof = !input.fill(1)?;
    }
}

/// The format of an input that starts with `head`, or `None` if more of it
/// is needed (and may come: not `eof`).
fn detect_in(head: &[u8], eof: bool) -> Option<Format> {
    let csv = |crv: Option<bool>| crv.map(|crv| if crv { Format::Crv } else { Format::Plain });
    let mut bytes = head.iter().skip_while(|b| b.is_ascii_whitespace());
    match bytes.next() {
        Some(b'<') => Some(Format::Xml),
        Some(b'{') => Some(Format::Json),
        Some(b'@' | b'#') => Some(Format::MonPoly),
        // JSON if an object (or the end of the array) follows.
        Some(b'[') => match bytes.find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b']') => Some(Format::Json),
            None if !eof => None,
            _ => csv(is_crv_header(head, eof)),
        },
        Some(_) => csv(is_crv_header(head, eof)),
        None if eof => Some(Format::Plain),
        None => None,
    }
}
