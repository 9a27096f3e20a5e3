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
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use hindsight::parallel::{self, Stopped};
use hindsight::plan::Plan;
use hindsight::report::{EventCounts, OutputFormat, Reporter, Summary, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::trace::{Format, TraceOptions, TraceReader, timed_by_name};

use crate::cli::{Interrupt, Output as Stdout};
use crate::run_extras::Extras;
use crate::{Gc, Output, RunOptions, TraceFormat};

/// The number of worker threads `opts` asks for, when a parallel run
/// applies to this trace; `None` for the sequential engine.
pub fn jobs(trace: Option<&Path>, opts: &RunOptions) -> Option<usize> {
    let jobs = match opts.jobs {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let file = trace.is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
    (jobs > 1 && file && !opts.users.witness && opts.users.profile.is_none()).then_some(jobs)
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
) -> ExitCode {
    let json = matches!(opts.output, Output::Json);
    let mut extras = match Extras::start(&opts.users, monitor, text, Some(trace), json) {
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
    let format = match opts.format {
        TraceFormat::Auto => Format::Auto,
        TraceFormat::Plain => Format::Plain,
        TraceFormat::Crv => Format::Crv,
    };
    let reader = TraceReader::new(file, TraceOptions { timed, format })
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size);
    let output = match opts.output {
        Output::Text => OutputFormat::Text,
        Output::Json => OutputFormat::Json,
    };
    let names = plan.props.iter().map(|p| p.name.clone()).collect();
    let mut reporter = Reporter::new(Stdout::new(extras.stdout()), output, names);
    reporter.quiet = opts.quiet;
    reporter.max_violations = opts.max_violations;
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
                    time: timed.then_some(ev.time),
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
    if regressions > 0 && !opts.quiet {
        let _ = writeln!(
            io::stderr(),
            "warning: {trace_name}: {regressions} time stamp(s) smaller than the previous one; no time elapsed at those events (use --strict-time to reject them)",
        );
    }
    let (mut error, interrupted) = match outcome.stopped {
        Some(Stopped::Trace(e)) => (Some(format!("{trace_name}:{e}")), false),
        Some(Stopped::Monitor { line, error }) => {
            (Some(format!("{trace_name}:line {line}: {error}")), false)
        }
        Some(Stopped::Interrupted) => (None, true),
        Some(Stopped::ByCaller) | None => (None, false),
    };
    let failed = error.is_some();
    if let Some(e) = &error {
        let _ = writeln!(io::stderr(), "error: {e}");
    }
    if interrupted {
        error = Some("interrupted (Ctrl-C)".to_owned());
    }
    let summary = Summary {
        events,
        counts: counts.into_counts(),
        spec_events: plan.events.keys().cloned().collect(),
        elapsed: start.elapsed(),
        error,
        gc: outcome.gc,
    };
    if !closed {
        let _ = reporter.summary(&summary);
    }
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
