//! Hints for a syntax error caused by another language's spelling: `!==`,
//! `&&`, `not`, `AND`, `IMPLIES`, `G`, ... as written in C, Python, MonPoly
//! (MFOTL) or LTL tools. [`for_error`] finds such a spelling at (or just
//! before) the place of a parse error and names what QTL writes instead.
//!
//! The table is [`SPELLINGS`], one row per spelling: when QTL comes to
//! accept a spelling, its row goes.

const NOT_EQUAL: &str = "write \"x differs from y\" as `x != y`";
const MOD: &str = "write the remainder of a division as `%`: `x % 3`";
const EQUAL: &str = "equality is one `=`: `x = y`";
const IMPLIES: &str = "write implication as `->`: `a(x) -> b(x)`";
const IFF: &str = "write equivalence as `<->`: `a(x) <-> b(x)`";
const AND: &str = "write conjunction (and) as `&`: `a(x) & b(x)`";
const OR: &str = "write disjunction (or) as `|`: `a(x) | b(x)`";
const NOT: &str = "write negation (not) as `!`: `!a(x)`";
const ONCE: &str = "write \"once\" (at some event so far) as `P`: `P a(x)`, `P[<=5] a(x)`";
const SINCE: &str = "write \"since\" as `S`: `a(x) S b(x)`, `a(x) S[<=5] b(x)`";
const PREVIOUS: &str =
    "write \"previously\" (at the previous event) as `@`: `@ a(x)`, `@[<=5] a(x)`";
const HISTORICALLY: &str =
    "write \"historically\" (at every event so far) as `H`: `H a(x)`, `H[<=5] a(x)`";
const EXISTS: &str = "write `Exists x . a(x)` (or `exists x . a(x)`, over the values seen so far)";
const FORALL: &str = "write `Forall x . a(x)` (or `forall x . a(x)`, over the values seen so far)";
const ALWAYS: &str = "a property is checked at every event, so an outer \"always\" goes without \
     saying; within a bound write `G`: `G[<=5] a(x)` (and `H a(x)` for every event so far)";
const EVENTUALLY: &str =
    "write \"eventually\" as `F` with a bound: `F[<=5] a(x)` (and `P a(x)` for some event so far)";
const NEXT: &str =
    "write \"next\" as `X`: `X a(x)`, `X[<=5] a(x)` (and `@ a(x)` for the previous event)";
const UNTIL: &str = "write \"until\" as `U` with a bound: `a(x) U[<=5] b(x)` (and `a(x) S b(x)` for \
     \"since\")";
const WEAK_UNTIL: &str = "QTL has no weak until: write `a(x) U[<=5] b(x) | G[<=5] a(x)`";
const DIAMOND: &str = "for \"not equal\" write `x != y`; for \"eventually\" (Spin's `<>`) \
     write `F` with a bound: `F[<=5] a(x)`";

/// Other languages' spellings and the hint for each. A spelling comes before
/// those it contains (`<=>` before `=>`, `!==` before `!=`): the first that
/// covers the error is taken.
pub const SPELLINGS: &[(&str, &str)] = &[
    // Not equal: C, Python, Haskell, SQL, JavaScript, mathematics.
    ("!==", NOT_EQUAL),
    ("/=", NOT_EQUAL),
    ("≠", NOT_EQUAL),
    // Equality.
    ("===", EQUAL),
    ("==", EQUAL),
    // Connectives: C, Python, MonPoly, LTL tools, mathematics.
    ("<=>", IFF),
    ("==>", IMPLIES),
    ("=>", IMPLIES),
    ("&&", AND),
    ("||", OR),
    ("/\\", AND),
    ("\\/", OR),
    ("~", NOT),
    ("¬", NOT),
    ("∧", AND),
    ("∨", OR),
    ("→", IMPLIES),
    ("⇒", IMPLIES),
    ("↔", IFF),
    ("⇔", IFF),
    ("∀", FORALL),
    ("∃", EXISTS),
    ("not", NOT),
    ("NOT", NOT),
    ("and", AND),
    ("AND", AND),
    ("or", OR),
    ("OR", OR),
    ("implies", IMPLIES),
    ("IMPLIES", IMPLIES),
    ("iff", IFF),
    ("IFF", IFF),
    ("EQUIV", IFF),
    ("EXISTS", EXISTS),
    ("FORALL", FORALL),
    ("MOD", MOD),
    // Past-time operators: MonPoly, LTL tools.
    ("ONCE", ONCE),
    ("once", ONCE),
    ("O", ONCE),
    ("SINCE", SINCE),
    ("since", SINCE),
    ("PREVIOUS", PREVIOUS),
    ("PREV", PREVIOUS),
    ("previous", PREVIOUS),
    ("prev", PREVIOUS),
    ("Y", PREVIOUS),
    ("PAST_ALWAYS", HISTORICALLY),
    ("HISTORICALLY", HISTORICALLY),
    ("historically", HISTORICALLY),
    // Future-time operators: LTL tools, MonPoly.
    // (LTL's `G`, `F`, `X`, `U` are QTL's own, with bounds.)
    ("[]", ALWAYS),
    ("□", ALWAYS),
    ("ALWAYS", ALWAYS),
    ("always", ALWAYS),
    ("<>", DIAMOND),
    ("◇", EVENTUALLY),
    ("EVENTUALLY", EVENTUALLY),
    ("eventually", EVENTUALLY),
    ("NEXT", NEXT),
    ("next", NEXT),
    ("UNTIL", UNTIL),
    ("until", UNTIL),
    ("W", WEAK_UNTIL),
];

