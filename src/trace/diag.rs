//! Field checks and error messages of the trace readers: timestamps, sizes,
//! and printable fields.

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
