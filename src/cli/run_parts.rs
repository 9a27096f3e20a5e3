//! The choice of properties of `hindsight run` (`--prop`).

use std::path::Path;
use std::process::ExitCode;

use crate::plan::Plan;

use crate::session::did_you_mean;

/// Keeps only the properties named by `--prop` (all without it); an unknown
/// name is an error, with the closest property name as a suggestion.
pub fn select_props(spec: &Path, plan: &mut Plan, wanted: &[String]) -> Result<(), ExitCode> {
    if let Some(unknown) = wanted
        .iter()
        .find(|name| !plan.props.iter().any(|p| &p.name == *name))
    {
        let known: Vec<&str> = plan.props.iter().map(|p| p.name.as_str()).collect();
        let suggestion = did_you_mean(unknown, known.iter().copied())
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
