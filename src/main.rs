//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace.

mod cli;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod plot;
mod run_extras;

use clap::{Parser, Subcommand, ValueEnum};
use hindsight::plan::{Plan, compile_source};
use hindsight::report::{EventCounts, OutputFormat, Reporter, Summary, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::syntax::Diagnostic;
use hindsight::trace::{FieldNames, Format, TraceOptions, TraceReader, timed_by_name};

use cli::{Interrupt, Output as Stdout, open_input, parse_size};

/// Runtime verification of event traces against QTL specifications:
/// first-order past-time temporal logic with rules and time, evaluated with BDDs.
#[derive(Parser)]
#[command(
    name = "hindsight",
    version,
    about,
    long_about = None,
    after_help = "\
Examples:
  hindsight check spec.qtl                 # well-formed? (exit 0, or 2 with errors)
  hindsight compile spec.qtl               # the monitor, subformula by subformula
  hindsight run spec.qtl trace.csv         # every violation, then a summary
  tail -f app.log | hindsight run spec.qtl # a live log on standard input
  hindsight run --profile p.csv spec.qtl trace.csv; hindsight plot p.csv -o p.svg

Exit status: 0 no violation (or well-formed), 1 violation found, 2 error in the
specification or the input, 130 interrupted by Ctrl-C (after the summary).
Documentation: README.md and docs/ (LANGUAGE.md, TRACES.md, OUTPUT.md, API.md,
PAPER.md)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that a specification is well-formed (exit 0), or list its errors (exit 2).
    ///
    /// Errors and warnings go to standard error, each with its place
    /// (file:line:column) in the specification; a well-formed specification
    /// gives one line on standard output.
    #[command(after_help = "Example:\n  hindsight check specs/file_access.qtl")]
    Check {
        /// The specification (.qtl).
        spec: PathBuf,
    },
    /// Show the compiled monitor: subformulas in evaluation order, variables, rules.
    ///
    /// For each property: its variables, its rules, and every subformula in the
    /// order it is evaluated at each event (with rules, in the phases of the
    /// mixed evaluation order). Exit status 0, or 2 if the specification is
    /// not well-formed.
    #[command(after_help = "\
Examples:
  hindsight compile specs/telemetry.qtl
  hindsight compile --dot monitor.dot specs/telemetry.qtl && dot -Tsvg monitor.dot > monitor.svg")]
    Compile {
        /// The specification (.qtl).
        spec: PathBuf,
        /// Also write the formula DAG in Graphviz dot syntax to this file
        /// [default: none].
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
    },
    /// Monitor a trace: report every event at which a property is violated.
    ///
    /// Prints one line per violation, in the order of the events, then a summary
    /// ending with `STATUS: Violated` or `STATUS: Satisfied`. The trace is CSV,
    /// one event per line (`name,arg1,...,argn`); a CRV header line
    /// `event, ...` is detected. Exit status: 0 no violation, 1 violation
    /// found, 2 error in the spec or input (violations found before an input
    /// error are still reported), 130 interrupted (Ctrl-C: the summary covers
    /// the events processed so far). When standard output is closed
    /// (`| head -1`) the run ends quietly at its next write, with the status
    /// of what was found so far.
    #[command(after_help = "\
Examples:
  hindsight run specs/file_access.qtl specs/file_access.csv
  hindsight run --output json specs/deadline.qtl specs/deadline.timed.csv
  tail -f app.log | hindsight run --max-violations 10 spec.qtl
  hindsight run --quiet spec.qtl trace.csv && echo no violation

Formats and output are described in docs/TRACES.md and docs/OUTPUT.md.")]
    Run {
        /// The specification (.qtl).
        spec: PathBuf,
        /// The trace (CSV) [default: standard input].
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
    /// Detect from the content.
    Auto,
    /// DejaVu CSV, no header.
    Plain,
    /// CRV competition CSV with a header line.
    Crv,
    /// CRV competition XML.
    Xml,
    /// CRV competition JSON (JSON lines, or a sequence of objects).
    Json,
    /// MonPoly logs (`@TS name(args) ...`).
    Monpoly,
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

/// Reads and compiles a specification, printing its warnings; on errors,
/// prints them and gives exit status 2. Compiled, not only checked: a limit
/// of the monitor plan (such as the number of variables of a property) is
/// found by `check` too, not only by `run`.
fn load(path: &Path) -> Result<(String, Plan), ExitCode> {
    let text = read_spec(path)?;
    match compile_source(&text) {
        Ok((plan, warnings)) => {
            print_diagnostics(path, &text, &warnings);
            Ok((text, plan))
        }
        Err(diags) => {
            print_diagnostics(path, &text, &diags);
            Err(ExitCode::from(2))
        }
    }
}

fn check(path: &Path) -> ExitCode {
    let plan = match load(path) {
        Ok((_, plan)) => plan,
        Err(code) => return code,
    };
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

fn compile(path: &Path, dot: Option<&Path>) -> ExitCode {
    let (text, plan) = match load(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let _ = write!(io::stdout(), "{}", plan.render(&text));
    if let Some(dot) = dot
        && let Err(e) = std::fs::write(dot, plan.to_dot())
    {
        eprintln!("error: cannot write {}: {e}", dot.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Options of `hindsight run`.
#[derive(clap::Args)]
struct RunOptions {
    /// The last field of each event is its time stamp, a natural number
    /// [default: off, but on for a trace file whose name contains `.timed.`].
    #[arg(long)]
    timed: bool,
    /// Output format: text lines, or one JSON object per line (violations,
    /// then the summary).
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Trace format: `auto` detects it from the content (XML, JSON,
    /// MonPoly, CRV CSV when the first line's first field is `event`, plain
    /// CSV otherwise); gzip and zstd compression are always detected.
    #[arg(long, value_enum, default_value_t = TraceFormat::Auto)]
    format: TraceFormat,
    /// Each time-point of a MonPoly log is one step at which all its events
    /// hold [default: off: each event is a step of its own].
    #[arg(long)]
    timepoints: bool,
    /// Initial width of value codes in bits; they grow as needed, so this is
    /// only for experiments.
    #[arg(long, value_name = "N", default_value_t = 4)]
    bits: usize,
    /// Print only the final status line (with `--output json`, only the
    /// summary object); the exit status is unchanged [default: off].
    #[arg(long, short)]
    quiet: bool,
    /// Print at most N violations per property; monitoring and counting go
    /// on [default: no limit].
    #[arg(long, value_name = "N")]
    max_violations: Option<u64>,
    /// End the run at the first violation, and print the summary of the
    /// events processed so far [default: off].
    #[arg(long)]
    stop_at_first: bool,
    /// Treat a time stamp smaller than its predecessor's as an input error
    /// [default: off: it is accepted, as the reference tool does, no time
    /// elapses between the two events, and a warning at the end says how many
    /// there were].
    #[arg(long)]
    strict_time: bool,
    /// When to reclaim the codes of values that can no longer influence a
    /// verdict: `auto` when the values in use double, `always` after every
    /// event, `never` (the last two for testing).
    #[arg(long, value_enum, default_value_t = Gc::Auto, env = "HINDSIGHT_GC")]
    gc: Gc,
    /// Monitor only the property NAME (repeatable) [default: every property].
    #[arg(long = "prop", value_name = "NAME")]
    props: Vec<String>,
    #[command(flatten)]
    users: run_extras::UserOptions,
    /// The maximum size of one event (its CSV record) in bytes, or with a
    /// suffix K, M or G; a longer event, such as a line that never ends, is an
    /// input error naming its line, so memory stays bounded whatever the input.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    max_event_size: u64,
}

fn run(spec: &Path, trace: Option<&Path>, opts: &RunOptions) -> ExitCode {
    let (text, mut plan) = match load(spec) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(unknown) = opts
        .props
        .iter()
        .find(|name| !plan.props.iter().any(|p| &p.name == *name))
    {
        let known: Vec<&str> = plan.props.iter().map(|p| p.name.as_str()).collect();
        eprintln!(
            "error: {} has no property `{unknown}`; its properties are: {}",
            spec.display(),
            known.join(", ")
        );
        return ExitCode::from(2);
    }
    if !opts.props.is_empty() {
        plan.props.retain(|p| opts.props.contains(&p.name));
    }
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
    let interrupt = Interrupt::install();
    let stdout = Stdout::new(extras.stdout());
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
        TraceFormat::Xml => Format::Xml,
        TraceFormat::Json => Format::Json,
        TraceFormat::Monpoly => Format::MonPoly,
    };
    monitor.enable_witnesses(opts.users.witness);
    let mut reader = TraceReader::new(input, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size)
        .field_names(FieldNames::from_spec(&text));
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
    let mut counts = EventCounts::default();
    let mut error = None;
    let mut closed = false;
    let mut interrupted = false;
    'events: loop {
        let next = reader.next_timepoint();
        // An event read after Ctrl-C may be cut short: not processed.
        if interrupt.is_set() {
            interrupted = true;
            break;
        }
        let point = match next {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(e) => {
                error = Some(format!("{trace_name}:{e}"));
                break;
            }
        };
        if opts.timepoints {
            match cli::step_timepoint(&mut monitor, &point, &mut counts) {
                Ok(violated) => {
                    for property in violated {
                        let first = point.events().next();
                        let args: Vec<&[u8]> = first.iter().flat_map(|e| e.args()).collect();
                        let v = Violation {
                            property,
                            event: point.number,
                            name: first.map_or(&b"@"[..], |e| e.name),
                            args: &args,
                            time: point.timed.then_some(point.time),
                        };
                        let witness = opts.users.witness.then(|| monitor.witness(property));
                        if reporter
                            .violation_with_witness(&v, witness.as_deref())
                            .is_err()
                        {
                            closed = true;
                            break 'events;
                        }
                    }
                }
                Err(e) => {
                    error = Some(format!("{trace_name}:line {}: {e}", point.line));
                    break;
                }
            }
            if opts.stop_at_first && !monitor.violated().is_empty() {
                break;
            }
        }
        for event in point.events().filter(|_| !opts.timepoints) {
            // Up to 8 arguments live on the stack: no allocation per event.
            let mut few: [&[u8]; 8] = [&[]; 8];
            let many: Vec<&[u8]>;
            let args: &[&[u8]] = if event.arity() <= few.len() {
                for (slot, arg) in few.iter_mut().zip(event.args()) {
                    *slot = arg;
                }
                &few[..event.arity()]
            } else {
                many = event.args().collect();
                &many
            };
            match monitor.step(event.name, args, event.time) {
                Ok(_) => {}
                Err(e) => {
                    error = Some(format!("{trace_name}:line {}: {e}", event.line));
                    break 'events;
                }
            };
            counts.add(event.name);
            for &property in monitor.violated() {
                let v = Violation {
                    property,
                    event: event.number,
                    name: event.name,
                    args,
                    time: point.timed.then_some(event.time),
                };
                let witness = opts.users.witness.then(|| monitor.witness(property));
                if reporter
                    .violation_with_witness(&v, witness.as_deref())
                    .is_err()
                {
                    closed = true;
                    break 'events;
                }
            }
            // Every property violated at the first violating event is reported.
            if opts.stop_at_first && !monitor.violated().is_empty() {
                break 'events;
            }
        }
        extras.after_event(&monitor, || reader.bytes_read());
    }
    extras.finish(&monitor);
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
        counts: counts.into_counts(),
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
