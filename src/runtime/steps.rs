//! A step's bookkeeping besides binding and evaluating: the arity check,
//! the monitor's clock, steps of a time-point of several events, and the
//! encoding of the previous event by which a repeat is told.

use super::time::Tick;
use super::{Monitor, StepError};

impl Monitor {
    /// The tick of a step at raw time `time` on the monitor's clock (which
    /// never goes back), and whether `time` is smaller than the previous one
    /// (an error with strict time).
    pub(super) fn tick(&self, time: u64) -> Result<(Tick, bool), StepError> {
        let time = self.clock_time(time);
        let (raw_prev, clock_prev) = self.last_time.unwrap_or((time, time));
        let regressed = time < raw_prev;
        if regressed && self.strict_time {
            return Err(StepError::TimeBackwards {
                previous: raw_prev,
                time,
            });
        }
        let clock = clock_prev.saturating_add(time.saturating_sub(raw_prev));
        let tick = Tick {
            now: clock,
            prev: clock_prev,
        };
        Ok((tick, regressed))
    }

    /// Counts a step done at raw time `time`.
    pub(super) fn stepped(&mut self, time: u64, tick: Tick, regressed: bool) {
        let time = self.clock_time(time);
        self.events += 1;
        self.time_regressions += u64::from(regressed);
        self.last_time = Some((time, tick.now));
    }

    /// Processes one step at which every event of `events` (name, arguments)
    /// holds: a time-point of several events, at time `time`. An atom then
    /// denotes the set of the matching events' tuples at this step (an empty
    /// set of events is a step at which no event holds). Returns the indices
    /// of the properties violated at it. On error nothing changes.
    pub fn step_set(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        time: u64,
    ) -> Result<&[usize], StepError> {
        self.step_set_at(events, time, true)
    }

    /// [`step_set`](Self::step_set) of events whose arities are known to be
    /// those the specification gives their names: events read against an
    /// MFOTL signature, which the specification's predicates agree with.
    pub(crate) fn step_set_typed(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        time: u64,
    ) -> Result<&[usize], StepError> {
        self.step_set_at(events, time, false)
    }

    /// The step of a time-point: its events' names looked up once for
    /// every property (into `set_events`), their arities checked when
    /// `check`.
    fn step_set_at(
        &mut self,
        events: &[(&[u8], &[&[u8]])],
        time: u64,
        check: bool,
    ) -> Result<&[usize], StepError> {
        self.set_events.clear();
        for (name, args) in events {
            let known = self.arity.get(name).copied();
            if let Some((_, expected)) = known.filter(|_| check) {
                check_arity(expected, name, args)?;
            }
            self.set_events.push(known.map_or(u32::MAX, |(i, _)| i));
        }
        if let Some(e) = self.failure() {
            return Err(e);
        }
        let (tick, regressed) = self.tick(time)?;
        let indices = std::mem::take(&mut self.set_events);
        let bound = self.bind_all(|p| p.bind_set(&indices, events));
        self.set_events = indices;
        bound?;
        // The next single event is never a repeat of a set.
        self.last_event.clear();
        self.evaluate_all(tick)?;
        self.stepped(time, tick, regressed);
        Ok(&self.violated)
    }
}

/// An error if an event `name(args)` has not the arity `expected`.
pub(super) fn check_arity(expected: usize, name: &[u8], args: &[&[u8]]) -> Result<(), StepError> {
    if expected == args.len() {
        return Ok(());
    }
    Err(StepError::Arity {
        event: String::from_utf8_lossy(name).into_owned(),
        expected,
        found: args.len(),
    })
}

/// The encoding of a tick in `last_event`: one empty field (the name).
pub(super) const TICK: [u8; 8] = [0; 8];

/// Whether `name(args)` is the event encoded in `last` (each field as its
/// length in 8 bytes, then its bytes).
pub(super) fn same_event(last: &[u8], name: &[u8], args: &[&[u8]]) -> bool {
    let mut rest = last;
    for field in std::iter::once(name).chain(args.iter().copied()) {
        let Some((len, tail)) = rest.split_first_chunk::<8>() else {
            return false;
        };
        if u64::from_le_bytes(*len) != field.len() as u64 || !tail.starts_with(field) {
            return false;
        }
        rest = &tail[field.len()..];
    }
    rest.is_empty()
}
