//! The values of arithmetic terms under an assignment, for the comparisons
//! that filter values (`f * 100 >= a`), as docs/LANGUAGE.md computes them.

use super::truth::{Env, Truth, lookup};
use crate::arith;
use crate::plan::Numeric;
use crate::syntax::{Expr, Item};

impl Truth<'_> {
    /// The value of the arithmetic term `e` under `env`: a variable's or
    /// constant's text as it is, a computed term written canonically
    /// (docs/LANGUAGE.md); `None` when it has none (a value not seen, or
    /// not a number, or a division by zero).
    pub fn expr_value<'e>(&'e self, env: &Env, e: &'e Expr) -> Option<Vec<u8>> {
        fn text<'t>(truth: &'t Truth<'_>, env: &Env, item: &'t Item) -> Option<&'t [u8]> {
            match item {
                Item::Var(v) => lookup(env, &v.name).and_then(|b| truth.events.text(b.value)),
                Item::Const(c) => Some(c.text.as_bytes()),
                Item::Neg | Item::Bin(_) => None,
            }
        }
        let value = |item: &'e Item| text(self, env, item);
        if let [one] = e.items.as_slice() {
            return value(one).map(<[u8]>::to_vec);
        }
        let mut stack: Vec<arith::Num> = Vec::new();
        for item in &e.items {
            let n = match item {
                Item::Var(_) | Item::Const(_) => arith::read(value(item)?, Numeric::Text).ok()?,
                Item::Neg => stack.pop()?.negated(),
                Item::Bin(op) => {
                    let b = stack.pop()?;
                    stack.pop()?.apply(*op, b).ok()?
                }
            };
            stack.push(n);
        }
        stack.pop()?.write(&String::new).ok()
    }
}
