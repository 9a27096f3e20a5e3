//! Unit tests of the XML, JSON and MonPoly readers, of named fields, of
//! format detection and of compressed input.

use std::io::Write;

use super::*;
use crate::trace::TraceErrorKind as K;

fn fmt(format: Format) -> TraceOptions {
    opts(false, format)
}

/// Reads `input` with declared field names.
fn read_named(
    input: &[u8],
    names: &FieldNames,
    options: TraceOptions,
) -> (Vec<Ev>, Option<TraceError>) {
    let (events, error, _) = drain(TraceReader::new(input, options).field_names(names.clone()));
    (events, error)
}

fn access_names() -> FieldNames {
    FieldNames::from_spec(
        "pred access(user, file), login(user)\nprop p : Forall u . login(u) -> true",
    )
}

const XML: &[u8] = br#"<?xml version="1.0"?>
<log>
  <!-- a comment -->
  <event>
    <name>access</name>
    <field><name>file</name><value>f&amp;1</value></field>
    <field><name>user</name><value>alice</value></field>
  </event>
  <event><name>tick</name></event>
  <event>
    <name>open</name>
    <field><name>b</name><value><![CDATA[x<y]]></value></field>
    <field><name>a</name><value/></field>
  </event>
</log>
"#;

#[test]
fn xml_events_with_names_mapped() {
    let (got, e) = read_named(XML, &access_names(), PLAIN);
    assert_eq!(e, None);
    assert_eq!(
        got,
        vec![
            ev("access", &["alice", "f&1"], 0, 4, 1),
            ev("tick", &[], 0, 9, 2),
            // Not declared: in the order written.
            ev("open", &["x<y", ""], 0, 10, 3)
        ]
    );
    let mut reader = TraceReader::new(XML, PLAIN);
    assert!(reader.next_event().expect("valid").is_some());
    assert_eq!(reader.format(), Format::Xml);
}

#[test]
fn xml_missing_unknown_and_malformed() {
    let names = access_names();
    let missing = b"<log><event><name>access</name>\n<field><name>user</name><value>a</value></field></event></log>";
    let (_, e) = read_named(missing, &names, PLAIN);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::Field, 1));
    assert!(
        e.message().contains("missing field `file`")
            && e.message().contains("`access(user, file)`"),
        "{e}"
    );
    let unknown = b"<log>\n<event><name>login</name><field><name>usr</name><value>a</value></field></event></log>";
    let e = read_named(unknown, &names, PLAIN).1.expect("an error");
    assert_eq!((e.kind, e.line), (K::Field, 2));
    assert!(
        e.message().contains("unknown field `usr` in event `login`"),
        "{e}"
    );
    let e = error(
        b"<log>\n<event><name>a</name>\n<bogus/></event></log>",
        PLAIN,
    );
    assert_eq!((e.kind, e.line), (K::Syntax, 3));
    assert!(
        e.message()
            .contains("unexpected element <bogus> in <event>"),
        "{e}"
    );
    let e = error(b"<log>\n<event><name>a</name></evnt></log>", PLAIN);
    assert_eq!(e.kind, K::Syntax);
    assert!(e.message().contains("malformed XML"), "{e}");
    let e = error(b"<log><event><name>a</name>", PLAIN);
    assert!(e.message().contains("ends inside <event>"), "{e}");
    let e = error(
        b"<log><event><field><name>x</name><value>1</value></field></event></log>",
        PLAIN,
    );
    assert_eq!(e.kind, K::EmptyName);
    assert!(e.message().contains("non-empty <name>"), "{e}");
    let e = error(
        b"<log>\n\n<event><name>a&bogus;</name></event></log>",
        PLAIN,
    );
    assert_eq!(e.line, 3);
    assert!(e.message().contains("unknown entity `&bogus;`"), "{e}");
    // Without a <log> root, and timed.
    let timed = events(
        b"<event><name>a</name><field><name>x</name><value>1</value></field><field><name>time</name><value>7</value></field></event>",
        opts(true, Format::Xml),
    );
    assert_eq!(timed, vec![ev("a", &["1"], 7, 1, 1)]);
}

