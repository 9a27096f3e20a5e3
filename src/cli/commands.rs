//! The subcommands `check` and `compile`, and the loading of a
//! specification that every subcommand shares.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use hindsight::plan::{Plan, compile_source_timed};
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
        Command::Equiv {
            a,
            b,
            options,
            mfotl,
        } => super::testbed::equiv(&a, &b, &options, &mfotl),
        Command::Gen {
            spec,
            options,
            mfotl,
        } => super::testbed::gen_trace(&spec, &options, &mfotl),
        Command::Why {
            spec,
            trace,
            options,
        } => super::why::why(&spec, &trace, &options),
        Command::Serve {
            port,
            host,
            max_request,
            timeout,
        } => super::serve::serve(&host, port, max_request, timeout),
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
/// Time bounds are read in ticks of `10^-d` time units, `d` at least
/// `time_decimals` and enough for every bound; `d` is returned.
fn load(path: &Path, time_decimals: u8) -> Result<(String, Plan, u8), ExitCode> {
    let text = super::read_spec(path)?;
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
pub type Loaded = (String, Plan, Option<hindsight::mfotl::Translation>, u8);

/// [`load`], or for an MFOTL specification [`super::mfotl::load`] (whose
/// time bounds are whole numbers: `time_decimals` must be 0).
pub fn load_any(
    path: &Path,
    mfotl: &super::mfotl::MfotlArgs,
    time_decimals: u8,
) -> Result<Loaded, ExitCode> {
    if mfotl.is_mfotl(path) {
        if time_decimals > 0 {
            eprintln!(
                "error: --time-decimals is for QTL specifications: the time bounds of an \
                 MFOTL formula, and the time stamps read with it, are whole numbers"
            );
            return Err(ExitCode::from(2));
        }
        super::mfotl::load(path, mfotl).map(|(text, plan, t)| (text, plan, Some(t), 0))
    } else {
        load(path, time_decimals).map(|(text, plan, d)| (text, plan, None, d))
    }
}

fn check(path: &Path, mfotl: &super::mfotl::MfotlArgs) -> ExitCode {
    let plan = match load_any(path, mfotl, 0) {
        Ok((_, plan, _, _)) => plan,
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
    let (text, plan, translation, _) = match load_any(path, mfotl, 0) {
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
