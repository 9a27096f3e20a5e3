//! Reporting: violations as they are found and the end-of-run summary, as
//! human-readable text or JSON lines.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use serde_json::json;

use crate::runtime::witness::{Witness, WitnessValue, format_witness};
use crate::trace::format_time;

mod counts;

pub use counts::EventCounts;

/// How results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum OutputFormat {
    /// Human-readable lines.
    Text,
    /// JSON lines.
    Json,
}

/// A violation to report.
#[derive(Clone, Copy, Debug)]
pub struct Violation<'a> {
    /// Index of the property.
    pub property: usize,
    /// 1-based event number.
    pub event: u64,
    /// The event's name.
    pub name: &'a [u8],
    /// The event's arguments.
    pub args: &'a [&'a [u8]],
    /// The event's time, in a timed trace.
    pub time: Option<u64>,
    /// The 1-based line of the trace where the event starts (0: unknown). The
    /// text output shows it when it differs from the event number.
    pub line: u64,
    /// With `--all-witnesses`: the first falsifying tuples, and how many
    /// there are in all.
    pub all_witnesses: Option<(&'a [Witness], u64)>,
}

/// A step left undecided at the end of the trace (see
/// [`crate::session::Report::undecided`]).
#[derive(Clone, Copy, Debug)]
pub struct Undecided<'a> {
    /// 1-based event number (or time-point number plus one).
    pub event: u64,
    /// The 1-based line where it starts.
    pub line: u64,
    /// The event's name (`@` for a time-point).
    pub name: &'a [u8],
    /// The event's arguments (none for a time-point).
    pub args: &'a [&'a [u8]],
    /// Its time, in a timed trace.
    pub time: Option<u64>,
    /// The properties that could not decide it.
    pub properties: &'a [&'a str],
}

/// Per-run statistics for the summary.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Events processed.
    pub events: u64,
    /// Occurrences per event name.
    pub counts: BTreeMap<String, u64>,
    /// Event names the specification mentions.
    pub spec_events: Vec<String>,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The input error that ended the run early, if any.
    pub error: Option<String>,
    /// Garbage collections of value codes, and codes released by them.
    pub gc: (u64, u64),
    /// Bad lines skipped (`--on-error skip`): how many, and the first few.
    pub skipped: (u64, Vec<u64>),
    /// Why the run failed, if it did (exit status 2): shown in the status
    /// line, `STATUS: Error (...)`, instead of `Satisfied` or `Violated`.
    pub failure: Option<String>,
    /// With a future operator: the steps left undecided at the end of the
    /// trace, and the first few of their event numbers.
    pub undecided: (u64, Vec<u64>),
}

/// Writes violations and the summary.
pub struct Printer<W: Write> {
    out: W,
    format: OutputFormat,
    properties: Vec<String>,
    violations: Vec<u64>,
    first: Vec<Option<u64>>,
    /// Print nothing but the final status.
    pub quiet: bool,
    /// Stop printing a property's violations after this many.
    pub max_violations: Option<u64>,
    /// Colour the violations and the status line (ANSI escapes, text only).
    pub color: bool,
    /// Times are in ticks of `10^-time_decimals` time units, and are shown
    /// as decimal numbers (see [`crate::trace::format_time`]).
    pub time_decimals: u8,
    /// The types of the columns of MFOTL satisfactions: values are then
    /// printed as MonPoly prints them (strings quoted, floats with `%g`;
    /// see `mfotl::values`); `None`: as they are.
    pub columns: Option<Vec<crate::mfotl::sig::Type>>,
}

/// ANSI colours of the text report.
const RED: &str = "\x1b[1;31m";
const GREEN: &str = "\x1b[1;32m";
const RESET: &str = "\x1b[0m";

/// `tuples` as `x=a y=1 | x=b y=2`, with `(+ N more)` when `total` is larger.
fn format_all(tuples: &[Witness], total: u64) -> String {
    let mut out: Vec<String> = tuples.iter().map(|t| format_witness(t)).collect();
    let rest = total.saturating_sub(tuples.len() as u64);
    if rest > 0 {
        out.push(format!("(+ {rest} more)"));
    }
    out.join(" | ")
}

fn witness_json(w: &[(String, WitnessValue)]) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = w
        .iter()
        .map(|(k, x)| (k.clone(), json!(x.text())))
        .collect();
    serde_json::Value::Object(map)
}

