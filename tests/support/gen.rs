//! proptest strategies for well-formed QTL specifications and small traces.
//!
//! A specification is generated as a *raw* tree ([`RawSpec`]) in which
//! variable references, calls and quantifiers are only hints; printing it
//! ([`RawSpec::to_qtl`]) repairs it into a well-formed specification:
//!
//! - a variable reference names a variable in scope (the hinted one if it is in
//!   scope, another one otherwise), or becomes a constant when none is;
//! - a quantifier never re-binds a variable in scope (it picks another name,
//!   or disappears when all are taken);
//! - a quantified variable, rule parameter or macro parameter that its body does
//!   not use is used by an added guard atom (`Forall x . (p(x) -> φ)`,
//!   `Exists x . (p(x) & φ)`, `φ | s(x)`, ...);
//! - a call resolves to a rule of the property or an earlier macro (an event
//!   when there is none), and a rule called in a rule body outside `@` gets one.
//!
//! So every raw tree prints as a well-formed specification, and proptest's
//! shrinking of the raw tree keeps it well-formed. Formulas are printed with
//! full parenthesization.

use std::collections::BTreeSet;
use std::fmt::Write;

use proptest::collection::vec;
use proptest::prelude::*;

use super::reference::Event;
use hindsight::syntax::{BinOp, Quant, RelOp, TimeBound};

/// Variable names of statements and rules.
pub const VARS: [&str; 3] = ["x", "y", "z"];
/// Parameter names of macros.
pub const MACRO_PARAMS: [&str; 2] = ["u", "v"];
/// Constants of specifications.
pub const CONSTS: [&str; 4] = ["1", "2", "a", "10"];
/// The events of specifications, with their arities.
pub const EVENTS: [(&str, usize); 4] = [("p", 1), ("q", 2), ("r", 0), ("s", 1)];
/// The events of traces: those of specifications and `w`, which none mentions.
pub const TRACE_EVENTS: [(&str, usize); 5] = [("p", 1), ("q", 2), ("r", 0), ("s", 1), ("w", 1)];
/// The values of traces: the first four are the common ones (some equal to
/// constants, `3` never is); the others are rarer and exercise integer
/// comparison (`10` vs `9`, `-1`, `01` equal as an integer to `1` but another
/// text) and more distinct values per variable.
pub const VALUES: [&str; 10] = ["1", "2", "3", "a", "10", "9", "01", "-1", "b", "0"];

/// An argument hint: a variable (index into [`VARS`], or into the variables in
/// scope) or a constant (index into [`CONSTS`]).
#[derive(Clone, Copy, Debug)]
pub enum RArg {
    /// A variable.
    Var(u8),
    /// A constant.
    Const(u8),
}

/// The atom that makes an otherwise unused variable used.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    /// Index into `p`, `q`, `s`.
    event: u8,
    /// For `q`: the argument position of the variable.
    pos: u8,
    /// For `q`: the constant at the other position.
    konst: u8,
    /// Whether the atom is put under `P`.
    once: bool,
    /// For unused parameters: conjunction (true) or disjunction with the body.
    and: bool,
}

/// A raw formula.
#[derive(Clone, Debug)]
pub enum RForm {
    /// `true`
    True,
    /// `false`
    False,
    /// An event atom: index into [`EVENTS`], argument hints (as many as used).
    Event(u8, [RArg; 2]),
    /// A comparison: operator, variable hint, right side.
    Cmp(RelOp, u8, RArg),
    /// A rule or macro call: target hint, argument hints.
    Call(u8, [RArg; 2]),
    /// `!φ`
    Not(Box<RForm>),
    /// `@φ`
    Prev(Box<RForm>),
    /// `P[b] φ`
    Once(Option<TimeBound>, Box<RForm>),
    /// `H[b] φ`
    Hist(Option<TimeBound>, Box<RForm>),
    /// `φ op ψ`
    Bin(BinOp, Box<RForm>, Box<RForm>),
    /// `φ S[b] ψ`
    Since(Option<TimeBound>, Box<RForm>, Box<RForm>),
    /// `φ Z[<=d] ψ`
    Zince(u64, Box<RForm>, Box<RForm>),
    /// `[φ, ψ)`
    Interval(Box<RForm>, Box<RForm>),
    /// A quantifier: kind, variable hint, guard, body.
    Quant(Quant, u8, Guard, Box<RForm>),
    /// `X[b] φ`
    Next(Option<TimeBound>, Box<RForm>),
    /// `F[b] φ` (a finite bound)
    Eventually(TimeBound, Box<RForm>),
    /// `G[b] φ` (a finite bound)
    Always(TimeBound, Box<RForm>),
    /// `φ U[b] ψ` (a finite bound)
    Until(TimeBound, Box<RForm>, Box<RForm>),
}

