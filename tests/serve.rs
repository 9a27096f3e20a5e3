//! `hindsight serve` (issue 40): the binary is started on a free port and
//! spoken to in raw HTTP/1.1: the page and its assets, `POST /api/check`,
//! `/api/run` and `/api/why` with their exact answers, and the errors as
//! JSON (a bad body, a spec error with its line and column, a trace error,
//! a body over the limit, a run over the time limit, a foreign `Host`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use serde_json::{Value, json};

/// A server, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = common::bin()
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut line = String::new();
        let out = child.stdout.take().expect("stdout");
        BufReader::new(out).read_line(&mut line).expect("a line");
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port }
    }

    /// Sends a request; the status and the body.
    fn request(&self, method: &str, path: &str, host: &str, body: &[u8]) -> (u16, String, String) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nContent-Type: application/json\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).expect("writes");
        s.write_all(body).expect("writes");
        let mut answer = String::new();
        s.read_to_string(&mut answer).expect("reads");
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("a status");
        let kind = (head.lines())
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .unwrap_or_default()
            .to_string();
        (status, kind, body.to_string())
    }

    fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let host = format!("127.0.0.1:{}", self.port);
        let (status, kind, text) = self.request("POST", path, &host, body.to_string().as_bytes());
        assert_eq!(kind, "application/json", "{text}");
        (status, serde_json::from_str(&text).expect("JSON"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const SPEC: &str = "prop p : Forall f . close(f) -> @ [open(f), close(f))";
const TRACE: &str = "open,a\nclose,a\nclose,a\nopen,b\n";

#[test]
fn the_page_and_its_assets_are_served() {
    let s = Server::start(&[]);
    let host = format!("127.0.0.1:{}", s.port);
    let (status, kind, body) = s.request("GET", "/", &host, b"");
    assert_eq!((status, kind.as_str()), (200, "text/html; charset=utf-8"));
    assert!(body.contains("<script src=\"app.js\"></script>"));
    let (status, kind, body) = s.request("GET", "/app.js", &host, b"");
    assert_eq!(
        (status, kind.as_str()),
        (200, "text/javascript; charset=utf-8")
    );
    assert!(body.contains("/api/why"));
    let (status, kind, _) = s.request("GET", "/app.css", &format!("localhost:{}", s.port), b"");
    assert_eq!((status, kind.as_str()), (200, "text/css; charset=utf-8"));
}

#[test]
fn check_places_spec_errors() {
    let s = Server::start(&[]);
    let (status, v) = s.post(
        "/api/check",
        &json!({"spec": "prop p : open(f) -> @ [open(f), close(f)"}),
    );
    assert_eq!(status, 200);
    assert_eq!(v["ok"], false);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(41))
    );
    assert_eq!(d["severity"], "error");
    assert_eq!(
        d["message"],
        "the specification ends too early; expected `)`"
    );
    let (status, v) = s.post("/api/check", &json!({"spec": SPEC}));
    assert_eq!(status, 200);
    assert_eq!(
        v,
        json!({"ok": true, "properties": ["p"], "diagnostics": []})
    );
}

#[test]
fn run_answers_violations_summary_and_events() {
    let s = Server::start(&[]);
    let (status, v) = s.post("/api/run", &json!({"spec": SPEC, "trace": TRACE}));
    assert_eq!(status, 200);
    assert_eq!(v["status"], "Violated");
    assert_eq!(
        v["violations"],
        json!([{"property": "p", "event": 3, "line": 3, "name": "close", "args": ["a"], "time": null, "witness": {"f": "a"}}])
    );
    assert_eq!(v["summary"]["events"], 4);
    assert_eq!(v["summary"]["violations"], 1);
    assert_eq!(v["summary"]["counts"], json!({"close": 2, "open": 2}));
    assert_eq!(
        v["events"],
        json!([["open", 0], ["close", 0], ["close", 0], ["open", 0]])
    );
    assert_eq!(v["profile"], Value::Null);
    // A timed trace, with a profile.
    let (status, v) = s.post(
        "/api/run",
        &json!({"spec": SPEC, "trace": "open,a,1\nclose,a,5\nclose,a,9\n", "timed": true, "profile": true}),
    );
    assert_eq!(status, 200);
    assert_eq!(v["violations"][0]["time"], 9);
    let profile = v["profile"].as_str().expect("a profile");
    assert!(profile.starts_with("event,seconds,p/"), "{profile}");
    assert_eq!(profile.lines().count(), 4, "{profile}");
}

