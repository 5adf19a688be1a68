//! The free-variable levels the output of a view tree is enumerated from.
//!
//! For a q-hierarchical query the result is never materialized as a list of
//! tuples: it is the product, along the free variables of the variable
//! order, of each value's local payload (the product of the views and atoms
//! below it, which generated code looks up). A [`FreeLevel`] records, for
//! one free variable X and each value g of the free variables above it,
//! which values of X lead to at least one output tuple, so enumeration
//! walks only values with output (constant delay) and `len` is a product of
//! counts.
//!
//! A level hears about a value only when its local payload turns zero or
//! non-zero, or when the count of tuples below it changes: the common
//! update, which moves a payload between non-zero values, never touches it.

use std::hash::Hash;

use crate::__private::{Group, HashMap};
use crate::epoch::{EpochMap, Epochs, started};

/// One value of a free variable under a key of the variables above it.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Entry {
    /// Whether the value's local payload is non-zero.
    live: bool,
    /// The number of output tuples in the subtree below this value (1 for
    /// a variable with no free variable below).
    below: u64,
    /// Where the value sits in its group's list, while it has output.
    pos: usize,
}

impl Entry {
    /// Output tuples at or below this value.
    fn tuples(&self) -> u64 {
        if self.live { self.below } else { 0 }
    }
}

/// The values of X sharing one key of the variables above it.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Values<X> {
    /// The values with at least one output tuple, in insertion order.
    live: Group<X>,
    /// Output tuples under the whole group: Σ of its values' tuples.
    total: u64,
}

impl<X> Default for Values<X> {
    fn default() -> Self {
        Values {
            live: Group::new(),
            total: 0,
        }
    }
}

/// The product of output-tuple counts of independent parts (1 for none).
///
/// # Panics
///
/// When the product exceeds `u64::MAX`: a result that large cannot be
/// enumerated anyway, and a wrapped count would be a wrong answer.
#[inline]
pub fn count_product<const N: usize>(counts: [u64; N]) -> u64 {
    counts
        .iter()
        .try_fold(1u64, |acc, &c| acc.checked_mul(c))
        .expect("ivm: more than 2^64 output tuples")
}

/// Whether a local payload that changed from `old` to `new` turned live
/// (`Some(true)`) or dead (`Some(false)`); `None` when it stayed as it was,
/// so that the value's key is built only when [`FreeLevel::set_live`]
/// needs it.
#[inline(always)]
pub fn turned<K: crate::Semiring>(old: &K, new: &K) -> Option<bool> {
    let live = !new.is_zero();
    (old.is_zero() == live).then_some(live)
}

/// The level of one free variable X: for each key `g` of the free variables
/// above it and each value `x`, whether its local payload is non-zero and
/// the count of output tuples below it, with the values that have output
/// kept in a list per `g`.
///
/// Generated code calls [`set_live`](FreeLevel::set_live) when a value's
/// local payload turns zero or non-zero and
/// [`set_below`](FreeLevel::set_below) when the count of a free variable
/// below changes; both return whether the group's total changed, which is
/// when the level above needs to hear of it.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "G: serde::Serialize + Eq + std::hash::Hash, X: serde::Serialize + Eq + std::hash::Hash",
        deserialize = "G: serde::Deserialize<'de> + Eq + std::hash::Hash, X: serde::Deserialize<'de> + Eq + std::hash::Hash"
    ))
)]
pub struct FreeLevel<G, X> {
    entries: HashMap<(G, X), Entry>,
    groups: HashMap<G, Values<X>>,
    /// `live` for a value the level has not seen: false when the variable
    /// has factors (no view below has it yet), true when it has none (its
    /// payload is all in the levels below).
    unseen_live: bool,
    /// `below` for a value the level has not seen: 1 for a variable with
    /// no free variable below it (its own value is a whole tuple), 0
    /// otherwise (its children have no output for it yet).
    unseen_below: u64,
    /// What `changes()` reads, once it has been called: the values that
    /// had output when an epoch began and lost it during the epoch.
    #[cfg_attr(feature = "serde", serde(skip))]
    journal: Option<Box<LevelJournal<G, X>>>,
}

/// The values of a [`FreeLevel`] whose output went during an epoch, by
/// epoch (`gone`), and every value whose count changed during the epoch
/// being written (`seen`).
#[derive(Debug, Clone)]
struct LevelJournal<G, X> {
    seen: EpochMap<(G, X), ()>,
    gone: Epochs<G, Gone<X>>,
}

impl<G, X> Default for LevelJournal<G, X> {
    fn default() -> Self {
        LevelJournal {
            seen: EpochMap::default(),
            gone: Epochs::default(),
        }
    }
}

/// The values under one key that lost their output in an epoch: a
/// reader of `changes()` after every update (a nested view's, a ranked
/// window's) sees one or two, kept inline with no allocation.
type Gone<X> = smallvec::SmallVec<[X; 2]>;

/// What lies below a free level's variable X in the variable order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Below {
    /// No free variable: each live value of X is one output tuple.
    Nothing,
    /// Free levels, whose counts multiply X's.
    Levels,
}

/// A free level's local payload of a value of X.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Local {
    /// Always one: X has no summed-out child or atom of its own.
    One,
    /// The product of X's summed-out children and atoms, which may be zero.
    Factors,
}

