//! `hindsight why`: the explanation of a verdict. A property's verdict at
//! an event is explained by a proof tree over its formula (see [`proof`]):
//! each subformula's truth value at an event, justified by the events that
//! make it so (an event atom by its event; `[open(a), close(a))` false at 5
//! by "`open(a)` at 1, then `close(a)` at 3"), rules by their derivation
//! steps, quantifiers by the value that decides them. The explanation is
//! minimal in its events, for the monitor's witness (the violating values
//! of the statement's quantified variables) or for values asked for.
//!
//! [`replay`] reads the trace up to the event with the monitor (for the
//! verdict and the witness), keeping the events; [`truth`] then computes,
//! forward and on explicit values, the truth of the subformulas the proof
//! needs, and [`proof`] walks back from the event. [`render`] prints the
//! tree as text or JSON (docs/WHY.md).

mod citing;
pub mod events;
pub mod proof;
pub mod quant;
pub mod render;
pub mod seen;
mod since;
mod temporal;
mod terms;
#[cfg(test)]
mod tests;
pub mod truth;

use std::collections::HashMap;
use std::io::{self, Read};

use events::{Events, FRESH, ValueId};
use proof::{Proof, Prover};
use truth::{Binder, Bound, Env, STATEMENT, Truth};

use crate::check::{Checked, check_source_timed};
use crate::report::Violation;
use crate::runtime::witness::WitnessValue;
use crate::session::{Report, RunError, Session, SessionOptions};
use crate::syntax::{Diagnostic, Form, FormId, Term};

/// What to explain, and how the trace is read.
#[derive(Clone, Debug)]
pub struct WhyOptions {
    /// The event (from 1).
    pub event: u64,
    /// The property (`None`: those violated at the event, or every
    /// property if none is).
    pub property: Option<String>,
    /// Values for the statement's leading quantified variables (explain the
    /// verdict under them, satisfying or not) instead of the witness.
    pub assign: Vec<(String, String)>,
    /// The most nodes of a proof.
    pub max_nodes: usize,
    /// How the trace is read (format, timing, ...).
    pub session: SessionOptions,
    /// A flag that stops the computation once set (the explanation is then
    /// meaningless: the caller gave up).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Default for WhyOptions {
    fn default() -> Self {
        WhyOptions {
            event: 1,
            property: None,
            assign: Vec::new(),
            max_nodes: DEFAULT_MAX_NODES,
            session: SessionOptions::default(),
            cancel: None,
        }
    }
}

/// The default of [`WhyOptions::max_nodes`].
pub const DEFAULT_MAX_NODES: usize = 2000;

/// A node of an explanation: a subformula's truth value at an event, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The context: 0 for the statement, `k + 1` for the body of rule `k`.
    pub ctx: usize,
    /// The subformula in the specification's arena.
    pub form: FormId,
    /// The values of its free variables: name, value (`None`: a value not
    /// seen in the trace), and where the variable is bound.
    pub env: Vec<(String, Option<String>, Binder)>,
    /// The subformula, its free variables written as their values.
    pub formula: String,
    /// The event.
    pub event: u64,
    /// Its truth value there.
    pub holds: bool,
    /// Why, in words.
    pub reason: String,
    /// The events it cites itself (an event atom that holds cites its event).
    pub events: Vec<u64>,
    /// The proofs of the subformulas that decide it.
    pub children: Vec<Node>,
    /// Not expanded: the explanation reached its maximum size.
    pub cut: bool,
}

impl Node {
    /// Every event the tree cites, sorted, once each.
    pub fn cited(&self) -> Vec<u64> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            out.extend(&n.events);
            stack.extend(&n.children);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The explanation of one property's verdict at one event.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The property's name.
    pub property: String,
    /// The event (from 1), its trace line and time stamp (timed traces).
    pub event: u64,
    /// The trace line where the event starts.
    pub line: u64,
    /// The event as `name(args)`.
    pub event_text: String,
    /// Whether the monitor reported a violation at the event.
    pub violated: bool,
    /// The values the explanation is for: the witness, or those asked for.
    pub assignment: Vec<(String, Option<String>)>,
    /// Whether the values were asked for (else the tree starts at the statement).
    pub assigned: bool,
    /// The proof.
    pub proof: Node,
    /// Every event the proof cites, with its text.
    pub cited: Vec<(u64, String)>,
}

