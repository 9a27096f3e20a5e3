//! The `hindsight` command line: check a specification, show its compiled
//! monitor, or run it on a trace. A thin shell: the command line lives in
//! the library, under its `cli` feature, where it can use the engine's
//! internals without making them public.

fn main() -> std::process::ExitCode {
    hindsight::cli_main()
}
