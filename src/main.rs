//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace. A thin shell: the arguments are parsed
//! and the work done in [`cli`], on the library's [`hindsight::session`].

mod cli;

fn main() -> std::process::ExitCode {
    cli::commands::main()
}