/// Why an explanation could not be given.
#[derive(Debug)]
pub enum WhyError {
    /// The specification is not well-formed.
    Spec(Vec<Diagnostic>),
    /// The monitor could not be built, or the run failed.
    Run(String),
    /// The trace has fewer events than the one asked for.
    NoEvent {
        /// The event asked for.
        asked: u64,
        /// The events of the trace.
        events: u64,
    },
    /// No property of that name.
    NoProperty(String, Vec<String>),
    /// Bad values for `--assign`.
    Assign(String),
    /// The property computes values (an aggregation or an assignment,
    /// written as the second field), which explanations do not cover yet.
    Unsupported(String, String),
    /// The explanation's evaluation disagrees with the monitor (a bug).
    Disagree {
        /// The property.
        property: String,
        /// The event.
        event: u64,
    },
}

impl std::fmt::Display for WhyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WhyError::Spec(d) => write!(
                f,
                "the specification has {} error(s)",
                d.iter().filter(|d| d.is_error()).count()
            ),
            WhyError::Run(e) => write!(f, "{e}"),
            WhyError::NoEvent { asked, events } => write!(
                f,
                "no event {asked}: the trace has {events} event{}",
                if *events == 1 { "" } else { "s" }
            ),
            WhyError::NoProperty(p, all) => {
                write!(
                    f,
                    "no property named {p}; the properties are: {}",
                    all.join(", ")
                )
            }
            WhyError::Assign(e) => write!(f, "{e}"),
            WhyError::Unsupported(p, what) => write!(
                f,
                "property {p} computes values (`{what}`): hindsight why does not explain \
                 aggregations and assignments yet"
            ),
            WhyError::Disagree { property, event } => write!(
                f,
                "internal error: the explanation of property {property} at event {event} \
                 disagrees with the monitor's verdict (please report it)"
            ),
        }
    }
}

impl std::error::Error for WhyError {}

/// A witness as the monitor names it.
type Witness = Vec<(String, WitnessValue)>;

/// What the monitor told during the replay, and the events it stepped.
struct Found {
    /// The index in the specification of each property monitored.
    index: Vec<usize>,
    /// The event explained: only its violations are kept.
    event: u64,
    /// `(property, witness)` of each violation at the event.
    violations: Vec<(usize, Witness)>,
    error: Option<RunError>,
    events: Events,
    /// Whether repeats taken at once are kept as steps of their own (with
    /// a future operator, whose value at the last repeat of a run depends
    /// on the next event).
    expand: bool,
}

impl Report for Found {
    fn violation(
        &mut self,
        v: &Violation<'_>,
        witness: Option<&[(String, WitnessValue)]>,
    ) -> io::Result<()> {
        if v.event == self.event {
            let p = self.index.get(v.property).copied().unwrap_or_default();
            self.violations
                .push((p, witness.map(<[_]>::to_vec).unwrap_or_default()));
        }
        Ok(())
    }

    fn error(&mut self, error: &RunError) {
        self.error = Some(error.clone());
    }

    #[inline]
    fn stepped(&mut self, name: &[u8], args: &[&[u8]], time: Option<u64>, line: u64) {
        let events = &mut self.events;
        events.push(name, args, time.unwrap_or(0), time.is_none(), line);
    }

    fn repeated(&mut self, n: u64) {
        if self.expand {
            self.events.push_repeats(n);
        } else {
            self.events.repeat(n);
        }
    }
}

/// The first subformula of property `prop` that computes new values (an
/// aggregation, or an equality that may assign its variable side:
/// `n = m - 1`), which explanations do not cover. (A comparison of
/// arithmetic terms that filters values is explained by its values; a
/// `LET` is expanded by the checker, and what it names is explained in its
/// place.)
fn unexplained(checked: &Checked, prop: usize) -> Option<FormId> {
    let p = &checked.props[prop];
    let mut stack: Vec<FormId> = std::iter::once(p.body)
        .chain(p.rules.iter().map(|r| r.body))
        .collect();
    while let Some(f) = stack.pop() {
        let form = checked.arena.form(f);
        let lone =
            |e: &crate::syntax::Expr| matches!(e.items.as_slice(), [crate::syntax::Item::Var(_)]);
        let assigns = matches!(form, Form::Rel { op: crate::syntax::RelOp::Eq, left, right }
            if lone(left) || lone(right));
        if assigns || matches!(form, Form::Agg(..) | Form::Let(..)) {
            return Some(f);
        }
        // Leftmost first.
        stack.extend(form.children().collect::<Vec<_>>().into_iter().rev());
    }
    None
}

/// Whether a property has a future operator (its verdicts may wait for
/// later events: the trace is then read to its end).
fn has_future(checked: &Checked, prop: usize) -> bool {
    let p = &checked.props[prop];
    let mut stack: Vec<FormId> = std::iter::once(p.body)
        .chain(p.rules.iter().map(|r| r.body))
        .collect();
    while let Some(f) = stack.pop() {
        let form = checked.arena.form(f);
        if matches!(
            form,
            Form::Next(..) | Form::Eventually(..) | Form::Always(..) | Form::Until(..)
        ) {
            return true;
        }
        stack.extend(form.children());
    }
    false
}