/// A rule or macro definition: number of parameters, the first parameter's
/// index into the names (rules), guards for unused parameters, body.
#[derive(Clone, Debug)]
pub struct RawDef {
    nparams: u8,
    first: u8,
    guards: [Guard; 2],
    body: RForm,
}

/// A property: quantifier prefix, body, rules.
#[derive(Clone, Debug)]
pub struct RawProp {
    prefix: Vec<(Quant, u8, Guard)>,
    body: RForm,
    rules: Vec<RawDef>,
}

/// A raw specification.
#[derive(Clone, Debug)]
pub struct RawSpec {
    declare: bool,
    macros: Vec<RawDef>,
    props: Vec<RawProp>,
}

fn arg() -> impl Strategy<Value = RArg> {
    prop_oneof![3 => (0..3u8).prop_map(RArg::Var), 1 => (0..CONSTS.len() as u8).prop_map(RArg::Const)]
}

fn args() -> impl Strategy<Value = [RArg; 2]> {
    (arg(), arg()).prop_map(|(a, b)| [a, b])
}

fn bound() -> impl Strategy<Value = Option<TimeBound>> {
    prop_oneof![
        2 => Just(None),
        1 => (0..4u64).prop_map(|d| Some(TimeBound::AtMost(d))),
        1 => (0..4u64).prop_map(|d| Some(TimeBound::MoreThan(d))),
    ]
}

/// A finite interval of a future operator: `[<=d]` or `[a,b]`.
fn future_bound() -> impl Strategy<Value = TimeBound> {
    prop_oneof![
        2 => (0..4u64).prop_map(TimeBound::AtMost),
        1 => (0..3u64, 0..3u64).prop_map(|(lo, len)| TimeBound { lo, hi: Some(lo + len) }),
    ]
}

/// An interval of `X`: none, `[<=d]` or `[a,*)`.
fn next_bound() -> impl Strategy<Value = Option<TimeBound>> {
    prop_oneof![
        2 => Just(None),
        1 => (0..3u64).prop_map(|d| Some(TimeBound::AtMost(d))),
        1 => (1..3u64).prop_map(|d| Some(TimeBound { lo: d, hi: None })),
    ]
}

fn relop() -> impl Strategy<Value = RelOp> {
    prop_oneof![
        Just(RelOp::Lt),
        Just(RelOp::Le),
        Just(RelOp::Eq),
        Just(RelOp::Gt),
        Just(RelOp::Ge)
    ]
}

fn binop() -> impl Strategy<Value = BinOp> {
    prop_oneof![
        Just(BinOp::And),
        Just(BinOp::Or),
        Just(BinOp::Implies),
        Just(BinOp::Iff)
    ]
}

fn quant() -> impl Strategy<Value = Quant> {
    quant_seen(1)
}

/// Quantifiers, those over seen values with weight `seen` (against 1).
fn quant_seen(seen: u32) -> impl Strategy<Value = Quant> {
    prop_oneof![
        1 => Just(Quant::Forall),
        1 => Just(Quant::Exists),
        seen => Just(Quant::ForallSeen),
        seen => Just(Quant::ExistsSeen)
    ]
}

fn guard() -> impl Strategy<Value = Guard> {
    (0..3u8, 0..2u8, 0..3u8, any::<bool>(), any::<bool>()).prop_map(
        |(event, pos, konst, once, and)| Guard {
            event,
            pos,
            konst,
            once,
            and,
        },
    )
}

