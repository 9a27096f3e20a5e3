//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace.

mod cli;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod parallel_run;
mod plot;
mod run_extras;

use clap::{Parser, Subcommand, ValueEnum};
use hindsight::plan::{Plan, compile_source};
use hindsight::report::{EventCounts, OutputFormat, Reporter, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorError, MonitorOptions};
use hindsight::syntax::Diagnostic;
use hindsight::trace::{FieldNames, Format, TraceOptions, TraceReader, timed_by_name};

use cli::report_to::{self, Color};
use cli::run_parts::{self, BadLines, select_props};
use cli::{Interrupt, Output as Stdout, hints, names, open_input, parse_size};

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
        /// The specification (.qtl, or .mfotl with --sig).
        spec: PathBuf,
        #[command(flatten)]
        mfotl: cli::mfotl::MfotlArgs,
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
        /// The specification (.qtl, or .mfotl with --sig).
        spec: PathBuf,
        #[command(flatten)]
        mfotl: cli::mfotl::MfotlArgs,
        /// MFOTL: print the QTL specification that the formula means, and
        /// nothing else.
        #[arg(long)]
        show_qtl: bool,
        /// Also write the formula DAG in Graphviz dot syntax to this file
        /// [default: none].
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
        /// Also say, per property, whether `run --jobs N` slices it, on which
        /// variable, and why not otherwise.
        #[arg(long)]
        explain: bool,
    },
    /// Monitor a trace: report every event at which a property is violated.
    ///
    /// Prints one line per violation, in the order of the events, then a summary
    /// ending with `STATUS: Violated`, `STATUS: Satisfied` or, when the run
    /// failed, `STATUS: Error (REASON)`. The trace is CSV,
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
  hindsight run --json specs/deadline.qtl specs/deadline.timed.csv
  hindsight run --on-error skip -o report.txt spec.qtl trace.csv
  tail -f app.log | hindsight run --max-violations 10 spec.qtl
  hindsight run --quiet spec.qtl trace.csv && echo no violation

