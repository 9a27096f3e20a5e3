//! The free variables of a formula, by name, in order of first occurrence.
//!
//! A quantifier binds its variable in its body. An aggregation
//! `y <- OP x; g . φ` has `y` and `g` free and binds every other variable
//! of φ. A `LET p(x) = φ IN ψ` has the free variables of ψ (those of φ are
//! its parameters).

use std::collections::HashSet;

use super::ast::{Arena, Form, FormId, Ident, RelOp, Term};
use super::walk::{self, Fold, Kids, Step};

impl Arena {
    /// The free variables of `id`, in order of first occurrence, each with
    /// the place of that occurrence.
    pub fn free_vars(&self, id: FormId) -> Vec<Ident> {
        self.free_occurrences(id).into_iter().cloned().collect()
    }

    /// [`Arena::free_vars`], as the identifiers of those first occurrences.
    pub fn free_occurrences(&self, id: FormId) -> Vec<&Ident> {
        self.occurrences(id, false)
    }

    /// The free variables of `id` in MonPoly's order, the order of the
    /// columns of its satisfactions: as [`Arena::free_vars`], except that
    /// `φ S ψ` and `φ U ψ` list ψ's first, and `x > y` and `x >= y` (read
    /// by MonPoly as `y < x` and `y <= x`) list `y` first.
    pub fn free_vars_monpoly(&self, id: FormId) -> Vec<Ident> {
        self.occurrences(id, true).into_iter().cloned().collect()
    }

    fn occurrences(&self, id: FormId, monpoly: bool) -> Vec<&Ident> {
        let mut free = Free {
            arena: self,
            bound: Vec::new(),
            seen: HashSet::new(),
            out: Vec::new(),
            monpoly,
        };
        walk::fold(&mut free, id, ());
        free.out
    }
}

/// Whether MonPoly reads `a op b` as `b < a` or `b <= a`.
fn greater(op: RelOp) -> bool {
    matches!(op, RelOp::Gt | RelOp::Ge)
}

/// The walk: the quantified names around the current node, and the free
/// variables met so far.
struct Free<'a> {
    arena: &'a Arena,
    bound: Vec<&'a str>,
    seen: HashSet<&'a str>,
    out: Vec<&'a Ident>,
    /// In MonPoly's order (see [`Arena::free_vars_monpoly`]).
    monpoly: bool,
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
            Form::Since(_, a, b) | Form::Until(_, a, b) if self.monpoly => {
                Step::Into(Kids::two(*b, *a), ())
            }
            Form::Cmp { op, left, right } if self.monpoly && greater(*op) => {
                if let Term::Var(v) = right {
                    self.see(v);
                }
                self.see(left);
                Step::Done(())
            }
            Form::Rel { op, left, right } if self.monpoly && greater(*op) => {
                for v in right.vars().chain(left.vars()) {
                    self.see(v);
                }
                Step::Done(())
            }
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

    #[test]
    fn monpolys_order_lists_since_and_until_from_the_right() {
        let monpoly = |text: &str| {
            let (arena, root) = parse_formula(text).unwrap_or_else(|d| panic!("{}", d.message));
            let vars = arena.free_vars_monpoly(root);
            vars.into_iter().map(|v| v.name).collect::<Vec<_>>()
        };
        assert_eq!(monpoly("s(m) S r(y, m)"), ["y", "m"]);
        assert_eq!(monpoly("s(m) U[0,3] r(y, m)"), ["y", "m"]);
        assert_eq!(monpoly("p(x, y) & x > y"), ["x", "y"]);
        assert_eq!(monpoly("x > y & p(x, y)"), ["y", "x"]);
        assert_eq!(monpoly("x + 1 >= y & p(x, y)"), ["y", "x"]);
        assert_eq!(monpoly("x + z > y & p(x, y, z)"), ["y", "x", "z"]);
        assert_eq!(monpoly("x < y & p(x, y)"), ["x", "y"]);
        assert_eq!(free("s(m) S r(y, m)"), ["m", "y"]);
    }
}
