//! The formula DAG of a plan in Graphviz `dot` syntax.

use std::fmt::Write as _;

use super::{Op, Plan};

impl Plan {
    /// The subformula DAG of every property as one Graphviz digraph: solid
    /// edges are same-event dependencies, dashed edges read the previous event.
    pub fn to_dot(&self) -> String {
        let mut out =
            String::from("digraph hindsight {\n  node [shape=box, fontname=\"monospace\"];\n");
        for (p, prop) in self.props.iter().enumerate() {
            let _ = writeln!(
                out,
                "  subgraph cluster_{p} {{\n    label={:?};",
                format!("property {}", prop.name)
            );
            for (i, node) in prop.nodes.iter().enumerate() {
                let mut label = format!("n{i}: {}", prop.describe(i));
                if i == prop.root {
                    label.push_str("\n(statement)");
                }
                let _ = writeln!(out, "    p{p}n{i} [label={label:?}];");
                match &node.op {
                    Op::Prev(a) => {
                        let _ = writeln!(out, "    p{p}n{i} -> p{p}n{a} [style=dashed];");
                    }
                    Op::RuleCall { rule, .. } => {
                        let _ = writeln!(
                            out,
                            "    p{p}n{i} -> p{p}n{} [color=blue];",
                            prop.rules[*rule].body
                        );
                    }
                    op => {
                        for c in op.same_step_children() {
                            let _ = writeln!(out, "    p{p}n{i} -> p{p}n{c};");
                        }
                    }
                }
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
        out
    }
}
