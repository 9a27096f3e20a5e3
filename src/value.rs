//! Values and their comparison: the one definition used by the checker (to
//! fold comparisons of constants) and by the runtime (for trace values).
//!
//! A value is a byte string, as written in the trace or the specification.
//! A **numeral** is `-?[0-9]+(\.[0-9]+)?`: an optional minus sign, decimal
//! digits, and optionally a point followed by at least one digit. No `+`
//! sign, no exponent, no spaces; leading zeros are allowed (`007` is 7),
//! `-0` is 0.
//!
//! - `=` is equality of the texts: `5 = 5` but not `5 = 5.0` nor `5 = 05`,
//!   just as a constant in an event pattern matches a trace field only when
//!   it is written the same way.
//! - `< <= > >=` compare two numerals as numbers, exactly (by sign, integer
//!   part and fraction, with no rounding and no limit on the number of
//!   digits): `2.5 < 10`, `-3 < -2.5`, `5 <= 5.0`. When either value is not a
//!   numeral, both are compared bytewise (`"abc" < "abd"`, `"9" > "10x"`).

use std::cmp::Ordering;

use crate::syntax::RelOp;

/// A numeral split into its parts: whether it is negative (never for zero),
/// the integer digits without leading zeros, the fraction digits without
/// trailing zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Numeral<'a> {
    negative: bool,
    int: &'a [u8],
    frac: &'a [u8],
}

/// Parses `text` as a numeral (see the [module](self) docs).
fn numeral(text: &[u8]) -> Option<Numeral<'_>> {
    let (negative, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (int, frac) = match rest.iter().position(|&b| b == b'.') {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, &[][..]),
    };
    let has_point = int.len() < rest.len();
    if int.is_empty()
        || !int.iter().all(u8::is_ascii_digit)
        || (has_point && frac.is_empty())
        || !frac.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let lead = int.iter().position(|&d| d != b'0').unwrap_or(int.len());
    let int = &int[lead..];
    let trail = frac.iter().rposition(|&d| d != b'0').map_or(0, |p| p + 1);
    let frac = &frac[..trail];
    let zero = int.is_empty() && frac.is_empty();
    Some(Numeral {
        negative: negative && !zero,
        int,
        frac,
    })
}

/// Whether `text` is a numeral (see the [module](self) docs).
pub fn is_numeral(text: &[u8]) -> bool {
    numeral(text).is_some()
}

/// Compares two magnitudes (integer digits without leading zeros, fraction
/// digits without trailing zeros).
fn magnitude(a: &Numeral<'_>, b: &Numeral<'_>) -> Ordering {
    a.int
        .len()
        .cmp(&b.int.len())
        .then_with(|| a.int.cmp(b.int))
        // Without trailing zeros, fractions compare as digit strings.
        .then_with(|| a.frac.cmp(b.frac))
}

/// Compares two values for the order operators: as numbers when both are
/// numerals, bytewise otherwise.
///
/// ```
/// use std::cmp::Ordering;
/// use hindsight::value::compare_values;
/// assert_eq!(compare_values(b"9", b"10"), Ordering::Less);
/// assert_eq!(compare_values(b"2.5", b"10"), Ordering::Less);
/// assert_eq!(compare_values(b"-3", b"-2.5"), Ordering::Less);
/// assert_eq!(compare_values(b"5", b"5.00"), Ordering::Equal);
/// assert_eq!(compare_values(b"abc", b"abd"), Ordering::Less);
/// assert_eq!(compare_values(b"9", b"10x"), Ordering::Greater);
/// ```
pub fn compare_values(a: &[u8], b: &[u8]) -> Ordering {
    match (numeral(a), numeral(b)) {
        (Some(x), Some(y)) => match (x.negative, y.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(&x, &y),
            (true, true) => magnitude(&y, &x),
        },
        _ => a.cmp(b),
    }
}

