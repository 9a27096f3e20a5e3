//! The BDDs a property monitor keeps from one event to the next, named for
//! profiles (see [`PropMonitor::kept_summaries`](super::PropMonitor::kept_summaries)).
//!
//! What a monitor keeps is fixed by its plan: the previous value of every
//! node read under `@` and of every `S` node, the state of every timed
//! operator, the sets of seen values of `exists`/`forall`/compared variables
//! and the relations of comparisons; and, at each event, the relation of
//! every rule. Node numbers `#n` are those of `hindsight compile`.

use crate::plan::{NodeIx, Op, PropPlan, VarIx};

/// One BDD (or group of BDDs) a property monitor keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeptSummary {
    /// The relation of a rule (index into [`PropPlan::rules`]): its body's
    /// value at the last event.
    Relation(usize),
    /// The previous value of a node: an `S` node, or a node read under `@`
    /// (unless it is a rule body: then it is the [`KeptSummary::Relation`]).
    Pre(NodeIx),
    /// The state of a timed operator (`S[a,b]`, `S[<=d]`, `S[>d]`, `Z[<=d]`).
    Timed(NodeIx),
    /// The set of values seen for a variable.
    Seen(VarIx),
    /// The pairs of seen values that satisfy a comparison.
    Comparison(NodeIx),
}

impl KeptSummary {
    /// A short readable name: `rule closed`, `S#3 (x)`, `@#4 !closed(x)` (the
    /// formula as written in `source`, when given and short, otherwise its
    /// free variables), `S[<=5]#7 (m)`, `seen t`, `cmp#9 t < u`.
    pub fn label(&self, plan: &PropPlan, source: Option<&str>) -> String {
        let free = |n: NodeIx| {
            let names: Vec<&str> = plan.nodes[n]
                .free
                .iter()
                .map(|&v| plan.vars[v].label.as_str())
                .collect();
            format!("({})", names.join(", "))
        };
        match *self {
            KeptSummary::Relation(r) => format!("rule {}", plan.rules[r].name),
            KeptSummary::Pre(n) => match plan.nodes[n].op {
                Op::Since(..) => format!("S#{n} {}", free(n)),
                _ => {
                    let span = plan.nodes[n].span;
                    let text = source
                        .and_then(|s| s.get(span.start..span.end))
                        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                        .filter(|t| !t.is_empty() && t.chars().count() <= 30);
                    match text {
                        Some(t) => format!("@#{n} {t}"),
                        None => format!("@#{n} {}", free(n)),
                    }
                }
            },
            KeptSummary::Timed(n) => match &plan.nodes[n].op {
                Op::SinceTimed(t, ..) => format!("S{t}#{n} {}", free(n)),
                Op::Zince(d, ..) => format!("Z[<={d}]#{n} {}", free(n)),
                _ => format!("timed#{n} {}", free(n)),
            },
            KeptSummary::Seen(v) => format!("seen {}", plan.vars[v].label),
            KeptSummary::Comparison(n) => format!("cmp#{n} {}", plan.describe(n)),
        }
    }
}
