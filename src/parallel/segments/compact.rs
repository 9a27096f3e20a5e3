//! A *compacted* warm-up: of the state events before its segment, a
//! segment's worker steps only the last occurrence of each (each distinct
//! record), in their order, so that its warm-up can be the whole file
//! before its segment at the cost of reading it, and reaches the true
//! state there, whatever the values' rates.
//!
//! Why that is the state of the whole prefix: in a property whose every
//! `φ S ψ` has operands without temporal operators ([`compactable`]), φ
//! and ψ at an event depend on that event alone (its name and values). For
//! a tuple of values, `φ S ψ` holds after a sequence exactly when its
//! last event at which ψ holds comes no earlier than its last event at
//! which φ fails (ticks leave a tick-invariant property's sinces as they
//! are). Those last events are last occurrences of some record, which the
//! compaction keeps, in the same order; so every since, for every tuple,
//! ends where it ends after the whole prefix; and what an `@` keeps for
//! the next step is its operand's value after the last step, made of
//! sinces (tick invariance says). The first event is stepped first, as
//! the warm-ups before did (a first step differs), and the prefix's last
//! record last (a tick, if it is no state event), as the true run did.
//!
//! Of those last occurrences, a record whose every touch of a tuple a
//! later one repeats is not stepped either, nor one that leaves its
//! tuples as an empty state has them ([`Touches`]). On the `gen_access.py`
//! log of 50,000 users, the half before the second segment (a million
//! events, 300,000 of them logins, logouts, opens and closes, 88,000
//! distinct) comes down to about 25,000 steps. As any warm-up, its state
//! is compared with the true one before its segment's verdicts are taken.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use hashbrown::hash_map::Entry;
use hashbrown::{HashMap, HashSet};

use super::skim::{each_line, trim};
use super::touch::{Key, Touches};
use crate::parallel::block::{Block, Ev};
use crate::parallel::read::Names;
use crate::parallel::worker::Worker;
use crate::plan::{NodeIx, Op, Plan, PropPlan};
use crate::runtime::packed::{SHORT, pack};
use crate::syntax::Quant;

/// The distinct records a compacted warm-up holds before it steps them
/// (a prefix with more steps them and goes on: any subsequence that keeps
/// every record's last occurrence, in order, reaches the same state).
const MAX_RECORDS: usize = 1 << 20;

/// Whether a compacted warm-up reaches the state of `plan`'s monitor after
/// the whole prefix: every property tick invariant ([`super::warm_steps`]),
/// the operands of its sinces without temporal operators (nor rules,
/// whose truth at an event is not the event's alone), and no comparison
/// or quantifier over the values seen (whose state is every value seen,
/// which a warm-up does not see again).
pub fn compactable(plan: &Plan) -> bool {
    super::warm_steps(plan).is_some()
        && plan.props.iter().all(|p| {
            (p.nodes.iter()).all(|node| match node.op {
                Op::Since(a, b) => of_the_event(p, a) && of_the_event(p, b),
                // Their state is the values seen, every one of them.
                Op::Cmp { .. } | Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, ..) => false,
                _ => true,
            })
        })
}

/// Whether subformula `n`'s truth at an event is a function of that event.
fn of_the_event(p: &PropPlan, n: NodeIx) -> bool {
    let mut todo = vec![n];
    while let Some(n) = todo.pop() {
        match &p.nodes[n].op {
            Op::Atom { .. } | Op::True | Op::False => {}
            Op::Not(_) | Op::And(..) | Op::Or(..) | Op::Implies(..) | Op::Iff(..) => {
                todo.extend(p.nodes[n].op.same_step_kids().iter());
            }
            Op::Quant(Quant::Exists | Quant::Forall, _, a) => todo.push(*a),
            _ => return false,
        }
    }
    true
}

/// The stretch of the file read at each end of [`population`].
const WINDOW: u64 = 1 << 20;

