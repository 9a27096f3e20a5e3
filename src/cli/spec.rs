//! A specification loaded: its file read as UTF-8 ([`read_spec`]),
//! compiled as QTL or translated from MFOTL with its signature
//! ([`load_any`]), its diagnostics printed placed in their files
//! ([`print_diagnostics`]), and the QTL an MFOTL specification means
//! ([`show_qtl`]).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::mfotl::{self, MfotlError, Reading, Translation};
use crate::plan::{Plan, compile_source_timed};
use crate::syntax::Diagnostic;

use super::mfotl::MfotlArgs;

/// Reads the specification at `path` (`-`: standard input) as UTF-8 text;
/// on failure, prints the error and gives exit status 2.
pub fn read_spec(path: &Path) -> Result<String, ExitCode> {
    let read = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    read
        .map_err(|e| {
            eprintln!("error: cannot read {}: {e}", path.display());
            ExitCode::from(2)
        })
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|e| {
                let (line, column) = crate::syntax::span::line_column(e.as_bytes(), e.utf8_error().valid_up_to());
                eprintln!(
                    "{}:{line}:{column}: error: invalid UTF-8 (byte {}): a specification must be UTF-8 text",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                ExitCode::from(2)
            })
        })
}

/// Prints `diags` of the file at `path` (its text `text`), placed in it,
/// and how many are errors.
pub fn print_diagnostics(path: &Path, text: &str, diags: &[Diagnostic]) {
    let file = path.display().to_string();
    let mut err = io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render(&file, text));
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        let _ = writeln!(
            err,
            "{file}: {errors} error{}",
            if errors == 1 { "" } else { "s" }
        );
    }
}

/// Reads and compiles a specification, printing its warnings; on errors,
/// prints them and gives exit status 2. Compiled, not only checked: a limit
/// of the monitor plan (such as the number of variables of a property) is
/// found by `check` too, not only by `run`.
/// Time bounds are read in ticks of `10^-d` time units, `d` at least
/// `time_decimals` and enough for every bound; `d` is returned.
fn load(path: &Path, time_decimals: u8) -> Result<(String, Plan, u8), ExitCode> {
    let text = read_spec(path)?;
    match compile_source_timed(&text, time_decimals) {
        Ok((plan, warnings, decimals)) => {
            print_diagnostics(path, &text, &warnings);
            Ok((text, plan, decimals))
        }
        Err(diags) => {
            print_diagnostics(path, &text, &diags);
            Err(ExitCode::from(2))
        }
    }
}

/// A loaded specification: its text, plan, MFOTL translation, and the
/// decimals of its time bounds (see [`load`]).
pub type Loaded = (String, Plan, Option<crate::mfotl::Translation>, u8);

/// [`load`], or for an MFOTL specification [`load_mfotl`] (whose
/// time bounds are whole numbers: `time_decimals` must be 0).
pub fn load_any(path: &Path, mfotl: &MfotlArgs, time_decimals: u8) -> Result<Loaded, ExitCode> {
    if mfotl.is_mfotl(path) {
        if time_decimals > 0 {
            eprintln!(
                "error: --time-decimals is for QTL specifications: the time bounds of an \
                 MFOTL formula, and the time stamps read with it, are whole numbers"
            );
            return Err(ExitCode::from(2));
        }
        load_mfotl(path, mfotl).map(|(text, plan, t)| (text, plan, Some(t), 0))
    } else {
        load(path, time_decimals).map(|(text, plan, d)| (text, plan, None, d))
    }
}

/// Reads, translates and compiles an MFOTL specification with its
/// signature, printing warnings; on errors prints them (placed in the
/// formula or in the signature file) and gives exit status 2.
pub fn load_mfotl(spec: &Path, args: &MfotlArgs) -> Result<(String, Plan, Translation), ExitCode> {
    let Some(sig_path) = &args.sig else {
        eprintln!(
            "error: {} is an MFOTL specification: give its MonPoly signature with --sig FILE.sig",
            spec.display()
        );
        return Err(ExitCode::from(2));
    };
    let formula = read_spec(spec)?;
    let signature = read_spec(sig_path)?;
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
            print_diagnostics(spec, &formula, &warnings);
            Ok((formula, plan, translation))
        }
        Err(MfotlError::Formula(d)) => {
            print_diagnostics(spec, &formula, &[d]);
            Err(ExitCode::from(2))
        }
        Err(MfotlError::Checks(ds)) => {
            print_diagnostics(spec, &formula, &ds);
            Err(ExitCode::from(2))
        }
        Err(MfotlError::Signature(d)) => {
            print_diagnostics(sig_path, &signature, &[d]);
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
