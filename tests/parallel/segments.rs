//! Time segments (`hindsight::parallel::segments`): for random
//! specifications and untimed traces, a run in 2-6 segments finds the
//! violations of the sequential run, whether each segment's state agreed
//! with the one before it or was stepped again; and `run --jobs N` on a
//! file split into segments prints the sequential output.

use std::path::Path;
use std::process::Output;

use hindsight::parallel::{self, segments};
use hindsight::plan::compile_source;
use hindsight::runtime::{Monitor, MonitorOptions};
use hindsight::trace::{Format, TraceOptions, TraceReader};
use proptest::prelude::*;

use super::{
    OPTIONS_SPEC, comparable, run_env, same_output_with_options, spec, temp_dir, trace, write,
};

const PLAIN: TraceOptions = TraceOptions {
    timed: false,
    format: Format::Plain,
};

/// The generator's trace without its time stamps.
fn untimed(seed: u64, len: usize) -> String {
    let timed = trace(seed, len);
    let lines = timed
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head));
    lines.map(|l| format!("{l}\n")).collect()
}

/// `(event, property)` violations, in order.
type Violations = Vec<(u64, usize)>;

/// `(event, property)` violations of the sequential run.
fn sequential(spec: &str, trace: &str) -> Violations {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let mut m = Monitor::new(plan, MonitorOptions::default()).expect("monitor");
    let mut reader = TraceReader::new(trace.as_bytes(), PLAIN);
    let mut out = Vec::new();
    while let Some(e) = reader.next_event().expect("trace") {
        let args: Vec<&[u8]> = e.args().collect();
        let violated = m.step(e.name, &args, e.time).expect("step");
        out.extend(violated.iter().map(|&p| (e.number, p)));
    }
    out
}

/// The violations of a run of `trace` (written at `path`) in `jobs`
/// segments, and its segments `(taken, stepped again)`; `None` when the
/// trace is too short to be split so.
fn in_segments(
    spec: &str,
    path: &Path,
    trace: &str,
    jobs: usize,
) -> Option<(Violations, (usize, usize))> {
    let layout = segments::layout(
        &mut std::io::Cursor::new(trace.as_bytes()),
        trace.len() as u64,
        jobs,
    )
    .expect("read")?;
    Some(run_layout(spec, path, &layout))
}

/// [`in_segments`] with compacted warm-ups (each the whole file before
/// its segment), the segments of about even lengths.
fn in_compacted_segments(
    spec: &str,
    path: &Path,
    trace: &str,
    jobs: usize,
) -> Option<(Violations, (usize, usize))> {
    let len = trace.len() as u64;
    let bounds: Vec<u64> = (0..=jobs as u64).map(|s| s * len / jobs as u64).collect();
    let mut file = std::io::Cursor::new(trace.as_bytes());
    let layout = segments::layout_compact(&mut file, &bounds).expect("read")?;
    assert!(layout.compact && layout.warm.iter().all(|&w| w == 0));
    Some(run_layout(spec, path, &layout))
}

/// The violations of a run of the file at `path` laid out as `layout`,
/// and its segments `(taken, stepped again)`.
fn run_layout(spec: &str, path: &Path, layout: &segments::Layout) -> (Violations, (usize, usize)) {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let reader = |r| TraceReader::new(r, PLAIN);
    let mut out = Vec::new();
    let outcome = segments::run(
        &plan,
        path,
        layout,
        &reader,
        &MonitorOptions::default(),
        &|| false,
        &mut |ev: &parallel::EventView<'_>, violated: &[usize]| {
            out.extend(violated.iter().map(|&p| (ev.number, p)));
            true
        },
    );
    let outcome = outcome.expect("no quote");
    assert!(outcome.stopped.is_none(), "{outcome:?}");
    (out, outcome.segments.expect("segments"))
}

