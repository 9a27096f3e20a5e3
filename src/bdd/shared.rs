//! hindsight's own BDD package: shared nodes, a unique table and a persistent
//! operation cache.
//!
//! All BDDs of one [`Space`] live in one node table, so equal functions are
//! the same node and comparing two BDDs is comparing two numbers. Operations
//! remember their results in a lossy cache that survives from one operation
//! to the next: when a summary changes along one path only, recomputing an
//! operation on it finds every untouched sub-BDD in the cache and costs time
//! proportional to the changed path, not to the summary. This is what keeps
//! the per-event cost of the monitor independent of the size of its summaries.
//!
//! Handles ([`Bdd`]) count references to their root node; nodes that no handle
//! reaches are reclaimed by a mark-and-sweep collection, which runs only at
//! the entry of an operation (never in the middle of one) once the table has
//! doubled since the last collection. A collection keeps the cached results
//! that involve only surviving nodes.

use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use hashbrown::{HashMap, HashTable};

use super::{BddVar, MAX_VARS};

type Id = u32;
const FALSE: Id = 0;
const TRUE: Id = 1;
/// The level of the two terminal nodes: below every variable.
const TERMINAL: u16 = u16::MAX;
/// The level of a node on the free list.
const FREED: u16 = u16::MAX - 1;
/// Collections start once the table holds this many nodes.
const MIN_GC_NODES: usize = 1 << 18;
/// Cache entries per node in the table, up to [`MAX_CACHE`]: results about
/// every node of the summaries must survive from one event to the next.
const CACHE_PER_NODE: usize = 2;
const MIN_CACHE: usize = 1 << 15;
const MAX_CACHE: usize = 1 << 22;
/// Every this many levels, recursion checks that [`RED_ZONE`] bytes of stack
/// remain, and continues on a new stack of [`NEW_STACK`] bytes if not.
const STACK_CHECK_EVERY: u32 = 128;
const RED_ZONE: usize = 256 * 1024;
const NEW_STACK: usize = 8 * 1024 * 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Node {
    var: u16,
    lo: Id,
    hi: Id,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u32)]
enum Op {
    Empty = 0,
    And,
    Or,
    Xor,
    Iff,
    AndNot,
    Imp,
    Not,
    Ite,
    Exists,
    Forall,
    AndExists,
    Restrict,
    Rename,
}

impl Op {
    fn commutative(self) -> bool {
        matches!(self, Op::And | Op::Or | Op::Xor | Op::Iff)
    }
}

#[derive(Clone, Copy)]
struct Entry {
    op: Op,
    a: Id,
    b: Id,
    c: Id,
    r: Id,
}

const EMPTY: Entry = Entry {
    op: Op::Empty,
    a: 0,
    b: 0,
    c: 0,
    r: 0,
};

/// The node table, unique table and cache shared by the BDDs of a space.
struct Manager {
    nodes: Vec<Node>,
    /// Per node: how many handles point at it.
    refs: Vec<u32>,
    free: Vec<Id>,
    unique: HashTable<Id>,
    cache: Vec<Entry>,
    /// Node count that triggers the next collection.
    gc_at: usize,
    /// Interned renamings: the target of every variable (identity beyond the end).
    maps: HashMap<Vec<(u16, u16)>, Id>,
    map_targets: Vec<Vec<u16>>,
    /// Scratch for traversals: the stamp of the traversal that last visited a node.
    visited: Vec<u32>,
    stamp: u32,
    collections: u64,
}

fn mix(a: u64, b: u64, c: u64) -> u64 {
    let h = a.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(21)
        ^ c.wrapping_mul(0x1656_67B1_9E37_79F9).rotate_left(42);
    let h = h ^ (h >> 31);
    h.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ (h >> 29)
}

fn node_hash(n: &Node) -> u64 {
    mix(n.lo as u64, n.hi as u64, n.var as u64)
}

impl Manager {
    fn new() -> Manager {
        let terminal = |_| Node {
            var: TERMINAL,
            lo: 0,
            hi: 0,
        };
        Manager {
            nodes: vec![terminal(0), terminal(1)],
            refs: vec![0, 0],
            free: Vec::new(),
            unique: HashTable::new(),
            cache: vec![EMPTY; MIN_CACHE],
            gc_at: MIN_GC_NODES,
            maps: HashMap::new(),
            map_targets: Vec::new(),
            visited: vec![0, 0],
            stamp: 0,
            collections: 0,
        }
    }

