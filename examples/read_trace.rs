//! Reads a trace and counts its events, without monitoring: the cost of a
//! trace reader alone (`cargo run --release --example read_trace -- FILE
//! [FORMAT [N]]`, FORMAT one of auto, plain, crv, xml, json, monpoly; the
//! file is read N times, default 1). Prints the events, bytes and arguments
//! read (their total length, so that the fields are really looked at), per
//! reading.

use std::fs::File;
use std::process::ExitCode;
use std::time::Instant;

use hindsight::trace::{Format, TraceOptions, TraceReader};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: read_trace FILE [auto|plain|crv|xml|json|monpoly]");
        return ExitCode::from(2);
    };
    let format = match args.get(2).map(String::as_str) {
        None | Some("auto") => Format::Auto,
        Some("plain") => Format::Plain,
        Some("crv") => Format::Crv,
        Some("xml") => Format::Xml,
        Some("json") => Format::Json,
        Some("monpoly") => Format::MonPoly,
        Some(other) => {
            eprintln!("unknown format {other}");
            return ExitCode::from(2);
        }
    };
    let times: u32 = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let start = Instant::now();
    let (mut events, mut bytes, mut arg_bytes, mut detected) = (0, 0, 0usize, format);
    for _ in 0..times {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
        };
        let mut reader = TraceReader::new(
            file,
            TraceOptions {
                timed: false,
                format,
            },
        );
        if let Err(e) = read(&mut reader, &mut arg_bytes) {
            eprintln!("{path}:{e}");
            return ExitCode::from(2);
        }
        events += reader.events_read();
        bytes += reader.bytes_read();
        detected = reader.format();
    }
    let secs = start.elapsed().as_secs_f64();
    let n = u64::from(times.max(1));
    println!(
        "{} events, {} bytes, {} field bytes, {detected:?}: {secs:.3} s, {:.1} ns/event, {:.0} MB/s",
        events / n,
        bytes / n,
        arg_bytes / n as usize,
        secs * 1e9 / events.max(1) as f64,
        bytes as f64 / secs / 1e6
    );
    ExitCode::SUCCESS
}

/// Reads every event, adding up the lengths of their fields.
fn read(
    reader: &mut TraceReader<File>,
    arg_bytes: &mut usize,
) -> Result<(), hindsight::trace::TraceError> {
    loop {
        match reader.next_event() {
            Ok(Some(e)) => *arg_bytes += e.name.len() + e.args().map(<[u8]>::len).sum::<usize>(),
            Ok(None) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
}
