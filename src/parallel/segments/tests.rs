//! Runs in time segments whose ends are taken over ([`super::cut`]), held
//! so that every worker waits for the merger's decision on its segment:
//! the take-overs do not depend on the threads' timing.

use std::path::PathBuf;

use super::{Layout, layout, layout_compact};
use crate::parallel::Outcome;
use crate::parallel::tests::{ACCESS, busy, laid_out, sequential};

/// A file holding `text`, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("hindsight-{name}-{}.csv", std::process::id()));
        std::fs::write(&path, text).expect("write");
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The run of `spec` over the file `file` laid out as `layout`, held: its
/// violations (event number, property), its events and its outcome.
fn held_run(spec: &str, file: &TempFile, mut layout: Layout) -> (Vec<(u64, usize)>, u64, Outcome) {
    layout.held = true;
    let (out, events, outcome) = laid_out(spec, &file.0, &layout);
    (out, events, outcome.expect("no quote"))
}

/// `trace`'s layout in `jobs` segments, whose warm-ups (and take-overs)
/// skim or are compacted.
fn layouts(trace: &str, jobs: usize) -> Vec<Layout> {
    let size = trace.len() as u64;
    let mut cursor = std::io::Cursor::new(trace.as_bytes());
    let mut skimmed = layout(&mut cursor, size, jobs).expect("read").expect("a layout");
    // What a skim of the `busy` trace costs: its logins, logouts, opens
    // and closes are two thirds of its lines.
    skimmed.take_over = 0.7;
    let bounds: Vec<u64> = (0..=jobs as u64).map(|s| s * size / jobs as u64).collect();
    let compacted = layout_compact(&mut cursor, &bounds).expect("read").expect("a layout");
    vec![skimmed, compacted]
}

