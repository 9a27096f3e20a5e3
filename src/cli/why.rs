//! `hindsight why`: the options turned into [`WhyOptions`], the trace
//! replayed, each explanation printed as text or JSON.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::session::SessionOptions;
use crate::trace::{TraceOptions, timed_by_name};
use crate::why::{WhyError, WhyOptions, render, replay};

use super::args::WhyArgs;
use super::mfotl::MfotlArgs;
use super::spec::print_diagnostics;

/// Runs `hindsight why`.
pub fn why(spec: &Path, trace: &Path, args: &WhyArgs) -> ExitCode {
    let mfotl = MfotlArgs {
        sig: args.sig.clone(),
        mfotl: false,
        negate: args.negate,
        event_steps: true,
    };
    let text = if mfotl.is_mfotl(spec) {
        match super::spec::load_mfotl(spec, &mfotl) {
            Ok((_, _, translation)) => translation.qtl,
            Err(code) => return code,
        }
    } else {
        match super::spec::read_spec(spec) {
            Ok(t) => t,
            Err(code) => return code,
        }
    };
    let mut assign = Vec::new();
    for a in &args.assign {
        let Some((var, value)) = a.split_once('=') else {
            eprintln!("error: --assign {a}: expected VAR=VALUE, such as --assign f=b");
            return ExitCode::from(2);
        };
        assign.push((var.trim().to_string(), value.to_string()));
    }
    let options = WhyOptions {
        event: args.event,
        property: args.property.clone(),
        assign,
        max_nodes: args.max_nodes,
        session: SessionOptions {
            trace: TraceOptions {
                timed: args.timed || timed_by_name(trace),
                format: args.format,
            },
            time_field: args.time_field.clone(),
            time_decimals: args.time_decimals.unwrap_or(0),
            ..SessionOptions::default()
        },
        cancel: None,
    };
    let input: Box<dyn std::io::Read> = if trace == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(trace) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", trace.display());
                return ExitCode::from(2);
            }
        }
    };
    let explanations = match replay(&text, input, &options) {
        Ok(e) => e,
        Err(WhyError::Spec(diags)) => {
            print_diagnostics(spec, &text, &diags);
            return ExitCode::from(2);
        }
        Err(e) => {
            let place = match &e {
                WhyError::Run(_) | WhyError::NoEvent { .. } => format!("{}: ", trace.display()),
                _ => String::new(),
            };
            eprintln!("error: {place}{e}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    for (k, e) in explanations.iter().enumerate() {
        let written = if args.json {
            writeln!(out, "{}", render::json(e))
        } else {
            let sep = if k > 0 { "\n" } else { "" };
            write!(out, "{sep}{}", render::text(e))
        };
        if written.is_err() {
            break;
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
