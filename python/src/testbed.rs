//! `hindsight.equiv` and `hindsight.gen`, on the library's testbed.

use std::path::PathBuf;

use hindsight::testbed::Spec;
use hindsight::testbed::equiv::{EquivOptions, equiv as search};
use hindsight::testbed::generate::{Events, GenOptions};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::SpecSource;
use crate::found::{SpecError, error_with, mfotl_error, spec_error};

/// The answer of `hindsight.equiv`.
#[pyclass(frozen, get_all, module = "hindsight")]
pub struct Equivalence {
    /// Whether no distinguishing trace was found.
    pub equivalent: bool,
    /// The shortest distinguishing trace found: a list of events
    /// `(name, *args)`; empty when equivalent.
    pub trace: Py<PyList>,
    /// At each event of `trace`, the paired properties violated on each
    /// side: a pair of lists of names.
    pub verdicts: Py<PyList>,
    /// At each event of `trace`, the paired properties left undecided on
    /// each side (future operators; the trace is closed at its end, so in
    /// practice none).
    pub undecided: Py<PyList>,
    /// What was searched: `length`, `events`, `values`, `traces`,
    /// `random`, `random_length`, `seed`.
    pub searched: Py<PyDict>,
}

#[pymethods]
impl Equivalence {
    fn __bool__(&self) -> bool {
        self.equivalent
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Equivalence(equivalent={}, trace={})",
            if self.equivalent { "True" } else { "False" },
            self.trace.bind(py)
        )
    }
}

/// A testbed specification from a path (MFOTL, as `run` decides, with a
/// signature).
fn load(
    py: Python<'_>,
    path: &std::path::Path,
    sig: Option<&std::path::Path>,
    mfotl: bool,
    negate: bool,
) -> PyResult<Spec> {
    let source = SpecSource::from_path(py, path, sig, mfotl, negate)?;
    match &source.signature {
        Some((sig_label, sig_text)) => {
            Spec::mfotl(&source.label, &source.text, sig_text, source.reading).map_err(|e| {
                mfotl_error(py, (&source.label, sig_label), (&source.text, sig_text), &e)
            })
        }
        None => Spec::qtl(&source.label, &source.text)
            .map_err(|ds| spec_error(py, &source.label, &source.text, &ds)),
    }
}

/// Searches for a trace on which the specifications at `a` and `b` give
/// different verdicts (see `hindsight equiv`); the GIL is released while
/// it searches.
#[pyfunction]
#[pyo3(signature = (a, b, *, sig=None, mfotl=false, negate=false, length=4, values=2, random=1000,
    random_length=20, seed=0))]
#[allow(clippy::too_many_arguments)]
pub fn equiv(
    py: Python<'_>,
    a: PathBuf,
    b: PathBuf,
    sig: Option<PathBuf>,
    mfotl: bool,
    negate: bool,
    length: usize,
    values: usize,
    random: u64,
    random_length: usize,
    seed: u64,
) -> PyResult<Equivalence> {
    let sa = load(py, &a, sig.as_deref(), mfotl, negate)?;
    let sb = load(py, &b, sig.as_deref(), mfotl, negate)?;
    let options = EquivOptions {
        length,
        values: values.max(1),
        random,
        random_length,
        seed,
        ..EquivOptions::default()
    };
    let answer = py
        .detach(|| search(&sa, &sb, &options))
        .map_err(|e| error_with::<SpecError>(py, e.to_string(), None, None, &e.to_string()))?;
    let trace = PyList::empty(py);
    let verdicts = PyList::empty(py);
    let undecided = PyList::empty(py);
    if let Some(found) = &answer.found {
        for (ua, ub) in &found.undecided {
            undecided.append((ua.clone(), ub.clone()))?;
        }
        for ((name, args), (va, vb)) in found.trace.iter().zip(&found.verdicts) {
            let items: Vec<&str> = std::iter::once(name.as_str())
                .chain(args.iter().map(String::as_str))
                .collect();
            trace.append(PyTuple::new(py, items)?)?;
            verdicts.append((va.clone(), vb.clone()))?;
        }
    }
    let s = &answer.searched;
    let searched = PyDict::new(py);
    searched.set_item("length", s.length)?;
    searched.set_item("events", s.letters)?;
    searched.set_item("values", s.values.clone())?;
    searched.set_item("traces", s.traces)?;
    searched.set_item("random", s.random.0)?;
    searched.set_item("random_length", s.random.1)?;
    searched.set_item("seed", s.seed)?;
    Ok(Equivalence {
        equivalent: answer.found.is_none(),
        trace: trace.unbind(),
        verdicts: verdicts.unbind(),
        undecided: undecided.unbind(),
        searched: searched.unbind(),
    })
}

/// A random trace over the events of the specification at `spec` (see
/// `hindsight gen`): a list of events `(name, *args)`, with the time stamp
/// last when `timed`.
#[pyfunction]
#[pyo3(name = "gen", signature = (spec, *, sig=None, mfotl=false, events=100, values=3, seed=0, timed=false,
    max_gap=1))]
#[allow(clippy::too_many_arguments)]
pub fn gen_trace<'py>(
    py: Python<'py>,
    spec: PathBuf,
    sig: Option<PathBuf>,
    mfotl: bool,
    events: u64,
    values: usize,
    seed: u64,
    timed: bool,
    max_gap: u64,
) -> PyResult<Bound<'py, PyList>> {
    let s = load(py, &spec, sig.as_deref(), mfotl, false)?;
    let options = GenOptions {
        events,
        values: values.max(1),
        seed,
        timed,
        max_gap,
    };
    let events = Events::new(&s, &options)
        .map_err(|e| error_with::<SpecError>(py, e.to_string(), None, None, &e.to_string()))?;
    let out = PyList::empty(py);
    for (name, args, time) in events {
        let mut items: Vec<Bound<'py, PyAny>> = Vec::with_capacity(args.len() + 2);
        items.push(name.into_pyobject(py)?.into_any());
        for a in args {
            items.push(a.into_pyobject(py)?.into_any());
        }
        if timed {
            items.push(time.into_pyobject(py)?.into_any());
        }
        out.append(PyTuple::new(py, items)?)?;
    }
    Ok(out)
}
