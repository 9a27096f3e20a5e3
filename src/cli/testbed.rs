//! `hindsight equiv` and `hindsight gen`, on the library's
//! [`crate::testbed`].

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::mfotl::typing::Typing;
use crate::testbed::Spec;
use crate::testbed::equiv::{Answer, EquivOptions, Found};
use crate::testbed::generate::{GenError, GenOptions, write_trace};

use super::mfotl::MfotlArgs;
use super::spec::load_any;

/// Options of `hindsight equiv`.
#[derive(clap::Args)]
pub struct EquivArgs {
    /// Try every trace of up to N events.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub length: usize,
    /// The data values: at most K (the specifications' constants first,
    /// then 0, 1, ...).
    #[arg(long, value_name = "K", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub values: u64,
    /// Then try M random traces.
    #[arg(long, value_name = "M", default_value_t = 1000)]
    pub random: u64,
    /// The random traces' length, in events.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub random_length: usize,
    /// The random traces' seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON object: `{"equivalent": bool, "trace": [[name,
    /// args...], ...], "verdicts": ..., "searched": ...}`.
    #[arg(long)]
    pub json: bool,
}

/// Options of `hindsight gen`.
#[derive(clap::Args)]
pub struct GenArgs {
    /// The number of events.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub events: u64,
    /// The data values: K of them (the specification's constants first,
    /// then 0, 1, ...).
    #[arg(long, value_name = "K", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub values: u64,
    /// The seed: the same seed gives the same trace.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,
    /// Give each event a time stamp (CSV: its last field), the previous
    /// one plus 0 to --max-gap [default: off; a MonPoly log is always
    /// timed, one time unit per event without --timed].
    #[arg(long)]
    pub timed: bool,
    /// The largest step from one time stamp to the next, with --timed.
    #[arg(long, value_name = "G", default_value_t = 1)]
    pub max_gap: u64,
}

/// Loads a specification for the testbed (its errors printed: exit 2).
fn load(path: &Path, mfotl: &MfotlArgs) -> Result<Spec, ExitCode> {
    let (_, plan, translation, _) = load_any(path, mfotl, 0)?;
    let typing = translation.as_ref().map(Typing::new);
    Ok(Spec::from_plan(&path.display().to_string(), plan, typing))
}

/// `hindsight equiv A B`.
pub fn equiv(a: &Path, b: &Path, args: &EquivArgs, mfotl: &MfotlArgs) -> ExitCode {
    let (sa, sb) = match (load(a, mfotl), load(b, mfotl)) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let options = EquivOptions {
        length: args.length,
        values: args.values as usize,
        random: args.random,
        random_length: args.random_length,
        seed: args.seed,
        ..EquivOptions::default()
    };
    let answer = match crate::testbed::equiv::equiv(&sa, &sb, &options) {
        Ok(answer) => answer,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut out = io::stdout().lock();
    let written = if args.json {
        writeln!(out, "{}", to_json(&answer))
    } else {
        match &answer.found {
            Some(found) => {
                eprintln!(
                    "{} and {} differ on this trace of {} event{}",
                    sa.label,
                    sb.label,
                    found.trace.len(),
                    if found.trace.len() == 1 { "" } else { "s" }
                );
                write_csv(
                    &mut out,
                    found,
                    [&sa.label, &sb.label],
                    sa.property_names().len() > 1,
                )
            }
            None => writeln!(out, "{}", searched_text(&answer, &sa.label, &sb.label)),
        }
    };
    // A closed standard output is not an error worth a message.
    let _ = written.and_then(|_| out.flush());
    if answer.found.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What an equivalence search without a difference says it searched.
pub fn searched_text(answer: &Answer, a: &str, b: &str) -> String {
    let s = &answer.searched;
    let mut text = format!(
        "{a} and {b} agree on every trace of up to {} events over {} events with the values {} \
         ({} traces)",
        s.length,
        s.letters,
        s.values.join(", "),
        s.traces
    );
    if s.random.0 > 0 {
        text += &format!(
            " and on {} random traces of {} events (seed {})",
            s.random.0, s.random.1, s.seed
        );
    }
    text
}

/// The distinguishing trace as CSV: the event's number, name and values,
/// then each side's verdict (`ok`, `violated`, or with several paired
/// properties `violated: p q`).
fn write_csv(
    out: &mut impl Write,
    found: &Found,
    labels: [&str; 2],
    named: bool,
) -> io::Result<()> {
    let width = found.trace.iter().map(|(_, a)| a.len()).max().unwrap_or(0);
    let mut csv = csv::Writer::from_writer(out);
    let mut header = vec!["n".to_string(), "event".to_string()];
    header.extend((1..=width).map(|i| format!("arg{i}")));
    header.extend(labels.iter().map(|l| l.to_string()));
    csv.write_record(&header)?;
    let verdict = |violated: &[String], undecided: &[String]| {
        let mut parts = Vec::new();
        for (what, names) in [("violated", violated), ("undecided", undecided)] {
            match (names.is_empty(), named) {
                (true, _) => {}
                (false, false) => parts.push(what.to_string()),
                (false, true) => parts.push(format!("{what}: {}", names.join(" "))),
            }
        }
        if parts.is_empty() {
            "ok".to_string()
        } else {
            parts.join("; ")
        }
    };
    let rows = found
        .trace
        .iter()
        .zip(&found.verdicts)
        .zip(&found.undecided);
    for (i, (((name, args), (va, vb)), (ua, ub))) in rows.enumerate() {
        let mut row = vec![(i + 1).to_string(), name.clone()];
        row.extend(args.iter().cloned());
        row.resize(2 + width, String::new());
        row.push(verdict(va, ua));
        row.push(verdict(vb, ub));
        csv.write_record(&row)?;
    }
    csv.flush()
}

/// The answer as one JSON object.
pub fn to_json(answer: &Answer) -> serde_json::Value {
    let s = &answer.searched;
    let trace: Vec<Vec<String>> = answer.found.as_ref().map_or_else(Vec::new, |f| {
        f.trace
            .iter()
            .map(|(n, a)| {
                std::iter::once(n.clone())
                    .chain(a.iter().cloned())
                    .collect()
            })
            .collect()
    });
    let verdicts = answer
        .found
        .as_ref()
        .map_or_else(Vec::new, |f| f.verdicts.clone());
    let undecided = answer
        .found
        .as_ref()
        .map_or_else(Vec::new, |f| f.undecided.clone());
    serde_json::json!({
        "equivalent": answer.found.is_none(),
        "trace": trace,
        "verdicts": verdicts,
        "undecided": undecided,
        "random": answer.found.as_ref().is_some_and(|f| f.random),
        "searched": {
            "length": s.length,
            "events": s.letters,
            "values": s.values,
            "traces": s.traces.min(u64::MAX as u128) as u64,
            "random": s.random.0,
            "random_length": s.random.1,
            "seed": s.seed,
        },
    })
}

/// `hindsight gen SPEC`.
pub fn gen_trace(spec: &Path, args: &GenArgs, mfotl: &MfotlArgs) -> ExitCode {
    let s = match load(spec, mfotl) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let options = GenOptions {
        events: args.events,
        values: args.values as usize,
        seed: args.seed,
        timed: args.timed,
        max_gap: args.max_gap,
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    match write_trace(&s, &options, &mut out).and_then(|()| out.flush().map_err(GenError::Io)) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): not an error worth a message.
        Err(GenError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
