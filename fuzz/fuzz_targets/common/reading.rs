//! Reading one trace in several ways that must agree, shared by the reader
//! targets (`formats`, `xml`, `json`, `monpoly`).
//!
//! The reference is the trace read by events, whole, with the default size
//! limit. Against it:
//!
//! - by time-points: the same events, time-points numbered 1, 2, ..., each
//!   one's events sharing its time and numbered on from the previous one's;
//! - through a reader that hands out at most a few bytes per call: the same
//!   events and error (buffer boundaries change nothing), except that a
//!   corrupt compressed stream may give more or fewer events before its
//!   decoder's error;
//! - gzip-compressed, read a few bytes at a time: the same events and error;
//! - with a smaller size limit: a prefix of the events, cut only by an
//!   "event too long" error;
//! - going on after bad events: the same events up to the first error and the
//!   same error, then at most one error per byte of input;
//! - with the format detected: the same, whenever the detected format is the
//!   forced one.
#![allow(dead_code)]

use std::io::{Read, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use hindsight::trace::{
    DEFAULT_MAX_EVENT_SIZE, EventRef, FieldNames, Format, TraceError, TraceErrorKind, TraceOptions,
    TraceReader,
};

/// One event, owned: name, arguments, time, line, number.
pub type Event = (Vec<u8>, Vec<Vec<u8>>, u64, u64, u64);

/// The events read and the error that ended them.
pub type Reading = (Vec<Event>, Option<TraceError>);

/// How to read the trace: what the flag byte chose.
#[derive(Clone)]
pub struct Setup {
    pub options: TraceOptions,
    /// The smaller size limit to compare with.
    pub limit: u64,
    pub names: FieldNames,
    /// The most bytes one `read` call of the chunked reader gives.
    pub chunk: usize,
    /// Time stamps' decimals.
    pub decimals: u8,
    /// Whether to compare with the gzip-compressed trace.
    pub gzip: bool,
}

impl Setup {
    /// The setup the bits of `flags` choose for `format`: bit 0 timed, bits
    /// 1-2 the size limit (the default, 8, 64 or 1024 bytes), bit 3 whether
    /// the fields of `pred p(x, y), q(x)` are named, bits 4-5 the chunk size
    /// (1, 3, 61 bytes or unlimited), bit 6 two time decimals (else none),
    /// bit 7 the gzip comparison.
    pub fn from_flags(flags: u8, format: Format) -> Setup {
        let mut names = FieldNames::new();
        if flags & 8 != 0 {
            names.declare("p", &["x", "y"]);
            names.declare("q", &["x"]);
        }
        Setup {
            options: TraceOptions {
                timed: flags & 1 != 0,
                format,
            },
            limit: [DEFAULT_MAX_EVENT_SIZE, 8, 64, 1024][usize::from((flags >> 1) & 3)],
            names,
            chunk: [1, 3, 61, usize::MAX][usize::from((flags >> 4) & 3)],
            decimals: if flags & 64 != 0 { 2 } else { 0 },
            gzip: flags & 128 != 0,
        }
    }

    /// A reader of `input` with this setup, the size limit `limit` and the
    /// format `format`.
    fn reader<R: Read>(&self, input: R, format: Format, limit: u64) -> TraceReader<R> {
        let options = TraceOptions {
            format,
            ..self.options
        };
        TraceReader::new(input, options)
            .allow_decreasing_time(false)
            .time_decimals(self.decimals)
            .max_event_size(limit)
            .field_names(self.names.clone())
    }
}

/// A reader that gives at most `chunk` bytes per call.
pub struct Chunked<'a> {
    pub data: &'a [u8],
    pub chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.len().min(buf.len()).min(self.chunk);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn own(e: &EventRef<'_>) -> Event {
    (
        e.name.to_vec(),
        e.args().map(<[u8]>::to_vec).collect(),
        e.time,
        e.line,
        e.number,
    )
}

/// All the events of `r`, read one at a time, and the error that ended them;
/// the reader stays ended after it.
pub fn by_events<R: Read>(r: TraceReader<R>) -> Reading {
    read_on(r, Vec::new())
}

/// The rest of the events of `r` after `events`, the ones read before.
fn read_on<R: Read>(mut r: TraceReader<R>, mut events: Vec<Event>) -> Reading {
    loop {
        match r.next_event() {
            Ok(Some(e)) => {
                assert!(!e.name.is_empty(), "an event without a name");
                assert_eq!(e.args().len(), e.arity());
                assert_eq!(
                    e.number,
                    events.len() as u64 + 1,
                    "events numbered 1, 2, ..."
                );
                events.push(own(&e));
            }
            Ok(None) => {
                assert!(matches!(r.next_event(), Ok(None)), "fused at the end");
                return (events, None);
            }
            Err(e) => {
                assert!(r.failed());
                assert!(matches!(r.next_event(), Ok(None)), "fused after an error");
                return (events, Some(e));
            }
        }
    }
}

/// All the events of `r`, read by time-points.
pub fn by_timepoints<R: Read>(mut r: TraceReader<R>) -> Reading {
    let mut events = Vec::new();
    let mut last = 0;
    loop {
        match r.next_timepoint() {
            Ok(Some(p)) => {
                assert_eq!(p.number, last + 1, "time-points numbered 1, 2, ...");
                last = p.number;
                for e in p.events() {
                    assert_eq!(e.time, p.time, "an event off its time-point's time");
                    events.push(own(&e));
                }
            }
            Ok(None) => return (events, None),
            Err(e) => return (events, Some(e)),
        }
    }
}

/// Reads `trace` in every way of the module docs, in `format` with `setup`,
/// and checks that they agree. Returns the reference reading.
pub fn check(trace: &[u8], setup: &Setup) -> Reading {
    let format = setup.options.format;
    let reference = by_events(setup.reader(trace, format, DEFAULT_MAX_EVENT_SIZE));

    let points = by_timepoints(setup.reader(trace, format, DEFAULT_MAX_EVENT_SIZE));
    assert_eq!(reference, points, "events and time-points differ");

    let chunked = Chunked {
        data: trace,
        chunk: setup.chunk,
    };
    let pieces = by_events(setup.reader(chunked, format, DEFAULT_MAX_EVENT_SIZE));
    // A corrupt compressed stream may give some bytes before its decoder
    // notices: how many depends on the reads.
    let compressed = trace.starts_with(&[0x1f, 0x8b]) || trace.starts_with(&[0x28, 0xb5]);
    if compressed {
        let (short, long) = if pieces.0.len() <= reference.0.len() {
            (&pieces, &reference)
        } else {
            (&reference, &pieces)
        };
        assert_eq!(short.0[..], long.0[..short.0.len()], "not a prefix");
        let corrupt = |r: &Reading| {
            r.1.as_ref()
                .is_some_and(|e| e.kind == TraceErrorKind::Decompress)
        };
        assert!(short == long || corrupt(short) || corrupt(long));
    } else {
        assert_eq!(
            reference, pieces,
            "reading {} bytes at a time differs",
            setup.chunk
        );
    }

    // (A trace that is itself compressed would be decompressed once only.)
    if setup.gzip && !compressed {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(trace).expect("compressing in memory");
        let gz = gz.finish().expect("compressing in memory");
        let chunked = Chunked {
            data: &gz,
            chunk: setup.chunk,
        };
        let unzipped = by_events(setup.reader(chunked, format, DEFAULT_MAX_EVENT_SIZE));
        assert_eq!(
            reference, unzipped,
            "the gzip-compressed trace reads differently"
        );
    }

    let (limited, limited_error) = by_events(setup.reader(trace, format, setup.limit));
    assert!(limited.len() <= reference.0.len());
    assert_eq!(limited[..], reference.0[..limited.len()], "not a prefix");
    let too_long = limited_error
        .as_ref()
        .is_some_and(|e| e.kind == TraceErrorKind::TooLong);
    if !too_long {
        assert_eq!((&limited, &limited_error), (&reference.0, &reference.1));
    }

    skipping(trace, setup, &reference);

    let mut auto = setup.reader(trace, Format::Auto, DEFAULT_MAX_EVENT_SIZE);
    let first = auto.next_event().map(|e| e.map(|e| own(&e)));
    if auto.format() == format {
        let detected = match first {
            Ok(first) => read_on(auto, first.into_iter().collect()),
            Err(e) => (Vec::new(), Some(e)),
        };
        assert_eq!(reference, detected, "the detected format reads differently");
    }
    reference
}

/// Reading on after bad events: the reference's events up to its error, the
/// same error, then at most one more error per byte.
fn skipping(trace: &[u8], setup: &Setup, reference: &Reading) {
    let mut r = setup
        .reader(trace, setup.options.format, DEFAULT_MAX_EVENT_SIZE)
        .skip_bad_events(true);
    let mut events = Vec::new();
    let mut first_error = None;
    let mut errors = 0usize;
    loop {
        match r.next_event() {
            Ok(Some(e)) => {
                if first_error.is_none() {
                    events.push(own(&e));
                }
            }
            Ok(None) => break,
            Err(e) => {
                errors += 1;
                assert!(errors <= trace.len() + 1, "more errors than bytes");
                if first_error.is_none() {
                    first_error = Some(e);
                }
            }
        }
    }
    assert_eq!(
        (&events, &first_error),
        (&reference.0, &reference.1),
        "skipping bad events"
    );
}