Formats and output are described in docs/TRACES.md and docs/OUTPUT.md.")]
    Run {
        /// The specification (.qtl, or .mfotl with --sig; `-` for standard input).
        spec: PathBuf,
        /// The trace (CSV; `-` for standard input) [default: standard input].
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
        /// The chart to write: an SVG file (`.svg`).
        #[arg(short, long, value_name = "OUT.svg")]
        output: PathBuf,
        /// Draw only the series of this property.
        #[arg(long = "prop", visible_alias = "property", value_name = "NAME")]
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

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnError {
    /// End the run with an error.
    Stop,
    /// Skip the line and go on; the summary counts the skipped lines.
    Skip,
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

impl From<TraceFormat> for Format {
    fn from(f: TraceFormat) -> Format {
        match f {
            TraceFormat::Auto => Format::Auto,
            TraceFormat::Plain => Format::Plain,
            TraceFormat::Crv => Format::Crv,
            TraceFormat::Xml => Format::Xml,
            TraceFormat::Json => Format::Json,
            TraceFormat::Monpoly => Format::MonPoly,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { spec, mfotl } => check(&spec, &mfotl),
        Command::Compile {
            spec,
            mfotl,
            show_qtl,
            dot,
            explain,
        } => compile(&spec, &mfotl, show_qtl, dot.as_deref(), explain),
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
    let text = cli::read_spec(path)?;
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

/// [`load`], or for an MFOTL specification [`cli::mfotl::load`].
fn load_any(
    path: &Path,
    mfotl: &cli::mfotl::MfotlArgs,
) -> Result<(String, Plan, Option<hindsight::mfotl::Translation>), ExitCode> {
    if mfotl.is_mfotl(path) {
        cli::mfotl::load(path, mfotl).map(|(text, plan, t)| (text, plan, Some(t)))
    } else {
        load(path).map(|(text, plan)| (text, plan, None))
    }
}

fn check(path: &Path, mfotl: &cli::mfotl::MfotlArgs) -> ExitCode {
    let plan = match load_any(path, mfotl) {
        Ok((_, plan, _)) => plan,
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

fn compile(
    path: &Path,
    mfotl: &cli::mfotl::MfotlArgs,
    show_qtl: bool,
    dot: Option<&Path>,
    explain: bool,
) -> ExitCode {
    let (text, plan, translation) = match load_any(path, mfotl) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if show_qtl {
        let Some(t) = translation else {
            eprintln!(
                "error: --show-qtl is for MFOTL specifications (.mfotl, or --mfotl); {} is QTL already",
                path.display()
            );
            return ExitCode::from(2);
        };
        let _ = write!(io::stdout(), "{}", cli::mfotl::show_qtl(path, mfotl, &t));
        return ExitCode::SUCCESS;
    }
    let _ = write!(io::stdout(), "{}", plan.render(&text));
    if explain {
        let _ = write!(io::stdout(), "slicing:\n{}", plan.explain_slicing());
    }
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
    /// Report format: text lines, or one JSON object per line (violations,
    /// then the summary).
    #[arg(long, value_enum, default_value_t = Output::Text)]
    report: Output,
    /// Short for `--report json` [default: off].
    #[arg(long)]
    json: bool,
    /// Write the report to FILE (`-`: standard output) [default: standard
    /// output]. (`--output json` and `--output text`, the former spelling
    /// of `--report`, still work.)
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Colour the violations and the status line: `auto` on a terminal
    /// unless the environment variable NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Make an event whose name no property mentions an input error
    /// [default: off: such events are counted, named in a warning, and a
    /// trace without any known event is an error].
    #[arg(long)]
    strict: bool,
    /// What a bad line does (a broken field, a wrong number of arguments, a
    /// bad time stamp; with --strict, an unknown event): `stop` the run with
    /// an error (exit status 2), or `skip` it, counting it in the summary.
    #[arg(long, value_enum, default_value_t = OnError::Stop)]
    on_error: OnError,
    /// Short for `--on-error skip` [default: off].
    #[arg(long)]
    skip_bad_lines: bool,
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
    /// Print only the final status line (with `--json`, only the
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
    #[arg(long = "prop", visible_alias = "property", value_name = "NAME")]
    props: Vec<String>,
    #[command(flatten)]
    users: run_extras::UserOptions,
    #[command(flatten)]
    mfotl: cli::mfotl::MfotlArgs,
    /// The maximum size of one event (its CSV record) in bytes, or with a
    /// suffix K, M or G; a longer event, such as a line that never ends, is an
    /// input error naming its line, so memory stays bounded whatever the input.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    max_event_size: u64,
    /// Monitor on N threads, with the output of a sequential run (see
    /// docs/PARALLEL.md); 1 is the sequential engine, also used for standard
    /// input and with --witness or --profile [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N", env = "HINDSIGHT_JOBS",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,
    #[cfg(feature = "cluster")]
    #[command(flatten)]
    cluster: Box<cli::cluster::ClusterArgs>,
}

fn run(spec: &Path, trace: Option<&Path>, opts: &RunOptions) -> ExitCode {
    let trace = trace.filter(|t| *t != Path::new("-"));
    if spec == Path::new("-") && trace.is_none() {
        eprintln!("error: the specification and the trace cannot both come from standard input");
        return ExitCode::from(2);
    }
    let (text, mut plan, _) = match load_any(spec, &opts.mfotl) {
        Ok(x) => x,
        Err(code) => {
            if let Some(hint) = hints::swapped(spec, trace) {
                eprintln!("{hint}");
            }
            return code;
        }
    };
    let satisfactions = opts.mfotl.reports_satisfactions(spec);
    if let Err(code) = select_props(spec, &mut plan, &opts.props) {
        return code;
    }
    let spec_events: Vec<String> = plan.events.keys().cloned().collect();
    let spec_timed = plan.props.iter().any(|p| !p.time_bits.is_empty());
    let parallel = parallel_run::jobs(trace, opts, satisfactions).map(|jobs| (jobs, plan.clone()));
    #[cfg(feature = "cluster")]
    let cluster_plan = opts.cluster.enabled().then(|| plan.clone());
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
    let target = report_to::target(
        matches!(opts.report, Output::Json),
        opts.json,
        opts.output.as_deref(),
    );
    if let Some(note) = &target.note {
        eprintln!("{note}");
    }
    let timed = opts.timed || trace.is_some_and(timed_by_name);
    if let Some(warning) = hints::untimed_trace(spec_timed, timed)
        && !opts.quiet
    {
        eprintln!("{warning}");
    }
    #[cfg(feature = "cluster")]
    if let Some(plan) = cluster_plan {
        return cli::cluster::run(&plan, trace, opts, satisfactions, &monitor, &text, &target);
    }
    if let (Some((jobs, plan)), Some(trace)) = (parallel, trace) {
        return parallel_run::run(&plan, trace, opts, jobs, &monitor, &text, &target);
    }
    let mut extras =
        match run_extras::Extras::start(&opts.users, &monitor, &text, trace, target.json) {
            Ok(x) => x,
            Err(code) => return code,
        };
    let interrupt = Interrupt::install();
    let stdout = match &target.file {
        None => Stdout::new(extras.stdout()),
        Some(path) => match report_to::create(path) {
            Ok(file) => Stdout::new(file),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        },
    };
    if trace.is_none() && io::stdin().is_terminal() {
        eprintln!("{}", hints::TERMINAL);
    }
    let input = match open_input(trace, &stdout) {
        Ok(input) => input,
        Err(e) => {
            let name = trace.map_or("standard input".into(), |p| p.display().to_string());
            eprintln!("error: cannot read {name}: {e}");
            return ExitCode::from(2);
        }
    };
    let trace_name = trace.map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    let format = Format::from(opts.format);
    monitor.enable_witnesses(opts.users.witness);
    if opts.users.all_witnesses {
        monitor
            .enable_all_witnesses(usize::try_from(opts.users.max_witnesses).unwrap_or(usize::MAX));
    }
    monitor.enable_tuples(satisfactions);
    let skip = opts.skip_bad_lines || opts.on_error == OnError::Skip;
    let mut reader = TraceReader::new(input, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size)
        .skip_bad_events(skip)
        .field_names(FieldNames::from_spec(&text));
    let format = if target.json {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let names = monitor
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut reporter = Reporter::new(stdout.clone(), format, names);
    reporter.quiet = opts.quiet;
    reporter.max_violations = opts.max_violations;
    reporter.color = report_to::use_color(
        opts.color,
        &target,
        std::env::var("NO_COLOR").ok().as_deref(),
    );
    let start = Instant::now();
    let mut counts = EventCounts::default();
    let mut error = None;
    let mut bad = BadLines::default();
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
                if skip && !reader.failed() {
                    bad.skip(e.line);
                    continue;
                }
                error = Some((e.line, format!("{trace_name}:{e}")));
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
                            line: point.line,
                            all_witnesses: None,
                        };
                        let witness = opts.users.witness.then(|| monitor.witness(property));
                        let written = if satisfactions {
                            let ts = if point.timed {
                                point.time
                            } else {
                                point.number
                            };
                            let tuples = monitor.tuples(property).1;
                            reporter.satisfaction(&v, point.number - 1, ts, tuples)
                        } else {
                            reporter.violation_with_witness(&v, witness.as_deref())
                        };
                        if written.is_err() {
                            closed = true;
                            break 'events;
                        }
                    }
                }
                Err(e) => {
                    error = Some((point.line, format!("{trace_name}:line {}: {e}", point.line)));
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
            if opts.strict && monitor.arity_of(event.name).is_none() {
                let e = names::unknown_event(&spec_events, event.name);
                if skip {
                    bad.skip(event.line);
                    continue;
                }
                error = Some((event.line, format!("{trace_name}:line {}: {e}", event.line)));
                break 'events;
            }
            if let Err(e) = monitor.step(event.name, args, event.time) {
                let skippable = matches!(
                    e,
                    MonitorError::Arity { .. } | MonitorError::TimeBackwards { .. }
                );
                if skip && skippable {
                    bad.skip(event.line);
                    continue;
                }
                let hint = match &e {
                    MonitorError::Arity {
                        expected, found, ..
                    } => hints::arity(*expected, *found, timed, args.last().copied()),
                    _ => None,
                };
                let hint = hint.map(|h| format!(" ({h})")).unwrap_or_default();
                error = Some((
                    event.line,
                    format!("{trace_name}:line {}: {e}{hint}", event.line),
                ));
                break 'events;
            }
            counts.add(event.name);
            for &property in monitor.violated() {
                let all = opts
                    .users
                    .all_witnesses
                    .then(|| monitor.all_witnesses(property));
                let v = Violation {
                    property,
                    event: monitor.events(),
                    name: event.name,
                    args,
                    time: point.timed.then_some(event.time),
                    line: event.line,
                    all_witnesses: all.as_ref().map(|(t, n)| (t.as_slice(), *n)),
                };
                let witness = opts.users.witness.then(|| monitor.witness(property));
                let written = if satisfactions {
                    // Each event is a time point; MonPoly's time stamp is the
                    // event's, or its number when untimed.
                    let ts = if point.timed {
                        event.time
                    } else {
                        monitor.events()
                    };
                    let number = monitor.events() - 1;
                    reporter.satisfaction(&v, number, ts, monitor.tuples(property).1)
                } else {
                    reporter.violation_with_witness(&v, witness.as_deref())
                };
                if written.is_err() {
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
    run_parts::finish(
        &mut reporter,
        run_parts::Ending {
            trace_name: &trace_name,
            regressions: monitor.time_regressions(),
            error,
            interrupted,
            closed,
            quiet: opts.quiet,
            spec_events,
            counts,
            events: monitor.events(),
            elapsed: start.elapsed(),
            gc: monitor.gc_stats(),
            bad,
        },
    )
}
