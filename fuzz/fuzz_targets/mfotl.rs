//! The MFOTL front end on its own: a signature and a formula, translated to
//! QTL in both readings (satisfactions and `--negate`), compiled, the
//! diagnostics rendered, and the monitor built and stepped.
//!
//! The input is UTF-8 text: the signature, a NUL byte, the formula. Without
//! a NUL byte it is a formula, read against the fixed signature `SIG`.
//!
//! Oracles: the two readings fail alike (parsing does not depend on the
//! reading); a formula that translates gives QTL text (`--show-qtl`) that
//! parses as QTL, and that compiles exactly when the translation compiles.
#![no_main]

use hindsight::mfotl::{self, MfotlError, Reading};
use hindsight::runtime::{Monitor, MonitorOptions};
use libfuzzer_sys::fuzz_target;

/// The predicates of the seeds' signatures, and a few of every type.
const SIG: &str = "approve(p:string) revoke(p:string) pay(p:string, amount:int)
login(user:string, ip:string) fail(user:string, ip:string)
p(x:int) q(string, int) r(x:float) e()";

/// Renders `e` as `hindsight check` would print it; returns its message.
fn render(e: &MfotlError, formula: &str, signature: &str) -> String {
    match e {
        MfotlError::Formula(d) => d.render("f.mfotl", formula),
        MfotlError::Signature(d) => d.render("f.sig", signature),
        MfotlError::Checks(ds) => ds.render("f.mfotl", formula),
    };
    e.to_string()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (signature, formula) = text.split_once('\0').unwrap_or((SIG, text));
    let pattern = mfotl::translate(formula, signature, "fuzz", Reading::Satisfactions);
    let property = mfotl::translate(formula, signature, "fuzz", Reading::Violations);
    match (&pattern, &property) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => {
            assert_eq!(render(a, formula, signature), render(b, formula, signature));
            return;
        }
        _ => panic!("one reading translates, the other not"),
    }
    for reading in [Reading::Satisfactions, Reading::Violations] {
        let compiled = mfotl::compile(formula, signature, "fuzz", reading);
        let t = match &compiled {
            Ok((_, t, _)) => t.clone(),
            Err(MfotlError::Checks(_)) => match reading {
                Reading::Satisfactions => pattern.clone(),
                Reading::Violations => property.clone(),
            }
            .expect("translated above"),
            Err(e) => panic!("translated, then failed before checking: {e}"),
        };
        if let Err(d) = hindsight::syntax::parse(&t.qtl) {
            panic!(
                "the QTL of the translation does not parse: {}\n{}",
                d.message, t.qtl
            );
        }
        let qtl = hindsight::plan::compile_source(&t.qtl);
        assert_eq!(
            compiled.is_ok(),
            qtl.is_ok(),
            "MFOTL and its QTL text compile differently: {}",
            t.qtl
        );
        match compiled {
            Ok((plan, _, warnings)) => {
                for w in &warnings {
                    let _ = w.render("f.mfotl", formula);
                }
                let _ = plan.render(formula);
                if let Ok(mut monitor) = Monitor::new(plan, MonitorOptions::default()) {
                    let sig = mfotl::sig::parse_signature(signature).expect("read above");
                    for (time, p) in sig.iter().enumerate() {
                        let args: Vec<&[u8]> = p.params.iter().map(|_| &b"1"[..]).collect();
                        let _ = monitor.step(p.name.as_bytes(), &args, time as u64);
                    }
                }
            }
            Err(e) => {
                render(&e, formula, signature);
            }
        }
    }
});