    fn level(&self, f: Id) -> u16 {
        self.nodes[f as usize].var
    }

    fn node(&self, f: Id) -> Node {
        self.nodes[f as usize]
    }

    /// The cofactors of `f` at level `v` (f itself twice when f is below v).
    fn cofactors(&self, f: Id, v: u16) -> (Id, Id) {
        let n = self.node(f);
        if n.var == v { (n.lo, n.hi) } else { (f, f) }
    }

    /// The node `if var then hi else lo`, shared if it exists.
    fn mk(&mut self, var: u16, lo: Id, hi: Id) -> Id {
        if lo == hi {
            return lo;
        }
        debug_assert!(var < self.level(lo) && var < self.level(hi));
        let node = Node { var, lo, hi };
        let hash = node_hash(&node);
        let nodes = &self.nodes;
        if let Some(&id) = self.unique.find(hash, |&id| nodes[id as usize] == node) {
            return id;
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                let id = self.nodes.len() as Id;
                self.nodes.push(node);
                self.refs.push(0);
                self.visited.push(0);
                // Grow (never shrink) the cache with the table, keeping its
                // entries: results about every node of the summaries must
                // survive from one event to the next.
                if self.nodes.len() * CACHE_PER_NODE > 2 * self.cache.len()
                    && self.cache.len() < MAX_CACHE
                {
                    self.grow_cache();
                }
                id
            }
        };
        let nodes = &self.nodes;
        self.unique
            .insert_unique(hash, id, |&i| node_hash(&nodes[i as usize]));
        id
    }

    /// Doubles the cache, keeping its entries.
    fn grow_cache(&mut self) {
        let doubled = vec![EMPTY; 2 * self.cache.len()];
        let old = std::mem::replace(&mut self.cache, doubled);
        for e in old {
            if e.op != Op::Empty {
                self.remember(e.op, e.a, e.b, e.c, e.r);
            }
        }
    }

    fn slot(&self, op: Op, a: Id, b: Id, c: Id) -> usize {
        (mix(a as u64 ^ ((op as u64) << 32), b as u64, c as u64) as usize) & (self.cache.len() - 1)
    }

    fn cached(&self, op: Op, a: Id, b: Id, c: Id) -> Option<Id> {
        let e = &self.cache[self.slot(op, a, b, c)];
        (e.op == op && e.a == a && e.b == b && e.c == c).then_some(e.r)
    }

    fn remember(&mut self, op: Op, a: Id, b: Id, c: Id, r: Id) {
        let i = self.slot(op, a, b, c);
        self.cache[i] = Entry { op, a, b, c, r };
    }

    fn live_nodes(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Collects unreachable nodes if the table has grown enough since the last time.
    fn maybe_collect(&mut self) {
        if self.live_nodes() >= self.gc_at {
            self.collect();
        }
    }

    /// Mark and sweep: keeps every node reachable from a handle.
    fn collect(&mut self) {
        self.collections += 1;
        let mut marked = vec![false; self.nodes.len()];
        marked[0] = true;
        marked[1] = true;
        let mut stack: Vec<Id> = Vec::new();
        for (id, &r) in self.refs.iter().enumerate() {
            if r > 0 && !marked[id] {
                marked[id] = true;
                stack.push(id as Id);
                while let Some(f) = stack.pop() {
                    let n = self.nodes[f as usize];
                    for child in [n.lo, n.hi] {
                        if !marked[child as usize] {
                            marked[child as usize] = true;
                            stack.push(child);
                        }
                    }
                }
            }
        }
        self.unique.retain(|&mut id| marked[id as usize]);
        self.free.clear();
        for (id, &m) in marked.iter().enumerate().skip(2) {
            if !m {
                self.nodes[id].var = FREED;
                self.free.push(id as Id);
            }
        }
        // Reuse low ids first: they are popped from the end.
        self.free.reverse();
        let live = self.live_nodes();
        self.gc_at = (2 * live).max(MIN_GC_NODES);
        // Entries about live nodes stay valid (a live node keeps its identity);
        // the others go. The cache grows with the table and never shrinks.
        let wanted = (CACHE_PER_NODE * live)
            .next_power_of_two()
            .clamp(MIN_CACHE, MAX_CACHE)
            .max(self.cache.len());
        let valid = |e: &Entry| {
            e.op != Op::Empty
                && marked[e.a as usize]
                && marked[e.r as usize]
                && (e.op == Op::Rename || marked[e.b as usize])
                && marked[e.c as usize]
        };
        if wanted == self.cache.len() {
            // In place: no second cache in memory at once.
            for e in &mut self.cache {
                if !valid(e) {
                    *e = EMPTY;
                }
            }
        } else {
            let old = std::mem::replace(&mut self.cache, vec![EMPTY; wanted]);
            for e in old {
                if valid(&e) {
                    self.remember(e.op, e.a, e.b, e.c, e.r);
                }
            }
        }
    }

    fn not(&mut self, f: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.not(f, depth + 1));
        }
        match f {
            FALSE => return TRUE,
            TRUE => return FALSE,
            _ => {}
        }
        if let Some(r) = self.cached(Op::Not, f, 0, 0) {
            return r;
        }
        let n = self.node(f);
        let lo = self.not(n.lo, depth + 1);
        let hi = self.not(n.hi, depth + 1);
        let r = self.mk(n.var, lo, hi);
        self.remember(Op::Not, f, 0, 0, r);
        r
    }

    /// Whether a recursion at `depth` should continue on a grown stack.
    fn deep(depth: u32) -> bool {
        depth % STACK_CHECK_EVERY == STACK_CHECK_EVERY - 1
    }

    /// The result of a binary operation when one operand decides it.
    fn terminal(&mut self, op: Op, a: Id, b: Id, depth: u32) -> Option<Id> {
        let r = match op {
            Op::And => match (a, b) {
                (FALSE, _) | (_, FALSE) => FALSE,
                (TRUE, x) | (x, TRUE) => x,
                _ if a == b => a,
                _ => return None,
            },
            Op::Or => match (a, b) {
                (TRUE, _) | (_, TRUE) => TRUE,
                (FALSE, x) | (x, FALSE) => x,
                _ if a == b => a,
                _ => return None,
            },
            Op::Xor => match (a, b) {
                (FALSE, x) | (x, FALSE) => x,
                _ if a == b => FALSE,
                (TRUE, x) | (x, TRUE) => self.not(x, depth),
                _ => return None,
            },
            Op::Iff => match (a, b) {
                (TRUE, x) | (x, TRUE) => x,
                _ if a == b => TRUE,
                (FALSE, x) | (x, FALSE) => self.not(x, depth),
                _ => return None,
            },
            Op::AndNot => match (a, b) {
                (FALSE, _) | (_, TRUE) => FALSE,
                (x, FALSE) => x,
                _ if a == b => FALSE,
                (TRUE, x) => self.not(x, depth),
                _ => return None,
            },
            Op::Imp => match (a, b) {
                (FALSE, _) | (_, TRUE) => TRUE,
                (TRUE, x) => x,
                _ if a == b => TRUE,
                (x, FALSE) => self.not(x, depth),
                _ => return None,
            },
            _ => unreachable!("not a binary operation: {op:?}"),
        };
        Some(r)
    }

    fn apply(&mut self, op: Op, a: Id, b: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.apply(op, a, b, depth + 1));
        }
        if let Some(r) = self.terminal(op, a, b, depth) {
            return r;
        }
        let (a, b) = if op.commutative() && a > b {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(r) = self.cached(op, a, b, 0) {
            return r;
        }
        let v = self.level(a).min(self.level(b));
        let (a0, a1) = self.cofactors(a, v);
        let (b0, b1) = self.cofactors(b, v);
        let lo = self.apply(op, a0, b0, depth + 1);
        let hi = self.apply(op, a1, b1, depth + 1);
        let r = self.mk(v, lo, hi);
        self.remember(op, a, b, 0, r);
        r
    }

    fn ite(&mut self, f: Id, g: Id, h: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.ite(f, g, h, depth + 1));
        }
        match (f, g, h) {
            (TRUE, _, _) => return g,
            (FALSE, _, _) => return h,
            _ if g == h => return g,
            (_, TRUE, FALSE) => return f,
            (_, FALSE, TRUE) => return self.not(f, depth),
            (_, TRUE, _) => return self.apply(Op::Or, f, h, depth),
            (_, FALSE, _) => return self.apply(Op::AndNot, h, f, depth),
            (_, _, FALSE) => return self.apply(Op::And, f, g, depth),
            (_, _, TRUE) => return self.apply(Op::Imp, f, g, depth),
            _ => {}
        }
        if let Some(r) = self.cached(Op::Ite, f, g, h) {
            return r;
        }
        let v = self.level(f).min(self.level(g)).min(self.level(h));
        let (f0, f1) = self.cofactors(f, v);
        let (g0, g1) = self.cofactors(g, v);
        let (h0, h1) = self.cofactors(h, v);
        let lo = self.ite(f0, g0, h0, depth + 1);
        let hi = self.ite(f1, g1, h1, depth + 1);
        let r = self.mk(v, lo, hi);
        self.remember(Op::Ite, f, g, h, r);
        r
    }

    /// A cube node: the conjunction of the literals, sorted and deduplicated.
    /// Conflicting literals give false.
    fn cube(&mut self, lits: &[(BddVar, bool)]) -> Id {
        // Codes come bit by bit in one direction: no sorting needed then.
        if lits.windows(2).all(|w| w[0].0 > w[1].0) {
            return self.cube_bottom_up(lits.iter().map(|&(v, b)| (v.0, b)));
        }
        if lits.windows(2).all(|w| w[0].0 < w[1].0) {
            return self.cube_bottom_up(lits.iter().rev().map(|&(v, b)| (v.0, b)));
        }
        let mut sorted: Vec<(u16, bool)> = lits.iter().map(|&(v, b)| (v.0, b)).collect();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
            return FALSE;
        }
        self.cube_bottom_up(sorted.into_iter().rev())
    }

    /// The cube of distinct literals given from the bottom variable up.
    fn cube_bottom_up(&mut self, lits: impl Iterator<Item = (u16, bool)>) -> Id {
        let mut r = TRUE;
        for (v, b) in lits {
            r = if b {
                self.mk(v, FALSE, r)
            } else {
                self.mk(v, r, FALSE)
            };
        }
        r
    }

    /// The rest of a cube below its top literal.
    fn cube_next(&self, c: Id) -> Id {
        let n = self.node(c);
        if n.lo == FALSE { n.hi } else { n.lo }
    }

    /// Drops the literals of cube `c` above level `v`.
    fn cube_from(&self, mut c: Id, v: u16) -> Id {
        while c != TRUE && self.level(c) < v {
            c = self.cube_next(c);
        }
        c
    }

    /// `∃ c . f` (`forall` false) or `∀ c . f` (`forall` true), `c` a positive cube.
    fn quantify(&mut self, f: Id, c: Id, forall: bool, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.quantify(f, c, forall, depth + 1)
            });
        }
        if f <= TRUE {
            return f;
        }
        let v = self.level(f);
        let c = self.cube_from(c, v);
        if c == TRUE {
            return f;
        }
        let op = if forall { Op::Forall } else { Op::Exists };
        if let Some(r) = self.cached(op, f, c, 0) {
            return r;
        }
        let n = self.node(f);
        let r = if self.level(c) == v {
            let rest = self.cube_next(c);
            let lo = self.quantify(n.lo, rest, forall, depth + 1);
            let decided = if forall { FALSE } else { TRUE };
            if lo == decided {
                decided
            } else {
                let hi = self.quantify(n.hi, rest, forall, depth + 1);
                let join = if forall { Op::And } else { Op::Or };
                self.apply(join, lo, hi, depth + 1)
            }
        } else {
            let lo = self.quantify(n.lo, c, forall, depth + 1);
            let hi = self.quantify(n.hi, c, forall, depth + 1);
            self.mk(v, lo, hi)
        };
        self.remember(op, f, c, 0, r);
        r
    }

    /// `∃ c . (f ∧ g)` without building `f ∧ g`.
    fn and_exists(&mut self, f: Id, g: Id, c: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.and_exists(f, g, c, depth + 1)
            });
        }
        if f == FALSE || g == FALSE {
            return FALSE;
        }
        if f == TRUE || f == g {
            return self.quantify(g, c, false, depth);
        }
        if g == TRUE {
            return self.quantify(f, c, false, depth);
        }
        let v = self.level(f).min(self.level(g));
        let c = self.cube_from(c, v);
        if c == TRUE {
            return self.apply(Op::And, f, g, depth);
        }
        let (f, g) = if f > g { (g, f) } else { (f, g) };
        if let Some(r) = self.cached(Op::AndExists, f, g, c) {
            return r;
        }
        let (f0, f1) = self.cofactors(f, v);
        let (g0, g1) = self.cofactors(g, v);
        let r = if self.level(c) == v {
            let rest = self.cube_next(c);
            let lo = self.and_exists(f0, g0, rest, depth + 1);
            if lo == TRUE {
                TRUE
            } else {
                let hi = self.and_exists(f1, g1, rest, depth + 1);
                self.apply(Op::Or, lo, hi, depth + 1)
            }
        } else {
            let lo = self.and_exists(f0, g0, c, depth + 1);
            let hi = self.and_exists(f1, g1, c, depth + 1);
            self.mk(v, lo, hi)
        };
        self.remember(Op::AndExists, f, g, c, r);
        r
    }

    /// The cofactor of `f` for the literals of cube `c`.
    fn restrict(&mut self, f: Id, c: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.restrict(f, c, depth + 1));
        }
        if f <= TRUE {
            return f;
        }
        let v = self.level(f);
        let c = self.cube_from(c, v);
        if c == TRUE {
            return f;
        }
        if let Some(r) = self.cached(Op::Restrict, f, c, 0) {
            return r;
        }
        let n = self.node(f);
        let r = if self.level(c) == v {
            let positive = self.node(c).lo == FALSE;
            let rest = self.cube_next(c);
            let child = if positive { n.hi } else { n.lo };
            self.restrict(child, rest, depth + 1)
        } else {
            let lo = self.restrict(n.lo, c, depth + 1);
            let hi = self.restrict(n.hi, c, depth + 1);
            self.mk(v, lo, hi)
        };
        self.remember(Op::Restrict, f, c, 0, r);
        r
    }

    /// The id of a renaming, interned so that its results can be cached.
    fn intern_map(&mut self, pairs: &[(BddVar, BddVar)]) -> Id {
        let mut key: Vec<(u16, u16)> = pairs
            .iter()
            .filter(|(f, t)| f != t)
            .map(|&(f, t)| (f.0, t.0))
            .collect();
        key.sort_unstable();
        key.dedup_by_key(|p| p.0);
        if let Some(&id) = self.maps.get(&key) {
            return id;
        }
        let len = key.last().map_or(0, |p| p.0 as usize + 1);
        let mut targets: Vec<u16> = (0..len as u16).collect();
        for &(f, t) in &key {
            targets[f as usize] = t;
        }
        let id = self.map_targets.len() as Id;
        self.map_targets.push(targets);
        self.maps.insert(key, id);
        id
    }

    /// Simultaneous substitution: `f` with every variable replaced by its target.
    fn rename(&mut self, f: Id, map: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.rename(f, map, depth + 1));
        }
        if f <= TRUE {
            return f;
        }
        if let Some(r) = self.cached(Op::Rename, f, map, 0) {
            return r;
        }
        let n = self.node(f);
        let lo = self.rename(n.lo, map, depth + 1);
        let hi = self.rename(n.hi, map, depth + 1);
        let targets = &self.map_targets[map as usize];
        let t = targets.get(n.var as usize).copied().unwrap_or(n.var);
        // f = (v ∧ hi) ∨ (¬v ∧ lo), so f[σ] = ite(σ(v), hi[σ], lo[σ]); when σ(v)
        // is above both substituted children that is a single node.
        let r = if t < self.level(lo) && t < self.level(hi) {
            self.mk(t, lo, hi)
        } else {
            let var = self.mk(t, FALSE, TRUE);
            self.ite(var, hi, lo, depth + 1)
        };
        self.remember(Op::Rename, f, map, 0, r);
        r
    }

    /// Starts a traversal: returns its stamp.
    fn new_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Calls `visit` once on every node reachable from `f` (terminals included);
    /// `visit` returns whether to descend into the node's children.
    fn walk(&mut self, f: Id, mut visit: impl FnMut(Node) -> bool) {
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

/// A universe of BDD variables; every [`Bdd`] of one space is built over it
/// and shares its nodes. Cloning a space shares its node table.
#[derive(Clone)]
pub struct Space {
    num_vars: usize,
    m: Rc<RefCell<Manager>>,
}

impl fmt::Debug for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.m.borrow();
        f.debug_struct("Space")
            .field("num_vars", &self.num_vars)
            .field("live_nodes", &m.live_nodes())
            .finish()
    }
}

