//! What travels between the processes of a cluster run: pieces of the trace
//! (consecutive events, owned and serializable), the verdicts found in them,
//! and why a stream of events ended early.

use std::io::Read;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use crate::trace::TraceReader;

/// Events per piece (at most).
const PIECE_EVENTS: usize = 4096;
/// Bytes of event data per piece before it is sent.
const PIECE_BYTES: usize = 1 << 20;

/// Why the events of a part of the trace ended early.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FaultKind {
    /// The trace reader failed: its message (without the line).
    Trace(String),
    /// An event had another arity than the specification gives its name.
    Arity {
        /// The event's name.
        event: String,
        /// The arity in the specification.
        expected: usize,
        /// The event's arity.
        found: usize,
        /// The event's last argument (for the hint about time stamps).
        last: Option<Vec<u8>>,
    },
    /// A monitor refused the event: the error's message.
    Monitor(String),
    /// Ctrl-C was seen before the event.
    Interrupted,
}

/// A fault at a line of one process's input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fault {
    /// The name of the input file it happened in.
    pub source: String,
    /// Its line there.
    pub line: u64,
    /// What happened.
    pub kind: FaultKind,
}

/// One event of a piece: fields `first..first + count` of the piece.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct PieceEvent {
    /// Its line in its input.
    pub line: u64,
    /// Its time stamp (0 untimed).
    pub time: u64,
    first: u32,
    count: u32,
}

/// Consecutive events of one part of the trace.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Piece {
    /// The name of the input it was read from.
    pub source: String,
    /// The part of the trace it belongs to (the reading process's index in
    /// the per-process mode, else 0).
    pub part: u32,
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// The events, in trace order.
    pub events: Vec<PieceEvent>,
    /// Set on the last piece of a part that ended early.
    pub fault: Option<Fault>,
    /// Bytes of its input read when the piece was sent.
    pub bytes_read: u64,
    /// Whether the events have time stamps.
    pub timed: bool,
}

impl Piece {
    /// The fields of `ev` (name first, then the arguments), written into
    /// `out` (cleared first).
    pub fn fields_of<'a>(&'a self, ev: &PieceEvent, out: &mut Vec<&'a [u8]>) {
        out.clear();
        for i in ev.first as usize..(ev.first + ev.count) as usize {
            let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
            out.push(&self.bytes[start..self.ends[i] as usize]);
        }
    }

    fn push<'a>(&mut self, line: u64, time: u64, fields: impl Iterator<Item = &'a [u8]>) {
        let first = self.ends.len() as u32;
        for f in fields {
            self.bytes.extend_from_slice(f);
            self.ends.push(self.bytes.len() as u32);
        }
        let count = self.ends.len() as u32 - first;
        self.events.push(PieceEvent {
            line,
            time,
            first,
            count,
        });
    }

    fn full(&self) -> bool {
        self.events.len() >= PIECE_EVENTS || self.bytes.len() >= PIECE_BYTES
    }
}

/// Reads `reader` (named `source` in faults) to its end, its first error,
/// or until `stop()` says so, handing each piece to `send` in order; the
/// last piece may carry a [`Fault`]. Events of a known name with another
/// arity end the part, as the monitor would refuse them. Returns early when
/// `send` returns false.
pub fn read_pieces<R: Read>(
    mut reader: TraceReader<R>,
    arity: &HashMap<Box<[u8]>, usize>,
    source: &str,
    part: u32,
    stop: &dyn Fn() -> bool,
    mut send: impl FnMut(Piece) -> bool,
) {
    let fresh = || Piece {
        source: source.to_owned(),
        part,
        ..Piece::default()
    };
    let mut piece = fresh();
    let fault = |line, kind| {
        Some(Fault {
            source: source.to_owned(),
            line,
            kind,
        })
    };
    loop {
        let next = reader.next_event();
        if stop() {
            piece.fault = fault(0, FaultKind::Interrupted);
            break;
        }
        let event = match next {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => {
                piece.fault = fault(e.line, FaultKind::Trace(e.message().to_owned()));
                break;
            }
        };
        if let Some(&expected) = arity.get(event.name)
            && expected != event.arity()
        {
            let kind = FaultKind::Arity {
                event: String::from_utf8_lossy(event.name).into_owned(),
                expected,
                found: event.arity(),
                last: event.arity().checked_sub(1).map(|i| event.arg(i).to_vec()),
            };
            piece.fault = fault(event.line, kind);
            break;
        }
        piece.push(
            event.line,
            event.time,
            std::iter::once(event.name).chain(event.args()),
        );
        if piece.full() {
            piece.bytes_read = reader.bytes_read();
            piece.timed = reader.has_time();
            if !send(std::mem::replace(&mut piece, fresh())) {
                return;
            }
        }
    }
    piece.bytes_read = reader.bytes_read();
    piece.timed = reader.has_time();
    send(piece);
}

/// What the monitoring workers send to the printer (worker 0).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Msg {
    /// A piece of the trace, as read (from the reading worker).
    Piece(Piece),
    /// Property `property` (global index) violated at event `index` of the
    /// piece of the same time.
    Violated {
        /// The event's index in its piece.
        index: u32,
        /// The property's index in the whole plan.
        property: u32,
    },
    /// A monitor refused event `index` of the piece of the same time.
    Refused {
        /// The event's index in its piece.
        index: u32,
        /// The error's message.
        message: String,
    },
    /// Worker `worker`'s garbage collections and codes released so far.
    Gc {
        /// The worker's index.
        worker: u32,
        /// Collections.
        collections: u64,
        /// Codes released.
        released: u64,
    },
}