/// Raw formulas of nesting depth at most `depth`; `size` and `branch` are
/// proptest's `desired_size` and `expected_branch_size` (the smaller `branch`,
/// the deeper the trees).
pub fn form(depth: u32, size: u32, branch: u32) -> impl Strategy<Value = RForm> {
    form_weighted(depth, size, branch, NORMAL)
}

/// Weights of calls among the leaves and of quantifiers among the inner
/// nodes of generated formulas.
#[derive(Clone, Copy)]
pub struct Weights {
    /// Of rule and macro calls (events weigh 8).
    pub call: u32,
    /// Of quantifiers (binary operators weigh 4).
    pub quant: u32,
    /// Of `exists`/`forall` among the quantifiers (`Exists`/`Forall` weigh 1):
    /// the seen values make them depend on which atoms bind their variable.
    pub seen: u32,
    /// Of comparisons among the leaves (events weigh 8).
    pub cmp: u32,
    /// Of the future operators among the inner nodes (binary operators weigh 4).
    pub future: u32,
}

const NORMAL: Weights = Weights {
    call: 3,
    quant: 2,
    seen: 1,
    cmp: 2,
    future: 0,
};

/// [`NORMAL`] with the future operators `X`, `F`, `G`, `U`.
pub const FUTURE: Weights = Weights {
    future: 2,
    ..NORMAL
};
/// More calls and quantifiers: macros called several times, sibling
/// quantifiers.
const DEFINITIONS: Weights = Weights {
    call: 6,
    quant: 5,
    seen: 3,
    cmp: 4,
    future: 0,
};

/// As [`form`], with the given weights.
pub fn form_weighted(
    depth: u32,
    size: u32,
    branch: u32,
    w: Weights,
) -> impl Strategy<Value = RForm> {
    let leaf = prop_oneof![
        1 => Just(RForm::True),
        1 => Just(RForm::False),
        8 => (0..4u8, args()).prop_map(|(e, a)| RForm::Event(e, a)),
        w.cmp => (relop(), 0..3u8, arg()).prop_map(|(op, v, a)| RForm::Cmp(op, v, a)),
        w.call => (0..8u8, args()).prop_map(|(t, a)| RForm::Call(t, a)),
    ];
    leaf.prop_recursive(depth, size, branch, move |inner| {
        let b = move || inner.clone().prop_map(Box::new);
        let past = prop_oneof![
            2 => b().prop_map(RForm::Not),
            2 => b().prop_map(RForm::Prev),
            2 => (bound(), b()).prop_map(|(t, a)| RForm::Once(t, a)),
            1 => (bound(), b()).prop_map(|(t, a)| RForm::Hist(t, a)),
            4 => (binop(), b(), b()).prop_map(|(op, a, c)| RForm::Bin(op, a, c)),
            2 => (bound(), b(), b()).prop_map(|(t, a, c)| RForm::Since(t, a, c)),
            1 => (0..4u64, b(), b()).prop_map(|(d, a, c)| RForm::Zince(d, a, c)),
            1 => (b(), b()).prop_map(|(a, c)| RForm::Interval(a, c)),
            w.quant => (quant_seen(w.seen), 0..3u8, guard(), b()).prop_map(|(q, v, g, a)| RForm::Quant(q, v, g, a)),
        ]
        .boxed();
        if w.future == 0 {
            return past;
        }
        let future = prop_oneof![
            (next_bound(), b()).prop_map(|(t, a)| RForm::Next(t, a)),
            (future_bound(), b()).prop_map(|(t, a)| RForm::Eventually(t, a)),
            (future_bound(), b()).prop_map(|(t, a)| RForm::Always(t, a)),
            (future_bound(), b(), b()).prop_map(|(t, a, c)| RForm::Until(t, a, c)),
        ];
        // The past operators weigh 15 and the quantifiers `w.quant`.
        prop_oneof![15 + w.quant => past, 4 * w.future => future].boxed()
    })
}

/// Shapes of generated formulas: (depth, size, branch) for statements, rule
/// bodies and macro bodies.
#[derive(Clone, Copy)]
struct Shape {
    statement: (u32, u32, u32),
    rule: (u32, u32, u32),
    makro: (u32, u32, u32),
    weights: Weights,
}