/// A boolean function over the variables of a [`Space`]: a counted reference
/// to a node of the space's table.
pub struct Bdd {
    m: Rc<RefCell<Manager>>,
    id: Id,
}

impl Space {
    /// A space of `num_vars` variables, ordered by index (0 at the top).
    pub fn new(num_vars: usize) -> Space {
        Space {
            num_vars: num_vars.min(MAX_VARS),
            m: Rc::new(RefCell::new(Manager::new())),
        }
    }

    /// Number of variables.
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// A space of `num_vars` variables sharing this space's node table (its
    /// BDDs must not be combined with this space's: variables are numbered
    /// independently).
    pub fn sharing(&self, num_vars: usize) -> Space {
        Space {
            num_vars: num_vars.min(MAX_VARS),
            m: self.m.clone(),
        }
    }

    /// Nodes in use in the table, and collections so far (for statistics).
    pub fn table_stats(&self) -> (usize, u64) {
        let m = self.m.borrow();
        (m.live_nodes(), m.collections)
    }

    fn handle(&self, m: &mut Manager, id: Id) -> Bdd {
        handle(&self.m, m, id)
    }

    /// A variable set in the space of `bdd`.
    fn var_set_of(bdd: &Bdd, vars: &[BddVar]) -> VarSet {
        let space = Space {
            num_vars: 0,
            m: bdd.m.clone(),
        };
        space.var_set(vars)
    }

