//! Rule calls: a rule's relation (the value of its body) with the rule's
//! parameters replaced by the call's arguments.

use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{Arg, NodeIx, Op};

impl PropMonitor {
    /// The rule's relation with its parameters replaced by the call's arguments.
    ///
    /// This is the simultaneous substitution `p_i := a_i`: a constant argument
    /// restricts its parameter to the constant's code; variable arguments,
    /// repeated or not, and even when they are themselves parameters of the
    /// rule, are substituted at once by a renaming.
    pub(super) fn rule_call(&self, space: &mut Space, n: NodeIx, rule: usize) -> Bdd {
        let relation = self.state.now[self.compiled.plan.rules[rule].body];
        self.rule_call_of(space, n, relation)
    }

    /// Rule call `n` applied to `relation` (a value of its rule's body).
    pub(super) fn rule_call_of(&self, space: &mut Space, n: NodeIx, relation: Bdd) -> Bdd {
        let constants = self.call_constants(space, n, relation);
        self.call_rename(space, n, constants)
    }

    /// `relation` restricted to the codes of the constant arguments of rule
    /// call `n` (as [`rule_call`](Self::rule_call) does).
    pub(super) fn call_constants(&self, space: &mut Space, n: NodeIx, relation: Bdd) -> Bdd {
        if self.state.call_consts[n].iter().all(Option::is_none) {
            return relation;
        }
        let Op::RuleCall { rule, args } = &self.compiled.plan.nodes[n].op else {
            return relation;
        };
        let rule_plan = &self.compiled.plan.rules[*rule];
        let mut restrict = Vec::new();
        for (i, (arg, &p)) in args.iter().zip(&rule_plan.params).enumerate() {
            if let Arg::Const(_) = arg
                && let Some(code) = self.state.call_consts[n].get(i).copied().flatten()
            {
                self.code_cube(p, code, &mut restrict);
            }
        }
        if restrict.is_empty() {
            relation
        } else {
            space.restrict(relation, &restrict)
        }
    }

    /// `relation` with the parameters of rule call `n` renamed to its
    /// arguments (as [`rule_call`](Self::rule_call) does).
    pub(super) fn call_rename(&self, space: &mut Space, n: NodeIx, relation: Bdd) -> Bdd {
        match self.consts.call_renaming[n] {
            Some(renaming) => space.rename_by(relation, renaming),
            None => relation,
        }
    }
}