#[test]
fn run_errors_are_json() {
    let s = Server::start(&[]);
    let (status, v) = s.post(
        "/api/run",
        &json!({"spec": "prop p : close(f) ->", "trace": TRACE}),
    );
    assert_eq!(status, 422);
    assert_eq!(v["error"]["kind"], "spec");
    assert_eq!(v["error"]["diagnostics"][0]["line"], 1);
    let (status, v) = s.post(
        "/api/run",
        &json!({"spec": SPEC, "trace": "open,a\nclose,a,b\n"}),
    );
    assert_eq!(status, 200);
    assert_eq!(v["status"], "Error");
    assert_eq!(v["error"]["line"], 2);
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("message")
            .contains("event `close` has 2 arguments")
    );
    let (status, v) = s.post("/api/run", &json!({"spec": SPEC}));
    assert_eq!(
        (status, v["error"]["message"].as_str()),
        (400, Some("\"trace\" is missing"))
    );
    let (status, v) = s.post(
        "/api/run",
        &json!({"spec": SPEC, "trace": TRACE, "format": "yaml"}),
    );
    assert_eq!(status, 400);
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("message")
            .starts_with("unknown \"format\"")
    );
    let host = format!("127.0.0.1:{}", s.port);
    let (status, _, body) = s.request("POST", "/api/run", &host, b"{not json");
    assert_eq!(status, 400);
    assert!(body.contains("\"the body is not JSON"), "{body}");
    let (status, _, body) = s.request("GET", "/api/run", &host, b"");
    assert_eq!(status, 405);
    assert!(body.contains("\"kind\":\"method\""), "{body}");
    let (status, _, body) = s.request("GET", "/nope", &host, b"");
    assert_eq!(status, 404);
    assert!(body.contains("no such page: /nope"), "{body}");
    // Another host name (a DNS rebinding) is refused.
    let (status, _, body) = s.request("GET", "/", &format!("evil.example:{}", s.port), b"");
    assert_eq!(status, 403);
    assert!(body.contains("\"kind\":\"host\""), "{body}");
}

#[test]
fn why_answers_the_explanation() {
    let s = Server::start(&[]);
    let (status, v) = s.post(
        "/api/why",
        &json!({"spec": SPEC, "trace": TRACE, "event": 3}),
    );
    assert_eq!(status, 200);
    let e = &v["explanations"][0];
    assert_eq!(e["property"], "p");
    assert_eq!(e["assignment"], json!({"f": "a"}));
    assert_eq!(
        e["events"],
        json!([{"event": 2, "text": "close(a)"}, {"event": 3, "text": "close(a)"}])
    );
    assert_eq!(e["proof"]["holds"], false);
    assert!(
        v["text"]
            .as_str()
            .expect("text")
            .contains("`open(a)` at 1, then `close(a)` at 2")
    );
    let (status, v) = s.post(
        "/api/why",
        &json!({"spec": SPEC, "trace": TRACE, "event": 9}),
    );
    assert_eq!(status, 422);
    assert_eq!(v["error"]["message"], "no event 9: the trace has 4 events");
    let (status, v) = s.post(
        "/api/why",
        &json!({"spec": SPEC, "trace": TRACE, "event": 0}),
    );
    assert_eq!(status, 400);
    assert_eq!(v["error"]["message"], "\"event\" must be a number from 1");
}

#[test]
fn limits_are_kept() {
    let s = Server::start(&["--max-request", "200", "--timeout", "1"]);
    let big = json!({"spec": SPEC, "trace": "open,a\n".repeat(100)});
    let (status, v) = s.post("/api/run", &big);
    assert_eq!(status, 413);
    assert_eq!(v["error"]["kind"], "too_large");
    // A quantifier no atom guards, under a temporal operator, over many
    // values: the explanation takes far longer than a second.
    let s = Server::start(&["--timeout", "1"]);
    let trace: String = (0..40_000).map(|k| format!("r,{k}\n")).collect();
    let slow = json!({
        "spec": "prop p : Forall x . q(x) -> P (Exists y . !r(y) & @ s(x, y))",
        "trace": trace + "q,1\n",
        "event": 40_001,
    });
    let (status, v) = s.post("/api/why", &slow);
    assert_eq!(status, 503);
    assert_eq!(v["error"]["kind"], "timeout");
    assert_eq!(
        v["error"]["message"],
        "the run took longer than 1 s (--timeout)"
    );
    // The server still answers.
    let (status, _) = s.post("/api/check", &json!({"spec": SPEC}));
    assert_eq!(status, 200);
}
