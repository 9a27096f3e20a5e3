//! [`Session::run_parallel`]: a trace monitored by [`crate::parallel`] on
//! several threads, reported through the same [`Report`] as a sequential run.

use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::read::FirstEvents;
use super::{Outcome, Report, RunError, Session, Step};
use crate::parallel::batch::{self, Batches};
use crate::parallel::segments::{self, Layout};
use crate::parallel::{self, EventView, Stopped};
use crate::plan::Plan;
use crate::trace::{FieldNames, Format, TraceOptions, TraceReader};

/// Batches of a trace's start that decide whether it is split in time.
const SAMPLE_BATCHES: usize = 32;

impl Session {
    /// Monitors `input` with `jobs` worker threads (the session's plan
    /// sliced by [`crate::parallel`]), with the verdicts, counts and errors
    /// of [`Session::run`], then [`Session::finish`]es. Needs a session made
    /// with `jobs > 1` (else it is [`Session::run`]). Witnesses, profiles,
    /// satisfactions, skipping, `strict` and `timepoints` are for
    /// sequential runs; they are ignored here.
    pub fn run_parallel<P: Report + ?Sized>(
        mut self,
        input: impl Read + Send,
        jobs: usize,
        out: &mut P,
    ) -> Outcome {
        let Some(plan) = self.plan.take() else {
            return self.run(input, out);
        };
        // Delayed verdicts (future operators) are the sequential engine's.
        if !parallel::can_gain(&plan) || self.monitor.has_future() {
            // One property that cannot be sliced or split: the sequential
            // engine, with no thread to feed.
            return self.run(input, out);
        }
        let mut reader = self.reader(input);
        self.format = Some(reader.detect_format());
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        let mut merged = Merged::default();
        let options = self.options.monitor.clone();
        let outcome = parallel::run(&plan, reader, &options, jobs, &stop, |ev, violated| {
            self.merged_event(&mut merged, out, ev, violated)
        });
        self.end_parallel(outcome, merged, out)
    }

    /// [`Session::run_parallel`] on the file at `path`, split into time
    /// segments, one per job, where that pays (see
    /// [`crate::parallel::segments`]: a long plain CSV file, untimed, whose
    /// properties' state is their summaries, and which slicing would leave
    /// uneven); sliced otherwise.
    pub fn run_parallel_file<P: Report + ?Sized>(
        mut self,
        path: &Path,
        jobs: usize,
        out: &mut P,
    ) -> std::io::Result<Outcome> {
        let file = File::open(path)?;
        let layout = match &self.plan {
            Some(plan) if jobs > 1 && !self.monitor.has_future() => {
                self.segments(plan, path, jobs)?
            }
            _ => None,
        };
        let Some(layout) = layout else {
            return Ok(self.run_parallel(file, jobs, out));
        };
        let Some(plan) = self.plan.take() else {
            return Ok(self.run(file, out));
        };
        self.start = Instant::now();
        let cancel = self.cancel.clone();
        let stop = move || cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        // Segments are untimed: the clock counts events.
        let options = crate::runtime::MonitorOptions {
            step_clock: true,
            ..self.options.monitor.clone()
        };
        let o = &self.options;
        let (strict, size, decimals) = (o.monitor.strict_time, o.max_event_size, o.time_decimals);
        let names = FieldNames::from_spec(&self.spec);
        let reader = move |input| {
            let plain = TraceOptions {
                format: Format::Plain,
                timed: false,
            };
            TraceReader::new(input, plain)
                .allow_decreasing_time(!strict)
                .max_event_size(size)
                .time_decimals(decimals)
                .field_names(names.clone())
        };
        let mut merged = Merged::default();
        self.format = Some(Format::Plain);
        let outcome = segments::run(&plan, path, &layout, &reader, &options, &stop, |ev, v| {
            self.merged_event(&mut merged, out, ev, v)
        });
        let Some(outcome) = outcome else {
            // A quote in the file: sliced after all.
            self.plan = Some(plan);
            return Ok(self.run_parallel(file, jobs, out));
        };
        Ok(self.end_parallel(outcome, merged, out))
    }

