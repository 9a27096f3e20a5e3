//! Parts of `hindsight run` around the event loop: the choice of properties
//! (`--prop`) and the bad lines skipped (`--on-error skip`).

use std::path::Path;
use std::process::ExitCode;

use hindsight::plan::Plan;

use super::names;

/// Keeps only the properties named by `--prop` (all without it); an unknown
/// name is an error, with the closest property name as a suggestion.
pub fn select_props(spec: &Path, plan: &mut Plan, wanted: &[String]) -> Result<(), ExitCode> {
    if let Some(unknown) = wanted
        .iter()
        .find(|name| !plan.props.iter().any(|p| &p.name == *name))
    {
        let known: Vec<&str> = plan.props.iter().map(|p| p.name.as_str()).collect();
        let suggestion = names::did_you_mean(unknown, known.iter().copied())
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        eprintln!(
            "error: {} has no property `{unknown}`{suggestion}; its properties are: {}",
            spec.display(),
            known.join(", ")
        );
        return Err(ExitCode::from(2));
    }
    if !wanted.is_empty() {
        plan.props.retain(|p| wanted.contains(&p.name));
    }
    Ok(())
}

/// Bad lines skipped with `--on-error skip`: how many, and the first few.
#[derive(Default)]
pub struct BadLines {
    /// Lines skipped.
    pub count: u64,
    /// The first few of them.
    pub first: Vec<u64>,
}

impl BadLines {
    /// How many line numbers the summary shows.
    const SHOWN: usize = 5;

    /// Counts the bad line `line`.
    pub fn skip(&mut self, line: u64) {
        self.count += 1;
        if self.first.len() < Self::SHOWN {
            self.first.push(line);
        }
    }
}
