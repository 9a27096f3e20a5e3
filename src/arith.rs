//! Arithmetic on values, as MonPoly computes it: the terms of comparisons
//! and assignments (`x + 1`, `a * 2 > b`) and the aggregations (`CNT`,
//! `SUM`, `MIN`, `MAX`, `AVG`, `MED`).
//!
//! A value is read as a number by its variable's [`Numeric`] kind: an MFOTL
//! `int` or `float` attribute, or (QTL, and constants) by its text, an
//! integer numeral (`-?[0-9]+`) being an int and one with a point (or an
//! exponent) a float. Ints are exact, of any size (no overflow: a product
//! of two 40-digit ints has 80 digits); `/` on ints rounds toward zero and
//! `%` takes the sign of the dividend, as MonPoly's (OCaml's Zarith) do.
//! Floats are doubles. An int and a float together make a float. Results
//! are written canonically: an int in decimal, a float as the shortest
//! decimal that reads back as it (`0.5`, `3`, `0.30000000000000004`),
//! infinities as numerals beyond every double, as MFOTL traces keep them
//! ([`crate::mfotl::values`]), so that computed and read values compare and
//! print alike.
//!
//! Division by zero, `%` of floats, a value that is not a number, and a
//! float result that is not a number (NaN, as `0.0 / 0.0`) are errors.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};

use crate::plan::Numeric;
use crate::plan::compute::TermItem;
use crate::syntax::{AggOp, ArithOp};

/// A number: an exact int or a double.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    /// An int of any size.
    Int(BigInt),
    /// A double.
    Float(f64),
}

/// Why a computation has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArithError {
    /// A value that is not a number where a number is needed.
    NotANumber(String),
    /// Division (or `%`) by zero.
    DivisionByZero,
    /// `%` of floats (MonPoly's `MOD` takes ints).
    ModOfFloats,
    /// A float result that is not a number (NaN).
    NotFinite(String),
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArithError::NotANumber(v) => write!(
                f,
                "the value `{v}` is not a number (an int such as 42 or a float such as 2.5)"
            ),
            ArithError::DivisionByZero => write!(f, "division by zero"),
            ArithError::ModOfFloats => write!(f, "`%` (MOD) takes ints, not floats"),
            ArithError::NotFinite(what) => {
                write!(
                    f,
                    "{what} is not a number (NaN), which hindsight does not compute with"
                )
            }
        }
    }
}

impl std::error::Error for ArithError {}

/// Whether `text` is an integer numeral: an optional `-`, then digits.
fn is_int_text(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// `text` read as a number of kind `kind` (see the [module](self) docs).
pub fn read(text: &[u8], kind: Numeric) -> Result<Num, ArithError> {
    let bad = || ArithError::NotANumber(String::from_utf8_lossy(text).into_owned());
    let as_int = || {
        std::str::from_utf8(text)
            .ok()
            .and_then(|s| s.parse::<BigInt>().ok())
            .map(Num::Int)
            .ok_or_else(bad)
    };
    let as_float = || {
        std::str::from_utf8(text)
            .ok()
            .filter(|s| is_float_text(s))
            .and_then(|s| s.parse::<f64>().ok())
            .map(Num::Float)
            .ok_or_else(bad)
    };
    match kind {
        Numeric::Int => as_int(),
        Numeric::Float => as_float(),
        Numeric::Text if is_int_text(text) => as_int(),
        Numeric::Text => as_float(),
    }
}

/// Whether `s` is a decimal float as written in a specification or kept
/// canonically: digits with an optional sign, point and exponent (not
/// `inf` or `nan`, which `f64::from_str` also reads).
fn is_float_text(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    body.starts_with(|c: char| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
}

impl Num {
    /// The number as a double (an int rounded to the nearest).
    pub fn to_f64(&self) -> f64 {
        match self {
            Num::Int(i) => i.to_f64().unwrap_or(f64::NAN),
            Num::Float(x) => *x,
        }
    }

    /// The number written canonically (see the [module](self) docs), or an
    /// error for NaN (`what` names the computation in the message).
    pub fn write(&self, what: &dyn Fn() -> String) -> Result<Vec<u8>, ArithError> {
        match self {
            Num::Int(i) => Ok(i.to_string().into_bytes()),
            Num::Float(x) if x.is_nan() => Err(ArithError::NotFinite(what())),
            Num::Float(x) => Ok(crate::mfotl::values::float_text(*x).into_bytes()),
        }
    }

    /// `-self`.
    pub fn negated(self) -> Num {
        match self {
            Num::Int(i) => Num::Int(-i),
            Num::Float(x) => Num::Float(-x),
        }
    }

    /// `self op other`.
    pub fn apply(self, op: ArithOp, other: Num) -> Result<Num, ArithError> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => int_op(op, a, b),
            (a, b) => {
                let (x, y) = (a.to_f64(), b.to_f64());
                Ok(Num::Float(match op {
                    ArithOp::Add => x + y,
                    ArithOp::Sub => x - y,
                    ArithOp::Mul => x * y,
                    ArithOp::Div => x / y,
                    ArithOp::Mod => return Err(ArithError::ModOfFloats),
                }))
            }
        }
    }
}

