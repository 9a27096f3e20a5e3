//! Sizes on the command line: `4096`, `64K`, `16M`, `1G` (powers of 1024).

/// Parses a size in bytes with an optional `K`, `M` or `G` suffix (also
/// `KiB`, `MiB`, `GiB`, any case); at least 1.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => {
            return Err(format!(
                "`{text}` is not a size: a number of bytes, optionally followed by K, M or G"
            ));
        }
    };
    if digits.is_empty() {
        return Err(format!(
            "`{text}` is not a size: a number of bytes is missing"
        ));
    }
    let bytes = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("`{text}` is too large"))?;
    if bytes == 0 {
        return Err("the size must be at least 1 byte".to_owned());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("16m"), Ok(16 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("7b"), Ok(7));
        for bad in ["", "K", "1.5M", "-1", "12T", "1 M x", "0", "0K"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_size("99999999999999999999G"),
            Err("`99999999999999999999G` is too large".into())
        );
        assert_eq!(
            parse_size("17179869184G"),
            Err("`17179869184G` is too large".into())
        );
    }
}
