//! Parts of `hindsight run` around the event loop: the choice of properties
//! (`--prop`) and the bad lines skipped (`--on-error skip`).

use std::path::Path;
use std::process::ExitCode;

use hindsight::plan::Plan;

use super::names;

/// Keeps only the properties named by `--prop` (all without it); an unknown
/// name is an error, with the closest property name as a suggestion.
pub fn select_props(spec: &Path, plan: &mut Plan, wanted: &[String]) -> Result<(), ExitCode> {
    if let Some(unknown) = wanted
        .iter()
        .find(|name| !plan.props.iter().any(|p| &p.name == *name))
    {
        let known: Vec<&str> = plan.props.iter().map(|p| p.name.as_str()).collect();
        let suggestion = names::did_you_mean(unknown, known.iter().copied())
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        eprintln!(
            "error: {} has no property `{unknown}`{suggestion}; its properties are: {}",
            spec.display(),
            known.join(", ")
        );
        return Err(ExitCode::from(2));
    }
    if !wanted.is_empty() {
        plan.props.retain(|p| wanted.contains(&p.name));
    }
    Ok(())
}

/// Bad lines skipped with `--on-error skip`: how many, and the first few.
#[derive(Default)]
pub struct BadLines {
    /// Lines skipped.
    pub count: u64,
    /// The first few of them.
    pub first: Vec<u64>,
}

impl BadLines {
    /// How many line numbers the summary shows.
    const SHOWN: usize = 5;

    /// Counts the bad line `line`.
    pub fn skip(&mut self, line: u64) {
        self.count += 1;
        if self.first.len() < Self::SHOWN {
            self.first.push(line);
        }
    }
}

/// How a run ended: what the sequential and the parallel run loops hand to
/// [`finish`], which prints the warnings, the errors and the summary the
/// same way for both, and gives the exit status.
pub struct Ending<'a> {
    /// The trace's name in messages.
    pub trace_name: &'a str,
    /// Events whose time stamp was smaller than their predecessor's.
    pub regressions: u64,
    /// The input error that stopped the run: its line and its message.
    pub error: Option<(u64, String)>,
    /// Whether Ctrl-C stopped the run.
    pub interrupted: bool,
    /// Whether standard output was closed.
    pub closed: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// The event names the specification mentions.
    pub spec_events: Vec<String>,
    /// Occurrences per event name.
    pub counts: hindsight::report::EventCounts,
    /// Events processed.
    pub events: u64,
    /// Wall time of the run.
    pub elapsed: std::time::Duration,
    /// Garbage collections of value codes, and codes released.
    pub gc: (u64, u64),
    /// Bad lines skipped.
    pub bad: BadLines,
}

/// Ends a run: warnings and errors on standard error, the summary through
/// `reporter`, and the exit status (130 interrupted, 2 failed, 1 violated,
/// 0 satisfied).
pub fn finish<W: std::io::Write>(
    reporter: &mut hindsight::report::Reporter<W>,
    end: Ending<'_>,
) -> ExitCode {
    use std::io::Write as _;
    if end.regressions > 0 && !end.quiet {
        let _ = writeln!(
            std::io::stderr(),
            "warning: {}: {} time stamp(s) smaller than the previous one; no time elapsed at those events (use --strict-time to reject them)",
            end.trace_name,
            end.regressions
        );
    }
    let counts = end.counts.into_counts();
    let mut failure = None;
    if let Some((line, e)) = &end.error {
        let _ = writeln!(std::io::stderr(), "error: {e}");
        failure = Some(super::stopped_at(*line, reporter.total()));
    }
    let understood = names::check_names(&end.spec_events, &counts);
    if end.error.is_none() && !end.interrupted && !end.closed && understood.nothing_understood() {
        understood.print("error");
        failure = Some("no event of the trace is in the specification".to_owned());
    } else if !end.quiet {
        understood.print("warning");
    }
    let failed = failure.is_some();
    let mut error = end.error.map(|(_, e)| e);
    if end.interrupted {
        error = Some("interrupted (Ctrl-C)".to_owned());
    }
    let summary = hindsight::report::Summary {
        events: end.events,
        counts,
        spec_events: end.spec_events,
        elapsed: end.elapsed,
        error,
        gc: end.gc,
        skipped: (end.bad.count, end.bad.first),
        failure,
    };
    if !end.closed {
        let _ = reporter.summary(&summary);
    }
    if end.interrupted {
        ExitCode::from(130)
    } else if failed {
        ExitCode::from(2)
    } else if reporter.total() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
