//! The `hindsight` Python package's native module, `hindsight._hindsight`:
//! `run` (a specification on a trace file or bytes, the GIL released
//! while it works), `Monitor` (events pushed one by one), `equiv` and `gen`
//! (the testbed), on the library's documented API (docs/API.md). The
//! Python side (`python/hindsight/__init__.py`) adds pandas support.

mod found;
mod monitor;
mod testbed;

use std::path::{Path, PathBuf};

use hindsight::mfotl::Reading;
use hindsight::session::{
    EndOfTrace, LoadError, OnError, Outcome as RawOutcome, Session, SessionOptions, Verdict,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use found::{Gather, SpecError, TraceError, Violation, error_with};

/// The result of a run.
#[pyclass(frozen, get_all, module = "hindsight")]
pub struct Outcome {
    /// `"Satisfied"` or `"Violated"` (a run that failed raises `TraceError`,
    /// whose `.outcome` is an `Outcome` with status `"Failed"`).
    pub status: String,
    /// Every violation, in the order of the events.
    pub violations: Py<PyList>,
    /// The run's summary: `events`, `counts` (by event name), `elapsed`
    /// (seconds), `violations` (by property), `first` (first violating
    /// event by property), `undecided`, `skipped`, `gc`.
    pub summary: Py<PyDict>,
    /// The run's warnings, as text.
    pub warnings: Py<PyList>,
}

#[pymethods]
impl Outcome {
    /// The violations as a pandas DataFrame: one row per violation, with the
    /// columns `property`, `event`, `line`, `time`, `args` and `witness`.
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = py.import("pandas")?;
        let columns = ["property", "event", "line", "time", "args", "witness"];
        let rows = PyList::empty(py);
        for v in self.violations.bind(py).iter() {
            let v = v.cast::<Violation>()?.get();
            rows.append((
                &v.property,
                v.event,
                v.line,
                v.time,
                v.args.bind(py),
                v.witness.as_ref().map(|w| w.bind(py)),
            ))?;
        }
        let kwargs = PyDict::new(py);
        kwargs.set_item("columns", columns.to_vec())?;
        pandas.call_method("DataFrame", (rows,), Some(&kwargs))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Outcome(status={:?}, violations={})",
            self.status,
            self.violations.bind(py).len()
        )
    }
}

/// How a specification is read: QTL, or MFOTL with its signature.
pub struct SpecSource {
    pub text: String,
    pub label: String,
    /// The signature's label and text, for MFOTL.
    pub signature: Option<(String, String)>,
    pub reading: Reading,
}

impl SpecSource {
    /// The specification at `path`: MFOTL when its name ends in `.mfotl`
    /// or `mfotl` is set (as `hindsight run` decides), read against the
    /// signature at `sig`, which it then needs.
    pub fn from_path(
        py: Python<'_>,
        path: &Path,
        sig: Option<&Path>,
        mfotl: bool,
        negate: bool,
    ) -> PyResult<SpecSource> {
        let text = found::read_text(py, path)?;
        let mfotl = mfotl || path.extension().is_some_and(|e| e == "mfotl");
        let signature = match (mfotl, sig) {
            (true, Some(s)) => Some((s.display().to_string(), found::read_text(py, s)?)),
            (true, None) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "{} is an MFOTL specification: give its MonPoly signature with sig=",
                    path.display()
                )));
            }
            (false, _) => None,
        };
        Ok(SpecSource {
            text,
            label: path.display().to_string(),
            signature,
            reading: if negate {
                Reading::Violations
            } else {
                Reading::Satisfactions
            },
        })
    }

    /// A session for this specification.
    pub fn session(&self, py: Python<'_>, options: SessionOptions) -> PyResult<Session> {
        self.make(options).map_err(|e| self.load_error(py, e))
    }

    /// A session for this specification (without the GIL).
    pub fn make(&self, options: SessionOptions) -> Result<Session, LoadError> {
        match &self.signature {
            Some((_, sig)) => {
                let stem = Path::new(&self.label)
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
                let name = hindsight::mfotl::property_name(&stem);
                Session::from_mfotl(&self.text, sig, &name, self.reading, options)
            }
            None => Session::from_source(&self.text, options),
        }
    }

    pub fn load_error(&self, py: Python<'_>, e: LoadError) -> PyErr {
        match e {
            LoadError::Spec(ds) => found::spec_error(py, &self.label, &self.text, &ds),
            LoadError::Mfotl(m) => {
                let (sig_label, sig_text) = self.signature.clone().unwrap_or_default();
                found::mfotl_error(py, (&self.label, &sig_label), (&self.text, &sig_text), &m)
            }
            LoadError::Io(e) => pyo3::exceptions::PyOSError::new_err(e.to_string()),
            LoadError::Monitor(e) => {
                error_with::<SpecError>(py, e.to_string(), None, None, &e.to_string())
            }
        }
    }
}

/// `end_of_trace` as the library's option.
fn end_of_trace(mode: Option<&str>) -> PyResult<Option<EndOfTrace>> {
    match mode {
        None => Ok(None),
        Some("undecided") => Ok(Some(EndOfTrace::Undecided)),
        Some("close") => Ok(Some(EndOfTrace::Close)),
        Some(other) => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "end_of_trace is \"undecided\" or \"close\", not {other:?}"
        ))),
    }
}

/// The trace of a run: a file, or bytes (CSV, XML, JSON or a MonPoly log).
enum Input {
    File(PathBuf),
    Bytes(Vec<u8>),
}