    /// Where the segments of the file at `path` lie, when it is split.
    fn segments(&self, plan: &Plan, path: &Path, jobs: usize) -> std::io::Result<Option<Layout>> {
        let size = std::fs::metadata(path)?.len();
        let plain = matches!(self.options.trace.format, Format::Auto | Format::Plain);
        let forced = segments::forced();
        if size < forced.unwrap_or(segments::MIN_BYTES) || self.options.trace.timed || !plain {
            return Ok(None);
        }
        if !segments::snapshots(plan, &self.options.monitor) {
            return Ok(None);
        }
        // The trace's first batches, read as a run reads them: plain CSV,
        // uncompressed, no time stamps; and slicing leaves the busiest
        // worker a tenth more than an even split, or worse.
        let reader = self.reader(File::open(path)?);
        let arity = batch::names(plan);
        let stop = || false;
        let mut source = Batches::new(reader, &arity, &stop);
        let mut sample = Vec::new();
        while sample.len() < SAMPLE_BATCHES
            && let Some(b) = source.next_batch()
        {
            sample.push(Arc::new(b));
        }
        if sample.iter().any(|b| b.timed) || !source.plain_csv() {
            return Ok(None);
        }
        let workers = parallel::choose(plan, jobs, &sample).layout(plan, jobs);
        if forced.is_none() && segments::busiest_share(&workers, &sample) * (jobs as f64) < 1.1 {
            return Ok(None);
        }
        segments::layout(&mut File::open(path)?, size, jobs)
    }

    /// The end of a parallel run: its outcome, and [`Session::finish`].
    fn end_parallel<P: Report + ?Sized>(
        mut self,
        outcome: parallel::Outcome,
        merged: Merged,
        out: &mut P,
    ) -> Outcome {
        match outcome.stopped {
            Some(Stopped::Trace(e)) => self.error = Some(RunError::Trace(e)),
            Some(Stopped::Monitor { line, error, last }) => {
                let timed = self.options.trace.timed;
                self.error = Some(RunError::step(line, error, timed, last.as_deref()));
            }
            Some(Stopped::Interrupted) => self.interrupted = true,
            Some(Stopped::ByCaller) | None => {}
        }
        self.parallel = Some((merged.events, merged.regressions, outcome.gc));
        self.finish(out)
    }
}

/// The counts of a run merged from several workers' verdicts.
#[derive(Default)]
pub(super) struct Merged {
    /// Events so far.
    pub(super) events: u64,
    /// Events whose time stamp was smaller than their predecessor's.
    pub(super) regressions: u64,
    last_time: Option<u64>,
}

impl Session {
    /// One event `ev` of a parallel or cluster run, in order, with the
    /// properties `violated` at it: counts and reports it; false to stop.
    pub(super) fn merged_event<P: Report + ?Sized>(
        &mut self,
        merged: &mut Merged,
        out: &mut P,
        ev: &EventView<'_>,
        violated: &[usize],
    ) -> bool {
        match ev.name_index {
            Some(index) => self.counts.add_indexed(index, ev.name, 1 + ev.repeats),
            None => self.counts.add_n(ev.name, 1 + ev.repeats),
        }
        merged.events += 1 + ev.repeats;
        if FirstEvents::wants(ev.number) {
            self.first.note(ev.number, ev.line, ev.name, ev.args.iter());
        }
        // Repeats are at the same time: no regression among them.
        merged.regressions += u64::from(merged.last_time.is_some_and(|t| ev.time < t));
        merged.last_time = Some(ev.time);
        // The arguments are only looked up for a violation's report.
        let args = if violated.is_empty() {
            Vec::new()
        } else {
            ev.args.to_vec()
        };
        let step = Step {
            name: ev.name,
            args: &args,
            time: ev.time,
            line: ev.line,
            timed: ev.timed,
        };
        if self.report_each(out, &step, ev.number, violated).is_break() {
            return false;
        }
        out.progress(merged.events, &|| ev.bytes_read);
        !self.options.stop_at_first || violated.is_empty()
    }

    /// Reports the violations of properties `violated` at event `number`
    /// (`Break` when the report failed).
    fn report_each<P: Report + ?Sized>(
        &mut self,
        out: &mut P,
        ev: &Step<'_>,
        number: u64,
        violated: &[usize],
    ) -> ControlFlow<()> {
        for &property in violated {
            let v = ev.violation(property, number, None);
            let (count, first) = &mut self.tally[property];
            *count += 1;
            first.get_or_insert(number);
            if out.violation(&v, None).is_err() {
                self.closed = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}
