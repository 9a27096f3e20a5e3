//! The XML, JSON and MonPoly readers (and format detection, and the CSV
//! readers), with named fields mapped by declarations, on any input.
//!
//! The first input byte picks the format (bits 0-2: auto, xml, json,
//! monpoly, plain, crv), the second the options (see `Setup::from_flags`);
//! the rest is the trace, read in every way of `common/reading.rs`, which
//! must agree. The `xml`, `json` and `monpoly` targets fuzz one reader each.
#![no_main]

#[path = "common/reading.rs"]
mod reading;

use hindsight::trace::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [format, flags, trace @ ..] = data else {
        return;
    };
    let format = match format & 7 {
        1 => Format::Xml,
        2 => Format::Json,
        3 => Format::MonPoly,
        4 => Format::Plain,
        5 => Format::Crv,
        _ => Format::Auto,
    };
    reading::check(trace, &reading::Setup::from_flags(*flags, format));
});
