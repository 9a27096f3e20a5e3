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

/// Parses a share in percent, `10` or `10%` (decimals allowed: `2.5%`),
/// from 0 to 100; the share from 0 to 1.
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let number = t.strip_suffix('%').unwrap_or(t).trim_end();
    let valid = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    match number.parse::<f64>() {
        Ok(p) if valid && (0.0..=100.0).contains(&p) => Ok(p / 100.0),
        _ => Err(format!(
            "`{text}` is not a percentage from 0 to 100 (such as `10` or `2.5%`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_percent, parse_size};

    #[test]
    fn percentages() {
        assert_eq!(parse_percent("10"), Ok(0.1));
        assert_eq!(parse_percent("2.5%"), Ok(0.025));
        assert_eq!(parse_percent("100%"), Ok(1.0));
        assert_eq!(parse_percent("0"), Ok(0.0));
        for bad in ["", "%", "-1", "101", "1e2", "ten", "nan", "inf"] {
            assert!(parse_percent(bad).is_err(), "{bad}");
        }
    }

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
