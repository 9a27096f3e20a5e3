//! `gen`: random traces over a specification's events, for experiments and
//! for [`super::equiv`].
//!
//! Each event is a name drawn uniformly from the specification's events,
//! then each argument drawn uniformly from the `Alphabet`'s values; the
//! same seed gives the same trace on every machine. A QTL specification's
//! trace is plain CSV (`name,arg1,...`, with the time stamp last when
//! timed); an MFOTL specification's is a MonPoly log, one event per
//! time-point.

use std::io::{self, Write};

use super::{Alphabet, Rng, Spec, TestbedError};

/// What `gen` writes.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// The number of events.
    pub events: u64,
    /// The number of data values (the spec's constants first).
    pub values: usize,
    /// The seed.
    pub seed: u64,
    /// Give each event a time stamp, the previous one plus 0 to `max_gap`
    /// (a MonPoly log always has time stamps; its first is 0).
    pub timed: bool,
    /// The largest step between two time stamps.
    pub max_gap: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            events: 100,
            values: 3,
            seed: 0,
            timed: false,
            max_gap: 1,
        }
    }
}

/// Why `gen` stopped.
#[derive(Debug)]
pub enum GenError {
    /// The specification cannot give a trace.
    Spec(TestbedError),
    /// Writing failed.
    Io(io::Error),
}

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenError::Spec(e) => write!(f, "{e}"),
            GenError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GenError {}

impl From<io::Error> for GenError {
    fn from(e: io::Error) -> Self {
        GenError::Io(e)
    }
}

/// A random trace of `spec`, as events (name, values, time stamp).
pub struct Events {
    alphabet: Alphabet,
    rng: Rng,
    left: u64,
    time: u64,
    options: GenOptions,
}

impl Events {
    /// The events of a random trace of `spec` (see the [module](self) docs).
    pub fn new(spec: &Spec, options: &GenOptions) -> Result<Events, TestbedError> {
        let alphabet = Alphabet::new(&[spec], options.values)?;
        if alphabet.names.is_empty() {
            return Err(TestbedError::NoEvents(spec.label.clone()));
        }
        Ok(Events {
            alphabet,
            rng: Rng::new(options.seed),
            left: options.events,
            time: 0,
            options: options.clone(),
        })
    }
}

impl Iterator for Events {
    type Item = (String, Vec<String>, u64);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let letter = self.alphabet.random(&mut self.rng);
        let (name, args) = self.alphabet.event(&letter);
        let time = self.time;
        let gap = self.rng.below(self.options.max_gap.saturating_add(1));
        self.time = self.time.saturating_add(gap);
        Some((name, args, time))
    }
}

/// Writes a random trace of `spec` to `out`: plain CSV for QTL, a MonPoly
/// log for MFOTL.
pub fn write_trace(
    spec: &Spec,
    options: &GenOptions,
    out: &mut impl Write,
) -> Result<(), GenError> {
    let events = Events::new(spec, options).map_err(GenError::Spec)?;
    if spec.is_mfotl() {
        for (i, (name, args, time)) in events.enumerate() {
            // Untimed: one time unit per event.
            let time = if options.timed { time } else { i as u64 };
            let args: Vec<String> = args.iter().map(|a| monpoly_value(a)).collect();
            writeln!(out, "@{time} {name}({})", args.join(","))?;
        }
        return Ok(());
    }
    let mut csv = csv::WriterBuilder::new().flexible(true).from_writer(out);
    for (name, mut args, time) in events {
        args.insert(0, name);
        if options.timed {
            args.push(time.to_string());
        }
        csv.write_record(&args)
            .map_err(|e| GenError::Io(e.into()))?;
    }
    csv.flush()?;
    Ok(())
}

/// A value as a MonPoly log writes it: quoted unless it is a plain word
/// or number.
fn monpoly_value(v: &str) -> String {
    let plain = !v.is_empty()
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if plain {
        v.to_owned()
    } else {
        format!("\"{v}\"")
    }
}