#[test]
fn json_events_with_names_mapped() {
    let input = b"{\"access\": {\"file\": \"f1\", \"user\": \"al\\\"ice\"}}\n{\"tick\": {}}\n\n{\"open\":\n {\"n\": 5, \"ok\": true, \"x\": -2.5}}{\"p\": [\"a\", 1]}\n";
    let (got, e) = read_named(input, &access_names(), PLAIN);
    assert_eq!(e, None);
    assert_eq!(
        got,
        vec![
            ev("access", &["al\"ice", "f1"], 0, 1, 1),
            ev("tick", &[], 0, 2, 2),
            ev("open", &["5", "true", "-2.5"], 0, 4, 3),
            ev("p", &["a", "1"], 0, 5, 4)
        ]
    );
    // One array of objects.
    let array = events(b"[\n{\"a\": {\"x\": \"1\"}},\n{\"b\": {}}\n]\n", PLAIN);
    assert_eq!(array, vec![ev("a", &["1"], 0, 2, 1), ev("b", &[], 0, 3, 2)]);
    let timed = events(
        b"{\"a\": {\"x\": \"1\", \"time\": 9}}",
        opts(true, Format::Auto),
    );
    assert_eq!(timed, vec![ev("a", &["1"], 9, 1, 1)]);
}

#[test]
fn json_missing_unknown_and_malformed() {
    let names = access_names();
    let e = read_named(b"{\"access\": {\"user\": \"a\"}}", &names, PLAIN)
        .1
        .expect("an error");
    assert!(
        e.message()
            .contains("missing field `file` in event `access`"),
        "{e}"
    );
    let e = read_named(
        b"\n{\"login\": {\"user\": \"a\", \"when\": 3}}",
        &names,
        PLAIN,
    )
    .1
    .expect("an error");
    assert_eq!(e.line, 2);
    assert!(
        e.message()
            .contains("unknown field `when` in event `login`"),
        "{e}"
    );
    let e = read_named(
        b"{\"login\": {\"user\": \"a\", \"user\": \"b\"}}",
        &names,
        PLAIN,
    )
    .1
    .expect("an error");
    assert_eq!(e.kind, K::Field);
    assert!(e.message().contains("`user` given twice"), "{e}");
    let e = error(b"{\"a\": {}}\n{\"b\": {\"x\":\n nul}}", PLAIN);
    assert_eq!((e.kind, e.line), (K::Syntax, 3));
    assert!(e.message().starts_with("invalid JSON event"), "{e}");
    let e = error(b"{\"a\": {}, \"b\": {}}", PLAIN);
    assert!(e.message().contains("one key"), "{e}");
    let e = error(b"{\"a\": {\"x\": null}}", PLAIN);
    assert!(e.message().contains("invalid JSON event"), "{e}");
    let e = error(b"{\"a\": {}}\nx", PLAIN);
    assert_eq!(e.line, 2);
    assert!(e.message().contains("expected `{`"), "{e}");
    let e = error(b"{\"a\": {\"x\": \"}", PLAIN);
    assert!(e.message().contains("never closed"), "{e}");
    let (_, e, _) = drain(
        TraceReader::new(&b"{\"a\": {}}\n{\"b\": {\"x\": \"1234567890\"}}"[..], PLAIN)
            .max_event_size(12),
    );
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::TooLong, 2));
}

#[test]
fn monpoly_time_points() {
    let input = b"# a log\n@0001 login (alice) access(alice, \"f 1\")\n@5 tick() tock\n  @5;@7 p(\"a,b\", -3)\n# end\n";
    let got = events(input, PLAIN);
    assert_eq!(
        got,
        vec![
            ev("login", &["alice"], 1, 2, 1),
            ev("access", &["alice", "f 1"], 1, 2, 2),
            ev("tick", &[], 5, 3, 3),
            ev("tock", &[], 5, 3, 4),
            ev("p", &["a,b", "-3"], 7, 4, 5)
        ]
    );
    let mut reader = TraceReader::new(&input[..], PLAIN);
    let mut points = Vec::new();
    while let Some(p) = reader.next_timepoint().expect("valid") {
        let names: Vec<Vec<u8>> = p.events().map(|e| e.name.to_vec()).collect();
        let numbers: Vec<u64> = p.events().map(|e| e.number).collect();
        points.push((p.number, p.time, p.line, p.timed, names.len(), numbers));
    }
    assert_eq!(
        points,
        vec![
            (1, 1, 2, true, 2, vec![1, 2]),
            (2, 5, 3, true, 2, vec![3, 4]),
            (3, 5, 4, true, 0, vec![]),
            (4, 7, 4, true, 1, vec![5])
        ]
    );
    assert_eq!(reader.format(), Format::MonPoly);
    assert!(reader.has_time());
}

