//! Unit tests of the trace readers: decimal time stamps, in ticks of
//! `10^-decimals` time units.

use super::*;
use crate::trace::diag::parse_time;

/// The time stamps of `input` read with `decimals`, or the first error.
fn times(input: &[u8], format: Format, decimals: u8) -> Result<Vec<u64>, TraceError> {
    let options = TraceOptions {
        timed: true,
        format,
    };
    let (events, error, _) = drain(TraceReader::new(input, options).time_decimals(decimals));
    match error {
        Some(e) => Err(e),
        None => Ok(events.into_iter().map(|e| e.2).collect()),
    }
}

#[test]
fn whole_and_decimal_stamps_in_ticks() {
    assert_eq!(parse_time(b"12", 0), Ok(12));
    assert_eq!(parse_time(b"12", 3), Ok(12_000));
    assert_eq!(parse_time(b"0.25", 2), Ok(25));
    assert_eq!(parse_time(b"0.25", 3), Ok(250));
    assert_eq!(parse_time(b"007.5", 1), Ok(75));
    assert_eq!(parse_time(b"1.000", 3), Ok(1000));
    assert_eq!(
        parse_time(b"18446744073709551615", 0),
        Ok(u64::MAX),
        "the largest whole stamp still reads as it did"
    );
    assert_eq!(parse_time(b"1844674407370955161.5", 1), Ok(u64::MAX));
}

#[test]
fn never_rounded_and_never_wrapped() {
    let e = parse_time(b"0.125", 2).unwrap_err();
    assert!(
        e.contains("3 decimal digits")
            && e.contains("--time-decimals 3")
            && e.contains("at most 2"),
        "{e}"
    );
    let e = parse_time(b"0.1234567891", 2).unwrap_err();
    assert!(e.contains("at most 9 decimals can be read"), "{e}");
    for (stamp, decimals) in [
        (&b"18446744073709551616"[..], 0),
        (b"1844674407370955161.6", 1),
        (b"18446744073709551615", 1),
        (b"99999999999999999999999.5", 1),
    ] {
        let e = parse_time(stamp, decimals).unwrap_err();
        assert!(e.contains("out of range"), "{e}");
    }
    let e = parse_time(b"18446744073709551615", 1).unwrap_err();
    assert!(e.contains("the maximum is 1844674407370955161.5"), "{e}");
}

#[test]
fn every_format_reads_decimal_stamps() {
    let csv = b"a,1,0.5\nb,2\n";
    assert_eq!(times(csv, Format::Auto, 1), Ok(vec![5, 20]));
    assert_eq!(times(csv, Format::Auto, 3), Ok(vec![500, 2000]));
    let crv = b"event, x, time\na, 1, 0.5\n";
    assert_eq!(times(crv, Format::Auto, 2), Ok(vec![50]));
    let json = br#"{"a": {"x": "1", "time": "0.5"}}
{"b": {"timestamp": 1.25, "x": "1"}}
"#;
    assert_eq!(times(json, Format::Auto, 2), Ok(vec![50, 125]));
    let xml =
        b"<log><event><name>a</name><field><name>ts</name><value>2.5</value></field></event></log>";
    assert_eq!(times(xml, Format::Auto, 1), Ok(vec![25]));
    let monpoly = b"@0.5 a(1) b(2)\n@1 c\n";
    assert_eq!(times(monpoly, Format::Auto, 1), Ok(vec![5, 5, 10]));
}

#[test]
fn errors_name_the_line_in_every_format() {
    for (input, line) in [
        (&b"a,1,0.5\nb,2,0.25\n"[..], 2),
        (
            b"{\"a\": {\"ts\": \"0.5\"}}\n{\"b\": {\"ts\": \"0.25\"}}\n",
            2,
        ),
        (b"@0.5 a\n\n@0.25 b\n", 3),
    ] {
        let e = times(input, Format::Auto, 1).unwrap_err();
        assert_eq!(e.line, line, "{e}");
        assert!(e.message().contains("--time-decimals 2"), "{e}");
    }
    let e = times(b"a,1.5\nb,1.25\n", Format::Auto, 2).unwrap_err();
    assert_eq!(e.line, 2);
    assert_eq!(
        e.message(),
        "timestamp 1.25 is smaller than the previous timestamp 1.50: time must not decrease"
    );
}
