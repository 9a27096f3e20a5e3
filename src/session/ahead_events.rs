//! Reading ahead, event by event: a QTL run on a CSV trace file, allowed
//! more than one thread ([`crate::session::SessionOptions::jobs`]), reads its
//! records, splits them into fields and copies those into owned buffers in
//! a thread of its own, while the session steps the monitor through the
//! events read before. The verdicts, their order, the lines skipped and
//! every error are those of the one-thread loop ([`Session::run`]); only
//! the reading moves.
//!
//! The reader also counts the records that repeat an event byte for byte
//! on the lines after it, as the one-thread loop asks its reader to. The
//! session takes such a run at once when the monitor is at a fixed point
//! ([`crate::runtime::Monitor::repeat_is_noop`]), and steps its events one
//! by one otherwise, each on its own line.
//!
//! Batches go to the session over a bounded channel (the reader is at most
//! a few batches ahead), and come back to be filled again. A run that stops
//! early (an error, the first violation with `stop_at_first`, a failed
//! report, a cancellation) drops its end of the channel: the reader stops
//! at its next batch.

use std::io::Read;
use std::ops::ControlFlow;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use super::step::Step;
use super::{Outcome, Report, Session};
use crate::trace::{Format, TraceError, TraceReader};

/// Events per batch.
const BATCH: usize = 512;
/// Batches the reader may be ahead.
const AHEAD: usize = 4;

/// What the reader found, in trace order.
enum Item {
    /// An event, whose name and arguments are the batch's next `fields`
    /// fields, and the number of records that repeat it on the next lines.
    Event {
        fields: usize,
        time: u64,
        line: u64,
        timed: bool,
        repeats: u64,
    },
    /// A record that could not be read; `resumable`: whether the reader
    /// can go on after it.
    Bad { error: TraceError, resumable: bool },
}

/// Events read, their fields back to back, and the bytes of the input read
/// after them.
#[derive(Default)]
struct Batch {
    items: Vec<Item>,
    /// The fields' bytes.
    bytes: Vec<u8>,
    /// Where each field ends in `bytes`.
    ends: Vec<usize>,
    bytes_read: u64,
}

impl Batch {
    fn push_field(&mut self, field: &[u8]) {
        self.bytes.extend_from_slice(field);
        self.ends.push(self.bytes.len());
    }

    fn field(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
        self.ends.clear();
    }
}

impl Session {
    /// Whether [`Session::run_events_ahead`] applies to a trace read by
    /// `reader`: a QTL run event by event on a CSV trace, to its end.
    pub(super) fn reads_events_ahead<R: Read>(&self, reader: &mut TraceReader<R>) -> bool {
        self.typing.is_none()
            && !self.options.timepoints
            && self.options.until.is_none()
            && matches!(reader.detect_format(), Format::Plain | Format::Crv)
    }

    /// [`Session::run`] of a CSV trace read by `reader` in a thread of its
    /// own (see the [module](self)).
    pub(super) fn run_events_ahead<R, P>(mut self, reader: TraceReader<R>, out: &mut P) -> Outcome
    where
        R: Read + Send + 'static,
        P: Report + ?Sized,
    {
        let format = reader.format();
        let skip = self.skip();
        let (to_session, batches) = sync_channel(AHEAD);
        let (to_reader, spares) = channel();
        if !self.start_reader(move || read_events(reader, skip, &to_session, &spares)) {
            return self.finish(out);
        }
        for mut batch in batches {
            let flow = self.batch(&mut batch, out);
            out.progress(self.monitor.events(), &|| batch.bytes_read);
            if flow.is_break() {
                break;
            }
            batch.clear();
            // The reader may have stopped: its buffers are not needed then.
            let _ = to_reader.send(batch);
        }
        self.format = Some(format);
        self.finish(out)
    }

    /// Steps the events of `batch` (its items are taken out, their buffer
    /// put back empty). `Break` when the run has ended.
    fn batch<P: Report + ?Sized>(&mut self, batch: &mut Batch, out: &mut P) -> ControlFlow<()> {
        let mut items = std::mem::take(&mut batch.items);
        let flow = self.items(items.drain(..), batch, out);
        batch.items = items;
        flow
    }