/// A random specification whose sinces read only the event at hand
/// (intervals, `P`, `H` and `S` of atoms and their Boolean
/// combinations, under `@`, `!` and connectives), guarded by an event:
/// one a compacted warm-up applies to.
fn compact_spec(seed: u64) -> String {
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut below = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    // False at a step where no atom matches: atoms, `&` and `|` of them.
    let atoms = [
        "p(x)",
        "s(x)",
        "r",
        "q(x, x)",
        "Exists y . q(x, y)",
        "q(\"1\", x)",
        "Exists y . (q(x, y) & !q(y, x))",
        "Exists y . (q(y, x) & !s(y))",
    ];
    let positive = |below: &mut dyn FnMut(u64) -> u64| -> String {
        let a = atoms[below(atoms.len() as u64) as usize];
        match below(4) {
            0 => format!("({a}) | ({})", atoms[below(atoms.len() as u64) as usize]),
            1 => format!("({a}) & ({})", atoms[below(atoms.len() as u64) as usize]),
            _ => a.to_owned(),
        }
    };
    let mut parts = Vec::new();
    for _ in 0..1 + below(3) {
        let (a, b) = (positive(&mut below), positive(&mut below));
        let since = match below(5) {
            0 => format!("[{a}, {b})"),
            1 => format!("P ({a})"),
            2 => format!("H (!({a}))"),
            3 => format!("(!({b}) | {a}) S ({a})"),
            _ => format!("(!({b})) S ({a})"),
        };
        parts.push(match below(3) {
            0 => format!("@ ({since})"),
            1 => format!("!({since})"),
            _ => since,
        });
    }
    let ops = ["&", "|", "->"];
    let body = (parts.iter().skip(1)).fold(parts[0].clone(), |acc, p| {
        format!("({acc}) {} ({p})", ops[below(3) as usize])
    });
    let guard = ["p", "s"][below(2) as usize];
    format!("pred p(a), q(a, b), r, s(a)\nprop c : Forall x . ({guard}(x) -> ({body}))\n")
}

