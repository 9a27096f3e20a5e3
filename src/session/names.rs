//! Event names of the trace that no property mentions: why they are there
//! (a trace in another shape than the specification expects) and what to do.
//!
//! A trace none of whose events the specification mentions is read (a
//! "never X" property holds on it): a warning lists the names. It is a
//! misread only when its first events show it ([`is_evidence`]; the decision
//! is [`super::read`]'s). When only some names are unknown, a warning names
//! the likely cause (a name without one, such as a `tick` that no property
//! needs, is only listed in the summary):
//!
//! - another field separator (`open;cfg`, a tab, `|`): the whole line became
//!   the event's name;
//! - another case (`Open` for `open`);
//! - another tool's log format: MonPoly (`@10 open(cfg)`), XML (`<event>`),
//!   JSON (`{"name": ...}`), each read with `--format monpoly|xml|json`;
//! - a spelling close to a name of the specification (did you mean ...?).

use std::collections::BTreeMap;

/// How many unknown names a warning lists.
const SHOWN: usize = 5;

/// What the trace's event names say about the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameReport {
    /// Events whose name no property mentions.
    pub unknown_events: u64,
    /// All events.
    pub events: u64,
    /// Lines for standard error: the unknown names, then one hint per cause.
    pub lines: Vec<String>,
}

impl NameReport {
    /// Whether no event of a non-empty trace is known to the specification
    /// (which knows some event).
    pub fn nothing_understood(&self) -> bool {
        self.events > 0 && self.unknown_events == self.events
    }
}

/// Looks at the trace's `counts` (occurrences per event name) against the
/// specification's event names.
pub fn check_names(spec: &[String], counts: &BTreeMap<String, u64>) -> NameReport {
    let unknown: Vec<(&String, u64)> = counts
        .iter()
        .filter(|(name, _)| !spec.contains(name))
        .map(|(name, &n)| (name, n))
        .collect();
    let mut report = NameReport {
        // A specification without events (`prop p : false`) is not about names.
        unknown_events: if spec.is_empty() {
            0
        } else {
            unknown.iter().map(|(_, n)| n).sum()
        },
        events: counts.values().sum(),
        lines: Vec::new(),
    };
    if unknown.is_empty() || spec.is_empty() {
        return report;
    }
    let understood = report.unknown_events < report.events;
    // Names without a likely mistake (a `tick` the properties ignore) are
    // only counted in the summary, unless nothing else is in the trace.
    if understood
        && !unknown
            .iter()
            .any(|(name, _)| kind_of(spec, name).is_some())
    {
        return report;
    }
    let mut listed: Vec<String> = unknown
        .iter()
        .take(SHOWN)
        .map(|(name, n)| format!("`{}` ({n})", shorten(name)))
        .collect();
    if unknown.len() > SHOWN {
        listed.push(format!("and {} more", unknown.len() - SHOWN));
    }
    report.lines.push(format!(
        "{} of {} events have a name that no property mentions: {}",
        report.unknown_events,
        report.events,
        listed.join(", ")
    ));
    // One hint per kind of cause (the first name that shows it).
    let mut kinds: Vec<Kind> = Vec::new();
    for (name, _) in &unknown {
        if let Some((kind, hint)) = cause(spec, name)
            && !kinds.contains(&kind)
        {
            kinds.push(kind);
            report.lines.push(hint);
        }
    }
    report
}

/// The error for an event `name` that the specification does not know
/// (`--strict`), with its likely cause.
pub fn unknown_event(spec: &[String], name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    let hint = cause(spec, &name)
        .map(|(_, h)| format!(" ({})", h.trim_start_matches("hint: ")))
        .unwrap_or_default();
    format!(
        "event `{}` is not in the specification (--strict){hint}",
        shorten(&name)
    )
}

