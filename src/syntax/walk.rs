//! One traversal for formulas, without recursion.
//!
//! Specifications can nest formulas tens of thousands of levels deep, so no
//! pass over a formula may recurse on the thread's stack. Every pass is
//! instead a [`Fold`]: a visitor with a hook before a node's subformulas
//! ([`Fold::enter`]) and one after them ([`Fold::leave`]), run by
//! [`Walker::fold`] with an explicit stack of tasks.
//!
//! - `enter` sees the node and the context handed down by its parent and
//!   either answers at once ([`Step::Done`]: the subformulas are not visited,
//!   `leave` is not called) or names the nodes to visit, left to right, and
//!   the context they get ([`Step::Into`]). These are usually the node's
//!   subformulas ([`Kids::of`]), but can be any nodes: macro expansion visits
//!   the macro's body in place of a call, the plan's passes follow a rule
//!   call to the rule's body.
//! - `leave` sees the node, its own context and the results of the nodes
//!   visited below it, and gives the node's result.
//!
//! So a fold that builds something (a rebuilt formula, a plan node, a
//! string) passes results up, and a visitor that only looks (scopes, free
//! variables) has `()` as result and keeps its own state, e.g. the binders
//! in scope, pushed in `enter` and popped in `leave` of a quantifier. The
//! order of the hooks is that of a recursive walk: `enter` of a node, then
//! everything below its first visited node, then below its second, then its
//! `leave`.
//!
//! The walk is generic in the node type, so it serves the AST ([`FormId`]
//! in an [`Arena`]) and the plan's subformula table alike. A [`Walker`]
//! keeps its two stacks between folds, for passes that start many folds.

use super::ast::{Arena, Form, FormId};

/// At most two nodes (or results): what a node has below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kids<N>([Option<N>; 2]);

impl<N: Copy> Kids<N> {
    /// No node.
    pub fn none() -> Kids<N> {
        Kids([None, None])
    }

    /// One node.
    pub fn one(a: N) -> Kids<N> {
        Kids([Some(a), None])
    }

    /// Two nodes, `a` first.
    pub fn two(a: N, b: N) -> Kids<N> {
        Kids([Some(a), Some(b)])
    }

    /// The nodes, first to last.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = N> + '_ {
        self.0.iter().flatten().copied()
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.0.iter().flatten().count()
    }

    /// Whether there is no node.
    pub fn is_empty(&self) -> bool {
        self.0[0].is_none()
    }
}

impl Kids<FormId> {
    /// The direct subformulas of `form`, left to right.
    pub fn of(form: &Form) -> Kids<FormId> {
        let mut it = form.children();
        Kids([it.next(), it.next()])
    }
}

/// What [`Fold::enter`] decides for a node.
pub enum Step<N, C, O> {
    /// Visit these nodes, left to right, each in context `C`, then call
    /// [`Fold::leave`] with their results.
    Into(Kids<N>, C),
    /// The node's result: nothing below it is visited and `leave` is not
    /// called.
    Done(O),
}

/// A pass over a formula: hooks before and after the nodes below each node.
pub trait Fold {
    /// The nodes: [`FormId`] for the AST, a plan node index for the plan.
    type Node: Copy;
    /// What a node hands down to the nodes it visits.
    type Ctx: Clone;
    /// What a node gives its parent. A node with one visited node below it
    /// gets `Default::default()` as the second result.
    type Out: Default;

    /// Before the nodes below `node`: answer, or say what to visit.
    fn enter(
        &mut self,
        node: Self::Node,
        ctx: &Self::Ctx,
    ) -> Step<Self::Node, Self::Ctx, Self::Out>;

    /// After the nodes below `node` (`kids`: their results, in order).
    fn leave(&mut self, node: Self::Node, ctx: &Self::Ctx, kids: [Self::Out; 2]) -> Self::Out;
}

enum Task<N, C> {
    Enter(N, C),
    Leave(N, C, usize),
}

/// Runs folds with an explicit stack; keeps its stacks' memory between runs.
pub struct Walker<F: Fold> {
    tasks: Vec<Task<F::Node, F::Ctx>>,
    out: Vec<F::Out>,
}

impl<F: Fold> Default for Walker<F> {
    fn default() -> Self {
        Walker {
            tasks: Vec::new(),
            out: Vec::new(),
        }
    }
}

impl<F: Fold> Walker<F> {
    /// A walker with empty stacks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds `f` over the nodes reached from `root`, which gets context
    /// `ctx`; returns the result of `root`.
    pub fn fold(&mut self, f: &mut F, root: F::Node, ctx: F::Ctx) -> F::Out {
        let base = self.out.len();
        self.tasks.push(Task::Enter(root, ctx));
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Enter(node, ctx) => match f.enter(node, &ctx) {
                    Step::Done(o) => self.out.push(o),
                    Step::Into(kids, inner) => {
                        self.tasks.push(Task::Leave(node, ctx, kids.len()));
                        for k in kids.iter().rev() {
                            self.tasks.push(Task::Enter(k, inner.clone()));
                        }
                    }
                },
                Task::Leave(node, ctx, n) => {
                    let mut kids = [F::Out::default(), F::Out::default()];
                    for k in kids[..n].iter_mut().rev() {
                        *k = self.out.pop().unwrap_or_default();
                    }
                    let o = f.leave(node, &ctx, kids);
                    self.out.push(o);
                }
            }
        }
        let result = self.out.pop().unwrap_or_default();
        self.out.truncate(base);
        result
    }
}

/// Folds `f` over the nodes reached from `root` (see [`Walker::fold`]).
pub fn fold<F: Fold>(f: &mut F, root: F::Node, ctx: F::Ctx) -> F::Out {
    Walker::new().fold(f, root, ctx)
}

/// Calls `visit` on every node of the formula `root`, parents before their
/// subformulas, left to right.
pub fn preorder(arena: &Arena, root: FormId, visit: impl FnMut(FormId, &Form)) {
    struct Pre<'a, V> {
        arena: &'a Arena,
        visit: V,
    }
    impl<V: FnMut(FormId, &Form)> Fold for Pre<'_, V> {
        type Node = FormId;
        type Ctx = ();
        type Out = ();
        fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), ()> {
            let form = self.arena.form(id);
            (self.visit)(id, form);
            Step::Into(Kids::of(form), ())
        }
        fn leave(&mut self, _: FormId, _: &(), _: [(); 2]) {}
    }
    fold(&mut Pre { arena, visit }, root, ());
}

#[cfg(test)]
mod tests;
