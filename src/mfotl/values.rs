//! Typed values of MFOTL traces: each argument of a predicate that the
//! formula uses is read as its attribute's type in the signature, as MonPoly
//! reads it, and kept as one *canonical* text per value, so that the
//! engine's textual equality is equality of values and its comparison of
//! numerals ([`crate::value::compare_values`]) is the order of numbers:
//!
//! - `int`: an integer of any size, as MonPoly (Zarith) reads it: an
//!   optional sign, an optional base prefix `0x` `0o` `0b` (any case), digits
//!   of the base and `_` (not first); kept in decimal without leading zeros
//!   (`007`, `+7`, `0x7` and `7` are one value, `7`). An empty number
//!   (`""`, `-`, `0x`), which MonPoly reads as 0, is refused.
//! - `float`: a double as OCaml's `float_of_string` reads it (`2.5`, `.5`,
//!   `1e5`, `1_000.5`, hexadecimal `0x1p3`, `inf`, `-infinity`; leading
//!   white space allowed, `_` ignored); kept as the shortest decimal that
//!   reads back as the same double (`0.10` is `0.1`, `-0.0` is `0`), and the
//!   infinities as numerals beyond every double, so that numerals compare
//!   as the doubles do. NaN, which compares with nothing, is refused.
//! - `string`: the text as it is.
//!
//! [`monpoly_text`] prints a value as MonPoly prints it (strings quoted,
//! floats with C's `%g`), and [`order`] orders values as MonPoly orders the
//! tuples it prints.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::sig::Type;

/// The canonical text of `raw` read as a value of type `ty`, or why it is
/// not one (a phrase: "is not an int").
pub fn canonical(ty: Type, raw: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    match ty {
        Type::Str => Ok(Cow::Borrowed(raw)),
        Type::Int => int(raw).ok_or_else(|| {
            "is not an int (digits with an optional sign, or 0x, 0o, 0b and digits of that base)"
                .to_owned()
        }),
        Type::Float => float(raw),
    }
}

/// `raw` as an int (see the [module](self) docs), in decimal.
fn int(raw: &[u8]) -> Option<Cow<'_, [u8]>> {
    // The common case, already canonical: `0`, or digits without a leading 0.
    let plain = |s: &[u8]| {
        !s.is_empty() && s.iter().all(u8::is_ascii_digit) && (s[0] != b'0' || s.len() == 1)
    };
    if plain(raw) || (raw.first() == Some(&b'-') && plain(&raw[1..]) && raw[1..] != *b"0") {
        return Some(Cow::Borrowed(raw));
    }
    let (negative, rest) = match raw.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, raw),
    };
    let (base, digits) = match rest {
        [b'0', b'x' | b'X', d @ ..] => (16, d),
        [b'0', b'o' | b'O', d @ ..] => (8, d),
        [b'0', b'b' | b'B', d @ ..] => (2, d),
        d => (10, d),
    };
    let digit = |b: u8| char::from(b).to_digit(base);
    if digits.first().is_none_or(|&b| digit(b).is_none())
        || !digits.iter().all(|&b| b == b'_' || digit(b).is_some())
    {
        return None;
    }
    // Little-endian limbs of 10^9.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = vec![0];
    for &b in digits.iter().filter(|&&b| b != b'_') {
        let mut carry = u64::from(digit(b)?);
        for limb in &mut limbs {
            let v = *limb * u64::from(base) + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut out = String::new();
    let zero = limbs.iter().all(|&l| l == 0);
    if negative && !zero {
        out.push('-');
    }
    let mut it = limbs.iter().rev().skip_while(|&&l| l == 0);
    match it.next() {
        Some(top) => out.push_str(&top.to_string()),
        None => out.push('0'),
    }
    for l in it {
        out.push_str(&format!("{l:09}"));
    }
    Some(Cow::Owned(out.into_bytes()))
}

/// The canonical text of the positive infinity: a numeral beyond every
/// double (10^309); the negative one is it with a `-`.
fn infinity() -> String {
    format!("1{}", "0".repeat(309))
}

/// `raw` as a float (see the [module](self) docs), canonical.
fn float(raw: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    let bad = || "is not a float (such as 2.5, -1e-3 or 7)".to_owned();
    let text = std::str::from_utf8(raw).map_err(|_| bad())?;
    let text: String = text.chars().filter(|&c| c != '_').collect();
    let text = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let x = if lower == "inf" || lower == "infinity" {
        f64::INFINITY
    } else if lower == "nan" || lower.starts_with("nan(") {
        return Err(
            "is NaN, a float that hindsight does not read (it equals and orders \
                    with nothing)"
                .to_owned(),
        );
    } else if let Some(hex) = lower.strip_prefix("0x") {
        hex_float(hex).ok_or_else(bad)?
    } else {
        let b = lower.as_bytes();
        let mantissa_end = b.iter().position(|&c| c == b'e').unwrap_or(b.len());
        let (mantissa, exponent) = b.split_at(mantissa_end);
        let points = mantissa.iter().filter(|&&c| c == b'.').count();
        let digits = mantissa.iter().filter(|c| c.is_ascii_digit()).count();
        let exp_ok = match exponent {
            [] => true,
            [b'e', rest @ ..] => {
                let rest = rest
                    .strip_prefix(b"-")
                    .or(rest.strip_prefix(b"+"))
                    .unwrap_or(rest);
                !rest.is_empty() && rest.iter().all(u8::is_ascii_digit)
            }
            _ => false,
        };
        if points > 1 || digits == 0 || digits + points != mantissa.len() || !exp_ok {
            return Err(bad());
        }
        lower.parse::<f64>().map_err(|_| bad())?
    };
    let x = if negative { -x } else { x };
    Ok(Cow::Owned(float_text(x).into_bytes()))
}

/// A hexadecimal float without its `0x`: hex digits with at most one `.`,
/// then optionally `p` and a decimal exponent of 2.
fn hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = match s.find('p') {
        Some(p) => (&s[..p], Some(&s[p + 1..])),
        None => (s, None),
    };
    let mut m: u128 = 0;
    let mut shift: i64 = 0;
    let mut any = false;
    let mut after_point = false;
    for c in mantissa.chars() {
        if c == '.' {
            if after_point {
                return None;
            }
            after_point = true;
            continue;
        }
        let d = c.to_digit(16)?;
        any = true;
        if m >> 120 == 0 {
            m = (m << 4) | u128::from(d);
            if after_point {
                shift -= 4;
            }
        } else if !after_point {
            shift += 4;
        }
    }
    if !any {
        return None;
    }
    let e: i64 = match exponent {
        Some(e) => e.parse().ok()?,
        None => 0,
    };
    let e = i32::try_from(e.saturating_add(shift).clamp(-5000, 5000)).ok()?;
    // One rounding to a double, then exact scaling by powers of two (in
    // steps, so that intermediate results stay in range).
    let mut x = m as f64;
    let mut e = e;
    while e > 0 {
        let step = e.min(1000);
        x *= 2f64.powi(step);
        e -= step;
    }
    while e < 0 {
        let step = e.max(-1000);
        x *= 2f64.powi(step);
        e -= step;
    }
    Some(x)
}

