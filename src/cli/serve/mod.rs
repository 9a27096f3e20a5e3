//! `hindsight serve`: a small HTTP/1.1 server on std's `TcpListener` for
//! the web page (its assets built into the binary) and its JSON API (see
//! [`api`] and docs/WEB.md).
//!
//! Made for untrusted input on this machine: it listens on 127.0.0.1 by
//! default and then only answers requests whose `Host` is this machine
//! (no DNS rebinding); a request line and headers over 64 KiB, a body over
//! `--max-request`, a client that sends nothing for 10 s, more than
//! [`MAX_ACTIVE`] requests at once, and a run over `--timeout` are all
//! answered with a JSON error; a panic in a handler is caught and answered
//! as an internal error. Each connection serves one request.

pub mod api;

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

/// The most requests handled at once; more are answered 503.
pub const MAX_ACTIVE: usize = 8;

/// The largest request line plus headers.
const MAX_HEAD: usize = 64 * 1024;

/// The page and its assets.
const INDEX: &str = include_str!("../../../web/index.html");
const APP_JS: &str = include_str!("../../../web/app.js");
const APP_CSS: &str = include_str!("../../../web/app.css");

/// What every handler knows.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The largest body.
    pub max_request: u64,
    /// The longest run.
    pub timeout: Duration,
    /// Whether only requests addressed to this machine are answered.
    pub loopback: bool,
    /// The port listened on.
    pub port: u16,
}

/// A response: status, content type, body.
pub struct Response {
    pub status: u16,
    pub kind: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            kind: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    /// A JSON error: `{"error": {"kind": ..., "message": ...}}`.
    pub fn error(status: u16, kind: &str, message: impl Into<String>) -> Response {
        let message: String = message.into();
        Response::json(
            status,
            &json!({"error": {"kind": kind, "message": message}}),
        )
    }
}

/// Runs `hindsight serve`.
pub fn serve(host: &str, port: u16, max_request: u64, timeout: u64) -> ExitCode {
    let listener = match TcpListener::bind((host, port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on {host}:{port}: {e}");
            return ExitCode::from(2);
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let limits = Limits {
        max_request,
        timeout: Duration::from_secs(timeout.max(1)),
        loopback: addr.ip().is_loopback(),
        port: addr.port(),
    };
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "hindsight serve: listening on http://{addr}/ (Ctrl-C to stop)"
    );
    let _ = out.flush();
    drop(out);
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let limits = limits.clone();
        let active = Arc::clone(&active);
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_ACTIVE {
            active.fetch_sub(1, Ordering::SeqCst);
            let mut s = stream;
            let _ = write_response(
                &mut s,
                &Response::error(503, "busy", "too many requests at once; try again"),
            );
            continue;
        }
        let spawned = std::thread::Builder::new()
            .name("request".into())
            .spawn(move || {
                connection(stream, &limits);
                active.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            eprintln!("warning: cannot start a thread for a request");
        }
    }
    ExitCode::SUCCESS
}

/// A request: method, path, `Host` header, body.
pub struct Request {
    pub method: String,
    pub path: String,
    pub host: Option<String>,
    pub body: Vec<u8>,
}

/// Serves one connection: reads the request, answers it.
fn connection(mut stream: TcpStream, limits: &Limits) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
    let response = match read_request(&stream, limits.max_request) {
        Ok(req) => {
            let guarded =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| route(&req, limits)));
            guarded.unwrap_or_else(|_| {
                Response::error(500, "internal", "internal error while handling the request")
            })
        }
        Err(r) => r,
    };
    let _ = write_response(&mut stream, &response);
}

