//! The XML, JSON and MonPoly readers (and format detection), with named
//! fields mapped by declarations, on any input.
//!
//! The first input byte picks the options: bits 0-2 the format (auto, xml,
//! json, monpoly, plain, crv), bit 3 timed, bits 4-5 the maximum event size
//! (the default, 8, 64 or 1024 bytes), bit 6 whether the field names of
//! `pred p(x, y), q(x)` are declared. The rest is the trace. It is read by
//! events and by time-points: both must give the same events and the same
//! error; with a smaller size limit, the events read must be a prefix of the
//! others, and if they are fewer, the error must be about the size.
#![no_main]

use hindsight::trace::{DEFAULT_MAX_EVENT_SIZE, FieldNames, Format, TraceError, TraceOptions, TraceReader};
use libfuzzer_sys::fuzz_target;

/// One event, owned: name, arguments, time, line, number.
type Event = (Vec<u8>, Vec<Vec<u8>>, u64, u64, u64);

fn reader<'a>(
    trace: &'a [u8],
    options: TraceOptions,
    limit: u64,
    names: &FieldNames,
) -> TraceReader<&'a [u8]> {
    TraceReader::new(trace, options)
        .allow_decreasing_time(true)
        .max_event_size(limit)
        .field_names(names.clone())
}

fn own(e: &hindsight::trace::EventRef<'_>) -> Event {
    (e.name.to_vec(), e.args().map(<[u8]>::to_vec).collect(), e.time, e.line, e.number)
}

fn by_events(mut r: TraceReader<&[u8]>) -> (Vec<Event>, Option<TraceError>) {
    let mut events = Vec::new();
    loop {
        match r.next_event() {
            Ok(Some(e)) => {
                assert!(!e.name.is_empty());
                assert_eq!(e.args().len(), e.arity());
                events.push(own(&e));
            }
            Ok(None) => {
                assert!(matches!(r.next_event(), Ok(None)));
                return (events, None);
            }
            Err(e) => {
                assert!(matches!(r.next_event(), Ok(None)), "fused after an error");
                return (events, Some(e));
            }
        }
    }
}

fn by_timepoints(mut r: TraceReader<&[u8]>) -> (Vec<Event>, Option<TraceError>) {
    let mut events = Vec::new();
    let mut last = 0;
    loop {
        match r.next_timepoint() {
            Ok(Some(p)) => {
                assert_eq!(p.number, last + 1);
                last = p.number;
                events.extend(p.events().map(|e| own(&e)));
            }
            Ok(None) => return (events, None),
            Err(e) => return (events, Some(e)),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, trace)) = data.split_first() else {
        return;
    };
    let format = match flags & 7 {
        1 => Format::Xml,
        2 => Format::Json,
        3 => Format::MonPoly,
        4 => Format::Plain,
        5 => Format::Crv,
        _ => Format::Auto,
    };
    let timed = flags & 8 != 0;
    let limit = [DEFAULT_MAX_EVENT_SIZE, 8, 64, 1024][usize::from((flags >> 4) & 3)];
    let mut names = FieldNames::new();
    if flags & 64 != 0 {
        names.declare("p", &["x", "y"]);
        names.declare("q", &["x"]);
    }
    let options = TraceOptions { timed, format };
    let reference = by_events(reader(trace, options, DEFAULT_MAX_EVENT_SIZE, &names));
    let points = by_timepoints(reader(trace, options, DEFAULT_MAX_EVENT_SIZE, &names));
    assert_eq!(reference, points, "events and time-points differ");
    let (limited, limited_error) = by_events(reader(trace, options, limit, &names));
    assert!(limited.len() <= reference.0.len());
    assert_eq!(limited[..], reference.0[..limited.len()]);
    let too_long = limited_error
        .as_ref()
        .is_some_and(|e| e.message.starts_with("event too long"));
    if !too_long {
        assert_eq!((&limited, &limited_error), (&reference.0, &reference.1));
    }
});
