//! `hindsight.Monitor`: events pushed one by one (online monitoring), on
//! the library's `Session::push`.

use std::borrow::Cow;
use std::ops::ControlFlow;

use hindsight::mfotl::Misfit;
use hindsight::mfotl::Reading;
use hindsight::session::{Session, SessionOptions};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::found::{Gather, TraceError, error_with, violation_list};
use crate::{SpecSource, end_of_trace};

/// A monitor of a specification, fed one event at a time.
#[pyclass(unsendable, module = "hindsight")]
pub struct Monitor {
    /// `None` once the run has ended (an event it could not take).
    session: Option<Session>,
    names: Vec<String>,
    gather: Gather,
    /// Why the run ended, for the next step's error.
    ended: Option<String>,
    /// The events stepped before the run ended.
    stepped: u64,
}

/// An argument as text: a `str` as it is, anything else by `str()`.
fn text<'py>(arg: &Bound<'py, PyAny>, keep: &mut Vec<Bound<'py, PyString>>) -> PyResult<()> {
    let s = match arg.cast::<PyString>() {
        Ok(s) => s.clone(),
        Err(_) => arg.str()?,
    };
    keep.push(s);
    Ok(())
}

impl Monitor {
    /// Steps one event; its violations are left in `self.gather`.
    fn push(
        &mut self,
        py: Python<'_>,
        name: &str,
        args: &[&str],
        time: Option<u64>,
    ) -> PyResult<()> {
        let Some(session) = self.session.as_mut() else {
            let why = self.ended.clone().unwrap_or_default();
            return Err(error_with::<TraceError>(
                py,
                format!("the monitor has stopped: {why}"),
                None,
                None,
                &why,
            ));
        };
        let line = session.monitor().events() + 1;
        let refuse = |message: String| {
            error_with::<TraceError>(
                py,
                format!("event {line}: {message}"),
                Some(line),
                None,
                &message,
            )
        };
        if let Some(expected) = session.monitor().arity_of(name.as_bytes())
            && expected != args.len()
        {
            let e = hindsight::monitor::StepError::Arity {
                event: name.to_owned(),
                expected,
                found: args.len(),
            };
            return Err(refuse(e.to_string()));
        }
        let raw: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        let typed: Vec<Cow<'_, [u8]>>;
        let mut bytes: &[&[u8]] = &raw;
        let canon: Vec<&[u8]>;
        if let Some(typing) = session.typing() {
            typed = match typing.read(name.as_bytes(), &raw) {
                Ok(t) => t,
                Err(Misfit::Undeclared) => {
                    return Err(refuse(format!("the signature does not declare `{name}`")));
                }
                Err(Misfit::Value { message, .. }) => return Err(refuse(message)),
            };
            canon = typed.iter().map(|a| &**a).collect();
            bytes = &canon;
        }
        if session.push(name.as_bytes(), bytes, time, &mut self.gather) == ControlFlow::Continue(())
        {
            return Ok(());
        }
        // The run ended: its error says why (the violations found stay).
        if let Some(s) = self.session.take() {
            self.stepped = s.monitor().events();
            let outcome = s.finish(&mut self.gather);
            if let Some(e) = outcome.error {
                let why = e.to_string();
                self.ended = Some(why.clone());
                return Err(error_with::<TraceError>(
                    py,
                    why.clone(),
                    e.line(),
                    None,
                    &why,
                ));
            }
            self.ended = Some("the run ended".to_owned());
        }
        Ok(())
    }

    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if self.gather.found.is_empty() {
            return Ok(PyList::empty(py));
        }
        let list = violation_list(py, &self.gather.found, &self.names)?;
        self.gather.found.clear();
        Ok(list)
    }
}

