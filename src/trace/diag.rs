//! Field checks and error messages of the trace reader: timestamps, quoting
//! problems found by the [`Watch`](super::watch::Watch), and printable fields.

use super::TraceError;
use super::watch::Fault;

/// Parses a timestamp: decimal digits only, fitting in a `u64`.
pub(super) fn parse_time(field: &[u8]) -> Result<u64, String> {
    if field.is_empty() {
        return Err("missing timestamp: the last field, the time, is empty".to_owned());
    }
    if !field.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "timestamp `{}` is not a natural number (only the digits 0-9 are allowed)",
            show(field)
        ));
    }
    field
        .iter()
        .try_fold(0u64, |t, &d| {
            t.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
        .ok_or_else(|| {
            format!(
                "timestamp `{}` is out of range (the maximum is {})",
                show(field),
                u64::MAX
            )
        })
}

/// An error for `fault` if it lies in the record that ends at byte `end` and
/// starts on `line` (earlier records were checked before).
#[inline]
pub(super) fn check_fault(fault: Option<Fault>, end: u64, line: u64) -> Result<(), TraceError> {
    const HINT: &str = "write a literal quote as `\"\"` inside a quoted field";
    let message = match fault {
        Some(fault) if fault.offset() < end => match fault {
            Fault::Unterminated { .. } => {
                format!(
                    "broken quoting: a quoted field is never closed (unterminated `\"`; {HINT})"
                )
            }
            Fault::AfterQuote { byte, .. } => format!(
                "broken quoting: unexpected `{}` after the closing quote of a quoted field ({HINT})",
                show(&[byte])
            ),
            Fault::QuoteAfterBlanks { .. } => "broken quoting: a `\"` after spaces does not \
                 start a quoted field; put the opening quote right after the comma"
                .to_owned(),
            Fault::TooLong { limit, .. } => too_long(limit),
        },
        _ => return Ok(()),
    };
    Err(TraceError { line, message })
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
