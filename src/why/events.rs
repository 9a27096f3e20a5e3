//! The events of a trace prefix as `why` keeps them: names and arguments
//! interned as [`ValueId`]s, and the clock of each event.

use hashbrown::HashMap;

/// A value (or event name) interned by [`Events`].
pub type ValueId = u32;

/// The value that stands for every value not seen in the trace: it matches
/// no field and is in no set of seen values.
pub const FRESH: ValueId = u32::MAX;

/// The events read so far, numbered from 1.
#[derive(Debug, Default)]
pub struct Events {
    /// The interned texts.
    texts: Vec<Box<[u8]>>,
    ids: HashMap<Box<[u8]>, ValueId>,
    /// Per event (from index 0 for event 1): its name.
    names: Vec<ValueId>,
    /// Where each event's arguments start in `args` (one more entry than events).
    starts: Vec<usize>,
    args: Vec<ValueId>,
    /// `clock[i]`: the effective time of event `i` (`clock[0]` unused).
    clock: Vec<u64>,
    /// The time stamp of the last event, as given.
    last_stamp: Option<u64>,
    /// The 1-based line of the trace where each event starts.
    lines: Vec<u64>,
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

    /// Appends an event. With `step_clock` (an untimed trace) event `i` is
    /// at time `i`; otherwise the clock advances by `max(0, t_i - t_{i-1})`,
    /// as the monitor's does.
    pub fn push(&mut self, name: &[u8], args: &[&[u8]], time: u64, step_clock: bool, line: u64) {
        let name = self.intern(name);
        self.names.push(name);
        for a in args {
            let id = self.intern(a);
            self.args.push(id);
        }
        self.starts.push(self.args.len());
        let n = self.names.len() as u64;
        let c = if step_clock {
            n
        } else {
            match self.last_stamp {
                None => time,
                Some(prev) => self.clock[self.clock.len() - 1] + time.saturating_sub(prev),
            }
        };
        self.last_stamp = Some(time);
        self.clock.push(c);
        self.lines.push(line);
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is no event.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of event `i` (from 1).
    pub fn name(&self, i: usize) -> ValueId {
        self.names[i - 1]
    }

    /// The arguments of event `i` (from 1).
    pub fn args(&self, i: usize) -> &[ValueId] {
        &self.args[self.starts[i - 1]..self.starts[i]]
    }

    /// The effective time of event `i` (from 1).
    pub fn clock(&self, i: usize) -> u64 {
        self.clock[i]
    }

    /// The trace line of event `i` (from 1).
    pub fn line(&self, i: usize) -> u64 {
        self.lines[i - 1]
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
