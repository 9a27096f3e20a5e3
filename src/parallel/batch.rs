//! The reader side of a parallel run: events parsed on their own thread into
//! owned batches, handed in order to the workers and to the merger.

use std::io::Read;

use hashbrown::HashMap;

use crate::plan::Plan;
use crate::runtime::StepError;
use crate::trace::{EventRef, TraceError, TraceReader};

/// Events per batch (at most).
const BATCH_EVENTS: usize = 2048;
/// Bytes of event data per batch before it is sent (a batch may exceed it by
/// one event).
const BATCH_BYTES: usize = 1 << 20;

/// Spent batches kept to be filled again (at most).
const MAX_SPARES: usize = 8;

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
    Batch {
        bytes: &'a [u8],
        ends: &'a [usize],
    },
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
        self.args_of(ev).get(k)
    }

    /// Empties it, keeping its memory.
    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.events.clear();
        self.end = None;
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

    /// Adds a copy of `ev`, an event of `from` (as a router upstream of a
    /// worker sends it the events it receives).
    pub fn push_copy(&mut self, from: &Batch, ev: &Ev) {
        let first = self.ends.len() as u32;
        let start = self.bytes.len();
        let mut fields = Vec::with_capacity(1 + ev.count as usize);
        from.fields_of(ev, &mut fields);
        for f in fields {
            self.bytes.extend_from_slice(f);
            self.ends.push(self.bytes.len());
            self.bytes.push(b',');
        }
        self.events.push(Ev {
            start,
            first,
            ..*ev
        });
        self.timed = from.timed;
    }

    fn full(&self) -> bool {
        self.events.len() >= BATCH_EVENTS || self.bytes.len() >= BATCH_BYTES
    }
}

/// Per event name of `plan`: its index in the plan's events (as routes
/// number them) and its arity, as [`Batches::new`] takes them.
pub fn names(plan: &Plan) -> HashMap<Box<[u8]>, (u32, usize)> {
    (plan.events.iter().enumerate())
        .map(|(i, (e, &n))| (e.as_bytes().into(), (i as u32, n)))
        .collect()
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
    /// Spent batches, emptied, to fill again.
    spares: Vec<Batch>,
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
            spares: Vec::new(),
        }
    }

    /// Takes back a batch that every reader of it is done with, to be
    /// filled again (its memory reused).
    pub fn reuse(&mut self, mut batch: Batch) {
        if self.spares.len() < MAX_SPARES {
            batch.clear();
            self.spares.push(batch);
        }
    }

    /// Whether the trace is plain CSV (no header), uncompressed.
    pub fn plain_csv(&self) -> bool {
        self.reader.format() == crate::trace::Format::Plain
            && self.reader.compression() == crate::trace::Compression::None
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
        // A spent batch, or one with room for as much as the batch before
        // held: no growing (and no fresh pages) on the way.
        let mut batch = self.spares.pop().unwrap_or_else(|| Batch {
            bytes: Vec::with_capacity(self.room.0),
            ends: Vec::with_capacity(self.room.1),
            events: Vec::with_capacity(self.room.2),
            ..Batch::default()
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Format, TraceOptions};

    /// Every event of `trace` as (name, arguments), read in batches of
    /// `Batches`, each batch handed back for reuse when `reuse`.
    fn read_all(trace: &str, format: Format, reuse: bool) -> Vec<(String, Vec<String>)> {
        let arity: HashMap<Box<[u8]>, (u32, usize)> = [
            (b"p".as_slice().into(), (0, 2)),
            (b"q".as_slice().into(), (1, 1)),
        ]
        .into();
        let options = TraceOptions {
            timed: false,
            format,
        };
        let reader = TraceReader::new(trace.as_bytes(), options);
        let stop = || false;
        let mut batches = Batches::new(reader, &arity, &stop);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let mut out = Vec::new();
        while let Some(batch) = batches.next_batch() {
            assert!(batch.end.is_none(), "{:?}", batch.end);
            let mut fields = Vec::new();
            for ev in &batch.events {
                batch.fields_of(ev, &mut fields);
                let args = batch.args_of(ev);
                assert_eq!(args.len() + 1, fields.len());
                assert_eq!(args.to_vec(), fields[1..].to_vec());
                for (k, f) in fields[1..].iter().enumerate() {
                    assert_eq!(batch.arg(ev, k), Some(*f));
                }
                assert_eq!(batch.name_of(ev), fields[0]);
                out.push((
                    text(fields[0]),
                    fields[1..].iter().map(|f| text(f)).collect(),
                ));
            }
            if reuse {
                batches.reuse(batch);
            }
        }
        out
    }

    #[test]
    fn lines_copied_whole_and_field_by_field_read_alike_in_reused_batches() {
        // Plain lines (copied whole), a CRLF line, quoted fields and CRV's
        // trimmed fields (copied field by field), an empty argument; more
        // events than one batch holds.
        let mut plain = String::new();
        for i in 0..5000 {
            match i % 4 {
                0 => plain.push_str(&format!("p,a{i},b\n")),
                1 => plain.push_str(&format!("q,\"x,{i}\"\n")),
                2 => plain.push_str(&format!("p,,{i}\r\n")),
                _ => plain.push_str("q,\"\"\"\"\n"),
            }
        }
        let fresh = read_all(&plain, Format::Plain, false);
        assert_eq!(fresh.len(), 5000);
        assert_eq!(fresh[0], ("p".into(), vec!["a0".into(), "b".into()]));
        assert_eq!(fresh[1], ("q".into(), vec!["x,1".into()]));
        assert_eq!(fresh[2], ("p".into(), vec![String::new(), "2".into()]));
        assert_eq!(fresh[3], ("q".into(), vec!["\"".into()]));
        assert_eq!(read_all(&plain, Format::Plain, true), fresh);
        let crv = "event, a, b\np , 1 ,2\nq,  3\n";
        let expected: Vec<(String, Vec<String>)> = vec![
            ("p".into(), vec!["1".into(), "2".into()]),
            ("q".into(), vec!["3".into()]),
        ];
        assert_eq!(read_all(crv, Format::Crv, true), expected);
    }

    #[test]
    fn plain_fields_are_trimmed_as_the_sequential_reader_trims_them() {
        // Blanks around fields (not adjacent spans: copied field by field),
        // only after the last field (adjacent: copied whole), a CRLF after
        // blanks, a quoted field after blanks; the same events as
        // `TraceReader` gives, in more than one batch.
        let mut trace = String::new();
        for i in 0..3000 {
            match i % 4 {
                0 => trace.push_str(&format!("p , a{i} ,\tb\n")),
                1 => trace.push_str(&format!("q,x{i} \n")),
                2 => trace.push_str(&format!(" p,{i}, c \r\n")),
                _ => trace.push_str("q,  \"y \"\n"),
            }
        }
        let got = read_all(&trace, Format::Plain, true);
        assert_eq!(got.len(), 3000);
        assert_eq!(got[0], ("p".into(), vec!["a0".into(), "b".into()]));
        assert_eq!(got[1], ("q".into(), vec!["x1".into()]));
        assert_eq!(got[2], ("p".into(), vec!["2".into(), "c".into()]));
        assert_eq!(got[3], ("q".into(), vec!["y ".into()]));
        let mut reader = TraceReader::new(trace.as_bytes(), TraceOptions::default());
        let mut sequential = Vec::new();
        while let Ok(Some(e)) = reader.next_event() {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            sequential.push((text(e.name), e.args().map(text).collect::<Vec<_>>()));
        }
        assert_eq!(got, sequential);
    }
}