    /// The constant true function.
    pub fn tt(&self) -> Bdd {
        Bdd {
            m: self.m.clone(),
            id: TRUE,
        }
    }

    /// The constant false function.
    pub fn ff(&self) -> Bdd {
        Bdd {
            m: self.m.clone(),
            id: FALSE,
        }
    }

    /// The constant `value`.
    pub fn constant(&self, value: bool) -> Bdd {
        if value { self.tt() } else { self.ff() }
    }

    /// The literal `var = value`.
    pub fn lit(&self, var: BddVar, value: bool) -> Bdd {
        self.cube(&[(var, value)])
    }

    /// The conjunction of the given literals (a cube).
    pub fn cube(&self, lits: &[(BddVar, bool)]) -> Bdd {
        let mut m = self.m.borrow_mut();
        m.maybe_collect();
        let id = m.cube(lits);
        self.handle(&mut m, id)
    }

    /// A set of variables to quantify over, prepared once for many operations.
    pub fn var_set(&self, vars: &[BddVar]) -> VarSet {
        let lits: Vec<(BddVar, bool)> = vars.iter().map(|&v| (v, true)).collect();
        VarSet(self.cube(&lits))
    }

    /// A simultaneous substitution (see [`Bdd::rename`]), prepared once for
    /// many operations; its results are cached across operations.
    pub fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        Renaming(self.m.borrow_mut().intern_map(pairs))
    }
}

