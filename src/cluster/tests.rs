use super::parse_hosts;

#[test]
fn host_files_name_one_address_per_process() {
    let text = "# cluster\nnode1:2101\n\n  node2:2101  \nnode3:2101\n";
    assert_eq!(
        parse_hosts(text, 2).unwrap(),
        vec!["node1:2101".to_owned(), "node2:2101".to_owned()]
    );
    let short = parse_hosts("node1:2101\n", 2).unwrap_err();
    assert!(
        short.contains("2 processes need 2 addresses, the host file has 1"),
        "{short}"
    );
    let bad = parse_hosts("node1\nnode2:1\n", 2).unwrap_err();
    assert!(bad.contains("`node1` is not an address"), "{bad}");
}

use crate::parallel::tests::Steps as Handed;

/// `trace` written to a scratch file named `name`.
fn trace_file(name: &str, trace: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hindsight-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, trace).expect("write");
    path
}

/// A cluster run of `spec` on the untimed trace file `path` with
/// `workers` workers of one process, and a run of the thread pipeline
/// with as many jobs on the same layout (the planner's without a sample):
/// what each handed on and did.
fn both(
    spec: &str,
    path: &std::path::Path,
    workers: usize,
    close: bool,
) -> [(Handed, super::Outcome); 2] {
    use crate::parallel::{self, Options};
    use crate::trace::{Format, TraceOptions, TraceReader};
    let (plan, _) = crate::plan::compile_source(spec).expect("well-formed");
    let untimed = TraceOptions {
        timed: false,
        format: Format::Plain,
    };
    let reader = || TraceReader::new(std::fs::File::open(path).expect("open"), untimed);
    let options = Options {
        monitor: crate::runtime::MonitorOptions {
            step_clock: true,
            ..crate::runtime::MonitorOptions::default()
        },
        jobs: workers,
        close,
        sample: 0,
        ..Options::default()
    };
    let config = super::Config {
        workers,
        process: 0,
        hosts: Vec::new(),
        input: super::InputMode::Shared,
    };
    let source = super::Source {
        reader: reader(),
        name: "t.csv".into(),
    };
    let mut in_cluster = Handed::default();
    let ended = super::run(
        &plan,
        Some(source),
        &config,
        &options,
        Box::new(|| false),
        &mut in_cluster,
    )
    .expect("the cluster runs");
    let mut in_threads = Handed::default();
    let threads = parallel::run(&plan, reader(), &options, &|| false, &mut in_threads);
    [(in_cluster, ended.outcome), (in_threads, threads)]
}

/// Users log in and out; their accesses come in runs of one record, with
/// `tick`s between the runs.
fn sessions(n: usize) -> String {
    let mut t = String::new();
    for i in 0..n {
        let u = i % 37;
        t.push_str(&format!("login,u{u}\n"));
        for _ in 0..(i % 5) {
            t.push_str(&format!("access,u{}\n", (i * 7) % 41));
        }
        t.push_str("tick\ntick\n");
        if i % 3 == 0 {
            t.push_str(&format!("logout,u{u}\n"));
        }
    }
    t
}

#[test]
fn cluster_workers_skip_ticks_and_take_runs_of_repeats_at_once() {
    // One tick-invariant property sliced over the workers: an event of
    // another slice is a tick each worker skips, and a run of accesses
    // whose summaries stopped changing is taken at once.
    let spec = "prop logged : Forall u . access(u) -> !logout(u) S login(u)\n";
    let path = trace_file("sessions.csv", &sessions(6000));
    for workers in [2, 3] {
        let [(cluster, c), (threads, t)] = both(spec, &path, workers, false);
        assert!(!cluster.violated.is_empty());
        assert_eq!(cluster, threads, "{workers} workers");
        assert_eq!(c.stopped, None);
        assert_eq!(c.work, t.work, "the cluster's workers do the threads' work");
        let w = c.work;
        assert!(w.skipped > 0 && w.at_once > 0, "{w:?}");
        // Every event reaches every worker: stepped, skipped or at once.
        let steps = w.delivered + w.ticks + w.skipped + w.at_once;
        assert_eq!(steps, cluster.events * workers as u64, "{w:?}");
        // Slicing leaves each event to one worker as it is.
        assert!(
            w.skipped >= cluster.events * (workers as u64 - 1) / 2,
            "{w:?}"
        );
    }
}

#[test]
fn cluster_workers_merge_delayed_verdicts_and_undecided_steps() {
    // Future operators: each worker decides its slice's steps later than
    // it steps them; the merger hands each on once every worker decided
    // it, and the steps left at the end are undecided (or closed).
    let spec = "prop answered : Forall u . login(u) -> F[<=4] logout(u)\n\
                prop next : Forall u . access(u) -> X (access(u) | tick)\n";
    // It ends on a login and an access whose futures are still open.
    let trace = sessions(3000) + "login,u1\naccess,u2\n";
    let path = trace_file("future.csv", &trace);
    for close in [false, true] {
        let [(cluster, c), (threads, _)] = both(spec, &path, 2, close);
        assert_eq!(c.stopped, None);
        assert!(!cluster.violated.is_empty());
        assert_eq!(
            cluster.undecided.is_empty(),
            close,
            "{:?}",
            cluster.undecided
        );
        assert_eq!(cluster, threads, "close {close}");
        assert!(cluster.ended_at.is_some());
    }
}
