//! The definitions of a specification: name tables, duplicate and clashing
//! names, repeated parameters, and recursive macros.

use std::collections::{HashMap, HashSet};

use crate::syntax::walk;
use crate::syntax::{Arena, Def, Diagnostic, EventDecl, Form, FormId, Ident, Rule, Span};

/// A macro definition (`pred name(params) = body`).
pub(crate) struct MacroDef<'s> {
    pub name: &'s Ident,
    pub params: &'s [Ident],
    pub body: FormId,
    /// Closes a cycle of macro calls: never expanded.
    pub recursive: bool,
}

/// A property definition.
pub(crate) struct PropDef<'s> {
    pub name: &'s Ident,
    pub body: FormId,
    pub rules: &'s [Rule],
    /// The first rule of each name.
    pub rule_by_name: HashMap<&'s str, usize>,
}

/// All definitions, by kind and by name. Of several definitions with one name,
/// the first is the one names resolve to.
pub(crate) struct Table<'s> {
    /// Every macro definition, in source order (duplicates included).
    pub macros: Vec<MacroDef<'s>>,
    pub macro_by_name: HashMap<&'s str, usize>,
    /// Every declared event, first declarations only, in source order.
    pub decls: Vec<&'s EventDecl>,
    pub decl_by_name: HashMap<&'s str, usize>,
    /// Where the first declaration is (for a note on undeclared events).
    pub first_decl: Option<Span>,
    pub props: Vec<PropDef<'s>>,
    /// The rule names of all properties.
    pub rule_names: HashSet<&'s str>,
}

/// Builds the name tables, reporting duplicate and clashing names and repeated
/// parameters.
pub(crate) fn collect<'s>(defs: &'s [Def], diags: &mut Vec<Diagnostic>) -> Table<'s> {
    let mut t = Table {
        macros: Vec::new(),
        macro_by_name: HashMap::new(),
        decls: Vec::new(),
        decl_by_name: HashMap::new(),
        first_decl: None,
        props: Vec::new(),
        rule_names: HashSet::new(),
    };
    let mut prop_by_name: HashMap<&str, Span> = HashMap::new();
    for def in defs {
        match def {
            Def::Events(decls) => {
                for d in decls {
                    t.first_decl.get_or_insert(d.name.span);
                    repeated_params(&d.params, "the declaration of event", &d.name.name, diags);
                    if let Some(&first) = t.decl_by_name.get(d.name.name.as_str()) {
                        diags.push(duplicate(
                            &d.name,
                            t.decls[first].name.span,
                            "event",
                            "declared",
                        ));
                    } else {
                        t.decl_by_name.insert(&d.name.name, t.decls.len());
                        t.decls.push(d);
                    }
                }
            }
            Def::Macro { name, params, body } => {
                repeated_params(params, "macro", &name.name, diags);
                if let Some(&first) = t.macro_by_name.get(name.name.as_str()) {
                    diags.push(duplicate(
                        name,
                        t.macros[first].name.span,
                        "macro",
                        "defined",
                    ));
                } else {
                    t.macro_by_name.insert(&name.name, t.macros.len());
                }
                t.macros.push(MacroDef {
                    name,
                    params,
                    body: *body,
                    recursive: false,
                });
            }
            Def::Prop { name, body, rules } => {
                if let Some(&first) = prop_by_name.get(name.name.as_str()) {
                    diags.push(duplicate(name, first, "property", "defined"));
                } else {
                    prop_by_name.insert(&name.name, name.span);
                }
                let mut rule_by_name = HashMap::new();
                for (i, r) in rules.iter().enumerate() {
                    repeated_params(&r.params, "rule", &r.name.name, diags);
                    t.rule_names.insert(&r.name.name);
                    if let Some(&first) = rule_by_name.get(r.name.name.as_str()) {
                        let first: &Rule = &rules[first];
                        let place = format!(" in property `{}`", name.name);
                        diags.push(duplicate_in(
                            &r.name,
                            first.name.span,
                            "rule",
                            "defined",
                            &place,
                        ));
                    } else {
                        rule_by_name.insert(r.name.name.as_str(), i);
                    }
                }
                t.props.push(PropDef {
                    name,
                    body: *body,
                    rules,
                    rule_by_name,
                });
            }
        }
    }
    clashes(&t, diags);
    t
}

