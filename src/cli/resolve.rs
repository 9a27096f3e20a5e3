//! What a `hindsight run` command line asks for, resolved before anything is
//! read: the engine, the session's options and where the report goes.
//!
//! Every spelling of one request resolves alike (`--json`, `--report json`,
//! `--output json`, `-o json`; `--skip-bad-lines` and `--on-error skip`;
//! `--prop` and `--property`; `-o -` and no `-o`; `--timed` and a `.timed.`
//! file name; `--mfotl` and a `.mfotl` name; a default spelled out and left
//! out), so it runs on the same engine: the tests below compare the
//! resolutions of every such pair.

use std::io::{self, IsTerminal};
use std::path::Path;

use crate::report::OutputFormat;
use crate::runtime::MonitorOptions;
use crate::session::{OnError, SessionOptions, small_trace};
use crate::trace::{TraceOptions, timed_by_name};

use super::args::RunOptions;
use super::target::{self, Target};

/// The engine a run takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// One monitor, event after event.
    Sequential,
    /// [`crate::session::Session::run_parallel_file`] on this many threads.
    Parallel(usize),
    /// `--cluster`: Timely Dataflow workers.
    #[cfg(feature = "cluster")]
    Cluster,
}

/// A `hindsight run` command line, resolved.
#[derive(Debug)]
pub struct Resolved<'a> {
    /// The trace file; `None` for standard input (no trace, or `-`).
    pub trace: Option<&'a Path>,
    /// The session's options (its `time_decimals` are the option's; loading
    /// the specification may raise them).
    pub session: SessionOptions,
    /// The report's format and file.
    pub target: Target,
    /// The engine.
    pub engine: Engine,
}

/// Resolves `opts` for the specification `spec` and the trace `trace`;
/// `cores` is the number of threads when `--jobs` is not given.
pub fn resolve<'a>(
    spec: &Path,
    trace: Option<&'a Path>,
    opts: &RunOptions,
    cores: usize,
) -> Resolved<'a> {
    let trace = trace.filter(|t| *t != Path::new("-"));
    let satisfactions = opts.mfotl.reports_satisfactions(spec);
    let timed = opts.timed || trace.is_some_and(timed_by_name);
    let target = target::target(
        matches!(opts.report, OutputFormat::Json),
        opts.json,
        opts.output.as_deref(),
    );
    let session = session_options(opts, timed, satisfactions);
    let mfotl = opts.mfotl.is_mfotl(spec);
    let engine = engine(trace, opts, &session, mfotl, cores);
    let session = SessionOptions {
        jobs: match engine {
            Engine::Parallel(jobs) => jobs,
            _ => 1,
        },
        ..session
    };
    Resolved {
        trace,
        session,
        target,
        engine,
    }
}

/// The session's options from the command line's (one job).
fn session_options(opts: &RunOptions, timed: bool, satisfactions: bool) -> SessionOptions {
    SessionOptions {
        time_decimals: opts.time_decimals.unwrap_or(0),
        monitor: MonitorOptions {
            start_bits: opts.bits,
            strict_time: opts.strict_time,
            gc: opts.gc,
            bdd: opts.bdd,
            ..MonitorOptions::default()
        },
        trace: TraceOptions {
            timed,
            format: opts.format,
        },
        time_field: opts.time_field.clone(),
        max_event_size: opts.max_event_size,
        strict: opts.strict,
        on_error: if opts.skip_bad_lines {
            OnError::Skip
        } else {
            opts.on_error
        },
        max_skipped: opts.max_skipped,
        timepoints: opts.timepoints,
        event_steps: opts.mfotl.event_steps,
        end_of_trace: opts.end_of_trace,
        witness: opts.users.witness,
        witness_at: None,
        until: None,
        all_witnesses: if opts.users.all_witnesses {
            usize::try_from(opts.users.max_witnesses).unwrap_or(usize::MAX)
        } else {
            0
        },
        satisfactions,
        stop_at_first: opts.stop_at_first,
        jobs: 1,
        segments: opts.segments,
    }
}