#[test]
fn monpoly_syntax_as_monpoly_reads_it() {
    // Several tuples after one name, `p()`, a quoted name, escapes kept as
    // MonPoly keeps them, a regular expression constant's text.
    let input = b"@1 p(a)(b) (\"c d\")\n@2 \"q\"() r(\"say \\\"hi\\\"\", r\"x.*\") s;\n";
    assert_eq!(
        events(input, PLAIN),
        vec![
            ev("p", &["a"], 1, 1, 1),
            ev("p", &["b"], 1, 1, 2),
            ev("p", &["c d"], 1, 1, 3),
            ev("q", &[], 2, 2, 4),
            ev("r", &["say \\\"hi\\\"", "x.*"], 2, 2, 5),
            ev("s", &[], 2, 2, 6),
        ]
    );
    // Every field's line and column.
    let mut reader = TraceReader::new(&b"@1 p(a)\n  (bb,\n c)"[..], PLAIN);
    let mut places = Vec::new();
    while let Some(e) = reader.next_event().expect("valid") {
        places.push((0..e.arity()).map(|i| e.place(i)).collect::<Vec<_>>());
    }
    assert_eq!(
        places,
        vec![vec![Some((1, 6))], vec![Some((2, 4)), Some((3, 2))]]
    );
    // MonPoly's commands are refused by name, with the place.
    for input in [&b"@1 p(a)\n>print<\n"[..], b"@1 p(a) >print<"] {
        let e = error(input, fmt(Format::MonPoly));
        assert!(e.message().contains("MonPoly's commands"), "{e}");
        assert_eq!(e.kind, K::Syntax);
    }
    let e = error(b"@1 p(a)\n@2 q(\"x\\\")\n", fmt(Format::MonPoly));
    assert_eq!((e.line, e.column), (2, Some(6)), "{e}");
    assert!(e.message().contains("never closed"), "{e}");
}

#[test]
fn monpoly_errors() {
    for (input, line, text, kind) in [
        (&b"login(a)\n"[..], 1, "expected `@`", K::Syntax),
        (
            b"@1 a(x)\n@x b\n",
            2,
            "time stamp `x` is not a natural or decimal number",
            K::BadTime,
        ),
        (b"@\n", 1, "missing time stamp", K::MissingTime),
        (b"@1 a(x\n", 2, "expected `,` or `)`", K::Syntax),
        (b"@1 a(x,)\n", 1, "expected a value, found `)`", K::Syntax),
        (b"@1 a(\"x)\n", 1, "never closed", K::Syntax),
        (b"@1 (x)\n", 1, "expected an event name", K::Syntax),
        (
            b"@2 a\n@1 b\n",
            2,
            "smaller than the previous timestamp 2",
            K::DecreasingTime,
        ),
        (b"@99999999999999999999 a\n", 1, "out of range", K::BadTime),
        (
            b"@1.5 a\n",
            1,
            "time stamp `1.5` has 1 decimal digit",
            K::BadTime,
        ),
    ] {
        let e = error(input, fmt(Format::MonPoly));
        assert_eq!(e.line, line, "{e}");
        assert!(e.message().contains(text), "{e}");
        assert_eq!(e.kind, kind, "{e}");
    }
    let (got, e, _) =
        drain(TraceReader::new(&b"@1 a(x)\n@2 b(yyyyyyyyyyyy)\n"[..], PLAIN).max_event_size(10));
    assert_eq!(got.len(), 1);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::TooLong, 2));
}

