//! Read-only questions about a function: walks over its nodes that build
//! no node (size, support, evaluation, constancy under a partial
//! assignment, one satisfying assignment).

use super::node::{FALSE, Id, Node, TERMINAL, TRUE};
use super::table::Manager;
use crate::bdd::BddVar;

impl Manager {
    /// Starts a traversal: returns its stamp.
    pub(super) fn new_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Calls `visit` once on every node reachable from `f` (terminals included);
    /// `visit` returns whether to descend into the node's children.
    pub(super) fn walk(&mut self, f: Id, mut visit: impl FnMut(Node) -> bool) {
        let stamp = self.new_stamp();
        let mut stack = vec![f];
        self.visited[f as usize] = stamp;
        while let Some(g) = stack.pop() {
            let n = self.nodes[g as usize];
            if visit(n) && g > TRUE {
                for child in [n.lo, n.hi] {
                    if self.visited[child as usize] != stamp {
                        self.visited[child as usize] = stamp;
                        stack.push(child);
                    }
                }
            }
        }
    }
}

impl Manager {
    /// Number of nodes reachable from `f`, terminals included.
    pub(super) fn size(&mut self, f: Id) -> usize {
        let mut count = 0;
        self.walk(f, |_| {
            count += 1;
            true
        });
        count
    }

    /// The variables `f` depends on, in order.
    pub(super) fn support(&mut self, f: Id) -> Vec<BddVar> {
        let mut vars = Vec::new();
        self.walk(f, |n| {
            if n.var != TERMINAL {
                vars.push(BddVar(n.var));
            }
            true
        });
        vars.sort_unstable();
        vars.dedup();
        vars
    }

    /// Whether `f` depends on `var`.
    pub(super) fn depends_on(&mut self, f: Id, var: BddVar) -> bool {
        let mut found = false;
        self.walk(f, |n| {
            found |= n.var == var.0;
            // Variables below a node's level cannot be above it further down.
            !found && n.var < var.0
        });
        found
    }

    /// The value of `f` under the given literals (the last value of a
    /// variable counts; every other variable false).
#[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    pub(super) fn eval(&self, mut f: Id, lits: &[(BddVar, bool)]) -> bool {
        while f > TRUE {
            let n = self.node(f);
            let value = lits
                .iter()
                .rev()
                .find(|(v, _)| v.0 == n.var)
                .is_some_and(|&(_, b)| b);
            f = if value { n.hi } else { n.lo };
        }
        f == TRUE
    }

    /// The value of `f` under `values[v]` for each variable `v` (false
    /// beyond the end): a walk down one path.
    pub(super) fn eval_bits(&self, mut f: Id, values: &[bool]) -> bool {
        while f > TRUE {
            let n = self.node(f);
            f = if values.get(n.var as usize).copied().unwrap_or(false) {
                n.hi
            } else {
                n.lo
            };
        }
        f == TRUE
    }

    /// Whether `f` is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed: a search of the paths that agree with
    /// `fixed`, which stops at the first leaf that is not `value` and builds
    /// no node.
    pub(super) fn constant_under(&mut self, f: Id, fixed: &[Option<bool>], value: bool) -> bool {
        let stamp = self.new_stamp();
        let other = if value { FALSE } else { TRUE };
        // The walk's stack is kept for the next one (one walk per event
        // in point evaluation).
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(f);
        let result = self.constant_walk(&mut stack, fixed, stamp, other);
        self.stack = stack;
        result
    }

    fn constant_walk(
        &mut self,
        stack: &mut Vec<Id>,
        fixed: &[Option<bool>],
        stamp: u32,
        other: Id,
    ) -> bool {
        while let Some(f) = stack.pop() {
            if f == other {
                return false;
            }
            if f <= TRUE || self.visited[f as usize] == stamp {
                continue;
            }
            self.visited[f as usize] = stamp;
            let n = self.node(f);
            match fixed.get(n.var as usize).copied().flatten() {
                Some(true) => stack.push(n.hi),
                Some(false) => stack.push(n.lo),
                None => stack.extend([n.lo, n.hi]),
            }
        }
        true
    }

    /// The values of `vars` in the lexicographically first satisfying
    /// valuation of `f`, or `None` if `f` is false.
    /// The satisfying paths of `f` as cubes, false branch first, appended
    /// to `lits` with their ends in `ends`; `false` past `limit` of them.
    pub(super) fn cubes(
        &mut self,
        f: Id,
        limit: usize,
        lits: &mut Vec<(BddVar, bool)>,
        ends: &mut Vec<usize>,
    ) -> bool {
        lits.clear();
        ends.clear();
        // Depth-first, the false branch first, with one path of literals:
        // a node is entered with the path's length at its parent.
        let mut path = std::mem::take(&mut self.cube_path);
        let mut stack = std::mem::take(&mut self.cube_stack);
        path.clear();
        stack.clear();
        stack.push((f, 0, false));
        let mut complete = true;
        'paths: while let Some((mut n, depth, value)) = stack.pop() {
            path.truncate(depth);
            if depth > 0
                && let Some(last) = path.last_mut()
            {
                last.1 = value;
            }
            // Down the false branch, the true one left for later: a node
            // with one branch false (a chain, as a set of one tuple is)
            // needs nothing stacked.
            loop {
                match n {
                    FALSE => break,
                    TRUE => {
                        if ends.len() == limit {
                            complete = false;
                            break 'paths;
                        }
                        lits.extend_from_slice(&path);
                        ends.push(lits.len());
                        break;
                    }
                    _ => {
                        let node = self.node(n);
                        let var = BddVar(node.var);
                        if node.lo == FALSE {
                            path.push((var, true));
                            n = node.hi;
                            continue;
                        }
                        path.push((var, false));
                        if node.hi != FALSE {
                            stack.push((node.hi, path.len(), true));
                        }
                        n = node.lo;
                    }
                }
            }
        }
        self.cube_path = path;
        self.cube_stack = stack;
        complete
    }

    pub(super) fn pick(&self, mut f: Id, vars: &[BddVar]) -> Option<Vec<bool>> {
        if f == FALSE {
            return None;
        }
        let mut ones = Vec::new();
        while f > TRUE {
            let n = self.node(f);
            if n.lo != FALSE {
                f = n.lo;
            } else {
                ones.push(n.var);
                f = n.hi;
            }
        }
        Some(vars.iter().map(|v| ones.contains(&v.0)).collect())
    }
}