/// The `busy` trace of `rounds` rounds with lines inserted (`inserts`,
/// given its number of lines: each before the line of that index in it),
/// its lines, and its violations in a sequential run (more than 100).
fn busy_with(
    rounds: usize,
    inserts: impl FnOnce(usize) -> Vec<(usize, &'static str)>,
) -> (String, u64, Vec<(u64, usize)>) {
    let busy = busy(rounds);
    let mut lines: Vec<&str> = busy.lines().collect();
    let mut inserts = inserts(lines.len());
    // From the last: each index is one of the trace without them.
    inserts.sort_by_key(|i| std::cmp::Reverse(i.0));
    for (at, line) in inserts {
        lines.insert(at, line);
    }
    let trace = lines.join("\n") + "\n";
    let lines = trace.lines().count() as u64;
    let expected = sequential(ACCESS, &trace);
    assert!(expected.len() > 100, "{}", expected.len());
    (trace, lines, expected)
}

#[test]
fn the_end_of_a_segment_is_taken_over_by_the_monitor_before_it() {
    // `fz` is open at the middle (the second segment's start) and closed
    // soon after, before the cut: a take-over's warm-up, which starts from
    // the true state, must step that close.
    let (trace, lines, expected) =
        busy_with(10_000, |n| vec![(n / 2 + 500, "close,fz"), (n / 2 - 100, "open,fz")]);
    let file = TempFile::new("take-over", &trace);
    for layout in layouts(&trace, 2) {
        let compact = layout.compact;
        let (found, events, outcome) = held_run(ACCESS, &file, layout);
        assert_eq!(found, expected, "compact {compact}");
        assert_eq!(events, lines);
        assert!(outcome.stopped.is_none(), "{:?}", outcome.stopped);
        // The second segment, and its end, taken over at its start; with
        // the cheaper compacted warm-ups, the end of that in turn (25,000
        // lines cut at about 14,300, then the 10,700 left at 6,100).
        let taken = if compact { 3 } else { 2 };
        assert_eq!(outcome.segments, Some((taken, 0)), "compact {compact}");
        // Every event stepped once by a segment, plus the warm-ups'.
        let work = outcome.work;
        assert!(work.delivered + work.ticks + work.skipped + work.at_once >= lines);
    }
}

#[test]
fn the_end_of_a_segment_is_taken_over_by_a_fresh_worker_once_a_later_one_ended() {
    // `fz` is opened in the first quarter and closed after the middle of
    // the first segment, where a fresh worker relieves its worker: its
    // warm-up, from the empty state over the file before the cut, must
    // find `fz` open there.
    let (trace, lines, expected) = busy_with(10_000, |n| {
        let quarter = n / 4;
        vec![(quarter + 300, "close,fz"), (quarter / 2, "open,fz"), (quarter + 100, "access,u1,fz")]
    });
    let file = TempFile::new("relief", &trace);
    let mut compacted = layouts(&trace, 2).pop().expect("compacted");
    compacted.relieve = true;
    let (found, events, outcome) = held_run(ACCESS, &file, compacted);
    assert_eq!(found, expected);
    assert_eq!(events, lines);
    assert!(outcome.stopped.is_none(), "{:?}", outcome.stopped);
    // The relief (the first segment's second half), its end taken over
    // by the first segment's worker once it is taken (12,500 lines cut at
    // about 7,150), and the second segment: all taken.
    assert_eq!(outcome.segments, Some((3, 0)));
}

#[test]
fn a_worker_stopped_at_the_cut_reports_the_error_after_it_where_it_is() {
    // A record of the wrong arity in the last twentieth: after the cut.
    let mut trace = busy(10_000);
    let at = trace.lines().count() * 19 / 20;
    let mut lines: Vec<&str> = trace.lines().collect();
    lines.insert(at, "login,u1,u2");
    trace = lines.join("\n") + "\n";
    let file = TempFile::new("take-over-error", &trace);
    let expected = sequential(ACCESS, &trace[..trace.find("login,u1,u2").expect("there")]);
    for layout in layouts(&trace, 2) {
        let (found, events, outcome) = held_run(ACCESS, &file, layout);
        assert_eq!(found, expected);
        assert_eq!(events, at as u64);
        let stopped = format!("{:?}", outcome.stopped);
        assert!(stopped.contains(&format!("line: {}", at + 1)), "{stopped}");
        assert!(stopped.contains("Arity"), "{stopped}");
    }
}

#[test]
fn a_segment_whose_worker_is_near_its_end_is_not_cut() {
    // Three segments of about 2,500 lines: too short to spare 4,096.
    let trace = busy(3_000);
    let file = TempFile::new("no-take-over", &trace);
    let expected = sequential(ACCESS, &trace);
    for layout in layouts(&trace, 3) {
        let (found, _, outcome) = held_run(ACCESS, &file, layout);
        assert_eq!(found, expected);
        assert_eq!(outcome.segments, Some((2, 0)));
    }
}

#[test]
fn a_take_over_skims_where_the_sinces_read_older_events() {
    // `(!r(x) | P s(x)) S t(x)`: the operand at an event depends on older
    // ones, so warm-ups skim (no compaction), from the true state too.
    let spec = "prop p : Forall x . q(x) -> ((!r(x) | P s(x)) S t(x))";
    let mut trace = String::new();
    for i in 0..20_000usize {
        let x = i % 7;
        trace.push_str(&format!("t,{x}\nq,{}\n", (i + 3) % 7));
        if i % 5 == 0 {
            trace.push_str(&format!("r,{}\n", (i + 5) % 7));
        }
        if i % 11 == 0 {
            trace.push_str(&format!("s,{}\n", (i + 2) % 4));
        }
    }
    let expected = sequential(spec, &trace);
    assert!(expected.len() > 100, "{}", expected.len());
    let file = TempFile::new("take-over-skim", &trace);
    let size = trace.len() as u64;
    let mut cursor = std::io::Cursor::new(trace.as_bytes());
    let mut skimmed = layout(&mut cursor, size, 2).expect("read").expect("a layout");
    skimmed.take_over = 0.6;
    let (found, events, outcome) = held_run(spec, &file, skimmed);
    assert_eq!(found, expected);
    assert_eq!(events, trace.lines().count() as u64);
    assert_eq!(outcome.segments, Some((2, 0)));
}

#[test]
fn compacted_warm_ups_of_many_values_reach_the_true_state() {
    // 300 users and 200 files: the half before the second segment leaves
    // hundreds of last logins, logouts, opens and closes of different
    // values ([`super::compact`]); the state they reach must be the true
    // one for the segment to be taken.
    let mut trace = String::new();
    for i in 0..20_000u64 {
        let (u, f) = ((i * 7919) % 300, (i * 104_729 + i / 3) % 200);
        let line = match i % 10 {
            0 | 1 => format!("login,u{u}\n"),
            2 => format!("logout,u{u}\n"),
            3 | 4 => format!("open,f{f}\n"),
            5 => format!("close,f{f}\n"),
            _ => format!("access,u{u},f{f}\n"),
        };
        trace.push_str(&line);
    }
    let expected = sequential(ACCESS, &trace);
    assert!(expected.len() > 1000, "{}", expected.len());
    let file = TempFile::new("compact-sets", &trace);
    let size = trace.len() as u64;
    let mut cursor = std::io::Cursor::new(trace.as_bytes());
    let compacted = layout_compact(&mut cursor, &[0, size / 2, size]).expect("read").expect("a layout");
    let (found, events, outcome) = held_run(ACCESS, &file, compacted);
    assert_eq!(found, expected);
    assert_eq!(events, 20_000);
    // The second segment, and its end taken over (a warm-up from the true
    // state, compacted too): none stepped again.
    assert_eq!(outcome.segments, Some((2, 0)));
}
