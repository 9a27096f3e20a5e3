//! The CRV XML reader on its own: any input, read as XML in every way of
//! `common/reading.rs` (by events and by time-points, a few bytes per read,
//! gzip-compressed, under a size limit, going on after bad events,
//! detected), which must agree.
//!
//! The first input byte picks the options (see `Setup::from_flags`); the
//! rest is the trace.
#![no_main]

#[path = "common/reading.rs"]
mod reading;

use hindsight::trace::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, trace)) = data.split_first() else {
        return;
    };
    reading::check(trace, &reading::Setup::from_flags(flags, Format::Xml));
});
