//! Unit tests of the trace readers: malformed traces.

use super::*;
use crate::trace::TraceErrorKind as K;

#[test]
fn timed_missing_timestamp() {
    let (got, e) = read_all(b"a,1\n\nb\n", TIMED);
    assert_eq!(got, vec![ev("a", &[], 1, 1, 1)]);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line, e.column), (K::MissingTime, 3, Some(2)));
    assert!(e.message().contains("`b`"), "{e}");
    let e = error(b"a,x,\n", TIMED);
    assert_eq!((e.kind, e.line, e.column), (K::MissingTime, 1, Some(5)));
}

#[test]
fn timed_bad_timestamps() {
    for bad in [
        "+5", "5 5", "1e3", "x", "0x10", "５", "1.", ".5", "1.2.3", "-x",
    ] {
        let input = format!("a,1,1\nb,{bad}\n");
        let e = error(input.as_bytes(), TIMED);
        assert_eq!(
            (e.kind, e.line, e.column),
            (K::BadTime, 2, Some(3)),
            "{bad}"
        );
        assert!(
            e.message().contains("not a natural or decimal number"),
            "{bad}: {e}"
        );
    }
    // Blanks around a time stamp are trimmed as around any field.
    let (got, e) = read_all(b"a,1, 7\t\nb, 8 \n", TIMED);
    assert!(e.is_none(), "{e:?}");
    assert_eq!(got, vec![ev("a", &["1"], 7, 1, 1), ev("b", &[], 8, 2, 2)]);
    let e = error(b"a,1,1\nb,-5\n", TIMED);
    assert_eq!((e.kind, e.line), (K::BadTime, 2));
    assert!(e.message().contains("`-5` is negative"), "{e}");
    let e = error(b"a,1,1\nb,5.0\n", TIMED);
    assert_eq!((e.kind, e.line), (K::BadTime, 2));
    assert!(
        e.message().contains("1 decimal digit") && e.message().contains("--time-decimals 1"),
        "{e}"
    );
    let e = error(b"a,18446744073709551616\n", TIMED);
    assert_eq!((e.kind, e.line), (K::BadTime, 1));
    assert!(
        e.message().contains("out of range") && e.message().contains("18446744073709551616"),
        "{e}"
    );
}

#[test]
fn timed_decreasing() {
    let (got, e) = read_all(b"a,5\nb,10\nb,10\n\nc,9\nd,20\n", TIMED);
    assert_eq!(got.len(), 3);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::DecreasingTime, 5));
    assert!(
        e.message().contains("smaller") && e.message().contains('9') && e.message().contains("10"),
        "{e}"
    );
    assert_eq!(e.to_string(), format!("line 5: {}", e.message()));
}

#[test]
fn decreasing_time_allowed_on_request() {
    let reader = TraceReader::new(&b"a,5\nb,3\nc,4\n"[..], TIMED).allow_decreasing_time(true);
    let got: Vec<_> = drain(reader).0.into_iter().map(|e| (e.2, e.3)).collect();
    assert_eq!(got, vec![(5, 1), (3, 2), (4, 3)]);
}

#[test]
fn empty_event_name() {
    let e = error(b"a\n,1\n", PLAIN);
    assert_eq!((e.kind, e.line, e.column), (K::EmptyName, 2, Some(1)));
    assert_eq!(e.to_string(), "line 2: empty event name");
    let e = error(b"  ,1\n", PLAIN);
    assert_eq!(
        (e.kind, e.line, e.message()),
        (K::EmptyName, 1, "empty event name")
    );
    let e = error(b"event, x\nopen, 1\n  , 2\n", PLAIN.with(Format::Crv));
    assert_eq!(
        (e.kind, e.line, e.message()),
        (K::EmptyName, 3, "empty event name")
    );
}

#[test]
fn unterminated_quote_at_end() {
    let (got, e) = read_all(b"a,1\nb,\"x,2\nc,3\n", PLAIN);
    assert_eq!(got, vec![ev("a", &["1"], 0, 1, 1)]);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line, e.column), (K::Quoting, 2, Some(3)));
    assert!(e.message().contains("never closed"), "{e}");
    for input in [
        &b"a\n\"\n"[..],
        b"a\n\"",
        b"a\n\"  ",
        b"a\n\"x\"\"\n",
        b"a\n\"x\r\n",
    ] {
        let e = error(input, PLAIN);
        assert_eq!(
            (e.kind, e.line, e.column),
            (K::Quoting, 2, Some(1)),
            "{input:?}"
        );
        assert!(e.message().contains("never closed"), "{e}");
    }
}

#[test]
fn text_after_closing_quote() {
    let (got, e) = read_all(b"a\nb,\"x\"y,1\nc\n", PLAIN);
    assert_eq!(got, vec![ev("a", &[], 0, 1, 1)]);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line, e.column), (K::Quoting, 2, Some(6)));
    assert!(e.message().contains("`y`"), "{e}");
    let e = error(b"a,\"x\"\r,1\n", PLAIN);
    assert_eq!((e.kind, e.line, e.column), (K::Quoting, 1, Some(6)));
    assert!(e.message().contains("`\\r`"), "{e}");
    // A closing quote just before the end of input is fine.
    assert_eq!(events(b"a,\"x\"", PLAIN), vec![ev("a", &["x"], 0, 1, 1)]);
    assert_eq!(events(b"a,\"x\"\r", PLAIN), vec![ev("a", &["x"], 0, 1, 1)]);
}