#[test]
fn formats_detected_and_forced() {
    for (input, format) in [
        (&b"  \n<log></log>"[..], Format::Xml),
        (b"\n {\"a\": {}}", Format::Json),
        (b"[\n {\"a\": {}}]", Format::Json),
        (b"[a],1", Format::Plain),
        (b"\r\n@1 a", Format::MonPoly),
        (b"# c\n@1 a", Format::MonPoly),
        (b"a,1", Format::Plain),
        (b"Event, x\na, 1", Format::Crv),
        (b"", Format::Plain),
    ] {
        let mut reader = TraceReader::new(input, PLAIN);
        let _ = reader.next_event();
        assert_eq!(reader.format(), format, "{input:?}");
    }
    // Forced: `<a>,1` is a plain CSV event.
    assert_eq!(
        events(b"<a>,1\n", fmt(Format::Plain)),
        vec![ev("<a>", &["1"], 0, 1, 1)]
    );
    let e = error(b"a,1\n", fmt(Format::MonPoly));
    assert!(e.message().contains("expected `@`"), "{e}");
    let e = error(b"a,1\n", fmt(Format::Json));
    assert!(e.message().contains("expected `{`"), "{e}");
    let e = error(b"a,1\n", fmt(Format::Xml));
    assert!(e.message().contains("unexpected text"), "{e}");
}

/// `text` gzip-compressed, in two members.
fn gzip(text: &[u8]) -> Vec<u8> {
    let half = text.len() / 2;
    let mut out = Vec::new();
    for part in [&text[..half], &text[half..]] {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(part).expect("in memory");
        out.extend(enc.finish().expect("in memory"));
    }
    out
}

#[test]
fn compressed_input() {
    let text = b"open,f1\nclose,f1\n";
    let plain = events(text, PLAIN);
    let gz = gzip(text);
    let zst = zstd::encode_all(&text[..], 3).expect("in memory");
    for (input, compression) in [(gz, Compression::Gzip), (zst, Compression::Zstd)] {
        assert_eq!(events(&input, PLAIN), plain);
        let mut reader = TraceReader::new(&input[..], PLAIN);
        while reader.next_event().expect("valid").is_some() {}
        assert_eq!(reader.compression(), compression);
        assert_eq!(reader.bytes_read(), input.len() as u64);
        // One byte at a time.
        assert_eq!(
            drain(TraceReader::new(Trickle(&input, false), PLAIN)).0,
            plain
        );
    }
    let mut broken = zstd::encode_all(&text[..], 3).expect("in memory");
    broken.truncate(broken.len() - 3);
    let e = error(&broken, PLAIN);
    assert_eq!(e.kind, K::Decompress);
    assert!(e.message().contains("cannot read the trace"), "{e}");
    let mut broken = gzip(text);
    broken[12] ^= 0xff;
    let e = error(&broken, PLAIN);
    assert_eq!(e.kind, K::Decompress);
    // The user's reader failing under a decoder is an I/O error.
    let gz = gzip(b"a\nb\n");
    let e = drain(TraceReader::new(Trickle(&gz, true), PLAIN))
        .1
        .expect("an error");
    assert_eq!(e.kind, K::Io);
    assert!(e.message().contains("disk on fire"), "{e}");
}

#[test]
fn xml_event_beyond_the_size_limit() {
    let input = b"<log>\n<event><name>a</name></event>\n<event><name>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</name></event>\n</log>";
    let (got, e, _) = drain(TraceReader::new(&input[..], PLAIN).max_event_size(30));
    assert_eq!(got, vec![ev("a", &[], 0, 2, 1)]);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::TooLong, 3), "{e}");
}

/// A reader that hands out its input in pieces of at most `size` bytes.
struct Pieces<'a>(&'a [u8], usize);

impl io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.len().min(self.1).min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

mod props {
    use proptest::prelude::*;

    use super::*;