fn int_op(op: ArithOp, a: BigInt, b: BigInt) -> Result<Num, ArithError> {
    let zero = b.is_zero();
    Ok(Num::Int(match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        // BigInt's `/` rounds toward zero and `%` has the dividend's sign,
        // as Zarith's `/` and `mod`.
        ArithOp::Div if zero => return Err(ArithError::DivisionByZero),
        ArithOp::Div => a / b,
        ArithOp::Mod if zero => return Err(ArithError::DivisionByZero),
        ArithOp::Mod => a % b,
    }))
}

/// The value of a term (items in postfix order; see [`TermItem`]), with
/// `var` giving each variable's value and numeric kind. A term that is one
/// variable is its value as it is; anything else is computed and written
/// canonically.
pub fn eval_term<'v>(
    items: &[TermItem],
    var: &dyn Fn(usize) -> (&'v [u8], Numeric),
) -> Result<Vec<u8>, ArithError> {
    if let [TermItem::Var(v)] = items {
        return Ok(var(*v).0.to_vec());
    }
    let mut stack: Vec<Num> = Vec::with_capacity(items.len());
    for item in items {
        let n = match item {
            TermItem::Var(v) => {
                let (text, kind) = var(*v);
                read(text, kind)?
            }
            TermItem::Const(c) => read(c.as_bytes(), Numeric::Text)?,
            TermItem::Neg => stack
                .pop()
                .map(Num::negated)
                .unwrap_or(Num::Int(BigInt::zero())),
            TermItem::Bin(op) => {
                let b = stack.pop().unwrap_or(Num::Int(BigInt::zero()));
                let a = stack.pop().unwrap_or(Num::Int(BigInt::zero()));
                a.apply(*op, b)?
            }
        };
        stack.push(n);
    }
    let result = stack.pop().unwrap_or(Num::Int(BigInt::zero()));
    result.write(&|| "a term's value".to_string())
}

/// How an aggregation orders and reads the values of its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueKind {
    /// How arithmetic reads them.
    pub numeric: Numeric,
    /// Whether they order as text (an MFOTL string), else as
    /// [`crate::value::compare_values`] orders them (numerals as numbers).
    pub text_order: bool,
}

/// The order of two values of kind `kind` (ties broken by their bytes, so
/// that two texts of one number, `5` and `5.0`, stay two values).
pub fn order(kind: ValueKind, a: &[u8], b: &[u8]) -> Ordering {
    if kind.text_order {
        a.cmp(b)
    } else {
        crate::value::compare_values(a, b).then_with(|| a.cmp(b))
    }
}

/// The aggregate `op` of a non-empty multiset of values, given in the
/// [`order`] of `kind` with their multiplicities, `count` in all.
pub fn aggregate(
    op: AggOp,
    kind: ValueKind,
    values: &[(&[u8], u64)],
    count: u64,
) -> Result<Vec<u8>, ArithError> {
    let what = || format!("the {} of the values", op.keyword());
    match op {
        AggOp::Cnt => Ok(count.to_string().into_bytes()),
        AggOp::Min => Ok(values.first().map(|v| v.0.to_vec()).unwrap_or_default()),
        AggOp::Max => Ok(values.last().map(|v| v.0.to_vec()).unwrap_or_default()),
        AggOp::Sum => sum(kind, values)?.write(&what),
        AggOp::Avg => {
            let s = sum(kind, values)?.to_f64();
            Num::Float(s / count as f64).write(&what)
        }
        AggOp::Med => {
            // MonPoly's median: of an odd count the middle value, of an even
            // count the mean of the two middle ones, as a float either way
            // (the middle one is (m + m) / 2).
            let even = count.is_multiple_of(2);
            let mid = if even { count / 2 - 1 } else { count / 2 };
            let (mut a, mut b) = (None, None);
            let mut seen = 0;
            for &(v, m) in values {
                if a.is_none() && mid < seen + m {
                    a = Some(v);
                }
                if mid + 1 < seen + m {
                    b = Some(v);
                    break;
                }
                seen += m;
            }
            let a = a.unwrap_or(b"0");
            let x = read(a, kind.numeric)?.to_f64();
            let y = match b {
                Some(b) if even => read(b, kind.numeric)?.to_f64(),
                _ => x,
            };
            Num::Float((x + y) / 2.0).write(&what)
        }
    }
}

/// The sum of the values: exact over ints, a double once a float is among
/// them (added in order).
fn sum(kind: ValueKind, values: &[(&[u8], u64)]) -> Result<Num, ArithError> {
    let mut acc = Num::Int(BigInt::zero());
    for &(v, m) in values {
        acc = match read(v, kind.numeric)? {
            Num::Int(i) => acc.apply(ArithOp::Add, Num::Int(i * BigInt::from(m)))?,
            // One at a time, as MonPoly adds them.
            n => (0..m).try_fold(acc, |acc, _| acc.apply(ArithOp::Add, n.clone()))?,
        };
    }
    Ok(acc)
}

/// The value of `op` over no assignment (without group variables), as
/// MonPoly gives it: 0 (of the result's type), but `MIN` and `MAX` of floats
/// are the infinities and of strings the empty string.
pub fn empty_default(op: AggOp, kind: ValueKind) -> Vec<u8> {
    let float = |x: f64| crate::mfotl::values::float_text(x).into_bytes();
    match op {
        AggOp::Min | AggOp::Max if kind.text_order => Vec::new(),
        AggOp::Min if kind.numeric == Numeric::Float => float(f64::INFINITY),
        AggOp::Max if kind.numeric == Numeric::Float => float(f64::NEG_INFINITY),
        _ => b"0".to_vec(),
    }
}

#[cfg(test)]
mod tests;
