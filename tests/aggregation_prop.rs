//! Issue 38: the engine's aggregations, arithmetic and `LET` against the
//! reference evaluator (`support/reference_agg.rs`) on generated
//! specifications and traces (`support/gen_agg.rs`), in the configurations
//! of the other differential tests: default options, codes starting at one
//! bit (widths grow while values are computed), and garbage collection of
//! codes after every event.
//!
//! `HINDSIGHT_PROPTEST_CASES` sets the number of cases (default 256).

#[allow(dead_code)]
mod support;

use std::collections::BTreeSet;

use hindsight::check::check_source;
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use proptest::prelude::*;

use support::gen_agg::{self, AggSpec};
use support::reference::{self, Event};

fn configurations() -> [MonitorOptions; 3] {
    let narrow = MonitorOptions {
        start_bits: 1,
        ..MonitorOptions::default()
    };
    let gc = MonitorOptions {
        gc: GcPolicy::Always,
        ..narrow.clone()
    };
    [MonitorOptions::default(), narrow, gc]
}

fn engine(spec: &str, trace: &[Event], options: MonitorOptions) -> BTreeSet<(usize, usize)> {
    let mut m = Monitor::from_source(spec, options)
        .unwrap_or_else(|d| panic!("the engine rejects a well-formed spec: {d:?}\n{spec}"));
    let mut out = BTreeSet::new();
    for (i, e) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        let violated = m
            .step(e.name.as_bytes(), &args, e.time)
            .unwrap_or_else(|err| panic!("engine error at event {}: {err}\n{spec}", i + 1));
        out.extend(violated.iter().map(|&p| (p, i + 1)));
    }
    out
}

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

fn case() -> impl Strategy<Value = (AggSpec, Vec<Event>)> {
    gen_agg::spec().prop_flat_map(|s| {
        let ints = s.ints_only;
        (Just(s), gen_agg::trace(ints))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_reference_on_aggregations_and_arithmetic((spec, trace) in case()) {
        let checked = check_source(&spec.text)
            .unwrap_or_else(|d| panic!("not well-formed: {d:?}\n{}", spec.text));
        let want = reference::violations(&checked, &trace);
        for options in configurations() {
            let got = engine(&spec.text, &trace, options.clone());
            prop_assert_eq!(&got, &want, "{}\n{:?}\n{:?}", spec.text, options, trace);
        }
    }
}