#[test]
fn crv_forced_needs_header() {
    let e = error(b"\nopen,1\n", PLAIN.with(Format::Crv));
    assert_eq!((e.kind, e.line), (K::MissingHeader, 2));
    assert!(e.message().contains("CRV header"), "{e}");
    assert_eq!(
        events(b"event,a\nx,1\n", PLAIN.with(Format::Crv)),
        vec![ev("x", &["1"], 0, 2, 1)]
    );
}

#[test]
fn read_error() {
    let mut reader = TraceReader::new(Trickle(b"a\nb", true), PLAIN);
    assert!(reader.next_event().expect("valid").is_some());
    let e = reader
        .next_event()
        .map(|e| e.map(|e| e.number))
        .expect_err("a read error");
    assert_eq!((e.kind, e.line), (K::Io, 2));
    assert!(e.message().contains("disk on fire"), "{e}");
}

#[test]
fn blanks_around_quoted_fields() {
    // Plain and CRV alike: blanks around a quoted field are trimmed away, as
    // the competition's files are written; its content is kept as it is.
    let plain = PLAIN.with(Format::Plain);
    assert_eq!(
        events(b"a, \"x\"\nb,\"x, y\" \t, 1\n", plain),
        vec![ev("a", &["x"], 0, 1, 1), ev("b", &["x, y", "1"], 0, 2, 2)]
    );
    assert_eq!(
        events(b"a,\" x \"\n", plain),
        vec![ev("a", &[" x "], 0, 1, 1)]
    );
    let e = error(b"a\nb,\"x\" y,1\n", plain);
    assert_eq!((e.kind, e.line, e.column), (K::Quoting, 2, Some(7)));
    assert!(e.message().contains("`y`"), "{e}");
    let got = events(b"event\nb,\"x, y\" \t, 1\n", PLAIN);
    assert_eq!(got, vec![ev("b", &["x, y", "1"], 0, 2, 1)]);
    let got = events(b"event, a\nb,1\nc, \" x, y \"\t\r\n", PLAIN);
    assert_eq!(
        got,
        vec![ev("b", &["1"], 0, 2, 1), ev("c", &[" x, y "], 0, 3, 2)]
    );
    let e = error(b"event, a\nb,\"x\" y\n", PLAIN);
    assert_eq!((e.kind, e.line, e.column), (K::Quoting, 2, Some(7)));
    assert!(e.message().contains("`y`"), "{e}");
}

#[test]
fn event_beyond_the_size_limit() {
    let reader =
        |input: &'static [u8], limit| drain(TraceReader::new(input, PLAIN).max_event_size(limit));
    // A record of exactly the limit is fine (its line end not counted, a
    // CRLF's `\r` counted).
    let (got, e, _) = reader(b"ab,cd\nab,c\r\n", 5);
    assert_eq!(got.len(), 2);
    assert_eq!(e, None);
    let (got, e, _) = reader(b"ab,cd\nab,cd\r\nx\n", 5);
    assert_eq!(got, vec![ev("ab", &["cd"], 0, 1, 1)]);
    let e = e.expect("an error");
    assert_eq!((e.kind, e.line), (K::TooLong, 2));
    assert_eq!(
        e.message(),
        "event too long: more than 5 bytes, the maximum size of an event \
         (a line end missing, or a quoted field never closed?)"
    );
    // A quoted field over several lines: the line where the event starts.
    let (got, e, _) = reader(b"a\n\n\"x\ny\nz\nw,1\"\nb\n", 6);
    assert_eq!(got.len(), 1);
    assert_eq!(e.map(|e| e.line), Some(3));
    // A quote never closed is an error at the limit, not at the end of input.
    let (_, e, bytes) = reader(b"a,\"x\ny\nz\nw\nv\nu\n", 6);
    assert_eq!(e.map(|e| e.line), Some(1));
    assert_eq!(bytes, 7);
}

#[test]
fn huge_line_stops_at_the_default_limit() {
    /// An endless line of `a`s, counting the bytes handed out.
    struct Endless(std::rc::Rc<std::cell::Cell<u64>>);
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(b'a');
            self.0.set(self.0.get() + buf.len() as u64);
            Ok(buf.len())
        }
    }
    let handed_out = std::rc::Rc::default();
    let mut reader = TraceReader::new(Endless(std::rc::Rc::clone(&handed_out)), PLAIN);
    let e = reader
        .next_event()
        .map(|e| e.is_some())
        .expect_err("too long");
    assert_eq!((e.kind, e.line), (K::TooLong, 1));
    assert!(e.message().contains("more than 16777216 bytes"), "{e}");
    assert_eq!(DEFAULT_MAX_EVENT_SIZE, 16 * 1024 * 1024);
    assert!(reader.bytes_read() <= DEFAULT_MAX_EVENT_SIZE + 1);
    assert!(handed_out.get() < DEFAULT_MAX_EVENT_SIZE + 2 * 65536);
}

#[test]
fn a_header_row_read_as_a_timed_event_gets_a_hint() {
    let e = error(b"name,msg,ts\nstart,a,1\n", TIMED);
    assert_eq!((e.kind, e.line), (K::BadTime, 1));
    assert!(
        e.message().ends_with(
            "(the first line looks like a header row of column names: remove it, or name its \
             first column `event` to read it as the header of a CRV CSV trace)"
        ),
        "{e}"
    );
    // Not on a later line, nor when a field is no word.
    let e = error(b"start,a,1\nname,msg,ts\n", TIMED);
    assert!(!e.message().contains("header row"), "{e}");
    let e = error(b"start,a=1,x\n", TIMED);
    assert!(!e.message().contains("header row"), "{e}");
}
