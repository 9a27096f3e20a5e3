//! A segment's worker steps its stretch of the file straight from its
//! trace reader, as the sequential engine reads a file: no blocks (it
//! alone reads its events), no merger of its own (its one monitor decides
//! every event as it steps it). A warm-up that steps every event reads
//! the same way; one that steps only the events that change the state
//! skims its stretch instead ([`super::skim`]).

use std::fs::File;
use std::io;
use std::path::Path;

use super::cut::{Cut, Leave};
use super::pieces::{Piece, Pieces};
use super::{MakeReader, range};
use crate::parallel::block::{Args, Ev};
use crate::parallel::read::Names;
use crate::parallel::worker::Worker;
use crate::parallel::{EventView, Sink, Stop};
use crate::runtime::StepError;
use crate::trace::{EventRef, TraceError, TraceErrorKind, TraceReader};

/// Events of a segment counted before the counts go to the merger.
const FLUSH: u64 = 4096;

/// An event read: its name's index and arity in the plan, or why it is
/// refused (another arity than the plan gives its name).
fn known(names: &Names, event: &EventRef<'_>) -> Result<u32, Stop> {
    let (name, expected) = (names.get(event.name).copied()).unwrap_or((u32::MAX, event.arity()));
    if expected == event.arity() {
        return Ok(name);
    }
    let error = StepError::Arity {
        event: String::from_utf8_lossy(event.name).into_owned(),
        expected,
        found: event.arity(),
    };
    let last = event.arity().checked_sub(1).map(|i| event.arg(i).into());
    Err(Stop::Refused {
        line: event.line,
        error,
        last,
    })
}

/// `spare`'s room, emptied, for the fields of another event.
fn recycle<'b>(mut spare: Vec<&[u8]>) -> Vec<&'b [u8]> {
    spare.clear();
    spare.into_iter().map(|_| &[][..]).collect()
}

/// Steps `worker` through the segment `start..end` of the file at `path`
/// and hands `send` its pieces, ending with [`Piece::End`] (`send`
/// returns false to stop). With a `cut`, it stops before the line where
/// the merger cuts the segment, if it does ([`super::cut`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn segment(
    mut worker: Worker,
    path: &Path,
    (start, end): (u64, u64),
    cut: Option<&Cut>,
    reader: &MakeReader<'_>,
    names: &Names,
    stop: &(dyn Fn() -> bool + Sync),
    send: impl FnMut(Piece) -> bool,
) {
    let mut pieces = Pieces::new(send);
    let mut trace = match range(path, start, end - start) {
        Ok(r) => reader(r),
        Err(e) => {
            let error = TraceError::new(
                TraceErrorKind::Io,
                1,
                format!("cannot read the trace: {e}"),
            );
            pieces.send(Piece::End {
                stopped: Some(Stop::Trace(error)),
                worker: Box::new(None),
            });
            return;
        }
    };
    let mut spare: Vec<&[u8]> = Vec::new();
    let mut out: Vec<(u64, usize)> = Vec::new();
    // The segment's events, numbered from 1; those counted since the
    // counts last went.
    let (mut number, mut counted) = (0, 0);
    // The lines it may step (all of them without a cut).
    let mut leave = if cut.is_some() {
        Leave { until: 0, last: false }
    } else {
        Leave::ALL
    };
    let stopped = loop {
        let next = trace.next_event();
        if stop() {
            break Some(Stop::Interrupted);
        }
        let event = match next {
            Ok(Some(e)) => e,
            Ok(None) => break None,
            Err(e) => break Some(Stop::Trace(e)),
        };
        if event.line >= leave.until
            && let Some(cut) = cut
            && !leave.last
        {
            leave = cut.leave(event.line, stop);
        }
        if event.line >= leave.until {
            // The cut: the rest is another worker's.
            break None;
        }
        let name = match known(names, &event) {
            Ok(name) => name,
            Err(stopped) => break Some(stopped),
        };
        number += 1;
        let (line, time) = (event.line, event.time);
        let mut fields = recycle(spare);
        fields.push(event.name);
        fields.extend(event.args());
        out.clear();
        let ev = Ev::single(number, line, time, name, 0);
        if let Err(error) = worker.step_event(&ev, &fields, &mut out) {
            let last = None;
            break Some(Stop::Refused { line, error, last });
        }
        if !hand_on(&mut pieces, &ev, &fields, &mut out) {
            return;
        }
        spare = recycle(fields);
        // A run of the same record, at once where the monitor can (not
        // past its leave).
        let n = trace.repeats(leave.until.saturating_sub(line + 1));
        if n > 0
            && let Some(event) = trace.last_event()
        {
            let mut fields = recycle(spare);
            fields.push(event.name);
            fields.extend(event.args());
            out.clear();
            let ev = Ev::single(number + 1, line + 1, time, name, n - 1);
            if let Err(error) = worker.step_event(&ev, &fields, &mut out) {
                let last = None;
                break Some(Stop::Refused { line, error, last });
            }
            if !hand_on(&mut pieces, &ev, &fields, &mut out) {
                return;
            }
            number += n;
            spare = recycle(fields);
        }
        counted += 1;
        if counted == FLUSH {
            counted = 0;
            if !pieces.flush() {
                return;
            }
        }
    };
    if !pieces.flush() {
        return;
    }
    pieces.send(Piece::End {
        stopped,
        worker: Box::new(Some(worker)),
    });
}

