//! The options of MFOTL specifications on the command line: `--sig`,
//! `--mfotl`, `--negate`, `--event-steps` (docs/MFOTL.md); they are loaded
//! by [`super::spec`].

use std::path::{Path, PathBuf};

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
