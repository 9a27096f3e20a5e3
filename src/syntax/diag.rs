//! Diagnostics: errors and warnings with a source place, rendered as
//! `file:line:col: error: message`, the offending line and a caret.

use std::fmt::Write as _;

use super::span::{LineIndex, Span};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Stops the tool before any event is read.
    Error,
    /// Reported, not fatal.
    Warning,
}

/// One error or warning about a specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where in the specification.
    pub span: Span,
    /// What is wrong, for a person.
    pub message: String,
    /// Further places that explain it (e.g. the earlier definition).
    pub notes: Vec<(Span, String)>,
    /// What to write instead, when the cause is known (e.g. `&&` for `&`):
    /// rendered last, as `= hint: ...`.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            notes: Vec::new(),
            hint: None,
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            span,
            message: message.into(),
            notes: Vec::new(),
            hint: None,
        }
    }

    /// Adds a note pointing at another place.
    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> Diagnostic {
        self.notes.push((span, note.into()));
        self
    }

    /// Adds a hint: what to write instead.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic against the source it refers to.
    pub fn render(&self, file: &str, text: &str) -> String {
        let index = LineIndex::new(text);
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = String::new();
        excerpt(&mut out, file, text, &index, self.span, kind, &self.message);
        for (span, note) in &self.notes {
            excerpt(&mut out, file, text, &index, *span, "note", note);
        }
        if let Some(hint) = &self.hint {
            let (line, _) = index.line_col(text, self.span.start);
            let gutter = line.to_string().len();
            let _ = writeln!(out, "{:gutter$} = hint: {hint}", "");
        }
        out
    }
}

fn excerpt(
    out: &mut String,
    file: &str,
    text: &str,
    index: &LineIndex,
    span: Span,
    kind: &str,
    message: &str,
) {
    let (line, col) = index.line_col(text, span.start);
    let _ = writeln!(out, "{file}:{line}:{col}: {kind}: {message}");
    let source = index.line_text(text, line);
    let shown: String = source.chars().take(200).collect();
    let (end_line, end_col) = index.line_col(text, span.end);
    let width = if end_line == line {
        end_col.saturating_sub(col).max(1)
    } else {
        1
    };
    let width = width.min(shown.chars().count().saturating_sub(col - 1).max(1));
    let gutter = line.to_string().len();
    let _ = writeln!(out, "{:gutter$} |", "");
    let _ = writeln!(out, "{line} | {shown}");
    let pad: String = shown
        .chars()
        .take(col - 1)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let _ = writeln!(out, "{:gutter$} | {pad}{}", "", "^".repeat(width));
}
