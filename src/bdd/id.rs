//! The numbers a space hands out: [`Bdd`] (a function), [`VarSet`] and
//! [`Renaming`] (prepared arguments), and [`Roots`], the list of live
//! functions an owner gives a collection.
//!
//! In a release build a [`Bdd`] is its number and nothing else. In a build
//! with debug assertions it also carries the space that made it and the
//! space's *generation* (the number of collections so far); every
//! operation checks both, so that a function of another space, or one that
//! a collection did not list (and so may have reclaimed), panics at its
//! first use instead of reading whatever node now has its number.

#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicU32, Ordering};

/// The number of the constant false in every space.
pub(crate) const FALSE_ID: u32 = 0;
/// The number of the constant true in every space.
pub(crate) const TRUE_ID: u32 = 1;

/// A boolean function over the variables of a space: the number of its
/// root there. It means nothing without its space, whose operations take
/// and return such numbers (see the [module docs](super)).
///
/// Equal numbers of one space are equal functions (both packages share
/// equal functions), so `==` compares functions; the constants are numbered
/// alike in every space, so [`Bdd::is_true`] and its kin need no space.
#[derive(Clone, Copy)]
pub struct Bdd {
    id: u32,
    #[cfg(debug_assertions)]
    tag: Tag,
}

/// A space and one of its generations (debug builds only).
#[cfg(debug_assertions)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tag {
    space: u32,
    generation: u32,
}

impl Bdd {
    /// The number of the function in its space.
    #[inline]
    #[cfg_attr(not(test), allow(dead_code))] // for the conformance suite
    pub fn index(self) -> u32 {
        self.id
    }

    /// Whether this is the constant true.
    #[inline]
    pub fn is_true(self) -> bool {
        self.id == TRUE_ID
    }

    /// Whether this is the constant false.
    #[inline]
    pub fn is_false(self) -> bool {
        self.id == FALSE_ID
    }

    /// Whether this is a constant.
    #[inline]
    pub fn is_constant(self) -> bool {
        self.id <= TRUE_ID
    }

    /// The constant value, if this is a constant.
    #[inline]
    pub fn as_bool(self) -> Option<bool> {
        match self.id {
            FALSE_ID => Some(false),
            TRUE_ID => Some(true),
            _ => None,
        }
    }
}

impl PartialEq for Bdd {
    #[inline]
    fn eq(&self, other: &Bdd) -> bool {
        #[cfg(debug_assertions)]
        assert_eq!(
            self.tag, other.tag,
            "BDDs of two spaces, or of two generations of one space, compared"
        );
        self.id == other.id
    }
}

impl Eq for Bdd {}

impl std::hash::Hash for Bdd {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl std::fmt::Debug for Bdd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bdd(#{})", self.id)
    }
}

/// A set of variables prepared once (by `BddSpace::var_set`) for many
/// quantifications: its number in its space, which keeps it for good.
#[derive(Clone, Copy, Debug)]
pub struct VarSet {
    index: u32,
    #[cfg(debug_assertions)]
    space: u32,
}

/// A simultaneous substitution prepared once (by `BddSpace::renaming`) for
/// many renamings: its number in its space, which keeps it for good.
#[derive(Clone, Copy, Debug)]
pub struct Renaming {
    index: u32,
    #[cfg(debug_assertions)]
    space: u32,
}

/// The numbers a collection keeps: every live function the owner of a
/// space lists (see `BddSpace::collect`).
#[derive(Debug)]
pub struct Roots {
    ids: Vec<u32>,
    /// The space and the generation that ends with this collection.
    #[cfg(debug_assertions)]
    ending: Tag,
}

impl Roots {
    /// Keeps `bdd` (and every node it reaches) through the collection.
    /// Only the functions listed here may be used after it.
    #[inline]
    pub fn keep(&mut self, bdd: &mut Bdd) {
        #[cfg(debug_assertions)]
        {
            assert_eq!(
                bdd.tag.space, self.ending.space,
                "a BDD of another space listed as a root"
            );
            assert_eq!(
                bdd.tag.generation, self.ending.generation,
                "BDD #{} listed as a root after a collection that did not list it",
                bdd.id
            );
            bdd.tag.generation = self.ending.generation.wrapping_add(1);
        }
        if !bdd.is_constant() {
            self.ids.push(bdd.id);
        }
    }

