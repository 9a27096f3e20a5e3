//! What the bindings hand to Python: violations gathered by a report, the
//! `Violation` and `Outcome` classes, the exceptions, and the loading of a
//! specification (QTL, or MFOTL with a signature).

use std::io;
use std::path::Path;

use hindsight::mfotl::MfotlError;
use hindsight::monitor::Diagnostic;
use hindsight::monitor::WitnessValue;
use hindsight::monitor::line_column;
use hindsight::session::Report;
use hindsight::session::Violation as RawViolation;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

create_exception!(
    _hindsight,
    SpecError,
    PyValueError,
    "A specification that is not well-formed: `.line`, `.column` (1-based) and `.message` \
     of its first error; `str()` shows every diagnostic as `hindsight check` does."
);
create_exception!(
    _hindsight,
    TraceError,
    PyValueError,
    "Bad input in a trace or an event the monitor refused: `.line`, `.column` (1-based, \
     `None` when unknown) and `.message`; after a run, `.outcome` holds the verdicts found \
     before it."
);

/// A violation as the report saw it, before it becomes a Python object.
#[derive(Clone, Debug)]
pub struct Found {
    pub property: usize,
    pub event: u64,
    pub line: u64,
    pub time: Option<u64>,
    pub args: Vec<String>,
    pub witness: Option<Vec<(String, Option<String>)>>,
}

/// A report that keeps the violations (and the error that ended a run).
#[derive(Default)]
pub struct Gather {
    pub found: Vec<Found>,
}

impl Report for Gather {
    fn violation(
        &mut self,
        v: &RawViolation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        self.found.push(Found {
            property: v.property,
            event: v.event,
            line: v.line,
            time: v.time,
            args: v
                .args
                .iter()
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
            witness: witness.map(|w| w.iter().map(|(k, v)| (k.clone(), v.text())).collect()),
        });
        Ok(())
    }
}

/// A property violated at an event.
#[pyclass(frozen, get_all, module = "hindsight")]
pub struct Violation {
    /// The property's name.
    pub property: String,
    /// The event's number, from 1.
    pub event: u64,
    /// The line of the trace where the event starts (a pushed event's
    /// number).
    pub line: u64,
    /// The event's time stamp, in a timed trace (else `None`).
    pub time: Option<u64>,
    /// The event's arguments.
    pub args: Py<PyTuple>,
    /// The values that falsify the property, by variable (`None` for any
    /// value not seen so far), when witnesses were asked for; else `None`.
    pub witness: Option<Py<PyDict>>,
}

#[pymethods]
impl Violation {
    fn __repr__(&self, py: Python<'_>) -> String {
        let args = self.args.bind(py).to_string();
        format!(
            "Violation(property={:?}, event={}, line={}, time={:?}, args={args})",
            self.property, self.event, self.line, self.time
        )
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<Violation>() else {
            return Ok(false);
        };
        let o = o.get();
        Ok(self.property == o.property
            && self.event == o.event
            && self.line == o.line
            && self.time == o.time
            && self.args.bind(py).eq(o.args.bind(py))?)
    }
}

impl Found {
    /// The Python `Violation`; `names` are the properties' names.
    pub fn to_py(&self, py: Python<'_>, names: &[String]) -> PyResult<Py<Violation>> {
        let witness = match &self.witness {
            Some(w) => {
                let d = PyDict::new(py);
                for (k, v) in w {
                    d.set_item(k, v)?;
                }
                Some(d.unbind())
            }
            None => None,
        };
        let v = Violation {
            property: names.get(self.property).cloned().unwrap_or_default(),
            event: self.event,
            line: self.line,
            time: self.time,
            args: PyTuple::new(py, &self.args)?.unbind(),
            witness,
        };
        Py::new(py, v)
    }
}

/// Violations as a Python list.
pub fn violation_list<'py>(
    py: Python<'py>,
    found: &[Found],
    names: &[String],
) -> PyResult<Bound<'py, PyList>> {
    let items = found
        .iter()
        .map(|f| f.to_py(py, names))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// An exception of type `T` with `line`, `column` and `message` set, and
/// `text` as its `str()`.
pub fn error_with<T: pyo3::PyTypeInfo>(
    py: Python<'_>,
    text: String,
    line: Option<u64>,
    column: Option<u64>,
    message: &str,
) -> PyErr {
    let err = PyErr::new::<T, _>(text);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("line", line)?;
        value.setattr("column", column)?;
        value.setattr("message", message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A `SpecError` for the diagnostics of `text` (named `label`).
pub fn spec_error(py: Python<'_>, label: &str, text: &str, diags: &[Diagnostic]) -> PyErr {
    let rendered: String = diags.iter().map(|d| d.render(label, text)).collect();
    let first = diags.iter().find(|d| d.is_error()).or(diags.first());
    match first {
        Some(d) => {
            let (line, column) = line_column(text.as_bytes(), d.span.start);
            error_with::<SpecError>(
                py,
                rendered.trim_end().to_owned(),
                Some(line as u64),
                Some(column as u64),
                &d.message,
            )
        }
        None => error_with::<SpecError>(py, rendered, None, None, "not well-formed"),
    }
}

/// A specification's text, read from `path`.
pub fn read_text(py: Python<'_>, path: &Path) -> PyResult<String> {
    std::fs::read_to_string(path).map_err(|e| {
        let _ = py;
        pyo3::exceptions::PyOSError::new_err(format!("cannot read {}: {e}", path.display()))
    })
}

/// An MFOTL error as a `SpecError`, placed in the formula or the signature.
pub fn mfotl_error(
    py: Python<'_>,
    labels: (&str, &str),
    texts: (&str, &str),
    e: &MfotlError,
) -> PyErr {
    match e {
        MfotlError::Formula(d) => spec_error(py, labels.0, texts.0, std::slice::from_ref(d)),
        MfotlError::Checks(ds) => spec_error(py, labels.0, texts.0, ds),
        MfotlError::Signature(d) => spec_error(py, labels.1, texts.1, std::slice::from_ref(d)),
    }
}
