//! MFOTL specifications on the command line: `--sig`, `--mfotl`, `--negate`
//! and `--show-qtl` (docs/MFOTL.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hindsight::mfotl::{self, MfotlError, Reading, Translation};
use hindsight::plan::Plan;

/// Options for MFOTL specifications (MonPoly's formula files).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MfotlArgs {
    /// The MonPoly signature of an MFOTL specification (`name(attr:type,
    /// ...)`, types string, int, float) [default: none; required for MFOTL].
    #[arg(long, value_name = "FILE.sig")]
    pub sig: Option<PathBuf>,
    /// Read the specification as an MFOTL formula (MonPoly's past-time
    /// fragment) [default: off, but on for a name ending in `.mfotl`].
    #[arg(long)]
    pub mfotl: bool,
    /// MFOTL: the formula is the property and its violations are reported,
    /// as MonPoly's `-negate` [default: off: the formula is a pattern and the
    /// time points (and tuples) where it is satisfied are reported].
    #[arg(long)]
    pub negate: bool,
    /// MFOTL on a MonPoly log: step each event on its own, as QTL does
    /// [default: off: each time-point is one step at which all its events
    /// hold, as in MonPoly].
    #[arg(long, conflicts_with = "timepoints")]
    pub event_steps: bool,
}

impl MfotlArgs {
    /// Whether `spec` is to be read as MFOTL.
    pub fn is_mfotl(&self, spec: &Path) -> bool {
        self.mfotl || spec.extension().is_some_and(|e| e == "mfotl")
    }

    /// Whether satisfactions are reported in MonPoly's style.
    pub fn reports_satisfactions(&self, spec: &Path) -> bool {
        self.is_mfotl(spec) && !self.negate
    }
}

/// Reads, translates and compiles an MFOTL specification with its
/// signature, printing warnings; on errors prints them (placed in the
/// formula or in the signature file) and gives exit status 2.
pub fn load(spec: &Path, args: &MfotlArgs) -> Result<(String, Plan, Translation), ExitCode> {
    let Some(sig_path) = &args.sig else {
        eprintln!(
            "error: {} is an MFOTL specification: give its MonPoly signature with --sig FILE.sig",
            spec.display()
        );
        return Err(ExitCode::from(2));
    };
    let formula = super::read_spec(spec)?;
    let signature = super::read_spec(sig_path)?;
    let stem = spec
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let reading = if args.negate {
        Reading::Violations
    } else {
        Reading::Satisfactions
    };
    match mfotl::compile(&formula, &signature, &mfotl::property_name(&stem), reading) {
        Ok((plan, translation, warnings)) => {
            super::commands::print_diagnostics(spec, &formula, &warnings);
            Ok((formula, plan, translation))
        }
        Err(MfotlError::Formula(d)) => {
            super::commands::print_diagnostics(spec, &formula, &[d]);
            Err(ExitCode::from(2))
        }
        Err(MfotlError::Checks(ds)) => {
            super::commands::print_diagnostics(spec, &formula, &ds);
            Err(ExitCode::from(2))
        }
        Err(MfotlError::Signature(d)) => {
            super::commands::print_diagnostics(sig_path, &signature, &[d]);
            Err(ExitCode::from(2))
        }
    }
}

/// The QTL that an MFOTL specification means, with a comment saying how
/// its verdicts are reported.
pub fn show_qtl(spec: &Path, args: &MfotlArgs, t: &Translation) -> String {
    let how = if args.negate {
        "the formula is the property (--negate): its violations are reported"
    } else {
        "the formula is a pattern: its satisfactions are the violations of this property"
    };
    format!("// {}: {how}\n{}", spec.display(), t.qtl)
}
