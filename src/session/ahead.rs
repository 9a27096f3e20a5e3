//! Reading ahead: an MFOTL run on a MonPoly log file, allowed more than one
//! thread ([`crate::session::SessionOptions::jobs`]), reads its time-points,
//! types them against the signature and copies them into owned buffers in
//! a thread of its own, while the session steps the monitor through the
//! ones read before. The verdicts, their order and every error are those
//! of the one-thread loop ([`Session::run`]); only the reading moves.
//!
//! Batches of time-points go to the session over a bounded channel (the
//! reader is at most a few batches ahead), and their buffers come back to
//! be filled again. A run that stops early (an error, the first violation
//! with `stop_at_first`, a cancellation) drops its end of the channel: the
//! reader stops at its next batch.

use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use super::delayed::Fields;
use super::points::{Head, type_point};
use super::{Outcome, Report, RunError, Session, step};
use crate::mfotl::typing::Typing;
use crate::trace::{Format, TraceError, TraceReader};

/// Time-points per batch.
const BATCH: usize = 256;
/// Batches the reader may be ahead.
const AHEAD: usize = 4;

/// What the reader found, in trace order.
enum Item {
    /// A time-point, its events typed.
    Point(Head, Fields),
    /// A bad record or time-point, skipped (with `--skip-bad-lines`).
    Skipped(u64, String),
    /// The error that ends the trace.
    Failed(TraceError),
}

/// A batch of items, and the bytes of the input read after it.
struct Batch {
    items: Vec<Item>,
    bytes_read: u64,
}

impl Session {
    /// Whether [`Session::run_ahead`] applies to a trace read by `reader`:
    /// an MFOTL run by time-points on a MonPoly log, to its end.
    pub(super) fn reads_ahead<R: Read>(&self, reader: &mut TraceReader<R>) -> bool {
        self.typing.is_some()
            && !self.options.event_steps
            && self.options.until.is_none()
            && reader.detect_format() == Format::MonPoly
    }

    /// [`Session::run`] of a MonPoly log read by `reader` in a thread of its
    /// own (see the [module](self)).
    pub(super) fn run_ahead<R, P>(mut self, reader: TraceReader<R>, out: &mut P) -> Outcome
    where
        R: Read + Send + 'static,
        P: Report + ?Sized,
    {
        let Some(typing) = self.typing.clone() else {
            return self.run_reader(reader, out);
        };
        let format = reader.format();
        let skip = self.skip();
        let (to_session, batches) = sync_channel(AHEAD);
        let (to_reader, spares) = channel();
        if !self.start_reader(move || read_ahead(reader, &typing, skip, &to_session, &spares)) {
            return self.finish(out);
        }
        if self.culprits_read(out) {
            // A violation names the event it is due to: the walk of the
            // witnesses finds it.
            self.monitor.enable_witnesses(true);
        }
        let mut used = Vec::with_capacity(BATCH);
        'batches: for batch in batches {
            for item in batch.items {
                if self.cancelled() {
                    self.interrupted = true;
                    break 'batches;
                }
                match item {
                    Item::Point(head, fields) => {
                        if self.monitor.events() == 0 {
                            // An untimed trace's clock counts events.
                            self.monitor.set_step_clock(!head.timed);
                        }
                        let flow = self.typed_point(head, fields, out);
                        used.push(std::mem::take(&mut self.point_buf));
                        if flow.is_break() {
                            break 'batches;
                        }
                        self.after_event(out);
                    }
                    Item::Skipped(line, why) => self.bad.skip(line, || why),
                    Item::Failed(e) => {
                        self.error = Some(RunError::Trace(e));
                        break 'batches;
                    }
                }
            }
            out.progress(self.monitor.events(), &|| batch.bytes_read);
            // The reader may have stopped: its buffers are not needed then.
            let _ = to_reader.send(std::mem::replace(&mut used, Vec::with_capacity(BATCH)));
        }
        self.format = Some(format);
        self.finish(out)
    }

    /// Starts `read` in a thread of its own, and the run's clock. `false`,
    /// with the run's error set, when the thread cannot start.
    pub(super) fn start_reader(&mut self, read: impl FnOnce() + Send + 'static) -> bool {
        let spawned = std::thread::Builder::new()
            .name("read-ahead".to_owned())
            .spawn(read);
        self.start = std::time::Instant::now();
        if let Err(e) = spawned {
            self.error = Some(RunError::Trace(TraceError::new(
                crate::trace::TraceErrorKind::Io,
                0,
                format!("cannot start the thread that reads the trace: {e}"),
            )));
            return false;
        }
        true
    }
}

/// The reader's loop: reads every time-point of `reader`, typed, and sends
/// them in batches to `to_session`, taking buffers back from `spares`.
/// Ends at the end of the trace, at an error that ends it, or when the
/// session no longer listens.
fn read_ahead<R: Read>(
    mut reader: TraceReader<R>,
    typing: &Typing,
    skip: bool,
    to_session: &SyncSender<Batch>,
    spares: &Receiver<Vec<Fields>>,
) {
    let mut pool: Vec<Fields> = Vec::new();
    let mut items = Vec::with_capacity(BATCH);
    loop {
        let (item, last) = match reader.next_timepoint() {
            Ok(Some(point)) => {
                if pool.is_empty() {
                    pool.extend(spares.try_iter().flatten());
                }
                let mut fields = pool.pop().unwrap_or_default();
                match type_point(Some(typing), &point, &mut fields) {
                    Ok(()) => (Some(Item::Point(Head::of(&point), fields)), false),
                    Err(e) if skip => (Some(Item::Skipped(e.line, e.to_string())), false),
                    Err(e) => (Some(Item::Failed(e)), true),
                }
            }
            Ok(None) => (None, true),
            Err(e) => {
                if skip && !reader.failed() {
                    (Some(Item::Skipped(e.line, e.to_string())), false)
                } else {
                    (Some(Item::Failed(step::whole_time(e))), true)
                }
            }
        };
        items.extend(item);
        if items.len() == BATCH || last {
            let batch = Batch {
                items: std::mem::replace(&mut items, Vec::with_capacity(BATCH)),
                bytes_read: reader.bytes_read(),
            };
            if to_session.send(batch).is_err() || last {
                return;
            }
        }
    }
}