fn form_of((depth, size, branch): (u32, u32, u32), w: Weights) -> impl Strategy<Value = RForm> {
    form_weighted(depth, size, branch, w)
}

fn def(shape: (u32, u32, u32), w: Weights) -> impl Strategy<Value = RawDef> {
    (0..3u8, 0..3u8, guard(), guard(), form_of(shape, w)).prop_map(
        |(nparams, first, g1, g2, body)| RawDef {
            nparams,
            first,
            guards: [g1, g2],
            body,
        },
    )
}

fn prop_def(shape: Shape, rule_weight: u32) -> impl Strategy<Value = RawProp> {
    let rules = prop_oneof![2 => Just(Vec::new()), rule_weight => vec(def(shape.rule, shape.weights), 1..=2)];
    (
        vec((quant(), 0..3u8, guard()), 0..=3),
        form_of(shape.statement, shape.weights),
        rules,
    )
        .prop_map(|(prefix, body, rules)| RawProp {
            prefix,
            body,
            rules,
        })
}

/// Raw specifications: 1–2 properties, sometimes with rules, sometimes macros.
pub fn spec() -> impl Strategy<Value = RawSpec> {
    spec_scaled(1)
}

/// As [`spec`] for `scale` 1; larger scales give larger and deeper formulas.
pub fn spec_scaled(scale: u32) -> impl Strategy<Value = RawSpec> {
    let shape = shape(scale);
    let macros =
        prop_oneof![3 => Just(Vec::new()), 1 => vec(def(shape.makro, shape.weights), 1..=2)];
    (
        prop::bool::weighted(0.2),
        macros,
        vec(prop_def(shape, 1), 1..=2),
    )
        .prop_map(|(declare, macros, props)| RawSpec {
            declare,
            macros,
            props,
        })
}

/// Specifications whose formulas have the future operators `X`, `F`, `G`
/// and `U` among their inner nodes, with bounds small enough that the
/// generated traces see most verdicts decided.
pub fn spec_future() -> impl Strategy<Value = RawSpec> {
    let shape = Shape {
        weights: FUTURE,
        ..shape(1)
    };
    let macros =
        prop_oneof![3 => Just(Vec::new()), 1 => vec(def(shape.makro, shape.weights), 1..=2)];
    (
        prop::bool::weighted(0.2),
        macros,
        vec(prop_def(shape, 1), 1..=2),
    )
        .prop_map(|(declare, macros, props)| RawSpec {
            declare,
            macros,
            props,
        })
}

