//! Well-formedness errors and warnings of `hindsight::check`, with their exact
//! source places; operator precedence; macro expansion; deep and large specs.

use hindsight::check::{Checked, check_source};
use hindsight::syntax::{Arena, BinOp, Diagnostic, Form, FormId, Quant, parse_formula};

/// The rendered first lines (`spec.qtl:L:C: error: ...`) of every diagnostic.
fn headlines(text: &str, diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            d.render("spec.qtl", text)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Checks `text`, expecting errors; returns their headlines.
fn errors(text: &str) -> Vec<String> {
    match check_source(text) {
        Ok(_) => panic!("expected errors for:\n{text}"),
        Err(diags) => {
            assert!(diags.iter().all(Diagnostic::is_error));
            headlines(text, &diags)
        }
    }
}

fn ok(text: &str) -> Checked {
    check_source(text).unwrap_or_else(|diags| {
        let all: String = diags.iter().map(|d| d.render("spec.qtl", text)).collect();
        panic!("unexpected errors:\n{all}")
    })
}

/// Asserts that the headlines are, in order, at the given places and contain
/// the given words.
fn expect(got: &[String], want: &[(&str, &[&str])]) {
    assert_eq!(got.len(), want.len(), "got:\n{}", got.join("\n"));
    for (line, (place, words)) in got.iter().zip(want) {
        let prefix = format!("spec.qtl:{place}: error: ");
        assert!(
            line.starts_with(&prefix),
            "expected `{prefix}...`, got `{line}`"
        );
        for w in *words {
            assert!(line.contains(w), "expected `{w}` in `{line}`");
        }
    }
}

/// The full rendering of the diagnostic at position `i`.
fn rendered(text: &str, i: usize) -> String {
    check_source(text)
        .err()
        .unwrap_or_default()
        .get(i)
        .map(|d| d.render("spec.qtl", text))
        .unwrap_or_default()
}

#[test]
fn free_variables() {
    let text = "prop p : Forall x .\n\
                \x20 a(x) -> b(x, y)\n\
                prop q : Forall x . x < z\n\
                pred m(u) = c(u, v)\n\
                prop r : Forall x . s(x) where s(x) := t(x, w)\n\
                prop u : Forall x . k(x) where k(y) := t(y, x)";
    expect(
        &errors(text),
        &[
            ("2:16", &["free variable `y`", "no quantifier"]),
            ("3:25", &["free variable `z`"]),
            (
                "4:18",
                &["free variable `v`", "not a parameter of macro `m`"],
            ),
            (
                "5:45",
                &["free variable `w`", "not a parameter of rule `s`"],
            ),
            (
                "6:45",
                &["free variable `x`", "not a parameter of rule `k`"],
            ),
        ],
    );
}

#[test]
fn hiding() {
    let text = "prop p : Forall x . a(x) -> Exists x . b(x)\n\
                pred m(x, y) = exists y . c(x, y)\n\
                prop q : Forall x . r(x) where r(x) := @ r(x) | Exists x . d(x)";
    expect(
        &errors(text),
        &[
            ("1:36", &["`Exists x` hides the outer variable `x`"]),
            ("2:11", &["parameter `y` of macro `m` is never used"]),
            ("2:23", &["`exists y` hides the outer parameter `y`"]),
            ("3:56", &["hides the outer parameter `x`"]),
        ],
    );
    let full = rendered(text, 0);
    assert!(
        full.contains("spec.qtl:1:17: note: the outer `x` is introduced here"),
        "{full}"
    );
}

#[test]
fn unused_variables() {
    let text = "prop p : forall x . exists y . P login(y)\n\
                pred m(x, y) = P login(x)\n\
                prop q : Forall u . r(u, u) where r(v, w) := login(v)";
    expect(
        &errors(text),
        &[
            ("1:17", &["variable `x` is quantified but never used"]),
            ("2:11", &["parameter `y` of macro `m` is never used"]),
            ("3:40", &["parameter `w` of rule `r` is never used"]),
        ],
    );
}

#[test]
fn inconsistent_event_arity() {
    // Within one property; the first use in the source is the reference.
    let text = "prop p : Forall x . open(x) -> @ ! exists y . P open(x, y)";
    expect(
        &errors(text),
        &[(
            "1:49",
            &[
                "event `open` is used with 2 arguments",
                "1 argument elsewhere",
            ],
        )],
    );
    assert!(
        rendered(text, 0)
            .contains("spec.qtl:1:21: note: `open` is first used with 1 argument here")
    );

    // Across a macro body and a rule body.
    let text = "pred m(x) = toggle(x, x)\n\
                prop p : Forall x . c(x) -> m(x)\n\
                \x20 where c(x) := toggle(x) | @ c(x)";
    expect(
        &errors(text),
        &[(
            "3:17",
            &["event `toggle` is used with 1 argument here, but with 2"],
        )],
    );
    assert!(rendered(text, 0).contains("spec.qtl:1:13: note:"));

    // Against a declaration.
    let text = "event toggle(x), telem(x)\n\
                prop p : Forall x . toggle(x, x) -> !telem(x)";
    expect(
        &errors(text),
        &[(
            "2:21",
            &[
                "event `toggle` is used with 2 arguments",
                "declared with 1 argument",
            ],
        )],
    );
    assert!(rendered(text, 0).contains("spec.qtl:1:7: note: `toggle` is declared here"));
}

#[test]
fn macro_and_rule_call_arity() {
    let text = "prop propArgs : forall x . P predArgs(x,x)\n\
                pred predArgs(x) = P login(x)";
    expect(
        &errors(text),
        &[(
            "1:30",
            &["macro `predArgs` has 1 parameter but is called with 2 arguments"],
        )],
    );
    assert!(rendered(text, 0).contains("spec.qtl:2:6: note: macro `predArgs` is defined here"));

    let text = "prop p : Forall x . c(x, x) -> !telem(x)\n\
                \x20 where c(x) := toggle(x) <-> @ !c()";
    expect(
        &errors(text),
        &[
            (
                "1:21",
                &["rule `c` has 1 parameter but is called with 2 arguments"],
            ),
            (
                "2:34",
                &["rule `c` has 1 parameter but is called with 0 arguments"],
            ),
        ],
    );
}

#[test]
fn duplicate_names() {
    let text = "pred twice(x) = P login(x)\n\
                pred twice(x) = P login(x)\n\
                prop p : twice(\"a\")\n\
                prop p : P login(\"b\")\n\
                prop q : r where r := @ r, r := login(\"c\")\n\
                prop s : Forall x . twice(x) where twice(x) := login(x)";
    expect(
        &errors(text),
        &[
            ("2:6", &["macro `twice` is defined more than once"]),
            ("4:6", &["property `p` is defined more than once"]),
            (
                "5:28",
                &["rule `r` is defined more than once in property `q`"],
            ),
            ("6:36", &["rule `twice` has the name of a macro"]),
        ],
    );
    assert!(rendered(text, 0).contains("spec.qtl:1:6: note: `twice` is first defined here"));
    assert!(rendered(text, 3).contains("spec.qtl:1:6: note: the macro is defined here"));

    let text = "event login(u), logout(u)\n\
                events login(u)\n\
                pred logout(u) = P login(u)\n\
                prop p : Forall u . P logout(u)";
    expect(
        &errors(text),
        &[
            ("2:8", &["event `login` is declared more than once"]),
            ("3:6", &["macro `logout` has the name of a declared event"]),
        ],
    );
    assert!(rendered(text, 1).contains("spec.qtl:1:17: note: the event is declared here"));
}

#[test]
fn undeclared_events() {
    let text = "pred report(x, y), spawn(x, y)\n\
                pred telem(x)\n\
                prop t : Forall x . closed(x) -> !telem(x)\n\
                \x20 where closed(x) := !@true & !toggle(x) | @closed(x) & toggle(x)\n\
                pred m(x) = telem(x) & unknown(x)";
    expect(
        &errors(text),
        &[
            ("4:32", &["event `toggle` is not declared"]),
            ("4:57", &["event `toggle` is not declared"]),
            ("5:24", &["event `unknown` is not declared"]),
        ],
    );
    assert!(rendered(text, 0).contains("spec.qtl:1:6: note: events are declared here"));
    // Without any declaration every event is fine.
    ok("prop t : Forall x . closed(x) -> !telem(x) where closed(x) := toggle(x) <-> @!closed(x)");
}

#[test]
fn repeated_parameters() {
    let text = "pred m(x, y, x) = a(x, y)\n\
                event b(u, u), a(x, y)\n\
                prop p : Forall z . r(z, z) & m(z, z, z) & b(z, z) where r(v, v) := a(v, v)";
    expect(
        &errors(text),
        &[
            ("1:14", &["parameter `x` appears twice", "macro `m`"]),
            ("2:12", &["parameter `u` appears twice", "event `b`"]),
            ("3:63", &["parameter `v` appears twice", "rule `r`"]),
        ],
    );
    assert!(rendered(text, 0).contains("spec.qtl:1:8: note: first occurrence here"));
}

#[test]
fn rules_outside_prev() {
    let text = "prop spawning : Forall x . Forall y . Forall z .\n\
                \x20 report(y, x, z) -> spawned(x, y)\n\
                \x20 where spawned(x, y) := @ spawned(x, y) | spawn(x, y) | Exists d . (spawned(x, d) & spawn(d, y))";
    expect(
        &errors(text),
        &[(
            "3:70",
            &[
                "rule `spawned` is referenced outside `@`",
                "body of rule `spawned`",
            ],
        )],
    );

    // One rule referring to another one.
    let text = "prop p : a where a := @ b | c, b := a";
    expect(
        &errors(text),
        &[(
            "1:37",
            &["rule `a` is referenced outside `@` in the body of rule `b`"],
        )],
    );

    // Through a macro: reported in the macro body, with a note at the call.
    let text = "pred now(x) = r(x)\n\
                prop p : Forall x . r(x)\n\
                \x20 where r(x) := s(x) | @ now(x) | !now(x)";
    expect(
        &errors(text),
        &[(
            "1:15",
            &["rule `r` is referenced outside `@` in the body of rule `r`"],
        )],
    );
    assert!(rendered(text, 0).contains("spec.qtl:3:36: note: in this use of macro `now`"));

    // Under `@` at any depth is fine, and so is the statement.
    ok("prop p : r where r := s | @ (t & !(q | r)), q := @ @ P r");
}

#[test]
fn future_operators_need_a_finite_bound() {
    let text = "prop p : Forall r . req(r) -> F resp(r)\n\
                prop q : a U[>3] b\n\
                prop s : G (a -> X[2,*) b)";
    expect(
        &errors(text),
        &[
            (
                "1:31",
                &["the future operator `F` has no time bound", "`F[<=10]`"],
            ),
            ("2:10", &["the future operator `U` has no upper bound"]),
            (
                "3:10",
                &[
                    "`G` has no time bound",
                    "an outer \"always\" goes without saying",
                ],
            ),
        ],
    );
    // Finite bounds, and `X` with any interval, are fine, nested anywhere.
    ok("prop p : Forall r . req(r) -> F[<=3] resp(r) & (a U[2,5] b) & G(0,4) X[>2] P c");
}

#[test]
fn rules_under_future_operators() {
    // A rule may be referenced only under `@` and outside future operators
    // in a rule body; future operators over events are fine there.
    let text = "prop p : r where r := a | X[<=2] @ r";
    expect(
        &errors(text),
        &[(
            "1:36",
            &[
                "rule `r` is referenced under a future operator",
                "body of rule `r`",
            ],
        )],
    );
    let text = "prop p : r where r := @ F[<=2] (a & r)";
    expect(
        &errors(text),
        &[("1:37", &["rule `r` is referenced under a future operator"])],
    );
    // In the statement, rules may be called under future operators.
    ok("prop p : F[<=3] r | X r where r := @ r | F[<=1] a");
}

#[test]
fn recursive_macros() {
    let text = "pred a(x) = b(x) | q(x)\n\
                pred b(x) = P a(x)\n\
                pred c = c\n\
                prop p : Forall x . a(x) & c";
    expect(
        &errors(text),
        &[
            ("2:15", &["macro `a` is recursive: `a` calls `b` calls `a`"]),
            ("3:10", &["macro `c` calls itself"]),
        ],
    );
}

#[test]
fn all_errors_are_reported_in_order() {
    let text = "pred predTwice(x) = P login(x)\n\
                pred predTwice(x) = P login(x)\n\
                prop propTwice : P login(x)\n\
                prop propTwice : P login(\"a\")\n\
                prop propHide : forall x . (logout(x) -> exists x . P login(x))\n\
                prop propUnused : forall x . exists y . P login(y)";
    let got = errors(text);
    let places: Vec<&str> = got
        .iter()
        .map(|l| {
            l.trim_start_matches("spec.qtl:")
                .split(": ")
                .next()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(places, vec!["2:6", "3:26", "4:6", "5:49", "6:26"]);
}

#[test]
fn warnings() {
    let text = "pred a(x), b(x), unused\n\
                pred m(x) = a(x)\n\
                pred never(x) = b(x)\n\
                prop p : Forall x . m(x) -> b(x)";
    let c = ok(text);
    let w = headlines(text, &c.warnings);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with(
            "spec.qtl:1:18: warning: event `unused` is declared but no property uses it"
        )
    );
    assert!(w[1].starts_with("spec.qtl:3:6: warning: macro `never` is never used"));
}

#[test]
fn syntax_errors_are_one_diagnostic() {
    let text = "prop p : a(x\n";
    let d = check_source(text).err().unwrap_or_default();
    assert_eq!(d.len(), 1);
    assert!(
        headlines(text, &d)[0]
            .starts_with("spec.qtl:1:13: error: the specification ends too early"),
        "{:?}",
        headlines(text, &d)
    );
}

// ---- precedence ----------------------------------------------------------

fn parsed(text: &str) -> (Arena, FormId) {
    parse_formula(text).unwrap_or_else(|d| panic!("{}", d.render("f", text)))
}

fn call_name(arena: &Arena, id: FormId) -> &str {
    match arena.form(id) {
        Form::Call { name, .. } => &name.name,
        other => panic!("expected a call, got {other:?}"),
    }
}

#[test]
fn and_binds_looser_than_since() {
    let (a, root) = parsed("a & b S c");
    let Form::Bin(BinOp::And, l, r) = a.form(root) else {
        panic!("{:?}", a.form(root))
    };
    assert_eq!(call_name(&a, *l), "a");
    let Form::Since(None, b, c) = a.form(*r) else {
        panic!("{:?}", a.form(*r))
    };
    assert_eq!((call_name(&a, *b), call_name(&a, *c)), ("b", "c"));
}

#[test]
fn negation_binds_tighter_than_since() {
    let (a, root) = parsed("! p S q");
    let Form::Since(None, l, r) = a.form(root) else {
        panic!("{:?}", a.form(root))
    };
    let Form::Not(p) = a.form(*l) else {
        panic!("{:?}", a.form(*l))
    };
    assert_eq!((call_name(&a, *p), call_name(&a, *r)), ("p", "q"));
}

#[test]
fn quantifier_body_extends_right() {
    let (a, root) = parsed("Forall x . p(x) -> q(x)");
    let Form::Quant(Quant::Forall, v, body) = a.form(root) else {
        panic!("{:?}", a.form(root))
    };
    assert_eq!(v.name, "x");
    let Form::Bin(BinOp::Implies, l, r) = a.form(*body) else {
        panic!("{:?}", a.form(*body))
    };
    assert_eq!((call_name(&a, *l), call_name(&a, *r)), ("p", "q"));
}

#[test]
fn implication_is_right_associative() {
    let (a, root) = parsed("a -> b -> c");
    let Form::Bin(BinOp::Implies, l, r) = a.form(root) else {
        panic!("{:?}", a.form(root))
    };
    assert_eq!(call_name(&a, *l), "a");
    let Form::Bin(BinOp::Implies, b, c) = a.form(*r) else {
        panic!("{:?}", a.form(*r))
    };
    assert_eq!((call_name(&a, *b), call_name(&a, *c)), ("b", "c"));
}

// ---- macro expansion -----------------------------------------------------

fn show(arena: &Arena, id: FormId) -> String {
    arena.show(id)
}

#[test]
fn macro_calling_a_rule_under_prev_inside_a_rule() {
    let text = "pred wasOpen(f) = @ open(f)\n\
                prop p : Forall f . close(f) -> open(f)\n\
                \x20 where open(f) := start(f) | wasOpen(f) & !close(f)";
    let c = ok(text);
    let rule = &c.props[0].rules[0];
    assert_eq!(
        show(&c.arena, rule.body),
        "(start(f) | (@open(f) & !close(f)))"
    );
    assert_eq!(
        show(&c.arena, c.props[0].body),
        "Forall f . (close(f) -> open(f))"
    );
    // The expanded nodes keep the spans of the macro body.
    let Form::Bin(_, _, and) = c.arena.form(rule.body) else {
        panic!()
    };
    let Form::Bin(_, prev, _) = c.arena.form(*and) else {
        panic!()
    };
    assert_eq!(c.arena.span(*prev).start, text.find("@ open").unwrap_or(0));
    let events: Vec<_> = c.events.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(events, vec![("close", 1), ("start", 1)]);
}

#[test]
fn macro_with_a_local_quantifier_used_twice() {
    let text = "pred loggedIn(u) = exists x . P login(u, x)\n\
                prop p : forall x . logout(x) -> loggedIn(x) & @ loggedIn(x)";
    let c = ok(text);
    let got = show(&c.arena, c.props[0].body);
    assert_eq!(
        got,
        "forall x . (logout(x) -> ((exists x'1 . P login(x,x'1)) & @exists x'2 . P login(x,x'2)))"
    );
}

#[test]
fn macro_passing_a_constant() {
    let text = "pred small(k) = Forall v . report(v) -> v < k & k > 3\n\
                pred below(k, v) = k < v\n\
                prop p : small(100) & Forall v . report(v) -> below(5, v) & below(1, 2)";
    let c = ok(text);
    let got = show(&c.arena, c.props[0].body);
    assert_eq!(
        got,
        "((Forall v'1 . (report(v'1) -> (v'1 < \"100\" & true))) & Forall v . (report(v) -> (v > \"5\" & true)))"
    );
}

// ---- deep and large specifications ---------------------------------------

const DEPTH: usize = 100_000;

#[test]
fn deeply_nested_parentheses() {
    let text = format!(
        "prop p : Forall x . {}a(x){}",
        "(".repeat(DEPTH),
        ")".repeat(DEPTH)
    );
    let c = ok(&text);
    assert_eq!(show(&c.arena, c.props[0].body), "Forall x . a(x)");
}

#[test]
fn deeply_nested_negations_and_prev() {
    for op in ["!", "@", "! @ "] {
        let text = format!(
            "pred m(y) = {}b(y)\nprop p : Forall x . a(x) -> {}m(x)",
            op.repeat(DEPTH),
            op.repeat(DEPTH)
        );
        let c = ok(&text);
        // Walk down the expanded formula: all the operators, then `b(x)`.
        let mut id = c.props[0].body;
        let mut ops = 0;
        loop {
            id = match c.arena.form(id) {
                Form::Quant(_, _, b) | Form::Not(b) | Form::Prev(b) => {
                    ops += 1;
                    *b
                }
                Form::Bin(_, _, b) => *b,
                _ => break,
            };
        }
        let per = op.matches(['!', '@']).count();
        assert_eq!(ops, 1 + 2 * DEPTH * per);
        assert_eq!(show(&c.arena, id), "b(x)");
    }
}

#[test]
fn deeply_nested_rules_under_prev() {
    let text = format!("prop p : r where r := s | {}r", "@".repeat(DEPTH));
    ok(&text);
    let text = format!("prop p : r where r := s | {}r", "!".repeat(DEPTH));
    expect(&errors(&text), &[("1:100027", &["outside `@`"])]);
}

#[test]
fn long_quantifier_chains() {
    let mut text = String::from("prop p : ");
    for i in 0..DEPTH {
        text.push_str(&format!("Forall x{i} . "));
    }
    text.push_str("p(x0)");
    for i in 1..DEPTH {
        text.push_str(&format!(" & q(x{i})"));
    }
    let c = ok(&text);
    assert_eq!(c.events.len(), 2);
    // The same chain inside a macro is renamed at expansion.
    let text = text.replacen("prop p : ", "pred m = ", 1) + "\nprop p : m & @ m";
    let c = ok(&text);
    let Form::Bin(BinOp::And, first, _) = c.arena.form(c.props[0].body) else {
        panic!()
    };
    let Form::Quant(_, v, _) = c.arena.form(*first) else {
        panic!()
    };
    assert_eq!(v.name, "x0'1");
    // Hiding deep down is found.
    let text = format!("prop p : {}a(x)", "Forall x . ".repeat(3));
    let got = errors(&text);
    assert_eq!(got.len(), 4, "{got:?}");
}

#[test]
fn ten_megabyte_spec() {
    let mut text = String::from(
        "pred a(x, y), b(x), c(y), d\npred within(u, k) = exists w . P a(u, w) & w <= k\n",
    );
    let mut n = 0;
    while text.len() < 10_000_000 {
        text.push_str(&format!(
            "prop p{n} : Forall x . Forall y . a(x, y) -> @ [b(x), c(y)) & y > {n} | within(x, {n}) | r{n}(x)\n  where r{n}(x) := b(x) | @ r{n}(x)\n"
        ));
        n += 1;
    }
    let c = ok(&text);
    assert_eq!(c.props.len(), n);
    assert_eq!(c.props[n - 1].name.name, format!("p{}", n - 1));
    assert_eq!(c.props[n - 1].rules.len(), 1);
    let events: Vec<_> = c.events.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(events, vec![("a", 2), ("b", 1), ("c", 1), ("d", 0)]);
    let w = headlines(&text, &c.warnings);
    assert_eq!(
        w,
        vec!["spec.qtl:1:27: warning: event `d` is declared but no property uses it"]
    );
}

#[test]
fn deep_formulas_need_no_deep_stack() {
    // Parsing and checking are iterative: a small thread stack is enough.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let text = format!(
                "pred m(y) = {}b(y)\nprop p : Forall x . a(x) -> {}m(x){}\n  where r(x) := {}r(x)",
                "! @ ".repeat(DEPTH),
                "(".repeat(DEPTH),
                ")".repeat(DEPTH),
                "@".repeat(DEPTH)
            );
            check_source(&text)
                .map(|c| c.arena.len())
                .map_err(|d| d.len())
        });
    let result = worker.map(|w| w.join());
    assert!(
        matches!(result, Ok(Ok(Ok(n))) if n > 4 * DEPTH),
        "{result:?}"
    );
}

