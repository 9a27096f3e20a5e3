//! Formulas written back as QTL text ([`Arena::show`]) that reads as the
//! same formula: binary operators in parentheses, a quantifier left of an
//! operator in parentheses (its body would take the operator in), event
//! names that are not plain names (a keyword such as `P`) and constants in
//! quotes, escaped.
//!
//! [`KEYWORDS`] are the words of the grammar: a variable or a parameter may
//! not be one of them ([`is_plain_name`]).

use std::collections::HashMap;

use super::ast::{Arena, Form, FormId, Term};
use super::walk::{Fold, Kids, Step};

impl Arena {
    /// The formula `id` as QTL text that reads as the same formula: binary
    /// operators in parentheses, time bounds written out (see
    /// [`show`](self)).
    pub fn show(&self, id: FormId) -> String {
        self.show_renamed(id, &HashMap::new())
    }

    /// [`show`](Self::show), each variable named in `renamed` written as
    /// the name it maps to (for names that QTL does not read as names).
    pub fn show_renamed(&self, id: FormId, renamed: &HashMap<String, String>) -> String {
        let mut show = Show {
            arena: self,
            renamed,
        };
        Show::text(super::walk::fold(&mut show, id, ()))
    }
}

/// The words of QTL (`grammar/qtl.lalrpop`), which are not names.
pub const KEYWORDS: &[&str] = &[
    "pred", "preds", "event", "events", "prop", "where", "true", "false", "exists", "forall",
    "Exists", "Forall", "S", "Z", "P", "H", "U", "X", "F", "G", "CNT", "SUM", "MIN", "MAX", "AVG",
    "MED", "LET", "IN",
];

/// Whether `name` is a QTL name as it is: an identifier, not a keyword.
pub fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&name)
}

/// `text` as a QTL string literal: in `"`, with `\` and `"` escaped, line
/// ends and tabs written `\n` and `\t` (read back as they were).
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            // A `\` before any other character stands for it: `\` CR is CR.
            '\r' => out.push_str("\\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An event name as QTL reads it: as it is, or quoted.
pub fn event_name(name: &str) -> String {
    if is_plain_name(name) {
        name.to_string()
    } else {
        quoted(name)
    }
}

/// A formula's text, and whether it ends in a quantifier whose body would
/// take in an operator written after it (`Exists x . p(x)`, `!Exists x . p(x)`).
#[derive(Default)]
pub(super) struct Shown {
    text: String,
    open: bool,
}

/// The fold behind [`Arena::show`]: each node's text from its children's,
/// variables renamed by `renamed` where it names them.
pub(super) struct Show<'a> {
    pub(super) arena: &'a Arena,
    pub(super) renamed: &'a HashMap<String, String>,
}

impl Show<'_> {
    fn var<'n>(&'n self, name: &'n str) -> &'n str {
        self.renamed.get(name).map_or(name, String::as_str)
    }

    /// The text of `form`, done.
    pub(super) fn text(out: Shown) -> String {
        out.text
    }
}