/// Specifications with definitions to rename and expand (issue 16): always
/// 1–2 macros (so often one called twice), rules in half of the properties,
/// and `props` properties. Printed through `rewrite` with `Binders::Reuse`,
/// they reuse variable names as much as the language allows.
pub fn spec_with_definitions(
    props: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = RawSpec> {
    let shape = Shape {
        weights: DEFINITIONS,
        ..shape(1)
    };
    (
        prop::bool::weighted(0.2),
        vec(def(shape.makro, shape.weights), 1..=2),
        vec(prop_def(shape, 2), props),
    )
        .prop_map(|(declare, macros, props)| RawSpec {
            declare,
            macros,
            props,
        })
}

fn shape(scale: u32) -> Shape {
    if scale <= 1 {
        Shape {
            statement: (4, 24, 2),
            rule: (3, 24, 2),
            makro: (2, 24, 2),
            weights: NORMAL,
        }
    } else {
        Shape {
            statement: (3 + scale, 16 * scale, 1),
            rule: (2 + scale, 8 * scale, 1),
            makro: (1 + scale, 4 * scale, 1),
            weights: NORMAL,
        }
    }
}

/// A raw trace event: index into [`TRACE_EVENTS`], value indices, time step.
#[derive(Clone, Debug)]
pub struct RawEvent {
    event: u8,
    args: [u8; 2],
    dt: i32,
}

/// A raw trace: timed or not, first time stamp, events.
#[derive(Clone, Debug)]
pub struct RawTrace {
    timed: bool,
    start: u8,
    events: Vec<RawEvent>,
}

/// Traces of 1–12 (sometimes up to 24) events over the trace signature and
/// [`VALUES`]; when timed, time stamps grow by 0–4, sometimes jump ahead, and
/// sometimes go back.
pub fn trace() -> impl Strategy<Value = RawTrace> {
    trace_of(12, 24)
}

/// As [`trace`], with usually 1–`usual` events, sometimes up to `most`.
pub fn trace_of(usual: usize, most: usize) -> impl Strategy<Value = RawTrace> {
    let value = || prop_oneof![6 => 0..4u8, 1 => 4..VALUES.len() as u8];
    let event = (
        prop_oneof![8 => 0..4u8, 1 => Just(4u8)],
        (value(), value()),
        prop_oneof![16 => 0..=4i32, 2 => -3..=-1i32, 1 => 5..=40i32, 1 => Just(1_000_000i32)],
    )
        .prop_map(|(event, (a, b), dt)| RawEvent {
            event,
            args: [a, b],
            dt,
        });
    let events = prop_oneof![
        6 => vec(event.clone(), 1..=usual),
        1 => vec(event, usual + 1..=most),
    ];
    (prop::bool::weighted(0.6), 0..4u8, events).prop_map(|(timed, start, events)| RawTrace {
        timed,
        start,
        events,
    })
}

impl RawTrace {
    /// Whether the last field of each event is its time stamp.
    pub fn is_timed(&self) -> bool {
        self.timed
    }

    /// The events.
    pub fn events(&self) -> Vec<Event> {
        let mut time = i64::from(self.start);
        self.events
            .iter()
            .enumerate()
            .map(|(k, e)| {
                if k > 0 {
                    time = (time + i64::from(e.dt)).max(0);
                }
                let (name, arity) = TRACE_EVENTS[e.event as usize];
                let args = e.args[..arity]
                    .iter()
                    .map(|&v| VALUES[v as usize].to_string())
                    .collect();
                let t = if self.timed { time as u64 } else { 0 };
                Event {
                    name: name.to_string(),
                    args,
                    time: t,
                }
            })
            .collect()
    }
}

/// Prints a trace as CSV (`name,args..,time`), for failure messages.
pub fn trace_text(trace: &[Event]) -> String {
    let mut out = String::new();
    for e in trace {
        out.push_str(&e.name);
        for a in &e.args {
            let _ = write!(out, ",{a}");
        }
        let _ = writeln!(out, ",{}", e.time);
    }
    out
}

/// What calls may refer to, and where a formula is printed.
#[derive(Clone)]
struct Ctx<'a> {
    /// Variables in scope.
    scope: Vec<&'static str>,
    /// Below an `@`.
    under_prev: bool,
    /// Below a future operator (where a rule body may not call a rule).
    under_future: bool,
    /// In a rule body.
    in_rule: bool,
    /// Arities of the rules callable (named `k1`, `k2`, ...).
    rules: &'a [usize],
    /// Arities of the macros callable (named `m1`, `m2`, ...).
    macros: &'a [usize],
}

impl Ctx<'_> {
    fn var(&self, hint: u8) -> Option<&'static str> {
        let name = VARS[hint as usize % VARS.len()];
        if self.scope.contains(&name) {
            Some(name)
        } else if self.scope.is_empty() {
            None
        } else {
            Some(self.scope[hint as usize % self.scope.len()])
        }
    }

    fn arg(&self, a: RArg, used: &mut BTreeSet<&'static str>) -> String {
        let konst = |c: u8| format!("\"{}\"", CONSTS[c as usize % CONSTS.len()]);
        match a {
            RArg::Var(v) => match self.var(v) {
                Some(x) => {
                    used.insert(x);
                    x.to_string()
                }
                None => konst(v),
            },
            RArg::Const(c) => konst(c),
        }
    }

    fn call(
        &self,
        name: &str,
        arity: usize,
        hints: &[RArg; 2],
        used: &mut BTreeSet<&'static str>,
    ) -> String {
        if arity == 0 {
            return name.to_string();
        }
        let args: Vec<String> = hints[..arity].iter().map(|&a| self.arg(a, used)).collect();
        format!("{name}({})", args.join(", "))
    }
}