/// A set of variables prepared by [`Space::var_set`]: a cube of positive literals.
#[derive(Clone, Debug)]
pub struct VarSet(Bdd);

/// A substitution prepared by [`Space::renaming`].
#[derive(Clone, Copy, Debug)]
pub struct Renaming(Id);

/// A new handle on node `id`.
fn handle(rc: &Rc<RefCell<Manager>>, m: &mut Manager, id: Id) -> Bdd {
    if id > TRUE {
        m.refs[id as usize] += 1;
    }
    Bdd { m: rc.clone(), id }
}

impl Clone for Bdd {
    fn clone(&self) -> Bdd {
        if self.id > TRUE {
            self.m.borrow_mut().refs[self.id as usize] += 1;
        }
        Bdd {
            m: self.m.clone(),
            id: self.id,
        }
    }
}

impl Drop for Bdd {
    fn drop(&mut self) {
        if self.id > TRUE {
            // The table is never borrowed while a handle is dropped; if it
            // were, the node would merely stay alive.
            if let Ok(mut m) = self.m.try_borrow_mut() {
                m.refs[self.id as usize] -= 1;
            }
        }
    }
}

impl PartialEq for Bdd {
    fn eq(&self, other: &Bdd) -> bool {
        self.id == other.id && Rc::ptr_eq(&self.m, &other.m)
    }
}

