//! The free variables of a formula, by name, in order of first occurrence.
//!
//! A quantifier binds its variable in its body. An aggregation
//! `y <- OP x; g . φ` has `y` and `g` free and binds every other variable
//! of φ. A `LET p(x) = φ IN ψ` has the free variables of ψ (those of φ are
//! its parameters).

use std::collections::HashSet;

use super::ast::{Arena, Form, FormId, Ident};
use super::walk::{self, Fold, Kids, Step};

impl Arena {
    /// The free variables of `id`, in order of first occurrence, each with
    /// the place of that occurrence.
    pub fn free_vars(&self, id: FormId) -> Vec<Ident> {
        self.free_occurrences(id).into_iter().cloned().collect()
    }

    /// [`Arena::free_vars`], as the identifiers of those first occurrences.
    pub fn free_occurrences(&self, id: FormId) -> Vec<&Ident> {
        let mut free = Free {
            arena: self,
            bound: Vec::new(),
            seen: HashSet::new(),
            out: Vec::new(),
        };
        walk::fold(&mut free, id, ());
        free.out
    }
}

/// The walk: the quantified names around the current node, and the free
/// variables met so far.
struct Free<'a> {
    arena: &'a Arena,
    bound: Vec<&'a str>,
    seen: HashSet<&'a str>,
    out: Vec<&'a Ident>,
}

impl<'a> Free<'a> {
    fn see(&mut self, v: &'a Ident) {
        if !self.bound.contains(&v.name.as_str()) && self.seen.insert(&v.name) {
            self.out.push(v);
        }
    }
}

impl<'a> Fold for Free<'a> {
    type Node = FormId;
    type Ctx = ();
    type Out = ();

    fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), ()> {
        let form: &'a Form = self.arena.form(id);
        match form {
            Form::Quant(_, v, _) => {
                self.bound.push(&v.name);
                Step::Into(Kids::of(form), ())
            }
            // Only the result and the group are free: they are all the
            // operand lets out.
            Form::Agg(..) => {
                for v in form.used_vars() {
                    self.see(v);
                }
                Step::Done(())
            }
            Form::Let(_, _, body) => Step::Into(Kids::one(*body), ()),
            form => {
                for v in form.used_vars() {
                    self.see(v);
                }
                Step::Into(Kids::of(form), ())
            }
        }
    }

    fn leave(&mut self, id: FormId, _: &(), _: [(); 2]) {
        if let Form::Quant(..) = self.arena.form(id) {
            self.bound.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::parse_formula;

    fn free(text: &str) -> Vec<String> {
        let (arena, root) = parse_formula(text).unwrap_or_else(|d| panic!("{}", d.message));
        arena.free_vars(root).into_iter().map(|v| v.name).collect()
    }

    #[test]
    fn quantifiers_aggregations_and_lets_bind() {
        assert_eq!(free("p(x, y) & Exists x . q(x, z)"), ["x", "y", "z"]);
        assert_eq!(
            free("(c <- CNT ip; u . P fail(u, ip, t)) & c > k"),
            ["c", "u", "k"]
        );
        assert_eq!(free("LET r(a) = q(a) IN r(y) & x + 1 > y"), ["y", "x"]);
    }
}