/// Explains the verdicts at event `options.event` of the QTL specification
/// `text` on the trace `input`: replays the trace with the monitor up to
/// the event (to the end with a future operator), then proves each verdict.
pub fn replay(
    text: &str,
    input: impl Read,
    options: &WhyOptions,
) -> Result<Vec<Explanation>, WhyError> {
    let (checked, decimals) =
        check_source_timed(text, options.session.time_decimals).map_err(WhyError::Spec)?;
    let names: Vec<String> = checked.props.iter().map(|p| p.name.name.clone()).collect();
    let chosen: Option<usize> = match &options.property {
        None => None,
        Some(p) => Some(
            names
                .iter()
                .position(|n| n == p)
                .ok_or_else(|| WhyError::NoProperty(p.clone(), names.clone()))?,
        ),
    };
    let asked = (0..names.len()).filter(|&p| chosen.is_none_or(|c| c == p));
    if let Some((p, f)) = asked
        .into_iter()
        .find_map(|p| unexplained(&checked, p).map(|f| (p, f)))
    {
        let what = checked.arena.show(f);
        return Err(WhyError::Unsupported(names[p].clone(), what));
    }
    // Only the properties asked for are monitored (as `run --prop` does).
    let (mut plan, _, decimals) = crate::plan::compile_source_timed(text, decimals)
        .map_err(|e| WhyError::Spec(e.errors().to_vec()))?;
    plan.props
        .retain(|q| chosen.is_none_or(|c| names[c] == q.name));
    let index: Vec<usize> = (plan.props.iter())
        .map(|q| names.iter().position(|n| *n == q.name).unwrap_or_default())
        .collect();
    let future = index.iter().any(|&p| has_future(&checked, p));
    let n = options.event;
    // The run reads the trace as `hindsight run` does (runs of repeated
    // records at once), up to the event (to the end with a future
    // operator), with the witness of the event's violations only.
    let session_options = SessionOptions {
        witness: false,
        witness_at: Some(n),
        until: (!future).then_some(n),
        all_witnesses: 0,
        satisfactions: false,
        stop_at_first: false,
        jobs: 1,
        time_decimals: decimals,
        ..options.session.clone()
    };
    let mut session = Session::from_plan(plan, text, session_options)
        .map_err(|e| WhyError::Run(e.to_string()))?;
    if let Some(c) = &options.cancel {
        session.set_cancel(c.clone());
    }
    let mut found = Found {
        index,
        event: n,
        violations: Vec::new(),
        error: None,
        events: Events::new(),
        expand: future,
    };
    let outcome = session.run(input, &mut found);
    if let Some(e) = outcome.error.as_ref().or(found.error.as_ref()) {
        return Err(WhyError::Run(e.to_string()));
    }
    if outcome.verdict == crate::session::Verdict::Interrupted {
        return Err(WhyError::Run("cancelled before the event was read".into()));
    }
    let mut events = std::mem::take(&mut found.events);
    if (events.len() as u64) < n || n == 0 {
        return Err(WhyError::NoEvent {
            asked: n,
            events: events.len() as u64,
        });
    }
    let consts = intern_consts(&checked, &mut events);
    let props: Vec<usize> = match chosen {
        Some(p) => vec![p],
        None => {
            let violated: Vec<usize> = (0..names.len())
                .filter(|&p| found.violations.iter().any(|v| v.0 == p))
                .collect();
            if violated.is_empty() {
                (0..names.len()).collect()
            } else {
                violated
            }
        }
    };
    props
        .into_iter()
        .map(|p| {
            let witness = found
                .violations
                .iter()
                .find(|v| v.0 == p)
                .map(|v| v.1.clone());
            explain(&checked, p, &events, &consts, n as usize, witness, options)
        })
        .collect()
}

/// Interns every constant of the specification (a constant may occur in no event).
pub fn intern_consts(
    checked: &Checked,
    events: &mut Events,
) -> std::collections::HashMap<String, ValueId> {
    let mut consts = std::collections::HashMap::new();
    for f in 0..checked.arena.len() {
        let form = checked.arena.form(FormId(f as u32));
        let terms: Vec<&Term> = match form {
            Form::Call { args, .. } => args.iter().collect(),
            Form::Cmp { right, .. } => vec![right],
            _ => Vec::new(),
        };
        for t in terms {
            if let Term::Const(c) = t {
                consts.insert(c.text.clone(), events.intern(c.text.as_bytes()));
            }
        }
    }
    consts
}

