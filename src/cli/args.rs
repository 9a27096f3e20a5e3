//! The arguments of the `hindsight` command line (clap): the subcommands
//! and the options of `hindsight run`.

use std::path::PathBuf;

use crate::bdd::Package;
use crate::report::OutputFormat;
use crate::runtime::GcPolicy;
use crate::session::{OnError, Segments};
use crate::trace::Format;
use clap::{Parser, Subcommand};

use super::mfotl::MfotlArgs;
use super::target::Color;
use super::{parse_percent, parse_size};

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
  hindsight why spec.qtl trace.csv --event 5  # why the verdict at event 5
  hindsight serve                          # the web page, on http://127.0.0.1:8080/
  tail -f app.log | hindsight run spec.qtl # a live log on standard input
  hindsight run --profile p.csv spec.qtl trace.csv; hindsight plot p.csv -o p.svg
  hindsight equiv a.qtl b.qtl              # a trace on which they disagree?

Exit status: 0 no violation (or well-formed), 1 violation found, 2 error in the
specification or the input, 130 interrupted by Ctrl-C (after the summary).
Documentation: README.md and docs/: LANGUAGE.md (QTL), TRACES.md (trace formats),
OUTPUT.md (reports and options), MFOTL.md (MonPoly specifications), PARALLEL.md
(--jobs, --cluster), PERFORMANCE.md, API.md (the library), PAPER.md, TESTBED.md
(equiv, gen), PYTHON.md (the Python package), WHY.md (explanations), WEB.md
(hindsight serve)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// `run`'s options make its variant large; the command is parsed once.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum Command {
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
        mfotl: MfotlArgs,
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
        mfotl: MfotlArgs,
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
    /// failed, `STATUS: Error (REASON)`. The trace is plain CSV (one event per
    /// line, `name,arg1,...,argn`), CRV CSV (with a header line `event, ...`),
    /// CRV XML, CRV JSON or a MonPoly log (`@TS name(args) ...`), gzip- or
    /// zstd-compressed or not: the format and the compression are detected
    /// from the content (see --format). Exit status: 0 no violation, 1 violation
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