/// Whether the unknown name `name`, of the event on `line`, is evidence that
/// a trace none of whose events the specification mentions was misread:
/// another format's shape (a MonPoly time-point `@10 ...`, an XML tag of the
/// CRV format, a JSON object or array of objects, an event written as a call
/// `open(cfg)`, the CRV header `event` on the first line), or a name of the
/// specification in another case (`Open`) or followed by another separator
/// (`open;cfg`). A name that merely is not the specification's, however it
/// is spelled, is not.
pub fn is_evidence(spec: &[String], name: &str, line: u64) -> bool {
    let t = name.trim();
    let after = |prefix: &str| t.get(prefix.len()..).unwrap_or_default().trim_start();
    let monpoly = t.starts_with('@') && after("@").starts_with(|c: char| c.is_ascii_digit());
    let xml = ["<?xml", "<!--", "<!DOCTYPE"]
        .iter()
        .any(|p| t.starts_with(p))
        || ["log", "event", "name", "field", "value"]
            .iter()
            .any(|tag| {
                t.strip_prefix('<')
                    .and_then(|rest| rest.strip_prefix(tag))
                    .is_some_and(|rest| rest.starts_with(['>', '/', ' ', '\t']))
            });
    let json = (t.starts_with('{') && after("{").starts_with(['"', '}']))
        || (t.starts_with('[') && after("[").starts_with(['{', ']']));
    let header = line == 1 && t.eq_ignore_ascii_case("event");
    let case = spec.iter().any(|s| s.eq_ignore_ascii_case(name));
    let separator = name
        .split_once([';', '\t', '|', ' '])
        .is_some_and(|(head, rest)| !rest.trim().is_empty() && spec.iter().any(|s| s == head));
    monpoly || xml || json || is_call(t) || header || case || separator
}

/// The kinds of causes of unknown names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Format,
    Separator,
    Case,
    Spelling,
}

/// The likely cause of the unknown event name `name`, as a hint.
fn cause(spec: &[String], name: &str) -> Option<(Kind, String)> {
    let kind = kind_of(spec, name)?;
    Some((kind, hint_for(kind, spec, name)?))
}

fn kind_of(spec: &[String], name: &str) -> Option<Kind> {
    let t = name.trim_start();
    if t.starts_with(['@', '<', '{', '[']) || is_call(t) || t.eq_ignore_ascii_case("event") {
        Some(Kind::Format)
    } else if name.contains([';', '\t', '|', ' ']) {
        Some(Kind::Separator)
    } else if spec.iter().any(|s| s.eq_ignore_ascii_case(name)) {
        Some(Kind::Case)
    } else {
        did_you_mean(name, spec.iter().map(String::as_str)).map(|_| Kind::Spelling)
    }
}

/// Whether `name` looks like an event written as a call, `open(cfg)`.
fn is_call(name: &str) -> bool {
    name.trim_end().ends_with(')')
        && name
            .split_once('(')
            .is_some_and(|(head, _)| !head.is_empty() && !head.contains([' ', ';', '\t']))
}

/// The hint for `name`, whose cause is of kind `_kind`.
fn hint_for(_kind: Kind, spec: &[String], name: &str) -> Option<String> {
    let trimmed = name.trim_start();
    if trimmed.starts_with('@') {
        return Some(format!(
            "hint: `{}` looks like a MonPoly log line (`@TIME name(args)`): read it with --format monpoly",
            shorten(name)
        ));
    }
    if trimmed.starts_with('<') {
        return Some(format!(
            "hint: `{}` looks like XML: read an XML trace with --format xml",
            shorten(name)
        ));
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return Some(format!(
            "hint: `{}` looks like JSON: read a JSON trace with --format json",
            shorten(name)
        ));
    }
    if trimmed.eq_ignore_ascii_case("event") {
        return Some(format!(
            "hint: `{}` looks like the header line of a CRV CSV trace (`event, field, ...`): \
             read it with --format crv (or the default --format auto)",
            shorten(name)
        ));
    }
    if is_call(trimmed) {
        return Some(format!(
            "hint: `{}` is written as a call `name(args)`: a CSV trace has one event per \
             line as `name,arg1,arg2`; a MonPoly log has `@TIME` before the events of each \
             time-point (read it with --format monpoly)",
            shorten(name)
        ));
    }
    for (sep, shown) in [
        (';', "`;`"),
        ('\t', "a tab"),
        ('|', "`|`"),
        (' ', "a space"),
    ] {
        if let Some((first, _)) = name.split_once(sep) {
            let known = spec.iter().any(|s| s == first.trim());
            return Some(format!(
                "hint: `{}` contains {shown}{}: the fields of a trace are separated by commas \
                 (`name,arg1,arg2`); convert the trace, e.g. with `tr '{}' ','`",
                shorten(name),
                if known {
                    format!(" after the event name `{}`", first.trim())
                } else {
                    String::new()
                },
                if sep == '\t' {
                    "\\t".to_string()
                } else {
                    sep.to_string()
                },
            ));
        }
    }
    if let Some(s) = spec.iter().find(|s| s.eq_ignore_ascii_case(name)) {
        return Some(format!(
            "hint: `{}` differs from the specification's `{s}` only in case: names are case-sensitive",
            shorten(name)
        ));
    }
    did_you_mean(name, spec.iter().map(String::as_str))
        .map(|s| format!("hint: `{}`: did you mean `{s}`?", shorten(name)))
}

