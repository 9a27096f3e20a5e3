//! Every example in the documentation is run, and must print what the page says.
//!
//! The pages (`README.md` and `docs/*.md`) are Markdown. Their fenced code
//! blocks are read by the tag after the opening fence:
//!
//! - ` ```qtl ` followed by ` ```csv ` and a line `**Verdict:** ...` is a
//!   verdict example: the specification is run on the trace and the violating
//!   events must be exactly the ones the verdict line names. The line reads
//!   `**Verdict:** satisfied.`, `**Verdict:** violated at events 2, 5.` or, for
//!   several properties, `` **Verdict:** `p` violated at event 3; `q` satisfied. ``
//!   A clause `undecided at events 7, 8` (after a `;`, for the property of
//!   the clause before it unless it names one) lists the events left
//!   undecided at the end of the trace (future operators).
//!   A ` ```csv timed ` block is run with `--timed`.
//! - ` ```qtl ` alone must be a well-formed specification.
//! - A block with a file name after its tag (` ```qtl bad.qtl `,
//!   ` ```csv log.csv `) is written to that file in the page's scratch
//!   directory, for the commands of later ` ```console ` blocks.
//! - ` ```console ` is a terminal session: every `$ command` runs with `sh` in
//!   the page's scratch directory (which has a copy of `specs/`), with the
//!   built `hindsight` first on the `PATH`, and must print exactly the lines
//!   below it (standard output and standard error together). `$ echo $?` shows
//!   the exit status of the command before it. Times vary from run to run, so
//!   the `events processed: ...` line is compared up to its ` in `, and the
//!   `seconds` of a JSON summary are ignored.
//! - Blocks with other tags (`sh`, `text`, `rust`, ...) are not run here
//!   (`rust` blocks of `docs/API.md` are doctests of the library).
//!
//! Each test reports every failing example of its page, with its line.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The binary's path (its directory goes on the examples' `PATH`).
const BIN: &str = env!("CARGO_BIN_EXE_hindsight");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced code block or a verdict line, with its 1-based line number.
#[derive(Debug)]
enum Item {
    Block {
        line: usize,
        tag: String,
        file: Option<String>,
        flags: Vec<String>,
        body: String,
    },
    Verdict {
        line: usize,
        text: String,
    },
}

const VERDICT: &str = "**Verdict:**";

fn items(page: &str) -> Vec<Item> {
    let mut out = Vec::new();
    let mut lines = page.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let mut words = info.split_whitespace();
            let tag = words.next().unwrap_or("").to_string();
            let mut file = None;
            let mut flags = Vec::new();
            for w in words {
                if [".qtl", ".csv", ".mfotl", ".sig", ".xml", ".json", ".log"]
                    .iter()
                    .any(|ext| w.ends_with(ext))
                {
                    file = Some(w.to_string());
                } else {
                    flags.push(w.to_string());
                }
            }
            let mut body = String::new();
            for (_, l) in lines.by_ref() {
                if l == "```" {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            out.push(Item::Block {
                line: i + 1,
                tag,
                file,
                flags,
                body,
            });
        } else if let Some(rest) = line.trim_start().strip_prefix(VERDICT) {
            out.push(Item::Verdict {
                line: i + 1,
                text: rest.trim().to_string(),
            });
        }
    }
    out
}

/// Expected verdicts: (property or `None` for "the only one", violating
/// events, undecided events).
type Expected = Vec<(Option<String>, Vec<u64>, Vec<u64>)>;

fn parse_verdict(text: &str) -> Result<Expected, String> {
    let text = text.strip_suffix('.').unwrap_or(text);
    let mut out = Vec::new();
    for clause in text.split(';') {
        let clause = clause.trim();
        let (name, rest) = match clause.strip_prefix('`') {
            Some(r) => {
                let end = r.find('`').ok_or("unclosed ` in the verdict")?;
                (Some(r[..end].to_string()), r[end + 1..].trim())
            }
            None => (None, clause),
        };
        if rest == "satisfied" {
            out.push((name, Vec::new(), Vec::new()));
            continue;
        }
        let numbers = |list: &str| {
            list.split(',')
                .map(|n| n.trim().parse::<u64>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("bad event number in `{clause}`: {e}"))
        };
        if let Some(list) = rest
            .strip_prefix("undecided at events ")
            .or_else(|| rest.strip_prefix("undecided at event "))
        {
            let undecided = numbers(list)?;
            match (name, out.last_mut()) {
                (None, Some(last)) => last.2 = undecided,
                (name, _) => out.push((name, Vec::new(), undecided)),
            }
            continue;
        }
        let list = rest
            .strip_prefix("violated at events ")
            .or_else(|| rest.strip_prefix("violated at event "))
            .ok_or_else(|| format!("cannot read the verdict clause `{clause}`"))?;
        out.push((name, numbers(list)?, Vec::new()));
    }
    Ok(out)
}