/// The canonical text of the double `x` (not NaN).
pub(crate) fn float_text(x: f64) -> String {
    if x.is_infinite() {
        let inf = infinity();
        return if x < 0.0 { format!("-{inf}") } else { inf };
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    // Rust's Display: the shortest digits that read back as `x`, without
    // an exponent.
    format!("{x}")
}

/// The double that a canonical float text stands for.
pub(crate) fn float_value(text: &[u8]) -> f64 {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// A value (its canonical text) as MonPoly prints it in a satisfying tuple:
/// an int in decimal, a float with C's `%g` (`0.1`, `1e+06`, `1.23457e+06`,
/// `inf`), a string in double quotes (as it is when it starts and ends with
/// a `"`, as MonPoly does).
pub fn monpoly_text(ty: Type, text: &[u8]) -> String {
    match ty {
        Type::Int => String::from_utf8_lossy(text).into_owned(),
        Type::Float => format_g(float_value(text)),
        Type::Str => {
            let s = String::from_utf8_lossy(text);
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                s.into_owned()
            } else {
                format!("\"{s}\"")
            }
        }
    }
}

/// A value (its canonical text) for JSON: the text, except a float, which
/// is its shortest decimal (`1e300`, not 301 digits; `inf`, `-inf`).
pub fn json_text(ty: Type, text: &[u8]) -> String {
    match ty {
        Type::Float => {
            let x = float_value(text);
            if x.is_infinite() {
                if x < 0.0 { "-inf" } else { "inf" }.to_owned()
            } else {
                format!("{x:?}")
            }
        }
        _ => String::from_utf8_lossy(text).into_owned(),
    }
}

/// C's `printf("%g", x)`: 6 significant digits, trailing zeros removed,
/// in scientific notation when the exponent is below -4 or at least 6.
pub fn format_g(x: f64) -> String {
    const P: i32 = 6;
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let sci = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s.to_owned()
        }
    };
    if !(-4..P).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    } else {
        strip(&format!("{:.*}", (P - 1 - exp) as usize, x))
    }
}