    fn text(start: &'static str, alphabet: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(alphabet.to_vec()), 0..80).prop_map(move |t| {
            let mut out = start.as_bytes().to_vec();
            out.extend(t);
            out
        })
    }

    fn any_format() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            text("@1 ", b"@ 1(),\"a#;\n"),
            text("{", b"{}[]\":, a1\\\n"),
            text("<log>", b"<>/ logeventnamefieldvalue&;\n"),
        ]
    }

    proptest! {
        #[test]
        fn reads_do_not_matter_in_any_format(
            input in any_format(),
            size in 1usize..5,
            limit in 4u64..40,
            timed in any::<bool>(),
        ) {
            let options = opts(timed, Format::Auto);
            let whole = drain(TraceReader::new(&input[..], options));
            let pieces = drain(TraceReader::new(Pieces(&input, size), options));
            prop_assert_eq!(&whole, &pieces);
            // A smaller limit reads a prefix of the events, and stops only
            // on an event too long.
            let (limited, error, _) = drain(TraceReader::new(Pieces(&input, size), options).max_event_size(limit));
            prop_assert_eq!(&limited[..], &whole.0[..limited.len()]);
            if limited.len() < whole.0.len() || error != whole.1 {
                prop_assert_eq!(error.map(|e| e.kind), Some(TraceErrorKind::TooLong));
            }
        }
    }
}

#[test]
fn the_time_stamp_of_xml_and_json_events_is_found_by_name() {
    let timed = opts(true, Format::Auto);
    // Whatever the order of the keys, with and without declared names.
    let json = b"{\"send\":{\"ts\":100,\"id\":7}}\n{\"send\":{\"id\":8,\"ts\":101}}\n";
    let want = vec![ev("send", &["7"], 100, 1, 1), ev("send", &["8"], 101, 2, 2)];
    assert_eq!(events(json, timed), want);
    let declared = FieldNames::from_spec("pred send(id)\nprop p : Forall i . send(i) -> true");
    assert_eq!(read_named(json, &declared, timed), (want, None));
    // `time` before `timestamp` before `ts`: the others are arguments.
    let both = b"{\"a\":{\"ts\":\"5\",\"time\":3}}";
    assert_eq!(events(both, timed), vec![ev("a", &["5"], 3, 1, 1)]);
    let xml = b"<event><name>a</name><field><name>timestamp</name><value>4</value></field>\
<field><name>x</name><value>1</value></field></event>";
    assert_eq!(events(xml, timed), vec![ev("a", &["1"], 4, 1, 1)]);
    // Another name, with `time_field`; missing, an error naming the event.
    let at = b"{\"a\":{\"at\":2,\"x\":1}}\n";
    let reader = TraceReader::new(&at[..], timed).time_field(Some("at"));
    let (got, e, _) = drain(reader.field_names(FieldNames::new()));
    assert_eq!((got, e), (vec![ev("a", &["1"], 2, 1, 1)], None));
    let e = error(at, timed);
    assert_eq!((e.kind, e.line), (K::MissingTime, 1));
    assert_eq!(
        e.message(),
        "missing timestamp: event `a` has none of the fields `time`, `timestamp`, `ts` that \
         hold the time stamp of a timed event (name another with --time-field)"
    );
    let reader = TraceReader::new(&b"\n{\"b\":{\"time\":2}}"[..], timed).time_field(Some("at"));
    let e = drain(reader).1.expect("an error");
    assert_eq!((e.kind, e.line), (K::MissingTime, 2));
    assert!(e.message().contains("event `b` has no field `at`"), "{e}");
    // Positional values: the last is the time stamp.
    assert_eq!(
        events(b"{\"p\": [\"a\", 6]}", timed),
        vec![ev("p", &["a"], 6, 1, 1)]
    );
}

#[test]
fn a_forced_format_fails_at_the_first_line_that_does_not_conform() {
    // A CSV file read as XML: its first line, not its last.
    let csv = b"open,a\nclose,a\nclose,a\n";
    let e = error(csv, opts(false, Format::Xml));
    assert_eq!((e.kind, e.line), (K::Syntax, 1));
    assert_eq!(
        e.message(),
        "unexpected text `open,a\\nclose,a\\nclose,a` in the document"
    );
    let e = error(b"\n\nopen,a\n", opts(false, Format::Xml));
    assert_eq!(e.line, 3);
    let e = error(csv, opts(false, Format::Json));
    assert_eq!(e.line, 1);
    // Stray text between events: the line where it starts.
    let xml = b"<log>\n<event><name>a</name></event>\n\n  stray\nmore\n<event/></log>";
    let e = error(xml, PLAIN);
    assert_eq!(e.line, 4);
    assert_eq!(e.message(), "unexpected text `stray\\nmore` in <log>");
}