#[pymethods]
impl Monitor {
    /// A monitor of the QTL specification `spec` (its text), or with
    /// `signature` (the text of a MonPoly signature) of the MFOTL formula
    /// `spec`, whose satisfactions are reported, or with `negate=True` its
    /// violations. `witness=True` gives each violation its witness;
    /// `strict_time=True` refuses a time stamp smaller than the previous
    /// one; `end_of_trace` (`"undecided"` or `"close"`) is what `finish()`
    /// does with verdicts that wait for later events.
    #[new]
    #[pyo3(signature = (spec, *, signature=None, negate=false, witness=false, strict_time=false,
        end_of_trace=None))]
    fn new(
        py: Python<'_>,
        spec: &str,
        signature: Option<&str>,
        negate: bool,
        witness: bool,
        strict_time: bool,
        end_of_trace: Option<&str>,
    ) -> PyResult<Monitor> {
        let source = SpecSource {
            text: spec.to_owned(),
            label: if signature.is_some() {
                "<formula>"
            } else {
                "<spec>"
            }
            .to_owned(),
            signature: signature.map(|s| ("<signature>".to_owned(), s.to_owned())),
            reading: if negate {
                Reading::Violations
            } else {
                Reading::Satisfactions
            },
        };
        let mut options = SessionOptions {
            witness,
            end_of_trace: self::end_of_trace(end_of_trace)?,
            ..SessionOptions::default()
        };
        options.monitor.strict_time = strict_time;
        let session = source.session(py, options)?;
        let names = session
            .monitor()
            .property_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        Ok(Monitor {
            session: Some(session),
            names,
            gather: Gather::default(),
            ended: None,
            stepped: 0,
        })
    }

    /// Steps the event `name(*args)` (each argument a `str`, or anything
    /// `str()` turns into its text), at time stamp `time` (`None`: an
    /// untimed trace, each event one time unit). Returns the violations
    /// found at this event (with future operators, at earlier events whose
    /// verdict is now known). An event the monitor cannot take raises
    /// `TraceError` and changes nothing.
    #[pyo3(signature = (name, *args, time=None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        name: &Bound<'py, PyString>,
        args: &Bound<'py, PyTuple>,
        time: Option<u64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut keep = Vec::with_capacity(args.len());
        for a in args.iter() {
            text(&a, &mut keep)?;
        }
        let strs = keep
            .iter()
            .map(|s| s.to_str())
            .collect::<PyResult<Vec<&str>>>()?;
        self.push(py, name.to_str()?, &strs, time)?;
        self.take(py)
    }

    /// Steps every event of `events`, an iterable of sequences `(name,
    /// *args)`; with `timed=True` the last item of each is its time stamp.
    /// Returns the violations found, in order.
    #[pyo3(signature = (events, *, timed=false))]
    fn step_many<'py>(
        &mut self,
        py: Python<'py>,
        events: &Bound<'py, PyAny>,
        timed: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let mut keep = Vec::new();
        for event in events.try_iter()? {
            let event = event?;
            keep.clear();
            let mut time = None;
            match event.cast::<PyTuple>() {
                Ok(t) => {
                    let n = t.len();
                    let end = if timed { n.saturating_sub(1) } else { n };
                    for i in 0..end {
                        text(&t.get_item(i)?, &mut keep)?;
                    }
                    if timed && n > 0 {
                        time = Some(t.get_item(n - 1)?.extract::<u64>()?);
                    }
                }
                Err(_) => {
                    let items: Vec<Bound<'py, PyAny>> =
                        event.try_iter()?.collect::<PyResult<_>>()?;
                    let end = if timed {
                        items.len().saturating_sub(1)
                    } else {
                        items.len()
                    };
                    for a in &items[..end] {
                        text(a, &mut keep)?;
                    }
                    if timed && let Some(t) = items.last() {
                        time = Some(t.extract::<u64>()?);
                    }
                }
            }
            let Some((name, args)) = keep.split_first() else {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "an event is a sequence (name, *args): this one is empty",
                ));
            };
            let args = args
                .iter()
                .map(|s| s.to_str())
                .collect::<PyResult<Vec<&str>>>()?;
            self.push(py, name.to_str()?, &args, time)?;
            if !self.gather.found.is_empty() {
                for v in self.take(py)?.iter() {
                    out.append(v)?;
                }
            }
        }
        Ok(out)
    }

    /// Ends the trace: returns the violations that only its end decides
    /// (future operators), and the monitor takes no more events.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let Some(s) = self.session.take() {
            self.stepped = s.monitor().events();
            let _ = s.finish(&mut self.gather);
            self.ended = Some("finish() ended the trace".to_owned());
        }
        self.take(py)
    }

    /// The properties' names, in order.
    #[getter]
    fn properties(&self) -> Vec<String> {
        self.names.clone()
    }

    /// The events stepped so far.
    #[getter]
    fn events(&self) -> u64 {
        self.session
            .as_ref()
            .map_or(self.stepped, |s| s.monitor().events())
    }
}
