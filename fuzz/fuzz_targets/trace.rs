//! The trace reader and the monitor on a fixed specification
//! (`trace_spec.qtl`: rules, quantifiers over seen and all values,
//! comparisons, constants, timed operators), with the violations and the
//! summary rendered as text and JSON.
//!
//! The first input byte picks the options: bit 0 timed, bits 1-2 the format,
//! bit 3 strict time, bit 4 the starting code width (1 or 4 bits), bits 5-6
//! the maximum event size (the default, 8, 64 or 1024 bytes). The rest is the
//! trace. It is read once with the default size limit, then monitored with
//! the chosen one: the events read must be a prefix of the first reading's,
//! and if they are fewer, the error must be about the size. Two monitors run
//! side by side, one collecting garbage after every event and one never: their
//! verdicts must agree.
#![no_main]

use std::io::sink;
use std::time::Duration;

use hindsight::report::{OutputFormat, Reporter, Summary, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::trace::{
    DEFAULT_MAX_EVENT_SIZE, Format, TraceError, TraceErrorKind, TraceOptions, TraceReader,
};
use libfuzzer_sys::fuzz_target;

const SPEC: &str = include_str!("trace_spec.qtl");

/// One event, owned: name, arguments, time, line, number.
type Event = (Vec<u8>, Vec<Vec<u8>>, u64, u64, u64);

/// The events of `trace` (decreasing time allowed) and the error that ended
/// them.
fn read_all(trace: &[u8], options: TraceOptions, limit: u64) -> (Vec<Event>, Option<TraceError>) {
    let mut reader = TraceReader::new(trace, options)
        .allow_decreasing_time(true)
        .max_event_size(limit);
    let mut events = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(e)) => events.push((
                e.name.to_vec(),
                e.args().map(<[u8]>::to_vec).collect(),
                e.time,
                e.line,
                e.number,
            )),
            Ok(None) => return (events, None),
            Err(e) => return (events, Some(e)),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, trace)) = data.split_first() else {
        return;
    };
    let timed = flags & 1 != 0;
    let format = match (flags >> 1) & 3 {
        0 => Format::Auto,
        1 => Format::Plain,
        _ => Format::Crv,
    };
    let strict_time = flags & 8 != 0;
    let start_bits = if flags & 16 != 0 { 1 } else { 4 };
    let limit = [DEFAULT_MAX_EVENT_SIZE, 8, 64, 1024][usize::from((flags >> 5) & 3)];
    let options = TraceOptions { timed, format };
    let (reference, reference_error) = read_all(trace, options, DEFAULT_MAX_EVENT_SIZE);
    let (limited, limited_error) = read_all(trace, options, limit);
    assert!(limited.len() <= reference.len());
    assert_eq!(limited[..], reference[..limited.len()]);
    let too_long = limited_error
        .as_ref()
        .is_some_and(|e| e.kind == TraceErrorKind::TooLong);
    if !too_long {
        assert_eq!((&limited, &limited_error), (&reference, &reference_error));
    }
    let monitor = |gc| {
        Monitor::from_source(
            SPEC,
            MonitorOptions {
                start_bits,
                strict_time,
                gc,
                ..MonitorOptions::default()
            },
        )
        .expect("the fixed specification is well-formed")
    };
    let mut always = monitor(GcPolicy::Always);
    let mut never = monitor(GcPolicy::Never);
    let names: Vec<String> = always
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut text = Reporter::new(sink(), OutputFormat::Text, names.clone());
    let mut json = Reporter::new(sink(), OutputFormat::Json, names);
    json.max_violations = Some(1);
    let mut reader = TraceReader::new(trace, options)
        .allow_decreasing_time(!strict_time)
        .max_event_size(limit);
    let mut error = None;
    loop {
        let event = match reader.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        };
        let _ = format!("{event:?}");
        let args: Vec<&[u8]> = event.args().collect();
        assert_eq!(args.len(), event.arity());
        let a = always.step(event.name, &args, event.time);
        let b = never.step(event.name, &args, event.time);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "verdicts differ with and without collection");
                for &property in a {
                    let v = Violation {
                        property,
                        event: event.number,
                        name: event.name,
                        args: &args,
                        time: timed.then_some(event.time),
                        line: event.line,
                        all_witnesses: None,
                    };
                    let _ = text.violation(&v);
                    let _ = json.violation(&v);
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b);
                error = Some(a.to_string());
                break;
            }
            (a, b) => panic!("one monitor failed: {a:?} / {b:?}"),
        }
    }
    let summary = Summary {
        events: always.events(),
        counts: Default::default(),
        spec_events: Vec::new(),
        elapsed: Duration::ZERO,
        error,
        gc: always.gc_stats(),
        ..Summary::default()
    };
    let _ = text.summary(&summary);
    let _ = json.summary(&summary);
});
