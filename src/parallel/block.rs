//! The core's one event type: a [`Block`] of consecutive events of the
//! trace, owned (copied out of the reader), handed in order to every worker
//! and to the merger; under the `cluster` feature, serialized to the
//! workers of other processes.

#[cfg(feature = "cluster")]
use serde::{Deserialize, Serialize};

use super::Stop;
use crate::trace::EventRef;

/// Events per block (at most).
pub(super) const BLOCK_EVENTS: usize = 2048;
/// Bytes of event data per block before it is sent (a block may exceed it
/// by one event).
const BLOCK_BYTES: usize = 1 << 20;

/// One event of a block, its fields in the block's bytes.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
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
    /// Where its name starts in the block's bytes.
    start: usize,
    /// The index in `ends` of its name's end; `count` fields follow.
    first: u32,
    count: u32,
}

impl Ev {
    /// The number of its last repeat (its own without repeats).
    #[inline]
    pub fn last(&self) -> u64 {
        self.number + self.repeats
    }

    /// An event stepped outside any block (its fields held by its
    /// reader: a time segment's, see `super::segments`).
    pub(crate) fn single(number: u64, line: u64, time: u64, name: u32, repeats: u64) -> Ev {
        Ev {
            number,
            line,
            time,
            name,
            repeats,
            start: 0,
            first: 0,
            count: 0,
        }
    }
}

/// The arguments of one event: a view of its block (or of a slice of
/// fields), whose fields are only looked up when asked for.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a>(ArgsOf<'a>);

#[derive(Clone, Copy, Debug)]
enum ArgsOf<'a> {
    /// The bytes of a block and the ends of the event's fields, its name's
    /// first (an argument starts one byte after the end of the field before
    /// it).
    Block {
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
            ArgsOf::Block { ends, .. } => ends.len().saturating_sub(1),
            ArgsOf::Fields(f) => f.len(),
        }
    }

    /// Whether there are none.
    // Beside `len` for an exported type (clippy's `len_without_is_empty`).
    #[cfg(feature = "internals")]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Argument `k` (0-based), if there is one.
    pub fn get(&self, k: usize) -> Option<&'a [u8]> {
        match self.0 {
            ArgsOf::Block { bytes, ends } => {
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
    pub fn to_vec(self) -> Vec<&'a [u8]> {
        self.iter().collect()
    }
}

/// Consecutive events, owned.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cluster", derive(Serialize, Deserialize))]
pub struct Block {
    /// The fields of the events, each followed by one separator byte: an
    /// event's name starts at its `start`, and each of its other fields
    /// one byte after the end of the field before it. (A CSV line read in
    /// place is copied as it is.)
    bytes: Vec<u8>,
    /// Per field, where it ends in `bytes`.
    ends: Vec<usize>,
    /// The events, in trace order.
    pub events: Vec<Ev>,
    /// Set on the last block of a stream that ended early.
    pub end: Option<Stop>,
    /// Whether it is the last block of its stream.
    pub last: bool,
    /// Bytes of the input read when the block was sent.
    pub bytes_read: u64,
    /// Whether the events have time stamps (the reader's
    /// [`has_time`](crate::trace::TraceReader::has_time)).
    pub timed: bool,
    /// The part of the trace it belongs to: 0, or in a cluster run whose
    /// processes each read a part, the reading process's index.
    pub part: u32,
    /// The name of the input it was read from, when it matters (the
    /// parts of a cluster run: an error names another process's file;
    /// empty otherwise).
    pub source: String,
    /// The bad lines skipped while it was read, in order (a run that skips
    /// them: see [`super::read::Blocks::skipping`]).
    pub skipped: Vec<super::read::Skipped>,
}

impl Block {
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
        Args(ArgsOf::Block {
            bytes: &self.bytes,
            ends: &self.ends[first..first + count],
        })
    }

    /// Argument `k` (0-based) of `ev`, if it has one.
    #[inline]
    pub fn arg(&self, ev: &Ev, k: usize) -> Option<&[u8]> {
        self.args_of(ev).get(k)
    }

    /// The number of its last event's last repeat (`None` when it has no
    /// event).
    #[cfg(any(test, feature = "internals"))]
    pub fn last_number(&self) -> Option<u64> {
        self.events.last().map(Ev::last)
    }

    /// Adds `numbers` to the number and `lines` to the line of every
    /// event (a part of the trace read on its own, from event 1 on line 1,
    /// moved after the parts before it).
    #[cfg(feature = "cluster")]
    pub fn renumber(&mut self, numbers: u64, lines: u64) {
        for ev in &mut self.events {
            ev.number += numbers;
            ev.line += lines;
        }
    }

    /// Empties it, keeping its memory.
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.events.clear();
        self.end = None;
        self.last = false;
        self.skipped.clear();
    }

    /// Adds `event`, whose name has index `name`.
    pub(super) fn push(&mut self, event: &EventRef<'_>, name: u32) {
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
                self.push_field(f);
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
    #[cfg(any(test, feature = "internals"))]
    pub fn push_copy(&mut self, from: &Block, ev: &Ev) {
        let first = self.ends.len() as u32;
        let start = self.bytes.len();
        let mut fields = Vec::with_capacity(1 + ev.count as usize);
        from.fields_of(ev, &mut fields);
        for f in fields {
            self.push_field(f);
        }
        self.events.push(Ev {
            start,
            first,
            ..*ev
        });
        self.timed = from.timed;
    }

    fn push_field(&mut self, f: &[u8]) {
        self.bytes.extend_from_slice(f);
        self.ends.push(self.bytes.len());
        self.bytes.push(b',');
    }

    /// Whether it holds as many events or bytes as a block should.
    pub(super) fn full(&self) -> bool {
        self.events.len() >= BLOCK_EVENTS || self.bytes.len() >= BLOCK_BYTES
    }

    /// The sizes of its byte, field and event vectors.
    pub(super) fn sizes(&self) -> (usize, usize, usize) {
        (self.bytes.len(), self.ends.len(), self.events.len())
    }

    /// An empty block with room for `sizes` bytes, fields and events.
    pub(super) fn with_room(sizes: (usize, usize, usize)) -> Block {
        Block {
            bytes: Vec::with_capacity(sizes.0),
            ends: Vec::with_capacity(sizes.1),
            events: Vec::with_capacity(sizes.2),
            ..Block::default()
        }
    }
}
