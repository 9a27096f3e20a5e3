//! The specification front end: parse, check, compile, render the plan and the
//! diagnostics, and build the monitor, on arbitrary text.
#![no_main]

use hindsight::plan::compile_source;
use hindsight::runtime::{Monitor, MonitorOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(d) = hindsight::syntax::parse(text) {
        let _ = d.render("spec.qtl", text);
    }
    match hindsight::check::check_source(text) {
        Ok(checked) => {
            for w in &checked.warnings {
                let _ = w.render("spec.qtl", text);
            }
        }
        Err(diags) => {
            for d in &diags {
                let _ = d.render("spec.qtl", text);
            }
        }
    }
    match compile_source(text) {
        Ok((plan, warnings)) => {
            for w in &warnings {
                let _ = w.render("spec.qtl", text);
            }
            let _ = plan.render(text);
            let _ = plan.to_dot();
            if let Ok(mut monitor) = Monitor::new(plan, MonitorOptions::default()) {
                // Two steps on an event no property mentions: evaluation runs
                // over every subformula, with and without a previous event.
                let _ = monitor.step(b"__fuzz", &[], 0);
                let _ = monitor.step(b"__fuzz", &[b"1"], 1);
            }
        }
        Err(diags) => {
            for d in &diags {
                let _ = d.render("spec.qtl", text);
            }
        }
    }
});
