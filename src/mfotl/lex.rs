//! The tokens of MonPoly's formula and signature files.
//!
//! As MonPoly's lexer: keywords in capitals (`PREV` and `PREVIOUS`,
//! `PAST_ALWAYS` and `HISTORICALLY`, `EVENTUALLY` and `SOMETIMES` are
//! synonyms), integers (possibly negative), decimal numbers, time units
//! (`5s`, `2m`, `3h`, `1d`), string constants in single or double quotes,
//! `(* ... *)` and `#` comments.

use crate::syntax::{Diagnostic, Span};

/// A token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name: a predicate, a variable or a type.
    Ident(String),
    /// A keyword, in its canonical spelling (`PREV` for `PREVIOUS`, ...).
    Keyword(&'static str),
    /// An integer, as written.
    Int(String),
    /// A decimal number, as written.
    Float(String),
    /// A number with a time unit (`5s`): the number and the unit letter.
    Unit(String, char),
    /// A string constant, without its quotes.
    Str(String),
    /// Punctuation and operators: `( ) [ ] , . : = < <= > >= * _` and the
    /// arithmetic ones `+ - / ;` (which are outside the fragment).
    Punct(&'static str),
}

impl Tok {
    /// How the token is named in error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Keyword(k) => format!("`{k}`"),
            Tok::Int(s) | Tok::Float(s) => format!("the number `{s}`"),
            Tok::Unit(n, u) => format!("the duration `{n}{u}`"),
            Tok::Str(s) => format!("the string \"{s}\""),
            Tok::Punct(p) => format!("`{p}`"),
        }
    }
}

const KEYWORDS: &[(&str, &str)] = &[
    ("TRUE", "TRUE"),
    ("FALSE", "FALSE"),
    ("NOT", "NOT"),
    ("AND", "AND"),
    ("OR", "OR"),
    ("IMPLIES", "IMPLIES"),
    ("EQUIV", "EQUIV"),
    ("EXISTS", "EXISTS"),
    ("FORALL", "FORALL"),
    ("PREV", "PREVIOUS"),
    ("PREVIOUS", "PREVIOUS"),
    ("ONCE", "ONCE"),
    ("PAST_ALWAYS", "PAST_ALWAYS"),
    ("HISTORICALLY", "PAST_ALWAYS"),
    ("SINCE", "SINCE"),
    ("NEXT", "NEXT"),
    ("EVENTUALLY", "EVENTUALLY"),
    ("SOMETIMES", "EVENTUALLY"),
    ("ALWAYS", "ALWAYS"),
    ("UNTIL", "UNTIL"),
    ("LET", "LET"),
    ("LETPAST", "LETPAST"),
    ("IN", "IN"),
    ("CNT", "CNT"),
    ("MIN", "MIN"),
    ("MAX", "MAX"),
    ("SUM", "SUM"),
    ("AVG", "AVG"),
    ("MED", "MED"),
    ("MOD", "MOD"),
    ("SUBSTRING", "SUBSTRING"),
    ("MATCHES", "MATCHES"),
    ("FORWARD", "MATCHF"),
    ("MATCHF", "MATCHF"),
    ("BACKWARD", "MATCHP"),
    ("MATCHP", "MATCHP"),
];

const PUNCT: &[&str] = &[
    "<-", "<=", ">=", "|>", "<|", "(", ")", "[", "]", ",", ".", ":", "=", "<", ">", "*", "+", "-",
    "/", ";", "?", "|",
];

