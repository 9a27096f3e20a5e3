//! Field checks and error messages of the trace readers: timestamps, sizes,
//! and printable fields.

pub use crate::ticks::{MAX_TIME_DECIMALS, format_time};

/// Whether `field` is a word as a column name of a header row is written:
/// a letter or `_` first, then letters, digits, `_`, `-`, `.` or spaces (no
/// number, no punctuation of data).
pub(crate) fn header_word(field: &[u8]) -> bool {
    field
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && field
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b' '))
}

/// Parses a timestamp into ticks of `10^-decimals` time units: a natural
/// number (`12`) or a decimal one (`0.25`, `12.5`), with at most `decimals`
/// digits after the point (never rounded: more is an error), whose value in
/// ticks fits in a `u64`.
#[inline]
pub(super) fn parse_time(field: &[u8], decimals: u8) -> Result<u64, String> {
    // Whole numbers: one pass, as fast as before decimals existed.
    let mut t: u64 = 0;
    let mut whole = true;
    for &b in field {
        if !b.is_ascii_digit() {
            whole = false;
            break;
        }
        match t
            .checked_mul(10)
            .and_then(|t| t.checked_add(u64::from(b - b'0')))
        {
            Some(next) => t = next,
            None => return Err(out_of_range(field, decimals)),
        }
    }
    if whole && !field.is_empty() {
        return t
            .checked_mul(10u64.pow(u32::from(decimals)))
            .ok_or_else(|| out_of_range(field, decimals));
    }
    parse_decimal(field, decimals)
}

/// [`parse_time`] for what is not a whole number: a decimal, or an error.
#[cold]
fn parse_decimal(field: &[u8], decimals: u8) -> Result<u64, String> {
    if field.is_empty() {
        return Err("missing timestamp: the last field, the time, is empty".to_owned());
    }
    let point = field.iter().position(|&b| b == b'.');
    let (int, frac) = match point {
        Some(p) => (&field[..p], &field[p + 1..]),
        None => (field, &[][..]),
    };
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if !digits(int) || (point.is_some() && !digits(frac)) {
        let rest = field.get(1..).unwrap_or_default();
        if field.first() == Some(&b'-')
            && rest.first().is_some_and(u8::is_ascii_digit)
            && rest.iter().all(|&b| b.is_ascii_digit() || b == b'.')
        {
            return Err(format!(
                "timestamp `{}` is negative: time stamps count from 0 (a natural or \
                 decimal number, such as `12` or `0.25`)",
                show(field)
            ));
        }
        return Err(format!(
            "timestamp `{}` is not a natural or decimal number (only the digits 0-9, \
             with at most one `.` between digits, such as `12` or `0.25`)",
            show(field)
        ));
    }
    let k = frac.len();
    if k > usize::from(decimals) {
        let wanted = if k <= usize::from(MAX_TIME_DECIMALS) {
            format!("rerun with --time-decimals {k}")
        } else {
            format!("at most {MAX_TIME_DECIMALS} decimals can be read")
        };
        let read = if decimals == 0 {
            "time stamps are read as whole numbers (no time bound of the specification \
             has decimals)"
                .to_owned()
        } else {
            format!(
                "time stamps are read with at most {decimals} decimal digit{} (the most \
                 of any time bound of the specification, or --time-decimals)",
                if decimals == 1 { "" } else { "s" }
            )
        };
        return Err(format!(
            "timestamp `{}` has {k} decimal digit{}, but {read}: {wanted} \
             (never rounded)",
            show(field),
            if k == 1 { "" } else { "s" }
        ));
    }
    let ticks = int
        .iter()
        .chain(frac)
        .try_fold(0u64, |t, &d| {
            t.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .and_then(|t| t.checked_mul(10u64.pow(u32::from(decimals) - k as u32)));
    ticks.ok_or_else(|| out_of_range(field, decimals))
}

/// The message for a time stamp beyond the largest one.
#[cold]
fn out_of_range(field: &[u8], decimals: u8) -> String {
    format!(
        "timestamp `{}` is out of range (the maximum is {})",
        show(field),
        format_time(u64::MAX, decimals)
    )
}

/// The message for an event longer than `limit` bytes.
pub(super) fn too_long(limit: u64) -> String {
    format!(
        "event too long: more than {limit} bytes, the maximum size of an event \
         (a line end missing, or a quoted field never closed?)"
    )
}

/// Printable form of a field for messages: lossy UTF-8, escaped, shortened.
pub(super) fn show(bytes: &[u8]) -> String {
    const MAX: usize = 40;
    let cut = &bytes[..bytes.len().min(4 * MAX + 4)];
    let text = String::from_utf8_lossy(cut);
    let mut out: String = text
        .chars()
        .take(MAX)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(MAX).is_some() || cut.len() < bytes.len() {
        out.push('…');
    }
    out
}