/// A page's scratch directory: empty but for a copy of `specs/`.
fn scratch(page: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("docs")
        .join(page.replace('/', "_"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("specs")).unwrap();
    for entry in fs::read_dir(repo().join("specs")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            fs::copy(&path, dir.join("specs").join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn run_bin(dir: &Path, args: &[&str]) -> std::process::Output {
    common::bin()
        .args(args)
        .current_dir(dir)
        .env_remove("HINDSIGHT_GC")
        .stdin(Stdio::null())
        .output()
        .expect("cannot start hindsight")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs a verdict example; `Err` says what differs.
fn check_verdict(
    dir: &Path,
    spec: &str,
    trace: &str,
    flags: &[String],
    verdict: &str,
) -> Result<(), String> {
    let expected = parse_verdict(verdict)?;
    fs::write(dir.join("example.qtl"), spec).unwrap();
    fs::write(dir.join("example.csv"), trace).unwrap();
    let mut args = vec!["run", "example.qtl", "example.csv", "--report", "json"];
    for f in flags {
        match f.as_str() {
            "timed" => args.push("--timed"),
            other => return Err(format!("unknown csv block flag `{other}`")),
        }
    }
    let out = run_bin(dir, &args);
    let stdout = text(&out.stdout);
    let mut found: Vec<(String, u64)> = Vec::new();
    let mut open: Vec<(String, u64)> = Vec::new();
    let mut properties: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("not JSON ({e}): {line}\nstderr: {}", text(&out.stderr)))?;
        match v["kind"].as_str() {
            Some("violation") => found.push((
                v["property"].as_str().unwrap_or("").to_string(),
                v["event"].as_u64().unwrap_or(0),
            )),
            Some("undecided") => {
                for p in v["properties"].as_array().into_iter().flatten() {
                    let event = v["event"].as_u64().unwrap_or(0);
                    open.push((p.as_str().unwrap_or("").to_string(), event));
                }
            }
            Some("summary") => {
                if let Some(p) = v["properties"].as_object() {
                    properties = p.keys().cloned().collect();
                }
                if !v["error"].is_null() {
                    return Err(format!("the run stopped with an error: {}", v["error"]));
                }
            }
            _ => {}
        }
    }
    if properties.is_empty() {
        return Err(format!(
            "no summary (exit {:?}); stderr:\n{}",
            out.status.code(),
            text(&out.stderr)
        ));
    }
    let mut want: Vec<(String, u64)> = Vec::new();
    let mut want_open: Vec<(String, u64)> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for (name, events, undecided) in expected {
        let name = match name {
            Some(n) => n,
            None if properties.len() == 1 => properties[0].clone(),
            None => {
                return Err(format!(
                    "the verdict must name the property (there are {properties:?})"
                ));
            }
        };
        if !properties.contains(&name) {
            return Err(format!("no property `{name}` (there are {properties:?})"));
        }
        named.push(name.clone());
        want.extend(events.into_iter().map(|e| (name.clone(), e)));
        want_open.extend(undecided.into_iter().map(|e| (name.clone(), e)));
    }
    for p in &properties {
        if !named.contains(p) {
            return Err(format!("the verdict says nothing about property `{p}`"));
        }
    }
    want.sort();
    found.sort();
    if want != found {
        return Err(format!("the page says {want:?}, the tool found {found:?}"));
    }
    want_open.sort();
    open.sort();
    if want_open != open {
        return Err(format!(
            "the page says undecided {want_open:?}, the tool left {open:?} undecided"
        ));
    }
    let code = out.status.code();
    let expected_code = Some(i32::from(!want.is_empty()));
    if code != expected_code {
        return Err(format!("exit status {code:?}, expected {expected_code:?}"));
    }
    Ok(())
}

fn check_well_formed(dir: &Path, spec: &str) -> Result<(), String> {
    fs::write(dir.join("example.qtl"), spec).unwrap();
    let out = run_bin(dir, &["check", "example.qtl"]);
    if out.status.code() == Some(0) {
        Ok(())
    } else {
        Err(format!("not well-formed:\n{}", text(&out.stderr)))
    }
}

/// Makes run-dependent numbers comparable.
fn normalize(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|l| {
            let l = l.trim_end();
            if l.starts_with("events processed: ")
                && let Some(i) = l.find(" in ")
            {
                return format!("{} in …", &l[..i]);
            }
            if l.starts_with('{')
                && let Ok(mut v) = serde_json::from_str::<Value>(l)
                && v.get("seconds").is_some()
            {
                v["seconds"] = Value::from(0);
                return v.to_string();
            }
            l.to_string()
        })
        .collect()
}

/// The commands of a console block and the output each should print.
fn session(body: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut lines = body.lines();
    while let Some(line) = lines.next() {
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut cmd = cmd.to_string();
            while cmd.ends_with('\\') {
                cmd.pop();
                cmd.push('\n');
                cmd.push_str(lines.next().unwrap_or(""));
            }
            out.push((cmd, String::new()));
        } else if let Some((_, expected)) = out.last_mut() {
            expected.push_str(line);
            expected.push('\n');
        }
    }
    out
}

fn check_console(dir: &Path, body: &str) -> Result<(), String> {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![bin_dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).unwrap()
        }
        None => bin_dir.as_os_str().to_owned(),
    };
    let mut last_status: Option<i32> = None;
    let commands = session(body);
    if commands.is_empty() {
        return Err("a console block without `$ ` commands".to_string());
    }
    for (cmd, expected) in commands {
        let got = if cmd.trim() == "echo $?" {
            match last_status {
                Some(s) => format!("{s}\n"),
                None => return Err("`echo $?` before any command".to_string()),
            }
        } else {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("exec 2>&1\n{cmd}"))
                .current_dir(dir)
                .env("PATH", &path)
                .env_remove("HINDSIGHT_GC")
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("cannot run sh: {e}"))?;
            last_status = out.status.code();
            text(&out.stdout)
        };
        if normalize(&got) != normalize(&expected) {
            return Err(format!(
                "`$ {cmd}` printed:\n{got}\nbut the page shows:\n{expected}"
            ));
        }
    }
    Ok(())
}

