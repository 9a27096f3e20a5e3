//! Profiles of a run: how the monitor's summaries grow along the trace, as
//! CSV for `hindsight run --profile FILE` (and `hindsight plot`).
//!
//! The file has a header line and one row per sample: every `every` events
//! and once more at the end of the run (unless the last event was just
//! sampled). The columns are fixed when the profile starts; in a parallel
//! run they are those of every worker's monitors, each property's named
//! with its place in the layout (`P [slice 1 of 2]`, `P [part 2, slice 1
//! of 2]`: see docs/OUTPUT.md):
//!
//! | column | meaning |
//! |---|---|
//! | `event` | events processed so far |
//! | `seconds` | wall time since the profile started |
//! | `P/LABEL` | BDD nodes of one summary of property `P`, named by [`KeptSummary::label`]: `P/rule closed`, `P/S#3 (x)`, `P/@#4 !closed(x)`, `P/S[<=5]#7 (m)`, `P/seen t`, `P/cmp#9 t < u` |
//! | `P/V codes` | values that have a code now in one enumeration class of `P`; `V` names its variables, joined by `=` when they share the class (`P/x=closed.x codes`) |
//! | `P/gc collections` | garbage collections of value codes in `P` so far |
//! | `P/open steps` | steps whose verdict `P` has not given yet (only for a property with future operators) |
//! | `P/future nodes` | BDD nodes its future operators keep for those steps (likewise) |
//!
//! Node numbers `#n` are those of `hindsight compile`. Labels containing a
//! comma are quoted (RFC 4180).
//!
//! ```
//! use hindsight::{profile::Profiler, runtime::Monitor};
//! let mut m = Monitor::from_source(
//!     "prop p : Forall f . close(f) -> @ (!close(f) S open(f))",
//!     Default::default(),
//! ).expect("well-formed");
//! let mut p = Profiler::new(Vec::new(), &m, None, 2).expect("header");
//! for (name, f) in [("open", "a"), ("open", "b"), ("close", "a")] {
//!     m.step(name.as_bytes(), &[f.as_bytes()], 0).expect("ok");
//!     p.after_event(&mut m).expect("row");
//! }
//! let csv = String::from_utf8(p.finish(&mut m).expect("flush")).expect("UTF-8");
//! let mut lines = csv.lines();
//! assert_eq!(
//!     lines.next(),
//!     Some("event,seconds,p/S#3 (f),p/f codes,p/gc collections")
//! );
//! assert_eq!(csv.lines().count(), 3); // header, event 2, event 3
//! ```

use std::io::{self, Write};
use std::time::Instant;

use crate::runtime::Monitor;
use crate::runtime::kept::KeptSummary;

/// The columns of one monitor's properties: per property, its kept
/// summaries, its enumeration classes, and whether it has future
/// operators. A parallel run's workers sample their monitors by them
/// ([`Columns::sample`]).
#[derive(Clone, Debug, Default)]
pub struct Columns(Vec<(Vec<KeptSummary>, usize, bool)>);

impl Columns {
    /// The columns of `monitor`'s properties.
    pub fn of(monitor: &Monitor) -> Columns {
        Columns(
            (monitor.properties().iter())
                .map(|p| (p.kept_summaries(), p.plan().classes, p.is_delayed()))
                .collect(),
        )
    }

    /// Their names, each property's `P/...` with `P` given by `prefix`
    /// from the property's name (see the module's table).
    pub fn names(
        &self,
        monitor: &Monitor,
        source: Option<&str>,
        prefix: impl Fn(usize, &str) -> String,
    ) -> Vec<String> {
        let mut names = Vec::new();
        for (i, (kept, classes, delayed)) in self.0.iter().enumerate() {
            let plan = monitor.properties()[i].plan();
            let name = prefix(i, &plan.name);
            for k in kept {
                names.push(format!("{name}/{}", k.label(plan, source)));
            }
            for class in 0..*classes {
                names.push(format!("{name}/{} codes", class_name(plan, class)));
            }
            names.push(format!("{name}/gc collections"));
            if *delayed {
                names.push(format!("{name}/open steps"));
                names.push(format!("{name}/future nodes"));
            }
        }
        names
    }

