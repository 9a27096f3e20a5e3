//! Whether a run read its trace: the decision that docs/TRACES.md ("Was the
//! trace read?") writes as numbered branches, taken at the end of a run that
//! no input error stopped.
//!
//! A run reports success only on a trace it read. A well-formed trace of
//! events that the specification never mentions *is* read (a "never X"
//! property holds on it): a warning names those events. What fails the run
//! (exit status 2) is evidence of a misread: most lines skipped as bad, or
//! a trace none of whose events the specification mentions whose first
//! events have names in the shape of another format (see [`evidence`]).
//! An event that the specification uses with another number of arguments
//! stops the run where it is met (an input error), as before.

use std::collections::BTreeMap;

use std::io::Read;

use super::Session;
use super::names::{self, NameReport};
use crate::trace::{FieldNames, Format, TraceOptions, TraceReader, header_word};

/// How many events, from the first, are looked at for the shape of another
/// format.
pub const FIRST_EVENTS: u64 = 10;

/// The default of [`super::SessionOptions::max_skipped`]: a tenth of the
/// lines.
pub const DEFAULT_MAX_SKIPPED: f64 = 0.1;

/// What a run keeps of its first events for the decision.
#[derive(Clone, Debug, Default)]
pub(super) struct FirstEvents {
    /// Each name of the first [`FIRST_EVENTS`] events, with the line of its
    /// first event, in order.
    pub(super) events: Vec<(u64, Vec<u8>)>,
    /// The first event's fields, its name first.
    pub(super) fields: Vec<Vec<u8>>,
}

impl FirstEvents {
    /// Whether event `number` is one of the first.
    #[inline(always)]
    pub(super) fn wants(number: u64) -> bool {
        number <= FIRST_EVENTS
    }

    /// Keeps event `number`, on `line`, named `name`, with arguments `args`
    /// (the same whether the events come one by one or in runs of repeats:
    /// a name is kept once).
    #[cold]
    pub(super) fn note<'a>(
        &mut self,
        number: u64,
        line: u64,
        name: &[u8],
        args: impl IntoIterator<Item = &'a [u8]>,
    ) {
        if number == 1 {
            self.fields = std::iter::once(name.to_vec())
                .chain(args.into_iter().map(<[u8]>::to_vec))
                .collect();
        }
        if !self.events.iter().any(|(_, n)| n == name) {
            self.events.push((line, name.to_vec()));
        }
    }
}

/// Bad lines skipped beyond the bound (or all of them): the error's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Lines skipped.
    pub skipped: u64,
    /// Lines read: the events and the lines skipped.
    pub lines: u64,
    /// The first few lines skipped.
    pub first: Vec<u64>,
    /// Why the first line was skipped (`line L: ...`).
    pub why: String,
    /// The bound, in thousandths of the lines (100: a tenth).
    pub bound_permille: u32,
}

impl Skipped {
    /// The status line's reason.
    pub(super) fn reason(&self) -> String {
        if self.skipped == self.lines {
            format!(
                "all {} line{} skipped as bad",
                self.lines,
                plural(self.lines)
            )
        } else {
            format!(
                "{} of {} lines skipped as bad, more than {}",
                self.skipped,
                self.lines,
                percent(self.bound_permille)
            )
        }
    }
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines: Vec<String> = self.first.iter().map(u64::to_string).collect();
        let more = if self.skipped > self.first.len() as u64 {
            ", ..."
        } else {
            ""
        };
        let what = if self.skipped == self.lines {
            format!(
                "all {} line{} skipped as bad: nothing was read",
                self.lines,
                if self.lines == 1 { " was" } else { "s were" }
            )
        } else {
            format!(
                "{} of {} lines were skipped as bad, more than --max-skipped {}: the trace \
                 looks misread",
                self.skipped,
                self.lines,
                percent(self.bound_permille)
            )
        };
        write!(
            f,
            "{what} (line{} {}{more}); the first: {}",
            if lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
            self.why
        )
    }
}

/// `s` unless `n` is 1.
fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `100` thousandths as `10%`, `25` as `2.5%`.
fn percent(permille: u32) -> String {
    match permille % 10 {
        0 => format!("{}%", permille / 10),
        tenth => format!("{}.{tenth}%", permille / 10),
    }
}

/// A trace whose first events look like another format, none of whose
/// events the specification mentions: the error's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misread {
    /// The line of the first event whose name shows it.
    pub line: u64,
    /// That name.
    pub name: String,
    /// The unknown names, with the hint for each kind of cause.
    pub names: NameReport,
}

impl Misread {
    /// The status line's reason.
    pub(super) fn reason(&self) -> String {
        format!(
            "the trace looks misread (line {}: `{}`)",
            self.line,
            names::shorten(&self.name)
        )
    }
}

