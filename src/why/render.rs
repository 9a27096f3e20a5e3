//! An explanation as text (an indented tree, one node a line) or as JSON.

use serde_json::{Value, json};

use super::{Explanation, Node};

/// The explanation as text: a heading, the values it is for, the events
/// it cites, then the proof tree, each node on a line as
/// `` `formula` is false at 5: reason ``, its proofs indented below it.
pub fn text(e: &Explanation) -> String {
    let mut out = String::new();
    let verdict = if e.violated {
        "violated"
    } else {
        "not violated"
    };
    let line = if e.line != e.event {
        format!(" (line {})", e.line)
    } else {
        String::new()
    };
    out += &format!(
        "property {} {verdict} at event {}{line}: {}\n",
        e.property, e.event, e.event_text
    );
    if !e.assignment.is_empty() {
        let values: Vec<String> = (e.assignment.iter())
            .map(|(n, v)| format!("{n}={}", v.as_deref().unwrap_or("<any unseen value>")))
            .collect();
        let how = if e.assigned { "for" } else { "witness:" };
        out += &format!("{how} {}\n", values.join(" "));
    }
    if e.cited.is_empty() {
        out += "events cited: none\n";
    } else {
        let cited: Vec<String> = e.cited.iter().map(|(n, t)| format!("{n} {t}")).collect();
        out += &format!("events cited: {}\n", cited.join(", "));
    }
    let mut stack = vec![(&e.proof, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        out += &"  ".repeat(depth);
        out += &format!("`{}` is {} at {}", n.formula, n.holds, n.event);
        if !n.reason.is_empty() {
            out += ": ";
            out += &n.reason;
        }
        if n.cut && !n.reason.starts_with("not expanded") {
            out += " (cut: the explanation has its maximum size)";
        }
        out.push('\n');
        stack.extend(n.children.iter().rev().map(|c| (c, depth + 1)));
    }
    out
}

/// The explanation as a JSON object (see docs/WHY.md).
pub fn json(e: &Explanation) -> Value {
    let assignment: serde_json::Map<String, Value> = (e.assignment.iter())
        .map(|(n, v)| (n.clone(), v.clone().map_or(Value::Null, Value::String)))
        .collect();
    json!({
        "property": e.property,
        "event": e.event,
        "line": e.line,
        "event_text": e.event_text,
        "violated": e.violated,
        "assignment": assignment,
        "assigned": e.assigned,
        "events": e.cited.iter().map(|(n, t)| json!({"event": n, "text": t})).collect::<Vec<_>>(),
        "proof": node(&e.proof),
    })
}

fn node(n: &Node) -> Value {
    stacker::maybe_grow(64 * 1024, 1 << 20, || {
        json!({
            "formula": n.formula,
            "holds": n.holds,
            "event": n.event,
            "reason": n.reason,
            "events": n.events,
            "cut": n.cut,
            "children": n.children.iter().map(node).collect::<Vec<_>>(),
        })
    })
}