/// Checks every example of one page; returns the failures with their lines.
fn check_page(name: &str) -> Vec<String> {
    let page = fs::read_to_string(repo().join(name)).unwrap();
    let dir = scratch(name);
    let mut failures = Vec::new();
    let mut fail = |line: usize, what: String| failures.push(format!("{name}:{line}: {what}"));
    // An unnamed qtl block waiting for its trace, and the trace waiting for its verdict.
    let mut spec: Option<(usize, String)> = None;
    let mut trace: Option<(usize, String, Vec<String>)> = None;
    for item in items(&page) {
        match item {
            Item::Verdict { line, text } => match (spec.take(), trace.take()) {
                (Some((_, s)), Some((_, t, flags))) => {
                    if let Err(e) = check_verdict(&dir, &s, &t, &flags, &text) {
                        fail(line, e);
                    }
                }
                _ => fail(
                    line,
                    "a verdict without a qtl and a csv block before it".into(),
                ),
            },
            Item::Block {
                line,
                tag,
                file,
                flags,
                body,
            } => {
                if let Some((l, _, _)) = trace.take() {
                    fail(l, "a trace without a verdict line after it".into());
                    spec = None;
                }
                let unnamed_qtl = tag == "qtl" && file.is_none();
                let unnamed_csv = tag == "csv" && file.is_none();
                if !unnamed_csv
                    && let Some((l, s)) = spec.take()
                    && let Err(e) = check_well_formed(&dir, &s)
                {
                    fail(l, e);
                }
                if let Some(f) = &file {
                    fs::write(dir.join(f), &body).unwrap();
                }
                if unnamed_qtl {
                    spec = Some((line, body));
                } else if unnamed_csv {
                    if spec.is_some() {
                        trace = Some((line, body, flags));
                    } else {
                        fail(line, "a csv block without a qtl block before it".into());
                    }
                } else if tag == "console"
                    && let Err(e) = check_console(&dir, &body)
                {
                    fail(line, e);
                }
            }
        }
    }
    if let Some((l, _, _)) = trace {
        fail(l, "a trace without a verdict line after it".into());
    } else if let Some((l, s)) = spec
        && let Err(e) = check_well_formed(&dir, &s)
    {
        fail(l, e);
    }
    failures
}

