//! The reader side of a parallel run: events parsed on their own thread into
//! owned batches, handed in order to the workers and to the merger.

use std::io::Read;

use hashbrown::HashMap;

use crate::runtime::StepError;
use crate::trace::{EventRef, TraceError, TraceReader};

/// Events per batch (at most).
const BATCH_EVENTS: usize = 2048;
/// Bytes of event data per batch before it is sent (a batch may exceed it by
/// one event).
const BATCH_BYTES: usize = 1 << 20;

/// Why the stream of events ended early.
#[derive(Clone, Debug)]
pub enum End {
    /// The trace reader failed (the event is not part of the stream).
    Trace(TraceError),
    /// An event had another arity than the specification gives its name.
    Arity {
        /// The event's line.
        line: u64,
        /// The error, as the monitor gives it.
        error: StepError,
        /// The event's last argument (for the hint about time stamps).
        last: Option<Box<[u8]>>,
    },
    /// Ctrl-C (or the caller's stop flag) was seen before an event.
    Interrupted,
}

/// One event of a batch: fields `fields` of [`Batch::fields`].
#[derive(Clone, Copy, Debug)]
pub struct Ev {
    /// The 1-based event number.
    pub number: u64,
    /// Its line in the trace.
    pub line: u64,
    /// Its time stamp (0 untimed).
    pub time: u64,
    /// Its name's index in the plan's events (`u32::MAX`: a name the plan
    /// does not know).
    pub name: u32,
    /// How many events repeat it byte for byte on the lines after it:
    /// events `number + 1 ..= number + repeats`, on the lines after `line`.
    pub repeats: u64,
    /// Where its name starts in the batch's bytes.
    start: usize,
    /// The index in `ends` of its name's end; `count` fields follow.
    first: u32,
    count: u32,
}

/// The arguments of one event: a view of its batch (or of a slice of
/// fields), whose fields are only looked up when asked for.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a>(ArgsOf<'a>);

#[derive(Clone, Copy, Debug)]
enum ArgsOf<'a> {
    /// The bytes of a batch and the ends of the event's fields, its name's
    /// first (an argument starts one byte after the end of the field before
    /// it).
    Batch { bytes: &'a [u8], ends: &'a [usize] },
    Fields(&'a [&'a [u8]]),
}

impl<'a> Args<'a> {
    /// The arguments `fields`.
    pub fn from_fields(fields: &'a [&'a [u8]]) -> Self {
        Args(ArgsOf::Fields(fields))
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        match self.0 {
            ArgsOf::Batch { ends, .. } => ends.len().saturating_sub(1),
            ArgsOf::Fields(f) => f.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Argument `k` (0-based), if there is one.
    pub fn get(&self, k: usize) -> Option<&'a [u8]> {
        match self.0 {
            ArgsOf::Batch { bytes, ends } => {
                let (start, end) = (*ends.get(k)? + 1, *ends.get(k + 1)?);
                bytes.get(start..end)
            }
            ArgsOf::Fields(f) => f.get(k).copied(),
        }
    }

    /// The arguments, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        let this = *self;
        (0..this.len()).map(move |k| this.get(k).unwrap_or_default())
    }

    /// The arguments, in order, collected.
    pub fn to_vec(&self) -> Vec<&'a [u8]> {
        self.iter().collect()
    }
}

/// Consecutive events, owned.
#[derive(Debug, Default)]
pub struct Batch {
    /// The fields of the events, each followed by one separator byte: an
    /// event's name starts at its `start`, and each of its other fields
    /// one byte after the end of the field before it. (A CSV line read in
    /// place is copied as it is.)
    bytes: Vec<u8>,
    /// Per field, where it ends in `bytes`.
    ends: Vec<usize>,
    /// The events, in trace order.
    pub events: Vec<Ev>,
    /// Set on the last batch when the stream ended early.
    pub end: Option<End>,
    /// Bytes of the input read when the batch was sent.
    pub bytes_read: u64,
    /// Whether the events have time stamps (the reader's
    /// [`has_time`](crate::trace::TraceReader::has_time)).
    pub timed: bool,
}

