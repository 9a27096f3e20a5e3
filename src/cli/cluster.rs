//! `hindsight run --cluster` (cargo feature `cluster`): the parallel run's
//! slices on Timely Dataflow workers, in one or several processes
//! ([`hindsight::cluster`], docs/PARALLEL.md). Process 0 prints what the
//! sequential run prints; the other processes print nothing on success.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use hindsight::cluster::{self, FaultKind, InputMode, Source, Stop};
use hindsight::plan::Plan;
use hindsight::report::{EventCounts, OutputFormat, Reporter, Violation};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::trace::{FieldNames, Format, TraceOptions, TraceReader, timed_by_name};

use crate::cli::{Interrupt, Output as Stdout, hints, report_to, run_parts};
use crate::run_extras::Extras;
use crate::{Gc, OnError, RunOptions};

/// Where a cluster run's trace comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClusterInput {
    /// Process 0 reads the whole trace and sends it to the workers.
    Shared,
    /// Process p reads the p-th consecutive part of the trace (its own
    /// trace argument).
    PerProcess,
}

/// The options of a cluster run (timely's process configuration).
#[derive(clap::Args, Debug)]
pub struct ClusterArgs {
    /// Monitor on Timely Dataflow workers, in one or several processes
    /// (docs/PARALLEL.md) [default: off].
    #[arg(long)]
    cluster: bool,
    /// With --cluster: worker threads per process (timely's -w).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "cluster",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    workers: u64,
    /// With --cluster: the number of processes (timely's -n).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "cluster",
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    processes: u64,
    /// With --cluster: this process's index, from 0 (timely's -p).
    #[arg(long, value_name = "I", default_value_t = 0, requires = "cluster")]
    process: u64,
    /// With --cluster: a file with the `host:port` of each process, one a
    /// line, in process order (timely's -h) [default: localhost:2101,
    /// localhost:2102, ...].
    #[arg(long, value_name = "FILE", requires = "cluster")]
    hostfile: Option<PathBuf>,
    /// With --cluster: who reads the trace.
    #[arg(long, value_enum, default_value = "shared", requires = "cluster")]
    cluster_input: ClusterInput,
}

impl ClusterArgs {
    /// Whether `--cluster` was given.
    pub fn enabled(&self) -> bool {
        self.cluster
    }

    fn config(&self) -> Result<cluster::Config, String> {
        let processes = self.processes as usize;
        if self.process >= self.processes {
            return Err(format!(
                "--process {} is not below --processes {processes}",
                self.process
            ));
        }
        let hosts = match &self.hostfile {
            Some(path) if processes > 1 => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                cluster::parse_hosts(&text, processes)
                    .map_err(|e| format!("{}: {e}", path.display()))?
            }
            _ if processes > 1 => (0..processes)
                .map(|i| format!("localhost:{}", 2101 + i))
                .collect(),
            _ => Vec::new(),
        };
        Ok(cluster::Config {
            workers: self.workers as usize,
            process: self.process as usize,
            hosts,
            input: match self.cluster_input {
                ClusterInput::Shared => InputMode::Shared,
                ClusterInput::PerProcess => InputMode::PerProcess,
            },
        })
    }
}

/// Runs `plan` as `opts.cluster` says, on `trace`; process 0 prints what the
/// sequential run prints and gives its exit status.
pub fn run(
    plan: &Plan,
    trace: Option<&Path>,
    opts: &RunOptions,
    satisfactions: bool,
    monitor: &Monitor,
    text: &str,
    target: &report_to::Target,
) -> ExitCode {
    let fail = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    };
    let config = match opts.cluster.config() {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let u = &opts.users;
    if u.witness
        || u.all_witnesses
        || u.profile.is_some()
        || satisfactions
        || opts.strict
        || opts.timepoints
        || opts.skip_bad_lines
        || opts.on_error == OnError::Skip
        || opts.output.is_some()
    {
        return fail(
            "--cluster prints violations as a run without --witness, --all-witnesses, \
             --profile, --strict, --timepoints, --skip-bad-lines, --on-error skip, MFOTL \
             satisfactions or --output does"
                .to_owned(),
        );
    }
    let reads = config.process == 0 || config.input == InputMode::PerProcess;
    let Some(trace) = trace.filter(|_| reads).or(trace) else {
        return fail("--cluster reads a trace file, not standard input".to_owned());
    };
    let trace_name = trace.display().to_string();
    let timed = opts.timed || timed_by_name(trace);
    let source = if reads {
        let file = match File::open(trace) {
            Ok(f) => f,
            Err(e) => return fail(format!("cannot read {trace_name}: {e}")),
        };
        let reader = TraceReader::new(
            file,
            TraceOptions {
                timed,
                format: Format::from(opts.format),
            },
        )
        .allow_decreasing_time(!opts.strict_time)
        .max_event_size(opts.max_event_size)
        .field_names(FieldNames::from_spec(text));
        Some(Source {
            reader,
            name: trace_name.clone(),
        })
    } else {
        None
    };
    let printer = config.process == 0;
    let mut extras = match Extras::start(&opts.users, monitor, text, Some(trace), target.json) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let interrupt = std::sync::Arc::new(Interrupt::install());
    let stop = {
        let interrupt = std::sync::Arc::clone(&interrupt);
        Box::new(move || interrupt.is_set())
    };
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
    let options = MonitorOptions {
        start_bits: opts.bits,
        strict_time: opts.strict_time,
        gc: match opts.gc {
            Gc::Auto => GcPolicy::Auto,
            Gc::Always => GcPolicy::Always,
            Gc::Never => GcPolicy::Never,
        },
    };
    let start = Instant::now();
    let mut counts = EventCounts::default();
    let mut events = 0u64;
    let mut regressions = 0u64;
    let mut last_time: Option<u64> = None;
    let mut closed = false;
    let outcome = cluster::run(plan, source, &config, &options, stop, |ev, violated| {
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
    });
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => return fail(format!("cluster: {e}")),
    };
    extras.finish(monitor);
    if !printer {
        return ExitCode::SUCCESS;
    }
    let (error, interrupted) = match outcome.stopped {
        Some(Stop::Fault(f)) => match f.kind {
            FaultKind::Interrupted => (None, true),
            FaultKind::Trace(message) => (
                Some((f.line, format!("{}:line {}: {message}", f.source, f.line))),
                false,
            ),
            FaultKind::Monitor(message) => (
                Some((f.line, format!("{}:line {}: {message}", f.source, f.line))),
                false,
            ),
            FaultKind::Arity {
                event,
                expected,
                found,
                last,
            } => {
                let error = hindsight::runtime::MonitorError::Arity {
                    event,
                    expected,
                    found,
                };
                let hint = hints::arity(expected, found, timed, last.as_deref())
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default();
                (
                    Some((
                        f.line,
                        format!("{}:line {}: {error}{hint}", f.source, f.line),
                    )),
                    false,
                )
            }
        },
        Some(Stop::ByCaller) | None => (None, false),
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
