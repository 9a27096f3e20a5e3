//! `hindsight run --jobs N` with N > 1: the trace file monitored by
//! [`hindsight::parallel`], with the output of the sequential run.
//!
//! The sequential engine is used instead for `--jobs 1`, for standard input
//! or anything that is not a regular file (an online stream: verdicts must
//! show as soon as they are found, not a batch later), and with `--witness`
//! or `--profile` (a slice's witness may name another value than the
//! sequential run's, and a profile samples one monitor). The progress
//! indicator is not shown in a parallel run.

use std::fs::File;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use hindsight::parallel::{self, Stopped};
use hindsight::plan::Plan;
use hindsight::report::{EventCounts, OutputFormat, Reporter, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorError, MonitorOptions};
use hindsight::trace::{FieldNames, Format, TraceOptions, TraceReader, timed_by_name};

use crate::cli::{Interrupt, Output as Stdout, hints, report_to, run_parts};
use crate::run_extras::Extras;
use crate::{Gc, OnError, RunOptions};

/// The number of worker threads `opts` asks for, when a parallel run
/// applies to this trace; `None` for the sequential engine. MFOTL
/// satisfactions (`satisfactions`), `--all-witnesses`, `--strict`, skipping
/// bad lines and a report written to a file run sequentially too.
pub fn jobs(trace: Option<&Path>, opts: &RunOptions, satisfactions: bool) -> Option<usize> {
    let jobs = match opts.jobs {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        // The number of cores (docs/PARALLEL.md): the output is the
        // sequential run's, and the fallbacks below stay sequential.
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let file = trace.is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
    let sequential_only = opts.users.witness
        || opts.users.all_witnesses
        || opts.users.profile.is_some()
        || satisfactions
        || opts.strict
        || opts.timepoints
        || opts.skip_bad_lines
        || opts.on_error == OnError::Skip
        || opts.output.is_some();
    (jobs > 1 && file && !sequential_only).then_some(jobs)
}

/// The monitor options of `opts`.
fn monitor_options(opts: &RunOptions) -> MonitorOptions {
    MonitorOptions {
        start_bits: opts.bits,
        strict_time: opts.strict_time,
        gc: match opts.gc {
            Gc::Auto => GcPolicy::Auto,
            Gc::Always => GcPolicy::Always,
            Gc::Never => GcPolicy::Never,
        },
    }
}

/// Runs `plan` on the trace file `trace` with `jobs` workers; prints what
/// the sequential run prints, and gives its exit status. `monitor` (of the
/// whole plan, never stepped) and `text` (the spec) serve the progress
/// indicator.
pub fn run(
    plan: &Plan,
    trace: &Path,
    opts: &RunOptions,
    jobs: usize,
    monitor: &Monitor,
    text: &str,
    target: &report_to::Target,
) -> ExitCode {
    let mut extras = match Extras::start(&opts.users, monitor, text, Some(trace), target.json) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let interrupt = Interrupt::install();
    let trace_name = trace.display().to_string();
    let file = match File::open(trace) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot read {trace_name}: {e}");
            return ExitCode::from(2);
        }
    };
    let timed = opts.timed || timed_by_name(trace);
    let format = Format::from(opts.format);
    let reader = TraceReader::new(file, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size)
        .field_names(FieldNames::from_spec(text));
    let output = if target.json {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let names = plan.props.iter().map(|p| p.name.clone()).collect();
    let mut reporter = Reporter::new(Stdout::new(extras.stdout()), output, names);
    reporter.quiet = opts.quiet;
    reporter.max_violations = opts.max_violations;
    reporter.color = report_to::use_color(
        opts.color,
        target,
        std::env::var("NO_COLOR").ok().as_deref(),
    );
    let start = Instant::now();
    let mut counts = EventCounts::default();
    let mut events = 0u64;
    let mut regressions = 0u64;
    let mut last_time: Option<u64> = None;
    let mut closed = false;
    let outcome = parallel::run(
        plan,
        reader,
        &monitor_options(opts),
        jobs,
        &|| interrupt.is_set(),
        |ev, violated| {
            counts.add(ev.name);
            events += 1;
            regressions += u64::from(last_time.is_some_and(|t| ev.time < t));
            last_time = Some(ev.time);
            for &property in violated {
                let v = Violation {
                    property,
                    event: ev.number,
                    name: ev.name,
                    args: ev.args,
                    time: ev.timed.then_some(ev.time),
                    line: ev.line,
                    all_witnesses: None,
                };
                if reporter.violation_with_witness(&v, None).is_err() {
                    closed = true;
                    return false;
                }
            }
            extras.progress(events, || ev.bytes_read);
            !opts.stop_at_first || violated.is_empty()
        },
    );
    extras.finish(monitor);
    let (error, interrupted) = match outcome.stopped {
        Some(Stopped::Trace(e)) => (Some((e.line, format!("{trace_name}:{e}"))), false),
        Some(Stopped::Monitor { line, error, last }) => {
            let hint = match &error {
                MonitorError::Arity {
                    expected, found, ..
                } => hints::arity(*expected, *found, timed, last.as_deref()),
                _ => None,
            };
            let hint = hint.map(|h| format!(" ({h})")).unwrap_or_default();
            (
                Some((line, format!("{trace_name}:line {line}: {error}{hint}"))),
                false,
            )
        }
        Some(Stopped::Interrupted) => (None, true),
        Some(Stopped::ByCaller) | None => (None, false),
    };
    run_parts::finish(
        &mut reporter,
        run_parts::Ending {
            trace_name: &trace_name,
            regressions,
            error,
            interrupted,
            closed,
            quiet: opts.quiet,
            spec_events: plan.events.keys().cloned().collect(),
            counts,
            events,
            elapsed: start.elapsed(),
            gc: outcome.gc,
            bad: run_parts::BadLines::default(),
        },
    )
}