/// The steps a compacted warm-up of the file at `path` (plain CSV without
/// quotes) would take over the whole file, as `(keys, share)`: its
/// distinct *keys*, the tuples of each since that its state records
/// surely touch (a record that only perhaps touches, or always is
/// stepped, is its own key: [`Touches::keys`]), and the share of them
/// whose last toucher must be stepped (not one that clears its tuple).
/// The keys are estimated by capture and recapture, per since: the
/// distinct keys of a since in the file's first [`WINDOW`] bytes (`a`),
/// in as many from its middle (`b`), and in both (`m`) suggest `(a + 1)
/// (b + 1) / (m + 1) - 1` of them (Chapman's estimate). The start alone
/// cannot tell: on the `gen_access.py` log of 50,000 users, its logins
/// are nearly all of different users, as when there were 20,000 or
/// 200,000. Per since, as keys of different sinces come at very
/// different rates (the opens and closes of 100 files are all in both
/// stretches, few logins of 50,000 users are), which would make the
/// estimate of all of them together far too low. The share is that of
/// the middle's keys last touched there by a record that does not clear
/// them, per since. A file of at most two windows is read whole, and its
/// counts are exact. (Keys are told apart by a 64-bit hash.) An error
/// (interrupted) once `called_off` is set.
pub fn population(
    path: &Path,
    names: &Names,
    steps: &[bool],
    touches: &Touches,
    called_off: &AtomicBool,
) -> io::Result<(f64, f64)> {
    let size = std::fs::metadata(path)?.len();
    // Per key: whether its last toucher in the stretch clears it.
    let keys = |start: u64, len: u64| -> io::Result<HashMap<Key, bool>> {
        let mut bytes = Vec::new();
        super::range(path, start, len)?.read_to_end(&mut bytes)?;
        let mut lines = bytes.split(|&b| b == b'\n');
        if start > 0 {
            // Part of a line.
            lines.next();
        }
        let mut out = HashMap::new();
        let (mut found, mut args) = (Vec::new(), Vec::new());
        for (k, line) in lines.enumerate() {
            if k % 4096 == 0 && called_off.load(Ordering::Relaxed) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            // The name first: most lines are no state events.
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let name_end = line.iter().position(|&b| b == b',').unwrap_or(line.len());
            let index = names.get(trim(&line[..name_end])).map_or(u32::MAX, |&(i, _)| i);
            if steps.get(index as usize) == Some(&true) {
                args.clear();
                push_fields(line, &mut args);
                touches.keys(index, &args[1..], &mut found);
                out.extend(found.drain(..));
            }
        }
        Ok(out)
    };
    let stepped = |keys: &HashMap<Key, bool>| keys.values().filter(|&&clears| !clears).count();
    if size <= 2 * WINDOW {
        let all = keys(0, size)?;
        return Ok((all.len() as f64, stepped(&all) as f64 / all.len().max(1) as f64));
    }
    let first = keys(0, WINDOW)?;
    let middle = keys(size / 2, WINDOW)?;
    // Per since: `(a, b, m, stepped of b)`.
    let mut counts: HashMap<usize, (f64, f64, f64, f64)> = HashMap::new();
    for &(since, _) in first.keys() {
        counts.entry(since).or_default().0 += 1.0;
    }
    for (k, &clears) in &middle {
        let c = counts.entry(k.0).or_default();
        c.1 += 1.0;
        if first.contains_key(k) {
            c.2 += 1.0;
        }
        if !clears {
            c.3 += 1.0;
        }
    }
    let (mut all, mut stepped) = (0.0, 0.0);
    for &(a, b, m, s) in counts.values() {
        let n = (a + 1.0) * (b + 1.0) / (m + 1.0) - 1.0;
        all += n;
        // A since the middle does not touch: as at the start.
        stepped += if b > 0.0 { n * s / b } else { n };
    }
    Ok((all, if all > 0.0 { stepped / all } else { 1.0 }))
}

/// The share of the events of `sample` (a trace's first blocks) that are
/// state events.
pub fn state_share(sample: &[std::sync::Arc<Block>], steps: &[bool]) -> f64 {
    let (mut all, mut state) = (0u64, 0u64);
    for ev in sample.iter().flat_map(|b| b.events.iter()) {
        all += 1 + ev.repeats;
        if steps.get(ev.name as usize) == Some(&true) {
            state += 1 + ev.repeats;
        }
    }
    state as f64 / all.max(1) as f64
}

/// One record's place: its event number in the prefix, and its line.
#[derive(Clone, Copy, PartialEq)]
struct Place {
    number: u64,
    line: u64,
}