/// The order of two values of type `ty` (canonical texts) in MonPoly's
/// sets of tuples: ints and floats as numbers, strings bytewise.
pub fn order(ty: Type, a: &[u8], b: &[u8]) -> Ordering {
    match ty {
        Type::Str => a.cmp(b),
        Type::Int | Type::Float => crate::value::compare_values(a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(ty: Type, raw: &str) -> Result<String, String> {
        canonical(ty, raw.as_bytes()).map(|c| String::from_utf8_lossy(&c).into_owned())
    }

    #[test]
    fn ints_as_zarith_reads_them() {
        for (raw, want) in [
            ("5", "5"),
            ("05", "5"),
            ("+5", "5"),
            ("-5", "-5"),
            ("-0", "0"),
            ("00", "0"),
            ("0x10", "16"),
            ("-0x10", "-16"),
            ("0XfF", "255"),
            ("0o17", "15"),
            ("0B101", "5"),
            ("1_000", "1000"),
            ("5_", "5"),
            ("99999999999999999999999", "99999999999999999999999"),
            ("0xffffffffffffffffffff", "1208925819614629174706175"),
        ] {
            assert_eq!(canon(Type::Int, raw).as_deref(), Ok(want), "{raw}");
        }
        for raw in [
            "", "-", "0x", "lots", "5.0", "_5", "0x_1", "-_1", " 5", "5 ", "0b102",
        ] {
            let e = canon(Type::Int, raw).expect_err(raw);
            assert!(e.starts_with("is not an int"), "{e}");
        }
    }

    #[test]
    fn floats_as_ocaml_reads_them() {
        for (raw, want) in [
            ("1", "1"),
            ("1.", "1"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("0.10", "0.1"),
            ("1e5", "100000"),
            ("1E-3", "0.001"),
            ("1_000.5", "1000.5"),
            ("0x1p3", "8"),
            ("0x.8", "0.5"),
            ("+1.5", "1.5"),
            (" 1", "1"),
            ("-0.0", "0"),
        ] {
            assert_eq!(canon(Type::Float, raw).as_deref(), Ok(want), "{raw}");
        }
        let inf = canon(Type::Float, "inf").expect("inf");
        assert_eq!(inf.len(), 310);
        assert_eq!(canon(Type::Float, "-Infinity"), Ok(format!("-{inf}")));
        for raw in ["", "1e", "1 ", "abc", "1.2.3", "e5", "."] {
            assert!(
                canon(Type::Float, raw)
                    .expect_err(raw)
                    .starts_with("is not a float")
            );
        }
        assert!(canon(Type::Float, "nan").expect_err("nan").contains("NaN"));
    }

    #[test]
    fn canonical_numerals_order_as_numbers() {
        let c = |ty, s: &str| canon(ty, s).expect("a value").into_bytes();
        let ints = ["-0x20", "-5", "0", "007", "0x10", "99999999999999999999"];
        for w in ints.windows(2) {
            let (a, b) = (c(Type::Int, w[0]), c(Type::Int, w[1]));
            assert_eq!(order(Type::Int, &a, &b), Ordering::Less, "{w:?}");
        }
        let floats = [
            "-inf", "-1e300", "-2.5", "0", "1e-300", "0.1", "2.5", "1e300", "inf",
        ];
        for w in floats.windows(2) {
            let (a, b) = (c(Type::Float, w[0]), c(Type::Float, w[1]));
            assert_eq!(order(Type::Float, &a, &b), Ordering::Less, "{w:?}");
            assert!(crate::value::relop_holds(crate::syntax::RelOp::Lt, &a, &b));
        }
        // Strings bytewise, also when they look like numbers.
        assert_eq!(order(Type::Str, b"10", b"9"), Ordering::Less);
    }

    #[test]
    fn printed_as_monpoly_prints() {
        let show = |ty, s: &str| monpoly_text(ty, &canon(ty, s).expect("a value").into_bytes());
        for (raw, want) in [
            ("1", "1"),
            ("0.1", "0.1"),
            ("100000", "100000"),
            ("1000000", "1e+06"),
            ("1234567.5", "1.23457e+06"),
            ("0.000012345", "1.2345e-05"),
            ("123456789012", "1.23457e+11"),
            ("1e300", "1e+300"),
            ("2.5e-7", "2.5e-07"),
            ("3.14159265", "3.14159"),
            ("inf", "inf"),
            ("-inf", "-inf"),
            ("0.0001", "0.0001"),
            ("999999.5", "1e+06"),
        ] {
            assert_eq!(show(Type::Float, raw), want, "{raw}");
        }
        assert_eq!(show(Type::Str, "a b"), "\"a b\"");
        assert_eq!(show(Type::Str, ""), "\"\"");
        assert_eq!(show(Type::Str, "\"q\""), "\"q\"");
        assert_eq!(show(Type::Int, "0x10"), "16");
        assert_eq!(
            json_text(
                Type::Float,
                &canon(Type::Float, "1e300").expect("f").into_bytes()
            ),
            "1e300"
        );
    }
}
