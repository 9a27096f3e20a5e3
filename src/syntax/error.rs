//! Typed results of reading a specification: [`SpecError`] when it is
//! refused, [`Warnings`] when it is accepted.
//!
//! Both deref to a slice of [`Diagnostic`]s (a `SpecError` to its errors),
//! so code that read the list of diagnostics they replace reads them as
//! before: `err.len()`, `err[0].message`, `for d in &err`.

use std::fmt;
use std::ops::Deref;

use super::diag::Diagnostic;

/// Why a specification was refused: every error found, by position, and
/// apart from them the warnings found along with them (if any).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecError {
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

impl SpecError {
    /// Sorts `diagnostics` into errors and warnings, each in the given order.
    pub fn new(diagnostics: Vec<Diagnostic>) -> SpecError {
        let (errors, warnings) = diagnostics.into_iter().partition(Diagnostic::is_error);
        SpecError { errors, warnings }
    }

    /// The errors, in the order found (by position in the source).
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// The warnings found along with the errors.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The errors rendered against the source as `hindsight check` prints
    /// them, each with its line and caret, then `file: N errors`.
    pub fn render(&self, file: &str, text: &str) -> String {
        let mut out: String = self.errors.iter().map(|d| d.render(file, text)).collect();
        let n = self.errors.len();
        if n > 0 {
            out.push_str(&format!(
                "{file}: {n} error{}\n",
                if n == 1 { "" } else { "s" }
            ));
        }
        out
    }
}

impl Deref for SpecError {
    type Target = [Diagnostic];

    /// The errors.
    fn deref(&self) -> &[Diagnostic] {
        &self.errors
    }
}

impl fmt::Display for SpecError {
    /// The first error's message, with the number of the others.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.errors.split_first() {
            None => write!(f, "the specification was refused"),
            Some((first, [])) => write!(f, "{}", first.message),
            Some((first, [_])) => write!(f, "{} (and 1 more error)", first.message),
            Some((first, rest)) => write!(f, "{} (and {} more errors)", first.message, rest.len()),
        }
    }
}

impl std::error::Error for SpecError {}

impl From<Diagnostic> for SpecError {
    fn from(d: Diagnostic) -> SpecError {
        SpecError::new(vec![d])
    }
}

impl From<Vec<Diagnostic>> for SpecError {
    fn from(ds: Vec<Diagnostic>) -> SpecError {
        SpecError::new(ds)
    }
}

impl IntoIterator for SpecError {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    /// The errors.
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl<'a> IntoIterator for &'a SpecError {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

/// The warnings about an accepted specification (unused declarations and
/// macros), in the order found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warnings(Vec<Diagnostic>);

impl Warnings {
    /// The warnings among `diagnostics`.
    pub fn new(diagnostics: Vec<Diagnostic>) -> Warnings {
        Warnings(diagnostics.into_iter().filter(|d| !d.is_error()).collect())
    }

    /// Adds a warning.
    pub fn push(&mut self, warning: Diagnostic) {
        self.0.push(warning);
    }
}

impl Deref for Warnings {
    type Target = [Diagnostic];

    fn deref(&self) -> &[Diagnostic] {
        &self.0
    }
}

impl IntoIterator for Warnings {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Warnings {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Span;

    fn errors(n: usize) -> SpecError {
        let mut ds = vec![Diagnostic::warning(Span::new(0, 1), "unused")];
        ds.extend((0..n).map(|i| Diagnostic::error(Span::new(i, i + 1), format!("bad {i}"))));
        SpecError::new(ds)
    }

    #[test]
    fn errors_and_warnings_are_kept_apart() {
        let e = errors(2);
        assert_eq!(e.len(), 2, "derefs to the errors");
        assert_eq!(e[1].message, "bad 1");
        assert_eq!(e.warnings().len(), 1);
        assert_eq!(e.warnings()[0].message, "unused");
        let w = Warnings::new(vec![
            Diagnostic::warning(Span::new(0, 1), "unused"),
            Diagnostic::error(Span::new(0, 1), "bad"),
        ]);
        assert_eq!(
            w.iter().map(|d| d.message.as_str()).collect::<Vec<_>>(),
            ["unused"]
        );
    }

    #[test]
    fn display_names_the_first_error_and_counts_the_others() {
        assert_eq!(errors(1).to_string(), "bad 0");
        assert_eq!(errors(2).to_string(), "bad 0 (and 1 more error)");
        assert_eq!(errors(3).to_string(), "bad 0 (and 2 more errors)");
        let boxed: Box<dyn std::error::Error> = Box::new(errors(1));
        assert_eq!(boxed.to_string(), "bad 0");
    }

    #[test]
    fn render_is_what_the_checker_prints() {
        let text = "prop p : a(y)";
        let e = SpecError::new(vec![Diagnostic::error(
            Span::new(11, 12),
            "free variable `y`",
        )]);
        assert_eq!(
            e.render("s.qtl", text),
            "s.qtl:1:12: error: free variable `y`\n  |\n1 | prop p : a(y)\n  |            ^\ns.qtl: 1 error\n"
        );
    }
}
