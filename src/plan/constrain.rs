//! Building the plan nodes of aggregations and of constraints: after the
//! checker's arrangement (`check::range`), a constraint is the right operand
//! of a conjunction whose left operand binds its variables.

use super::build::Builder;
use super::compute::{Cond, CondItem, Term, TermItem};
use super::{NodeIx, Op, VarKind};
use crate::syntax::{Aggregation, BinOp, Expr, Form, FormId, Item, Quant, RelOp, TimeBound};

impl Builder<'_> {
    /// `c` if it is a constraint: a combination of comparisons one of
    /// which compares arithmetic terms (a walk that stops at the first
    /// node that is not part of such a combination).
    pub(super) fn constraint(&self, c: FormId) -> Option<FormId> {
        let mut stack = vec![c];
        let mut arith = false;
        while let Some(id) = stack.pop() {
            match self.arena.form(id) {
                Form::Rel { .. } => arith = true,
                Form::Cmp { .. } | Form::True | Form::False => {}
                Form::Not(a) => stack.push(*a),
                Form::Bin(_, a, b) => stack.extend([*a, *b]),
                _ => return None,
            }
        }
        arith.then_some(c)
    }

    /// The node of `a & c` for the constraint `c`: an assignment when `c`
    /// is `z = t` with a plain variable on the left (as the checker writes
    /// assignments), a filter otherwise.
    pub(super) fn constrained(&mut self, scope: Option<usize>, a: NodeIx, c: FormId) -> Op {
        if let Form::Rel {
            op: RelOp::Eq,
            left,
            right,
        } = self.arena.form(c)
            && let [Item::Var(z)] = left.items.as_slice()
        {
            let target = self.lookup(scope, &z.name);
            let term = self.term(scope, right);
            return Op::Assign {
                body: a,
                target,
                term,
            };
        }
        let cond = self.cond(scope, c);
        Op::Filter { body: a, cond }
    }

    /// A term of the plan from a term of the AST.
    fn term(&mut self, scope: Option<usize>, e: &Expr) -> Term {
        e.items
            .iter()
            .map(|i| match i {
                Item::Var(v) => TermItem::Var(self.lookup(scope, &v.name)),
                Item::Const(c) => TermItem::Const(c.text.clone()),
                Item::Neg => TermItem::Neg,
                Item::Bin(op) => TermItem::Bin(*op),
            })
            .collect()
    }

    /// The combination of comparisons `c`, in postfix order.
    fn cond(&mut self, scope: Option<usize>, c: FormId) -> Cond {
        let mut out = Vec::new();
        // (node, whether its operands are done)
        let mut stack = vec![(c, false)];
        while let Some((id, done)) = stack.pop() {
            let form = self.arena.form(id);
            if !done {
                stack.push((id, true));
                let kids: Vec<FormId> = form.children().collect();
                for k in kids.into_iter().rev() {
                    stack.push((k, false));
                }
                continue;
            }
            let item = match form {
                Form::True => CondItem::Const(true),
                Form::False => CondItem::Const(false),
                Form::Rel { op, left, right } => {
                    let (op, left, right) = (*op, left.clone(), right.clone());
                    CondItem::Cmp {
                        op,
                        left: self.term(scope, &left),
                        right: self.term(scope, &right),
                        arith: true,
                    }
                }
                Form::Cmp { op, left, right } => {
                    let (op, left, right) = (*op, left.clone(), right.clone());
                    CondItem::Cmp {
                        op,
                        left: self.term(scope, &Expr::term(crate::syntax::Term::Var(left))),
                        right: self.term(scope, &Expr::term(right)),
                        arith: false,
                    }
                }
                Form::Not(_) => CondItem::Not,
                Form::Bin(op, ..) => match op {
                    BinOp::And => CondItem::And,
                    BinOp::Or => CondItem::Or,
                    BinOp::Implies => CondItem::Implies,
                    BinOp::Iff => CondItem::Iff,
                },
                // Not in a constraint (see `constraint`).
                _ => CondItem::Const(false),
            };
            out.push(item);
        }
        out
    }

    /// Before the operand of aggregation `g`: its variables other than the
    /// group are bound for the walk of the operand.
    pub(super) fn enter_aggregation(
        &mut self,
        scope: Option<usize>,
        g: &Aggregation,
        body: FormId,
    ) {
        let locals: Vec<(String, usize)> = self
            .arena
            .free_vars(body)
            .into_iter()
            .filter(|v| !g.group.iter().any(|w| w.name == v.name))
            .map(|v| {
                let var = self.var(scope, &v.name, VarKind::Quantified(Quant::Exists));
                self.bind(&v.name, var);
                (v.name, var)
            })
            .collect();
        self.agg_locals.push(locals);
    }

    /// The aggregation `g` over the node `body` of its operand.
    pub(super) fn leave_aggregation(
        &mut self,
        scope: Option<usize>,
        g: &Aggregation,
        operand: FormId,
        body: NodeIx,
    ) -> Op {
        let once = match self.arena.form(operand) {
            Form::Once(bound, _) => Some(bound.unwrap_or(TimeBound { lo: 0, hi: None })),
            _ => None,
        };
        let of = self.lookup(scope, &g.of.name);
        for (name, _) in self.agg_locals.pop().unwrap_or_default() {
            self.unbind(&name);
        }
        let result = self.lookup(scope, &g.result.name);
        let group = g
            .group
            .iter()
            .map(|v| self.lookup(scope, &v.name))
            .collect();
        Op::Agg {
            op: g.op,
            result,
            of,
            group,
            once,
            body,
        }
    }
}
