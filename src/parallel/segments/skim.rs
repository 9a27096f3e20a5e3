//! A segment's warm-up when it steps only the events that change the
//! state (every property tick invariant: [`super::warm_steps`]): the
//! stretch is *skimmed*, its lines found with `memchr` and each one's
//! name looked up before anything else of it is read, and only the
//! records that are stepped (those of the state events, and the first
//! event) are split into fields. On the `gen_access.py` logs that leaves
//! 70% of the lines (the accesses) at a name lookup each, where the trace
//! reader would parse them whole.
//!
//! The stretch is plain CSV without quotes or time stamps (a segmented
//! file: [`super::layout::scan`]), so a line is a record, and its fields
//! are what lies between its commas, trimmed of spaces and tabs (and a
//! CRLF's `\r`), as the CSV reader reads them. A line it skips is not
//! checked (its arity, say): the worker of the segment that holds it
//! steps it, and stops the run there as the sequential run would.
//! Whatever a warm-up reaches, its state is compared with the true one
//! before its segment's verdicts are taken, so a skim that missed
//! something costs time, never a wrong verdict.

use std::io::{self, Read};

use memchr::memchr_iter;

use crate::parallel::block::Ev;
use crate::parallel::read::Names;
use crate::parallel::worker::Worker;

/// The skim's buffer, to start with (it grows for a longer line).
const BUFFER: usize = 1 << 16;

/// Steps `worker` through the records of `input` whose event names are
/// state events (`steps`, per event name of the plan), and its first
/// event, reporting nothing: `None` if they end early (an error reading,
/// a stepped record of another arity than the plan's, an empty name, an
/// interruption).
pub(super) fn warm_up(
    worker: &mut Worker,
    input: impl Read,
    names: &Names,
    steps: &[bool],
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<()> {
    let mut skim = Skim {
        names,
        steps,
        number: 0,
        line: 0,
        out: Vec::new(),
        spare: Vec::new(),
    };
    each_line(input, stop, |line| skim.record(worker, line).map(|()| false))?;
    Some(())
}

/// Calls `line` with each line of `input`, in order, without its end (the
/// last one may have none), found with `memchr` in a buffer read in
/// chunks: `None` where `line` gives `None`, a read fails, or `stop()`
/// (asked after each chunk). Otherwise the last line for which `line`
/// gave `true` (copied once a chunk, not once a line), empty if none.
pub(super) fn each_line(
    mut input: impl Read,
    stop: &(dyn Fn() -> bool + Sync),
    mut line: impl FnMut(&[u8]) -> Option<bool>,
) -> Option<Vec<u8>> {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; BUFFER];
    // The bytes read are `buf[..len]`; the next line starts at `pos`.
    let (mut len, mut pos) = (0, 0);
    loop {
        // The whole lines read, found in one pass.
        let mut start = pos;
        let mut keep = None;
        for end in memchr_iter(b'\n', &buf[pos..len]).map(|i| pos + i) {
            if line(&buf[start..end])? {
                keep = Some(start..end);
            }
            start = end + 1;
        }
        if let Some(r) = keep {
            kept.clear();
            kept.extend_from_slice(&buf[r]);
        }
        pos = start;
        if stop() {
            return None;
        }
        buf.copy_within(pos..len, 0);
        (len, pos) = (len - pos, 0);
        if len == buf.len() {
            buf.resize(2 * len, 0);
        }
        let got = fill(&mut input, &mut buf[len..]).ok()?;
        if got == 0 {
            // The last line, without a line end.
            if len > 0 && line(&buf[..len])? {
                kept.clear();
                kept.extend_from_slice(&buf[..len]);
            }
            return Some(kept);
        }
        len += got;
    }
}

/// A skim's state between its records.
struct Skim<'a> {
    names: &'a Names,
    steps: &'a [bool],
    /// The events read, and the lines.
    number: u64,
    line: u64,
    /// The violations of a step (none are reported).
    out: Vec<(u64, usize)>,
    /// Room for the fields of a record, kept empty between records.
    spare: Vec<&'static [u8]>,
}

impl Skim<'_> {
    /// Reads `record` (a line, without its line end), and steps `worker`
    /// through it if it is the first event or a state event; `None` where
    /// the warm-up ends (see [`warm_up`]).
    fn record(&mut self, worker: &mut Worker, record: &[u8]) -> Option<()> {
        self.line += 1;
        let record = record.strip_suffix(b"\r").unwrap_or(record);
        // Names are short: a loop finds their end sooner than `memchr`.
        let name_end = (record.iter().position(|&b| b == b',')).unwrap_or(record.len());
        let name = trim(&record[..name_end]);
        if name.is_empty() {
            // A blank line is no event; an empty name is refused.
            return (name_end == record.len()).then_some(());
        }
        let (index, arity) = (self.names.get(name).copied()).unwrap_or((u32::MAX, usize::MAX));
        let step = self.number == 0 || self.steps.get(index as usize) == Some(&true);
        self.number += 1;
        if !step {
            return Some(());
        }
        let mut fields = recycle(std::mem::take(&mut self.spare));
        fields.push(name);
        if name_end < record.len() {
            fields.extend(record[name_end + 1..].split(|&b| b == b',').map(trim));
        }
        if index != u32::MAX && fields.len() - 1 != arity {
            return None;
        }
        let ev = Ev::single(self.number, self.line, 0, index, 0);
        let stepped = worker.step_event(&ev, &fields, &mut self.out);
        self.out.clear();
        self.spare = recycle(fields);
        stepped.ok()
    }
}

/// `spare`'s room, emptied, for the fields of another record.
fn recycle<'b>(mut spare: Vec<&[u8]>) -> Vec<&'b [u8]> {
    spare.clear();
    spare.into_iter().map(|_| &[][..]).collect()
}

/// `field` without the spaces and tabs around it.
pub(super) fn trim(field: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = field.iter().position(|b| !blank(b)).unwrap_or(field.len());
    let end = field.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
    &field[start..end]
}

/// Reads into `buf`, again where a read is interrupted.
pub(super) fn fill(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}
