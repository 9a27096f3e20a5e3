//! Hints for the usual mistakes on the command line: the arguments swapped,
//! a terminal on standard input. (Those about the trace, a time stamp read
//! as an argument or the other way round, are the library's:
//! [`crate::session::Warning`] and [`crate::session::RunError`].)

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

/// Whether the trace file `path` has time stamps: read with `--timed`, or a
/// MonPoly log (its format is found by reading its first event).
pub fn has_time_stamps(path: &Path, timed: bool, format: crate::trace::Format) -> bool {
    use crate::trace::{TraceOptions, TraceReader};
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
}
