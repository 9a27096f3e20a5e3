//! The node table: nodes, the unique table that shares them, and the
//! mark-and-sweep collection of the nodes that no root reaches.

use hashbrown::hash_table::Entry as Slot;
use hashbrown::{HashMap, HashTable};

use super::cache::Cache;
use super::node::{FREED, Id, Node, TERMINAL, mix};

/// Collections start once the table holds this many nodes (or twice the
/// nodes the last collection kept). Small: a monitor whose summaries are
/// small keeps its node table, unique table and cache in the processor's
/// caches, where a table of 2^18 nodes (tried before) spent most of each
/// update waiting on memory.
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
pub(super) struct Manager {
    pub(super) nodes: Vec<Node>,
    pub(super) free: Vec<Id>,
    unique: HashTable<Id>,
    pub(super) cache: Cache,
    /// Node count that triggers the next collection.
    pub(super) gc_at: usize,
    /// Whether the tables grow in small steps ([`save_memory`](Self::save_memory)).
    lean: bool,
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
}

/// The room a full unique table of `len` nodes grows to (see
/// `Manager::grow_unique`).
pub(super) fn unique_growth(len: usize, lean: bool) -> usize {
    if lean || len >= MIN_GC_NODES {
        2 * len.max(256)
    } else {
        (4 * len.max(256)).min(MIN_GC_NODES)
    }
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
            unique: HashTable::new(),
            cache: Cache::new(),
            gc_at: GC_FLOOR,
            lean: false,
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
        if self.unique.len() == self.unique.capacity() {
            self.grow_unique();
        }
        let nodes = &self.nodes;
        // One probe: a miss leaves the slot for the new node.
        let vacant = match self.unique.entry(
            hash,
            |&id| nodes[id as usize] == node,
            |&i| node_hash(&nodes[i as usize]),
        ) {
            Slot::Occupied(e) => return *e.get(),
            Slot::Vacant(v) => v,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                vacant.insert(id);
                return id;
            }
            None => self.nodes.len() as Id,
        };
        vacant.insert(id);
        self.nodes.push(node);
        self.visited.push(0);
        self.cache.follow(self.nodes.len());
        id
    }

    /// Makes the tables grow in smaller steps from now on: the unique table
    /// doubles, and the cache keeps fewer entries per node.
    pub(super) fn save_memory(&mut self) {
        self.lean = true;
        self.cache.save_memory();
    }

    /// Makes room in the unique table: four times its size up to the size
    /// at which collections start (every rehash walks the whole table),
    /// twice its size beyond; twice its size when saving memory.
    #[cold]
    fn grow_unique(&mut self) {
        let len = self.unique.len();
        let wanted = unique_growth(len, self.lean);
        let nodes = &self.nodes;
        self.unique
            .reserve(wanted - len, |&i| node_hash(&nodes[i as usize]));
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
    /// variable set reaches.
    pub(super) fn collect(&mut self, roots: &[Id]) {
        self.collections += 1;
        let mut marked = vec![false; self.nodes.len()];
        marked[0] = true;
        marked[1] = true;
        let mut stack: Vec<Id> = Vec::new();
        for &root in roots.iter().chain(&self.set_cubes) {
            if marked[root as usize] {
                continue;
            }
            marked[root as usize] = true;
            stack.push(root);
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
        self.gc_at = (2 * live).max(GC_FLOOR);
        self.cache.keep_surviving(&marked, live);
    }
}
