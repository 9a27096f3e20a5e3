//! The node table: nodes, the unique table that shares them, and the
//! mark-and-sweep collection of the nodes that no root reaches.

use hashbrown::HashMap;

use super::cache::Cache;
use super::node::{FREED, Id, Node, TERMINAL, mix};
use super::unique::{Probe, Unique};

/// Collections start once the table holds this many nodes (or twice the
/// nodes the last collection kept). Small: a monitor whose summaries are
/// small keeps its node table, unique table and cache in the processor's
/// caches, where a table of 2^18 nodes (tried before) spent most of each
/// update waiting on memory. Fewer collections keep more cached results
/// (a collection drops those about dead nodes): at 2^17, locks-datarace
/// executes a third fewer instructions (7 collections instead of 157) but
/// takes 40% more user time (0.21 s against 0.15 s), and locks-cycles 29%
/// fewer for 20% more time; 2^15 and 2^16 were no faster than 2^14 either
/// (paired runs on the 2-core machine, loaded by other jobs).
pub(super) const MIN_GC_NODES: usize = 1 << 14;
/// The fewest nodes at which a collection is due: [`MIN_GC_NODES`]. With
/// debug assertions, a few dozen: tests then collect at nearly every safe
/// point, and the checks on functions a collection did not list (see
/// `crate::bdd`) see many collections.
const GC_FLOOR: usize = if cfg!(debug_assertions) {
    1 << 6
} else {
    MIN_GC_NODES
};

/// The node table, unique table and cache shared by the BDDs of a space.
#[derive(Clone)]
pub(super) struct Manager {
    pub(super) nodes: Vec<Node>,
    pub(super) free: Vec<Id>,
    unique: Unique,
    pub(super) cache: Cache,
    /// Node count that triggers the next collection.
    pub(super) gc_at: usize,
    /// Interned renamings: the target of every variable (identity beyond the end).
    pub(super) maps: HashMap<Vec<(u16, u16)>, Id>,
    pub(super) map_targets: Vec<Vec<u16>>,
    /// Interned variable sets: the positive cube of each (roots for good).
    pub(super) sets: HashMap<Vec<u16>, Id>,
    pub(super) set_cubes: Vec<Id>,
    /// Scratch for traversals: the stamp of the traversal that last visited a node.
    pub(super) visited: Vec<u32>,
    pub(super) stamp: u32,
    /// Scratch for traversals: a stack kept from one walk to the next.
    pub(super) stack: Vec<Id>,
    /// Scratch for the enumeration of cubes: the path, and the nodes to visit.
    pub(super) cube_path: Vec<(crate::bdd::BddVar, bool)>,
    pub(super) cube_stack: Vec<(Id, usize, bool)>,
    pub(super) collections: u64,
    /// Scratch for collections: the nodes marked live.
    marked: Vec<bool>,
}

#[inline]
fn node_hash(n: &Node) -> u64 {
    mix(n.lo as u64, n.hi as u64, n.var as u64)
}

impl Manager {
    pub(super) fn new() -> Manager {
        let terminal = |_| Node {
            var: TERMINAL,
            lo: 0,
            hi: 0,
        };
        Manager {
            nodes: vec![terminal(0), terminal(1)],
            free: Vec::new(),
            unique: Unique::new(),
            cache: Cache::new(),
            gc_at: GC_FLOOR,
            maps: HashMap::new(),
            map_targets: Vec::new(),
            sets: HashMap::new(),
            set_cubes: Vec::new(),
            visited: vec![0, 0],
            stamp: 0,
            stack: Vec::new(),
            cube_path: Vec::new(),
            cube_stack: Vec::new(),
            collections: 0,
            marked: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn level(&self, f: Id) -> u16 {
        self.nodes[f as usize].var
    }

    #[inline]
    pub(super) fn node(&self, f: Id) -> Node {
        self.nodes[f as usize]
    }

    /// The cofactors of `f` at level `v` (f itself twice when f is below v).
    #[inline]
    pub(super) fn cofactors(&self, f: Id, v: u16) -> (Id, Id) {
        let n = self.node(f);
        if n.var == v { (n.lo, n.hi) } else { (f, f) }
    }

    /// The node `if var then hi else lo`, shared if it exists.
    #[inline]
    pub(super) fn mk(&mut self, var: u16, lo: Id, hi: Id) -> Id {
        if lo == hi {
            return lo;
        }
        debug_assert!(var < self.level(lo) && var < self.level(hi));
        let node = Node { var, lo, hi };
        let hash = node_hash(&node);
        if self.unique.full() {
            let nodes = &self.nodes;
            self.unique.grow(|id| node_hash(&nodes[id as usize]));
        }
        let nodes = &self.nodes;
        // One probe: a miss leaves the slot for the new node.
        let slot = match self.unique.probe(hash, |id| nodes[id as usize] == node) {
            Probe::Found(id) => return id,
            Probe::Vacant(slot, key) => (slot, key),
        };
        if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = node;
            self.unique.insert_at(slot, id);
            return id;
        }
        let id = self.nodes.len() as Id;
        self.unique.insert_at(slot, id);
        self.nodes.push(node);
        self.visited.push(0);
        self.cache.follow(self.nodes.len());
        id
    }

    /// Makes the tables smaller for their nodes from now on: the unique
    /// table fills further, and the cache keeps fewer entries per node.
    pub(super) fn save_memory(&mut self) {
        self.unique.save_memory();
        self.cache.save_memory();
    }

    #[inline]
    pub(super) fn live_nodes(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Whether the table has grown enough since the last collection.
    #[inline]
    pub(super) fn collection_due(&self) -> bool {
        self.live_nodes() >= self.gc_at
    }

    /// Mark and sweep: keeps every node that `roots` or a prepared
    /// variable set reaches. The unique table is emptied and gets the
    /// survivors back: the dead cost one look each.
    pub(super) fn collect(&mut self, roots: &[Id]) {
        self.collections += 1;
        let mut marked = std::mem::take(&mut self.marked);
        marked.clear();
        marked.resize(self.nodes.len(), false);
        marked[0] = true;
        marked[1] = true;
        let mut live = 2;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        for &root in roots.iter().chain(&self.set_cubes) {
            if marked[root as usize] {
                continue;
            }
            marked[root as usize] = true;
            live += 1;
            stack.push(root);
            while let Some(f) = stack.pop() {
                let n = self.nodes[f as usize];
                for child in [n.lo, n.hi] {
                    if !marked[child as usize] {
                        marked[child as usize] = true;
                        live += 1;
                        stack.push(child);
                    }
                }
            }
        }
        self.stack = stack;
        self.free.clear();
        self.gc_at = (2 * live).max(GC_FLOOR);
        // Room for the nodes up to the next collection.
        self.unique.clear(self.gc_at);
        // From the top down: the free list pops low numbers first.
        for id in (2..self.nodes.len()).rev() {
            if marked[id] {
                self.unique.insert_new(node_hash(&self.nodes[id]), id as Id);
            } else {
                self.nodes[id].var = FREED;
                self.free.push(id as Id);
            }
        }
        self.cache.keep_surviving(&marked, live);
        self.marked = marked;
    }
}