/// Whether `a op b` holds: `=` is textual equality, the orders are
/// [`compare_values`].
///
/// ```
/// use hindsight::syntax::RelOp;
/// use hindsight::value::relop_holds;
/// assert!(relop_holds(RelOp::Lt, b"2.5", b"10"));
/// assert!(relop_holds(RelOp::Le, b"5", b"5.0"));
/// assert!(!relop_holds(RelOp::Eq, b"5", b"5.0"));
/// ```
#[inline]
pub fn relop_holds(op: RelOp, a: &[u8], b: &[u8]) -> bool {
    match op {
        RelOp::Eq => a == b,
        RelOp::Lt => compare_values(a, b).is_lt(),
        RelOp::Le => compare_values(a, b).is_le(),
        RelOp::Gt => compare_values(a, b).is_gt(),
        RelOp::Ge => compare_values(a, b).is_ge(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_compare_numerically() {
        assert_eq!(compare_values(b"9", b"10"), Ordering::Less);
        assert_eq!(compare_values(b"10", b"9"), Ordering::Greater);
        assert_eq!(compare_values(b"007", b"7"), Ordering::Equal);
        assert_eq!(compare_values(b"-0", b"0"), Ordering::Equal);
        assert_eq!(compare_values(b"-10", b"-9"), Ordering::Less);
        assert_eq!(compare_values(b"-1", b"0"), Ordering::Less);
        assert_eq!(compare_values(b"0", b"-1"), Ordering::Greater);
        let big = b"123456789012345678901234567890123456789";
        let bigger = b"123456789012345678901234567890123456790";
        assert_eq!(compare_values(big, bigger), Ordering::Less);
        assert_eq!(
            compare_values(b"-123456789012345678901234567890", b"-2"),
            Ordering::Less
        );
    }

    #[test]
    fn decimals_compare_exactly() {
        assert_eq!(compare_values(b"2.5", b"10"), Ordering::Less);
        assert_eq!(compare_values(b"1.5", b"10"), Ordering::Less);
        assert_eq!(compare_values(b"0.5", b"0.50"), Ordering::Equal);
        assert_eq!(compare_values(b"0.5", b"0.55"), Ordering::Less);
        assert_eq!(compare_values(b"0.6", b"0.55"), Ordering::Greater);
        assert_eq!(compare_values(b"-2.5", b"-3"), Ordering::Greater);
        assert_eq!(compare_values(b"-0.0", b"0"), Ordering::Equal);
        assert_eq!(compare_values(b"-0.01", b"0"), Ordering::Less);
        // Beyond f64 precision.
        assert_eq!(
            compare_values(b"0.10000000000000000001", b"0.1"),
            Ordering::Greater
        );
        assert_eq!(
            compare_values(b"9007199254740993", b"9007199254740992.5"),
            Ordering::Greater
        );
    }

    #[test]
    fn what_is_a_numeral() {
        for yes in ["0", "-0", "007", "2.5", "-3", "-0.25", "10.0"] {
            assert!(is_numeral(yes.as_bytes()), "{yes}");
        }
        for no in [
            "", "-", "+3", "1e3", "1.", ".5", "1.2.3", " 1", "1 ", "0x10", "-.5",
        ] {
            assert!(!is_numeral(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn other_values_compare_bytewise() {
        assert_eq!(compare_values(b"9", b"10a"), Ordering::Greater);
        assert_eq!(compare_values(b"abc", b"abd"), Ordering::Less);
        assert_eq!(compare_values(b"", b"a"), Ordering::Less);
        assert_eq!(compare_values(b"-", b"-"), Ordering::Equal);
        assert_eq!(compare_values(b"-", b"5"), Ordering::Less);
        assert_eq!(compare_values(b"+3", b"10"), Ordering::Less);
    }

    #[test]
    fn equality_is_textual_and_orders_numeric() {
        assert!(relop_holds(RelOp::Eq, b"5", b"5"));
        assert!(!relop_holds(RelOp::Eq, b"5", b"5.0"));
        assert!(relop_holds(RelOp::Le, b"5", b"5.0"));
        assert!(relop_holds(RelOp::Ge, b"5", b"5.0"));
        assert!(!relop_holds(RelOp::Lt, b"5", b"5.0"));
        assert!(relop_holds(RelOp::Gt, b"10", b"9.99"));
    }
}
