//! The events of a trace prefix as `why` keeps them: names and arguments
//! interned as [`ValueId`]s, and the clock of each event.
//!
//! Events are kept as *steps*: an event the monitor stepped, followed by
//! the repeats of it that the monitor took at once (the same record on the
//! next lines, while it was at a fixed point for it: see
//! [`crate::session::Report::repeated`]). At a repeat the truth of every
//! subformula under any values is the step's, so that [`super::truth`]
//! computes one value per step, and a run of repeats costs one step.

use hashbrown::HashMap;

/// A value (or event name) interned by [`Events`].
pub type ValueId = u32;

/// The value that stands for every value not seen in the trace: it matches
/// no field and is in no set of seen values.
pub const FRESH: ValueId = u32::MAX;

/// The events read so far, numbered from 1, in steps numbered from 1.
#[derive(Debug, Default)]
pub struct Events {
    /// The interned texts.
    texts: Vec<Box<[u8]>>,
    ids: HashMap<Box<[u8]>, ValueId>,
    /// Per step (from index 0 for step 1): its name.
    names: Vec<ValueId>,
    /// Where each step's arguments start in `args` (one more entry than steps).
    starts: Vec<usize>,
    args: Vec<ValueId>,
    /// `clock[r]`: the effective time of step `r` (`clock[0]` unused).
    clock: Vec<u64>,
    /// Whether an event's time is its number (an untimed trace).
    step_clock: bool,
    /// The time stamp of the last event, as given.
    last_stamp: Option<u64>,
    /// The 1-based line of the trace where each step's event starts (its
    /// repeats are on the lines after it).
    lines: Vec<u64>,
    /// `first[r]`: the number of the first event of step `r + 1`.
    first: Vec<usize>,
    /// The number of events.
    len: usize,
}

impl Events {
    /// No events yet.
    pub fn new() -> Events {
        Events {
            starts: vec![0],
            clock: vec![0],
            ..Events::default()
        }
    }

    /// Interns `text` (also for constants of the specification, which may
    /// occur in no event).
    pub fn intern(&mut self, text: &[u8]) -> ValueId {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = ValueId::try_from(self.texts.len()).unwrap_or(FRESH - 1);
        self.texts.push(text.into());
        self.ids.insert(text.into(), id);
        id
    }

    /// The id of `text`, if interned.
    pub fn id(&self, text: &[u8]) -> Option<ValueId> {
        self.ids.get(text).copied()
    }

    /// The text of an interned value (`None` for [`FRESH`]).
    pub fn text(&self, id: ValueId) -> Option<&[u8]> {
        self.texts.get(id as usize).map(|t| &t[..])
    }

    /// Appends an event as a step of its own. With `step_clock` (an untimed
    /// trace) event `i` is at time `i`; otherwise the clock advances by
    /// `max(0, t_i - t_{i-1})`, as the monitor's does.
    pub fn push(&mut self, name: &[u8], args: &[&[u8]], time: u64, step_clock: bool, line: u64) {
        let name = self.intern(name);
        self.names.push(name);
        for a in args {
            let id = self.intern(a);
            self.args.push(id);
        }
        self.starts.push(self.args.len());
        self.len += 1;
        self.step_clock = step_clock;
        let c = if step_clock {
            self.len as u64
        } else {
            match self.last_stamp {
                None => time,
                Some(prev) => self.clock[self.clock.len() - 1] + time.saturating_sub(prev),
            }
        };
        self.last_stamp = Some(time);
        self.clock.push(c);
        self.lines.push(line);
        self.first.push(self.len);
    }

    /// Appends `n` repeats of the last event (the same record, on the `n`
    /// lines after it) to its step: the monitor took them at once, at a
    /// fixed point for the event (see [`crate::session::Report::repeated`]).
    pub fn repeat(&mut self, n: u64) {
        if !self.names.is_empty() {
            self.len += n as usize;
        }
    }

