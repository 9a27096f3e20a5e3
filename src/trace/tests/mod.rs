//! Unit tests of the trace readers: well-formed traces, with the helpers
//! shared with [`errors`].

mod errors;
mod formats;
mod props;
mod time;

use std::io::{self, Read};
use std::path::Path;

use super::*;

/// One event, owned: (name, args, time, line, number).
type Ev = (Vec<u8>, Vec<Vec<u8>>, u64, u64, u64);

fn opts(timed: bool, format: Format) -> TraceOptions {
    TraceOptions { timed, format }
}

/// Reads all of `input`; the events before the first error, and the error.
fn read_all(input: &[u8], options: TraceOptions) -> (Vec<Ev>, Option<TraceError>) {
    let (events, error, _) = drain(TraceReader::new(input, options));
    (events, error)
}

/// All events of `reader`, owned, the error that ended them, and the bytes read.
fn drain<R: Read>(mut reader: TraceReader<R>) -> (Vec<Ev>, Option<TraceError>, u64) {
    let mut events = Vec::new();
    loop {
        match reader.next_event() {
            Ok(Some(e)) => {
                assert_eq!(e.args().len(), e.arity());
                let args = e.args().map(<[u8]>::to_vec).collect();
                events.push((e.name.to_vec(), args, e.time, e.line, e.number));
            }
            Ok(None) => return (events, None, reader.bytes_read()),
            Err(err) => {
                let bytes = reader.bytes_read();
                // The reader is fused after an error.
                assert!(matches!(reader.next_event(), Ok(None)));
                return (events, Some(err), bytes);
            }
        }
    }
}

/// Reads all of `input`, which must be fine.
fn events(input: &[u8], options: TraceOptions) -> Vec<Ev> {
    let (events, error) = read_all(input, options);
    assert_eq!(error, None);
    events
}

/// Reads `input`, which must fail; the error.
fn error(input: &[u8], options: TraceOptions) -> TraceError {
    match read_all(input, options) {
        (_, Some(e)) => e,
        (evs, None) => panic!("expected an error, read {evs:?}"),
    }
}

fn ev(name: &str, args: &[&str], time: u64, line: u64, number: u64) -> Ev {
    (
        name.into(),
        args.iter().map(|a| a.as_bytes().to_vec()).collect(),
        time,
        line,
        number,
    )
}

const PLAIN: TraceOptions = TraceOptions {
    timed: false,
    format: Format::Auto,
};
const TIMED: TraceOptions = TraceOptions {
    timed: true,
    format: Format::Auto,
};

#[test]
fn plain_events() {
    let got = events(b"open,f1,rw\nclose,f1\nsync\n", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("open", &["f1", "rw"], 0, 1, 1),
            ev("close", &["f1"], 0, 2, 2),
            ev("sync", &[], 0, 3, 3)
        ]
    );
}

#[test]
fn plain_trims_blanks_around_unquoted_fields() {
    // Spaces and tabs around a field go, inside it they stay; a CRLF's `\r`
    // goes before the blanks; in place (a line without a quote) and through
    // the state machine (a quote elsewhere on the line) alike.
    let got = events(b"login, root\n a ,\tx y\t, z \r\n", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("login", &["root"], 0, 1, 1),
            ev("a", &["x y", "z"], 0, 2, 2)
        ]
    );
    let got = events(b" a ,\tx y\t, z ,\"q\"\r\n", PLAIN);
    assert_eq!(got, vec![ev("a", &["x y", "z", "q"], 0, 1, 1)]);
    // An argument of only blanks is empty; a name of only blanks is an error.
    assert_eq!(
        events(b"a, ,\t\n", PLAIN),
        vec![ev("a", &["", ""], 0, 1, 1)]
    );
    let e = error(b"a\n  ,x\n", PLAIN);
    assert_eq!((e.kind, e.line), (TraceErrorKind::EmptyName, 2));
}

#[test]
fn quoted_fields() {
    let got = events(b"a,\"x,y\",\"say \"\"hi\"\"\",\"\"\n\"b c\",1\n", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("a", &["x,y", "say \"hi\"", ""], 0, 1, 1),
            ev("b c", &["1"], 0, 2, 2)
        ]
    );
}

#[test]
fn quoted_field_spanning_lines() {
    let got = events(b"a,\"x\ny\nz\",1\nb,2\n\nc\n", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("a", &["x\ny\nz", "1"], 0, 1, 1),
            ev("b", &["2"], 0, 4, 2),
            ev("c", &[], 0, 6, 3)
        ]
    );
}