/// Macros named like declared events, rules named like macros or events.
fn clashes(t: &Table<'_>, diags: &mut Vec<Diagnostic>) {
    for (mi, m) in t.macros.iter().enumerate() {
        if t.macro_by_name.get(m.name.name.as_str()) != Some(&mi) {
            continue;
        }
        if let Some(&di) = t.decl_by_name.get(m.name.name.as_str()) {
            diags.push(
                Diagnostic::error(
                    m.name.span,
                    format!(
                        "macro `{}` has the name of a declared event, so a call `{}(...)` would be ambiguous; rename the macro",
                        m.name.name, m.name.name
                    ),
                )
                .with_note(t.decls[di].name.span, "the event is declared here"),
            );
        }
    }
    for p in &t.props {
        for (&name, &ri) in &p.rule_by_name {
            let rule = &p.rules[ri];
            if let Some(&mi) = t.macro_by_name.get(name) {
                diags.push(
                    Diagnostic::error(
                        rule.name.span,
                        format!(
                            "rule `{name}` has the name of a macro, so a call `{name}(...)` would be ambiguous; rename the rule or the macro"
                        ),
                    )
                    .with_note(t.macros[mi].name.span, "the macro is defined here"),
                );
            }
            if let Some(&di) = t.decl_by_name.get(name) {
                diags.push(
                    Diagnostic::error(
                        rule.name.span,
                        format!(
                            "rule `{name}` has the name of a declared event, so a call `{name}(...)` would be ambiguous; rename the rule"
                        ),
                    )
                    .with_note(t.decls[di].name.span, "the event is declared here"),
                );
            }
        }
    }
}

fn duplicate(again: &Ident, first: Span, what: &str, verb: &str) -> Diagnostic {
    duplicate_in(again, first, what, verb, "")
}

fn duplicate_in(again: &Ident, first: Span, what: &str, verb: &str, place: &str) -> Diagnostic {
    let message = format!("{what} `{}` is {verb} more than once{place}", again.name);
    Diagnostic::error(again.span, message)
        .with_note(first, format!("`{}` is first {verb} here", again.name))
}

/// Reports every parameter whose name occurs earlier in the same list.
fn repeated_params(params: &[Ident], owner: &str, owner_name: &str, diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, Span> = HashMap::with_capacity(params.len());
    for p in params {
        if let Some(&first) = seen.get(p.name.as_str()) {
            diags.push(
                Diagnostic::error(
                    p.span,
                    format!(
                        "parameter `{}` appears twice in the parameter list of {owner} `{owner_name}`; parameters must have different names",
                        p.name
                    ),
                )
                .with_note(first, "first occurrence here"),
            );
        } else {
            seen.insert(&p.name, p.span);
        }
    }
}

/// The macro calls in a formula (not through other macros), in source order.
fn macro_calls(arena: &Arena, root: FormId, t: &Table<'_>) -> Vec<(usize, Span)> {
    let mut calls = Vec::new();
    walk::preorder(arena, root, |id, form| {
        if let Form::Call { name, .. } = form
            && let Some(&mi) = t.macro_by_name.get(name.name.as_str())
        {
            calls.push((mi, arena.span(id)));
        }
    });
    calls
}

/// Finds the cycles of macro calls: one error per call that closes a cycle in
/// a depth-first search (a "back edge"), whose target is then marked
/// recursive. Every cycle contains a back edge, so expanding only the unmarked
/// macros terminates.
pub(crate) fn find_recursion(t: &mut Table<'_>, arena: &Arena, diags: &mut Vec<Diagnostic>) {
    let n = t.macros.len();
    let edges: Vec<Vec<(usize, Span)>> = t
        .macros
        .iter()
        .map(|m| macro_calls(arena, m.body, t))
        .collect();
    // 0: not visited, 1: on the search path, 2: done.
    let mut state = vec![0u8; n];
    let mut path_pos = vec![0usize; n];
    let mut recursive = vec![false; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (v, ref mut next)) = path.last_mut() {
            let Some(&(w, span)) = edges[v].get(*next) else {
                state[v] = 2;
                path.pop();
                continue;
            };
            *next += 1;
            match state[w] {
                0 => {
                    state[w] = 1;
                    path_pos[w] = path.len();
                    path.push((w, 0));
                }
                1 => {
                    // Not expanding `w` is enough to break this cycle.
                    recursive[w] = true;
                    diags.push(recursion_error(t, &path[path_pos[w]..], span));
                }
                _ => {}
            }
        }
    }
    for (m, r) in t.macros.iter_mut().zip(recursive) {
        m.recursive = r;
    }
}