/// Hands the event `ev` (with its repeats) on to `pieces`: as a count when
/// none of its steps is violated (`out`, the violations of its steps, by
/// number), else each step on its own. False when the merger is gone.
fn hand_on(
    pieces: &mut Pieces<impl FnMut(Piece) -> bool>,
    ev: &Ev,
    fields: &[&[u8]],
    out: &mut [(u64, usize)],
) -> bool {
    let mut view = EventView {
        number: ev.number,
        line: ev.line,
        time: ev.time,
        name: fields[0],
        name_index: (ev.name != u32::MAX).then_some(ev.name),
        args: Args::from_fields(&fields[1..]),
        repeats: ev.repeats,
        bytes_read: 0,
        timed: false,
    };
    if out.is_empty() {
        return pieces.event(&view, &[]);
    }
    out.sort_unstable();
    view.repeats = 0;
    let mut props = Vec::new();
    let mut at = 0;
    for k in 0..=ev.repeats {
        props.clear();
        while at < out.len() && out[at].0 == ev.number + k {
            props.push(out[at].1);
            at += 1;
        }
        props.dedup();
        view.number = ev.number + k;
        view.line = ev.line + k;
        if !pieces.event(&view, &props) {
            return false;
        }
    }
    true
}

/// Steps `worker` through every event of `trace`, reporting nothing, as
/// the warm-up of a plan with a property that is not tick invariant (a
/// warm-up that steps only the state events skims instead:
/// [`super::skim`]): `None` if they end early (an error, an
/// interruption).
pub(super) fn warm_up(
    worker: &mut Worker,
    mut trace: TraceReader<io::Take<File>>,
    names: &Names,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<()> {
    let mut spare: Vec<&[u8]> = Vec::new();
    let mut out = Vec::new();
    let mut number = 0;
    loop {
        let next = trace.next_event();
        if stop() {
            return None;
        }
        let event = match next {
            Ok(Some(e)) => e,
            Ok(None) => return Some(()),
            Err(_) => return None,
        };
        let name = known(names, &event).ok()?;
        number += 1;
        let (line, time) = (event.line, event.time);
        let mut fields = recycle(spare);
        fields.push(event.name);
        fields.extend(event.args());
        let ev = Ev::single(number, line, time, name, 0);
        worker.step_event(&ev, &fields, &mut out).ok()?;
        spare = recycle(fields);
        let n = trace.repeats(u64::MAX);
        if n > 0
            && let Some(event) = trace.last_event()
        {
            let mut fields = recycle(spare);
            fields.push(event.name);
            fields.extend(event.args());
            let ev = Ev::single(number + 1, line + 1, time, name, n - 1);
            worker.step_event(&ev, &fields, &mut out).ok()?;
            spare = recycle(fields);
        }
        number += n;
        out.clear();
    }
}