fn assert_page(name: &str) {
    let failures = check_page(name);
    assert!(
        failures.is_empty(),
        "{} example(s) of {name} do not hold:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn language_reference_examples_hold() {
    assert_page("docs/LANGUAGE.md");
}

#[test]
fn trace_format_examples_hold() {
    assert_page("docs/TRACES.md");
}

#[test]
fn output_examples_hold() {
    assert_page("docs/OUTPUT.md");
}

#[test]
fn paper_page_examples_hold() {
    assert_page("docs/PAPER.md");
}

#[test]
fn performance_page_examples_hold() {
    assert_page("docs/PERFORMANCE.md");
}

#[test]
fn api_page_examples_hold() {
    assert_page("docs/API.md");
}

#[test]
fn mfotl_page_examples_hold() {
    assert_page("docs/MFOTL.md");
}

#[test]
fn readme_tour_holds() {
    assert_page("README.md");
}

#[test]
fn web_page_examples_hold() {
    assert_page("docs/WEB.md");
}

#[test]
fn why_page_examples_hold() {
    assert_page("docs/WHY.md");
}

#[test]
fn parallel_page_examples_hold() {
    assert_page("docs/PARALLEL.md");
}

#[test]
fn testbed_page_examples_hold() {
    assert_page("docs/TESTBED.md");
}

#[test]
fn python_page_examples_hold() {
    assert_page("docs/PYTHON.md");
}

/// The pages checked above; a new page must be added here and above.
const PAGES: [&str; 13] = [
    "README.md",
    "docs/API.md",
    "docs/LANGUAGE.md",
    "docs/MFOTL.md",
    "docs/OUTPUT.md",
    "docs/PAPER.md",
    "docs/PARALLEL.md",
    "docs/PERFORMANCE.md",
    "docs/PYTHON.md",
    "docs/TESTBED.md",
    "docs/TRACES.md",
    "docs/WEB.md",
    "docs/WHY.md",
];

/// The anchors of a page's headings, as GitHub makes them: lower case,
/// punctuation dropped, spaces as `-` (code blocks have no headings).
fn anchors(page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in page.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        if in_code {
            continue;
        }
        let title = title.trim_start_matches('#').trim();
        out.push(
            title
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect(),
        );
    }
    out
}