/// Per distinct state record: its last occurrence. A record of at most
/// [`SHORT`] bytes (`login,41352`) is kept packed in its word, in the table
/// itself: no allocation, and one look in memory, where a record kept as
/// bytes is a pointer to follow.
#[derive(Default)]
struct Last {
    short: HashMap<u128, Place>,
    long: HashMap<Box<[u8]>, Place>,
}

impl Last {
    fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    /// Notes that `record` occurs at `place`; false where it is new and
    /// `full`.
    fn note(&mut self, record: &[u8], place: Place, full: bool) -> bool {
        let at = match pack(record) {
            Some(key) => match self.short.entry(key) {
                Entry::Occupied(at) => at.into_mut(),
                Entry::Vacant(_) if full => return false,
                Entry::Vacant(new) => new.insert(place),
            },
            None => match self.long.get_mut(record) {
                Some(at) => at,
                None if full => return false,
                None => self.long.entry(record.into()).or_insert(place),
            },
        };
        *at = place;
        true
    }
}

/// Steps `worker` through the compacted state records of `input` (a plain
/// CSV stretch of the file without quotes, as [`super::skim`] reads one),
/// reporting nothing: `None` if they end early (an error reading, a
/// stepped record of another arity than the plan's, an empty name, an
/// interruption). `from_empty`: the worker's monitors start from the
/// empty state, where a record that only clears its tuples need not be
/// stepped ([`Touches`]); otherwise (a take-over's monitor, at the true
/// state before the stretch: [`super::cut`]) every tuple may be set.
pub(super) fn warm_up(
    worker: &mut Worker,
    input: impl Read,
    (names, steps, touches): (&Names, &[bool], &Touches),
    from_empty: bool,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<()> {
    let mut c = Compact {
        names,
        steps,
        touches,
        place: Place { number: 0, line: 0 },
        last: Last::default(),
        end: None,
        end_bytes: Vec::new(),
        out: Vec::new(),
        set_before: from_empty.then(HashSet::new),
    };
    // `each_line` keeps the last line that was no state event: it is the
    // last record, to step last, if no state record came after it.
    let mut kept_at = None;
    let last = each_line(input, stop, |line| {
        c.record(worker, line)?;
        let keep = c.end == Some(c.place);
        if keep {
            kept_at = c.end;
        }
        Some(keep)
    })?;
    if c.end.is_some() && c.end == kept_at {
        c.end_bytes = last;
    }
    c.finish(worker)
}

/// A compaction's state between records.
struct Compact<'a> {
    names: &'a Names,
    steps: &'a [bool],
    touches: &'a Touches,
    /// The last record read.
    place: Place,
    /// The state records since the last flush.
    last: Last,
    /// The last record read, when it is no state event: stepped last.
    end: Option<Place>,
    /// Its bytes (kept by [`each_line`], once the stretch is read).
    end_bytes: Vec<u8>,
    /// The violations of a step (none are reported).
    out: Vec<(u64, usize)>,
    /// The tuples the first event may have set (it is stepped as it is
    /// read), until the first flush; then `None`: after it, every tuple
    /// may be set.
    set_before: Option<HashSet<Key>>,
}

