//! The JSON API of `hindsight serve` (docs/WEB.md): `POST /api/check`
//! (a specification's diagnostics, with their lines and columns),
//! `POST /api/run` (violations, summary, events for the timeline, profile)
//! and `POST /api/why` (explanations). A run happens on a thread of its
//! own and is cancelled at the time limit.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use crate::plan::compile_source_timed;
use crate::report::Violation;
use crate::runtime::witness::WitnessValue;
use crate::session::{LoadError, Report, RunError, Session, SessionOptions, Verdict, Warning};
use crate::syntax::Diagnostic;
use crate::syntax::span::line_column;
use crate::trace::{Format, TraceOptions};
use crate::why::{self, WhyError, WhyOptions};
use serde_json::{Value, json};

use super::{Limits, Response};

/// The most events of a run's answer (for the timeline), and of its violations.
const MAX_EVENTS: usize = 100_000;
const MAX_VIOLATIONS: usize = 10_000;

/// A request's body as a JSON object, or the error response.
fn object(body: &[u8]) -> Result<serde_json::Map<String, Value>, Response> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(Response::error(
            400,
            "request",
            "the body must be a JSON object",
        )),
        Err(e) => Err(Response::error(
            400,
            "request",
            format!("the body is not JSON: {e}"),
        )),
    }
}

/// A string field.
fn text(o: &serde_json::Map<String, Value>, key: &str) -> Result<String, Response> {
    match o.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(Response::error(
            400,
            "request",
            format!("\"{key}\" must be a string"),
        )),
        None => Err(Response::error(
            400,
            "request",
            format!("\"{key}\" is missing"),
        )),
    }
}

/// How the trace is read: `timed`, `format`, `time_decimals`.
fn reading(o: &serde_json::Map<String, Value>) -> Result<SessionOptions, Response> {
    let format = match o.get("format").and_then(Value::as_str).unwrap_or("auto") {
        "auto" => Format::Auto,
        "plain" | "csv" => Format::Plain,
        "crv" => Format::Crv,
        "xml" => Format::Xml,
        "json" => Format::Json,
        "monpoly" => Format::MonPoly,
        f => {
            return Err(Response::error(
                400,
                "request",
                format!("unknown \"format\" {f:?}: auto, plain, crv, xml, json or monpoly"),
            ));
        }
    };
    let decimals = o.get("time_decimals").and_then(Value::as_u64).unwrap_or(0);
    if decimals > 9 {
        return Err(Response::error(
            400,
            "request",
            "\"time_decimals\" is at most 9",
        ));
    }
    Ok(SessionOptions {
        trace: TraceOptions {
            timed: o.get("timed").and_then(Value::as_bool).unwrap_or(false),
            format,
        },
        time_decimals: decimals as u8,
        ..SessionOptions::default()
    })
}

/// Diagnostics as JSON, placed by line and column (from 1) and by
/// character offsets into the text.
fn diagnostics(text: &str, diags: &[Diagnostic]) -> Value {
    let chars = |byte: usize| {
        text.get(..byte.min(text.len()))
            .map_or(0, |t| t.chars().count())
    };
    Value::Array(
        diags
            .iter()
            .map(|d| {
                let (line, column) = line_column(text.as_bytes(), d.span.start);
                let (end_line, end_column) = line_column(text.as_bytes(), d.span.end);
                json!({
                    "severity": if d.is_error() { "error" } else { "warning" },
                    "message": d.message,
                    "hint": d.hint,
                    "line": line, "column": column,
                    "end_line": end_line, "end_column": end_column,
                    "start": chars(d.span.start), "end": chars(d.span.end),
                })
            })
            .collect(),
    )
}

/// The answer to a specification that is not well-formed.
fn spec_error(text: &str, diags: &[Diagnostic]) -> Response {
    let first = diags
        .iter()
        .find(|d| d.is_error())
        .map_or_else(String::new, |d| d.message.clone());
    Response::json(
        422,
        &json!({"error": {"kind": "spec", "message": first, "diagnostics": diagnostics(text, diags)}}),
    )
}