/// The tokens of `text` with their places.
pub fn tokens(text: &str) -> Result<Vec<(Tok, Span)>, Diagnostic> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if text[i..].starts_with("(*") {
            match text[i + 2..].find("*)") {
                Some(end) => i += end + 4,
                None => {
                    return Err(Diagnostic::error(
                        Span::new(i, i + 2),
                        "this comment `(* ...` is never closed with `*)`",
                    ));
                }
            }
            continue;
        }
        if c == b'"' || c == b'\'' {
            let Some(len) = text[i + 1..].find(c as char) else {
                return Err(Diagnostic::error(
                    Span::new(i, text.len()),
                    "this string constant is never closed",
                ));
            };
            out.push((
                Tok::Str(text[i + 1..i + 1 + len].to_string()),
                Span::new(i, i + len + 2),
            ));
            i += len + 2;
            continue;
        }
        let digit_follows = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() || (c == b'-' && digit_follows(i + 1)) {
            i += 1;
            while digit_follows(i) {
                i += 1;
            }
            let mut tok = Tok::Int(text[start..i].to_string());
            if bytes.get(i) == Some(&b'.') && digit_follows(i + 1) {
                i += 1;
                while digit_follows(i) {
                    i += 1;
                }
                tok = Tok::Float(text[start..i].to_string());
            } else if let Some(&u) = bytes.get(i)
                && u.is_ascii_alphabetic()
                && !bytes
                    .get(i + 1)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                tok = Tok::Unit(text[start..i].to_string(), u as char);
                i += 1;
            }
            out.push((tok, Span::new(start, i)));
            continue;
        }
        if c.is_ascii_alphabetic() || (c == b'_' && bytes.get(i + 1).is_some_and(is_word)) {
            while i < bytes.len() && is_word(&bytes[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let tok = match KEYWORDS.iter().find(|(k, _)| *k == word) {
                Some((_, canonical)) => Tok::Keyword(canonical),
                None => Tok::Ident(word.to_string()),
            };
            out.push((tok, Span::new(start, i)));
            continue;
        }
        if c == b'_' {
            out.push((Tok::Punct("_"), Span::new(i, i + 1)));
            i += 1;
            continue;
        }
        match PUNCT.iter().find(|p| text[i..].starts_with(**p)) {
            Some(p) => {
                out.push((Tok::Punct(p), Span::new(i, i + p.len())));
                i += p.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(Diagnostic::error(
                    Span::new(i, i + ch.len_utf8()),
                    format!("unexpected character `{ch}`"),
                ));
            }
        }
    }
    Ok(out)
}

fn is_word(b: &u8) -> bool {
    b.is_ascii_alphanumeric() || *b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        tokens(text)
            .expect("lexes")
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    #[test]
    fn keywords_numbers_units_strings_and_comments() {
        assert_eq!(
            toks("PREVIOUS[1,*) p(x, -3, 'a b') # rest\n(* c *) ONCE[0,5s] q(2.5)"),
            vec![
                Tok::Keyword("PREVIOUS"),
                Tok::Punct("["),
                Tok::Int("1".into()),
                Tok::Punct(","),
                Tok::Punct("*"),
                Tok::Punct(")"),
                Tok::Ident("p".into()),
                Tok::Punct("("),
                Tok::Ident("x".into()),
                Tok::Punct(","),
                Tok::Int("-3".into()),
                Tok::Punct(","),
                Tok::Str("a b".into()),
                Tok::Punct(")"),
                Tok::Keyword("ONCE"),
                Tok::Punct("["),
                Tok::Int("0".into()),
                Tok::Punct(","),
                Tok::Unit("5".into(), 's'),
                Tok::Punct("]"),
                Tok::Ident("q".into()),
                Tok::Punct("("),
                Tok::Float("2.5".into()),
                Tok::Punct(")"),
            ]
        );
    }

    #[test]
    fn unclosed_things_are_errors_with_their_place() {
        let e = tokens("p(x) (* open").expect_err("unclosed comment");
        assert_eq!(e.span, Span::new(5, 7));
        let e = tokens("p(\"abc)").expect_err("unclosed string");
        assert!(e.message.contains("never closed"));
        let e = tokens("p(x) & q(x)").expect_err("unknown character");
        assert!(e.message.contains("`&`"), "{}", e.message);
    }
}