impl Compact<'_> {
    /// Reads `record` (a line without its end): steps it if it is the
    /// first event, keeps it if it is a state event.
    fn record(&mut self, worker: &mut Worker, record: &[u8]) -> Option<()> {
        self.place.line += 1;
        let record = record.strip_suffix(b"\r").unwrap_or(record);
        let name_end = (record.iter().position(|&b| b == b',')).unwrap_or(record.len());
        let name = trim(&record[..name_end]);
        if name.is_empty() {
            // A blank line is no event; an empty name is refused.
            return (name_end == record.len()).then_some(());
        }
        self.place.number += 1;
        let place = self.place;
        if place.number == 1 {
            self.end = None;
            let mut fields = Vec::with_capacity(4);
            push_fields(record, &mut fields);
            let index = self.names.get(fields[0]).map_or(u32::MAX, |&(i, _)| i);
            if let Some(set) = &mut self.set_before {
                self.touches.may_set(index, &fields[1..], set);
            }
            return self.step(worker, place, record);
        }
        let index = self.names.get(name).map_or(u32::MAX, |&(i, _)| i);
        if self.steps.get(index as usize) != Some(&true) {
            self.end = Some(place);
            return Some(());
        }
        self.end = None;
        if !self.last.note(record, place, self.last.len() >= MAX_RECORDS) {
            self.flush(worker)?;
            self.last.note(record, place, false);
        }
        Some(())
    }

    /// Steps the records kept, each at its last occurrence, in order;
    /// forgets them.
    /// Those that later ones override are not stepped ([`Touches`]).
    fn flush(&mut self, worker: &mut Worker) -> Option<()> {
        let last = std::mem::take(&mut self.last);
        let words: Vec<([u8; 16], Place)> =
            (last.short.iter()).map(|(&k, &at)| (k.to_le_bytes(), at)).collect();
        let kept: Vec<(&[u8], Place)> = (words.iter())
            .map(|(w, at)| (&w[..w[SHORT] as usize], *at))
            .chain(last.long.iter().map(|(r, &at)| (&**r, at)))
            .collect();
        // In the order they came: their numbers, sorted with their places
        // in `kept` (lighter to move than the records).
        let mut order: Vec<(u64, u32)> = (kept.iter().enumerate())
            .map(|(k, (_, at))| (at.number, k as u32))
            .collect();
        order.sort_unstable();
        // Each record's fields (name, then arguments), read once, one
        // record after the other in `flat`.
        let mut flat: Vec<&[u8]> = Vec::with_capacity(4 * order.len());
        let mut spans = Vec::with_capacity(order.len());
        for &(_, k) in &order {
            let start = flat.len();
            push_fields(kept[k as usize].0, &mut flat);
            let known = self.names.get(flat[start]).copied();
            spans.push((known.unwrap_or((u32::MAX, 0)), start, flat.len()));
        }
        let records: Vec<(u32, &[&[u8]])> =
            (spans.iter()).map(|&((index, _), start, end)| (index, &flat[start + 1..end])).collect();
        let needed = self.touches.needed(&records, self.set_before.as_ref());
        self.set_before = None;
        // The first event was stepped as it was read.
        for (k, &(number, at)) in order.iter().enumerate() {
            if number > 1 && needed[k] {
                let (known, start, end) = spans[k];
                self.step_fields(worker, kept[at as usize].1, known, &flat[start..end])?;
            }
        }
        Some(())
    }

    /// Steps what is kept, then the last record when it is no state event.
    fn finish(mut self, worker: &mut Worker) -> Option<()> {
        self.flush(worker)?;
        match self.end.take() {
            Some(place) => {
                let record = std::mem::take(&mut self.end_bytes);
                self.step(worker, place, &record)
            }
            None => Some(()),
        }
    }

    /// Steps `worker` through `record`, read at `place`.
    fn step(&mut self, worker: &mut Worker, place: Place, record: &[u8]) -> Option<()> {
        let mut fields = Vec::with_capacity(4);
        push_fields(record, &mut fields);
        let known = self.names.get(fields[0]).copied();
        self.step_fields(worker, place, known.unwrap_or((u32::MAX, 0)), &fields)
    }

    /// Steps `worker` through the record of `fields` (name, then
    /// arguments), read at `place`, whose name has the index `index` in
    /// the plan's events (`u32::MAX`: none) and the arity `arity` there:
    /// `None` for a record of another arity.
    fn step_fields(
        &mut self,
        worker: &mut Worker,
        place: Place,
        (index, arity): (u32, usize),
        fields: &[&[u8]],
    ) -> Option<()> {
        if index != u32::MAX && fields.len() - 1 != arity {
            return None;
        }
        let ev = Ev::single(place.number, place.line, 0, index, 0);
        let stepped = worker.step_event(&ev, fields, &mut self.out);
        self.out.clear();
        stepped.ok()
    }
}

/// Pushes a record's name and arguments (a line without its end) onto
/// `out`, as the CSV reader reads them: trimmed of spaces and tabs, and
/// of a CRLF's `\r`.
fn push_fields<'r>(record: &'r [u8], out: &mut Vec<&'r [u8]>) {
    let record = record.strip_suffix(b"\r").unwrap_or(record);
    let name_end = (record.iter().position(|&b| b == b',')).unwrap_or(record.len());
    out.push(trim(&record[..name_end]));
    if name_end < record.len() {
        out.extend(record[name_end + 1..].split(|&b| b == b',').map(trim));
    }
}