/// `POST /api/check`: `{"spec"}` → `{"ok", "properties", "diagnostics"}`.
pub fn check(body: &[u8]) -> Response {
    let o = match object(body) {
        Ok(o) => o,
        Err(r) => return r,
    };
    let spec = match text(&o, "spec") {
        Ok(s) => s,
        Err(r) => return r,
    };
    match compile_source_timed(&spec, 0) {
        Ok((plan, warnings, _)) => {
            let names: Vec<&str> = plan.props.iter().map(|p| p.name.as_str()).collect();
            Response::json(
                200,
                &json!({"ok": true, "properties": names, "diagnostics": diagnostics(&spec, &warnings)}),
            )
        }
        Err(diags) => Response::json(
            200,
            &json!({"ok": false, "properties": [], "diagnostics": diagnostics(&spec, &diags)}),
        ),
    }
}

/// Runs `job` on a thread of its own; at the time limit, sets its cancel
/// flag and answers with an error.
fn timed(
    limits: &Limits,
    job: impl FnOnce(Arc<AtomicBool>) -> Response + Send + 'static,
) -> Response {
    let cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = Arc::clone(&cancel);
    let spawned = std::thread::Builder::new()
        .name("run".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(flag)))
                .unwrap_or_else(|_| {
                    Response::error(500, "internal", "internal error during the run")
                });
            let _ = tx.send(r);
        });
    if spawned.is_err() {
        return Response::error(503, "busy", "cannot start the run");
    }
    match rx.recv_timeout(limits.timeout) {
        Ok(r) => r,
        Err(_) => {
            cancel.store(true, Ordering::SeqCst);
            Response::error(
                503,
                "timeout",
                format!(
                    "the run took longer than {} s (--timeout)",
                    limits.timeout.as_secs()
                ),
            )
        }
    }
}

/// A trace that fails to be read once its run is cancelled.
struct Cancellable<R> {
    inner: R,
    cancel: Arc<AtomicBool>,
}

impl<R: Read> Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(io::Error::other("the run took longer than its time limit"));
        }
        let n = buf.len().min(64 * 1024);
        self.inner.read(&mut buf[..n])
    }
}

/// A profile written to memory.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut v = self.0.lock().map_err(|_| io::Error::other("poisoned"))?;
        v.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What a run tells the page.
#[derive(Default)]
struct Page {
    names: Vec<String>,
    violations: Vec<Value>,
    warnings: Vec<String>,
    error: Option<RunError>,
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Report for Page {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        if self.violations.len() < MAX_VIOLATIONS {
            let witness: serde_json::Map<String, Value> = (witness.unwrap_or_default().iter())
                .map(|(n, w)| (n.clone(), w.text().map_or(Value::Null, Value::String)))
                .collect();
            self.violations.push(json!({
                "property": self.names.get(v.property),
                "event": v.event,
                "line": v.line,
                "name": lossy(v.name),
                "args": v.args.iter().map(|a| lossy(a)).collect::<Vec<_>>(),
                "time": v.time,
                "witness": witness,
            }));
        }
        Ok(())
    }

    fn warning(&mut self, w: &Warning) {
        self.warnings.push(w.to_string());
    }

    fn error(&mut self, e: &RunError) {
        self.error = Some(e.clone());
    }
}

/// `POST /api/run`: `{"spec", "trace", "timed", "format", "profile"}` →
/// `{"status", "violations", "summary", "events", "warnings", "profile"}`.
pub fn run(body: &[u8], limits: &Limits) -> Response {
    let parsed = (|| {
        let o = object(body)?;
        Ok::<_, Response>((text(&o, "spec")?, text(&o, "trace")?, reading(&o)?, o))
    })();
    let (spec, trace, options, o) = match parsed {
        Ok(x) => x,
        Err(r) => return r,
    };
    let profile = o.get("profile").and_then(Value::as_bool).unwrap_or(false);
    let every = o
        .get("profile_every")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    timed(limits, move |cancel| {
        run_job(&spec, trace, options, profile, every, cancel)
    })
}

