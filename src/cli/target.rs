//! Where and how the report of `hindsight run` goes: `--report text|json`
//! (`--json`), `-o/--output FILE`, `--color auto|always|never`.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// When to colour the text report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// When the report goes to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The report's destination and format, from the options.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// JSON lines (else text).
    pub json: bool,
    /// The file to write, or `None` for standard output.
    pub file: Option<PathBuf>,
    /// A note for standard error (a deprecated spelling).
    pub note: Option<String>,
}

/// Resolves `--report` (`json_report`), `--json` and `-o/--output`. The
/// former meaning of `--output`, the format (`--output json`, `--output
/// text`), is still understood, with a note; a file named `json` is
/// `-o ./json`. `-o -` is standard output.
pub fn target(json_report: bool, json: bool, output: Option<&Path>) -> Target {
    let mut t = Target {
        json: json_report || json,
        file: output.map(Path::to_path_buf),
        note: None,
    };
    if let Some(word) = output.and_then(Path::to_str)
        && (word == "json" || word == "text")
    {
        t.json = t.json || word == "json";
        t.file = None;
        t.note = Some(format!(
            "note: `--output {word}` is the former spelling of `--report {word}`; \
             `-o/--output` now names the report's file (`-o ./{word}` for a file named {word})"
        ));
    }
    if t.file.as_deref() == Some(Path::new("-")) {
        t.file = None;
    }
    t
}

/// Whether to colour: `auto` colours a text report on a terminal unless the
/// environment variable `NO_COLOR` is set to anything but the empty string.
pub fn use_color(color: Color, target: &Target, no_color: Option<&str>) -> bool {
    match color {
        Color::Always => !target.json,
        Color::Never => false,
        Color::Auto => {
            !target.json
                && target.file.is_none()
                && no_color.is_none_or(str::is_empty)
                && io::stdout().is_terminal()
        }
    }
}

/// Opens the report's file (a message on failure).
pub fn create(path: &Path) -> Result<Box<dyn Write>, String> {
    File::create(path)
        .map(|f| Box::new(f) as Box<dyn Write>)
        .map_err(|e| format!("error: cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_a_file_and_the_old_spelling_works() {
        let t = target(false, false, Some(Path::new("json")));
        assert!(t.json && t.file.is_none());
        assert!(t.note.is_some_and(|n| n.contains("--report json")));
        let t = target(false, true, Some(Path::new("r.jsonl")));
        assert_eq!(t.file.as_deref(), Some(Path::new("r.jsonl")));
        assert!(t.json && t.note.is_none());
        assert_eq!(target(false, false, Some(Path::new("-"))).file, None);
        assert!(!target(false, false, None).json);
    }

    #[test]
    fn colour_follows_no_color_and_the_format() {
        let text = target(false, false, None);
        assert!(use_color(Color::Always, &text, Some("1")));
        assert!(!use_color(Color::Never, &text, None));
        assert!(!use_color(Color::Auto, &text, Some("1")));
        let json = target(true, false, None);
        assert!(!use_color(Color::Always, &json, None));
    }
}
