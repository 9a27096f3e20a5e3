//! `hindsight run --cluster` (cargo feature `cluster`): the parallel run's
//! slices on Timely Dataflow workers, in one or several processes
//! ([`hindsight::cluster`], docs/PARALLEL.md). Process 0 prints what the
//! sequential run prints; the other processes print nothing on success.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hindsight::cluster::{self, InputMode};
use hindsight::plan::Plan;
use hindsight::session::{Collect, OnError, Session};

use super::args::RunOptions;
use super::report_to::Target;
use super::run::{CliReport, exit_code, report_out};
use super::{Interrupt, progress};

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

/// Runs `session` (of `plan`) as `opts.cluster` says, on `trace`; process 0
/// prints what the sequential run prints and gives its exit status, the
/// other processes print nothing on success.
pub fn run(
    mut session: Session,
    plan: &Plan,
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
        || opts.on_error == OnError::Skip
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
    let reads = config.process == 0 || config.input == InputMode::PerProcess;
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
        return match session.run_cluster(plan, input, &config, &mut Collect::default()) {
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