/// The candidate closest to `name` by edit distance, if it is close enough to
/// be a likely misspelling: an edit distance (insertions, deletions,
/// substitutions, swaps of neighbours) of at most a third of the longer
/// name's length.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(name, c), c))
        .filter(|&(d, c)| d > 0 && 3 * d <= name.chars().count().max(c.chars().count()))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// A name cut for a message: at most 40 characters, control characters escaped.
pub(super) fn shorten(name: &str) -> String {
    let mut out: String = name.chars().take(40).flat_map(char::escape_debug).collect();
    if name.chars().count() > 40 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(spec: &[&str], trace: &[(&str, u64)]) -> NameReport {
        let spec: Vec<String> = spec.iter().map(|s| s.to_string()).collect();
        let counts = trace.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        check_names(&spec, &counts)
    }

    #[test]
    fn semicolons_are_named() {
        let r = report(&["open", "close"], &[("open;cfg", 2), ("close;cfg", 1)]);
        assert!(r.nothing_understood());
        assert_eq!(r.lines.len(), 2, "{:?}", r.lines);
        assert_eq!(
            r.lines[0],
            "3 of 3 events have a name that no property mentions: `close;cfg` (1), `open;cfg` (2)"
        );
        assert!(r.lines[1].contains("contains `;` after the event name `close`"));
    }

    #[test]
    fn case_monpoly_xml_json_and_misspellings() {
        let r = report(
            &["open", "close"],
            &[("Open", 1), ("@10 open(cfg)", 1), ("clsoe", 1), ("open", 1)],
        );
        assert!(!r.nothing_understood());
        let all = r.lines.join("\n");
        assert!(all.contains("only in case"), "{all}");
        assert!(all.contains("--format monpoly"), "{all}");
        for (name, flag) in [("<event>", "--format xml"), ("{\"e\": 1}", "--format json")] {
            let all = report(&["open"], &[(name, 1)]).lines.join("\n");
            assert!(all.contains(flag), "{all}");
        }
        assert!(all.contains("`clsoe`: did you mean `close`?"), "{all}");
        let all = report(&["open"], &[("open(cfg)", 1)]).lines.join("\n");
        assert!(all.contains("is written as a call `name(args)`"), "{all}");
        assert!(!is_call("(x)") && !is_call("open") && !is_call("a b(c)"));
    }

    #[test]
    fn known_names_give_nothing() {
        let r = report(&["a"], &[("a", 4)]);
        assert_eq!(
            r,
            NameReport {
                unknown_events: 0,
                events: 4,
                lines: vec![]
            }
        );
        assert!(!report(&["a"], &[]).nothing_understood());
        assert!(!report(&[], &[("a", 1)]).nothing_understood());
    }

    #[test]
    fn evidence_of_a_misread_is_another_format_or_the_specs_names_reshaped() {
        let spec: Vec<String> = vec!["open".into(), "close".into()];
        for name in [
            "@10 open(cfg)",
            "@ 3",
            "<?xml version=\"1.0\"?>",
            "<log>",
            "<event>",
            "<field><name>f</name>",
            "{\"open\": {\"f\": \"a\"}}",
            "{}",
            "[{\"open\": {}}",
            "open(cfg)",
            "Open",
            "CLOSE",
            "open;cfg",
            "open\tcfg",
            "close|x",
            "open cfg",
        ] {
            assert!(is_evidence(&spec, name, 3), "{name}");
        }
        assert!(is_evidence(&spec, "event", 1) && is_evidence(&spec, "Event", 1));
        // Names a healthy log may have: not evidence.
        for name in [
            "event",
            "<init>",
            "@home",
            "{x",
            "[1]",
            "GET /index",
            "start;1",
            "openx",
            "crash",
            "open;",
            "a|b",
        ] {
            assert!(!is_evidence(&spec, name, 2), "{name}");
        }
    }

    #[test]
    fn did_you_mean_needs_a_close_name() {
        assert_eq!(
            did_you_mean("telemetry1", ["telemetry2", "spawning"]),
            Some("telemetry2")
        );
        assert_eq!(did_you_mean("xyz", ["telemetry2"]), None);
    }
}