fn bound_text(b: Option<TimeBound>) -> String {
    b.map(|b| b.to_string()).unwrap_or_default()
}

fn guard_atom(g: Guard, x: &str) -> String {
    let atom = match g.event % 3 {
        0 => format!("p({x})"),
        1 => {
            let c = format!("\"{}\"", CONSTS[g.konst as usize % CONSTS.len()]);
            if g.pos.is_multiple_of(2) {
                format!("q({x}, {c})")
            } else {
                format!("q({c}, {x})")
            }
        }
        _ => format!("s({x})"),
    };
    if g.once { format!("(P {atom})") } else { atom }
}

/// The context below a future operator.
fn future<'a>(ctx: &Ctx<'a>) -> Ctx<'a> {
    Ctx {
        under_future: true,
        ..ctx.clone()
    }
}

/// Prints `f` in context `ctx`, adding the variables it uses to `used`.
fn print(f: &RForm, ctx: &Ctx<'_>, used: &mut BTreeSet<&'static str>) -> String {
    match f {
        RForm::True => "true".to_string(),
        RForm::False => "false".to_string(),
        RForm::Event(e, hints) => {
            let (name, arity) = EVENTS[*e as usize % EVENTS.len()];
            ctx.call(name, arity, hints, used)
        }
        RForm::Cmp(op, v, right) => match ctx.var(*v) {
            None => "true".to_string(),
            Some(x) => {
                used.insert(x);
                let r = ctx.arg(*right, used);
                format!("({x} {} {r})", op.symbol())
            }
        },
        RForm::Call(t, hints) => {
            // Rules when there are (3 in 4 when there are macros too), else
            // macros, else events.
            let t = *t as usize;
            let rule = !ctx.rules.is_empty() && (ctx.macros.is_empty() || t % 4 != 3);
            if rule && ctx.in_rule && ctx.under_future {
                let (name, arity) = EVENTS[t % EVENTS.len()];
                ctx.call(name, arity, hints, used)
            } else if rule {
                let k = t % ctx.rules.len();
                let call = ctx.call(&format!("k{}", k + 1), ctx.rules[k], hints, used);
                if ctx.in_rule && !ctx.under_prev {
                    format!("(@ {call})")
                } else {
                    call
                }
            } else if !ctx.macros.is_empty() {
                let m = t % ctx.macros.len();
                ctx.call(&format!("m{}", m + 1), ctx.macros[m], hints, used)
            } else {
                let (name, arity) = EVENTS[t % EVENTS.len()];
                ctx.call(name, arity, hints, used)
            }
        }
        RForm::Not(a) => format!("(! {})", print(a, ctx, used)),
        RForm::Prev(a) => {
            let inner = Ctx {
                under_prev: true,
                ..ctx.clone()
            };
            format!("(@ {})", print(a, &inner, used))
        }
        RForm::Next(b, a) => format!("(X{} {})", bound_text(*b), print(a, &future(ctx), used)),
        RForm::Eventually(b, a) => format!("(F{b} {})", print(a, &future(ctx), used)),
        RForm::Always(b, a) => format!("(G{b} {})", print(a, &future(ctx), used)),
        RForm::Until(t, a, b) => {
            let inner = future(ctx);
            let a = print(a, &inner, used);
            let b = print(b, &inner, used);
            format!("({a} U{t} {b})")
        }
        RForm::Once(b, a) => format!("(P{} {})", bound_text(*b), print(a, ctx, used)),
        RForm::Hist(b, a) => format!("(H{} {})", bound_text(*b), print(a, ctx, used)),
        RForm::Bin(op, a, b) => {
            let a = print(a, ctx, used);
            let b = print(b, ctx, used);
            format!("({a} {} {b})", op.symbol())
        }
        RForm::Since(t, a, b) => {
            let a = print(a, ctx, used);
            let b = print(b, ctx, used);
            format!("({a} S{} {b})", bound_text(*t))
        }
        RForm::Zince(d, a, b) => {
            let a = print(a, ctx, used);
            let b = print(b, ctx, used);
            format!("({a} Z[<={d}] {b})")
        }
        RForm::Interval(a, b) => {
            let a = print(a, ctx, used);
            let b = print(b, ctx, used);
            format!("[{a}, {b})")
        }
        RForm::Quant(q, v, g, body) => {
            let start = *v as usize % VARS.len();
            let Some(x) = (0..VARS.len())
                .map(|k| VARS[(start + k) % VARS.len()])
                .find(|x| !ctx.scope.contains(x))
            else {
                return print(body, ctx, used);
            };
            let mut inner = ctx.clone();
            inner.scope.push(x);
            let mut body_used = BTreeSet::new();
            let mut b = print(body, &inner, &mut body_used);
            if !body_used.remove(x) {
                let atom = guard_atom(*g, x);
                b = match q {
                    Quant::Forall | Quant::ForallSeen => format!("({atom} -> {b})"),
                    Quant::Exists | Quant::ExistsSeen => format!("({atom} & {b})"),
                };
            }
            used.extend(body_used);
            format!("({} {x} . {b})", q.keyword())
        }
    }
}

