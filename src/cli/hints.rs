//! Hints for the usual mistakes on the command line: the arguments swapped,
//! a terminal on standard input, a timed specification on an untimed trace,
//! a time stamp read as an argument (or the other way round).

use std::path::Path;

/// Extensions of trace files.
const TRACE_EXTENSIONS: [&str; 6] = ["csv", "log", "jsonl", "json", "xml", "txt"];

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// A hint when the specification and the trace seem swapped: the
/// "specification" has a trace's extension, or the "trace" is a `.qtl` file.
pub fn swapped(spec: &Path, trace: Option<&Path>) -> Option<String> {
    let spec_is_trace = extension(spec).is_some_and(|e| TRACE_EXTENSIONS.contains(&e.as_str()));
    let trace_is_spec = trace.is_some_and(|t| extension(t).as_deref() == Some("qtl"));
    (spec_is_trace || trace_is_spec).then(|| {
        format!(
            "hint: the specification comes first, then the trace: hindsight run {} {}",
            trace.map_or("SPEC.qtl".into(), |t| t.display().to_string()),
            spec.display()
        )
    })
}

/// The note printed when the trace is read from a terminal.
pub const TERMINAL: &str = "hindsight: reading the trace from the terminal: type one event per \
line (`name,arg1,...`), end with Ctrl-D; or give a trace file: hindsight run SPEC TRACE";

/// A hint for an event with `found` fields where the specification expects
/// `expected` arguments, given whether the trace is read as timed and the
/// event's last field.
pub fn arity(
    expected: usize,
    found: usize,
    timed: bool,
    last: Option<&[u8]>,
) -> Option<&'static str> {
    // A natural or decimal number (`12`, `0.25`), as a time stamp is written.
    let numeric = last.is_some_and(|f| {
        let (int, frac) = match f.iter().position(|&b| b == b'.') {
            Some(p) => (&f[..p], Some(&f[p + 1..])),
            None => (f, None),
        };
        let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        digits(int) && frac.is_none_or(digits)
    });
    if !timed && found == expected + 1 && numeric {
        Some("if the last field is the event's time stamp, use --timed")
    } else if timed && found + 1 == expected {
        Some(
            "the last field is read as the time stamp (--timed, or `.timed.` in the file name); \
             is the trace untimed?",
        )
    } else {
        None
    }
}

/// A warning when the specification has time bounds and the trace is read
/// without time stamps.
pub fn untimed_trace(spec_timed: bool, timed: bool) -> Option<&'static str> {
    (spec_timed && !timed).then_some(
        "warning: the specification has time bounds but the trace is read without time \
         stamps, so no time passes between events; use --timed if the last field of each \
         event is its time",
    )
}

/// Whether the trace file `path` has time stamps: read with `--timed`, or a
/// MonPoly log (its format is found by reading its first event).
pub fn has_time_stamps(path: &Path, timed: bool, format: hindsight::trace::Format) -> bool {
    use hindsight::trace::{TraceOptions, TraceReader};
    if timed {
        return true;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut reader = TraceReader::new(file, TraceOptions { timed, format });
    let _ = reader.next_event();
    reader.has_time()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapped_arguments_are_seen() {
        let h = swapped(Path::new("t.csv"), Some(Path::new("s.qtl"))).unwrap_or_default();
        assert_eq!(
            h,
            "hint: the specification comes first, then the trace: hindsight run s.qtl t.csv"
        );
        assert!(swapped(Path::new("s.qtl"), Some(Path::new("t.csv"))).is_none());
        assert!(swapped(Path::new("s.qtl"), None).is_none());
        assert!(swapped(Path::new("t.LOG"), None).is_some());
    }

    #[test]
    fn arity_hints_name_timed() {
        assert!(arity(1, 2, false, Some(b"17")).is_some_and(|h| h.contains("--timed")));
        assert!(arity(1, 2, false, Some(b"x")).is_none());
        assert!(arity(1, 2, false, Some(b"0.25")).is_some_and(|h| h.contains("--timed")));
        assert!(arity(1, 2, false, Some(b"1.")).is_none());
        assert!(arity(1, 2, false, Some(b"1.2.3")).is_none());
        assert!(arity(2, 1, true, Some(b"x")).is_some_and(|h| h.contains("untimed")));
        assert!(arity(2, 3, true, Some(b"1")).is_none());
    }
}