/// Explains property `prop`'s verdict at event `n` of `events`, for the
/// monitor's `witness` (`Some` when it reported a violation there) or the
/// values of `options.assign`.
pub fn explain(
    checked: &Checked,
    prop: usize,
    events: &Events,
    consts: &std::collections::HashMap<String, ValueId>,
    n: usize,
    witness: Option<Vec<(String, WitnessValue)>>,
    options: &WhyOptions,
) -> Result<Explanation, WhyError> {
    let property = &checked.props[prop];
    let name = property.name.name.clone();
    let consts: hashbrown::HashMap<String, ValueId> =
        consts.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let mut truth = Truth::new(&checked.arena, property, events, consts);
    truth.cancel = options.cancel.clone();
    let violated = witness.is_some();
    for (var, value) in witness.iter().flatten() {
        let id = match value {
            WitnessValue::Value(t) => events.id(t).unwrap_or(FRESH),
            WitnessValue::Unseen => FRESH,
        };
        truth.prefer.insert(var.clone(), id);
    }
    let holds = truth.holds(STATEMENT, property.body, &Vec::new(), n);
    if holds == violated && !has_future(checked, prop) {
        return Err(WhyError::Disagree {
            property: name,
            event: n as u64,
        });
    }
    let value_id = |text: &str| events.id(text.as_bytes()).unwrap_or(FRESH);
    let mut env: Env = Vec::new();
    let mut root = property.body;
    let assigned = !options.assign.is_empty();
    let mut prefer = HashMap::new();
    if assigned {
        let mut left: Vec<&(String, String)> = options.assign.iter().collect();
        let mut leading = Vec::new();
        while let Form::Quant(_, x, body) = checked.arena.form(root) {
            leading.push(x.name.clone());
            let Some(k) = left.iter().position(|(v, _)| *v == x.name) else {
                break;
            };
            env.push(Bound {
                name: x.name.clone(),
                value: value_id(&left[k].1),
                binder: Binder::Quant(STATEMENT, root),
            });
            left.remove(k);
            root = *body;
        }
        if let Some((v, _)) = left.first() {
            return Err(WhyError::Assign(format!(
                "--assign {v}=...: {v} is not one of the statement's leading quantified variables \
                 of property {name}, taken outermost first ({})",
                if leading.is_empty() {
                    "it has none".to_string()
                } else {
                    leading.join(", ")
                }
            )));
        }
    } else if let Some(w) = &witness {
        for (var, value) in w {
            let id = match value {
                WitnessValue::Value(t) => events.id(t).unwrap_or(FRESH),
                WitnessValue::Unseen => FRESH,
            };
            prefer.insert(var.clone(), id);
        }
    }
    let mut prover = Prover::new(&mut truth, options.max_nodes, prefer);
    let proof = prover.prove(STATEMENT, root, &env, n);
    let assignment = if assigned {
        env.iter()
            .map(|b| (b.name.clone(), text(events, b.value)))
            .collect()
    } else {
        leading_values(checked, events, &proof)
    };
    let proof = node(events, &proof);
    let cited = proof
        .cited()
        .into_iter()
        .map(|e| (e, events.show(e as usize)))
        .collect();
    Ok(Explanation {
        property: name,
        event: n as u64,
        line: events.line(n),
        event_text: events.show(n),
        violated,
        assignment,
        assigned,
        proof,
        cited,
    })
}

fn text(events: &Events, v: ValueId) -> Option<String> {
    events
        .text(v)
        .map(|t| String::from_utf8_lossy(t).into_owned())
}

/// The values the proof gives the statement's leading quantifiers, as far
/// as one value decides each.
fn leading_values(
    checked: &Checked,
    events: &Events,
    proof: &Proof,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut p = proof;
    // Not a quantifier that holds for every value, of which the proof
    // shows one (the others cite nothing, or were cut).
    while p.ctx == STATEMENT
        && matches!(checked.arena.form(p.form), Form::Quant(..))
        && p.one_value
        && let [child] = &p.children[..]
        && let Some(b) = child
            .env
            .iter()
            .find(|b| b.binder == Binder::Quant(STATEMENT, p.form))
    {
        out.push((b.name.clone(), text(events, b.value)));
        p = child;
    }
    out
}

/// A proof with its values as text.
fn node(events: &Events, p: &Proof) -> Node {
    Node {
        ctx: p.ctx,
        form: p.form,
        env: p
            .env
            .iter()
            .map(|b| (b.name.clone(), text(events, b.value), b.binder))
            .collect(),
        formula: p.formula.clone(),
        event: p.event as u64,
        holds: p.holds,
        reason: p.reason.clone(),
        events: p.cites.iter().map(|&e| e as u64).collect(),
        children: p.children.iter().map(|c| node(events, c)).collect(),
        cut: p.cut,
    }
}
