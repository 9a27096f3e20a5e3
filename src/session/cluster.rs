//! [`Session::run_cluster`] (cargo feature `cluster`): the session's plan
//! sliced over Timely Dataflow workers ([`crate::cluster`]), in one or
//! several processes, reported through the same [`Report`] as a sequential
//! run by process 0.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::parallel::Merged;
use super::{Outcome, Report, RunError, Session, StepError};

use crate::cluster::{self, Config, FaultKind, Source, Stop};
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
    /// failed. Witnesses, profiles, satisfactions, skipping, `strict` and
    /// `timepoints` are for sequential runs; they are ignored here.
    pub fn run_cluster<P: Report + ?Sized>(
        mut self,
        plan: &Plan,
        input: Option<(std::fs::File, String)>,
        config: &Config,
        out: &mut P,
    ) -> Result<Outcome, String> {
        if self.monitor.has_future() {
            return Err(
                "the specification has future operators, whose delayed verdicts \
                        cluster mode does not gather yet: run it without --cluster"
                    .to_owned(),
            );
        }
        let source = input.map(|(file, name)| {
            let mut reader = self.reader(file);
            self.format = Some(reader.detect_format());
            Source { reader, name }
        });
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = Box::new(move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)));
        let mut merged = Merged::default();
        // An untimed trace's clock counts events.
        let options = crate::runtime::MonitorOptions {
            step_clock: !self.options.trace.timed,
            ..self.options.monitor.clone()
        };
        let outcome = cluster::run(plan, source, config, &options, stop, |ev, violated| {
            self.merged_event(&mut merged, out, ev, violated)
        })?;
        if let Some(Stop::Fault(f)) = outcome.stopped {
            let timed = self.options.trace.timed;
            self.error = match f.kind {
                FaultKind::Interrupted => {
                    self.interrupted = true;
                    None
                }
                FaultKind::Trace(message) | FaultKind::Monitor(message) => {
                    // In the per-process mode, the part's file, if not ours.
                    let message = if f.source == self.name {
                        message
                    } else {
                        format!("{message} (in {})", f.source)
                    };
                    Some(RunError::Worker {
                        line: f.line,
                        message,
                    })
                }
                FaultKind::Arity {
                    event,
                    expected,
                    found,
                    last,
                } => Some(RunError::step(
                    f.line,
                    StepError::Arity {
                        event,
                        expected,
                        found,
                    },
                    timed,
                    last.as_deref(),
                )),
            };
        }
        self.parallel = Some((merged.events, merged.regressions, outcome.gc));
        Ok(self.finish(out))
    }
}