    /// Steps `items`, whose fields `batch` holds.
    fn items<P: Report + ?Sized>(
        &mut self,
        items: impl Iterator<Item = Item>,
        batch: &Batch,
        out: &mut P,
    ) -> ControlFlow<()> {
        let skip = self.skip();
        // Runs of repeats go at once unless a profile samples every step.
        let runs = self.profile.is_none();
        let mut field = 0;
        let mut args: Vec<&[u8]> = Vec::new();
        let mut flow = ControlFlow::Continue(());
        for item in items {
            if self.cancelled() {
                self.interrupted = true;
                flow = ControlFlow::Break(());
                break;
            }
            match item {
                Item::Bad { error, resumable } => {
                    flow = self.bad_timepoint(error, skip && resumable);
                }
                Item::Event {
                    fields,
                    time,
                    line,
                    timed,
                    repeats,
                } => {
                    args.clear();
                    args.extend((field + 1..field + fields).map(|i| batch.field(i)));
                    let step = Step {
                        name: batch.field(field),
                        args: &args,
                        time,
                        line,
                        timed,
                    };
                    field += fields;
                    flow = self.event_and_repeats(step, repeats, runs, out);
                }
            }
            if flow.is_break() {
                break;
            }
        }
        flow
    }

    /// An event read ahead and the `repeats` records that repeat it on the
    /// next lines, as the one-thread loop steps them.
    fn event_and_repeats<P: Report + ?Sized>(
        &mut self,
        step: Step<'_>,
        repeats: u64,
        runs: bool,
        out: &mut P,
    ) -> ControlFlow<()> {
        if self.monitor.events() == 0 {
            // An untimed trace's clock counts events.
            self.monitor.set_step_clock(!step.timed);
        }
        self.event(step, out)?;
        self.after_event(out);
        let mut done = 0;
        loop {
            if done < repeats && runs && self.last_ok && self.monitor.repeat_is_noop() {
                let n = self.repeats_before_end().min(repeats - done);
                if n > 0 {
                    let from = Step {
                        line: step.line + done,
                        timed: self.options.trace.timed,
                        ..step
                    };
                    self.repeats(&from, n, out)?;
                    done += n;
                }
            }
            if done == repeats {
                return ControlFlow::Continue(());
            }
            // The next repeat, stepped as the event of its own line.
            done += 1;
            let again = Step {
                line: step.line + done,
                ..step
            };
            self.event(again, out)?;
            self.after_event(out);
        }
    }
}

/// The reader's loop: reads every event of `reader` and sends them in
/// batches to `to_session`, taking batches back from `spares`. Ends at the
/// end of the trace, at an error that ends it (every error unless `skip`
/// and the reader can go on), or when the session no longer listens.
fn read_events<R: Read>(
    mut reader: TraceReader<R>,
    skip: bool,
    to_session: &SyncSender<Batch>,
    spares: &Receiver<Batch>,
) {
    let mut batch = Batch::default();
    loop {
        let last = match reader.next_timepoint() {
            Ok(Some(point)) => {
                for event in point.events() {
                    batch.push_field(event.name);
                    for arg in event.args() {
                        batch.push_field(arg);
                    }
                    batch.items.push(Item::Event {
                        fields: 1 + event.arity(),
                        time: event.time,
                        line: event.line,
                        timed: point.timed,
                        repeats: 0,
                    });
                }
                let n = reader.repeats(u64::MAX);
                if n > 0
                    && let Some(Item::Event { repeats, .. }) = batch.items.last_mut()
                {
                    *repeats = n;
                }
                false
            }
            Ok(None) => true,
            Err(error) => {
                let resumable = !reader.failed();
                batch.items.push(Item::Bad { error, resumable });
                !(skip && resumable)
            }
        };
        if batch.items.len() >= BATCH || last {
            batch.bytes_read = reader.bytes_read();
            let next = spares.try_recv().unwrap_or_default();
            if to_session
                .send(std::mem::replace(&mut batch, next))
                .is_err()
                || last
            {
                return;
            }
        }
    }
}