/// Whether a compacted warm-up reaches the true state for `spec`.
fn compactable(spec: &str) -> bool {
    let (plan, _) = compile_source(spec).expect("well-formed");
    segments::compactable(&plan)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn segments_find_the_sequential_violations(seed in any::<u64>(), tseed in any::<u64>(), len in 0usize..300) {
        let spec = spec(seed);
        let trace = untimed(tseed, len);
        let dir = temp_dir("segments-prop");
        let path = write(&dir, &format!("{tseed}-{len}.csv"), &trace);
        let expected = sequential(&spec, &trace);
        for jobs in 2..=6 {
            if let Some((found, _)) = in_segments(&spec, &path, &trace, jobs) {
                prop_assert_eq!(&found, &expected, "jobs {}\n{}\n{}", jobs, spec, trace);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A compacted warm-up steps only each state record's last occurrence
    /// before its segment, and reaches the state of the run from the
    /// start: every segment is taken, none stepped again.
    #[test]
    fn compacted_warm_ups_reach_the_true_state(seed in any::<u64>(), tseed in any::<u64>(), len in 0usize..300) {
        let spec = compact_spec(seed);
        prop_assert!(compactable(&spec), "{}", spec);
        let trace = untimed(tseed, len);
        let dir = temp_dir("segments-compact");
        let path = write(&dir, &format!("{tseed}-{len}.csv"), &trace);
        let expected = sequential(&spec, &trace);
        for jobs in 2..=5 {
            if let Some((found, (_, again))) = in_compacted_segments(&spec, &path, &trace, jobs) {
                prop_assert_eq!(&found, &expected, "jobs {}\n{}\n{}", jobs, spec, trace);
                prop_assert_eq!(again, 0, "jobs {}\n{}\n{}", jobs, spec, trace);
            }
        }
    }
}

#[test]
fn random_specifications_are_often_compactable_and_nested_sinces_are_not() {
    let n = (0..100).filter(|&seed| compactable(&spec(seed))).count();
    assert!(n >= 5, "{n} of 100 compactable");
    // Tick invariant, but the operand of the outer since reads a since: its
    // value at an event is not the event's alone.
    assert!(!compactable(
        "prop p : Forall x . q(x) -> ((!r(x) | P s(x)) S t(x))"
    ));
    assert!(compactable(
        "prop p : Forall x . q(x) -> ((!r(x) | Exists y . s(x, y)) S t(x))"
    ));
    assert!(compactable(
        "prop p : Forall f . close(f) -> Exists m . @ [open(f, m), close(f))"
    ));
    // Not tick invariant.
    assert!(!compactable("prop p : Forall x . q(x) -> (r(x) S t(x))"));
}

#[test]
fn a_compacted_warm_up_steps_each_records_last_occurrence_in_order() {
    // Before the second segment, user 5 logs in and out many times and
    // ends logged in; user 6 ends logged out; 7 logs in once, at the
    // start. Fields with blanks, CRLF line ends and a blank line, as the
    // CSV reader reads them. Compacted, the warm-up steps `login,5` after
    // `logout,5`, as they last came, and the segment is taken; in the
    // wrong order, user 5 would be logged out and the segment stepped
    // again.
    let spec = "prop p : Forall u . access(u) -> @ [login(u), logout(u))";
    let mut trace = String::from(" login , 7\r\n\r\n");
    for _ in 0..100 {
        trace.push_str("login,5\r\nlogin,6\r\naccess,7\r\nlogout,5\r\nlogout,6\r\n");
    }
    trace.push_str("login,5\r\naccess,5\r\n");
    let half = trace.len();
    for _ in 0..100 {
        trace.push_str("access,5\r\naccess,7\r\n");
    }
    trace.push_str("access,6\r\n");
    let dir = temp_dir("segments-compact-order");
    let path = write(&dir, "trace.csv", &trace);
    let expected = sequential(spec, &trace);
    // Only user 6's last access: event 1 + 500 + 2 + 200 + 1.
    assert_eq!(expected, vec![(704, 0)]);
    let bounds = [0, half as u64, trace.len() as u64];
    let mut file = std::io::Cursor::new(trace.as_bytes());
    let layout = segments::layout_compact(&mut file, &bounds)
        .expect("read")
        .expect("a layout");
    assert_eq!(layout.bounds[1], half as u64);
    let (found, tally) = run_layout(spec, &path, &layout);
    assert_eq!(found, expected);
    assert_eq!(tally, (1, 0), "the second segment is taken");
}

#[test]
fn random_runs_take_some_segments_and_step_others_again() {
    let dir = temp_dir("segments-count");
    let (mut taken, mut again) = (0, 0);
    for seed in 0..40 {
        let (spec, trace) = (spec(seed), untimed(seed + 1000, 300));
        let path = write(&dir, &format!("{seed}.csv"), &trace);
        let expected = sequential(&spec, &trace);
        let (found, (t, a)) = in_segments(&spec, &path, &trace, 3).expect("a layout");
        assert_eq!(found, expected, "seed {seed}");
        taken += t;
        again += a;
    }
    assert!(
        taken >= 10 && again >= 10,
        "{taken} taken, {again} stepped again"
    );
}

fn run(spec: &Path, trace: &Path, jobs: usize) -> Output {
    run_with(spec, trace, jobs, &[])
}

/// `run --jobs=JOBS EXTRA... SPEC TRACE`, splitting any trace that can be.
fn run_with(spec: &Path, trace: &Path, jobs: usize, extra: &[&str]) -> Output {
    let mut args = vec!["--segments=always"];
    args.extend_from_slice(extra);
    run_env(spec, trace, jobs, &args, &[])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn jobs_print_the_sequential_output_in_segments(seed in any::<u64>(), tseed in any::<u64>(), len in 0usize..300) {
        let dir = temp_dir("segments-bin");
        let spec_path = write(&dir, &format!("{seed}.qtl"), &spec(seed));
        let trace_path = write(&dir, &format!("{tseed}-{len}.csv"), &untimed(tseed, len));
        let first = run(&spec_path, &trace_path, 1);
        for jobs in 2..=8 {
            let o = run(&spec_path, &trace_path, jobs);
            prop_assert_eq!(o.status.code(), first.status.code());
            prop_assert_eq!(comparable(&o), comparable(&first), "jobs {}", jobs);
            prop_assert_eq!(String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&first.stderr));
        }
    }
}

#[test]
fn options_that_end_or_shape_the_output_give_the_sequential_output_in_segments() {
    let dir = temp_dir("segments-options");
    let spec = write(&dir, "spec.qtl", OPTIONS_SPEC);
    let mut text = "close,a\n".repeat(3);
    for i in 0..200 {
        text.push_str(&format!(
            "open,v{}\nclose,v{}\nclose,v{}\n",
            i % 7,
            i % 7,
            i % 5
        ));
    }
    text.push_str("close,a,x\nopen,b\n");
    let trace = write(&dir, "trace.csv", &text);
    let extras: [&[&str]; 6] = [
        &["--stop-at-first"],
        &[],
        &["--max-violations", "3"],
        &["--json"],
        &["--quiet"],
        &["--prop", "once", "--prop", "any"],
    ];
    same_output_with_options(&spec, &trace, &extras, &run_with);
}

#[test]
fn a_file_with_quotes_is_not_split_in_segments_and_gives_the_sequential_output() {
    let dir = temp_dir("segments-quotes");
    let spec = write(
        &dir,
        "spec.qtl",
        "prop open : Forall f . close(f) -> @ (!close(f) S open(f))\n",
    );
    // A quoted value with a line end in it, about where a bound would be.
    let mut text = String::new();
    for i in 0..400 {
        if i == 200 {
            text.push_str("open,\"x\ny\"\nclose,\"x\ny\"\nclose,\"x\ny\"\n");
        }
        text.push_str(&format!(
            "open,v{}\nclose,v{}\nclose,v{}\n",
            i % 7,
            i % 7,
            i % 5
        ));
    }
    let trace = write(&dir, "trace.csv", &text);
    let first = run(&spec, &trace, 1);
    assert_eq!(first.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&first.stdout).contains("close(x\\ny)"));
    for jobs in [2, 3, 4] {
        let o = run(&spec, &trace, jobs);
        assert_eq!(o.status.code(), first.status.code());
        assert_eq!(comparable(&o), comparable(&first), "jobs {jobs}");
    }
}

/// The blocks of `trace` as a parallel run reads them for `plan`.
fn blocks_of(
    plan: &hindsight::plan::Plan,
    trace: &str,
) -> Vec<std::sync::Arc<parallel::block::Block>> {
    let names = parallel::read::names(plan);
    let stop = || false;
    let reader = TraceReader::new(trace.as_bytes(), PLAIN);
    let mut source = parallel::read::Blocks::new(reader, &names, &stop);
    std::iter::from_fn(|| source.next_block().map(std::sync::Arc::new)).collect()
}

#[test]
fn the_warm_up_grows_with_the_values_whose_state_it_must_see_again() {
    let (plan, _) = compile_source("prop p : Forall u . access(u) -> [login(u), logout(u))")
        .expect("well-formed");
    // Each of `users` users logs in, accesses and logs out in turn, 100
    // times. A login and a logout of a user both set the state of
    // `[login(u), logout(u))` for it: seeing either is seeing the user
    // again, so its `users` values come at a rate of 2 / (3 * users) per
    // event, and the chance of missing one is users * exp(-2 w / (3 *
    // users)), at most 1% from w = 1.5 * users * ln(100 * users) on (to
    // within a hundredth of the sample).
    let warm_up = |users: usize| {
        let mut trace = String::new();
        for _ in 0..100 {
            for u in 0..users {
                trace.push_str(&format!("login,{u}\naccess,{u}\nlogout,{u}\n"));
            }
        }
        let sample = blocks_of(&plan, &trace);
        segments::warm_up_events(&plan, &sample).expect("tick invariant")
    };
    for users in [10, 40] {
        let exact = 1.5 * users as f64 * (100.0 * users as f64).ln();
        let sample = 300 * users;
        let w = warm_up(users);
        assert!(
            w as f64 >= exact && (w as f64) <= exact + (sample / 100) as f64 + 1.0,
            "{users} users: {w} events, {exact:.0} expected"
        );
    }
    // Two summaries of `u`, each set by its own events: a user must be
    // seen again by each (logins and `ok`s are two classes of `users`
    // values, each at a rate of 1 / (3 * users) per event: the chance of
    // missing one is 2 * users * exp(-w / (3 * users))).
    let (plan, _) = compile_source("prop p : Forall u . access(u) -> (P login(u) & P ok(u))")
        .expect("well-formed");
    let users = 40;
    let mut trace = String::new();
    for _ in 0..100 {
        for u in 0..users {
            trace.push_str(&format!("login,{u}\naccess,{u}\nok,{u}\n"));
        }
    }
    let w = segments::warm_up_events(&plan, &blocks_of(&plan, &trace)).expect("tick invariant");
    let exact = 3.0 * users as f64 * (200.0 * users as f64).ln();
    let slack = (300 * users / 100) as f64 + 1.0;
    assert!(
        w as f64 >= exact && w as f64 <= exact + slack,
        "two summaries: {w} events, {exact:.0} expected"
    );
    // A sample without state events (no login) asks for no warm-up.
    let (plan, _) =
        compile_source("prop q : Forall u . access(u) -> P login(\"a\")").expect("well-formed");
    let sample = blocks_of(&plan, "access,1\naccess,2\n");
    assert_eq!(segments::warm_up_events(&plan, &sample), Some(0));
}

#[test]
fn a_skimmed_warm_up_reads_state_records_as_the_csv_reader_does() {
    // The warm-up of the second segment skims its lines (every property is
    // tick invariant) and steps only the logins and opens, written with
    // blanks around their fields, CRLF line ends and blank lines between
    // them: read as the CSV reader reads them, they set the state the run
    // from the start reached (alice logged in, f open), and the segment
    // is taken; a skim that kept ` login ` as the name would miss them,
    // and the segment would be stepped again.
    let spec = "prop access : Forall u . Forall f . access(u, f) -> \
                [login(u), logout(u)) & [open(f), close(f))";
    let group =
        " login ,\talice \r\nopen , f\t\r\n\r\n".to_owned() + &"access, alice ,f\r\n".repeat(6);
    // 8 events a group: carol's access is event 1,201, bob's 1,602.
    let trace = group.repeat(150) + "access,carol,f\r\n" + &group.repeat(50) + "access,bob,f\r\n";
    let dir = temp_dir("segments-skim");
    let path = write(&dir, "skim.csv", &trace);
    let expected = vec![(1201, 0), (1602, 0)];
    assert_eq!(sequential(spec, &trace), expected);
    let (found, tally) = in_segments(spec, &path, &trace, 2).expect("a layout");
    assert_eq!(found, expected);
    assert_eq!(tally, (1, 0), "the second segment is taken");
}

#[test]
fn the_warm_up_of_a_property_with_rules_is_judged_on_the_first_blocks_instead() {
    // A toggle flips a channel's state for good: its state depends on
    // every toggle, which no rate tells.
    let (plan, _) = compile_source(
        "prop t : Forall x . closed(x) -> !telem(x) where closed(x) := toggle(x) <-> @!closed(x)",
    )
    .expect("well-formed");
    let sample = blocks_of(&plan, "toggle,1\ntelem,1\ntoggle,1\n");
    assert_eq!(segments::warm_up_events(&plan, &sample), None);
}

#[test]
fn a_warm_up_that_costs_less_than_stepping_lengthens_the_segments_after_the_first() {
    // 1,000 lines of 7 bytes; warm-ups of 700 bytes.
    let text: String = (0..1000).map(|i| format!("p,{i:04}\n")).collect();
    let layout = |cost: f64| {
        segments::layout_warm(
            &mut std::io::Cursor::new(text.as_bytes()),
            7000,
            2,
            700,
            cost,
        )
        .expect("read")
        .expect("a layout")
    };
    // Stepped whole, the warm-up costs as much as its bytes: the first
    // worker steps (7,000 + 700) / 2 bytes, the second 3,150 and 700 of
    // warm-up.
    let whole = layout(1.0);
    assert_eq!(whole.bounds, vec![0, 3850, 7000]);
    assert_eq!(whole.warm, vec![0, 3150]);
    // At half the cost, (7,000 + 350) / 2 bytes each.
    let half = layout(0.5);
    assert_eq!(half.bounds, vec![0, 3675, 7000]);
    assert_eq!(half.warm, vec![0, 2975]);
    // A warm-up longer than half a segment, as the values of a trace may
    // ask: 2,800 bytes stepped whole, so (7,000 + 2,800) / 2 each.
    let long = segments::layout_warm(
        &mut std::io::Cursor::new(text.as_bytes()),
        7000,
        2,
        2800,
        1.0,
    )
    .expect("read")
    .expect("a layout");
    assert_eq!(long.bounds, vec![0, 4900, 7000]);
    assert_eq!(long.warm, vec![0, 2100]);
}

#[test]
fn segments_are_taken_where_their_busiest_worker_costs_less_than_slicing_leaves_it() {
    // Sliced, the busiest of two workers steps 57.5% of the events (the
    // `gen_access.py` logs: every `open` and `close` to both user slices)
    // and reads half: 0.2 / 2 + 0.8 * 0.575 = 0.56 of a sequential run.
    let sliced = segments::sliced_cost(2, 0.575);
    assert!((sliced - 0.56).abs() < 1e-9, "{sliced}");
    // In segments of a 30 MB file, each worker has half of the file and
    // of a warm-up costing 0.44 of its bytes: a warm-up of 6 MB (a fifth)
    // costs (1 + 0.44 / 5) / 2 = 0.544 and pays; one of 9 MB, 0.566, does
    // not.
    let mb = 1 << 20;
    let short = segments::busiest_cost(30 * mb, 2, 6 * mb, 0.44);
    assert!((short - 0.544).abs() < 1e-9 && short < sliced, "{short}");
    let long = segments::busiest_cost(30 * mb, 2, 9 * mb, 0.44);
    assert!((long - 0.566).abs() < 1e-9 && long > sliced, "{long}");
    // A warm-up is at least a thirtieth of the file, as the layout makes
    // it: (1 + 1 / 30) / 2 with a warm-up stepped whole.
    let least = segments::busiest_cost(30 * mb, 2, 0, 1.0);
    assert!((least - 31.0 / 60.0).abs() < 1e-9, "{least}");
}

#[test]
fn compacted_segments_give_every_worker_as_much_with_the_comparisons() {
    // 50,000 keys, 30% state events of 14 bytes, 52% of keys stepped: the
    // shape of the `gen_access.py` log of 50,000 users, 28 MB.
    let cost = segments::CompactCost {
        population: 50_000.0,
        stepped: 0.52,
        state: 0.3,
        bytes: 14.0,
    };
    let size = 28u64 << 20;
    for jobs in [2, 3, 4] {
        let (bounds, busiest) = segments::compact_bounds(size, jobs, &cost).expect("room");
        let b: Vec<f64> = bounds.iter().map(|&b| b as f64).collect();
        // Each worker: its warm-up (none for the first), its segment, and
        // the comparison at its end (none for the last).
        let work: Vec<f64> = (0..jobs)
            .map(|s| {
                let warm = if s == 0 { 0.0 } else { cost.warm(b[s]) };
                let compare = if s + 1 < jobs {
                    cost.compare(b[s + 1])
                } else {
                    0.0
                };
                warm + b[s + 1] - b[s] + compare
            })
            .collect();
        let each = busiest * size as f64;
        for (s, w) in work.iter().enumerate() {
            assert!(
                (w - each).abs() < 0.002 * each,
                "jobs {jobs}, worker {s}: {w} of {each}"
            );
        }
        // The comparison is worth a few hundred kilobytes of the trace.
        let compare = cost.compare(b[1]);
        assert!(compare > 100_000.0 && compare < 1_000_000.0, "{compare}");
        assert_eq!(bounds[jobs], size);
    }
}

#[test]
fn a_trace_that_cannot_be_cut_goes_on_from_the_sample_read_to_decide() {
    // A JSON trace longer than the sample (32 blocks of 4,096 events):
    // read to decide on segments, which it cannot have, and then sliced
    // from the blocks read, with the sequential violations.
    let dir = temp_dir("segments-json");
    let spec = write(
        &dir,
        "spec.qtl",
        "prop open : Forall f . close(f) -> @ (!close(f) S open(f))\n",
    );
    let mut text = String::new();
    for i in 0..47_000 {
        let (a, b) = (i % 7, i % 5);
        text.push_str(&format!(
            "{{\"open\": [\"v{a}\"]}}\n{{\"close\": [\"v{a}\"]}}\n{{\"close\": [\"v{b}\"]}}\n"
        ));
    }
    let trace = write(&dir, "trace.json", &text);
    let first = run_env(&spec, &trace, 1, &[], &[]);
    assert_eq!(first.status.code(), Some(1));
    let report = String::from_utf8_lossy(&first.stdout);
    assert!(report.contains("events processed: 141000 in"), "{report}");
    assert!(report.contains("property open: 47000 violations (first at event 3)"));
    for jobs in [2, 3] {
        let o = run_with(&spec, &trace, jobs, &[]);
        assert_eq!(o.status.code(), first.status.code());
        assert_eq!(comparable(&o), comparable(&first), "jobs {jobs}");
    }
}

#[test]
fn runs_of_repeated_records_in_a_later_segment_give_the_sequential_violations() {
    // A segment's worker reads its stretch itself, a run of byte-identical
    // records at once: 5 closes of a file never opened (each violated), 100
    // opens, then 3 closes (the second and third violated), three quarters
    // into the file, so in the last segment.
    let dir = temp_dir("segments-repeats");
    let spec = write(
        &dir,
        "spec.qtl",
        "prop open : Forall f . close(f) -> @ (!close(f) S open(f))\n",
    );
    let pairs = |n: usize| -> String {
        (0..n)
            .map(|i| format!("open,v{}\nclose,v{}\n", i % 7, i % 7))
            .collect()
    };
    let mut text = pairs(450);
    text.push_str(&"close,z\n".repeat(5));
    text.push_str(&"open,y\n".repeat(100));
    text.push_str(&"close,y\n".repeat(3));
    text.push_str(&pairs(150));
    let trace = write(&dir, "trace.csv", &text);
    let first = run(&spec, &trace, 1);
    assert_eq!(first.status.code(), Some(1));
    let report = String::from_utf8_lossy(&first.stdout);
    let at: Vec<&str> = (report.lines())
        .filter_map(|l| l.strip_prefix("property open violated at event "))
        .collect();
    assert_eq!(
        at,
        [
            "901: close(z)",
            "902: close(z)",
            "903: close(z)",
            "904: close(z)",
            "905: close(z)",
            "1007: close(y)",
            "1008: close(y)"
        ]
    );
    for jobs in [2, 3, 4] {
        let o = run(&spec, &trace, jobs);
        assert_eq!(o.status.code(), first.status.code());
        assert_eq!(comparable(&o), comparable(&first), "jobs {jobs}");
    }
    // The segments are taken (their warm-ups see every file again): the
    // violations are those of the last segment's own worker.
    let spec = "prop open : Forall f . close(f) -> @ (!close(f) S open(f))";
    let (found, (taken, again)) = in_segments(spec, &trace, &text, 2).expect("a layout");
    assert_eq!((taken, again), (1, 0));
    let numbers: Vec<u64> = found.iter().map(|&(n, _)| n).collect();
    assert_eq!(numbers, [901, 902, 903, 904, 905, 1007, 1008]);
}

#[test]
fn strict_stops_at_an_unknown_event_of_a_later_segment_where_the_sequential_run_does() {
    // Counted by name, a segment's quiet events went to the merger in the
    // order their names were first seen, at the segment's first line: a
    // `--strict` run stopped at line 2069 (the second segment's start)
    // having counted 4,000 events. The known names' counts now go before
    // the unknown event, which carries its own line.
    let dir = temp_dir("segments-strict");
    let spec = write(
        &dir,
        "spec.qtl",
        "prop open : Forall f . close(f) -> @ (!close(f) S open(f))\n",
    );
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!("open,v{}\nclose,v{}\n", i % 7, i % 7));
        if i == 1500 {
            text.push_str("bogus,1\n");
        }
    }
    let trace = write(&dir, "trace.csv", &text);
    let first = run_env(&spec, &trace, 1, &["--strict"], &[]);
    assert_eq!(first.status.code(), Some(2));
    let report = String::from_utf8_lossy(&first.stdout);
    assert!(report.contains("events processed: 3002 in"), "{report}");
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(stderr.contains("line 3003: event `bogus` is not in the specification"));
    for jobs in [2, 3] {
        let o = run_with(&spec, &trace, jobs, &["--strict"]);
        assert_eq!(o.status.code(), first.status.code());
        assert_eq!(comparable(&o), comparable(&first), "jobs {jobs}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), stderr, "jobs {jobs}");
    }
}
