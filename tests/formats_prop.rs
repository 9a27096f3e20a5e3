//! The same trace written in every format (plain CSV, CRV CSV, XML, JSON,
//! MonPoly with several events per time-point), each also gzip- and
//! zstd-compressed, gives the same verdicts.

use std::io::Write;

use hindsight::runtime::{Monitor, MonitorOptions};
use hindsight::trace::{FieldNames, Format, TraceOptions, TraceReader};
use proptest::prelude::*;

const SPEC: &str = "pred p(x, y), q(x), r
prop a : Forall x . Forall y . p(x, y) -> @ P q(x)
prop b : Forall x . q(x) -> !@ q(x)
prop c : r -> Exists x . Exists y . P p(x, y) & x < y
";

/// An event: its name and arguments.
type Event = (&'static str, Vec<String>);

fn value() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec!['a', 'b', '1', '2', ' ', ',', '<', '&', '\'', 'é']);
    prop::collection::vec(chars, 1..4).prop_map(|v| v.into_iter().collect())
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        (value(), value()).prop_map(|(x, y)| ("p", vec![x, y])),
        value().prop_map(|x| ("q", vec![x])),
        Just(("r", vec![])),
    ]
}

const PARAMS: [(&str, &[&str]); 3] = [("p", &["x", "y"]), ("q", &["x"]), ("r", &[])];

fn params(name: &str) -> &'static [&'static str] {
    PARAMS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, p)| p)
}

fn csv_field(v: &str) -> String {
    format!("\"{}\"", v.replace('"', "\"\""))
}

fn xml_text(v: &str) -> String {
    v.replace('&', "&amp;").replace('<', "&lt;")
}

/// The trace in every format.
fn write_all(events: &[Event], groups: &[usize]) -> Vec<(&'static str, Vec<u8>)> {
    let mut plain = String::new();
    let mut crv = String::from("event, x, y\n");
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<log>\n");
    let mut json = String::new();
    for (name, args) in events {
        plain.push_str(name);
        crv.push_str(name);
        for a in args {
            let quoted = if a.starts_with(' ') || a.ends_with(' ') || a.contains(',') {
                csv_field(a)
            } else {
                a.clone()
            };
            plain.push(',');
            plain.push_str(&quoted);
            crv.push_str(", ");
            crv.push_str(&csv_field(a));
        }
        plain.push('\n');
        crv.push('\n');
        // Named fields, in reverse order: the declarations put them back.
        xml.push_str(&format!("  <event>\n    <name>{name}</name>\n"));
        let mut fields = Vec::new();
        for (param, a) in params(name).iter().zip(args).rev() {
            xml.push_str(&format!(
                "    <field><name>{param}</name><value>{}</value></field>\n",
                xml_text(a)
            ));
            fields.push(format!(
                "{}: {}",
                serde_json::to_string(param).unwrap(),
                serde_json::to_string(a).unwrap()
            ));
        }
        xml.push_str("  </event>\n");
        json.push_str(&format!("{{\"{name}\": {{{}}}}}\n", fields.join(", ")));
    }
    xml.push_str("</log>\n");
    // MonPoly: consecutive events grouped into time-points.
    let mut monpoly = String::from("# generated\n");
    let mut k = 0;
    let mut time = 0;
    for &g in groups.iter().cycle() {
        if k >= events.len() {
            break;
        }
        time += 1;
        monpoly.push_str(&format!("@{time}"));
        for (name, args) in &events[k..(k + g).min(events.len())] {
            let args: Vec<String> = args.iter().map(|a| format!("\"{a}\"")).collect();
            monpoly.push_str(&format!(" {name}({})", args.join(", ")));
        }
        monpoly.push('\n');
        k += g;
    }
    let texts = [
        ("plain", plain.into_bytes()),
        ("crv", crv.into_bytes()),
        ("xml", xml.into_bytes()),
        ("json", json.into_bytes()),
        ("monpoly", monpoly.into_bytes()),
    ];
    let mut out = Vec::new();
    for (name, text) in texts {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        out.push((name, gz.finish().unwrap()));
        out.push((name, zstd::encode_all(&text[..], 1).unwrap()));
        out.push((name, text));
    }
    out
}

/// The (property, event number) violations of the trace `input`.
fn verdicts(input: &[u8]) -> Result<Vec<(usize, u64)>, String> {
    let mut monitor = Monitor::from_source(SPEC, MonitorOptions::default()).expect("well-formed");
    let mut reader = TraceReader::new(
        input,
        TraceOptions {
            timed: false,
            format: Format::Auto,
        },
    )
    .field_names(FieldNames::from_spec(SPEC));
    let mut out = Vec::new();
    while let Some(e) = reader.next_event().map_err(|e| e.to_string())? {
        let args: Vec<&[u8]> = e.args().collect();
        let violated = monitor.step(e.name, &args, 0).map_err(|e| e.to_string())?;
        out.extend(violated.iter().map(|&p| (p, e.number)));
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn every_format_gives_the_same_verdicts(
        events in prop::collection::vec(event(), 0..25),
        groups in prop::collection::vec(1usize..4, 1..4),
    ) {
        let written = write_all(&events, &groups);
        let reference = verdicts(&written[2].1);
        prop_assert!(reference.is_ok(), "{:?}", reference);
        for (name, input) in &written {
            prop_assert_eq!(&verdicts(input), &reference, "{}", name);
        }
    }
}
