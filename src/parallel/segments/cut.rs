//! The take-over of a segment's end: a worker that is free (the one
//! before, once its segment is taken) monitors the end of a segment whose
//! worker is still far from it.
//!
//! When the merger takes a segment (its warm-up's state agrees with the
//! true one at its start), the monitor that holds the true state there
//! is no longer needed, and its core is idle. If the segment's worker
//! still has much of it to step, the merger cuts the segment at a line
//! the worker has not reached: the worker stops there, and the free
//! monitor warms up from its true state over the stretch up to the cut
//! (reading it as a warm-up does, stepping only the state records: a
//! small share of stepping it, [`take_over_line`]) and monitors the rest.
//! The stretch after the cut is a segment like the others: at the cut,
//! its state is compared with that of the worker that stopped there, and
//! its verdicts are taken, or that worker steps it itself. A take-over
//! segment may in turn be taken over.
//!
//! A later segment's worker may end first instead: its thread is then
//! free, but no monitor holds a true state near the segment at hand. A
//! fresh monitor *relieves* that segment's worker: it warms up from the
//! empty state over the whole file before the cut (compacted), at a line
//! placed by the worker's measured [`Pace`] and the measured time of a
//! warm-up ([`relief_line`]).
//!
//! A worker and the merger agree on the cut through a [`Cut`]: the worker
//! asks, every [`GRANT`] lines, for leave to go on (a lock taken once in
//! thousands of events); the merger cuts only at a line that no leave
//! given so far reaches.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Lines a worker steps on one leave.
const GRANT: u64 = 8192;

/// The fewest lines a take-over spares a segment's worker, and the least
/// share of its segment: below, the thread, the warm-up's start and the
/// comparison at the cut cost about what they save.
const MIN_SPARED: u64 = 4096;
const MIN_SPARED_SHARE: f64 = 0.05;

/// Where a segment's worker may go: leaves given, and the cut.
#[derive(Debug, Default)]
struct State {
    /// The worker may step the lines before this one (1-based lines of
    /// its segment).
    granted: u64,
    /// The line where it stops (it does not step it), once cut.
    cut: Option<u64>,
    /// (Tests) the worker waits for the merger's decision before its
    /// first leave.
    held: bool,
    /// When the worker asked for its first leave past its first line,
    /// and for its last, with the line it was at: its pace.
    first: Option<(Instant, u64)>,
    last: Option<(Instant, u64)>,
}

/// How a segment's worker goes, from its leaves: the lines it steps a
/// second, the line it is at now (estimated), and the lines the leaves
/// given so far reach.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Pace {
    pub(super) rate: f64,
    pub(super) at: f64,
    pub(super) granted: u64,
}

/// A segment's end, shared by its worker and the merger.
#[derive(Debug, Default)]
pub(super) struct Cut {
    state: Mutex<State>,
    decided: Condvar,
}

/// What a worker may step: the lines before `until`; `last` when that is
/// the cut (else it asks again there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Leave {
    pub(super) until: u64,
    pub(super) last: bool,
}

impl Leave {
    /// No cut: every line.
    pub(super) const ALL: Leave = Leave {
        until: u64::MAX,
        last: true,
    };
}

