//! The parts of `hindsight run` for looking into a run rather than at its
//! verdicts: witnesses (`--witness`), profiles (`--profile FILE`,
//! `--profile-every N`) and the progress indicator (`--no-progress`).
//!
//! Each costs nothing when it is off: the main loop calls
//! [`Extras::after_event`], which does one branch per feature and otherwise
//! only counts events.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hindsight::profile::Profiler;
use hindsight::runtime::Monitor;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The options of `hindsight run` for looking into a run.
#[derive(clap::Args)]
pub struct UserOptions {
    /// With each violation, print a witness: the values of the statement's
    /// outer quantified variables that make the property false, e.g.
    /// `; witness: i=lamp a=700 b=1000` (JSON: `"witness": {"i": "lamp", ...}`).
    /// `x=<any unseen value>` (JSON `null`) means that any value not seen so
    /// far for x falsifies the property. [default: off]
    #[arg(long)]
    pub witness: bool,
    /// With each violation, list every falsifying tuple of the values of the
    /// statement's outer quantified variables (up to --max-witnesses, then
    /// their number), e.g. `; 2 witnesses: f=a | f=c` (JSON: `"witnesses":
    /// [{"f": "a"}, ...], "witness_count": 2`) [default: off].
    #[arg(long)]
    pub all_witnesses: bool,
    /// The most tuples --all-witnesses lists per violation.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_witnesses: u64,
    /// Write a profile of the run to FILE (CSV): per sample the event
    /// number, the elapsed seconds, and per property the BDD nodes of each
    /// summary (rule relations, `@` and `S` operands, timed states), the
    /// live value codes per enumeration class and the garbage collections so
    /// far. Draw it with `hindsight plot FILE -o OUT.svg`. [default: no profile]
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Sample the profile every N events (and always at the end).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub profile_every: u64,
    /// Never show the progress indicator. (It is shown on stderr only for a
    /// trace file, when stderr is a terminal, without `--json`, once
    /// the run has lasted a second.) [default: off]
    #[arg(long)]
    pub no_progress: bool,
}

/// Check the clock for the progress indicator every this many events.
const PROGRESS_EVENTS: u64 = 4096;
/// Redraw the progress indicator at most this often.
const PROGRESS_PERIOD: Duration = Duration::from_millis(100);
/// Show the progress indicator only for runs longer than this.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// Profile and progress of one run.
pub struct Extras {
    profile: Option<(PathBuf, Profiler<BufWriter<File>>)>,
    progress: Option<Progress>,
}

impl Extras {
    /// Starts what `opts` asks for. `json`: whether the output is JSON lines;
    /// `trace`: the trace file (`None` for stdin). Fails (exit status 2, with
    /// a message) when the profile file cannot be created.
    pub fn start(
        opts: &UserOptions,
        monitor: &Monitor,
        spec_text: &str,
        trace: Option<&Path>,
        json: bool,
    ) -> Result<Extras, ExitCode> {
        let profile = match &opts.profile {
            None => None,
            Some(path) => {
                let started = File::create(path).and_then(|f| {
                    Profiler::new(
                        BufWriter::new(f),
                        monitor,
                        Some(spec_text),
                        opts.profile_every,
                    )
                });
                match started {
                    Ok(p) => Some((path.clone(), p)),
                    Err(e) => {
                        eprintln!("error: cannot write {}: {e}", path.display());
                        return Err(ExitCode::from(2));
                    }
                }
            }
        };
        let progress = trace
            .filter(|_| progress_wanted(true, opts.no_progress, json, io::stderr().is_terminal()))
            .map(Progress::new);
        Ok(Extras { profile, progress })
    }

    /// Standard output for the reporter: when a progress bar may be shown,
    /// complete lines are written with the bar out of the way.
    pub fn stdout(&self) -> ProgressStdout {
        ProgressStdout {
            inner: io::stdout().lock(),
            bar: self.progress.as_ref().map(|p| p.bar.clone()),
            pending: Vec::new(),
        }
    }

    /// Call after every event. `bytes_read` gives the input consumed so far.
    #[inline]
    pub fn after_event(&mut self, monitor: &Monitor, bytes_read: impl FnOnce() -> u64) {
        if let Some((path, p)) = &mut self.profile
            && let Err(e) = p.after_event(monitor)
        {
            eprintln!("warning: profile {} stopped: {e}", path.display());
            self.profile = None;
        }
        if let Some(p) = &mut self.progress {
            p.after_event(monitor.events(), bytes_read);
        }
    }

    /// For a run that steps its monitors elsewhere (`--jobs N`): the progress
    /// after `events` events.
    #[inline]
    pub fn progress(&mut self, events: u64, bytes_read: impl FnOnce() -> u64) {
        if let Some(p) = &mut self.progress {
            p.after_event(events, bytes_read);
        }
    }

    /// Ends the run: removes the progress indicator and writes the profile's
    /// final row. A failure to write the profile is reported as a warning.
    pub fn finish(self, monitor: &Monitor) {
        if let Some(p) = self.progress {
            p.finish();
        }
        if let Some((path, p)) = self.profile
            && let Err(e) = p.finish(monitor).and_then(|mut w| w.flush())
        {
            eprintln!("warning: cannot write profile {}: {e}", path.display());
        }
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
struct Progress {
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

    #[inline]
    fn after_event(&mut self, events: u64, bytes_read: impl FnOnce() -> u64) {
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

    fn finish(self) {
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