/// A time in ticks of `10^-decimals` units as a JSON number: an integer, or
/// the decimal number (`0.5`) when time stamps have decimals.
fn json_time(ticks: u64, decimals: u8) -> serde_json::Value {
    if decimals == 0 {
        return json!(ticks);
    }
    serde_json::from_str(&format_time(ticks, decimals)).unwrap_or_else(|_| json!(ticks))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// [`text`] for a line of the text report: control characters (a newline in
/// a quoted field, a NUL, an escape sequence) are shown escaped, `\n`, `\0`,
/// `\u{1b}`, so that a violation is always one line and never drives the
/// terminal.
fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if !text.chars().any(char::is_control) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

impl<W: Write> Printer<W> {
    /// A printer for the given property names.
    pub fn new(out: W, format: OutputFormat, properties: Vec<String>) -> Printer<W> {
        let n = properties.len();
        Printer {
            out,
            format,
            properties,
            violations: vec![0; n],
            first: vec![None; n],
            quiet: false,
            max_violations: None,
            color: false,
            time_decimals: 0,
            columns: None,
        }
    }

    /// Total violations so far.
    pub fn total(&self) -> u64 {
        self.violations.iter().sum()
    }

    /// Records a violation and prints it (unless quiet or past the limit).
    pub fn violation(&mut self, v: &Violation<'_>) -> io::Result<()> {
        self.violation_with_witness(v, None)
    }

    /// Counts violation `v`; whether it is to be printed (not `--quiet`,
    /// and within `--max-violations` for its property).
    fn count(&mut self, v: &Violation<'_>) -> bool {
        self.violations[v.property] += 1;
        self.first[v.property].get_or_insert(v.event);
        !self.quiet
            && self
                .max_violations
                .is_none_or(|m| self.violations[v.property] <= m)
    }

    /// As [`Printer::violation`], with the violation's witness when given
    /// (see [`crate::monitor::format_witness`]): in text after the event as
    /// `; witness: x=a y=<any unseen value>` (nothing for an empty witness),
    /// in JSON as `"witness": {"x": "a", "y": null}` (`null` for any unseen
    /// value; `{}` for an empty witness).
    pub fn violation_with_witness(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        if !self.count(v) {
            return Ok(());
        }
        let name = &self.properties[v.property];
        match self.format {
            OutputFormat::Text => {
                let args: Vec<String> = v.args.iter().map(|a| shown(a)).collect();
                let call = if args.is_empty() {
                    shown(v.name)
                } else {
                    format!("{}({})", shown(v.name), args.join(", "))
                };
                let time = v
                    .time
                    .map(|t| format!(" at time {}", format_time(t, self.time_decimals)))
                    .unwrap_or_default();
                let mut witness = match witness {
                    Some(w) if !w.is_empty() => format!("; witness: {}", format_witness(w)),
                    _ => String::new(),
                };
                if let Some((tuples, total)) = v.all_witnesses
                    && total > 0
                {
                    witness.push_str(&format!(
                        "; {total} witness{}: {}",
                        if total == 1 { "" } else { "es" },
                        format_all(tuples, total)
                    ));
                }
                let line = if v.line != 0 && v.line != v.event {
                    format!(" (line {})", v.line)
                } else {
                    String::new()
                };
                let (on, off) = if self.color { (RED, RESET) } else { ("", "") };
                writeln!(
                    self.out,
                    "{on}property {name} violated{off} at event {}{line}{time}: {call}{witness}",
                    v.event
                )
            }
            OutputFormat::Json => {
                let mut o = json!({
                    "kind": "violation",
                    "property": name,
                    "event": v.event,
                    "name": text(v.name),
                    "args": v.args.iter().map(|a| text(a)).collect::<Vec<_>>(),
                });
                if let Some(t) = v.time {
                    o["time"] = json_time(t, self.time_decimals);
                }
                if v.line != 0 {
                    o["line"] = json!(v.line);
                }
                if let Some(w) = witness {
                    o["witness"] = witness_json(w);
                }
                if let Some((tuples, total)) = v.all_witnesses {
                    o["witnesses"] = tuples.iter().map(|t| witness_json(t)).collect();
                    o["witness_count"] = json!(total);
                }
                writeln!(self.out, "{o}")
            }
        }
    }

    /// Whether [`Printer::satisfaction`] prints the event of its violation:
    /// in JSON (`"name"`, `"args"`), not in text (MonPoly's lines).
    pub fn satisfaction_names_event(&self) -> bool {
        self.format == OutputFormat::Json
    }

    /// Records a violation of an MFOTL pattern's property, that is a time
    /// point where the pattern is satisfied, and prints it as MonPoly does:
    /// `@TS (time point N): (a,b) (c,d)` (`true` for a closed pattern), with
    /// `N` the time point counted from 0 (with one event per time point, the
    /// event number minus 1). In JSON: `{"kind": "satisfaction",
    /// "property", "event", "time_point", "ts", "tuples": [[...], ...]}` (a
    /// value not seen so far is `null`).
    pub fn satisfaction(
        &mut self,
        v: &Violation<'_>,
        point: u64,
        ts: u64,
        tuples: &[Vec<WitnessValue>],
    ) -> io::Result<()> {
        if !self.count(v) {
            return Ok(());
        }
        match self.format {
            OutputFormat::Text => {
                // Written as it goes: one line per satisfying time-point
                // can be many lines.
                let columns = self.columns.as_deref().unwrap_or_default();
                write!(self.out, "@{ts} (time point {point}): ")?;
                let mut any = false;
                for t in tuples.iter().filter(|t| !t.is_empty()) {
                    self.out.write_all(if any { b" (" } else { b"(" })?;
                    any = true;
                    for (i, x) in t.iter().enumerate() {
                        if i > 0 {
                            self.out.write_all(b",")?;
                        }
                        match (x, columns.get(i)) {
                            (WitnessValue::Value(v), Some(&crate::mfotl::sig::Type::Int)) => {
                                match std::str::from_utf8(v) {
                                    Ok(text) => self.out.write_all(text.as_bytes())?,
                                    Err(_) => write!(self.out, "{}", String::from_utf8_lossy(v))?,
                                }
                            }
                            (WitnessValue::Value(v), Some(&ty)) => {
                                let text = crate::mfotl::values::monpoly_text(ty, v);
                                self.out.write_all(text.as_bytes())?;
                            }
                            _ => write!(self.out, "{x}")?,
                        }
                    }
                    self.out.write_all(b")")?;
                }
                if !any {
                    self.out.write_all(b"true")?;
                }
                writeln!(self.out)
            }
            OutputFormat::Json => {
                let columns = self.columns.as_deref().unwrap_or_default();
                let tuples: Vec<Vec<Option<String>>> = tuples
                    .iter()
                    .map(|t| {
                        t.iter()
                            .enumerate()
                            .map(|(i, x)| match (x, columns.get(i)) {
                                (WitnessValue::Value(v), Some(&ty)) => {
                                    Some(crate::mfotl::values::json_text(ty, v))
                                }
                                _ => x.text(),
                            })
                            .collect()
                    })
                    .collect();
                let o = json!({
                    "kind": "satisfaction",
                    "property": self.properties[v.property],
                    "event": v.event,
                    "time_point": point,
                    "ts": ts,
                    "name": text(v.name),
                    "args": v.args.iter().map(|a| text(a)).collect::<Vec<_>>(),
                    "tuples": tuples,
                });
                writeln!(self.out, "{o}")
            }
        }
    }

    /// Prints the summary and the CRV status line.
    pub fn summary(&mut self, s: &Summary) -> io::Result<()> {
        let status = if s.failure.is_some() {
            "Error"
        } else if self.total() > 0 {
            "Violated"
        } else {
            "Satisfied"
        };
        let status_line = match &s.failure {
            Some(why) => format!("Error ({why})"),
            None => status.to_owned(),
        };
        let secs = s.elapsed.as_secs_f64();
        let never: Vec<&String> = s
            .spec_events
            .iter()
            .filter(|e| !s.counts.contains_key(*e))
            .collect();
        let unknown: Vec<&String> = s
            .counts
            .keys()
            .filter(|e| !s.spec_events.contains(e))
            .collect();
        match self.format {
            OutputFormat::Json => {
                let props: serde_json::Map<String, serde_json::Value> = self
                    .properties
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        (
                            p.clone(),
                            json!({"violations": self.violations[i], "first": self.first[i]}),
                        )
                    })
                    .collect();
                let o = json!({
                    "kind": "summary",
                    "events": s.events,
                    "seconds": secs,
                    "counts": s.counts,
                    "never_occurred": never,
                    "not_in_spec": unknown,
                    "properties": props,
                    "violations": self.total(),
                    "error": s.error,
                    "failure": s.failure,
                    "skipped_lines": s.skipped.0,
                    "first_skipped_lines": s.skipped.1,
                    "collections": s.gc.0,
                    "codes_released": s.gc.1,
                    "undecided": s.undecided.0,
                    "status": status,
                });
                writeln!(self.out, "{o}")?;
            }
            OutputFormat::Text => {
                if !self.quiet {
                    let rate = if secs > 0.0 {
                        s.events as f64 / secs
                    } else {
                        0.0
                    };
                    writeln!(self.out, "---")?;
                    writeln!(
                        self.out,
                        "events processed: {} in {secs:.3} s ({rate:.0} events/s)",
                        s.events
                    )?;
                    let counts: Vec<String> =
                        s.counts.iter().map(|(e, n)| format!("{e} {n}")).collect();
                    if !counts.is_empty() {
                        writeln!(self.out, "events by name: {}", counts.join(", "))?;
                    }
                    if !never.is_empty() {
                        let list: Vec<&str> = never.iter().map(|s| s.as_str()).collect();
                        writeln!(
                            self.out,
                            "in the spec but never occurred: {}",
                            list.join(", ")
                        )?;
                    }
                    if !unknown.is_empty() {
                        let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
                        writeln!(
                            self.out,
                            "in the trace but not in the spec: {}",
                            list.join(", ")
                        )?;
                    }
                    for (i, p) in self.properties.iter().enumerate() {
                        match self.first[i] {
                            Some(first) => writeln!(
                                self.out,
                                "property {p}: {} violation{} (first at event {first})",
                                self.violations[i],
                                if self.violations[i] == 1 { "" } else { "s" }
                            )?,
                            None => writeln!(self.out, "property {p}: no violation")?,
                        }
                    }
                    if s.skipped.0 > 0 {
                        let lines: Vec<String> = s.skipped.1.iter().map(u64::to_string).collect();
                        writeln!(
                            self.out,
                            "bad lines skipped: {} (line{} {}{})",
                            s.skipped.0,
                            if lines.len() == 1 { "" } else { "s" },
                            lines.join(", "),
                            if s.skipped.0 > lines.len() as u64 {
                                ", ..."
                            } else {
                                ""
                            }
                        )?;
                    }
                    if s.undecided.0 > 0 {
                        let (n, first) = &s.undecided;
                        let list: Vec<String> = first.iter().map(u64::to_string).collect();
                        writeln!(
                            self.out,
                            "undecided at the end of the trace: {n} event{} ({}{})",
                            if *n == 1 { "" } else { "s" },
                            list.join(", "),
                            if *n > list.len() as u64 { ", ..." } else { "" }
                        )?;
                    }
                    if let Some(e) = &s.error {
                        writeln!(self.out, "stopped early: {e}")?;
                    }
                }
                let (on, off) = match (self.color, status) {
                    (false, _) => ("", ""),
                    (true, "Satisfied") => (GREEN, RESET),
                    (true, _) => (RED, RESET),
                };
                writeln!(self.out, "{on}STATUS: {status_line}{off}")?;
            }
        }
        self.out.flush()
    }

    /// An event left undecided at the end of the trace: a JSON object
    /// `{"kind": "undecided", "event", "line", "name", "args", "time",
    /// "properties"}` (nothing in text, where the summary counts them).
    pub fn undecided(&mut self, u: &Undecided<'_>) -> io::Result<()> {
        if self.quiet || self.format != OutputFormat::Json {
            return Ok(());
        }
        let mut o = json!({
            "kind": "undecided",
            "event": u.event,
            "name": text(u.name),
            "args": u.args.iter().map(|a| text(a)).collect::<Vec<_>>(),
            "properties": u.properties,
        });
        if let Some(t) = u.time {
            o["time"] = json_time(t, self.time_decimals);
        }
        if u.line != 0 {
            o["line"] = json!(u.line);
        }
        writeln!(self.out, "{o}")
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The output, flushed.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}
