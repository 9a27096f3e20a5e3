//! `hindsight run`: the options turned into a [`Session`], and the
//! command line's [`Report`] (the text or JSON printer on standard output
//! or the report's file, warnings and errors on standard error, the
//! progress indicator, Ctrl-C).
//!
//! The engine is chosen by [`resolve`](super::resolve) on the resolved
//! options: with `--jobs N` (N > 1) the trace file is monitored by
//! [`Session::run_parallel_file`], with the output of a sequential run. The
//! trace may also be standard input, or a pipe: then it is read by a helper
//! thread into blocks that end where the stream waits, and the output is
//! flushed before the run waits ([`Session::run_parallel_stream`]), so that
//! verdicts show as in a sequential run. The sequential engine is used
//! instead for `--jobs 1`, for a terminal, and for what
//! [`Session::runs_in_parallel`] refuses. An MFOTL specification on a
//! named file goes to [`Session::run_parallel_file`] too, which cuts a
//! MonPoly log into time segments where that applies and runs it
//! sequentially otherwise.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::mfotl::typing::Typing;
use crate::report::{OutputFormat, Printer, Summary, Violation};
use crate::runtime::witness::WitnessValue;
use crate::session::{Outcome, Report, RunError, Session, Verdict, Warning};

use super::args::RunOptions;
use super::progress::{self, Progress};
use super::resolve::{Engine, Resolved, resolve};
use super::run_parts::select_props;
use super::spec::load_any;
use super::target::{self, Target};
use super::{Interrupt, Output as Stdout, hints, input, open_input};