#[test]
fn every_page_is_checked_and_its_links_resolve() {
    let mut pages: Vec<String> = fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    pages.push("README.md".to_string());
    pages.sort();
    assert_eq!(pages, PAGES, "docs pages and the tests of this file differ");
    let mut broken = Vec::new();
    for name in PAGES {
        let page = fs::read_to_string(repo().join(name)).unwrap();
        let base = repo().join(name);
        let base = base.parent().unwrap();
        for (i, line) in page.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                let Some(end) = rest.find(')') else { break };
                let target = &rest[..end];
                rest = &rest[end..];
                if target.contains("://") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let path = if file.is_empty() {
                    repo().join(name)
                } else {
                    base.join(file)
                };
                if !path.exists() {
                    broken.push(format!("{name}:{}: {target}", i + 1));
                } else if !anchor.is_empty()
                    && path.extension().is_some_and(|e| e == "md")
                    && !anchors(&fs::read_to_string(&path).unwrap()).contains(&anchor.to_string())
                {
                    broken.push(format!("{name}:{}: {target} (no such heading)", i + 1));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}

#[test]
fn verdict_lines_are_read_as_documented() {
    assert_eq!(
        parse_verdict("satisfied."),
        Ok(vec![(None, vec![], vec![])])
    );
    assert_eq!(
        parse_verdict("violated at events 2, 5."),
        Ok(vec![(None, vec![2, 5], vec![])])
    );
    assert_eq!(
        parse_verdict("`p` violated at event 3; `q` satisfied."),
        Ok(vec![
            (Some("p".to_string()), vec![3], vec![]),
            (Some("q".to_string()), vec![], vec![])
        ])
    );
    assert_eq!(
        parse_verdict("violated at event 2; undecided at events 7, 8."),
        Ok(vec![(None, vec![2], vec![7, 8])])
    );
    assert!(parse_verdict("violated somewhere").is_err());
    assert_eq!(
        normalize("events processed: 3 in 0.001 s (3000 events/s)\n"),
        vec!["events processed: 3 in …"]
    );
}

/// Every example specification opens with a comment that explains it.
#[test]
fn example_specs_open_with_an_explanation() {
    for entry in fs::read_dir(repo().join("specs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("qtl") {
            continue;
        }
        let spec = fs::read_to_string(&path).unwrap();
        let comment: Vec<&str> = spec.lines().take_while(|l| l.starts_with("//")).collect();
        assert!(
            comment.len() >= 3,
            "{} does not open with a comment of several lines",
            path.display()
        );
        let words = comment.join(" ").to_lowercase();
        assert!(
            words.contains("trace"),
            "the opening comment of {} does not say what its traces show",
            path.display()
        );
    }
}

/// `examples/online.rs`, the complete program of docs/API.md, reports what
/// `hindsight run` reports (`cargo test` builds the examples).
#[test]
fn online_example_program_reports_violations() {
    let exe = Path::new(BIN)
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("online{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.is_file(),
        "{} was not built (a plain `cargo test` builds the examples)",
        exe.display()
    );
    let trace = fs::read(repo().join("specs/file_access.csv")).unwrap();
    let mut child = Command::new(&exe)
        .arg(repo().join("specs/file_access.qtl"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&trace).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            "accessWhileOpen violated at line 1: read,cfg",
            "accessWhileOpen violated at line 5: read,db",
            "accessWhileOpen violated at line 8: write,cfg",
            "noReopen violated at line 9: open,db",
            "accessWhileOpen violated at line 11: close,db",
        ]
    );
}

/// The options of `hindsight run`, as its short help lists them, each with
/// the line describing it.
fn run_options() -> Vec<(String, String)> {
    let out = run_bin(repo(), &["run", "-h"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    help.lines()
        .filter(|l| l.trim_start().starts_with('-'))
        .filter_map(|l| {
            let long = l.split_whitespace().find(|w| w.starts_with("--"))?;
            let long = long.trim_end_matches(',').to_string();
            (long != "--help").then(|| (long, l.to_string()))
        })
        .collect()
}

#[test]
fn every_run_option_states_its_default_in_the_help() {
    let options = run_options();
    assert!(options.len() >= 9, "too few options found: {options:?}");
    for (name, line) in &options {
        assert!(
            line.contains("[default:"),
            "`hindsight run -h` does not give the default of {name}: {line}"
        );
    }
}

#[test]
fn output_page_lists_every_run_option() {
    let page = fs::read_to_string(repo().join("docs/OUTPUT.md")).unwrap();
    for (name, _) in run_options() {
        assert!(
            page.contains(&format!("| `{name}")) || page.contains(&format!("`, `{name}")),
            "docs/OUTPUT.md has no row for {name}"
        );
    }
}

/// The paragraphs of `hindsight run --help`, one per argument or option:
/// its first line (`-o, --output <FILE>`) and its whole text.
fn run_long_help() -> Vec<(String, String)> {
    let out = run_bin(repo(), &["run", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    let mut items: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        let head = line.trim_start();
        let indent = line.len() - head.len();
        let starts = (2..=6).contains(&indent)
            && (head.starts_with('-') || head.starts_with('<') || head.starts_with('['));
        if starts {
            items.push((head.to_string(), String::new()));
        } else if line.starts_with("Examples:") {
            break;
        } else if let Some((_, body)) = items.last_mut() {
            body.push_str(head);
            body.push('\n');
        }
    }
    items
}

#[test]
fn run_help_gives_one_true_default_per_option() {
    let items = run_long_help();
    assert!(items.len() >= 30, "too few options found: {items:?}");
    for (head, body) in &items {
        assert!(
            body.matches("[default:").count() <= 1,
            "`hindsight run --help` gives two defaults for {head}:\n{body}"
        );
    }
    let (_, decimals) = items
        .iter()
        .find(|(head, _)| head.starts_with("--time-decimals"))
        .expect("--time-decimals in the help");
    assert!(
        decimals
            .contains("[default: the most decimal digits of any time bound of the specification"),
        "{decimals}"
    );
    assert!(!decimals.contains("[default: 0]"), "{decimals}");
}

#[test]
fn run_help_names_every_trace_format() {
    let out = run_bin(repo(), &["run", "--help"]);
    let help = text(&out.stdout);
    let (description, _) = help.split_once("Usage:").expect("a usage line");
    for words in [
        "plain CSV",
        "CRV CSV",
        "XML",
        "JSON",
        "MonPoly log",
        "gzip",
        "zstd",
    ] {
        assert!(
            description.contains(words),
            "the description of run omits {words}: {description}"
        );
    }
    let items = run_long_help();
    let (_, trace) = items
        .iter()
        .find(|(head, _)| head == "[TRACE]")
        .expect("the trace argument");
    for words in ["CSV", "XML", "JSON", "MonPoly", "compressed"] {
        assert!(trace.contains(words), "[TRACE] omits {words}: {trace}");
    }
}

#[test]
fn top_level_help_lists_every_doc() {
    let out = run_bin(repo(), &["--help"]);
    let help = text(&out.stdout).replace('\n', " ");
    let mut docs: Vec<String> = fs::read_dir(repo().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 8, "{docs:?}");
    for doc in &docs {
        assert!(
            help.contains(doc.as_str()),
            "`hindsight --help` does not list docs/{doc}"
        );
    }
}