// ---- hints for other languages' spellings --------------------------------

/// The rendered parse error of `formula` (as the body of `prop p`): its
/// headline (after `spec.qtl:1:`) and its hint line.
fn hinted(formula: &str) -> (String, String) {
    let text = format!("prop p : {formula}\n");
    let d = check_source(&text).err().unwrap_or_default();
    assert_eq!(d.len(), 1, "one syntax error for `{formula}`");
    let shown = d[0].render("spec.qtl", &text);
    let head = shown.lines().next().unwrap_or_default();
    let hint = shown
        .lines()
        .find_map(|l| l.strip_prefix("  = hint: "))
        .unwrap_or_default();
    (
        head.trim_start_matches("spec.qtl:1:").to_string(),
        hint.to_string(),
    )
}

#[test]
fn c_python_monpoly_and_ltl_spellings_get_a_hint() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "Forall x . Forall y . a(x, y) -> x !== y",
            "47: error: unexpected `=`",
            "`!==` is not QTL: write \"x differs from y\" as `x != y`",
        ),
        (
            "Forall x . a(x) => b(x)",
            "26: error: unexpected `=`",
            "`=>` is not QTL: write implication as `->`: `a(x) -> b(x)`",
        ),
        (
            "Forall x . a(x) && b(x)",
            "27: error: unexpected `&`",
            "`&&` is not QTL: write conjunction (and) as `&`: `a(x) & b(x)`",
        ),
        (
            "Forall x . a(x) || b(x)",
            "27: error: unexpected `|`",
            "`||` is not QTL: write disjunction (or) as `|`: `a(x) | b(x)`",
        ),
        (
            "Forall x . a(x) -> x == 3",
            "32: error: unexpected `=`; expected one of a string, an integer, a decimal number, a name",
            "`==` is not QTL: equality is one `=`: `x = y`",
        ),
        (
            "Forall x . not a(x)",
            "25: error: unexpected `a`",
            "`not` is not QTL: write negation (not) as `!`: `!a(x)`",
        ),
        (
            "Forall x . a(x) and b(x)",
            "26: error: unexpected `and`",
            "`and` is not QTL: write conjunction (and) as `&`: `a(x) & b(x)`",
        ),
        (
            "Forall x . a(x) or b(x)",
            "26: error: unexpected `or`",
            "`or` is not QTL: write disjunction (or) as `|`: `a(x) | b(x)`",
        ),
        (
            "NOT (a & b)",
            "17: error: unexpected `&`",
            "`NOT` is not QTL: write negation (not) as `!`: `!a(x)`",
        ),
        (
            "a AND b",
            "12: error: unexpected `AND`",
            "`AND` is not QTL: write conjunction (and) as `&`: `a(x) & b(x)`",
        ),
        (
            "a IMPLIES b",
            "12: error: unexpected `IMPLIES`",
            "`IMPLIES` is not QTL: write implication as `->`: `a(x) -> b(x)`",
        ),
        (
            "a -> ONCE[0,5] b",
            "19: error: unexpected `[`",
            "`ONCE` is not QTL: write \"once\" (at some event so far) as `P`: `P a(x)`, `P[<=5] a(x)`",
        ),
        (
            "a SINCE b",
            "12: error: unexpected `SINCE`",
            "`SINCE` is not QTL: write \"since\" as `S`: `a(x) S b(x)`, `a(x) S[<=5] b(x)`",
        ),
        (
            "EXISTS x . a(x)",
            "17: error: unexpected `x`",
            "`EXISTS` is not QTL: write `Exists x . a(x)` (or `exists x . a(x)`, over the values seen so far)",
        ),
        (
            "always (a -> b)",
            "20: error: unexpected `->`",
            "`always` is not QTL: a property is checked at every event, so an outer \"always\" \
             goes without saying; within a bound write `G`: `G[<=5] a(x)` (and `H a(x)` for every \
             event so far)",
        ),
        (
            "a -> eventually b",
            "26: error: unexpected `b`",
            "`eventually` is not QTL: write \"eventually\" as `F` with a bound: `F[<=5] a(x)` \
             (and `P a(x)` for some event so far)",
        ),
        (
            "next a",
            "15: error: unexpected `a`",
            "`next` is not QTL: write \"next\" as `X`: `X a(x)`, `X[<=5] a(x)` (and `@ a(x)` for \
             the previous event)",
        ),
        (
            "a ∧ b",
            "12: error: unexpected character `∧`",
            "`∧` is not QTL: write conjunction (and) as `&`: `a(x) & b(x)`",
        ),
    ];
    for (formula, head, hint) in cases {
        let (got_head, got_hint) = hinted(formula);
        assert!(
            got_head.starts_with(head),
            "`{formula}`: expected `{head}...`, got `{got_head}`"
        );
        assert_eq!(&got_hint, hint, "hint for `{formula}`");
    }
}

#[test]
fn hints_only_for_the_spelling_at_the_error() {
    // An event may be named `and`; another error has no hint; a spelling in
    // a string or a comment is not one.
    ok("pred and(x), b(x)\nprop p : Forall x . and(x) -> b(x)");
    for formula in [
        "Forall x . a(x) b(x)",
        "Forall x . a(\"&&\") b(x)",
        "/* not */ a b",
        "band c",
    ] {
        let (head, hint) = hinted(formula);
        assert!(head.contains("error: unexpected"), "{head}");
        assert_eq!(hint, "", "no hint for `{formula}`");
    }
}
