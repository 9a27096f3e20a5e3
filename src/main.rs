//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod plot;
mod run_extras;

use clap::{Parser, Subcommand, ValueEnum};
use hindsight::plan::compile_source;
use hindsight::report::{OutputFormat, Reporter, Summary, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::syntax::Diagnostic;
use hindsight::trace::{Format, TraceOptions, TraceReader, timed_by_name};

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
    /// Exit status: 0 no violation, 1 violation found, 2 error in the spec or input.
    Run {
        /// The specification (.qtl).
        spec: PathBuf,
        /// The trace (CSV); standard input when absent.
        trace: Option<PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Draw a profile written by `hindsight run --profile` as an SVG chart:
    /// BDD nodes per summary, live value codes, and elapsed time, against the
    /// event number.
    Plot {
        /// The profile (CSV).
        profile: PathBuf,
        /// The SVG file to write.
        #[arg(short, long, value_name = "OUT.svg")]
        output: PathBuf,
        /// Draw only the series of this property.
        #[arg(long, value_name = "NAME")]
        property: Option<String>,
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
        Command::Plot {
            profile,
            output,
            property,
        } => plot::plot_file(&profile, &output, property.as_deref()),
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
                eprintln!(
                    "error: {} is not UTF-8 text (byte {})",
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
    match hindsight::check::check_source(&text) {
        Ok(checked) => {
            print_diagnostics(path, &text, &checked.warnings);
            println!(
                "{}: well-formed, {} propert{}",
                path.display(),
                checked.props.len(),
                if checked.props.len() == 1 { "y" } else { "ies" }
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
            print!("{}", plan.render(&text));
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
    #[command(flatten)]
    users: run_extras::UserOptions,
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
    let input: Box<dyn Read> = match trace {
        Some(path) => match File::open(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => Box::new(io::stdin().lock()),
    };
    let trace_name = trace.map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    let timed = opts.timed || trace.is_some_and(timed_by_name);
    let format = match opts.format {
        TraceFormat::Auto => Format::Auto,
        TraceFormat::Plain => Format::Plain,
        TraceFormat::Crv => Format::Crv,
    };
    monitor.enable_witnesses(opts.users.witness);
    let mut reader = TraceReader::new(input, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time);
    let format = match opts.output {
        Output::Text => OutputFormat::Text,
        Output::Json => OutputFormat::Json,
    };
    let names = monitor
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut extras = match run_extras::Extras::start(
        &opts.users,
        &monitor,
        &text,
        trace,
        matches!(opts.output, Output::Json),
    ) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mut reporter = Reporter::new(BufWriter::new(extras.stdout()), format, names);
    reporter.quiet = opts.quiet;
    reporter.max_violations = opts.max_violations;
    let start = Instant::now();
    let mut counts: hashbrown::HashMap<Vec<u8>, u64> = hashbrown::HashMap::new();
    let mut error = None;
    let mut closed = false;
    'events: loop {
        let event = match reader.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                error = Some(format!("{trace_name}:{e}"));
                break;
            }
        };
        let args: Vec<&[u8]> = event.args().collect();
        match monitor.step(event.name, &args, event.time) {
            Ok(_) => {}
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
        for &property in monitor.violated() {
            let v = Violation {
                property,
                event: event.number,
                name: event.name,
                args: &args,
                time: timed.then_some(event.time),
            };
            let witness = opts.users.witness.then(|| monitor.witness(property));
            if reporter
                .violation_with_witness(&v, witness.as_deref())
                .is_err()
            {
                closed = true;
                break 'events;
            }
            if opts.stop_at_first {
                break 'events;
            }
        }
        extras.after_event(&monitor, || reader.bytes_read());
    }
    extras.finish(&monitor);
    if monitor.time_regressions() > 0 && !opts.quiet {
        eprintln!(
            "warning: {trace_name}: {} time stamp(s) smaller than the previous one; no time elapsed at those events (use --strict-time to reject them)",
            monitor.time_regressions()
        );
    }
    let failed = error.is_some();
    if let Some(e) = &error {
        eprintln!("error: {e}");
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
    if failed {
        ExitCode::from(2)
    } else if reporter.total() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