#[test]
fn literal_quote_inside_unquoted_field() {
    let got = events(b"a,x\"y,\"z\"\n", PLAIN);
    assert_eq!(got, vec![ev("a", &["x\"y", "z"], 0, 1, 1)]);
}

#[test]
fn crlf_line_ends() {
    let got = events(b"a,1\r\nb,\"q\"\r\n\r\nc\r\n", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("a", &["1"], 0, 1, 1),
            ev("b", &["q"], 0, 2, 2),
            ev("c", &[], 0, 4, 3)
        ]
    );
    let got = events(b"a,1,5\r\nb,7\r\n", TIMED);
    assert_eq!(got, vec![ev("a", &["1"], 5, 1, 1), ev("b", &[], 7, 2, 2)]);
}

#[test]
fn carriage_return_inside_quotes_is_data() {
    let got = events(b"a,\"x\r\"\nb,\"y\r\"\r\nc,\"z\r\"", PLAIN);
    assert_eq!(
        got,
        vec![
            ev("a", &["x\r"], 0, 1, 1),
            ev("b", &["y\r"], 0, 2, 2),
            ev("c", &["z\r"], 0, 3, 3)
        ]
    );
    assert_eq!(
        events(b"a\rb,1\r\n", PLAIN),
        vec![ev("a\rb", &["1"], 0, 1, 1)]
    );
}

#[test]
fn missing_final_newline() {
    assert_eq!(
        events(b"a,1\nb,2", PLAIN),
        vec![ev("a", &["1"], 0, 1, 1), ev("b", &["2"], 0, 2, 2)]
    );
    assert_eq!(
        events(b"a,1\r\nb,\"2\"", PLAIN),
        vec![ev("a", &["1"], 0, 1, 1), ev("b", &["2"], 0, 2, 2)]
    );
    assert_eq!(
        events(b"a,3\nb,4", TIMED),
        vec![ev("a", &[], 3, 1, 1), ev("b", &[], 4, 2, 2)]
    );
}

#[test]
fn blank_lines_skipped() {
    let input = b"\n\n  \na\n\n\t \r\n\"\"\nb,1\n   \n";
    assert_eq!(
        events(input, PLAIN),
        vec![ev("a", &[], 0, 4, 1), ev("b", &["1"], 0, 8, 2)]
    );
    assert_eq!(events(b"", PLAIN), vec![]);
    assert_eq!(events(b"\n\r\n  ", TIMED), vec![]);
}

#[test]
fn zero_args() {
    let got = events(b"tick\ntock\n", PLAIN);
    assert_eq!(
        got,
        vec![ev("tick", &[], 0, 1, 1), ev("tock", &[], 0, 2, 2)]
    );
}

#[test]
fn ten_thousand_args() {
    let mut line = b"big".to_vec();
    for i in 0..10_000 {
        line.extend_from_slice(format!(",v{i}").as_bytes());
    }
    line.extend_from_slice(b",42\nnext\n");
    let mut reader = TraceReader::new(&line[..], TIMED);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!(
        (e.name, e.arity(), e.time, e.line, e.number),
        (&b"big"[..], 10_000, 42, 1, 1)
    );
    assert_eq!(
        (e.arg(0), e.arg(9_999), e.get_arg(10_000)),
        (&b"v0"[..], &b"v9999"[..], None)
    );
    assert_eq!(e.args().nth(1234), Some(&b"v1234"[..]));
    let e = reader.next_event();
    assert!(matches!(e, Err(TraceError { line: 2, .. })), "{e:?}");
}

#[test]
fn ten_megabyte_field() {
    let size = 10 * 1024 * 1024;
    let mut input = b"blob,".to_vec();
    input.extend((0..size).map(|i| b'a' + (i % 26) as u8));
    input.extend_from_slice(b",x\nend\n");
    let mut reader = TraceReader::new(&input[..], PLAIN);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!(
        (e.name, e.arity(), e.arg(0).len(), e.arg(1)),
        (&b"blob"[..], 2, size, &b"x"[..])
    );
    assert_eq!(e.arg(0)[..3], *b"abc");
    assert_eq!(e.arg(0)[size - 1], b'a' + ((size - 1) % 26) as u8);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!((e.name, e.line, e.number), (&b"end"[..], 2, 2));
    assert_eq!(reader.bytes_read(), input.len() as u64);
}

#[test]
fn bytes_not_utf8() {
    let got = events(b"\xff\xfe,a\x00b,\"\xc3(\"\n", PLAIN);
    assert_eq!(
        got,
        vec![(
            b"\xff\xfe".to_vec(),
            vec![b"a\x00b".to_vec(), b"\xc3(".to_vec()],
            0,
            1,
            1
        )]
    );
}

