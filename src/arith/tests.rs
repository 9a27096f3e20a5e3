//! Arithmetic and aggregation as MonPoly computes them (each case checked
//! against MonPoly 1.4).

use super::*;

fn int(s: &str) -> ValueKind {
    let _ = s;
    ValueKind {
        numeric: Numeric::Int,
        text_order: false,
    }
}

fn term(items: Vec<TermItem>, vals: &[(&str, Numeric)]) -> Result<String, ArithError> {
    let vals: Vec<(Vec<u8>, Numeric)> = vals
        .iter()
        .map(|(v, k)| (v.as_bytes().to_vec(), *k))
        .collect();
    eval_term(&items, &|v| (vals[v].0.as_slice(), vals[v].1))
        .map(|b| String::from_utf8(b).expect("utf-8"))
}

fn bin(op: ArithOp) -> Vec<TermItem> {
    vec![TermItem::Var(0), TermItem::Var(1), TermItem::Bin(op)]
}

#[test]
fn ints_divide_toward_zero_and_mod_takes_the_dividends_sign() {
    let i = Numeric::Int;
    for (a, b, div, rem) in [
        ("7", "2", "3", "1"),
        ("-7", "2", "-3", "-1"),
        ("7", "-2", "-3", "1"),
        ("-7", "-2", "3", "-1"),
    ] {
        assert_eq!(
            term(bin(ArithOp::Div), &[(a, i), (b, i)]).as_deref(),
            Ok(div),
            "{a}/{b}"
        );
        assert_eq!(
            term(bin(ArithOp::Mod), &[(a, i), (b, i)]).as_deref(),
            Ok(rem),
            "{a}%{b}"
        );
    }
    assert_eq!(
        term(bin(ArithOp::Div), &[("5", i), ("0", i)]),
        Err(ArithError::DivisionByZero)
    );
    assert_eq!(
        term(bin(ArithOp::Mod), &[("5", i), ("0", i)]),
        Err(ArithError::DivisionByZero)
    );
}

#[test]
fn ints_never_overflow() {
    let i = Numeric::Int;
    let big = "99999999999999999999";
    assert_eq!(
        term(bin(ArithOp::Mul), &[(big, i), (big, i)]).as_deref(),
        Ok("9999999999999999999800000000000000000001")
    );
    let max = i64::MAX.to_string();
    assert_eq!(
        term(bin(ArithOp::Add), &[(&max, i), ("1", i)]).as_deref(),
        Ok("9223372036854775808")
    );
    let neg = vec![TermItem::Var(0), TermItem::Neg];
    assert_eq!(
        term(neg, &[(&i64::MIN.to_string(), i)]).as_deref(),
        Ok("9223372036854775808")
    );
}

#[test]
fn floats_as_doubles_and_mixed_terms_as_floats() {
    let f = Numeric::Float;
    assert_eq!(
        term(bin(ArithOp::Div), &[("1", f), ("3", f)]).as_deref(),
        Ok("0.3333333333333333")
    );
    assert_eq!(
        term(bin(ArithOp::Div), &[("7", f), ("2", f)]).as_deref(),
        Ok("3.5")
    );
    // By their text: 7 is an int, 2.0 a float.
    let t = Numeric::Text;
    assert_eq!(
        term(bin(ArithOp::Div), &[("7", t), ("2", t)]).as_deref(),
        Ok("3")
    );
    assert_eq!(
        term(bin(ArithOp::Div), &[("7", t), ("2.0", t)]).as_deref(),
        Ok("3.5")
    );
    // Division by zero of floats is an infinity (kept as a huge numeral).
    let inf = term(bin(ArithOp::Div), &[("1", f), ("0", f)]).expect("inf");
    assert_eq!(inf.len(), 310);
    assert!(matches!(
        term(bin(ArithOp::Sub), &[(&inf, f), (&inf, f)]),
        Err(ArithError::NotFinite(_))
    ));
    assert_eq!(
        term(bin(ArithOp::Mod), &[("7.5", t), ("2", t)]),
        Err(ArithError::ModOfFloats)
    );
    assert_eq!(
        term(bin(ArithOp::Add), &[("abc", t), ("2", t)]),
        Err(ArithError::NotANumber("abc".into()))
    );
    // A lone variable is its value as it is.
    assert_eq!(
        term(vec![TermItem::Var(0)], &[("abc", t)]).as_deref(),
        Ok("abc")
    );
}

fn agg(op: AggOp, kind: ValueKind, values: &[&str]) -> String {
    let mut v: Vec<&[u8]> = values.iter().map(|s| s.as_bytes()).collect();
    v.sort_by(|a, b| order(kind, a, b));
    let mut counted: Vec<(&[u8], u64)> = Vec::new();
    for x in v {
        match counted.last_mut() {
            Some((y, m)) if *y == x => *m += 1,
            _ => counted.push((x, 1)),
        }
    }
    let r = aggregate(op, kind, &counted, values.len() as u64).expect("a value");
    String::from_utf8(r).expect("utf-8")
}

#[test]
fn aggregations_as_monpoly_computes_them() {
    let k = int("");
    assert_eq!(agg(AggOp::Cnt, k, &["1", "2", "3"]), "3");
    assert_eq!(agg(AggOp::Sum, k, &["1", "2", "2"]), "5");
    assert_eq!(agg(AggOp::Min, k, &["10", "9", "-1"]), "-1");
    assert_eq!(agg(AggOp::Max, k, &["10", "9", "-1"]), "10");
    // The mean and the median are floats; the median of an even count is
    // the mean of the two middle values.
    assert_eq!(agg(AggOp::Avg, k, &["1", "2"]), "1.5");
    assert_eq!(agg(AggOp::Avg, k, &["2", "2"]), "2");
    assert_eq!(agg(AggOp::Med, k, &["1", "2"]), "1.5");
    assert_eq!(agg(AggOp::Med, k, &["4", "1", "5"]), "4");
    assert_eq!(agg(AggOp::Med, k, &["1", "1", "5", "5"]), "3");
    assert_eq!(agg(AggOp::Med, k, &["1", "1", "1", "5"]), "1");
    let s = ValueKind {
        numeric: Numeric::Text,
        text_order: true,
    };
    assert_eq!(agg(AggOp::Min, s, &["b", "a", "10", "9"]), "10");
    let f = ValueKind {
        numeric: Numeric::Float,
        text_order: false,
    };
    assert_eq!(agg(AggOp::Sum, f, &["2.5", "3.5"]), "6");
    assert_eq!(empty_default(AggOp::Min, f).len(), 310);
    assert_eq!(empty_default(AggOp::Max, s), b"");
    assert_eq!(empty_default(AggOp::Avg, k), b"0");
}