/// The engine: `--cluster`; else the parallel one when more than one job
/// is asked for (by `--jobs`, or `cores`) on a trace that is not a
/// terminal (a file or a pipe, named or as standard input: a stream is
/// read in blocks that end where it waits) and nothing
/// needs the sequential engine: the options the session refuses
/// ([`SessionOptions::sequential_only`]: satisfactions, a witness at one
/// event, reading up to an event), an MFOTL specification
/// (`mfotl`: its trace is read against the signature) unless its trace is
/// a named file, which the session may cut into time segments; a small
/// trace file ([`crate::session::SMALL_TRACE_BYTES`]) unless `--jobs` is given. (With
/// witnesses the session takes the sequential engine itself where the
/// properties need it, and with `--timepoints` or MFOTL where the trace is
/// a MonPoly log that time segments do not suit.)
/// Decided on the resolved options only, never on how they were spelled.
fn engine(
    trace: Option<&Path>,
    opts: &RunOptions,
    session: &SessionOptions,
    mfotl: bool,
    cores: usize,
) -> Engine {
    #[cfg(feature = "cluster")]
    if opts.cluster.enabled() {
        return Engine::Cluster;
    }
    let jobs = opts
        .jobs
        .map_or(cores, |n| usize::try_from(n).unwrap_or(usize::MAX));
    // (A trace that cannot be opened fails on the sequential path.)
    let file = match trace {
        Some(p) => std::fs::metadata(p).is_ok(),
        None => !io::stdin().is_terminal(),
    };
    // The session's own rule for its options, and what the session learns
    // later: an MFOTL signature. An MFOTL run on a named file
    // (its satisfactions too) may be cut into time segments: the session
    // decides on the log (docs/PARALLEL.md, *Time segments of a MonPoly
    // log*).
    let mfotl_file =
        mfotl && trace.is_some() && session.witness_at.is_none() && session.until.is_none();
    let sequential_only = !mfotl_file && (session.sequential_only().is_some() || mfotl);
    let small = opts.jobs.is_none() && trace.is_some_and(small_trace);
    if jobs > 1 && file && !sequential_only && !small {
        Engine::Parallel(jobs)
    } else {
        Engine::Sequential
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::Parser;

    use super::*;
    use crate::cli::args::{Cli, Command};
    use crate::session::SMALL_TRACE_BYTES;

    /// A trace file (a regular file, so that a parallel run applies), named
    /// `name`.
    fn trace_file(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hindsight-resolve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let path = dir.join(name);
        std::fs::write(&path, "open,a\n").expect("a trace file");
        path
    }

    /// `hindsight run ARGS` resolved on 4 cores, shown without the note of a
    /// former spelling (the only thing two spellings may differ in). (With
    /// HINDSIGHT_JOBS set, every spelling reads it alike.)
    fn resolved(args: &[&str]) -> String {
        with_resolved(args, |mut r| {
            r.target.note = None;
            format!("{r:?}")
        })
    }

    /// `f` of `hindsight run ARGS` resolved on 4 cores.
    fn with_resolved<T>(args: &[&str], f: impl FnOnce(Resolved<'_>) -> T) -> T {
        let argv = ["hindsight", "run"].iter().chain(args);
        let cli = Cli::try_parse_from(argv).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let Command::Run {
            spec,
            trace,
            options,
        } = cli.command
        else {
            panic!("not a run");
        };
        f(resolve(&spec, trace.as_deref(), &options, 4))
    }

    /// Asserts that every command line of `spellings` resolves as the first.
    fn same(spellings: &[&[&str]]) {
        let first = resolved(spellings[0]);
        for s in &spellings[1..] {
            assert_eq!(
                resolved(s),
                first,
                "{:?} and {:?} resolve differently",
                spellings[0],
                s
            );
        }
    }

    #[test]
    fn every_spelling_of_a_request_takes_the_same_engine() {
        let t = trace_file("t.csv");
        let t = t.to_str().expect("a UTF-8 path");
        let spellings: &[&[&[&str]]] = &[
            &[
                &["--json", "s.qtl", t],
                &["--report", "json", "s.qtl", t],
                &["--report=json", "s.qtl", t],
                &["--output", "json", "s.qtl", t],
                &["-o", "json", "s.qtl", t],
                &["--json", "--report", "json", "-o", "-", "s.qtl", t],
            ],
            &[
                &["s.qtl", t],
                &["--report", "text", "s.qtl", t],
                &["--output", "text", "s.qtl", t],
                &["-o", "-", "s.qtl", t],
            ],
            &[
                &["--skip-bad-lines", "s.qtl", t],
                &["--on-error", "skip", "s.qtl", t],
            ],
            &[
                &["--prop", "p", "s.qtl", t],
                &["--property", "p", "s.qtl", t],
            ],
            &[
                &["-j", "3", "s.qtl", t],
                &["--jobs", "3", "s.qtl", t],
                &["--jobs=3", "s.qtl", t],
            ],
            &[&["-q", "s.qtl", t], &["--quiet", "s.qtl", t]],
            &[
                &["--mfotl", "--sig", "s.sig", "f.mfotl", t],
                &["--sig", "s.sig", "f.mfotl", t],
            ],
            // Defaults spelled out (those without an environment variable).
            &[
                &["s.qtl", t],
                &[
                    "--format", "auto", "--color", "auto", "--bits", "4", "s.qtl", t,
                ],
                &[
                    "--max-event-size",
                    "16M",
                    "--time-decimals",
                    "0",
                    "s.qtl",
                    t,
                ],
                &[
                    "--max-event-size",
                    "16777216",
                    "--on-error",
                    "stop",
                    "s.qtl",
                    t,
                ],
                &[
                    "--max-witnesses",
                    "10",
                    "--profile-every",
                    "1000",
                    "s.qtl",
                    t,
                ],
            ],
        ];
        for group in spellings {
            same(group);
        }
        // `--timed` and a `.timed.` name; standard input as `-` or left out.
        let timed = trace_file("t.timed.csv");
        let timed = timed.to_str().expect("a UTF-8 path");
        let by_flag = resolved(&["--timed", "--json", "s.qtl", t]).replace(t, "TRACE");
        let by_name = resolved(&["--output", "json", "s.qtl", timed]).replace(timed, "TRACE");
        assert_eq!(by_flag, by_name);
        same(&[&["s.qtl"], &["s.qtl", "-"]]);
        // --cluster was refused with --output json, and ran with --json.
        #[cfg(feature = "cluster")]
        same(&[
            &["--cluster", "--json", "s.qtl", t],
            &["--cluster", "--output", "json", "s.qtl", t],
        ]);
    }

    #[test]
    fn the_engine_follows_the_request() {
        let t = trace_file("e.csv");
        let t = t.to_str().expect("a UTF-8 path");
        let engine = |args: &[&str]| engine_and_jobs(args).0;
        assert_eq!(engine(&["-j", "4", "s.qtl", t]), Engine::Parallel(4));
        assert_eq!(
            engine(&["--output", "json", "-j", "4", "s.qtl", t]),
            Engine::Parallel(4)
        );
        assert_eq!(
            engine(&["-o", "report.txt", "-j", "2", "s.qtl", t]),
            Engine::Parallel(2)
        );
        assert_eq!(engine(&["-j", "1", "s.qtl", t]), Engine::Sequential);
        // Standard input: parallel unless it is a terminal.
        let stdin = if io::stdin().is_terminal() {
            Engine::Sequential
        } else {
            Engine::Parallel(4)
        };
        assert_eq!(engine(&["-j", "4", "s.qtl"]), stdin);
        // Witnesses may be parallel: the session decides on the properties.
        assert_eq!(
            engine(&["-j", "4", "--witness", "s.qtl", t]),
            Engine::Parallel(4)
        );
        assert_eq!(
            engine(&["-j", "4", "--on-error", "skip", "--strict", "s.qtl", t]),
            Engine::Parallel(4)
        );
        // Time-points too: the session keeps a MonPoly log's sequential.
        assert_eq!(
            engine(&["-j", "4", "--timepoints", "s.qtl", t]),
            Engine::Parallel(4)
        );
        // An MFOTL run on a file: the session decides whether its log is
        // cut into time segments (satisfactions, and with --negate).
        assert_eq!(
            engine(&["-j", "4", "--sig", "s.sig", "f.mfotl", t]),
            Engine::Parallel(4)
        );
        assert_eq!(
            engine(&["-j", "4", "--negate", "--sig", "s.sig", "f.mfotl", t]),
            Engine::Parallel(4)
        );
        // On standard input it is sequential (read against the signature).
        assert_eq!(
            engine(&["-j", "4", "--sig", "s.sig", "f.mfotl"]),
            Engine::Sequential
        );
        assert_eq!(
            engine(&["-j", "4", "s.qtl", "no-such-file.csv"]),
            Engine::Sequential
        );
    }

    /// The engine and the session's jobs of `hindsight run ARGS`, on 4
    /// cores.
    fn engine_and_jobs(args: &[&str]) -> (Engine, usize) {
        with_resolved(args, |r| (r.engine, r.session.jobs))
    }

    /// The engine and jobs of `run ARGS s.qtl PATH`.
    fn on_file(args: &[&str], path: &Path) -> (Engine, usize) {
        let path = path.to_str().expect("a UTF-8 path");
        let all: Vec<&str> = args.iter().copied().chain(["s.qtl", path]).collect();
        engine_and_jobs(&all)
    }

    #[test]
    fn a_small_file_takes_one_thread_unless_jobs_are_asked_for() {
        let dir = std::env::temp_dir().join(format!("hindsight-small-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let write = |name: &str, head: &[u8], len: u64| {
            let mut bytes = head.to_vec();
            bytes.resize(usize::try_from(len).expect("fits"), b'\n');
            let path = dir.join(name);
            std::fs::write(&path, bytes).expect("a trace file");
            path
        };
        let under = write("under.csv", b"open,a\n", SMALL_TRACE_BYTES - 1);
        let at = write("at.csv", b"open,a\n", SMALL_TRACE_BYTES);
        // With the environment's HINDSIGHT_JOBS, `--jobs` is given. (One
        // job: no second thread reads ahead either.)
        if std::env::var_os("HINDSIGHT_JOBS").is_none() {
            assert_eq!(on_file(&[], &under), (Engine::Sequential, 1));
        }
        assert_eq!(on_file(&["-j", "4"], &under).0, Engine::Parallel(4));
        assert_eq!(on_file(&["--jobs=2"], &under).0, Engine::Parallel(2));
        assert_eq!(on_file(&[], &at).0, Engine::Parallel(4));
        // A compressed file counts sixteen times its size.
        let sixteenth = SMALL_TRACE_BYTES / 16;
        let gz_small = write("small.csv.gz", &[0x1f, 0x8b, 8, 0], sixteenth - 1);
        let gz_large = write("large.csv.gz", &[0x1f, 0x8b, 8, 0], sixteenth);
        let zst_large = write("large.csv.zst", &[0x28, 0xb5, 0x2f, 0xfd], sixteenth);
        if std::env::var_os("HINDSIGHT_JOBS").is_none() {
            assert_eq!(on_file(&[], &gz_small), (Engine::Sequential, 1));
        }
        assert_eq!(on_file(&[], &gz_large).0, Engine::Parallel(4));
        assert_eq!(on_file(&[], &zst_large).0, Engine::Parallel(4));
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
