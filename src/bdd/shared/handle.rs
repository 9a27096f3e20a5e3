//! The handles: [`Space`] (a counted reference to the manager) and [`Bdd`]
//! (a counted reference to one root node), and the package's implementation
//! of [`BddSpace`] and [`BddFunction`] on them.
//!
//! Every operation borrows the manager for its whole duration and may start a
//! collection only at its entry, so no node of a running operation is ever
//! reclaimed.

use std::cell::RefCell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use super::apply::decided;
use super::cache::Op;
use super::node::{FALSE, Id, TRUE};
use super::table::Manager;
use crate::bdd::{BddFunction, BddSpace, BddVar, MAX_VARS};

/// A universe of BDD variables; every [`Bdd`] of one space is built over it
/// and shares its nodes. Cloning a space shares its node table.
#[derive(Clone)]
pub struct Space {
    num_vars: usize,
    pub(super) m: Rc<RefCell<Manager>>,
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
    pub(super) id: Id,
}

/// A set of variables prepared by [`BddSpace::var_set`]: a cube of positive literals.
#[derive(Clone, Debug)]
pub struct VarSet(Bdd);

/// A substitution prepared by [`BddSpace::renaming`]: its interned number.
#[derive(Clone, Copy, Debug)]
pub struct Renaming(Id);

/// A new handle on node `id`.
#[inline]
fn handle(rc: &Rc<RefCell<Manager>>, m: &mut Manager, id: Id) -> Bdd {
    if id > TRUE {
        m.refs[id as usize] += 1;
    }
    Bdd { m: rc.clone(), id }
}

impl Clone for Bdd {
    #[inline]
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
    #[inline]
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

impl Space {
    /// A constant handle.
    fn terminal(&self, id: Id) -> Bdd {
        Bdd {
            m: self.m.clone(),
            id,
        }
    }
}

impl BddSpace for Space {
    type Bdd = Bdd;
    type VarSet = VarSet;
    type Renaming = Renaming;

    const NAME: &'static str = "shared";

    fn new(num_vars: usize) -> Space {
        Space {
            num_vars: num_vars.min(MAX_VARS),
            m: Rc::new(RefCell::new(Manager::new())),
        }
    }

    fn num_vars(&self) -> usize {
        self.num_vars
    }

    fn sharing(&self, num_vars: usize) -> Space {
        Space {
            num_vars: num_vars.min(MAX_VARS),
            m: self.m.clone(),
        }
    }

    fn table_stats(&self) -> (usize, u64) {
        let m = self.m.borrow();
        (m.live_nodes(), m.collections)
    }

    fn save_memory(&self) {
        self.m.borrow_mut().save_memory();
    }

    fn tt(&self) -> Bdd {
        self.terminal(TRUE)
    }

    fn ff(&self) -> Bdd {
        self.terminal(FALSE)
    }

    fn lit(&self, var: BddVar, value: bool) -> Bdd {
        self.cube(&[(var, value)])
    }

    fn cube(&self, lits: &[(BddVar, bool)]) -> Bdd {
        let mut m = self.m.borrow_mut();
        m.maybe_collect();
        let id = m.cube(lits);
        handle(&self.m, &mut m, id)
    }

    fn var_set(&self, vars: &[BddVar]) -> VarSet {
        let lits: Vec<(BddVar, bool)> = vars.iter().map(|&v| (v, true)).collect();
        VarSet(self.cube(&lits))
    }

    /// Its results are cached across operations.
    fn renaming(&self, pairs: &[(BddVar, BddVar)]) -> Renaming {
        Renaming(self.m.borrow_mut().intern_map(pairs))
    }
}

impl Bdd {
    /// Runs an operation on the table and wraps its result.
    #[inline]
    fn op(&self, f: impl FnOnce(&mut Manager) -> Id) -> Bdd {
        let mut m = self.m.borrow_mut();
        m.maybe_collect();
        let id = f(&mut m);
        handle(&self.m, &mut m, id)
    }