impl Cut {
    /// A cut whose worker waits, before its first step, for the merger to
    /// cut it or [`release`](Self::release) it (tests: the take-over then
    /// does not depend on how far the worker got meanwhile).
    #[cfg(test)]
    pub(super) fn held() -> Cut {
        let cut = Cut::default();
        cut.lock().held = true;
        cut
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked holding it left a state as good as any.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The leave of a worker at `line`: the lines it may step from there.
    /// Waits while the cut is held (and `stop()` is false).
    pub(super) fn leave(&self, line: u64, stop: &(dyn Fn() -> bool + Sync)) -> Leave {
        let mut s = self.lock();
        while s.held && !stop() {
            let wait = self.decided.wait_timeout(s, Duration::from_millis(10));
            s = wait.unwrap_or_else(|e| e.into_inner()).0;
        }
        if let Some(cut) = s.cut {
            return Leave {
                until: cut,
                last: true,
            };
        }
        s.granted = s.granted.max(line.saturating_add(GRANT));
        // The first leave comes before the first step, after the warm-up:
        // the pace is measured from the second.
        if line > 1 {
            let now = (Instant::now(), line);
            s.first.get_or_insert(now);
            s.last = Some(now);
        }
        Leave {
            until: s.granted,
            last: false,
        }
    }

    /// The lines leaves reach so far.
    pub(super) fn granted(&self) -> u64 {
        self.lock().granted
    }

    /// The worker's pace at `now`; `None` before two leaves past its
    /// first line, or once cut.
    pub(super) fn pace(&self, now: Instant) -> Option<Pace> {
        let s = self.lock();
        let ((t0, l0), (t1, l1)) = (s.first?, s.last?);
        let secs = t1.saturating_duration_since(t0).as_secs_f64();
        if s.cut.is_some() || l1 <= l0 || secs <= 0.0 {
            return None;
        }
        let rate = (l1 - l0) as f64 / secs;
        let at = l1 as f64 + rate * now.saturating_duration_since(t1).as_secs_f64();
        Some(Pace {
            rate,
            at,
            granted: s.granted,
        })
    }

    /// Whether the segment was cut.
    pub(super) fn is_cut(&self) -> bool {
        self.lock().cut.is_some()
    }

    /// Cuts at `line` (1-based in the segment) if no leave reaches it and
    /// no cut was made: whether it did.
    pub(super) fn cut_at(&self, line: u64) -> bool {
        let mut s = self.lock();
        let done = s.cut.is_none() && line >= s.granted;
        if done {
            s.cut = Some(line);
        }
        s.held = false;
        self.decided.notify_all();
        done
    }

    /// Lets a held worker go on, uncut.
    pub(super) fn release(&self) {
        self.lock().held = false;
        self.decided.notify_all();
    }
}

/// The line (1-based in a segment of `lines` lines) at which to cut the
/// segment whose worker may have stepped the lines before `granted`, for
/// a free worker whose warm-up over the lines before the cut costs
/// `share` of stepping them: the worker's steps up to the cut as many as
/// the free one's warm-up and steps after it. `None` when that spares the
/// worker too little.
pub(super) fn take_over_line(granted: u64, lines: u64, share: f64) -> Option<u64> {
    if !(0.0..1.0).contains(&share) || granted >= lines {
        return None;
    }
    // `cut - granted = share * cut + (lines - cut)`.
    let cut = ((lines + granted) as f64 / (2.0 - share)).ceil() as u64;
    let cut = cut.max(granted.max(1));
    spares(cut, lines).then_some(cut)
}

/// The line (1-based in a segment of `lines` lines) at which to cut the
/// segment whose worker goes at `pace`, for a fresh worker (one whose
/// thread is free: a later segment's ended) whose warm-up up to the cut
/// (a compacted one, from the empty state: [`super::compact`]) takes
/// `before + per_line * cut` seconds (`warm`: the file before the
/// segment, and each line of it read): both end together, `(cut - at) /
/// rate = before + per_line * cut + (lines - cut) / rate` (the fresh
/// worker steps as fast). `None` when that spares the worker too little.
pub(super) fn relief_line(pace: &Pace, lines: u64, (before, per_line): (f64, f64)) -> Option<u64> {
    let share = per_line * pace.rate;
    if !(pace.rate > 0.0 && before >= 0.0 && (0.0..1.0).contains(&share) && pace.at.is_finite()) {
        return None;
    }
    let cut = ((lines as f64 + pace.at.max(0.0) + before * pace.rate) / (2.0 - share)).ceil();
    let cut = (cut.min(lines as f64) as u64).max(pace.granted.max(1));
    spares(cut, lines).then_some(cut)
}

/// Whether a cut at `cut` spares enough of a segment of `lines` lines.
fn spares(cut: u64, lines: u64) -> bool {
    let spared = lines.saturating_sub(cut);
    spared >= MIN_SPARED && spared as f64 >= MIN_SPARED_SHARE * lines as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_falls_where_both_workers_end_together() {
        // Nothing stepped yet, a warm-up free: the middle.
        assert_eq!(take_over_line(0, 100_000, 0.0), Some(50_000));
        // Half stepped, a warm-up at a fifth of the cost of stepping: the
        // worker steps `c - 50,000`, the other `0.2 c + 100,000 - c`.
        let c = take_over_line(50_000, 100_000, 0.2).expect("a cut");
        assert_eq!(c, 83_334);
        let (worker, free) = (c - 50_000, 0.2 * c as f64 + (100_000 - c) as f64);
        assert!((worker as f64 - free).abs() < 2.0, "{worker} {free}");
        // Too little left to spare, or a warm-up as dear as stepping.
        assert_eq!(take_over_line(90_000, 100_000, 0.2), None);
        assert_eq!(take_over_line(0, 6_000, 0.0), None);
        assert_eq!(take_over_line(0, 100_000, 1.0), None);
        assert_eq!(take_over_line(100_000, 100_000, 0.0), None);
    }

    #[test]
    fn a_relief_cut_falls_where_both_workers_end_together() {
        // A worker at line 20,000 of 200,000, 100,000 lines a second; a
        // fresh worker whose warm-up takes 0.4 s: both take 1.1 s more.
        let pace = Pace { rate: 100_000.0, at: 20_000.0, granted: 24_577 };
        assert_eq!(relief_line(&pace, 200_000, (0.4, 0.0)), Some(130_000));
        // 0.2 s for the file before the segment, and a tenth of a step
        // for each line of it up to the cut: both take 1.063 s more.
        let cut = relief_line(&pace, 200_000, (0.2, 1e-6)).expect("a cut");
        assert_eq!(cut, 126_316);
        let (worker, fresh) = ((cut - 20_000) as f64 / 1e5, 0.2 + 1e-6 * cut as f64 + (200_000 - cut) as f64 / 1e5);
        assert!((worker - fresh).abs() < 1e-4, "{worker} {fresh}");
        // A warm-up about as long as the rest, or reading slower than
        // stepping: too little spared, or never.
        assert_eq!(relief_line(&pace, 200_000, (1.7, 0.0)), None);
        assert_eq!(relief_line(&pace, 200_000, (0.0, 1e-5)), None);
        // Not within the leaves given: at their end.
        let ahead = Pace { rate: 1e9, at: 100.0, granted: 150_000 };
        assert_eq!(relief_line(&ahead, 200_000, (0.0, 0.0)), Some(150_000));
        // No pace measured.
        let still = Pace { rate: 0.0, at: 0.0, granted: 0 };
        assert_eq!(relief_line(&still, 200_000, (0.0, 0.0)), None);
    }

    #[test]
    fn a_pace_is_measured_from_the_leaves_after_the_first() {
        let never = || false;
        let cut = Cut::default();
        cut.leave(1, &never);
        assert_eq!(cut.pace(Instant::now()), None, "no step yet");
        cut.leave(1 + GRANT, &never);
        assert_eq!(cut.pace(Instant::now()), None, "one leave timed");
        std::thread::sleep(Duration::from_millis(20));
        cut.leave(1 + 2 * GRANT, &never);
        let pace = cut.pace(Instant::now()).expect("two leaves timed");
        // GRANT lines in 20 ms or more (and not much more).
        assert!(pace.rate <= GRANT as f64 / 0.02 && pace.rate > 0.0, "{pace:?}");
        assert!(pace.at >= (1 + 2 * GRANT) as f64, "{pace:?}");
        assert_eq!(pace.granted, 1 + 3 * GRANT);
        assert!(cut.cut_at(10 * GRANT));
        assert!(cut.is_cut());
        assert_eq!(cut.pace(Instant::now()), None, "cut");
    }

    #[test]
    fn a_cut_is_made_only_beyond_the_leaves_given() {
        let never = || false;
        let cut = Cut::default();
        let first = cut.leave(1, &never);
        assert_eq!((first.until, first.last), (1 + GRANT, false));
        assert_eq!(cut.granted(), 1 + GRANT);
        // Within the leave: refused; the worker goes on as it was.
        assert!(!cut.cut_at(GRANT));
        assert_eq!(cut.leave(1 + GRANT, &never).until, 1 + 2 * GRANT);
        // Beyond it: the worker's next leave ends at the cut, for good.
        assert!(cut.cut_at(5 * GRANT));
        let last = cut.leave(1 + 2 * GRANT, &never);
        assert_eq!(last, Leave { until: 5 * GRANT, last: true });
        assert!(!cut.cut_at(6 * GRANT), "one cut");
    }

    #[test]
    fn a_held_worker_waits_for_the_decision() {
        let cut = std::sync::Arc::new(Cut::held());
        let worker = {
            let cut = cut.clone();
            std::thread::spawn(move || cut.leave(1, &|| false))
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(!worker.is_finished(), "it waits");
        assert!(cut.cut_at(100));
        let leave = worker.join().expect("no panic");
        assert_eq!(leave, Leave { until: 100, last: true });
        // Released uncut: its leaves go on.
        let free = Cut::held();
        free.release();
        assert!(!free.leave(1, &|| false).last);
    }
}
