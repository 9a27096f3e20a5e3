//! [`Session::run_cluster`] (cargo feature `cluster`): the session's plan
//! on Timely Dataflow workers ([`crate::cluster`]), in one or several
//! processes, reported through the same [`Report`] as a sequential run by
//! process 0.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::parallel::Merged;
use super::{EndOfTrace, Outcome, Report, RunError, Session, StepError};
use crate::cluster::{self, Config, Source};
use crate::parallel::{self, Stop};
use crate::plan::Plan;

impl Session {
    /// Monitors the trace on the workers `config` describes, `plan` being
    /// the session's plan; `input` is this process's trace file with its
    /// name (process 0's in the shared mode, every process's in the
    /// per-process mode), read with the session's options. On process
    /// 0, reports the verdicts, counts and errors of [`Session::run`] to
    /// `out` and [`Session::finish`]es; the other processes see no event, and
    /// their outcome is empty (give them a [`super::Collect`]).
    /// Fails when timely cannot start (a host is unreachable) or a worker
    /// failed, for witnesses, `strict` and skipping bad lines, and for
    /// options that need the
    /// sequential engine ([`super::SessionOptions::sequential_only`]).
    pub(crate) fn run_cluster<P: Report + ?Sized>(
        mut self,
        plan: &Plan,
        input: Option<(std::fs::File, String)>,
        config: &Config,
        out: &mut P,
    ) -> Result<Outcome, String> {
        let why = (self.options.explained().then_some("witnesses"))
            .or(self.options.timepoints.then_some("time-points"))
            .or(self.profile.is_some().then_some("profile"));
        if let Some(why) = why.or(self.options.sequential_only()) {
            return Err(format!(
                "cluster mode prints no {why}: run it without --cluster"
            ));
        }
        let option = if self.options.on_error == super::OnError::Skip {
            Some("--on-error skip (--skip-bad-lines)")
        } else {
            self.options.strict.then_some("--strict")
        };
        if let Some(option) = option {
            return Err(format!(
                "cluster mode does not take {option}: run it without --cluster"
            ));
        }
        let source = input.map(|(file, name)| {
            let mut reader = self.reader(file);
            self.format = Some(reader.detect_format());
            Source { reader, name }
        });
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = Box::new(move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)));
        let options = parallel::Options {
            // An untimed trace's clock counts events.
            monitor: crate::runtime::MonitorOptions {
                step_clock: !self.options.trace.timed,
                ..self.options.monitor.clone()
            },
            jobs: config.workers,
            close: self.options.end_of_trace == Some(EndOfTrace::Close),
            ..parallel::Options::default()
        };
        let mut merged = Merged::new(&mut self, out);
        let ended = cluster::run(plan, source, config, &options, stop, &mut merged)?;
        let tally = merged.into_tally();
        let mut outcome = ended.outcome;
        // An error met in another process's part names that part's file
        // (an arity error is reported as the sequential run reports it).
        let foreign = ended.source.filter(|s| *s != self.name);
        if let Some(source) = foreign {
            let error = match outcome.stopped.take() {
                Some(Stop::Trace(e)) => Some(RunError::Worker {
                    line: e.line,
                    message: format!("{} (in {source})", e.message()),
                }),
                Some(Stop::Refused { line, error, .. })
                    if !matches!(error, StepError::Arity { .. }) =>
                {
                    Some(RunError::Worker {
                        line,
                        message: format!("{error} (in {source})"),
                    })
                }
                other => {
                    outcome.stopped = other;
                    None
                }
            };
            if error.is_some() {
                self.error = error;
            }
        }
        Ok(self.end_parallel(outcome, tally, out))
    }
}