/// Runs the specification at `spec` on a trace (`trace`: a path, or
/// `data`: its bytes), the GIL released while it works. See
/// `hindsight.run`.
#[pyfunction]
#[pyo3(signature = (spec, trace=None, data=None, *, sig=None, mfotl=false, negate=false, timed=false,
    witness=false, strict=false, skip_bad_lines=false, max_skipped=0.1, stop_at_first=false,
    strict_time=false, jobs=None, end_of_trace=None))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    spec: PathBuf,
    trace: Option<PathBuf>,
    data: Option<Vec<u8>>,
    sig: Option<PathBuf>,
    mfotl: bool,
    negate: bool,
    timed: bool,
    witness: bool,
    strict: bool,
    skip_bad_lines: bool,
    max_skipped: f64,
    stop_at_first: bool,
    strict_time: bool,
    jobs: Option<usize>,
    end_of_trace: Option<&str>,
) -> PyResult<Outcome> {
    let source = SpecSource::from_path(py, &spec, sig.as_deref(), mfotl, negate)?;
    let input = match (trace, data) {
        (Some(p), None) => Input::File(p),
        (None, Some(d)) => Input::Bytes(d),
        _ => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "give a trace: a path, or its bytes",
            ));
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut options = SessionOptions {
        witness,
        strict,
        stop_at_first,
        end_of_trace: self::end_of_trace(end_of_trace)?,
        on_error: if skip_bad_lines {
            OnError::Skip
        } else {
            OnError::Stop
        },
        ..SessionOptions::default()
    };
    options.trace.timed =
        timed || matches!(&input, Input::File(p) if hindsight::trace::timed_by_name(p));
    options.monitor.strict_time = strict_time;
    options.max_skipped = max_skipped;
    // The engine `hindsight run` would choose: the parallel one on a file
    // (one thread by default on a small one), whose session takes the
    // sequential engine itself where the options or the properties need it
    // (a witness the violating event does not determine, `strict` or
    // `stop_at_first` with future operators, a MonPoly log that time
    // segments do not suit).
    let default_jobs = match &input {
        Input::File(p) if hindsight::session::small_trace(p) => 1,
        _ => cores,
    };
    let jobs = jobs.unwrap_or(default_jobs).max(1);
    let parallel = jobs > 1 && matches!(input, Input::File(_));
    options.jobs = if parallel { jobs } else { 1 };
    let source_ref = &source;
    let ran = py.detach(move || {
        let session = source_ref.make(options)?;
        let names: Vec<String> = session
            .monitor()
            .property_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut gather = Gather::default();
        let outcome = match input {
            Input::File(path) if parallel => session.run_parallel_file(&path, &mut gather),
            Input::File(path) => session.run_file(&path, &mut gather),
            Input::Bytes(d) => Ok(session.run(&d[..], &mut gather)),
        };
        Ok((outcome, gather, names))
    });
    let (outcome, gather, names) = ran.map_err(|e| source.load_error(py, e))?;
    let outcome = outcome.map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    outcome_to_py(py, &outcome, &gather, &names)
}

/// The Python `Outcome` of a run, or a `TraceError` holding it.
pub fn outcome_to_py(
    py: Python<'_>,
    outcome: &RawOutcome,
    gather: &Gather,
    names: &[String],
) -> PyResult<Outcome> {
    let status = match outcome.verdict {
        Verdict::Satisfied => "Satisfied",
        Verdict::Violated => "Violated",
        Verdict::Failed => "Failed",
        Verdict::Interrupted => "Interrupted",
    };
    let summary = PyDict::new(py);
    let s = &outcome.summary;
    summary.set_item("events", s.events)?;
    summary.set_item("counts", s.counts.clone())?;
    summary.set_item("elapsed", s.elapsed.as_secs_f64())?;
    let by_prop = PyDict::new(py);
    let first = PyDict::new(py);
    for (name, p) in names.iter().zip(&outcome.properties) {
        by_prop.set_item(name, p.violations)?;
        first.set_item(name, p.first)?;
    }
    summary.set_item("violations", by_prop)?;
    summary.set_item("first", first)?;
    summary.set_item("undecided", s.undecided.0)?;
    summary.set_item("skipped", s.skipped.0)?;
    summary.set_item("gc", s.gc)?;
    summary.set_item("error", outcome.error.as_ref().map(|e| e.to_string()))?;
    let warnings: Vec<String> = outcome.warnings.iter().map(|w| w.to_string()).collect();
    let result = Outcome {
        status: status.to_owned(),
        violations: found::violation_list(py, &gather.found, names)?.unbind(),
        summary: summary.unbind(),
        warnings: PyList::new(py, warnings)?.unbind(),
    };
    match &outcome.error {
        Some(e) => {
            let column = match e {
                hindsight::session::RunError::Trace(t) => t.column,
                _ => None,
            };
            let message = match e {
                hindsight::session::RunError::Trace(t) => t.message().to_owned(),
                hindsight::session::RunError::Step { error, .. } => error.to_string(),
                other => other.to_string(),
            };
            let err = error_with::<TraceError>(py, e.to_string(), e.line(), column, &message);
            err.value(py).setattr("outcome", Py::new(py, result)?)?;
            Err(err)
        }
        None => Ok(result),
    }
}

/// The native module.
#[pymodule]
fn _hindsight(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(testbed::equiv, m)?)?;
    m.add_function(wrap_pyfunction!(testbed::gen_trace, m)?)?;
    m.add_class::<Outcome>()?;
    m.add_class::<Violation>()?;
    m.add_class::<monitor::Monitor>()?;
    m.add_class::<testbed::Equivalence>()?;
    m.add("SpecError", m.py().get_type::<SpecError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    Ok(())
}
