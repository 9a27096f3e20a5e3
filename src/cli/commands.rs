//! The subcommands `check` and `compile`, and the loading of a
//! specification that every subcommand shares.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use hindsight::plan::{Plan, compile_source};
use hindsight::syntax::Diagnostic;

use super::args::{Cli, Command};

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { spec, mfotl } => check(&spec, &mfotl),
        Command::Compile {
            spec,
            mfotl,
            show_qtl,
            dot,
            explain,
        } => compile(&spec, &mfotl, show_qtl, dot.as_deref(), explain),
        Command::Run {
            spec,
            trace,
            options,
        } => super::run::run(&spec, trace.as_deref(), &options),
        Command::Plot {
            profile,
            output,
            property,
        } => super::plot::plot_file(&profile, &output, property.as_deref()),
    }
}

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
fn load(path: &Path) -> Result<(String, Plan), ExitCode> {
    let text = super::read_spec(path)?;
    match compile_source(&text) {
        Ok((plan, warnings)) => {
            print_diagnostics(path, &text, &warnings);
            Ok((text, plan))
        }
        Err(diags) => {
            print_diagnostics(path, &text, &diags);
            Err(ExitCode::from(2))
        }
    }
}

/// [`load`], or for an MFOTL specification [`super::mfotl::load`].
pub fn load_any(
    path: &Path,
    mfotl: &super::mfotl::MfotlArgs,
) -> Result<(String, Plan, Option<hindsight::mfotl::Translation>), ExitCode> {
    if mfotl.is_mfotl(path) {
        super::mfotl::load(path, mfotl).map(|(text, plan, t)| (text, plan, Some(t)))
    } else {
        load(path).map(|(text, plan)| (text, plan, None))
    }
}

fn check(path: &Path, mfotl: &super::mfotl::MfotlArgs) -> ExitCode {
    let plan = match load_any(path, mfotl) {
        Ok((_, plan, _)) => plan,
        Err(code) => return code,
    };
    let n = plan.props.len();
    // A closed standard output is not an error worth a message.
    let _ = writeln!(
        io::stdout(),
        "{}: well-formed, {n} propert{}",
        path.display(),
        if n == 1 { "y" } else { "ies" }
    );
    ExitCode::SUCCESS
}

fn compile(
    path: &Path,
    mfotl: &super::mfotl::MfotlArgs,
    show_qtl: bool,
    dot: Option<&Path>,
    explain: bool,
) -> ExitCode {
    let (text, plan, translation) = match load_any(path, mfotl) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if show_qtl {
        let Some(t) = translation else {
            eprintln!(
                "error: --show-qtl is for MFOTL specifications (.mfotl, or --mfotl); {} is QTL already",
                path.display()
            );
            return ExitCode::from(2);
        };
        let _ = write!(io::stdout(), "{}", super::mfotl::show_qtl(path, mfotl, &t));
        return ExitCode::SUCCESS;
    }
    let _ = write!(io::stdout(), "{}", plan.render(&text));
    if explain {
        let _ = write!(io::stdout(), "slicing:\n{}", plan.explain_slicing());
    }
    if let Some(dot) = dot
        && let Err(e) = std::fs::write(dot, plan.to_dot())
    {
        eprintln!("error: cannot write {}: {e}", dot.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