impl Eq for Bdd {}

impl Hash for Bdd {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl fmt::Debug for Bdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bdd(#{}, {} nodes)", self.id, self.size())
    }
}

impl Bdd {
    /// Runs an operation on the table and wraps its result.
    fn op(&self, f: impl FnOnce(&mut Manager) -> Id) -> Bdd {
        let mut m = self.m.borrow_mut();
        m.maybe_collect();
        let id = f(&mut m);
        handle(&self.m, &mut m, id)
    }

    fn binary(&self, op: Op, other: &Bdd) -> Bdd {
        debug_assert!(Rc::ptr_eq(&self.m, &other.m), "BDDs of different spaces");
        self.op(|m| m.apply(op, self.id, other.id, 0))
    }

    /// `self ∧ other`
    pub fn and(&self, other: &Bdd) -> Bdd {
        self.binary(Op::And, other)
    }

    /// `self ∨ other`
    pub fn or(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Or, other)
    }

    /// `¬self`
    pub fn not(&self) -> Bdd {
        self.op(|m| m.not(self.id, 0))
    }

    /// `self → other`
    pub fn imp(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Imp, other)
    }

    /// `self ↔ other`
    pub fn iff(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Iff, other)
    }

    /// `self ⊕ other`
    pub fn xor(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Xor, other)
    }

    /// `self ∧ ¬other`
    pub fn and_not(&self, other: &Bdd) -> Bdd {
        self.binary(Op::AndNot, other)
    }

    /// `if cond then then_ else else_`
    pub fn ite(cond: &Bdd, then_: &Bdd, else_: &Bdd) -> Bdd {
        cond.op(|m| m.ite(cond.id, then_.id, else_.id, 0))
    }

    /// `∃ vars . self`
    pub fn exists(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.exists_in(&Space::var_set_of(self, vars))
    }

    /// `∀ vars . self`
    pub fn forall(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.forall_in(&Space::var_set_of(self, vars))
    }

    /// `∃ vars . self` for a prepared set.
    pub fn exists_in(&self, vars: &VarSet) -> Bdd {
        self.op(|m| m.quantify(self.id, vars.0.id, false, 0))
    }

    /// `∀ vars . self` for a prepared set.
    pub fn forall_in(&self, vars: &VarSet) -> Bdd {
        self.op(|m| m.quantify(self.id, vars.0.id, true, 0))
    }

    /// `∃ vars . (self ∧ other)`, in one pass.
    pub fn and_exists(&self, other: &Bdd, vars: &[BddVar]) -> Bdd {
        self.and_exists_in(other, &Space::var_set_of(self, vars))
    }

    /// `∃ vars . (self ∧ other)` for a prepared set.
    pub fn and_exists_in(&self, other: &Bdd, vars: &VarSet) -> Bdd {
        self.op(|m| m.and_exists(self.id, other.id, vars.0.id, 0))
    }

    /// The cofactor with the given variables fixed; the result no longer depends on them.
    pub fn restrict(&self, lits: &[(BddVar, bool)]) -> Bdd {
        if lits.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.op(|m| {
            let c = m.cube(lits);
            if c == FALSE {
                // Conflicting literals: restrict by the first value of each variable.
                let mut seen = Vec::new();
                let firsts: Vec<(BddVar, bool)> = lits
                    .iter()
                    .filter(|(v, _)| {
                        let new = !seen.contains(v);
                        seen.push(*v);
                        new
                    })
                    .copied()
                    .collect();
                let c = m.cube(&firsts);
                return m.restrict(self.id, c, 0);
            }
            m.restrict(self.id, c, 0)
        })
    }

    /// Substitutes variables simultaneously: every `from` becomes its `to`.
    ///
    /// Several variables may map to the same target, and a target may occur in
    /// `self`: the result is the function with each `from` replaced by its
    /// `to` at once (so `f(a, b)` with `a ↦ b` becomes `f(b, b)`).
    pub fn rename(&self, space: &Space, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.rename_by(&space.renaming(pairs))
    }

    /// Applies a prepared substitution.
    pub fn rename_by(&self, renaming: &Renaming) -> Bdd {
        if self.is_constant() {
            return self.clone();
        }
        self.op(|m| m.rename(self.id, renaming.0, 0))
    }

    /// Number of nodes reachable from this one, terminals included.
    pub fn size(&self) -> usize {
        let mut m = self.m.borrow_mut();
        let mut count = 0;
        m.walk(self.id, |_| {
            count += 1;
            true
        });
        count
    }

    /// Whether this is the constant true.
    pub fn is_true(&self) -> bool {
        self.id == TRUE
    }

    /// Whether this is the constant false.
    pub fn is_false(&self) -> bool {
        self.id == FALSE
    }

    /// Whether this is a constant.
    pub fn is_constant(&self) -> bool {
        self.id <= TRUE
    }

    /// The constant value, if this is a constant.
    pub fn as_bool(&self) -> Option<bool> {
        match self.id {
            FALSE => Some(false),
            TRUE => Some(true),
            _ => None,
        }
    }

    /// The variables the function depends on, in order.
    pub fn support(&self) -> Vec<BddVar> {
        let mut m = self.m.borrow_mut();
        let mut vars = Vec::new();
        m.walk(self.id, |n| {
            if n.var != TERMINAL {
                vars.push(BddVar(n.var));
            }
            true
        });
        vars.sort_unstable();
        vars.dedup();
        vars
    }

    /// Whether the function depends on `var`.
    pub fn depends_on(&self, var: BddVar) -> bool {
        let mut m = self.m.borrow_mut();
        let mut found = false;
        m.walk(self.id, |n| {
            found |= n.var == var.0;
            // Variables below a node's level cannot be above it further down.
            !found && n.var < var.0
        });
        found
    }

    /// The value of the function under an assignment of the given variables
    /// (every other variable false): a walk down one path, no new BDD.
    pub fn eval(&self, lits: &[(BddVar, bool)]) -> bool {
        let m = self.m.borrow();
        let mut f = self.id;
        while f > TRUE {
            let n = m.node(f);
            let value = lits
                .iter()
                .rev()
                .find(|(v, _)| v.0 == n.var)
                .is_some_and(|&(_, b)| b);
            f = if value { n.hi } else { n.lo };
        }
        f == TRUE
    }

    /// The value of the function under a valuation of all variables
    /// (`values[v]` for variable `v`, false beyond the end): a walk down one path.
    pub fn eval_bits(&self, values: &[bool]) -> bool {
        let m = self.m.borrow();
        let mut f = self.id;
        while f > TRUE {
            let n = m.node(f);
            f = if values.get(n.var as usize).copied().unwrap_or(false) {
                n.hi
            } else {
                n.lo
            };
        }
        f == TRUE
    }

    /// Whether the function is the constant `value` once the variables with
    /// `fixed[v] = Some(b)` are fixed (the others stay free): a search of
    /// the paths that agree with `fixed`, which stops at the first leaf
    /// that is not `value` and builds no node.
    pub fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool {
        let mut m = self.m.borrow_mut();
        let stamp = m.new_stamp();
        let other = if value { FALSE } else { TRUE };
        let mut stack = vec![self.id];
        while let Some(f) = stack.pop() {
            if f == other {
                return false;
            }
            if f <= TRUE || m.visited[f as usize] == stamp {
                continue;
            }
            m.visited[f as usize] = stamp;
            let n = m.node(f);
            match fixed.get(n.var as usize).copied().flatten() {
                Some(true) => stack.push(n.hi),
                Some(false) => stack.push(n.lo),
                None => stack.extend([n.lo, n.hi]),
            }
        }
        true
    }

    /// One satisfying assignment: the values of `vars` in the lexicographically
    /// first satisfying valuation (deterministic), or `None` if unsatisfiable.
    pub fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>> {
        if self.is_false() {
            return None;
        }
        let m = self.m.borrow();
        let mut ones = Vec::new();
        let mut f = self.id;
        while f > TRUE {
            let n = m.node(f);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(i: u16) -> BddVar {
        BddVar(i)
    }

    #[test]
    fn equal_functions_are_the_same_node() {
        let s = Space::new(3);
        let a = s.lit(v(0), true).and(&s.lit(v(1), true));
        let b = s.lit(v(1), true).and(&s.lit(v(0), true));
        assert_eq!(a.id, b.id);
        assert_eq!(a.not().not(), a);
    }

    #[test]
    fn collection_keeps_what_handles_reach() {
        let s = Space::new(24);
        let keep = s.cube(&[(v(3), true), (v(7), false)]);
        s.m.borrow_mut().gc_at = 1000;
        // Build and drop enough nodes to force collections.
        for i in 0..40_000u32 {
            let lits: Vec<(BddVar, bool)> =
                (0..16).map(|b| (v(8 + b), (i >> b) & 1 == 1)).collect();
            let c = s.cube(&lits);
            let _ = keep.or(&c).exists(&[v(3)]);
        }
        let m = s.m.borrow();
        assert!(m.collections > 0, "no collection happened");
        drop(m);
        assert!(keep.eval(&[(v(3), true)]));
        assert!(!keep.eval(&[(v(3), true), (v(7), true)]));
        assert_eq!(keep, s.lit(v(3), true).and_not(&s.lit(v(7), true)));
    }

    #[test]
    fn deep_recursion_grows_the_stack() {
        // A 60,000-variable parity function on a small thread stack.
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let n = 60_000;
                let s = Space::new(n);
                let mut parity = s.ff();
                for i in (0..n as u16).rev() {
                    parity = parity.xor(&s.lit(v(i), true));
                }
                let odd = parity.not();
                (odd.eval(&[]), odd.eval(&[(v(17), true)]), parity.size())
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow");
        assert_eq!(result, (true, false, 2 * 60_000 - 1 + 2));
    }
}
