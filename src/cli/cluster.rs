//! The options of `hindsight run --cluster` (cargo feature `cluster`): the
//! parallel core on Timely Dataflow workers, in one or several processes
//! ([`crate::cluster`], docs/PARALLEL.md), run by
//! [`super::run`]`::run_cluster`.

use std::path::PathBuf;

use crate::cluster::{self, InputMode};

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

    /// Timely's configuration of this process, as the options say.
    pub fn config(&self) -> Result<cluster::Config, String> {
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
