//! Macro expansion and name resolution of calls.
//!
//! Every property statement and rule body is rebuilt with its macro calls
//! replaced by the macro bodies, arguments substituted for parameters. On the
//! way every call is resolved (rule of the property, else macro, else event)
//! and the checks that depend on that are made: arities of macro and rule
//! calls, undeclared events, and rules referenced outside `@` in rule bodies
//! (also inside macro bodies, at the call in the macro body). The walk is a
//! [`Fold`] (no recursion), so nesting depth is not limited by the thread's
//! stack.

mod binders;
mod calls;

use std::collections::{BTreeMap, HashMap};

use super::defs::Table;
use crate::syntax::walk::{self, Fold, Kids, Step};
use crate::syntax::{Arena, Diagnostic, Form, FormId, Ident, Span, Term};

/// Macro expansion may create at most this many formula nodes plus
/// [`EXPANSION_FACTOR`] times the parsed ones: macros calling others several
/// times grow exponentially, and the limit turns that into an error.
const EXPANSION_BUDGET: usize = 2_000_000;
/// See [`EXPANSION_BUDGET`].
const EXPANSION_FACTOR: usize = 16;

/// Where a formula is expanded.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'s> {
    /// The property whose rules calls may refer to; `None` checks a macro body
    /// on its own, without expanding the macros it calls.
    pub prop: Option<usize>,
    /// The rule whose body this is; `None` for a statement.
    pub rule: Option<&'s Ident>,
}

/// A macro expansion in progress (frame 0 is the formula being expanded).
struct Frame {
    /// Parameters and renamed quantified variables → what replaces them.
    subst: HashMap<String, Term>,
    /// The macro or `LET` call expanded and what it expands, for notes
    /// (`None` for frame 0).
    call: Option<(Span, String)>,
    /// The innermost `LET` whose name calls in this frame can refer to.
    lets_top: Option<usize>,
}

/// A `LET` definition met in the walk.
struct LetEntry {
    /// Its definition (name, parameters).
    def: crate::syntax::LetDef,
    /// The defining formula.
    body: FormId,
    /// The `LET` visible where this one is defined (the definition's own
    /// calls refer to it and those around it, never to this one).
    parent: Option<usize>,
}

/// Where a node is met in the walk: the frame of its substitution, and
/// whether it is under `@` (rule calls must be, in a rule body).
#[derive(Clone, Copy)]
pub(crate) struct At {
    frame: usize,
    under_prev: Shift,
}

/// Which events a node is evaluated at, relative to its rule body's root:
/// in a rule body, a rule may only be referenced at an earlier event
/// ([`Shift::Past`]), which makes every rule relation well defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shift {
    /// Not under `@` nor under a future operator: the same event.
    Same,
    /// Under `@`, and under no future operator.
    Past,
    /// Under a future operator (`X`, `F`, `G`, `U`): maybe a later event.
    Future,
}

impl Shift {
    /// The shift below an operator `form`.
    fn below(self, form: &Form) -> Shift {
        match form {
            Form::Next(..) | Form::Eventually(..) | Form::Always(..) | Form::Until(..) => {
                Shift::Future
            }
            Form::Prev(_) | Form::PrevIn(..) if self == Shift::Same => Shift::Past,
            _ => self,
        }
    }
}

/// A quantified variable renamed inside a macro body, to restore on leaving.
struct Renamed {
    frame: usize,
    name: String,
    old: Option<Term>,
    fresh: Ident,
}

/// What the walks found, besides the expanded formulas.
pub(crate) struct Found {
    /// Every use of an event anywhere: name → (place, number of arguments).
    pub uses: HashMap<String, Vec<(Span, usize)>>,
    /// Events used by the properties, with their number of arguments.
    pub events: BTreeMap<String, usize>,
    /// Per macro: called (directly or through macros) by a property.
    pub macro_used: Vec<bool>,
}

/// Expands formulas one after the other into one arena.
pub(crate) struct Expander<'t, 's> {
    table: &'t Table<'s>,
    arena: &'t mut Arena,
    diags: &'t mut Vec<Diagnostic>,
    found: Found,
    visited: Vec<bool>,
    fresh: u64,
    created: usize,
    budget: usize,
    aborted: bool,
    frames: Vec<Frame>,
    renamed: Vec<Renamed>,
    /// Every `LET` met so far (see [`Frame::lets_top`]).
    lets: Vec<LetEntry>,
    /// Per aggregation being walked: how many variables it renamed.
    agg_renamed: Vec<usize>,
    /// The context of the formula being expanded.
    ctx: Ctx<'s>,
}

impl<'t, 's> Expander<'t, 's> {
    pub fn new(table: &'t Table<'s>, arena: &'t mut Arena, diags: &'t mut Vec<Diagnostic>) -> Self {
        let n = table.macros.len();
        let budget = EXPANSION_BUDGET.saturating_add(arena.len().saturating_mul(EXPANSION_FACTOR));
        let budget = budget.min((u32::MAX as usize / 2).saturating_sub(arena.len()));
        Expander {
            table,
            arena,
            diags,
            found: Found {
                uses: HashMap::new(),
                events: BTreeMap::new(),
                macro_used: vec![false; n],
            },
            visited: vec![false; n],
            fresh: 0,
            created: 0,
            budget,
            aborted: false,
            frames: Vec::new(),
            renamed: Vec::new(),
            lets: Vec::new(),
            agg_renamed: Vec::new(),
            ctx: Ctx {
                prop: None,
                rule: None,
            },
        }
    }

