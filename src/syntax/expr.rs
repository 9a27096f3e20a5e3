//! Arithmetic terms (`x + 1`, `-y * 2`, `n % 3`) and the aggregation
//! operators (`CNT`, `SUM`, `MIN`, `MAX`, `AVG`, `MED`).
//!
//! A term is kept flat, in postfix order (`x + 1` is `x 1 +`), so that a
//! long term is one vector: it is dropped, shown and evaluated without
//! recursion, whatever its length.

use super::span::Span;
use super::term::{Const, Ident, Term};

/// The arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (of ints: rounded toward zero)
    Div,
    /// `%` in QTL, `MOD` in MFOTL (of ints: the sign of the dividend)
    Mod,
}

impl ArithOp {
    /// The operator as written in QTL.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
        }
    }

    /// Whether it binds like `*` (rather than like `+`).
    fn is_product(self) -> bool {
        matches!(self, ArithOp::Mul | ArithOp::Div | ArithOp::Mod)
    }
}

/// One item of a term in postfix order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Item {
    /// A variable.
    Var(Ident),
    /// A constant.
    Const(Const),
    /// Unary minus of the item before.
    Neg,
    /// A binary operator on the two items before.
    Bin(ArithOp),
}

/// An arithmetic term: variables and constants combined by `+ - * / %` and
/// unary minus, in postfix order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    /// The items in postfix order.
    pub items: Vec<Item>,
    /// Where it was written.
    pub span: Span,
}

impl Expr {
    /// The term made of one variable or constant.
    pub fn term(t: Term) -> Expr {
        let span = t.span();
        let item = match t {
            Term::Var(v) => Item::Var(v),
            Term::Const(c) => Item::Const(c),
        };
        Expr {
            items: vec![item],
            span,
        }
    }

    /// `-a`.
    pub fn neg(mut a: Expr, span: Span) -> Expr {
        a.items.push(Item::Neg);
        a.span = span;
        a
    }

    /// `a op b`.
    pub fn bin(op: ArithOp, mut a: Expr, b: Expr, span: Span) -> Expr {
        a.items.extend(b.items);
        a.items.push(Item::Bin(op));
        a.span = span;
        a
    }

    /// The term as a plain variable or constant, if it is one.
    pub fn as_term(&self) -> Option<Term> {
        match self.items.as_slice() {
            [Item::Var(v)] => Some(Term::Var(v.clone())),
            [Item::Const(c)] => Some(Term::Const(c.clone())),
            _ => None,
        }
    }

    /// Whether it has an operator (is not a plain variable or constant).
    pub fn is_compound(&self) -> bool {
        self.items.len() > 1
    }

    /// The variables of the term, in order of occurrence (with repeats).
    pub fn vars(&self) -> impl Iterator<Item = &Ident> {
        self.items.iter().filter_map(|i| match i {
            Item::Var(v) => Some(v),
            _ => None,
        })
    }

    /// The term with every variable replaced by `f`'s term for it.
    pub fn map_vars(&self, mut f: impl FnMut(&Ident) -> Term) -> Expr {
        let items = self
            .items
            .iter()
            .map(|i| match i {
                Item::Var(v) => match f(v) {
                    Term::Var(w) => Item::Var(w),
                    Term::Const(c) => Item::Const(c),
                },
                other => other.clone(),
            })
            .collect();
        Expr {
            items,
            span: self.span,
        }
    }