fn run_job(
    spec: &str,
    trace: String,
    options: SessionOptions,
    profile: bool,
    every: u64,
    cancel: Arc<AtomicBool>,
) -> Response {
    let options = SessionOptions {
        witness: true,
        ..options
    };
    let mut session = match Session::from_source(spec, options) {
        Ok(s) => s,
        Err(LoadError::Spec(diags)) => return spec_error(spec, &diags),
        Err(e) => return Response::error(422, "spec", e.to_string()),
    };
    session.set_cancel(Arc::clone(&cancel));
    let names: Vec<String> = (session.monitor().property_names().into_iter())
        .map(str::to_string)
        .collect();
    // The events for the timeline: name and time, read once more.
    let mut events = Vec::new();
    let mut total = 0u64;
    {
        let mut reader = session.trace_reader(trace.as_bytes());
        while let Ok(Some(e)) = reader.next_event() {
            total += 1;
            if events.len() < MAX_EVENTS {
                events.push(json!([lossy(e.name), e.time]));
            }
        }
    }
    let buffer = Shared::default();
    if profile && let Err(e) = session.profile(Box::new(buffer.clone()), every) {
        return Response::error(500, "internal", format!("cannot start the profile: {e}"));
    }
    let mut page = Page {
        names: names.clone(),
        ..Page::default()
    };
    let input = Cancellable {
        inner: trace.as_bytes(),
        cancel,
    };
    let outcome = session.run(input, &mut page);
    let status = match outcome.verdict {
        Verdict::Violated => "Violated",
        Verdict::Satisfied => "Satisfied",
        _ => "Error",
    };
    let error = outcome
        .error
        .as_ref()
        .or(page.error.as_ref())
        .map(|e| json!({"kind": "trace", "message": e.to_string(), "line": e.line()}));
    let profile = profile.then(|| lossy(&buffer.0.lock().map(|b| b.clone()).unwrap_or_default()));
    Response::json(
        200,
        &json!({
            "status": status,
            "properties": names,
            "violations": page.violations,
            "summary": {
                "events": outcome.summary.events,
                "violations": outcome.violations(),
                "counts": outcome.summary.counts,
                "per_property": outcome.properties.iter().map(|p| p.violations).collect::<Vec<_>>(),
            },
            "events": events,
            "events_total": total,
            "warnings": page.warnings,
            "error": error,
            "profile": profile,
        }),
    )
}

/// `POST /api/why`: `{"spec", "trace", "event", "property", "assign",
/// "timed", "format"}` → `{"explanations": [...], "text"}`.
pub fn why(body: &[u8], limits: &Limits) -> Response {
    let parsed = (|| {
        let o = object(body)?;
        let event = o
            .get("event")
            .and_then(Value::as_u64)
            .filter(|&e| e >= 1)
            .ok_or_else(|| Response::error(400, "request", "\"event\" must be a number from 1"))?;
        let assign = match o.get("assign") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(a)) => a
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect(),
            Some(_) => {
                return Err(Response::error(
                    400,
                    "request",
                    "\"assign\" must be an object",
                ));
            }
        };
        let options = WhyOptions {
            event,
            property: o
                .get("property")
                .and_then(Value::as_str)
                .map(str::to_string),
            assign,
            max_nodes: o
                .get("max_nodes")
                .and_then(Value::as_u64)
                .map_or(why::DEFAULT_MAX_NODES, |n| n.clamp(1, 100_000) as usize),
            session: reading(&o)?,
            cancel: None,
        };
        Ok::<_, Response>((text(&o, "spec")?, text(&o, "trace")?, options))
    })();
    let (spec, trace, options) = match parsed {
        Ok(x) => x,
        Err(r) => return r,
    };
    timed(limits, move |cancel| {
        let options = WhyOptions {
            cancel: Some(Arc::clone(&cancel)),
            ..options
        };
        let input = Cancellable {
            inner: trace.as_bytes(),
            cancel,
        };
        match why::replay(&spec, input, &options) {
            Ok(es) => {
                let text: String = es
                    .iter()
                    .map(why::render::text)
                    .collect::<Vec<_>>()
                    .join("\n");
                Response::json(
                    200,
                    &json!({"explanations": es.iter().map(why::render::json).collect::<Vec<_>>(), "text": text}),
                )
            }
            Err(WhyError::Spec(diags)) => spec_error(&spec, &diags),
            Err(e @ WhyError::Disagree { .. }) => Response::error(500, "internal", e.to_string()),
            Err(e @ WhyError::Run(_)) => Response::error(422, "trace", e.to_string()),
            Err(e) => Response::error(422, "why", e.to_string()),
        }
    })
}