    /// Appends `n` repeats of the last event (the same record, on the `n`
    /// lines after it), each a step of its own.
    pub fn push_repeats(&mut self, n: u64) {
        let Some(r) = self.names.len().checked_sub(1) else {
            return;
        };
        let (name, start, end) = (self.names[r], self.starts[r], self.starts[r + 1]);
        let (stamp, line) = (self.last_stamp.unwrap_or_default(), self.lines[r]);
        let last = self.last_event(r + 1);
        for k in 1..=n {
            self.names.push(name);
            self.args.extend_from_within(start..end);
            self.starts.push(self.args.len());
            self.len += 1;
            let c = if self.step_clock {
                self.len as u64
            } else {
                self.clock[r + 1]
            };
            self.last_stamp = Some(stamp);
            self.clock.push(c);
            self.lines.push(line + (last - self.first[r]) as u64 + k);
            self.first.push(self.len);
        }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no event (for library callers: `internals`).
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of steps.
    pub fn steps(&self) -> usize {
        self.names.len()
    }

    /// The step of event `i` (from 1; both from 1).
    #[inline]
    pub fn step_of(&self, i: usize) -> usize {
        if self.first.len() == self.len {
            // No repeats: each event is a step.
            return i;
        }
        self.first.partition_point(|&f| f <= i)
    }

    /// The first event of step `r` (both from 1).
    #[inline]
    pub fn first_event(&self, r: usize) -> usize {
        self.first[r - 1]
    }

    /// The last event of step `r` (its last repeat).
    pub fn last_event(&self, r: usize) -> usize {
        self.first.get(r).map_or(self.len, |&f| f - 1)
    }

    /// The name of the event of step `r` (from 1).
    #[inline]
    pub fn step_name(&self, r: usize) -> ValueId {
        self.names[r - 1]
    }

    /// The arguments of the event of step `r` (from 1).
    #[inline]
    pub fn step_args(&self, r: usize) -> &[ValueId] {
        &self.args[self.starts[r - 1]..self.starts[r]]
    }

    /// The name of event `i` (from 1).
    pub fn name(&self, i: usize) -> ValueId {
        self.step_name(self.step_of(i))
    }

    /// The arguments of event `i` (from 1).
    pub fn args(&self, i: usize) -> &[ValueId] {
        self.step_args(self.step_of(i))
    }

    /// The effective time of event `i` (from 1).
    pub fn clock(&self, i: usize) -> u64 {
        if self.step_clock {
            i as u64
        } else {
            self.clock[self.step_of(i)]
        }
    }

    /// The trace line of event `i` (from 1).
    pub fn line(&self, i: usize) -> u64 {
        let r = self.step_of(i);
        self.lines[r - 1] + (i - self.first_event(r)) as u64
    }

    /// Event `i` written as `name(a, b)`.
    pub fn show(&self, i: usize) -> String {
        let name = String::from_utf8_lossy(self.text(self.name(i)).unwrap_or_default());
        let args: Vec<String> = (self.args(i).iter())
            .map(|&a| String::from_utf8_lossy(self.text(a).unwrap_or_default()).into_owned())
            .collect();
        if args.is_empty() {
            name.into_owned()
        } else {
            format!("{name}({})", args.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_belong_to_the_step_of_their_event() {
        let mut ev = Events::new();
        ev.push(b"a", &[b"1"], 0, true, 1);
        ev.push(b"b", &[], 0, true, 2);
        ev.repeat(3);
        ev.push(b"a", &[b"2"], 0, true, 6);
        assert_eq!((ev.len(), ev.steps()), (6, 3));
        let steps: Vec<usize> = (1..=6).map(|i| ev.step_of(i)).collect();
        assert_eq!(steps, [1, 2, 2, 2, 2, 3]);
        assert_eq!((ev.first_event(2), ev.last_event(2)), (2, 5));
        assert_eq!(ev.last_event(3), 6);
        assert_eq!(ev.show(4), "b");
        assert_eq!(ev.show(6), "a(2)");
        // Repeats are on the lines after their event; the clock counts events.
        assert_eq!((ev.line(4), ev.line(6)), (4, 6));
        assert_eq!((ev.clock(4), ev.clock(6)), (4, 6));
    }

    #[test]
    fn repeats_as_steps_of_their_own() {
        let mut ev = Events::new();
        ev.push(b"a", &[b"1"], 0, true, 1);
        ev.push_repeats(2);
        ev.push(b"b", &[], 0, true, 4);
        assert_eq!((ev.len(), ev.steps()), (4, 4));
        let shown: Vec<String> = (1..=4).map(|i| ev.show(i)).collect();
        assert_eq!(shown, ["a(1)", "a(1)", "a(1)", "b"]);
        assert_eq!(
            (1..=4).map(|i| ev.line(i)).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        assert_eq!(
            (1..=4).map(|i| ev.clock(i)).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        let mut ev = Events::new();
        ev.push(b"a", &[], 7, false, 1);
        ev.push(b"a", &[], 5, false, 2);
        ev.push_repeats(1);
        ev.push(b"a", &[], 6, false, 4);
        // The clock never goes back: a repeat keeps it, the next event
        // advances it by the stamps' difference.
        assert_eq!(
            (1..=4).map(|i| ev.clock(i)).collect::<Vec<_>>(),
            [7, 7, 7, 8]
        );
    }

    #[test]
    fn repeats_of_a_timed_event_keep_its_time() {
        let mut ev = Events::new();
        ev.push(b"a", &[], 10, false, 1);
        ev.repeat(2);
        ev.push(b"a", &[], 15, false, 4);
        assert_eq!(
            (1..=4).map(|i| ev.clock(i)).collect::<Vec<_>>(),
            [10, 10, 10, 15]
        );
    }
}