    /// Keeps every function of `bdds`.
    pub fn keep_all<'a>(&mut self, bdds: impl IntoIterator<Item = &'a mut Bdd>) {
        for b in bdds {
            self.keep(b);
        }
    }

    /// The numbers of the listed functions (constants left out).
    pub(crate) fn ids(&self) -> &[u32] {
        &self.ids
    }
}

/// What a space knows of the numbers it hands out: in a debug build, its
/// own identity and generation, which it writes into every number it hands
/// out and checks in every number it is given; nothing in a release build.
#[derive(Clone, Debug)]
pub(crate) struct Stamp {
    #[cfg(debug_assertions)]
    tag: Tag,
}

/// The identity of the next space (debug builds only).
#[cfg(debug_assertions)]
static NEXT_SPACE: AtomicU32 = AtomicU32::new(1);

impl Stamp {
    /// The stamp of a new space.
    pub(crate) fn new() -> Stamp {
        Stamp {
            #[cfg(debug_assertions)]
            tag: Tag {
                space: NEXT_SPACE.fetch_add(1, Ordering::Relaxed),
                generation: 0,
            },
        }
    }

    /// The number of `bdd`, checked (in a debug build) to be of this space
    /// and of its current generation.
    #[inline(always)]
    pub(crate) fn open(&self, bdd: Bdd) -> u32 {
        #[cfg(debug_assertions)]
        self.check(bdd);
        bdd.id
    }

    #[cfg(debug_assertions)]
    #[inline(never)]
    fn check(&self, bdd: Bdd) {
        assert_eq!(
            bdd.tag.space, self.tag.space,
            "a BDD of another space given to an operation"
        );
        assert_eq!(
            bdd.tag.generation, self.tag.generation,
            "BDD #{} used after a collection that did not list it",
            bdd.id
        );
    }

    /// The function numbered `id` in this space.
    #[inline(always)]
    pub(crate) fn seal(&self, id: u32) -> Bdd {
        Bdd {
            id,
            #[cfg(debug_assertions)]
            tag: self.tag,
        }
    }

    /// An empty list of roots for the collection about to start.
    pub(crate) fn roots(&self) -> Roots {
        Roots {
            ids: Vec::new(),
            #[cfg(debug_assertions)]
            ending: self.tag,
        }
    }

    /// Starts the next generation: a collection is done.
    pub(crate) fn next_generation(&mut self) {
        #[cfg(debug_assertions)]
        {
            self.tag.generation = self.tag.generation.wrapping_add(1);
        }
    }

    /// The prepared set numbered `index` in this space.
    pub(crate) fn var_set(&self, index: u32) -> VarSet {
        VarSet {
            index,
            #[cfg(debug_assertions)]
            space: self.tag.space,
        }
    }

    /// The number of `set`, checked (in a debug build) to be of this space.
    #[inline(always)]
    pub(crate) fn open_var_set(&self, set: VarSet) -> usize {
        #[cfg(debug_assertions)]
        assert_eq!(set.space, self.tag.space, "a variable set of another space");
        set.index as usize
    }

    /// The prepared renaming numbered `index` in this space.
    pub(crate) fn renaming(&self, index: u32) -> Renaming {
        Renaming {
            index,
            #[cfg(debug_assertions)]
            space: self.tag.space,
        }
    }

    /// The number of `renaming`, checked (in a debug build) to be of this space.
    #[inline(always)]
    pub(crate) fn open_renaming(&self, renaming: Renaming) -> usize {
        #[cfg(debug_assertions)]
        assert_eq!(
            renaming.space, self.tag.space,
            "a renaming of another space"
        );
        renaming.index as usize
    }
}
