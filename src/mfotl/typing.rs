//! A trace read against an MFOTL signature ([`Typing`]): every predicate
//! must be declared, and the arguments of the predicates the formula uses
//! are read as their attributes' types and handed on in canonical form
//! ([`super::values`]), as MonPoly reads its logs: MonPoly refuses an
//! undeclared predicate and a value of the wrong type in a predicate the
//! formula uses (the others it does not look into; neither does hindsight).

use hashbrown::HashMap;
use std::borrow::Cow;

use super::Translation;
use super::sig::Type;
use super::values;

/// One declared predicate.
#[derive(Clone, Debug)]
struct Declared {
    name: String,
    /// Attribute names and types.
    attrs: Vec<(String, Type)>,
    /// Whether the formula uses it (its values are then typed).
    used: bool,
}

impl Declared {
    /// The misfit of `arg`, argument `index`, for the reason `why`.
    fn misfit(&self, index: usize, arg: &[u8], why: &str) -> Misfit {
        let (attr, ty) = match self.attrs.get(index) {
            Some((attr, ty)) => (attr.as_str(), *ty),
            None => ("?", Type::Str),
        };
        Misfit::Value {
            index,
            message: format!(
                "the value `{}` of attribute `{attr}` of `{}` (argument {} of {}, {}) {why}",
                String::from_utf8_lossy(arg),
                self.name,
                index + 1,
                self.attrs.len(),
                match ty {
                    Type::Int => "an int",
                    Type::Float => "a float",
                    Type::Str => "a string",
                }
            ),
        }
    }
}

/// The signature of an MFOTL specification, as a trace is read against it;
/// see the docs of `src/mfotl/typing.rs`.
#[derive(Clone, Debug)]
pub struct Typing {
    preds: HashMap<Box<[u8]>, Declared>,
    /// The types of the free variables (the columns of the satisfying
    /// tuples), in order.
    pub columns: Vec<Type>,
}

/// Why an event does not fit the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misfit {
    /// The signature does not declare the predicate.
    Undeclared,
    /// Argument `index` (0-based) is not of its attribute's type.
    Value {
        /// The argument's index.
        index: usize,
        /// What is wrong, naming the value, the attribute and its type.
        message: String,
    },
}

impl Typing {
    /// The typing of the trace of `t`'s formula.
    pub fn new(t: &Translation) -> Typing {
        let preds = t
            .signature
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let key: Box<[u8]> = p.name.as_bytes().into();
                let declared = Declared {
                    name: p.name.clone(),
                    attrs: p.params.clone(),
                    used: t.used.contains(&i),
                };
                (key, declared)
            })
            .collect();
        Typing {
            preds,
            columns: t.free_types(),
        }
    }

    /// Checks the event `name(args)`: its arguments in canonical form (as
    /// they are, borrowed, when already canonical or when the formula does
    /// not use the predicate), or why it does not fit. An argument beyond
    /// the attributes is left as it is (the monitor refuses the arity).
    pub fn read<'a>(&self, name: &[u8], args: &[&'a [u8]]) -> Result<Vec<Cow<'a, [u8]>>, Misfit> {
        let Some(p) = self.preds.get(name) else {
            return Err(Misfit::Undeclared);
        };
        if !p.used {
            return Ok(args.iter().map(|&a| Cow::Borrowed(a)).collect());
        }
        args.iter()
            .enumerate()
            .map(|(index, &arg)| match p.attrs.get(index) {
                Some(&(_, ty)) => {
                    values::canonical(ty, arg).map_err(|why| p.misfit(index, arg, &why))
                }
                None => Ok(Cow::Borrowed(arg)),
            })
            .collect()
    }

    /// [`Typing::read`] into buffers: appends the canonical arguments of
    /// `name(args)` to `bytes`, each followed by its end in `ends`.
    pub fn read_into<'a>(
        &self,
        name: &[u8],
        args: impl Iterator<Item = &'a [u8]>,
        bytes: &mut Vec<u8>,
        ends: &mut Vec<usize>,
    ) -> Result<(), Misfit> {
        let Some(p) = self.preds.get(name) else {
            return Err(Misfit::Undeclared);
        };
        for (index, arg) in args.enumerate() {
            match p.attrs.get(index) {
                Some(&(_, ty)) if p.used => match values::canonical(ty, arg) {
                    Ok(v) => bytes.extend_from_slice(&v),
                    Err(why) => return Err(p.misfit(index, arg, &why)),
                },
                _ => bytes.extend_from_slice(arg),
            }
            ends.push(bytes.len());
        }
        Ok(())
    }

    /// The names of the declared predicates, sorted (for messages).
    pub fn declared(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.preds.values().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        names
    }

    /// Sorts satisfying tuples (canonical values; an unseen value last) as
    /// MonPoly orders the tuples it prints: column by column, ints and
    /// floats as numbers, strings bytewise.
    pub fn sort_tuples(&self, tuples: &mut [Vec<crate::runtime::witness::WitnessValue>]) {
        use crate::runtime::witness::WitnessValue as W;
        let columns = &self.columns;
        tuples.sort_by(|a, b| {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let ty = columns.get(i).copied().unwrap_or(Type::Str);
                let o = match (x, y) {
                    (W::Value(x), W::Value(y)) => values::order(ty, x, y),
                    (W::Value(_), W::Unseen) => std::cmp::Ordering::Less,
                    (W::Unseen, W::Value(_)) => std::cmp::Ordering::Greater,
                    (W::Unseen, W::Unseen) => std::cmp::Ordering::Equal,
                };
                if o.is_ne() {
                    return o;
                }
            }
            a.len().cmp(&b.len())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mfotl::{Reading, translate};
    use crate::runtime::witness::WitnessValue as W;

    fn typing(formula: &str) -> Typing {
        let t = translate(
            formula,
            "p(s:string, n:int) q(f:float) r(int)",
            "t",
            Reading::Satisfactions,
        )
        .expect("in the fragment");
        Typing::new(&t)
    }

    #[test]
    fn used_predicates_are_typed() {
        let t = typing("p(x, n) AND NOT q(2.5)");
        let read = |name: &str, args: &[&str]| {
            let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
            t.read(name.as_bytes(), &args).map(|v| {
                v.iter()
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            read("p", &["007", "0x10"]),
            Ok(vec!["007".into(), "16".into()])
        );
        assert_eq!(read("q", &["2.50"]), Ok(vec!["2.5".into()]));
        // Not used by the formula: as it is, as MonPoly does.
        assert_eq!(read("r", &["lots"]), Ok(vec!["lots".into()]));
        assert_eq!(read("s", &[]), Err(Misfit::Undeclared));
        match read("p", &["a", "lots"]) {
            Err(Misfit::Value { index, message }) => {
                assert_eq!(index, 1);
                assert!(
                    message.starts_with(
                        "the value `lots` of attribute `n` of `p` (argument 2 of 2, an int) is not an int"
                    ),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.columns, vec![Type::Str, Type::Int]);
    }

    #[test]
    fn tuples_sort_as_monpoly_sorts_them() {
        let t = typing("p(x, n)");
        let v = |s: &str| W::Value(s.as_bytes().into());
        let mut tuples = vec![
            vec![v("b"), v("10")],
            vec![v("b"), v("9")],
            vec![v("a"), v("-1")],
            vec![v("B"), v("0")],
        ];
        t.sort_tuples(&mut tuples);
        assert_eq!(
            tuples,
            vec![
                vec![v("B"), v("0")],
                vec![v("a"), v("-1")],
                vec![v("b"), v("9")],
                vec![v("b"), v("10")],
            ]
        );
    }
}