/// The hint for a parse error at `start..end` of `text`, if another
/// language's spelling is there: the offending token itself; a symbol that
/// covers its start (`&&` when the error is at the second `&`); the word
/// just before it (`not` in `not a(x)`, which reads as an event `not`
/// followed by an unexpected `a`); or the word before the innermost `(`
/// left open at the error (`NOT (a(x) & b)`, read as a call of `NOT`).
pub fn for_error(text: &str, start: usize, end: usize) -> Option<String> {
    let code = code_mask(text);
    let in_code = |i: usize| code.get(i).copied().unwrap_or(false);
    let hint = |spelling: &str| {
        SPELLINGS
            .iter()
            .find(|(s, _)| *s == spelling)
            .map(|(s, h)| format!("`{s}` is not QTL: {h}"))
    };
    if !in_code(start) {
        return None;
    }
    // The token itself, if it is a word.
    if let Some(word) = text.get(start..end).filter(|w| is_word(w))
        && let Some(h) = hint(word)
    {
        return Some(h);
    }
    // A symbol covering the start.
    for (spelling, _) in SPELLINGS.iter().filter(|(s, _)| !is_word(s)) {
        let covers = (0..spelling.len()).any(|back| {
            start
                .checked_sub(back)
                .and_then(|at| text.get(at..))
                .is_some_and(|rest| rest.starts_with(spelling))
        });
        if covers {
            return hint(spelling);
        }
    }
    // The word just before.
    if let Some(h) = word_before(text, start, &in_code).and_then(hint) {
        return Some(h);
    }
    // The word before the innermost open `(`.
    let mut depth = 0usize;
    for (i, c) in text[..start].char_indices().rev() {
        if !in_code(i) {
            continue;
        }
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => return word_before(text, i, &in_code).and_then(hint),
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Whether `s` is a word (an identifier), not a symbol.
fn is_word(s: &str) -> bool {
    s.chars().next().is_some_and(is_word_char) && s.chars().all(is_word_char)
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The whole word that ends where only white space separates it from
/// `at`, if any.
fn word_before<'t>(text: &'t str, at: usize, in_code: &dyn Fn(usize) -> bool) -> Option<&'t str> {
    let before = text[..at].trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word_char(c))
        .last()
        .map(|(i, _)| i)?;
    in_code(start).then(|| &before[start..])
}

/// For each byte of `text`, whether it is code: not inside a string
/// literal or a comment.
fn code_mask(text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut code = vec![true; bytes.len()];
    let mut i = 0;
    while i < bytes.len() {
        let skip = match bytes[i] {
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && !matches!(bytes[j], b'"' | b'\n' | b'\r') {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                (j + 1).min(bytes.len())
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n)
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |n| i + 2 + n + 2)
            }
            _ => i + 1,
        };
        if skip > i + 1 {
            code[i..skip].fill(false);
        }
        i = skip;
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, token: &str) -> Option<String> {
        let start = text.find(token).unwrap_or(text.len());
        for_error(text, start, start + token.len())
    }

    #[test]
    fn symbols_covering_the_error() {
        // The parser stops at the second `&` of `&&`, at the `!` of `!=`.
        let h = at("a(x) && b(x)", "& b").unwrap_or_default();
        assert_eq!(h, format!("`&&` is not QTL: {AND}"));
        let h = at("x !== y", "= ").unwrap_or_default();
        assert_eq!(h, format!("`!==` is not QTL: {NOT_EQUAL}"));
        // `!=` is QTL.
        assert_eq!(at("x != y", "!"), None);
        // The longest spelling: `<=>` and not `=>`, `!==` and not `!=`.
        assert!(at("a <=> b", ">").is_some_and(|h| h.starts_with("`<=>`")));
        assert!(at("x !== y", "!").is_some_and(|h| h.starts_with("`!==`")));
    }

    #[test]
    fn words_at_and_before_the_error() {
        assert!(at("a(x) and b(x)", "and").is_some_and(|h| h.starts_with("`and`")));
        // `not` reads as an event: the error is at the `a` after it.
        assert!(at("not a(x)", "a(x)").is_some_and(|h| h.starts_with("`not`")));
        // `NOT (...)` reads as a call of `NOT`: the error is inside.
        let text = "NOT (a(x) & b)";
        let h = for_error(text, 6, 7);
        assert!(h.is_some_and(|h| h.starts_with("`NOT`")));
        // A word that only ends like one of the table is no hint.
        assert_eq!(at("band a(x)", "a(x)"), None);
        assert_eq!(at("a(x) b(x)", "b(x)"), None);
    }

    #[test]
    fn strings_and_comments_are_not_code() {
        assert_eq!(at("a(\"&&\") b", "&\")"), None);
        assert_eq!(at("/* not */ a b", "b"), None);
        assert_eq!(at("// x != y\n a b", "b"), None);
        assert!(at("/* x */ not a", " a").is_some());
    }
}
