//! MFOTL on a MonPoly log, and `--timepoints` on one, in time segments
//! (`session::segments`): `--jobs 2` and `--jobs 3` print what `--jobs 1`
//! prints (standard output but for the time taken, standard error, exit
//! status), for patterns with free variables (several tuples at a
//! time-point), closed patterns, `--negate`, JSON, bad values and lines;
//! and the library's outcome says which segments were taken from their
//! workers and which the run stepped again.

use std::path::{Path, PathBuf};
use std::process::Output;

use hindsight::mfotl::Reading;
use hindsight::session::{Report, Segments, Session, SessionOptions, Violation, WitnessValue};

use super::options::split;
use super::{Rng, comparable, run, temp_dir, write};

const SIG: &str = "p(x:int)\nq(x:int, y:string)\nr(x:int)\nz(x:int)\n";

/// A MonPoly log of `n` time-points (time stamps from 0, some repeated)
/// over 12 values, with up to `most` events each; each text of `extra`
/// (by the index of its time-point) replaces its time-point when it
/// starts with `@`, else is added to its events.
fn log(n: usize, seed: u64, most: usize, extra: &[(usize, &str)]) -> String {
    let mut rng = Rng(seed | 1);
    let mut t = 0;
    let mut out = String::new();
    for i in 0..n {
        let more = extra.iter().find(|(k, _)| *k == i).map(|e| e.1);
        if let Some(line) = more.filter(|l| l.starts_with('@')) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        t += rng.below(2);
        out.push_str(&format!("@{t}"));
        out.push_str(more.unwrap_or_default());
        for _ in 0..rng.below(most + 1) {
            let x = rng.below(12);
            out.push_str(&match rng.below(7) {
                0 | 1 => format!(" p({x})"),
                2 | 3 => format!(" q({x}, s{})", rng.below(3)),
                4 | 5 => format!(" r({x})"),
                _ => format!(" z({x})"),
            });
        }
        out.push('\n');
    }
    out
}

