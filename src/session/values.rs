//! The library's enums as values of command-line options (feature `cli`):
//! `--gc auto|always|never` and `--format auto|plain|crv|xml|json|monpoly`
//! are [`GcPolicy`] and [`Format`] themselves, with their help texts here.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::runtime::GcPolicy;
use crate::trace::Format;

impl ValueEnum for GcPolicy {
    fn value_variants<'a>() -> &'a [Self] {
        &[GcPolicy::Auto, GcPolicy::Always, GcPolicy::Never]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            GcPolicy::Auto => PossibleValue::new("auto")
                .help("When the values in use have doubled since the last collection"),
            GcPolicy::Always => PossibleValue::new("always").help("After every event"),
            GcPolicy::Never => PossibleValue::new("never").help("Never"),
        })
    }
}

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Format::Auto,
            Format::Plain,
            Format::Crv,
            Format::Xml,
            Format::Json,
            Format::MonPoly,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Format::Auto => PossibleValue::new("auto").help("Detect from the content"),
            Format::Plain => PossibleValue::new("plain").help("DejaVu CSV, no header"),
            Format::Crv => PossibleValue::new("crv").help("CRV competition CSV with a header line"),
            Format::Xml => PossibleValue::new("xml").help("CRV competition XML"),
            Format::Json => PossibleValue::new("json")
                .help("CRV competition JSON (JSON lines, or a sequence of objects)"),
            Format::MonPoly => {
                PossibleValue::new("monpoly").help("MonPoly logs (`@TS name(args) ...`)")
            }
        })
    }
}