/// Reads a request, or the error response to send instead.
fn read_request(stream: &TcpStream, max_body: u64) -> Result<Request, Response> {
    let mut reader = BufReader::new(stream);
    let mut head = 0usize;
    let mut line = String::new();
    let mut next_line =
        |reader: &mut BufReader<&TcpStream>, line: &mut String| -> Result<(), Response> {
            line.clear();
            let n = reader
                .by_ref()
                .take((MAX_HEAD - head.min(MAX_HEAD)) as u64 + 1)
                .read_line(line)
                .map_err(|e| {
                    Response::error(400, "request", format!("cannot read the request: {e}"))
                })?;
            head += n;
            if head > MAX_HEAD {
                return Err(Response::error(
                    431,
                    "request",
                    "the request's headers are too large",
                ));
            }
            if n == 0 {
                return Err(Response::error(400, "request", "the request ended early"));
            }
            Ok(())
        };
    next_line(&mut reader, &mut line)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(Response::error(400, "request", "not an HTTP request"));
    };
    let (method, path) = (method.to_string(), path.to_string());
    let mut length: u64 = 0;
    let mut host = None;
    loop {
        next_line(&mut reader, &mut line)?;
        let l = line.trim_end_matches(['\r', '\n']);
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
            if k == "content-length" {
                length = v
                    .parse()
                    .map_err(|_| Response::error(400, "request", "a bad Content-Length"))?;
            } else if k == "host" {
                host = Some(v.to_string());
            } else if k == "transfer-encoding" {
                return Err(Response::error(
                    411,
                    "request",
                    "send the body with a Content-Length",
                ));
            }
        }
    }
    if length > max_body {
        return Err(Response::error(
            413,
            "too_large",
            format!(
                "the request's body has {length} bytes, more than the limit of {max_body} (--max-request)"
            ),
        ));
    }
    let mut body = Vec::with_capacity(length.min(1 << 20) as usize);
    reader.take(length).read_to_end(&mut body).map_err(|e| {
        Response::error(
            400,
            "request",
            format!("cannot read the request's body: {e}"),
        )
    })?;
    if (body.len() as u64) < length {
        return Err(Response::error(
            400,
            "request",
            "the request's body ended early",
        ));
    }
    Ok(Request {
        method,
        path,
        host,
        body,
    })
}

/// Whether `host` (a `Host` header) names this machine at `port`.
fn local_host(host: Option<&str>, port: u16) -> bool {
    let Some(host) = host else { return false };
    let name = match host.rsplit_once(':') {
        Some((name, p)) if p == port.to_string() => name,
        _ => return false,
    };
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

/// Answers a request.
fn route(req: &Request, limits: &Limits) -> Response {
    if limits.loopback && !local_host(req.host.as_deref(), limits.port) {
        return Response::error(
            403,
            "host",
            "this server answers requests to 127.0.0.1 or localhost only",
        );
    }
    let path = req.path.split('?').next().unwrap_or_default();
    match (req.method.as_str(), path) {
        ("GET", "/") | ("GET", "/index.html") => asset("text/html; charset=utf-8", INDEX),
        ("GET", "/app.js") => asset("text/javascript; charset=utf-8", APP_JS),
        ("GET", "/app.css") => asset("text/css; charset=utf-8", APP_CSS),
        ("POST", "/api/check") => api::check(&req.body),
        ("POST", "/api/run") => api::run(&req.body, limits),
        ("POST", "/api/why") => api::why(&req.body, limits),
        (_, "/" | "/index.html" | "/app.js" | "/app.css")
        | (_, "/api/check" | "/api/run" | "/api/why") => Response::error(
            405,
            "method",
            format!("{} is not allowed on {path}", req.method),
        ),
        _ => Response::error(404, "not_found", format!("no such page: {path}")),
    }
}

fn asset(kind: &'static str, text: &str) -> Response {
    Response {
        status: 200,
        kind,
        body: text.as_bytes().to_vec(),
    }
}

fn write_response(stream: &mut TcpStream, r: &Response) -> io::Result<()> {
    let reason = match r.status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Payload Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\
         Content-Security-Policy: default-src 'self'; img-src 'self' data:\r\n\r\n",
        r.status,
        r.kind,
        r.body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(&r.body)?;
    stream.flush()
}