    #[inline]
    fn binary(&self, op: Op, other: &Bdd) -> Bdd {
        debug_assert!(Rc::ptr_eq(&self.m, &other.m), "BDDs of different spaces");
        // A constant or repeated operand decides most operations of the
        // monitor (an atom that did not match is false): no table work.
        match decided(op, self.id, other.id) {
            Some(id) if id <= TRUE => Bdd {
                m: self.m.clone(),
                id,
            },
            Some(id) if id == self.id => self.clone(),
            Some(_) => other.clone(),
            None => self.op(|m| m.apply(op, self.id, other.id, 0)),
        }
    }

    /// A variable set in the space of `self`.
    fn var_set_of(&self, vars: &[BddVar]) -> VarSet {
        let space = Space {
            num_vars: 0,
            m: self.m.clone(),
        };
        space.var_set(vars)
    }
}

impl BddFunction for Bdd {
    type Space = Space;

    fn and(&self, other: &Bdd) -> Bdd {
        self.binary(Op::And, other)
    }

    fn or(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Or, other)
    }

    fn not(&self) -> Bdd {
        self.op(|m| m.not(self.id, 0))
    }

    fn imp(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Imp, other)
    }

    fn iff(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Iff, other)
    }

    fn xor(&self, other: &Bdd) -> Bdd {
        self.binary(Op::Xor, other)
    }

    fn and_not(&self, other: &Bdd) -> Bdd {
        self.binary(Op::AndNot, other)
    }

    fn ite(cond: &Bdd, then_: &Bdd, else_: &Bdd) -> Bdd {
        cond.op(|m| m.ite(cond.id, then_.id, else_.id, 0))
    }

    fn exists(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.exists_in(&self.var_set_of(vars))
    }

    fn forall(&self, vars: &[BddVar]) -> Bdd {
        if vars.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.forall_in(&self.var_set_of(vars))
    }

    fn exists_in(&self, vars: &VarSet) -> Bdd {
        self.op(|m| m.quantify(self.id, vars.0.id, false, 0))
    }

    fn forall_in(&self, vars: &VarSet) -> Bdd {
        self.op(|m| m.quantify(self.id, vars.0.id, true, 0))
    }

    fn and_exists(&self, other: &Bdd, vars: &[BddVar]) -> Bdd {
        self.and_exists_in(other, &self.var_set_of(vars))
    }

    fn and_exists_in(&self, other: &Bdd, vars: &VarSet) -> Bdd {
        self.op(|m| m.and_exists(self.id, other.id, vars.0.id, 0))
    }

    fn restrict(&self, lits: &[(BddVar, bool)]) -> Bdd {
        if lits.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.op(|m| m.restrict_lits(self.id, lits))
    }

    fn rename(&self, space: &Space, pairs: &[(BddVar, BddVar)]) -> Bdd {
        if pairs.is_empty() || self.is_constant() {
            return self.clone();
        }
        self.rename_by(&space.renaming(pairs))
    }

    fn rename_by(&self, renaming: &Renaming) -> Bdd {
        if self.is_constant() {
            return self.clone();
        }
        self.op(|m| m.rename(self.id, renaming.0, 0))
    }

    fn size(&self) -> usize {
        self.m.borrow_mut().size(self.id)
    }

    fn is_true(&self) -> bool {
        self.id == TRUE
    }

    fn is_false(&self) -> bool {
        self.id == FALSE
    }

    fn is_constant(&self) -> bool {
        self.id <= TRUE
    }

    fn as_bool(&self) -> Option<bool> {
        match self.id {
            FALSE => Some(false),
            TRUE => Some(true),
            _ => None,
        }
    }

    fn support(&self) -> Vec<BddVar> {
        self.m.borrow_mut().support(self.id)
    }

    fn depends_on(&self, var: BddVar) -> bool {
        self.m.borrow_mut().depends_on(self.id, var)
    }

    fn eval(&self, lits: &[(BddVar, bool)]) -> bool {
        self.m.borrow().eval(self.id, lits)
    }

    fn eval_bits(&self, values: &[bool]) -> bool {
        self.m.borrow().eval_bits(self.id, values)
    }

    fn constant_under(&self, fixed: &[Option<bool>], value: bool) -> bool {
        self.m.borrow_mut().constant_under(self.id, fixed, value)
    }

    fn pick(&self, vars: &[BddVar]) -> Option<Vec<bool>> {
        self.m.borrow().pick(self.id, vars)
    }
}