#[test]
fn timed_events() {
    let got = events(b"a,x,0\nb,10\nc,y,z,10\nd,18446744073709551615\n", TIMED);
    assert_eq!(
        got,
        vec![
            ev("a", &["x"], 0, 1, 1),
            ev("b", &[], 10, 2, 2),
            ev("c", &["y", "z"], 10, 3, 3),
            ev("d", &[], u64::MAX, 4, 4)
        ]
    );
}

#[test]
fn crv_header_with_spaces() {
    let input = b"event, file, mode\nopen, f1, rw\r\n close ,\"a, b\" ,  x\n\nsync\n";
    let mut reader = TraceReader::new(&input[..], PLAIN);
    assert_eq!(reader.format(), Format::Auto);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!(
        (e.name, e.args().collect::<Vec<_>>(), e.line, e.number),
        (&b"open"[..], vec![&b"f1"[..], b"rw"], 2, 1)
    );
    assert_eq!(reader.format(), Format::Crv);
    let got = events(input, PLAIN);
    assert_eq!(
        got,
        vec![
            ev("open", &["f1", "rw"], 0, 2, 1),
            ev("close", &["a, b", "x"], 0, 3, 2),
            ev("sync", &[], 0, 5, 3)
        ]
    );
    assert_eq!(
        events(b"\n  event \nevent, 1\n", PLAIN),
        vec![ev("event", &["1"], 0, 3, 1)]
    );
    let timed = events(b"event, x, time\nset, 1, 10 \nset, 2 ,  11\n", TIMED);
    assert_eq!(
        timed,
        vec![ev("set", &["1"], 10, 2, 1), ev("set", &["2"], 11, 3, 2)]
    );
}

#[test]
fn detection_not_triggered_for_plain_traces() {
    for (input, first) in [
        (&b"events,1\nx\n"[..], "events"),
        (b"open,event\nx\n", "open"),
    ] {
        let mut reader = TraceReader::new(input, PLAIN);
        let e = reader.next_event().expect("valid").expect("an event");
        assert_eq!((e.name, e.line, e.number), (first.as_bytes(), 1, 1));
        assert_eq!(reader.format(), Format::Plain);
    }
    // The header's `event` may be in any case.
    let mut reader = TraceReader::new(&b"Event,user\nx, 1\n"[..], PLAIN);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!(
        (e.name, e.arg(0), e.line, e.number),
        (&b"x"[..], &b"1"[..], 2, 1)
    );
    assert_eq!(reader.format(), Format::Crv);
    // Forced plain: `event` is an ordinary event name.
    let got = events(b"event, x\nevent\n", PLAIN.with(Format::Plain));
    assert_eq!(
        got,
        vec![ev("event", &["x"], 0, 1, 1), ev("event", &[], 0, 2, 2)]
    );
}

#[test]
fn bytes_read_progress() {
    let input = b"a,1\nbb,22\n";
    let mut reader = TraceReader::new(&input[..], PLAIN);
    assert_eq!(reader.bytes_read(), 0);
    assert!(reader.next_event().expect("valid").is_some());
    assert_eq!(reader.bytes_read(), 4);
    assert!(reader.next_event().expect("valid").is_some());
    assert_eq!(reader.bytes_read(), 10);
    assert!(reader.next_event().expect("valid").is_none());
    assert_eq!(reader.events_read(), 2);
}

/// A reader that hands out one byte at a time, then fails if asked to.
struct Trickle<'a>(&'a [u8], bool);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.split_first() {
            Some((&b, rest)) => {
                buf[0] = b;
                self.0 = rest;
                Ok(1)
            }
            None if self.1 => Err(io::Error::other("disk on fire")),
            None => Ok(0),
        }
    }
}

#[test]
fn byte_by_byte_input() {
    let input = b"a,\"x\"\"\ny\"\r\n\r\nb,\"q\"\r\nc,\"z\"w\n";
    let mut reader = TraceReader::new(Trickle(input, false), PLAIN);
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!((e.arg(0), e.line), (&b"x\"\ny"[..], 1));
    let e = reader.next_event().expect("valid").expect("an event");
    assert_eq!((e.arg(0), e.line), (&b"q"[..], 4));
    let e = reader
        .next_event()
        .map(|e| e.map(|e| e.line))
        .expect_err("broken quoting");
    assert_eq!(
        (e.kind, e.line, e.column),
        (TraceErrorKind::Quoting, 5, Some(6))
    );
    assert!(e.message().contains("`w`"), "{e}");
}

#[test]
fn timed_file_names() {
    assert!(timed_by_name(Path::new("tests/log1.timed.csv")));
    assert!(timed_by_name(Path::new("x.timed.")));
    assert!(!timed_by_name(Path::new("log1.csv")));
    assert!(!timed_by_name(Path::new("timed.csv")));
    assert!(!timed_by_name(Path::new("a.timed/log.csv")));
}

