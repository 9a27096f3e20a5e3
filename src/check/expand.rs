//! Macro expansion and name resolution of calls.
//!
//! Every property statement and rule body is rebuilt with its macro calls
//! replaced by the macro bodies, arguments substituted for parameters. On the
//! way every call is resolved (rule of the property, else macro, else event)
//! and the checks that depend on that are made: arities of macro and rule
//! calls, undeclared events, and rules referenced outside `@` in rule bodies
//! (also inside macro bodies, at the call in the macro body). The walk uses an
//! explicit stack, so nesting depth is not limited by the thread's stack.

mod calls;

use std::collections::{BTreeMap, HashMap};

use super::defs::Table;
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
    /// The macro call expanded, for notes (`None` for frame 0).
    call: Option<(Span, usize)>,
}

enum Task {
    Enter {
        id: FormId,
        frame: usize,
        under_prev: bool,
    },
    Build {
        id: FormId,
        frame: usize,
        var: Option<Ident>,
    },
    Restore {
        frame: usize,
        name: String,
        old: Option<Term>,
    },
    EndFrame,
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
    tasks: Vec<Task>,
    out: Vec<FormId>,
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
            tasks: Vec::new(),
            out: Vec::new(),
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
        self.frames.push(Frame {
            subst: HashMap::new(),
            call: None,
        });
        self.out.clear();
        self.tasks.push(Task::Enter {
            id: root,
            frame: 0,
            under_prev: false,
        });
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Enter {
                    id,
                    frame,
                    under_prev,
                } => self.enter(id, frame, under_prev, ctx),
                Task::Build { id, frame, var } => self.build(id, frame, var),
                Task::Restore { frame, name, old } => {
                    let subst = &mut self.frames[frame].subst;
                    match old {
                        Some(t) => subst.insert(name, t),
                        None => subst.remove(&name),
                    };
                }
                Task::EndFrame => {
                    self.frames.pop();
                }
            }
        }
        self.out.pop().unwrap_or(root)
    }

    fn enter(&mut self, id: FormId, frame: usize, under_prev: bool, ctx: Ctx<'s>) {
        match self.arena.form(id) {
            Form::Call { .. } => self.call(id, frame, under_prev, ctx),
            Form::Cmp { .. } => self.compare(id, frame),
            Form::True | Form::False => self.build(id, frame, None),
            Form::Quant(_, v, body) => {
                let body = *body;
                if frame == 0 {
                    self.tasks.push(Task::Build {
                        id,
                        frame,
                        var: None,
                    });
                } else {
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
                    self.tasks.push(Task::Build {
                        id,
                        frame,
                        var: Some(fresh),
                    });
                    self.tasks.push(Task::Restore { frame, name, old });
                }
                self.tasks.push(Task::Enter {
                    id: body,
                    frame,
                    under_prev,
                });
            }
            form => {
                let prev = under_prev || matches!(form, Form::Prev(_) | Form::PrevIn(..));
                let kids: Vec<FormId> = form.children().collect();
                self.tasks.push(Task::Build {
                    id,
                    frame,
                    var: None,
                });
                for &k in kids.iter().rev() {
                    self.tasks.push(Task::Enter {
                        id: k,
                        frame,
                        under_prev: prev,
                    });
                }
            }
        }
    }

    /// Rebuilds node `id` from the results of its children (on `out`). Frame 0
    /// keeps unchanged nodes; inside a macro every node is a fresh copy.
    fn build(&mut self, id: FormId, frame: usize, var: Option<Ident>) {
        let node = self.arena.node(id);
        let n = node.form.children().count();
        let mut kids = [FormId(0); 2];
        for k in kids[..n].iter_mut().rev() {
            *k = self.out.pop().unwrap_or(id);
        }
        let same = node.form.children().eq(kids[..n].iter().copied());
        if frame == 0 && same && var.is_none() {
            self.out.push(id);
            return;
        }
        let span = node.span;
        let (a, b) = (kids[0], kids[1]);
        let form = match &node.form {
            Form::Not(_) => Form::Not(a),
            Form::Prev(_) => Form::Prev(a),
            Form::PrevIn(t, _) => Form::PrevIn(*t, a),
            Form::Once(t, _) => Form::Once(*t, a),
            Form::Hist(t, _) => Form::Hist(*t, a),
            Form::Bin(op, _, _) => Form::Bin(*op, a, b),
            Form::Since(t, _, _) => Form::Since(*t, a, b),
            Form::Zince(d, _, _) => Form::Zince(*d, a, b),
            Form::Interval(_, _) => Form::Interval(a, b),
            Form::Quant(q, v, _) => Form::Quant(*q, var.unwrap_or_else(|| v.clone()), a),
            leaf => leaf.clone(),
        };
        self.push(form, span);
    }

    fn push(&mut self, form: Form, span: Span) {
        self.created += 1;
        let id = self.arena.push(form, span);
        self.out.push(id);
    }
}

#[cfg(test)]
mod tests;