Formats and output are described in docs/TRACES.md and docs/OUTPUT.md, MFOTL in
docs/MFOTL.md, parallel runs in docs/PARALLEL.md.")]
    Run {
        /// The specification (.qtl, or .mfotl with --sig; `-` for standard input).
        spec: PathBuf,
        /// The trace: CSV, XML, JSON or a MonPoly log, compressed or not (`-`
        /// for standard input) [default: standard input].
        trace: Option<PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Search for a trace on which two specifications give different verdicts.
    ///
    /// Each side is QTL or MFOTL (with --sig), past-time only, with one
    /// property each or properties paired by name. Every trace of up to
    /// --length events over both specifications' events and --values data
    /// values is tried (both monitors stepped side by side over the tree of
    /// prefixes), then --random random traces of --random-length events.
    /// A difference: the shortest distinguishing trace is printed as CSV,
    /// with each side's verdict at each event, and the exit status is 1. No
    /// difference: what was searched is printed, exit status 0. Bad input:
    /// exit status 2. See docs/TESTBED.md.
    #[command(after_help = "\
Examples:
  hindsight equiv --length 3 with_rules.qtl without_rules.qtl
  hindsight equiv --json --sig access.sig --negate access.mfotl access.qtl")]
    Equiv {
        /// The first specification (.qtl, or .mfotl with --sig).
        a: PathBuf,
        /// The second specification (.qtl, or .mfotl with --sig).
        b: PathBuf,
        #[command(flatten)]
        options: super::testbed::EquivArgs,
        #[command(flatten)]
        mfotl: MfotlArgs,
    },
    /// Write a random trace over a specification's events.
    ///
    /// Each event is one of the specification's event names, drawn
    /// uniformly, with each argument drawn from --values data values (the
    /// specification's constants first, then 0, 1, ...). Plain CSV for QTL
    /// (the time stamp last with --timed), a MonPoly log for MFOTL. The same
    /// --seed gives the same trace. See docs/TESTBED.md.
    #[command(after_help = "\
Examples:
  hindsight gen specs/file_access.qtl --events 1000 --values 5 --seed 1 > t.csv
  hindsight gen --sig specs/payments.sig specs/payments.mfotl --events 100 --timed")]
    Gen {
        /// The specification (.qtl, or .mfotl with --sig).
        spec: PathBuf,
        #[command(flatten)]
        options: super::testbed::GenArgs,
        #[command(flatten)]
        mfotl: MfotlArgs,
    },
    /// Explain a verdict: why a property is violated (or not) at an event.
    ///
    /// Replays the trace up to the event with the monitor, then prints the
    /// proof of the verdict over the formula: each subformula's truth value
    /// at an event and the events that make it so, for the violation's
    /// witness (or the values of --assign). Only the events that decide the
    /// verdict are cited. Exit status: 0 explained, 2 error (in the
    /// specification, the trace, or no such event or property). See
    /// docs/WHY.md.
    #[command(after_help = "\
Examples:
  hindsight why specs/file_access.qtl specs/file_access.csv --event 5
  hindsight why --json --property noReopen specs/file_access.qtl specs/file_access.csv --event 9
  hindsight why specs/locks.qtl specs/locks.csv --event 6 --assign l=door")]
    Why {
        /// The specification (.qtl, or .mfotl with --sig).
        spec: PathBuf,
        /// The trace (any format of `run`; `-` for standard input).
        trace: PathBuf,
        #[command(flatten)]
        options: WhyArgs,
    },
    /// Serve a local web page to edit specifications, run them on traces,
    /// and see violations on a timeline with their explanations.
    ///
    /// Listens on 127.0.0.1 (see --host) at --port; the page and its API
    /// (POST /api/run, POST /api/why) are described in docs/WEB.md. Requests
    /// are limited in size and run time; errors come back as JSON.
    #[command(
        after_help = "Example:\n  hindsight serve --port 8080   # then open http://127.0.0.1:8080/"
    )]
    Serve {
        /// The port (0: any free port, printed on standard output).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// The address to listen on [default: 127.0.0.1, this machine only].
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// The largest request body, in bytes or with a suffix K, M or G.
        #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
        max_request: u64,
        /// The longest run of one request, in seconds.
        #[arg(long, value_name = "SECONDS", default_value_t = 10)]
        timeout: u64,
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

/// Options of `hindsight run`.
#[derive(clap::Args)]
pub struct RunOptions {
    /// Each event has a time stamp: its last field in CSV, its time field
    /// in XML and JSON (see --time-field), a natural or decimal number (see
    /// --time-decimals); a MonPoly log always has time stamps [default: off,
    /// but on for a trace file whose name contains `.timed.`].
    #[arg(long)]
    pub timed: bool,
    /// The field that holds the time stamp of a timed XML or JSON event,
    /// matched by name wherever it is [default: the first of `time`,
    /// `timestamp`, `ts` that the event has].
    #[arg(long, value_name = "NAME")]
    pub time_field: Option<String>,
    /// Report format: text lines, or one JSON object per line (violations,
    /// then the summary).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub report: OutputFormat,
    /// Short for `--report json` [default: off].
    #[arg(long)]
    pub json: bool,
    /// Write the report to FILE (`-`: standard output) [default: standard
    /// output]. (`--output json` and `--output text`, the former spelling
    /// of `--report`, still work.)
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Colour the violations and the status line: `auto` on a terminal
    /// unless the environment variable NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Make an event whose name no property mentions an input error
    /// [default: off: such events are counted and named in a warning].
    #[arg(long)]
    pub strict: bool,
    /// What a bad line does (a wrong number of arguments, a bad or decreasing
    /// time stamp, an empty name; with --strict, an unknown event): `stop`
    /// the run with an error (exit status 2), or `skip` it, counting it in the
    /// summary. Broken quoting and an event over --max-event-size end the run
    /// either way.
    #[arg(long, value_enum, default_value_t = OnError::Stop)]
    pub on_error: OnError,
    /// Short for `--on-error skip` [default: off].
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// With `--on-error skip`: the largest share of the lines that may be
    /// skipped, in percent; more, or every line, is an error (exit status
    /// 2): the trace looks misread.
    #[arg(long, value_name = "PERCENT", default_value = "10%", value_parser = parse_percent)]
    pub max_skipped: f64,
    /// Trace format: `auto` detects it from the content (XML, JSON,
    /// MonPoly, CRV CSV when the first line's first field is `event`, plain
    /// CSV otherwise); gzip and zstd compression are always detected.
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// Each time-point of a MonPoly log is one step at which all its events
    /// hold [default: off: each event is a step of its own].
    #[arg(long)]
    pub timepoints: bool,
    /// The verdicts still waiting for later events at the end of the trace
    /// (future operators): `undecided`, or `close`: the trace is over, as
    /// MonPoly ends a log, so every verdict whose horizon is a time bound
    /// is decided [default: close for MFOTL, undecided for QTL].
    #[arg(long, value_name = "MODE")]
    pub end_of_trace: Option<crate::session::EndOfTrace>,
    /// Initial width of value codes in bits; they grow as needed, so this is
    /// only for experiments.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub bits: usize,
    /// Print only the final status line (with `--json`, only the
    /// summary object); the exit status is unchanged [default: off].
    #[arg(long, short)]
    pub quiet: bool,
    /// Print at most N violations per property; monitoring and counting go
    /// on [default: no limit].
    #[arg(long, value_name = "N")]
    pub max_violations: Option<u64>,
    /// End the run at the first violation, and print the summary of the
    /// events processed so far [default: off].
    #[arg(long)]
    pub stop_at_first: bool,
    /// Treat a time stamp smaller than its predecessor's as an input error
    /// [default: off: it is accepted, as the reference tool does, no time
    /// elapses between the two events, and a warning at the end says how many
    /// there were].
    #[arg(long)]
    pub strict_time: bool,
    /// Read time stamps (and time bounds) in ticks of 10^-N time units, N
    /// raised to the most decimal digits of a time bound of the specification
    /// if that is more: a time stamp with more decimal digits is an error,
    /// never rounded (QTL only) [default: the most decimal digits of any time
    /// bound of the specification, 0 if they are all whole numbers].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=9))]
    pub time_decimals: Option<u8>,
    /// When to reclaim the codes of values that can no longer influence a
    /// verdict: `auto` when the values in use double, `always` after every
    /// event, `never` (the last two for testing).
    #[arg(long, value_enum, default_value_t = GcPolicy::Auto, env = "HINDSIGHT_GC")]
    pub gc: GcPolicy,
    /// The BDD package: `shared` (hindsight's own, the fastest) or
    /// `biodivine` (biodivine-lib-bdd, for comparing the two; same verdicts).
    #[arg(long, value_enum, default_value_t = Package::Shared, env = "HINDSIGHT_BDD")]
    pub bdd: Package,
    /// Monitor only the property NAME (repeatable) [default: every property].
    #[arg(long = "prop", visible_alias = "property", value_name = "NAME")]
    pub props: Vec<String>,
    #[command(flatten)]
    pub users: UserOptions,
    #[command(flatten)]
    pub mfotl: MfotlArgs,
    /// The maximum size of one event in bytes, or with a suffix K, M or G:
    /// its CSV record, XML element or JSON object, or a MonPoly log's whole
    /// time-point (decompressed); a longer one, such as a line that never
    /// ends, is an input error naming its line, so memory stays bounded
    /// whatever the input.
    #[arg(long, value_name = "SIZE", default_value = "16M", value_parser = parse_size)]
    pub max_event_size: u64,
    /// Monitor on N threads, with the output of a sequential run (see
    /// docs/PARALLEL.md); 1 is the sequential engine on one thread,
    /// reading included (with more, a run that stays sequential reads a
    /// trace file ahead on a second thread). It is also used for a
    /// terminal on standard input, for MFOTL specifications and
    /// --timepoints on a MonPoly log unless it is cut into time
    /// segments, and with witnesses that need the whole run's state
    /// [default: the number of cores; 1 for a trace file under 256 KB
    /// (under 16 KB compressed), on which a second thread costs more than
    /// it saves].
    #[arg(long, short = 'j', value_name = "N", env = "HINDSIGHT_JOBS",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,
    /// With more than one job, whether the trace file may be cut into time
    /// segments, one per job (docs/PARALLEL.md): `auto` where slicing would
    /// leave the work uneven on a long plain CSV file, and on a long
    /// MonPoly log stepped by time-points (MFOTL --negate, --timepoints)
    /// whose state warm-ups reach; `always` wherever it can be (also an
    /// MFOTL pattern's satisfactions; for tests and measurements), `never`.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub segments: Segments,
    /// `--cluster` and timely's process configuration.
    #[cfg(feature = "cluster")]
    #[command(flatten)]
    pub cluster: Box<super::cluster::ClusterArgs>,
}

/// The options of `hindsight run` for looking into a run.
#[derive(clap::Args)]
pub struct UserOptions {
    /// With each violation, print a witness: the values of the statement's
    /// outer quantified variables that make the property false, e.g.
    /// `; witness: i=lamp a=700 b=1000` (JSON: `"witness": {"i": "lamp", ...}`).
    /// `x=<any unseen value>` (JSON `null`) means that any value not seen so
    /// far for x falsifies the property. [default: off]
    #[arg(long)]
    pub witness: bool,
    /// With each violation, list every falsifying tuple of the values of the
    /// statement's outer quantified variables (up to --max-witnesses, then
    /// their number), e.g. `; 2 witnesses: f=a | f=c` (JSON: `"witnesses":
    /// [{"f": "a"}, ...], "witness_count": 2`) [default: off].
    #[arg(long)]
    pub all_witnesses: bool,
    /// The most tuples --all-witnesses lists per violation.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_witnesses: u64,
    /// Write a profile of the run to FILE (CSV): per sample the event
    /// number, the elapsed seconds, and per property the BDD nodes of each
    /// summary (rule relations, `@` and `S` operands, timed states), the
    /// live value codes per enumeration class and the garbage collections so
    /// far. Draw it with `hindsight plot FILE -o OUT.svg`. [default: no profile]
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Sample the profile every N events (and always at the end).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub profile_every: u64,
    /// Never show the progress indicator. (It is shown on stderr only for a
    /// trace file, when stderr is a terminal, without `--json`, once
    /// the run has lasted a second.) [default: off]
    #[arg(long)]
    pub no_progress: bool,
}

/// Options of `hindsight why`.
#[derive(clap::Args)]
pub struct WhyArgs {
    /// The event whose verdict to explain (from 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub event: u64,
    /// Explain only the property NAME [default: those violated at the
    /// event, or every property if none is].
    #[arg(long = "property", visible_alias = "prop", value_name = "NAME")]
    pub property: Option<String>,
    /// Explain the verdict for this value of one of the statement's leading
    /// quantified variables (repeatable), e.g. `--assign f=b`, instead of
    /// the violation's witness: the values may satisfy the property.
    #[arg(long, value_name = "VAR=VALUE")]
    pub assign: Vec<String>,
    /// Print the explanation as one JSON object per property.
    #[arg(long)]
    pub json: bool,
    /// The most nodes of an explanation's proof tree; deeper proofs are cut
    /// (and marked so).
    #[arg(long, value_name = "N", default_value_t = crate::why::DEFAULT_MAX_NODES)]
    pub max_nodes: usize,
    /// Each event has a time stamp (as for `run`) [default: off, but on for
    /// a trace file whose name contains `.timed.`].
    #[arg(long)]
    pub timed: bool,
    /// The field that holds the time stamp of a timed XML or JSON event.
    #[arg(long, value_name = "NAME")]
    pub time_field: Option<String>,
    /// Trace format (as for `run`).
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    pub format: Format,
    /// The MonPoly signature of an MFOTL specification (`.mfotl`): its
    /// verdict is explained over its QTL translation (`compile --show-qtl`),
    /// each event one step.
    #[arg(long, value_name = "FILE.sig")]
    pub sig: Option<PathBuf>,
    /// MFOTL: the formula is the property (as `run --negate`) [default: a
    /// pattern, whose satisfactions are the violations explained].
    #[arg(long)]
    pub negate: bool,
    /// Read time stamps in ticks of 10^-N time units (as for `run`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=9))]
    pub time_decimals: Option<u8>,
}
