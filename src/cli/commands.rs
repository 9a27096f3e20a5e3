//! The subcommands `check` and `compile` (the loading of a specification
//! that every subcommand shares is [`super::spec`]), and the command line.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

use super::args::{Cli, Command};
use super::mfotl::MfotlArgs;
use super::spec::{self, load_any};

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

fn check(path: &Path, mfotl: &MfotlArgs) -> ExitCode {
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
    mfotl: &MfotlArgs,
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
        let _ = write!(io::stdout(), "{}", spec::show_qtl(path, mfotl, &t));
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