/// `run --jobs N --sig SIG --segments always EXTRA... FORMULA LOG`.
fn mfotl(formula: &Path, sig: &Path, log: &Path, jobs: usize, extra: &[&str]) -> Output {
    let sig = sig.to_str().expect("a path");
    let args: Vec<&str> = ["--sig", sig, "--segments", "always"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    run(formula, log, jobs, &args)
}

/// Runs with `--jobs 2` and `--jobs 3` print what `--jobs 1` prints, with
/// each of `extras`; the exit status of the first.
fn same_output(formula: &Path, sig: &Path, log: &Path, extras: &[&[&str]]) -> Option<i32> {
    let mut status = None;
    for &extra in extras {
        let first = mfotl(formula, sig, log, 1, extra);
        let json = extra.contains(&"--json");
        let want = if json {
            split(&first).0
        } else {
            comparable(&first)
        };
        assert!(want.lines().count() > 3, "{extra:?}: {want}");
        for jobs in [2, 3] {
            let o = mfotl(formula, sig, log, jobs, extra);
            let got = if json { split(&o).0 } else { comparable(&o) };
            assert_eq!(got, want, "{extra:?} --jobs {jobs}");
            assert_eq!(
                o.status.code(),
                first.status.code(),
                "{extra:?} --jobs {jobs}"
            );
            assert_eq!(o.stderr, first.stderr, "{extra:?} --jobs {jobs}");
        }
        status = first.status.code();
    }
    status
}

/// A report that prints satisfactions as MonPoly does, without the event
/// each is due to (as the text report).
struct Text;

impl Report for Text {
    fn violation(
        &mut self,
        _: &Violation<'_>,
        _: Option<&[(String, WitnessValue)]>,
    ) -> std::io::Result<()> {
        Ok(())
    }
    fn satisfaction_names_event(&self) -> bool {
        false
    }
}

/// The segments of a run on `jobs` threads in time segments (`segments`):
/// `(taken, stepped again)`, `None` when the log was not cut.
fn segments_of(
    formula: &str,
    log: &Path,
    reading: Reading,
    jobs: usize,
    segments: Segments,
) -> Option<(usize, usize)> {
    let options = SessionOptions {
        jobs,
        segments,
        ..SessionOptions::default()
    };
    let session = Session::from_mfotl(formula, SIG, "f", reading, options).expect("a formula");
    let outcome = session.run_parallel_file(log, &mut Text).expect("a log");
    outcome.segments
}

fn files(dir: &Path, formula: &str, log: &str) -> (PathBuf, PathBuf, PathBuf) {
    (
        write(dir, "f.mfotl", formula),
        write(dir, "f.sig", SIG),
        write(dir, "f.log", log),
    )
}

const SINCE: &str = "q(x, y) AND (NOT r(x) SINCE p(x))";

#[test]
fn satisfactions_in_time_segments_are_the_sequential_ones() {
    let dir = temp_dir("mfotl-patterns");
    let text = log(6_000, 7, 3, &[]);
    let cases = [
        // Free variables: several tuples at a time-point.
        SINCE,
        "q(x, y) AND PREVIOUS (p(x) OR z(x))",
        // Closed: the time-points where it holds.
        "EXISTS x . r(x) AND PREVIOUS p(x)",
        "FORALL x . r(x) IMPLIES (NOT z(x) SINCE p(x))",
    ];
    for formula in cases {
        let (f, sig, trace) = files(&dir, formula, &text);
        let extras: [&[&str]; 2] = [&[], &["--json"]];
        assert_eq!(same_output(&f, &sig, &trace, &extras), Some(1), "{formula}");
        // The text report's segments are taken from their workers.
        let got = segments_of(formula, &trace, Reading::Satisfactions, 3, Segments::Always);
        assert!(
            got.is_some_and(|(taken, _)| taken >= 1),
            "{formula}: {got:?}"
        );
    }
    // Tuples sorted as MonPoly sorts them, from the segments too.
    let (f, sig, trace) = files(&dir, SINCE, &text);
    let o = mfotl(&f, &sig, &trace, 3, &[]);
    let several = comparable(&o)
        .lines()
        .filter(|l| l.matches(") (").count() >= 1)
        .count();
    assert!(several > 10, "{}", comparable(&o));
}

#[test]
fn negated_formulas_and_time_points_of_qtl_in_segments_are_the_sequential_ones() {
    let dir = temp_dir("mfotl-negate");
    let property = "FORALL x . r(x) IMPLIES (NOT z(x) SINCE p(x))";
    // With several events at a time-point, the event a violation names
    // may depend on how a monitor numbered the values: such a segment is
    // stepped again from there.
    for (most, name) in [(1, "one.log"), (3, "several.log")] {
        let text = log(6_000, 11, most, &[]);
        let (f, sig, _) = files(&dir, property, "");
        let trace = write(&dir, name, &text);
        let extras: [&[&str]; 2] = [&["--negate"], &["--negate", "--json"]];
        assert_eq!(same_output(&f, &sig, &trace, &extras), Some(1));
        let got = segments_of(property, &trace, Reading::Violations, 3, Segments::Always);
        let (taken, again) = got.expect("segments");
        if most == 1 {
            assert_eq!((taken, again), (2, 0));
        } else {
            assert!(again >= 1, "{got:?}");
        }
        // The same property in QTL, with --timepoints.
        let qtl = write(
            &dir,
            "f.qtl",
            "prop f : Forall x . r(x) -> (!z(x) S p(x))\n",
        );
        for jobs in [2, 3] {
            let args = ["--timepoints", "--segments", "always"];
            let first = run(&qtl, &trace, 1, &args);
            let o = run(&qtl, &trace, jobs, &args);
            assert_eq!(first.status.code(), Some(1));
            assert_eq!(comparable(&o), comparable(&first), "{name} --jobs {jobs}");
            assert_eq!(o.stderr, first.stderr);
        }
    }
}

#[test]
fn a_state_from_before_the_warm_up_makes_the_run_step_the_segment_itself() {
    let dir = temp_dir("mfotl-again");
    // `r(20)` only at the start: the workers' warm-ups never see it, and
    // their states differ from the true one, where 20 is once `r`.
    let mut extra = vec![(0, " r(20)")];
    extra.extend((650..6_000).step_by(700).map(|k| (k, " q(20, s2)")));
    let text = log(6_000, 5, 2, &extra);
    let formula = "q(x, y) AND NOT ONCE r(x)";
    let (f, sig, trace) = files(&dir, formula, &text);
    assert_eq!(same_output(&f, &sig, &trace, &[&[]]), Some(1));
    let got = segments_of(formula, &trace, Reading::Satisfactions, 3, Segments::Always);
    assert_eq!(got, Some((0, 2)));
}

#[test]
fn bad_values_and_lines_in_a_segment_are_the_sequential_run_s() {
    let dir = temp_dir("mfotl-bad");
    let bad = [
        (4_500, " q(lots, s1)"),
        (4_600, " unknown(3)"),
        (5_000, "@0 p(1)"),
    ];
    let text = log(6_000, 3, 2, &bad);
    let (f, sig, trace) = files(&dir, SINCE, &text);
    // The first bad line ends the run (a value that is not an int; then an
    // undeclared predicate and a time stamp that goes back: MonPoly
    // refuses all three).
    let first = mfotl(&f, &sig, &trace, 1, &[]);
    assert_eq!(first.status.code(), Some(2));
    assert!(
        super::common::stderr(&first).contains("f.log:line 4501: "),
        "{}",
        super::common::stderr(&first)
    );
    let extras: [&[&str]; 3] = [
        &[],
        &["--skip-bad-lines"],
        &["--skip-bad-lines", "--strict"],
    ];
    assert_eq!(same_output(&f, &sig, &trace, &extras), Some(2));
    let skipped = comparable(&mfotl(
        &f,
        &sig,
        &trace,
        3,
        &["--skip-bad-lines", "--strict"],
    ));
    assert!(skipped.contains("bad lines skipped: "), "{skipped}");
}

#[test]
fn quoted_values_over_lines_never_cut_a_time_point() {
    let dir = temp_dir("mfotl-quotes");
    let mut extra = Vec::new();
    for k in (100..6_000).step_by(97) {
        extra.push((k, "@5000 q(3, \"two\n@5001 lines\") # \"\n"));
    }
    let text = log(6_000, 9, 2, &extra);
    let (f, sig, trace) = files(&dir, SINCE, &text);
    assert_eq!(same_output(&f, &sig, &trace, &[&[]]), Some(1));
}

#[test]
fn a_short_log_or_a_formula_with_time_bounds_is_not_cut() {
    let dir = temp_dir("mfotl-sequential");
    let (_, _, trace) = files(&dir, SINCE, &log(6_000, 13, 2, &[]));
    // Too short to pay (by default), or asked not to.
    for segments in [Segments::Auto, Segments::Never] {
        let got = segments_of(SINCE, &trace, Reading::Satisfactions, 2, segments);
        assert_eq!(got, None, "{segments:?}");
    }
    // Time bounds are state that a snapshot does not compare.
    let bounded = "q(x, y) AND ONCE[0,5] p(x)";
    assert_eq!(
        segments_of(bounded, &trace, Reading::Satisfactions, 2, Segments::Always),
        None
    );
    let (f, sig) = (write(&dir, "bounded.mfotl", bounded), dir.join("f.sig"));
    assert_eq!(same_output(&f, &sig, &trace, &[&[]]), Some(1));
}

#[test]
fn time_points_skipped_at_the_start_leave_the_first_ones_to_the_run() {
    let dir = temp_dir("mfotl-short");
    // Eight time stamps that go back (skipped) among the first time-points:
    // with three jobs, fewer than ten are numbered in the first segment.
    let mut text = String::from("@10 p(1)\n");
    text.push_str(&"@5 p(2)\n".repeat(8));
    for k in 0..40 {
        text.push_str(&format!(
            "@{} q({}, s{}) p({})\n",
            11 + k,
            k % 5,
            k % 2,
            (k + 1) % 5
        ));
    }
    let (f, sig, trace) = files(&dir, SINCE, &text);
    let extras: [&[&str]; 2] = [&["--skip-bad-lines"], &["--skip-bad-lines", "--json"]];
    assert_eq!(same_output(&f, &sig, &trace, &extras), Some(1));
}

#[test]
fn a_worker_far_ahead_of_the_run_waits_and_a_pattern_is_not_cut_by_default() {
    let dir = temp_dir("mfotl-ahead");
    // A satisfaction at every one of 700,000 time-points (11 MB): each
    // segment's worker reports far more than it may hold before the run
    // takes it, so it waits for the run.
    let mut text = String::with_capacity(12 << 20);
    for i in 0..700_000 {
        text.push_str(&format!("@{i} p({})\n", i % 1000));
    }
    let (f, sig, trace) = files(&dir, "p(x)", &text);
    assert!(std::fs::metadata(&trace).expect("a log").len() >= 8 << 20);
    assert_eq!(same_output(&f, &sig, &trace, &[&[]]), Some(1));
    let got = segments_of("p(x)", &trace, Reading::Satisfactions, 2, Segments::Always);
    assert_eq!(got, Some((1, 0)));
    // By default a pattern's satisfactions are not cut (a worker could run
    // ahead only as far as it may hold them); its violations are.
    let got = segments_of("p(x)", &trace, Reading::Satisfactions, 2, Segments::Auto);
    assert_eq!(got, None);
    let got = segments_of("p(x)", &trace, Reading::Violations, 2, Segments::Auto);
    assert_eq!(got, Some((1, 0)));
}