    /// The values of the columns for `monitor`'s current state, appended to
    /// `row` (sizes are counted in its BDD space, hence `&mut`).
    pub fn sample(&self, monitor: &mut Monitor, row: &mut Vec<u64>) {
        for (i, (kept, classes, delayed)) in self.0.iter().enumerate() {
            for k in kept {
                row.push(monitor.kept_summary_nodes(i, *k) as u64);
            }
            let p = &monitor.properties()[i];
            for class in 0..*classes {
                row.push(p.live_codes(class) as u64);
            }
            row.push(p.gc_stats().0);
            if *delayed {
                row.push(p.undecided());
                row.push(monitor.future_nodes(i) as u64);
            }
        }
    }
}

/// Writes the profile of a run as CSV. The header is written with the
/// first row (or at the end): a parallel run replaces it first with the
/// columns of its workers' monitors ([`Profiler::parallel`]).
pub struct Profiler<W: Write> {
    out: csv::Writer<W>,
    every: u64,
    start: Instant,
    /// The sequential monitor's columns (none in a parallel run).
    columns: Columns,
    /// The header, until it is written.
    header: Option<Vec<String>>,
    /// Whether the rows come from a parallel run's workers.
    parallel: bool,
    /// The event number of the last row written.
    last_row: Option<u64>,
    values: Vec<u64>,
    row: Vec<String>,
}

impl<W: Write> Profiler<W> {
    /// Starts the profile of `monitor` (before its first event). `source`
    /// is the specification text, for readable labels; `every` is the
    /// sampling period in events (at least 1).
    pub fn new(
        out: W,
        monitor: &Monitor,
        source: Option<&str>,
        every: u64,
    ) -> io::Result<Profiler<W>> {
        let columns = Columns::of(monitor);
        let mut header = vec!["event".to_string(), "seconds".to_string()];
        header.extend(columns.names(monitor, source, |_, name| name.to_string()));
        Ok(Profiler {
            out: csv::Writer::from_writer(out),
            every: every.max(1),
            start: Instant::now(),
            columns,
            header: Some(header),
            parallel: false,
            last_row: None,
            values: Vec::new(),
            row: Vec::new(),
        })
    }

    /// The sampling period, in events.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// Makes it the profile of a parallel run whose workers' monitors have
    /// the columns `names` (after `event` and `seconds`): the rows come
    /// from [`Profiler::row`], and [`Profiler::finish`] writes none of its
    /// own.
    pub fn parallel(&mut self, names: Vec<String>) {
        let mut header = vec!["event".to_string(), "seconds".to_string()];
        header.extend(names);
        self.header = Some(header);
        self.columns = Columns::default();
        self.parallel = true;
    }

    /// The column names, as in the header.
    #[cfg(test)]
    pub fn header(monitor: &Monitor, source: Option<&str>) -> Vec<String> {
        Profiler::new(Vec::new(), monitor, source, 1)
            .ok()
            .and_then(|p| p.header)
            .unwrap_or_default()
    }

    /// Call after every event: writes a row when the number of events
    /// processed is a multiple of the period. Cheap otherwise.
    #[inline]
    pub fn after_event(&mut self, monitor: &mut Monitor) -> io::Result<()> {
        if monitor.events().is_multiple_of(self.every) {
            self.sample(monitor)?;
        }
        Ok(())
    }

    /// Writes a row for the monitor's current state (sizes are counted in
    /// its BDD space, hence `&mut`).
    pub fn sample(&mut self, monitor: &mut Monitor) -> io::Result<()> {
        let mut values = std::mem::take(&mut self.values);
        values.clear();
        self.columns.sample(monitor, &mut values);
        let written = self.row(monitor.events(), &values);
        self.values = values;
        written
    }

