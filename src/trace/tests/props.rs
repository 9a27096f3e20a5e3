//! Property tests: traces generated from a model and written with random
//! quoting, line ends and blank lines read back exactly; and the result never
//! depends on how the input is split into reads.

use std::io::{self, Read};

use proptest::prelude::*;

use super::*;

/// One line of a generated trace.
#[derive(Clone, Debug)]
enum Line {
    /// A blank line: 0 empty, 1 spaces, 2 a tab, 3 a lone `""`.
    Blank(u8),
    /// An event: name, arguments, which fields to quote even if not needed.
    Event(Vec<u8>, Vec<Vec<u8>>, Vec<bool>),
}

fn field() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop::sample::select(vec![b'a', b'b', b' ', b',', b'"', b'\n', b'\r', 0xff, 0]);
    prop::collection::vec(byte, 0..6)
}

fn line() -> impl Strategy<Value = Line> {
    let name = field().prop_map(|mut f| {
        f.insert(0, b'n');
        f
    });
    let event = (
        name,
        prop::collection::vec(field(), 0..4),
        prop::collection::vec(any::<bool>(), 5),
    )
        .prop_map(|(name, args, quote)| Line::Event(name, args, quote));
    prop_oneof![1 => (0u8..4).prop_map(Line::Blank), 4 => event]
}

/// Writes `field` to `out`, quoted if needed (a separator, a quote, a line
/// end, or blanks around it, which an unquoted field loses) or asked.
fn write_field(out: &mut Vec<u8>, field: &[u8], quote: bool) {
    let blank = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t'));
    if quote
        || blank(field.first())
        || blank(field.last())
        || field
            .iter()
            .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.push(b'"');
        for &b in field {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
    } else {
        out.extend_from_slice(field);
    }
}

/// The text of `lines` and the events expected from it.
fn render(lines: &[Line], timed: bool, crlf: &[bool], final_end: bool) -> (Vec<u8>, Vec<Ev>) {
    let (text, expected, _) = render_sized(lines, timed, crlf, final_end);
    (text, expected)
}

/// [`render`], and the size of each event's record: its bytes up to the
/// `\n` that ends it (a `\r` before that included).
fn render_sized(
    lines: &[Line],
    timed: bool,
    crlf: &[bool],
    final_end: bool,
) -> (Vec<u8>, Vec<Ev>, Vec<usize>) {
    let (mut out, mut expected, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
    let mut line_no = 1;
    for (k, line) in lines.iter().enumerate() {
        let start = out.len();
        match line {
            Line::Blank(kind) => {
                out.extend_from_slice([&b""[..], b"  ", b"\t", b"\"\""][usize::from(*kind)])
            }
            Line::Event(name, args, quote) => {
                write_field(&mut out, name, quote[0]);
                for (i, arg) in args.iter().enumerate() {
                    out.push(b',');
                    write_field(&mut out, arg, quote[i + 1]);
                }
                let time = 10 * k as u64;
                if timed {
                    out.extend_from_slice(format!(",{time}").as_bytes());
                }
                let number = expected.len() as u64 + 1;
                expected.push((
                    name.clone(),
                    args.clone(),
                    if timed { time } else { 0 },
                    line_no,
                    number,
                ));
            }
        }
        line_no += out[start..].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        if k + 1 < lines.len() || final_end {
            out.extend_from_slice(if crlf[k % crlf.len()] { b"\r\n" } else { b"\n" });
        }
        if matches!(line, Line::Event(..)) {
            let end = if out.last() == Some(&b'\n') {
                out.len() - 1
            } else {
                out.len()
            };
            sizes.push(end - start);
        }
    }
    (out, expected, sizes)
}

/// A reader that hands out `input` in pieces of at most `size` bytes.
struct Pieces<'a> {
    input: &'a [u8],
    size: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.len().min(self.size).min(buf.len());
        buf[..n].copy_from_slice(&self.input[..n]);
        self.input = &self.input[n..];
        Ok(n)
    }
}

proptest! {
    #[test]
    fn generated_traces_read_back(
        lines in prop::collection::vec(line(), 0..12),
        timed in any::<bool>(),
        crlf in prop::collection::vec(any::<bool>(), 1..4),
        final_end in any::<bool>(),
    ) {
        let (text, expected) = render(&lines, timed, &crlf, final_end);
        let options = TraceOptions { timed, format: Format::Plain };
        let (got, error, bytes) = drain(TraceReader::new(&text[..], options));
        prop_assert_eq!(error, None);
        prop_assert_eq!(got, expected);
        prop_assert_eq!(bytes, text.len() as u64);
    }

    #[test]
    fn events_beyond_the_size_limit_stop_the_trace(
        lines in prop::collection::vec(line(), 0..12),
        crlf in prop::collection::vec(any::<bool>(), 1..4),
        final_end in any::<bool>(),
        limit in 3u64..40,
        size in 1usize..70,
    ) {
        let (text, expected, sizes) = render_sized(&lines, false, &crlf, final_end);
        let options = TraceOptions { timed: false, format: Format::Plain };
        let input = Pieces { input: &text, size };
        let (got, error, _) = drain(TraceReader::new(input, options).max_event_size(limit));
        // Blank lines are at most 3 bytes long: only events can be too long.
        let k = sizes.iter().position(|&s| s as u64 > limit).unwrap_or(sizes.len());
        prop_assert_eq!(&got[..], &expected[..k]);
        match error {
            None => prop_assert_eq!(k, expected.len()),
            Some(e) => {
                prop_assert!(k < expected.len());
                prop_assert_eq!(e.line, expected[k].3);
                prop_assert_eq!(e.kind, TraceErrorKind::TooLong, "{}", e);
            }
        }
    }

    #[test]
    fn reads_do_not_matter(
        text in prop::collection::vec(prop::sample::select(b"ab ,\"\n\r\t1".to_vec()), 0..60),
        timed in any::<bool>(),
        crv in any::<bool>(),
        size in 1usize..5,
        limit in 1u64..12,
    ) {
        let mut text = text;
        if crv {
            text.splice(0..0, b"event,x\n".iter().copied());
        }
        let options = TraceOptions { timed, format: Format::Auto };
        let whole = drain(TraceReader::new(&text[..], options));
        let pieces = drain(TraceReader::new(Pieces { input: &text, size }, options));
        prop_assert_eq!(whole, pieces);
        let whole = drain(TraceReader::new(&text[..], options).max_event_size(limit));
        let pieces = Pieces { input: &text, size };
        let pieces = drain(TraceReader::new(pieces, options).max_event_size(limit));
        // Only the bytes read before the error may differ.
        prop_assert_eq!((whole.0, whole.1), (pieces.0, pieces.1));
    }
}