impl Fold for Show<'_> {
    type Node = FormId;
    type Ctx = ();
    type Out = Shown;

    fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), Shown> {
        let term = |t: &Term| match t {
            Term::Var(v) => self.var(&v.name).to_string(),
            Term::Const(c) => quoted(&c.text),
        };
        let done = |text: String| Step::Done(Shown { text, open: false });
        match self.arena.form(id) {
            Form::True => done("true".into()),
            Form::False => done("false".into()),
            Form::Call { name, args } => {
                let args: Vec<String> = args.iter().map(term).collect();
                done(format!("{}({})", event_name(&name.name), args.join(",")))
            }
            Form::Cmp { op, left, right } => done(format!(
                "{} {} {}",
                self.var(&left.name),
                op.symbol(),
                term(right)
            )),
            Form::Rel { op, left, right } => {
                let side = |e: &super::Expr| {
                    e.map_vars(|v| {
                        Term::Var(super::ast::Ident {
                            name: self.var(&v.name).to_string(),
                            span: v.span,
                        })
                    })
                    .show(true)
                };
                done(format!("{} {} {}", side(left), op.symbol(), side(right)))
            }
            form => Step::Into(Kids::of(form), ()),
        }
    }

    fn leave(&mut self, id: FormId, _: &(), [a, b]: [Shown; 2]) -> Shown {
        let bound =
            |b: &Option<super::ast::TimeBound>| b.map(|b| b.to_string()).unwrap_or_default();
        // The left operand of an operator, closed.
        let left = |a: Shown| {
            if a.open {
                format!("({})", a.text)
            } else {
                a.text
            }
        };
        let prefix = |p: String, a: Shown| Shown {
            text: format!("{p}{}", a.text),
            open: a.open,
        };
        let closed = |text: String| Shown { text, open: false };
        match self.arena.form(id) {
            Form::Not(_) => prefix("!".into(), a),
            Form::Prev(_) => prefix("@".into(), a),
            Form::PrevIn(t, _) => prefix(format!("@{t} "), a),
            Form::Once(t, _) => prefix(format!("P{} ", bound(t)), a),
            Form::Hist(t, _) => prefix(format!("H{} ", bound(t)), a),
            Form::Bin(op, ..) => closed(format!("({} {} {})", left(a), op.symbol(), b.text)),
            Form::Since(t, ..) => closed(format!("({} S{} {})", left(a), bound(t), b.text)),
            Form::Zince(d, ..) => closed(format!("({} Z[<={d}] {})", left(a), b.text)),
            Form::Next(t, _) => prefix(format!("X{} ", bound(t)), a),
            Form::Eventually(t, _) => prefix(format!("F{} ", bound(t)), a),
            Form::Always(t, _) => prefix(format!("G{} ", bound(t)), a),
            Form::Until(t, ..) => closed(format!("({} U{} {})", left(a), bound(t), b.text)),
            Form::Interval(..) => closed(format!("[{}, {})", a.text, b.text)),
            Form::Quant(q, v, _) => Shown {
                text: format!("{} {} . {}", q.keyword(), self.var(&v.name), a.text),
                open: true,
            },
            Form::Agg(g, _) => {
                let group: Vec<&str> = g.group.iter().map(|v| self.var(&v.name)).collect();
                let group = if group.is_empty() {
                    String::new()
                } else {
                    format!("; {}", group.join(", "))
                };
                closed(format!(
                    "({} <- {} {}{group} . {})",
                    self.var(&g.result.name),
                    g.op.keyword(),
                    self.var(&g.of.name),
                    a.text
                ))
            }
            Form::Let(d, ..) => {
                let params: Vec<&str> = d.params.iter().map(|v| v.name.as_str()).collect();
                closed(format!(
                    "(LET {}({}) = {} IN {})",
                    event_name(&d.name.name),
                    params.join(", "),
                    a.text,
                    b.text
                ))
            }
            // Leaves are answered in `enter`.
            Form::True | Form::False | Form::Call { .. } | Form::Cmp { .. } | Form::Rel { .. } => a,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_formula;

    /// `text` parsed, shown, parsed again and shown again: the same text.
    fn shown_twice(text: &str) -> String {
        let (arena, root) = parse_formula(text).unwrap_or_else(|d| panic!("{}", d.message));
        let once = arena.show(root);
        let (again, root) =
            parse_formula(&once).unwrap_or_else(|d| panic!("{once}: {}", d.message));
        assert_eq!(again.show(root), once, "{text}");
        once
    }

    #[test]
    fn a_quantifier_left_of_an_operator_is_closed() {
        // The body of `Exists` would take `& q(x)` in without parentheses.
        assert_eq!(
            shown_twice("(Exists x . p(x)) & q(x)"),
            "((Exists x . p(x)) & q(x))"
        );
        assert_eq!(
            shown_twice("(!Exists x . p(x)) S (Exists x . q(x))"),
            "((!Exists x . p(x)) S Exists x . q(x))"
        );
        assert_eq!(
            shown_twice("a -> Forall x . p(x)"),
            "(a() -> Forall x . p(x))"
        );
    }

    #[test]
    fn names_and_constants_read_back() {
        assert_eq!(
            shown_twice("\"P\"(x, \"a\\\"b\\\\c\") & \"proc.start\""),
            "(\"P\"(x,\"a\\\"b\\\\c\") & \"proc.start\"())"
        );
        assert!(is_plain_name("x_1") && is_plain_name("_y"));
        assert!(!is_plain_name("P") && !is_plain_name("where") && !is_plain_name("1x"));
        assert!(!is_plain_name("a.b") && !is_plain_name(""));
    }

    #[test]
    fn keywords_are_the_grammars_words() {
        let grammar = include_str!("../../grammar/qtl.lalrpop");
        // The lexer's block: from `match {` to the identifiers' pattern.
        let start = grammar.find("match {").unwrap_or(0);
        let end = grammar.find("=> IDENT").unwrap_or(grammar.len());
        let words: Vec<&str> = grammar[start..end]
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()) && !w.is_empty())
            .collect();
        for w in &words {
            assert!(
                KEYWORDS.contains(w),
                "`{w}` of the grammar is not in KEYWORDS"
            );
        }
        for k in KEYWORDS {
            assert!(words.contains(k), "`{k}` is not a word of the grammar");
            let text = format!("Forall {k} . p({k})");
            assert!(parse_formula(&text).is_err(), "{text} parses");
        }
    }
}
