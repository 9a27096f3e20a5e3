//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace.

mod cli;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use hindsight::plan::compile_source;
use hindsight::report::{OutputFormat, Reporter, Summary, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::syntax::Diagnostic;
use hindsight::trace::{Format, TraceOptions, TraceReader, timed_by_name};

use cli::{Interrupt, Output as Stdout, open_input, parse_size};

/// Runtime verification of event traces against QTL specifications:
/// first-order past-time temporal logic with rules and time, evaluated with BDDs.
#[derive(Parser)]
#[command(name = "hindsight", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that a specification is well-formed (exit 0), or list its errors (exit 2).
    Check {
        /// The specification (.qtl).
        spec: PathBuf,
    },
    /// Show the compiled monitor: subformulas in evaluation order, variables, rules.
    Compile {
        /// The specification (.qtl).
        spec: PathBuf,
        /// Also write the formula DAG in Graphviz dot syntax to this file.
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
    },
    /// Monitor a trace: report every event at which a property is violated.
    ///
    /// Exit status: 0 no violation, 1 violation found, 2 error in the spec or
    /// input, 130 interrupted (Ctrl-C: the summary covers the events processed
    /// so far). When standard output is closed (`| head -1`) the run ends
    /// quietly at its next write, with the status of what was found so far.
    Run {
        /// The specification (.qtl).
        spec: PathBuf,
        /// The trace (CSV); standard input when absent.
        trace: Option<PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Output {
    /// Human-readable lines.
    Text,
    /// JSON lines.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Gc {
    /// When the values in use have doubled since the last collection.
    Auto,
    /// After every event.
    Always,
    /// Never.
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum TraceFormat {
    /// Detect the CRV header line.
    Auto,
    /// DejaVu CSV, no header.
    Plain,
    /// CRV competition CSV with a header line.
    Crv,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { spec } => check(&spec),
        Command::Compile { spec, dot } => compile(&spec, dot.as_deref()),
        Command::Run {
            spec,
            trace,
            options,
        } => run(&spec, trace.as_deref(), &options),
    }
}

fn read_spec(path: &Path) -> Result<String, ExitCode> {
    std::fs::read(path)
        .map_err(|e| {
            eprintln!("error: cannot read {}: {e}", path.display());
            ExitCode::from(2)
        })
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|e| {
                let (line, column) = cli::line_column(e.as_bytes(), e.utf8_error().valid_up_to());
                eprintln!(
                    "{}:{line}:{column}: error: invalid UTF-8 (byte {}): a specification must be UTF-8 text",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                ExitCode::from(2)
            })
        })
}

fn print_diagnostics(path: &Path, text: &str, diags: &[Diagnostic]) {
    let file = path.display().to_string();
    let mut err = io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render(&file, text));
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let _ = writeln!(
            err,
            "{file}: {errors} error{}",
            if errors == 1 { "" } else { "s" }
        );
    }
}

fn check(path: &Path) -> ExitCode {
    let text = match read_spec(path) {
        Ok(t) => t,
        Err(code) => return code,
    };
    // Compiled, not only checked: a limit of the monitor plan (such as the
    // number of variables of a property) is found here too, not by `run`.
    match compile_source(&text) {
        Ok((plan, warnings)) => {
            print_diagnostics(path, &text, &warnings);
            let n = plan.props.len();
            // A closed standard output is not an error worth a message.
            let _ = writeln!(
                io::stdout(),
                "{}: well-formed, {n} propert{}",
                path.display(),
                if n == 1 { "y" } else { "ies" }
            );
            ExitCode::SUCCESS
        }
        Err(diags) => {
            print_diagnostics(path, &text, &diags);
            ExitCode::from(2)
        }
    }
}