impl Batch {
    /// The fields of `ev` (name first, then the arguments), written into
    /// `out` (cleared first).
    pub fn fields_of<'a>(&'a self, ev: &Ev, out: &mut Vec<&'a [u8]>) {
        out.clear();
        let first = ev.first as usize;
        let mut start = ev.start;
        for &end in &self.ends[first..first + ev.count as usize] {
            out.push(&self.bytes[start..end]);
            start = end + 1;
        }
    }

    /// The name of `ev`.
    #[inline]
    pub fn name_of(&self, ev: &Ev) -> &[u8] {
        &self.bytes[ev.start..self.ends[ev.first as usize]]
    }

    /// The arguments of `ev`, read on demand.
    #[inline]
    pub fn args_of(&self, ev: &Ev) -> Args<'_> {
        let first = ev.first as usize;
        let count = ev.count as usize;
        Args(ArgsOf::Batch {
            bytes: &self.bytes,
            ends: &self.ends[first..first + count],
        })
    }

    /// Argument `k` (0-based) of `ev`, if it has one.
    #[inline]
    pub fn arg(&self, ev: &Ev, k: usize) -> Option<&[u8]> {
        (k + 1 < ev.count as usize).then(|| {
            let i = ev.first as usize + k;
            &self.bytes[self.ends[i] + 1..self.ends[i + 1]]
        })
    }

    /// Adds `event`, whose name has index `name`.
    fn push(&mut self, event: &EventRef<'_>, name: u32) {
        let first = self.ends.len() as u32;
        let start = self.bytes.len();
        if let Some(record) = event.contiguous() {
            // One copy of the line's bytes; the fields' ends from their
            // lengths.
            self.bytes.extend_from_slice(record);
            let mut end = start + event.name.len();
            self.ends.push(end);
            for arg in event.args() {
                end += 1 + arg.len();
                self.ends.push(end);
            }
        } else {
            for f in std::iter::once(event.name).chain(event.args()) {
                self.bytes.extend_from_slice(f);
                self.ends.push(self.bytes.len());
                self.bytes.push(b',');
            }
        }
        let count = self.ends.len() as u32 - first;
        self.events.push(Ev {
            number: event.number,
            line: event.line,
            time: event.time,
            name,
            repeats: 0,
            start,
            first,
            count,
        });
    }

    fn full(&self) -> bool {
        self.events.len() >= BATCH_EVENTS || self.bytes.len() >= BATCH_BYTES
    }
}

/// The batches of a trace, read on demand (events of a known name with
/// another arity end the stream, as the monitor would refuse them).
pub struct Batches<'a, R: Read> {
    reader: TraceReader<R>,
    arity: &'a HashMap<Box<[u8]>, (u32, usize)>,
    stop: &'a (dyn Fn() -> bool + Sync),
    done: bool,
    /// The sizes of the last full batch's byte, field and event vectors.
    room: (usize, usize, usize),
}

impl<'a, R: Read> Batches<'a, R> {
    /// The batches of `reader`; `arity` gives per event name its index in
    /// the plan's events and its arity; `stop()` ends the stream early.
    pub fn new(
        reader: TraceReader<R>,
        arity: &'a HashMap<Box<[u8]>, (u32, usize)>,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Self {
        Batches {
            reader,
            arity,
            stop,
            done: false,
            room: (0, 0, 0),
        }
    }

    /// Whether the last batch has been read.
    pub fn done(&self) -> bool {
        self.done
    }

    /// The next batch; after the last one (which may be empty, and may
    /// carry an [`End`]), `None`.
    pub fn next_batch(&mut self) -> Option<Batch> {
        if self.done {
            return None;
        }
        // Room for as much as the batch before held: no growing on the way.
        let mut batch = Batch {
            bytes: Vec::with_capacity(self.room.0),
            ends: Vec::with_capacity(self.room.1),
            events: Vec::with_capacity(self.room.2),
            ..Batch::default()
        };
        loop {
            let next = self.reader.next_event();
            if (self.stop)() {
                batch.end = Some(End::Interrupted);
                break;
            }
            let event = match next {
                Ok(Some(e)) => e,
                Ok(None) => break,
                Err(e) => {
                    batch.end = Some(End::Trace(e));
                    break;
                }
            };
            let (name, expected) = self
                .arity
                .get(event.name)
                .copied()
                .unwrap_or((u32::MAX, event.arity()));
            if expected != event.arity() {
                batch.end = Some(End::Arity {
                    line: event.line,
                    error: StepError::Arity {
                        event: String::from_utf8_lossy(event.name).into_owned(),
                        expected,
                        found: event.arity(),
                    },
                    last: event.arity().checked_sub(1).map(|i| event.arg(i).into()),
                });
                break;
            }
            batch.push(&event, name);
            // A run of the same record: one event of the batch.
            let repeats = self.reader.repeats(u64::MAX);
            if let Some(last) = batch.events.last_mut() {
                last.repeats = repeats;
            }
            if batch.full() {
                self.room = (batch.bytes.len(), batch.ends.len(), batch.events.len());
                batch.bytes_read = self.reader.bytes_read();
                batch.timed = self.reader.has_time();
                return Some(batch);
            }
        }
        self.done = true;
        batch.bytes_read = self.reader.bytes_read();
        batch.timed = self.reader.has_time();
        Some(batch)
    }
}