    /// Whether the body of macro `mi` was walked by some expansion.
    pub fn visited(&self, mi: usize) -> bool {
        self.visited[mi]
    }

    pub fn finish(self) -> Found {
        self.found
    }

    /// Expands `root` in context `ctx` and returns the macro-free formula.
    pub fn expand(&mut self, root: FormId, ctx: Ctx<'s>) -> FormId {
        self.frames.clear();
        self.lets.clear();
        self.frames.push(Frame {
            subst: HashMap::new(),
            call: None,
            lets_top: None,
        });
        self.ctx = ctx;
        let at = At {
            frame: 0,
            under_prev: Shift::Same,
        };
        walk::fold(self, root, at)
    }

    /// Rebuilds node `id` from the results of its children `kids`. Frame 0
    /// keeps unchanged nodes; inside a macro every node is a fresh copy.
    pub(super) fn build(
        &mut self,
        id: FormId,
        frame: usize,
        var: Option<Ident>,
        kids: [FormId; 2],
    ) -> FormId {
        let node = self.arena.node(id);
        let n = node.form.children().count();
        let same = node.form.children().eq(kids[..n].iter().copied());
        if frame == 0 && same && var.is_none() {
            return id;
        }
        let span = node.span;
        let mut form = node.form.with_children(kids);
        if let (Form::Quant(_, v, _), Some(var)) = (&mut form, var) {
            *v = var;
        }
        self.push(form, span)
    }

    /// Stores a node made by the expansion.
    pub(super) fn push(&mut self, form: Form, span: Span) -> FormId {
        self.created += 1;
        self.arena.push(form, span)
    }
}

/// The walk: a macro call is replaced by the walk of the macro's body in a
/// new frame; a quantifier inside a macro body renames its variable for the
/// walk of its body; every other node is rebuilt from its rebuilt children.
impl<'s> Fold for Expander<'_, 's> {
    type Node = FormId;
    type Ctx = At;
    type Out = FormId;

    fn enter(&mut self, id: FormId, at: &At) -> Step<FormId, At, FormId> {
        let At { frame, under_prev } = *at;
        match self.arena.form(id) {
            Form::Call { .. } => self.call(id, frame, under_prev),
            Form::Cmp { .. } => Step::Done(self.compare(id, frame)),
            Form::Rel { .. } => Step::Done(self.relate(id, frame)),
            Form::Agg(g, body) => {
                let (g, body) = (g.clone(), *body);
                self.enter_aggregation(&g, body, frame);
                Step::Into(Kids::one(body), *at)
            }
            Form::Let(d, def, body) => {
                let (d, def, body) = (d.clone(), *def, *body);
                self.enter_let(&d, def, frame);
                Step::Into(Kids::one(body), *at)
            }
            Form::True | Form::False => Step::Done(self.build(id, frame, None, [id; 2])),
            Form::Quant(_, v, body) => {
                let body = *body;
                if frame != 0 {
                    // Capture avoidance: a fresh name per expansion.
                    self.fresh += 1;
                    let fresh = Ident {
                        name: format!("{}'{}", v.name, self.fresh),
                        span: v.span,
                    };
                    let name = v.name.clone();
                    let old = self.frames[frame]
                        .subst
                        .insert(name.clone(), Term::Var(fresh.clone()));
                    self.renamed.push(Renamed {
                        frame,
                        name,
                        old,
                        fresh,
                    });
                }
                Step::Into(Kids::one(body), *at)
            }
            form => {
                let under_prev = under_prev.below(form);
                Step::Into(Kids::of(form), At { frame, under_prev })
            }
        }
    }

    fn leave(&mut self, id: FormId, at: &At, kids: [FormId; 2]) -> FormId {
        let frame = at.frame;
        match self.arena.form(id) {
            // The end of a macro body expanded in place of this call.
            Form::Call { .. } => {
                self.frames.pop();
                kids[0]
            }
            Form::Agg(..) => self.leave_aggregation(id, frame, kids[0]),
            Form::Let(..) => {
                self.leave_let(frame);
                kids[0]
            }
            Form::Quant(..) if frame != 0 => {
                let Some(Renamed {
                    frame,
                    name,
                    old,
                    fresh,
                }) = self.renamed.pop()
                else {
                    return self.build(id, frame, None, kids);
                };
                let subst = &mut self.frames[frame].subst;
                match old {
                    Some(t) => subst.insert(name, t),
                    None => subst.remove(&name),
                };
                self.build(id, frame, Some(fresh), kids)
            }
            _ => self.build(id, frame, None, kids),
        }
    }
}

#[cfg(test)]
mod tests;
