//! MonPoly signature files: one predicate per declaration,
//! `name(attr:type, ...)` or `name(type, ...)`, with the types `string`,
//! `int` and `float`.

use super::lex::{Tok, tokens};
use crate::syntax::{Diagnostic, Span};

/// The type of a predicate's attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `string`
    Str,
    /// `int`
    Int,
    /// `float`
    Float,
}

impl Type {
    /// The type as written in a signature.
    pub fn name(self) -> &'static str {
        match self {
            Type::Str => "string",
            Type::Int => "int",
            Type::Float => "float",
        }
    }
}

/// One declared predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicate {
    /// Its name.
    pub name: String,
    /// Where it is declared.
    pub span: Span,
    /// Its attributes: name (as declared, or `a1`, `a2`, ...) and type.
    pub params: Vec<(String, Type)>,
}

/// Reads a signature.
pub fn parse_signature(text: &str) -> Result<Vec<Predicate>, Diagnostic> {
    let toks = tokens(text)?;
    let mut out: Vec<Predicate> = Vec::new();
    let mut i = 0;
    let at = |i: usize| toks.get(i).map(|(t, s)| (t, *s));
    let end = Span::new(text.len(), text.len());
    let expected = |i: usize, what: &str| match toks.get(i) {
        Some((t, s)) => Diagnostic::error(*s, format!("expected {what}, found {}", t.describe())),
        None => Diagnostic::error(end, format!("expected {what}, found the end of the file")),
    };
    while i < toks.len() {
        let Some((Tok::Ident(name), span)) = at(i) else {
            return Err(expected(i, "a predicate name"));
        };
        if let Some(earlier) = out.iter().find(|p| &p.name == name) {
            return Err(
                Diagnostic::error(span, format!("predicate `{name}` is declared twice"))
                    .with_note(earlier.span, "first declared here"),
            );
        }
        i += 1;
        if !matches!(at(i), Some((Tok::Punct("("), _))) {
            return Err(expected(i, "`(` after the predicate name"));
        }
        i += 1;
        let mut params = Vec::new();
        loop {
            if matches!(at(i), Some((Tok::Punct(")"), _))) && params.is_empty() {
                i += 1;
                break;
            }
            let (attr, ty_at) = match (at(i), at(i + 1)) {
                (Some((Tok::Ident(a), _)), Some((Tok::Punct(":"), _))) => (Some(a.clone()), i + 2),
                _ => (None, i),
            };
            let ty = match at(ty_at) {
                Some((Tok::Ident(t), s)) => match t.as_str() {
                    "string" => Type::Str,
                    "int" => Type::Int,
                    "float" => Type::Float,
                    other => {
                        return Err(Diagnostic::error(
                            s,
                            format!("unknown type `{other}`: the types are string, int and float"),
                        ));
                    }
                },
                _ => return Err(expected(ty_at, "a type (string, int or float)")),
            };
            params.push((attr.unwrap_or_else(|| format!("a{}", params.len() + 1)), ty));
            i = ty_at + 1;
            match at(i) {
                Some((Tok::Punct(","), _)) => i += 1,
                Some((Tok::Punct(")"), _)) => {
                    i += 1;
                    break;
                }
                _ => return Err(expected(i, "`,` or `)`")),
            }
        }
        out.push(Predicate {
            name: name.clone(),
            span,
            params,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_and_anonymous_attributes() {
        let sig = parse_signature("open (a:string)\naccess(e:string, n:int)\np() q(float)")
            .expect("reads");
        let shown: Vec<(String, Vec<(String, Type)>)> =
            sig.into_iter().map(|p| (p.name, p.params)).collect();
        assert_eq!(
            shown,
            vec![
                ("open".into(), vec![("a".into(), Type::Str)]),
                (
                    "access".into(),
                    vec![("e".into(), Type::Str), ("n".into(), Type::Int)]
                ),
                ("p".into(), vec![]),
                ("q".into(), vec![("a1".into(), Type::Float)]),
            ]
        );
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse_signature("p(x:bool)").expect_err("bad type");
        assert_eq!(e.span, Span::new(4, 8));
        assert!(e.message.contains("unknown type `bool`"));
        let e = parse_signature("p(int) p(string)").expect_err("twice");
        assert!(e.message.contains("declared twice"));
        let e = parse_signature("p(int").expect_err("unclosed");
        assert!(e.message.contains("end of the file"), "{}", e.message);
    }
}