fn compile(path: &Path, dot: Option<&Path>) -> ExitCode {
    let text = match read_spec(path) {
        Ok(t) => t,
        Err(code) => return code,
    };
    match compile_source(&text) {
        Ok((plan, warnings)) => {
            print_diagnostics(path, &text, &warnings);
            let _ = write!(io::stdout(), "{}", plan.render(&text));
            if let Some(dot) = dot
                && let Err(e) = std::fs::write(dot, plan.to_dot())
            {
                eprintln!("error: cannot write {}: {e}", dot.display());
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Err(diags) => {
            print_diagnostics(path, &text, &diags);
            ExitCode::from(2)
        }
    }
}

/// Options of `hindsight run`.
#[derive(clap::Args)]
struct RunOptions {
    /// The last field of each event is its time stamp (implied by `.timed.` in the file name).
    #[arg(long)]
    timed: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Trace format: `auto` detects a CRV header line `event, ...`.
    #[arg(long, value_enum, default_value_t = TraceFormat::Auto)]
    format: TraceFormat,
    /// Initial width of value codes in bits (they grow as needed).
    #[arg(long, value_name = "N", default_value_t = 4)]
    bits: usize,
    /// Print only the final status line.
    #[arg(long, short)]
    quiet: bool,
    /// Print at most N violations per property (monitoring goes on).
    #[arg(long, value_name = "N")]
    max_violations: Option<u64>,
    /// End the run at the first violation.
    #[arg(long)]
    stop_at_first: bool,
    /// Treat a time stamp smaller than its predecessor's as an input error.
    /// By default it is accepted, as the reference tool does, and no time
    /// elapses between the two events (a warning names the first such line).
    #[arg(long)]
    strict_time: bool,
    /// When to reclaim the codes of values that can no longer influence a
    /// verdict: `auto` when the values in use double, `always` after every
    /// event, `never` (the last two for testing).
    #[arg(long, value_enum, default_value_t = Gc::Auto, env = "HINDSIGHT_GC")]
    gc: Gc,
    /// The maximum size of one event (its CSV record) in bytes, or with a
    /// suffix K, M or G; a longer event, such as a line that never ends, is an
    /// input error naming its line, so memory stays bounded whatever the input.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    max_event_size: u64,
}

fn run(spec: &Path, trace: Option<&Path>, opts: &RunOptions) -> ExitCode {
    let text = match read_spec(spec) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let (plan, warnings) = match compile_source(&text) {
        Ok(x) => x,
        Err(diags) => {
            print_diagnostics(spec, &text, &diags);
            return ExitCode::from(2);
        }
    };
    print_diagnostics(spec, &text, &warnings);
    let spec_events: Vec<String> = plan.events.keys().cloned().collect();
    let mut monitor = match Monitor::new(
        plan,
        MonitorOptions {
            start_bits: opts.bits,
            strict_time: opts.strict_time,
            gc: match opts.gc {
                Gc::Auto => GcPolicy::Auto,
                Gc::Always => GcPolicy::Always,
                Gc::Never => GcPolicy::Never,
            },
        },
    ) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let interrupt = Interrupt::install();
    let stdout = Stdout::stdout();
    let input = match open_input(trace, &stdout) {
        Ok(input) => input,
        Err(e) => {
            let name = trace.map_or("standard input".into(), |p| p.display().to_string());
            eprintln!("error: cannot read {name}: {e}");
            return ExitCode::from(2);
        }
    };
    let trace_name = trace.map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    let timed = opts.timed || trace.is_some_and(timed_by_name);
    let format = match opts.format {
        TraceFormat::Auto => Format::Auto,
        TraceFormat::Plain => Format::Plain,
        TraceFormat::Crv => Format::Crv,
    };
    let mut reader = TraceReader::new(input, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size);
    let format = match opts.output {
        Output::Text => OutputFormat::Text,
        Output::Json => OutputFormat::Json,
    };
    let names = monitor
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut reporter = Reporter::new(stdout.clone(), format, names);
    reporter.quiet = opts.quiet;
    reporter.max_violations = opts.max_violations;
    let start = Instant::now();
    let mut counts: hashbrown::HashMap<Vec<u8>, u64> = hashbrown::HashMap::new();
    let mut error = None;
    let mut closed = false;
    let mut interrupted = false;
    'events: loop {
        let next = reader.next_event();
        // An event read after Ctrl-C may be cut short: not processed.
        if interrupt.is_set() {
            interrupted = true;
            break;
        }
        let event = match next {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                error = Some(format!("{trace_name}:{e}"));
                break;
            }
        };
        let args: Vec<&[u8]> = event.args().collect();
        let violated = match monitor.step(event.name, &args, event.time) {
            Ok(v) => v,
            Err(e) => {
                error = Some(format!("{trace_name}:line {}: {e}", event.line));
                break;
            }
        };
        match counts.get_mut(event.name) {
            Some(c) => *c += 1,
            None => {
                counts.insert(event.name.to_vec(), 1);
            }
        }
        for &property in violated {
            let v = Violation {
                property,
                event: event.number,
                name: event.name,
                args: &args,
                time: timed.then_some(event.time),
            };
            if reporter.violation(&v).is_err() {
                closed = true;
                break 'events;
            }
            if opts.stop_at_first {
                break 'events;
            }
        }
    }
    if monitor.time_regressions() > 0 && !opts.quiet {
        let _ = writeln!(
            io::stderr(),
            "warning: {trace_name}: {} time stamp(s) smaller than the previous one; no time elapsed at those events (use --strict-time to reject them)",
            monitor.time_regressions()
        );
    }
    let failed = error.is_some();
    if let Some(e) = &error {
        let _ = writeln!(io::stderr(), "error: {e}");
    }
    if interrupted {
        error = Some("interrupted (Ctrl-C)".to_owned());
    }
    let summary = Summary {
        events: monitor.events(),
        counts: counts
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect(),
        spec_events,
        elapsed: start.elapsed(),
        error,
        gc: monitor.gc_stats(),
    };
    if !closed && reporter.summary(&summary).is_err() {
        closed = true;
    }
    let _ = closed;
    if interrupted {
        ExitCode::from(130)
    } else if failed {
        ExitCode::from(2)
    } else if reporter.total() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
