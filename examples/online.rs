//! Online monitoring with the library: reads a plain, untimed CSV trace from
//! standard input and prints each violation the moment its event arrives.
//!
//! ```sh
//! cargo run --release --example online -- specs/file_access.qtl < specs/file_access.csv
//! tail -f app.log | cargo run --release --example online -- my.qtl
//! ```

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use hindsight::monitor::{Monitor, MonitorOptions};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: online SPEC < TRACE");
        return ExitCode::from(2);
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut monitor = match Monitor::from_source(&source, MonitorOptions::default()) {
        Ok(m) => m,
        Err(diagnostics) => {
            for d in diagnostics {
                eprint!("{}", d.render(&path, &source));
            }
            return ExitCode::from(2);
        }
    };
    let names: Vec<String> = monitor
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut out = io::stdout().lock();
    let mut violated = false;
    // A simple reader for the example: one event per line, no quoting (the
    // library's `hindsight::trace::TraceReader` handles the full formats).
    for (i, line) in io::stdin().lock().lines().enumerate() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split(',');
        let name = fields.next().unwrap_or_default();
        let args: Vec<&[u8]> = fields.map(str::as_bytes).collect();
        match monitor.step(name.as_bytes(), &args, 0) {
            Ok(props) => {
                for &p in props {
                    violated = true;
                    // Written and flushed at once: usable behind `tail -f`.
                    let _ = writeln!(out, "{} violated at line {}: {line}", names[p], i + 1);
                    let _ = out.flush();
                }
            }
            Err(e) => {
                eprintln!("error: line {}: {e}", i + 1);
                return ExitCode::from(2);
            }
        }
    }
    if violated {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