/// Runs `hindsight run`.
pub fn run(spec: &Path, trace: Option<&Path>, opts: &RunOptions) -> ExitCode {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let Resolved {
        trace,
        session: mut options,
        target,
        engine,
        ..
    } = resolve(spec, trace, opts, cores);
    if spec == Path::new("-") && trace.is_none() {
        eprintln!("error: the specification and the trace cannot both come from standard input");
        return ExitCode::from(2);
    }
    let (text, mut plan, translation, time_decimals) =
        match load_any(spec, &opts.mfotl, opts.time_decimals.unwrap_or(0)) {
            Ok(x) => x,
            Err(code) => {
                if let Some(hint) = hints::swapped(spec, trace) {
                    eprintln!("{hint}");
                }
                return code;
            }
        };
    if opts.mfotl.event_steps && translation.is_none() {
        eprintln!(
            "error: --event-steps is for MFOTL specifications (a QTL specification steps each \
             event on its own unless --timepoints)"
        );
        return ExitCode::from(2);
    }
    if let Err(code) = select_props(spec, &mut plan, &opts.props) {
        return code;
    }
    let timed = options.trace.timed;
    options.time_decimals = time_decimals;
    #[cfg(feature = "cluster")]
    let cluster_plan = (engine == Engine::Cluster).then(|| plan.clone());
    let mut session = match Session::from_plan(plan, &text, options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(t) = &translation {
        session.set_typing(Typing::new(t));
    }
    if let Some(note) = &target.note {
        eprintln!("{note}");
    }
    // A MonPoly log has time stamps without --timed: look at its first event.
    if let Some(warning) = session.untimed_warning(timed)
        && !opts.quiet
        && !trace.is_some_and(|t| hints::has_time_stamps(t, timed, opts.format))
    {
        eprintln!("warning: {warning}");
    }
    let trace_name = trace.map_or_else(|| "<stdin>".to_string(), |p| p.display().to_string());
    session.set_trace_name(&trace_name);
    #[cfg(feature = "cluster")]
    if let Some(plan) = cluster_plan {
        let satisfactions = session.options().satisfactions;
        return run_cluster(session, &plan, trace, opts, satisfactions, &target);
    }
    if let Some(path) = &opts.users.profile {
        let started = File::create(path)
            .and_then(|f| session.profile(Box::new(BufWriter::new(f)), opts.users.profile_every));
        if let Err(e) = started {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let regular = match trace {
        Some(path) => path.metadata().is_ok_and(|m| m.is_file()),
        None => input::stdin_file().is_some(),
    };
    if let Engine::Parallel(_) = engine
        && !regular
        && session.runs_in_parallel()
    {
        // A pipe: read by a helper thread, in blocks that end where it waits.
        let (stream, online) = match input::stream(trace) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: cannot read {trace_name}: {e}");
                return ExitCode::from(2);
            }
        };
        let mut report = match parallel_report(&mut session, None, opts, &target, &trace_name) {
            Ok(report) => report,
            Err(code) => return code,
        };
        return exit_code(&session.run_parallel_stream(stream, online, &mut report));
    }
    if let (Engine::Parallel(_), Some(trace)) = (engine, trace)
        && regular
    {
        let mut report =
            match parallel_report(&mut session, Some(trace), opts, &target, &trace_name) {
                Ok(report) => report,
                Err(code) => return code,
            };
        return file_exit(session.run_parallel_file(trace, &mut report), &trace_name);
    }
    if let (Engine::Parallel(_), None) = (engine, trace)
        && let Some(file) = input::stdin_file()
    {
        // Standard input is a regular file: read in blocks as one.
        let mut report = match parallel_report(&mut session, None, opts, &target, &trace_name) {
            Ok(report) => report,
            Err(code) => return code,
        };
        return exit_code(&session.run_parallel_open_file(file, &mut report));
    }
    let progress = progress::start(trace, opts.users.no_progress, target.json);
    session.set_cancel(Interrupt::install().flag());
    let stdout = match report_out(&target, progress.as_ref()) {
        Ok(out) => out,
        Err(code) => return code,
    };
    if trace.is_none() && io::stdin().is_terminal() {
        eprintln!("{}", hints::TERMINAL);
    }
    if let Some(path) = trace.filter(|p| p.metadata().is_ok_and(|m| m.is_file())) {
        // A file: the session may read it ahead in a thread of its own.
        let mut report = CliReport::new(stdout, &session, progress, opts, &target, &trace_name);
        return file_exit(session.run_file(path, &mut report), &trace_name);
    }
    if trace.is_none()
        && let Some(file) = input::stdin_file()
    {
        // Standard input is a regular file: read ahead as one.
        let mut report = CliReport::new(stdout, &session, progress, opts, &target, &trace_name);
        return exit_code(&session.run_open_file(file, &mut report));
    }
    let input = match open_input(trace, &stdout) {
        Ok(input) => input,
        Err(e) => {
            let name = trace.map_or("standard input".into(), |p| p.display().to_string());
            eprintln!("error: cannot read {name}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut report = CliReport::new(stdout, &session, progress, opts, &target, &trace_name);
    exit_code(&session.run(input, &mut report))
}

/// The exit status of a run on the file `name`, or of the file that could
/// not be read (status 2, said on standard error).
/// The start of a parallel run: its progress (of the file `trace`, if
/// any), Ctrl-C, and the report of its output.
fn parallel_report<'a>(
    session: &mut Session,
    trace: Option<&Path>,
    opts: &'a RunOptions,
    target: &Target,
    trace_name: &'a str,
) -> Result<CliReport<'a>, ExitCode> {
    let progress = progress::start(trace, opts.users.no_progress, target.json);
    session.set_cancel(Interrupt::install().flag());
    let stdout = report_out(target, progress.as_ref())?;
    Ok(CliReport::new(
        stdout, session, progress, opts, target, trace_name,
    ))
}

fn file_exit(run: io::Result<Outcome>, name: &str) -> ExitCode {
    match run {
        Ok(outcome) => exit_code(&outcome),
        Err(e) => {
            eprintln!("error: cannot read {name}: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs `session` (of `plan`) in cluster mode, as `opts.cluster` says, on `trace`; process 0
/// prints what the sequential run prints and gives its exit status, the
/// other processes print nothing on success.
#[cfg(feature = "cluster")]
fn run_cluster(
    mut session: Session,
    plan: &crate::plan::Plan,
    trace: Option<&Path>,
    opts: &RunOptions,
    satisfactions: bool,
    target: &Target,
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
        || opts.on_error == crate::session::OnError::Skip
    {
        return fail(
            "--cluster prints violations as a run without --witness, --all-witnesses, \
             --profile, --strict, --timepoints, --skip-bad-lines, --on-error skip or MFOTL \
             satisfactions does"
                .to_owned(),
        );
    }
    let Some(trace) = trace else {
        return fail("--cluster reads a trace file, not standard input".to_owned());
    };
    let reads = config.process == 0 || config.input == crate::cluster::InputMode::PerProcess;
    let trace_name = trace.display().to_string();
    let input = if reads {
        match File::open(trace) {
            Ok(f) => Some((f, trace_name.clone())),
            Err(e) => return fail(format!("cannot read {trace_name}: {e}")),
        }
    } else {
        None
    };
    session.set_cancel(Interrupt::install().flag());
    if config.process != 0 {
        return match session.run_cluster(
            plan,
            input,
            &config,
            &mut crate::session::Collect::default(),
        ) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => fail(format!("cluster: {e}")),
        };
    }
    let progress = progress::start(Some(trace), opts.users.no_progress, target.json);
    let stdout = match report_out(target, progress.as_ref()) {
        Ok(out) => out,
        Err(code) => return code,
    };
    let mut report = CliReport::new(stdout, &session, progress, opts, target, &trace_name);
    match session.run_cluster(plan, input, &config, &mut report) {
        Ok(outcome) => exit_code(&outcome),
        Err(e) => fail(format!("cluster: {e}")),
    }
}

/// Where the report goes: the target's file (created), or standard output
/// (beside the progress indicator); a message and status 2 when the file
/// cannot be created.
pub(super) fn report_out(target: &Target, progress: Option<&Progress>) -> Result<Stdout, ExitCode> {
    match &target.file {
        None => Ok(Stdout::new(progress::stdout(progress))),
        Some(path) => match target::create(path) {
            Ok(file) => Ok(Stdout::new(file)),
            Err(e) => {
                eprintln!("{e}");
                Err(ExitCode::from(2))
            }
        },
    }
}

/// The names of the session's properties.
fn names(session: &Session) -> Vec<String> {
    session
        .monitor()
        .property_names()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The exit status of a run: 0 satisfied, 1 violated, 2 failed, 130
/// interrupted.
pub(super) fn exit_code(outcome: &Outcome) -> ExitCode {
    match outcome.verdict {
        Verdict::Satisfied => ExitCode::SUCCESS,
        Verdict::Violated => ExitCode::from(1),
        Verdict::Failed => ExitCode::from(2),
        Verdict::Interrupted => ExitCode::from(130),
    }
}

/// The command line's report: the printer on standard output (or the
/// report's file), messages on standard error, the progress indicator.
pub(super) struct CliReport<'a> {
    printer: Printer<Stdout>,
    progress: Option<Progress>,
    quiet: bool,
    trace_name: &'a str,
    profile: Option<&'a Path>,
}

impl<'a> CliReport<'a> {
    /// The report of `session`'s run (its properties' names, its precision
    /// of time stamps).
    pub(super) fn new(
        out: Stdout,
        session: &Session,
        progress: Option<Progress>,
        opts: &'a RunOptions,
        target: &Target,
        trace_name: &'a str,
    ) -> CliReport<'a> {
        let mut printer = printer(out, names(session), opts, target);
        printer.time_decimals = session.options().time_decimals;
        printer.columns = session.typing().map(|t| t.columns.clone());
        CliReport {
            printer,
            progress,
            quiet: opts.quiet,
            trace_name,
            profile: opts.users.profile.as_deref(),
        }
    }
}

/// The text or JSON printer that `opts` and `target` ask for.
fn printer(out: Stdout, names: Vec<String>, opts: &RunOptions, target: &Target) -> Printer<Stdout> {
    let format = if target.json {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let mut printer = Printer::new(out, format, names);
    printer.quiet = opts.quiet;
    printer.max_violations = opts.max_violations;
    printer.color = target::use_color(
        opts.color,
        target,
        std::env::var("NO_COLOR").ok().as_deref(),
    );
    printer
}

impl Report for CliReport<'_> {
    #[inline]
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        self.printer.violation_with_witness(v, witness)
    }

    fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        self.printer.satisfaction(v, point, ts, tuples)
    }

    fn satisfaction_names_event(&self) -> bool {
        self.printer.satisfaction_names_event()
    }

    fn undecided(&mut self, u: &crate::report::Undecided<'_>) -> io::Result<()> {
        self.printer.undecided(u)
    }

    fn warning(&mut self, warning: &Warning) {
        let profile = self
            .profile
            .map_or_else(String::new, |p| p.display().to_string());
        let mut err = io::stderr().lock();
        let _ = match warning {
            Warning::ProfileStopped(e) => writeln!(err, "warning: profile {profile} stopped: {e}"),
            Warning::ProfileUnwritten(e) => {
                writeln!(err, "warning: cannot write profile {profile}: {e}")
            }
            _ if self.quiet => Ok(()),
            Warning::TimeRegressions(_) => writeln!(err, "warning: {}: {warning}", self.trace_name),
            _ => writeln!(err, "warning: {warning}"),
        };
    }

    fn error(&mut self, error: &RunError) {
        let mut err = io::stderr().lock();
        let _ = match error {
            RunError::Skipped(_) => writeln!(err, "error: {}: {error}", self.trace_name),
            _ => writeln!(err, "error: {}:{error}", self.trace_name),
        };
    }

    #[inline(always)]
    fn progress(&mut self, events: u64, bytes_read: &dyn Fn() -> u64) {
        if let Some(p) = &mut self.progress {
            p.after_event(events, bytes_read);
        }
    }

    fn waiting(&mut self) {
        let _ = self.printer.flush();
    }

    fn end(&mut self) {
        if let Some(p) = self.progress.take() {
            p.finish();
        }
    }

    fn summary(&mut self, summary: &Summary) -> io::Result<()> {
        self.printer.summary(summary)
    }
}