    /// The term as QTL text, with the parentheses it needs (with `quote`,
    /// constants that are not numerals in double quotes, as QTL needs them;
    /// as written otherwise).
    pub fn show(&self, quote: bool) -> String {
        // Each entry: the text and whether it is a sum or difference (which
        // needs parentheses as an operand of a product or on the right of `-`).
        let mut stack: Vec<(String, Prec)> = Vec::new();
        for item in &self.items {
            let entry = match item {
                Item::Var(v) => (v.name.clone(), Prec::Atom),
                Item::Const(c) if quote && !crate::value::is_numeral(c.text.as_bytes()) => {
                    (format!("\"{}\"", c.text), Prec::Atom)
                }
                Item::Const(c) => (c.text.clone(), Prec::Atom),
                Item::Neg => {
                    let (a, p) = stack.pop().unwrap_or_default();
                    let a = if p == Prec::Atom { a } else { format!("({a})") };
                    (format!("-{a}"), Prec::Unary)
                }
                Item::Bin(op) => {
                    let (b, pb) = stack.pop().unwrap_or_default();
                    let (a, pa) = stack.pop().unwrap_or_default();
                    let mine = if op.is_product() {
                        Prec::Product
                    } else {
                        Prec::Sum
                    };
                    let a = if pa < mine { format!("({a})") } else { a };
                    // Left-associative: a right operand of the same level
                    // keeps its parentheses.
                    let b = if pb <= mine { format!("({b})") } else { b };
                    (format!("{a} {} {b}", op.symbol()), mine)
                }
            };
            stack.push(entry);
        }
        stack.pop().map(|(s, _)| s).unwrap_or_default()
    }
}

/// How tightly a shown term binds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    #[default]
    Sum,
    Product,
    Unary,
    Atom,
}

/// The aggregation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggOp {
    /// The number of satisfying assignments.
    Cnt,
    /// The sum of the values.
    Sum,
    /// The least value.
    Min,
    /// The greatest value.
    Max,
    /// The mean of the values (a float).
    Avg,
    /// The median of the values (a float; the mean of the two middle
    /// values when there is an even number of them).
    Med,
}

impl AggOp {
    /// The keyword, as written in QTL and MFOTL.
    pub fn keyword(self) -> &'static str {
        match self {
            AggOp::Cnt => "CNT",
            AggOp::Sum => "SUM",
            AggOp::Min => "MIN",
            AggOp::Max => "MAX",
            AggOp::Avg => "AVG",
            AggOp::Med => "MED",
        }
    }

    /// The operator of a keyword.
    pub fn from_keyword(k: &str) -> Option<AggOp> {
        [
            AggOp::Cnt,
            AggOp::Sum,
            AggOp::Min,
            AggOp::Max,
            AggOp::Avg,
            AggOp::Med,
        ]
        .into_iter()
        .find(|op| op.keyword() == k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> Expr {
        Expr::term(Term::Var(Ident {
            name: n.into(),
            span: Span::default(),
        }))
    }

    fn num(n: &str) -> Expr {
        Expr::term(Term::Const(Const {
            text: n.into(),
            span: Span::default(),
        }))
    }

    #[test]
    fn terms_show_with_the_parentheses_they_need() {
        let s = Span::default();
        let sum = Expr::bin(ArithOp::Add, var("x"), num("1"), s);
        assert_eq!(sum.show(false), "x + 1");
        let prod = Expr::bin(ArithOp::Mul, sum.clone(), var("y"), s);
        assert_eq!(prod.show(false), "(x + 1) * y");
        let diff = Expr::bin(ArithOp::Sub, var("a"), sum.clone(), s);
        assert_eq!(diff.show(false), "a - (x + 1)");
        let left = Expr::bin(ArithOp::Sub, sum, var("a"), s);
        assert_eq!(left.show(true), "x + 1 - a");
        let text = Expr::bin(ArithOp::Add, var("x"), num("a b"), s);
        assert_eq!(text.show(true), "x + \"a b\"");
        assert_eq!(Expr::neg(prod, s).show(false), "-((x + 1) * y)");
        assert_eq!(Expr::neg(var("x"), s).show(false), "-x");
    }

    #[test]
    fn plain_terms_and_variables() {
        assert_eq!(var("x").as_term().map(|t| t.span()), Some(Span::default()));
        let e = Expr::bin(ArithOp::Mod, var("x"), var("y"), Span::default());
        assert!(e.is_compound() && e.as_term().is_none());
        let names: Vec<&str> = e.vars().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!(AggOp::from_keyword("MED"), Some(AggOp::Med));
        assert_eq!(AggOp::from_keyword("med"), None);
    }
}