    /// Writes the row of event `event` with the column values `values`
    /// (the header first, if it is not written yet).
    pub fn row(&mut self, event: u64, values: &[u64]) -> io::Result<()> {
        if let Some(header) = self.header.take() {
            self.out.write_record(&header)?;
        }
        self.row.clear();
        self.row.push(event.to_string());
        self.row
            .push(format!("{:.6}", self.start.elapsed().as_secs_f64()));
        self.row.extend(values.iter().map(u64::to_string));
        self.out.write_record(&self.row)?;
        self.last_row = Some(event);
        Ok(())
    }

    /// Ends the profile: writes the final row (unless this state was just
    /// sampled, or the run was parallel: its workers gave their last
    /// row), flushes, and returns the writer.
    pub fn finish(mut self, monitor: &mut Monitor) -> io::Result<W> {
        if !self.parallel && self.last_row != Some(monitor.events()) {
            self.sample(monitor)?;
        }
        if let Some(header) = self.header.take() {
            self.out.write_record(&header)?;
        }
        self.out.flush()?;
        self.out
            .into_inner()
            .map_err(|e| io::Error::other(e.error().to_string()))
    }
}

/// The variables of an enumeration class, quantified ones of the statement
/// first, joined by `=`.
fn class_name(plan: &crate::plan::PropPlan, class: usize) -> String {
    let mut vars: Vec<&crate::plan::Var> = plan.vars.iter().filter(|v| v.class == class).collect();
    vars.sort_by_key(|v| v.name.contains('.'));
    vars.iter()
        .map(|v| v.label.as_str())
        .collect::<Vec<_>>()
        .join("=")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monitor(spec: &str) -> Monitor {
        Monitor::from_source(spec, Default::default()).expect("well-formed")
    }

    #[test]
    fn columns_of_rules_and_shared_classes() {
        let spec = "prop telemetry1 : Forall x . closed(x) -> !telem(x)\n  where closed(x) := toggle(x) <-> @!closed(x)\n";
        assert_eq!(
            Profiler::<Vec<u8>>::header(&monitor(spec), Some(spec)),
            [
                "event",
                "seconds",
                "telemetry1/rule closed",
                "telemetry1/@#4 !closed(x)",
                "telemetry1/x=closed.x codes",
                "telemetry1/gc collections",
            ]
        );
        // Without the source the operand of @ is named by its free variables.
        assert_eq!(
            Profiler::<Vec<u8>>::header(&monitor(spec), None)[3],
            "telemetry1/@#4 (closed.x)"
        );
    }

    #[test]
    fn columns_of_timed_operators_seen_sets_and_comparisons() {
        let spec = "prop q : Forall m . done(m) -> P[<=5] start(m)\nprop r : !(exists t . exists u . t < u & P both(t, u))\n";
        assert_eq!(
            Profiler::<Vec<u8>>::header(&monitor(spec), Some(spec)),
            [
                "event",
                "seconds",
                "q/S[<=5]#3 (m)",
                "q/m codes",
                "q/gc collections",
                "r/cmp#0 t < u",
                "r/S#3 (t, u)",
                "r/seen t",
                "r/seen u",
                "r/t codes",
                "r/u codes",
                "r/gc collections",
            ]
        );
    }

    #[test]
    fn rows_every_period_and_a_final_one() {
        let spec = "prop p : Forall f . close(f) -> @ (!close(f) S open(f))";
        let mut m = monitor(spec);
        let mut p = Profiler::new(Vec::new(), &m, Some(spec), 2).expect("header");
        for f in ["a", "b", "c", "d", "e"] {
            m.step(b"open", &[f.as_bytes()], 0).expect("ok");
            p.after_event(&mut m).expect("row");
        }
        let csv = String::from_utf8(p.finish(&mut m).expect("flush")).expect("UTF-8");
        let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(
            rows.iter().skip(1).map(|r| r[0]).collect::<Vec<_>>(),
            ["2", "4", "5"]
        );
        // The S summary over f grows with the open files; 5 codes live.
        let nodes: Vec<usize> = rows[1..].iter().map(|r| r[2].parse().expect("n")).collect();
        assert!(nodes[0] < nodes[2], "{nodes:?}");
        assert_eq!(rows[3][3], "5");
        assert_eq!(rows[3][4], "0");
    }
}