impl std::fmt::Display for Misread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}: the trace looks misread: `{}` is not an event of the specification, \
             and no event of the trace is one",
            self.line,
            names::shorten(&self.name)
        )?;
        for line in &self.names.lines {
            write!(f, "\n{line}")?;
        }
        Ok(())
    }
}

/// What the decision found wrong.
pub(super) enum Unread {
    Skipped(Skipped),
    Misread(Misread),
}

/// The decision, branches 2 to 4 of docs/TRACES.md (branch 1, an input
/// error, is the run's own): `Err` when the trace was not read. `format` is
/// the trace's format (`None` for events pushed one by one), `skipped` the
/// lines skipped (how many, the first few, why the first), `bound` the
/// share of lines that may be skipped.
pub(super) fn decide(
    spec: &[String],
    counts: &BTreeMap<String, u64>,
    first: &FirstEvents,
    format: Option<Format>,
    skipped: (u64, &[u64], Option<&str>),
    bound: f64,
) -> Result<(), Unread> {
    let events: u64 = counts.values().sum();
    let (count, lines, why) = skipped;
    // 2. Skipped lines: all of them, or more than the bound.
    let total = events + count;
    if count > 0 && (events == 0 || count as f64 > bound * total as f64) {
        return Err(Unread::Skipped(Skipped {
            skipped: count,
            lines: total,
            first: lines.to_vec(),
            why: why.unwrap_or_default().to_owned(),
            bound_permille: (bound * 1000.0).round() as u32,
        }));
    }
    // 3. Nothing the specification mentions, and the first events in the
    // shape of another format.
    let report = names::check_names(spec, counts);
    if report.nothing_understood()
        && matches!(format, Some(Format::Plain | Format::Crv))
        && let Some((line, name)) = evidence(spec, first)
    {
        return Err(Unread::Misread(Misread {
            line,
            name,
            names: report,
        }));
    }
    Ok(())
}

/// The first of the first events whose name is in the shape of another
/// format, or names an event of the specification in another shape (see
/// [`names::is_evidence`]): its line and name.
fn evidence(spec: &[String], first: &FirstEvents) -> Option<(u64, String)> {
    first.events.iter().find_map(|(line, name)| {
        let name = String::from_utf8_lossy(name);
        names::is_evidence(spec, &name, *line).then(|| (*line, name.into_owned()))
    })
}

/// The hint for a first line that looks like the header row of a plain CSV
/// file (`name,msg,ts`): a first event with arguments, all of whose fields
/// are words (no number among them), whose name the specification does not
/// mention and that occurs once in a trace of more events.
pub(super) fn header_row(
    spec: &[String],
    counts: &BTreeMap<String, u64>,
    first: &FirstEvents,
    format: Option<Format>,
) -> Option<String> {
    let events: u64 = counts.values().sum();
    if format != Some(Format::Plain) || first.fields.len() < 2 || events < 2 {
        return None;
    }
    let (line, _) = first.events.first()?;
    if !first.fields.iter().all(|f| header_word(f)) {
        return None;
    }
    let name = String::from_utf8_lossy(&first.fields[0]).into_owned();
    if spec.contains(&name) || counts.get(&name).copied() != Some(1) {
        return None;
    }
    let row: Vec<String> = first
        .fields
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    Some(format!(
        "line {line} `{}` looks like a header row of column names, read as an event \
         `{name}`: remove it, or name its first column `event` to read it as the header of a \
         CRV CSV trace",
        names::shorten(&row.join(","))
    ))
}

/// How a session reads a trace (its options for the reader), apart from
/// the session: a parallel run makes readers on several threads.
#[derive(Clone, Debug)]
pub(super) struct Reading {
    strict_time: bool,
    max_event_size: u64,
    skip: bool,
    time_decimals: u8,
    names: FieldNames,
    time_field: Option<String>,
}

impl Reading {
    /// A reader of `input` as `trace` says (timed or not, its format).
    pub(super) fn reader<R: Read>(&self, input: R, trace: TraceOptions) -> TraceReader<R> {
        TraceReader::new(input, trace)
            .allow_decreasing_time(!self.strict_time)
            .max_event_size(self.max_event_size)
            .skip_bad_events(self.skip)
            .time_decimals(self.time_decimals)
            .field_names(self.names.clone())
            .time_field(self.time_field.as_deref())
    }
}

impl Session {
    /// A reader of `input` with the session's options.
    pub(super) fn reader<R: Read>(&self, input: R) -> TraceReader<R> {
        self.reading().reader(input, self.options.trace)
    }

    /// How the session reads a trace, apart from the session.
    pub(super) fn reading(&self) -> Reading {
        Reading {
            strict_time: self.options.monitor.strict_time,
            max_event_size: self.options.max_event_size,
            skip: self.skip(),
            time_decimals: self.options.time_decimals,
            names: FieldNames::from_spec(&self.spec),
            time_field: self.options.time_field.clone(),
        }
    }
}