impl<G, X> FreeLevel<G, X>
where
    G: Clone + Eq + Hash,
    X: Clone + Eq + Hash,
{
    /// An empty level: what lies below X, and what its local payload is.
    pub fn new(below: Below, local: Local) -> Self {
        FreeLevel {
            entries: HashMap::default(),
            groups: HashMap::default(),
            unseen_live: local == Local::One,
            unseen_below: u64::from(below == Below::Nothing),
            journal: None,
        }
    }

    /// Records whether the local payload of `x` under `g` is non-zero.
    /// Returns whether the total number of output tuples under `g` changed.
    pub fn set_live(&mut self, g: G, x: X, live: bool) -> bool {
        self.update(g, x, |e| e.live = live)
    }

    /// Sets the number of output tuples below `x` under `g` (the product of
    /// the totals of the free levels below, at `(g, x)`). Returns whether
    /// the total under `g` changed.
    pub fn set_below(&mut self, g: G, x: X, below: u64) -> bool {
        self.update(g, x, |e| e.below = below)
    }

    fn update(&mut self, g: G, x: X, change: impl FnOnce(&mut Entry)) -> bool {
        let (unseen_live, unseen_below) = (self.unseen_live, self.unseen_below);
        // One probe of `entries` for the value, whose entry is kept in hand
        // to set its position or to drop it, one of `groups` when its count
        // changes, and one more only for the value a removal moves.
        let mut entry = match self.entries.entry((g, x)) {
            hashbrown::hash_map::Entry::Occupied(o) => o,
            hashbrown::hash_map::Entry::Vacant(v) => v.insert_entry(Entry {
                live: unseen_live,
                below: unseen_below,
                pos: usize::MAX,
            }),
        };
        let value = entry.get_mut();
        let before = value.tuples();
        change(value);
        let after = value.tuples();
        // An entry back to what an unseen value would be carries no
        // information: drop it so the map does not grow with dead keys.
        let dead = value.live == unseen_live && value.below == unseen_below;
        let pos = value.pos;
        if before == after {
            if dead {
                entry.remove();
            }
            return false;
        }
        let (g, x) = entry.key().clone();
        if let Some(journal) = &mut self.journal
            && journal.seen.note_first((g.clone(), x.clone()), ())
            && before > 0
        {
            // The first change of the epoch, to a value that had output
            // when it began.
            let gone = &mut journal.gone.now;
            gone.or_insert_with(g.clone(), Gone::new).push(x.clone());
        }
        let group = self.groups.entry(g.clone()).or_default();
        group.total = group
            .total
            .checked_add(after)
            .and_then(|t| t.checked_sub(before))
            .expect("ivm: more than 2^64 output tuples");
        if before == 0 {
            entry.get_mut().pos = group.live.push(x);
        } else if after == 0 {
            if dead {
                entry.remove();
            }
            if let Some(moved) = group.live.swap_remove(pos).cloned() {
                self.entries
                    .get_mut(&(g.clone(), moved))
                    .expect("live values have entries")
                    .pos = pos;
            }
            if group.live.is_empty() {
                self.groups.remove(&g);
            }
        }
        true
    }

    /// The number of output tuples under `g` (0 when none).
    pub fn total(&self, g: &G) -> u64 {
        self.groups.get(g).map_or(0, |group| group.total)
    }

    /// The keys `g` under which some value has output.
    pub fn groups(&self) -> impl Iterator<Item = &G> {
        self.groups.keys()
    }

    /// The values under `g` that have output.
    pub fn values<'a>(&'a self, g: &G) -> impl Iterator<Item = &'a X> + Clone + use<'a, G, X> {
        self.groups
            .get(g)
            .into_iter()
            .flat_map(|group| group.live.iter())
    }

    /// Whether a value was written since the journal's epoch began (false
    /// before the journal starts).
    #[inline]
    pub fn written(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.seen.is_empty())
    }

    /// Ends the epoch of the journal (starting the journal at the first
    /// call): the values that lost their output since the last call
    /// become what [`values_then_and_now`](Self::values_then_and_now)
    /// adds.
    #[inline]
    pub fn end_epoch(&mut self) {
        match &mut self.journal {
            Some(journal) => {
                journal.gone.end();
                journal.seen.clear();
            }
            None => self.journal = started(),
        }
    }

    /// The values under `g` that have output now or had it when the last
    /// epoch began, each once: where `changes()` looks for output tuples.
    pub fn values_then_and_now<'a>(&'a self, g: &G) -> impl Iterator<Item = &'a X> + use<'a, G, X> {
        let gone = self
            .journal
            .as_ref()
            .and_then(|j| j.gone.then.get(g))
            .into_iter()
            .flatten();
        let key = g.clone();
        self.values(g).chain(gone.filter(move |x| {
            // Listed now as well: already yielded.
            self.entries
                .get(&(key.clone(), (*x).clone()))
                .is_none_or(|e| e.tuples() == 0)
        }))
    }

    /// Checks the level's invariants (for tests): every listed value has
    /// output at its recorded position, every value with output is listed,
    /// and each group's total is the sum of its values' tuples.
    pub fn check(&self) -> Result<(), String> {
        for ((g, x), e) in &self.entries {
            let listed = self.groups.get(g).and_then(|gr| gr.live.get(e.pos)) == Some(x);
            if (e.tuples() > 0) != listed {
                return Err("a value's listing disagrees with its tuple count".into());
            }
        }
        for (g, group) in &self.groups {
            let mut sum = 0u64;
            for x in group.live.iter() {
                let e = self
                    .entries
                    .get(&(g.clone(), x.clone()))
                    .ok_or("a listed value has no entry")?;
                sum += e.tuples();
            }
            if sum != group.total {
                return Err("a group's total is not the sum of its values' tuples".into());
            }
            if group.live.is_empty() {
                return Err("an empty group is kept".into());
            }
        }
        Ok(())
    }
}