#[test]
fn event_ref_accessors() {
    let input = b"op,1,2,3\n";
    let mut reader = TraceReader::new(&input[..], PLAIN);
    let e = reader.next_event().expect("valid").expect("an event");
    let args = e.args();
    assert_eq!(args.len(), 3);
    assert_eq!(args.collect::<Vec<_>>(), vec![&b"1"[..], b"2", b"3"]);
    assert_eq!(
        format!("{e:?}"),
        r#"EventRef { name: "op", args: ["1", "2", "3"], time: 0, line: 1, number: 1 }"#
    );
}

impl TraceOptions {
    fn with(self, format: Format) -> Self {
        opts(self.timed, format)
    }
}

#[test]
fn records_across_buffer_boundaries() {
    // Enough records to fill several input buffers, so that records read in
    // place straddle the buffer's end; every fifth has a quoted field (read
    // by the state machine), every seventh a CRLF, and in CRV blanks.
    for crv in [false, true] {
        let mut input = Vec::new();
        let mut expected = Vec::new();
        let mut line = 1;
        if crv {
            input.extend_from_slice(b"event, a, b\n");
            line += 1;
        }
        for i in 0..40_000u64 {
            let pad = if crv { " " } else { "" };
            let end = if i % 7 == 0 { "\r\n" } else { "\n" };
            let arg = format!("{}", i * 7919 % 100_003);
            if i % 5 == 0 {
                input.extend(format!("ev{i},{pad}\"{arg},q\"{pad},x{end}").bytes());
                expected.push(ev(
                    &format!("ev{i}"),
                    &[&format!("{arg},q"), "x"],
                    0,
                    line,
                    i + 1,
                ));
            } else {
                input.extend(format!("ev{i},{pad}{arg}{pad},x{end}").bytes());
                expected.push(ev(&format!("ev{i}"), &[&arg, "x"], 0, line, i + 1));
            }
            line += 1;
        }
        assert!(input.len() > 4 * 64 * 1024);
        assert_eq!(events(&input, PLAIN), expected, "crv {crv}");
        // Byte by byte, the first few thousand bytes (whole lines).
        let cut = input[..5000]
            .iter()
            .rposition(|&b| b == b'\n')
            .expect("lines")
            + 1;
        let (pieces, e, _) = drain(TraceReader::new(Trickle(&input[..cut], false), PLAIN));
        assert_eq!(e, None);
        assert!(pieces.len() > 100);
        assert_eq!(pieces[..], expected[..pieces.len()], "crv {crv}");
    }
}

#[test]
fn time_stamp_error_columns() {
    // Read in place: the column of the time stamp field, also in CRV.
    let e = error(b"event, t\nab, 1, 2x\n", TIMED);
    assert_eq!(
        (e.kind, e.line, e.column),
        (TraceErrorKind::BadTime, 2, Some(8))
    );
    // Read by the state machine (a quoted field): no column.
    let e = error(b"a,\"1\",2x\n", TIMED);
    assert_eq!(
        (e.kind, e.line, e.column),
        (TraceErrorKind::BadTime, 1, None)
    );
}

#[test]
fn fields_split_at_every_offset_of_a_word_beside_look_alike_bytes() {
    // The in-place reader tests eight bytes at a time for `,`, `\n` and
    // `"`, and may flag the byte just above one of them (`-`, `\v`, `#`,
    // one more than each): every field length from 0 to 9 puts the commas
    // and the line end at every offset of a word, beside such bytes.
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for (i, n) in (0..10usize)
        .flat_map(|a| (0..10usize).map(move |b| (a, b)))
        .enumerate()
    {
        let first = "-#".repeat(n.0).chars().take(n.0).collect::<String>();
        let second = "#-\u{b}".repeat(n.1).chars().take(n.1).collect::<String>();
        input.extend(format!("e{i},{first},{second}\n").bytes());
        expected.push(ev(
            &format!("e{i}"),
            &[&first, &second],
            0,
            i as u64 + 1,
            i as u64 + 1,
        ));
    }
    assert_eq!(events(&input, PLAIN), expected);
    // A quote in any place sends the record to the state machine.
    let (evs, e) = read_all(b"a,b-c,#\"d\"\n-,\"x\"\n", opts(false, Format::Plain));
    assert_eq!(e, None);
    assert_eq!(
        evs,
        vec![
            ev("a", &["b-c", "#\"d\""], 0, 1, 1),
            ev("-", &["x"], 0, 2, 2)
        ]
    );
}