/// The error for the cycle `cycle` (the search path from the called macro to
/// the caller; each entry is a macro and a position in its calls).
fn recursion_error(t: &Table<'_>, cycle: &[(usize, usize)], span: Span) -> Diagnostic {
    let first = &t.macros[cycle[0].0].name;
    let message = if cycle.len() == 1 {
        format!(
            "macro `{}` calls itself; macros are expanded by substitution and cannot be recursive (a rule can: `where r(x) := ...`)",
            first.name
        )
    } else {
        const SHOWN: usize = 8;
        let mut chain: Vec<String> = cycle
            .iter()
            .take(SHOWN)
            .map(|&(m, _)| format!("`{}`", t.macros[m].name.name))
            .collect();
        if cycle.len() > SHOWN {
            chain.push(format!("... ({} more)", cycle.len() - SHOWN));
        }
        chain.push(format!("`{}`", first.name));
        format!(
            "macro `{}` is recursive: {}; macros are expanded by substitution and cannot call themselves, not even through other macros",
            first.name,
            chain.join(" calls ")
        )
    };
    Diagnostic::error(span, message).with_note(
        first.span,
        format!("macro `{}` is defined here", first.name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn errors(text: &str) -> Vec<(usize, String)> {
        let spec = parse(text).unwrap_or_else(|d| panic!("{}", d.message));
        let mut diags = Vec::new();
        let mut t = collect(&spec.defs, &mut diags);
        find_recursion(&mut t, &spec.arena, &mut diags);
        diags
            .iter()
            .map(|d| (d.span.start, d.message.clone()))
            .collect()
    }

    #[test]
    fn duplicates_are_reported_at_the_second_name() {
        let text =
            "pred m = a\npred m = b\nprop p : m\nprop p : a where r := a, r := b\nevent e, e(x)";
        let e = errors(text);
        let at = |s: &str, nth: usize| text.match_indices(s).nth(nth).map(|(i, _)| i);
        assert!(
            e.iter()
                .any(|(i, m)| Some(*i) == at("m =", 1) && m.contains("macro `m` is defined more"))
        );
        assert!(
            e.iter()
                .any(|(i, m)| Some(*i) == at("p :", 1) && m.contains("property `p`"))
        );
        assert!(e.iter().any(|(i, m)| Some(*i) == at("r :=", 1)
            && m.contains("rule `r` is defined more than once in property `p`")));
        assert!(e.iter().any(|(i, m)| Some(*i) == at("e(x)", 0) && m.contains("event `e` is declared more")));
        assert_eq!(e.len(), 4);
    }

    #[test]
    fn clashing_names() {
        let text =
            "pred e(x)\npred e2(x) = e(x)\npred e3 = true\nprop p : e2(1) & e3 where e3 := true";
        let e = errors(text);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].1.contains("rule `e3` has the name of a macro"));
        let e = errors("pred e(x)\npred e(x) = true\nprop p : e(1) where e := true");
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(
            e[0].1
                .contains("macro `e` has the name of a declared event")
        );
        assert!(e[1].1.contains("rule `e` has the name of a macro"));
        assert!(e[2].1.contains("rule `e` has the name of a declared event"));
    }

    #[test]
    fn repeated_parameters() {
        let e =
            errors("pred m(x, y, x) = true\nevent a(u, u, u)\nprop p : true where r(z, z) := true");
        let got: Vec<usize> = e.iter().map(|(i, _)| *i).collect();
        assert_eq!(got, vec![13, 34, 37, 65]);
        assert!(e.iter().all(|(_, m)| m.contains("appears twice")));
    }

    #[test]
    fn recursion_through_other_macros() {
        let text = "pred a(x) = b(x)\npred b(x) = c(x) | a(x)\npred c(x) = q(x)\npred d = d & c(1)\nprop p : d";
        let e = errors(text);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(Some(e[0].0), text.find("a(x)\n"));
        assert!(e[0].1.contains("`a` calls `b` calls `a`"), "{}", e[0].1);
        assert!(e[1].1.contains("macro `d` calls itself"));
    }
}