/// Prints a rule or macro body whose parameters are `params`, making every
/// parameter used.
fn print_def(d: &RawDef, params: &[&'static str], ctx: &Ctx<'_>) -> String {
    let mut used = BTreeSet::new();
    let mut body = print(&d.body, ctx, &mut used);
    for (k, p) in params.iter().enumerate() {
        if !used.contains(p) {
            let g = d.guards[k];
            let atom = guard_atom(g, p);
            body = if g.and {
                format!("({body} & {atom})")
            } else {
                format!("({body} | {atom})")
            };
        }
    }
    body
}

fn param_list(params: &[&str]) -> String {
    if params.is_empty() {
        String::new()
    } else {
        format!("({})", params.join(", "))
    }
}

impl RawDef {
    fn arity(&self) -> usize {
        usize::from(self.nparams % 3)
    }

    fn rule_params(&self) -> Vec<&'static str> {
        (0..self.arity())
            .map(|k| VARS[(self.first as usize + k) % VARS.len()])
            .collect()
    }

    fn macro_params(&self) -> Vec<&'static str> {
        MACRO_PARAMS[..self.arity().min(MACRO_PARAMS.len())].to_vec()
    }
}

impl RawSpec {
    /// The specification as QTL text.
    pub fn to_qtl(&self) -> String {
        let mut out = String::new();
        if self.declare {
            out.push_str("pred p(a), q(a, b), r, s(a)\n");
        }
        let macro_arities: Vec<usize> =
            self.macros.iter().map(|m| m.macro_params().len()).collect();
        for (k, m) in self.macros.iter().enumerate() {
            let params = m.macro_params();
            let ctx = Ctx {
                scope: params.clone(),
                under_prev: false,
                under_future: false,
                in_rule: false,
                rules: &[],
                macros: &macro_arities[..k],
            };
            let _ = writeln!(
                out,
                "pred m{}{} = {}",
                k + 1,
                param_list(&params),
                print_def(m, &params, &ctx)
            );
        }
        for (pi, p) in self.props.iter().enumerate() {
            let rule_arities: Vec<usize> = p.rules.iter().map(RawDef::arity).collect();
            let mut body = p.body.clone();
            for &(q, v, g) in p.prefix.iter().rev() {
                body = RForm::Quant(q, v, g, Box::new(body));
            }
            let ctx = Ctx {
                scope: Vec::new(),
                under_prev: false,
                under_future: false,
                in_rule: false,
                rules: &rule_arities,
                macros: &macro_arities,
            };
            let _ = write!(
                out,
                "prop a{pi} : {}",
                print(&body, &ctx, &mut BTreeSet::new())
            );
            for (k, r) in p.rules.iter().enumerate() {
                let params = r.rule_params();
                let ctx = Ctx {
                    scope: params.clone(),
                    in_rule: true,
                    ..ctx.clone()
                };
                let sep = if k == 0 { "\n  where " } else { ",\n    " };
                let _ = write!(
                    out,
                    "{sep}k{}{} := {}",
                    k + 1,
                    param_list(&params),
                    print_def(r, &params, &ctx)
                );
            }
            out.push('\n');
        }
        out
    }
}
