//! Expansion of the binders other than quantifiers: aggregations (whose
//! variables are renamed inside a macro body, as a quantifier's are),
//! comparisons of arithmetic terms, and `LET`, whose calls are expanded
//! like macro calls.

use std::collections::HashMap;

use super::{At, Expander, Frame, LetEntry, Renamed, Shift};
use crate::check::arguments;
use crate::syntax::walk::{Kids, Step};
use crate::syntax::{Aggregation, Diagnostic, Form, FormId, Ident, LetDef, Span, Term};

impl<'s> Expander<'_, 's> {
    /// A comparison of arithmetic terms, with the frame's substitution.
    pub(super) fn relate(&mut self, id: FormId, frame: usize) -> FormId {
        if frame == 0 {
            return id;
        }
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Rel { op, left, right } = &node.form else {
            return id;
        };
        let left = left.map_vars(|v| self.subst(frame, v));
        let right = right.map_vars(|v| self.subst(frame, v));
        let form = Form::relate(*op, left, right);
        self.push(form, span)
    }

    /// Inside a macro body, the variables an aggregation binds (those of
    /// its operand other than the group) get fresh names for the walk of
    /// the operand, as a quantified variable does.
    pub(super) fn enter_aggregation(&mut self, g: &Aggregation, body: FormId, frame: usize) {
        if frame == 0 {
            self.agg_renamed.push(0);
            return;
        }
        let locals: Vec<Ident> = self
            .arena
            .free_vars(body)
            .into_iter()
            .filter(|v| !g.group.iter().any(|w| w.name == v.name))
            .collect();
        for v in &locals {
            self.fresh += 1;
            let fresh = Ident {
                name: format!("{}'{}", v.name, self.fresh),
                span: v.span,
            };
            let old = self.frames[frame]
                .subst
                .insert(v.name.clone(), Term::Var(fresh.clone()));
            self.renamed.push(Renamed {
                frame,
                name: v.name.clone(),
                old,
                fresh,
            });
        }
        self.agg_renamed.push(locals.len());
    }

    /// The aggregation `id` rebuilt over its expanded operand `body`.
    pub(super) fn leave_aggregation(&mut self, id: FormId, frame: usize, body: FormId) -> FormId {
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Agg(g, old_body) = &node.form else {
            return body;
        };
        let renamed = self.agg_renamed.pop().unwrap_or_default();
        if frame == 0 && *old_body == body {
            return id;
        }
        let var = |e: &Self, v: &Ident| match e.subst(frame, v) {
            Term::Var(w) => w,
            // A constant for a variable: the checker of the macro call
            // reports it (an aggregation's variables are variables).
            Term::Const(c) => Ident {
                name: c.text,
                span: c.span,
            },
        };
        let g = Aggregation {
            op: g.op,
            result: var(self, &g.result),
            of: var(self, &g.of),
            group: g.group.iter().map(|v| var(self, v)).collect(),
        };
        for _ in 0..renamed {
            let Some(Renamed {
                frame, name, old, ..
            }) = self.renamed.pop()
            else {
                break;
            };
            let subst = &mut self.frames[frame].subst;
            match old {
                Some(t) => subst.insert(name, t),
                None => subst.remove(&name),
            };
        }
        self.push(Form::Agg(Box::new(g), body), span)
    }

    /// A `LET` met in frame `frame`: its name is visible in its body.
    pub(super) fn enter_let(&mut self, d: &LetDef, def: FormId, frame: usize) {
        let parent = self.frames[frame].lets_top;
        self.lets.push(LetEntry {
            def: d.clone(),
            body: def,
            parent,
        });
        self.frames[frame].lets_top = Some(self.lets.len() - 1);
    }

    /// The end of a `LET`'s body: its name is no longer visible.
    pub(super) fn leave_let(&mut self, frame: usize) {
        if let Some(top) = self.frames[frame].lets_top {
            self.frames[frame].lets_top = self.lets[top].parent;
        }
    }

    /// A call of the name of a visible `LET`: the walk of its definition in
    /// a new frame (or `None` when no `LET` has the name).
    pub(super) fn let_call(
        &mut self,
        name: &Ident,
        args: &[Term],
        span: Span,
        frame: usize,
        under_prev: Shift,
    ) -> Option<Step<FormId, At, FormId>> {
        let mut at = self.frames[frame].lets_top;
        while let Some(k) = at {
            if self.lets[k].def.name.name == name.name {
                break;
            }
            at = self.lets[k].parent;
        }
        let k = at?;
        let entry = &self.lets[k];
        let (params, body, parent) = (&entry.def.params, entry.body, entry.parent);
        if params.len() != args.len() {
            let d = Diagnostic::error(
                span,
                format!(
                    "`LET {}` has {} but is called with {}",
                    name.name,
                    match params.len() {
                        1 => "1 parameter".to_string(),
                        n => format!("{n} parameters"),
                    },
                    arguments(args.len())
                ),
            )
            .with_note(
                entry.def.name.span,
                format!("`{}` is defined here", name.name),
            );
            let d = self.in_macro(frame, d);
            self.diags.push(d);
            return Some(Step::Done(self.push(Form::False, span)));
        }
        let mut subst = HashMap::with_capacity(args.len());
        for (p, a) in params.iter().zip(args) {
            subst.entry(p.name.clone()).or_insert_with(|| a.clone());
        }
        self.frames.push(Frame {
            subst,
            call: Some((span, format!("`LET {}`", name.name))),
            lets_top: parent,
        });
        let at = At {
            frame: self.frames.len() - 1,
            under_prev,
        };
        Some(Step::Into(Kids::one(body), at))
    }
}
