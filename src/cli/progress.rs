//! The progress indicator of `hindsight run` (`--no-progress`): shown on
//! standard error for a trace file, once the run has lasted a second, with
//! the report's lines written out of its way ([`ProgressStdout`]).
//!
//! It costs nothing when it is off: the report's progress callback does
//! one branch, and when on looks at the clock every 4096 events.

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Check the clock for the progress indicator every this many events.
const PROGRESS_EVENTS: u64 = 4096;
/// Redraw the progress indicator at most this often.
const PROGRESS_PERIOD: Duration = Duration::from_millis(100);
/// Show the progress indicator only for runs longer than this.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// The progress indicator of a run, when it may be shown: for a trace file
/// (`trace`), not with `--no-progress` nor JSON output, on a terminal.
pub fn start(trace: Option<&Path>, no_progress: bool, json: bool) -> Option<Progress> {
    trace
        .filter(|_| progress_wanted(true, no_progress, json, io::stderr().is_terminal()))
        .map(Progress::new)
}

/// Standard output for the printer: when a progress bar may be shown,
/// complete lines are written with the bar out of the way.
pub fn stdout(progress: Option<&Progress>) -> ProgressStdout {
    ProgressStdout {
        inner: io::stdout().lock(),
        bar: progress.map(|p| p.bar.clone()),
        pending: Vec::new(),
    }
}

/// Whether to show the progress indicator: only for a trace read from a file,
/// on a terminal, not with `--no-progress` nor with JSON output.
fn progress_wanted(from_file: bool, no_progress: bool, json: bool, stderr_terminal: bool) -> bool {
    from_file && !no_progress && !json && stderr_terminal
}

/// How long a run lasts before the progress indicator shows:
/// [`PROGRESS_DELAY`], or `HINDSIGHT_PROGRESS_DELAY_MS` milliseconds (for tests).
fn progress_delay() -> Duration {
    std::env::var("HINDSIGHT_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(PROGRESS_DELAY, Duration::from_millis)
}

/// The progress indicator: percentage of the file's bytes read, events and
/// events per second. Created hidden; shown once the run has lasted
/// [`PROGRESS_DELAY`].
pub struct Progress {
    /// Set when the bar is shown.
    bar: Arc<OnceLock<ProgressBar>>,
    /// The file's size, if known.
    total: Option<u64>,
    start: Instant,
    delay: Duration,
    last_draw: Instant,
    last_events: u64,
}

impl Progress {
    fn new(path: &Path) -> Progress {
        let total = std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file() && m.len() > 0)
            .map(|m| m.len());
        let now = Instant::now();
        Progress {
            bar: Arc::new(OnceLock::new()),
            total,
            start: now,
            delay: progress_delay(),
            last_draw: now,
            last_events: 0,
        }
    }

    /// After `events` events; `bytes_read` gives the input consumed so far.
    #[inline]
    pub fn after_event(&mut self, events: u64, bytes_read: impl FnOnce() -> u64) {
        if !events.is_multiple_of(PROGRESS_EVENTS) {
            return;
        }
        let now = Instant::now();
        // The first drawing comes as soon as the delay has passed.
        let drawn = self.bar.get().is_some();
        if (drawn && now.duration_since(self.last_draw) < PROGRESS_PERIOD)
            || now.duration_since(self.start) < self.delay
        {
            return;
        }
        let rate = (events - self.last_events) as f64
            / now.duration_since(self.last_draw).as_secs_f64().max(1e-9);
        self.last_draw = now;
        self.last_events = events;
        let bar = self.bar.get_or_init(|| make_bar(self.total));
        bar.set_message(format!(
            "{} events, {} events/s",
            group_digits(events),
            group_digits(rate as u64)
        ));
        bar.set_position(bytes_read());
        // Our own rate limit applies; indicatif's would drop the first drawing
        // of a short run.
        bar.force_draw();
    }

    /// Removes the indicator.
    pub fn finish(self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

fn make_bar(total: Option<u64>) -> ProgressBar {
    let target = ProgressDrawTarget::stderr_with_hz(10);
    match total {
        Some(len) => {
            let bar = ProgressBar::with_draw_target(Some(len), target);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {percent:>3}% of {total_bytes}  {msg}  [{elapsed}, eta {eta}]",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        }
        None => {
            let bar = ProgressBar::with_draw_target(None, target);
            bar.set_style(
                ProgressStyle::with_template("{spinner} {bytes} read  {msg}  [{elapsed}]")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        }
    }
}

/// `1234567` as `1,234,567`.
fn group_digits(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Standard output that keeps the progress bar (on the same terminal) intact:
/// while the bar is shown, whole lines are printed with the bar suspended.
pub struct ProgressStdout {
    inner: io::StdoutLock<'static>,
    bar: Option<Arc<OnceLock<ProgressBar>>>,
    /// The unfinished last line, while the bar is shown.
    pending: Vec<u8>,
}

impl Write for ProgressStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(bar) = self.bar.as_ref().and_then(|b| b.get()) else {
            return self.inner.write(buf);
        };
        self.pending.extend_from_slice(buf);
        if let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            let inner = &mut self.inner;
            bar.suspend(|| inner.write_all(&lines).and_then(|()| inner.flush()))?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            self.inner.write_all(&rest)?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::{group_digits, progress_wanted};

    #[test]
    fn progress_only_for_a_file_on_a_terminal_without_json() {
        assert!(progress_wanted(true, false, false, true));
        assert!(!progress_wanted(false, false, false, true), "stdin");
        assert!(!progress_wanted(true, true, false, true), "--no-progress");
        assert!(!progress_wanted(true, false, true, true), "--json");
        assert!(
            !progress_wanted(true, false, false, false),
            "stderr not a terminal"
        );
    }

    #[test]
    fn digits_are_grouped_by_three() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
        assert_eq!(group_digits(1234567), "1,234,567");
    }
}
