//! The free-variable levels the output of a view tree is enumerated from.
//!
//! For a q-hierarchical query the result is never materialized as a list of
//! tuples: it is the product, along the free variables of the variable
//! order, of each value's local payload. A [`FreeLevel`] holds, for one free
//! variable X and each value g of the free variables above it, the values
//! of X that lead to at least one output tuple, so enumeration walks only
//! values with output (constant delay) and `len` is a product of counts.

use std::hash::Hash;

use crate::__private::{Group, HashMap};
use crate::Semiring;

/// One value of a free variable under a key of the variables above it.
#[derive(Debug, Clone)]
struct Entry<K> {
    /// The product of the variable's summed-out children and atoms.
    local: K,
    /// The number of output tuples in the subtree below this value, not
    /// counting `local` (1 for a variable with no free variable below).
    below: u64,
    /// Where the value sits in its group's list, while it has output.
    pos: usize,
}

impl<K: Semiring> Entry<K> {
    /// Output tuples at or below this value.
    fn tuples(&self) -> u64 {
        if self.local.is_zero() { 0 } else { self.below }
    }
}

/// The values of X sharing one key of the variables above it.
#[derive(Debug, Clone)]
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
pub fn count_product<const N: usize>(counts: [u64; N]) -> u64 {
    counts
        .iter()
        .try_fold(1u64, |acc, &c| acc.checked_mul(c))
        .expect("ivm: more than 2^64 output tuples")
}

/// The level of one free variable X: for each key `g` of the free variables
/// above it and each value `x`, the local payload and the count of output
/// tuples below, with the values that have output kept in a list per `g`.
///
/// Generated code calls [`set_local`](FreeLevel::set_local) when a view
/// below X changes and [`set_below`](FreeLevel::set_below) when the count of
/// a free variable below changes; both return whether the group's total
/// changed, which is when the level above needs to hear of it.
#[derive(Debug, Clone)]
pub struct FreeLevel<G, X, K> {
    entries: HashMap<(G, X), Entry<K>>,
    groups: HashMap<G, Values<X>>,
    /// `below` for a value the level has not seen: 1 for a variable with
    /// no free variable below it (its own value is a whole tuple), 0
    /// otherwise (its children have no output for it yet).
    unseen_below: u64,
    /// `local` for a value the level has not seen: zero when the variable
    /// has factors (no view below has it yet), one when it has none (its
    /// payload is all in the levels below).
    unseen_local: K,
}

impl<G, X, K> FreeLevel<G, X, K>
where
    G: Clone + Eq + Hash,
    X: Clone + Eq + Hash,
    K: Semiring,
{
    /// An empty level. `leaf`: X has no free variable below it.
    /// `has_factors`: X has summed-out children or atoms, whose product is
    /// its local payload (otherwise the local payload is always one).
    pub fn new(leaf: bool, has_factors: bool) -> Self {
        FreeLevel {
            entries: HashMap::default(),
            groups: HashMap::default(),
            unseen_below: u64::from(leaf),
            unseen_local: if has_factors { K::zero() } else { K::one() },
        }
    }

    /// Sets the local payload of `x` under `g`. Returns whether the total
    /// number of output tuples under `g` changed.
    pub fn set_local(&mut self, g: G, x: X, local: K) -> bool {
        self.update(g, x, |e| e.local = local)
    }

    /// Sets the number of output tuples below `x` under `g` (the product of
    /// the totals of the free levels below, at `(g, x)`). Returns whether
    /// the total under `g` changed.
    pub fn set_below(&mut self, g: G, x: X, below: u64) -> bool {
        self.update(g, x, |e| e.below = below)
    }

    fn update(&mut self, g: G, x: X, change: impl FnOnce(&mut Entry<K>)) -> bool {
        let key = (g, x);
        let (unseen_local, unseen_below) = (&self.unseen_local, self.unseen_below);
        let entry = self.entries.entry(key.clone()).or_insert_with(|| Entry {
            local: unseen_local.clone(),
            below: unseen_below,
            pos: usize::MAX,
        });
        let before = entry.tuples();
        change(entry);
        let after = entry.tuples();
        let pos = entry.pos;
        // An entry that is back to what an unseen value would be carries no
        // information: drop it so the map does not grow with dead keys.
        let dead = entry.local == *unseen_local && entry.below == unseen_below;
        if before == after {
            if dead {
                self.entries.remove(&key);
            }
            return false;
        }
        let (g, x) = key;
        let group = self.groups.entry(g.clone()).or_default();
        group.total = group
            .total
            .checked_add(after)
            .and_then(|t| t.checked_sub(before))
            .expect("ivm: more than 2^64 output tuples");
        if before == 0 {
            let at = group.live.push(x.clone());
            self.entries
                .get_mut(&(g.clone(), x.clone()))
                .expect("present")
                .pos = at;
        } else if after == 0 {
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
        if dead {
            self.entries.remove(&(g, x));
        }
        true
    }

    /// The number of output tuples under `g` (0 when none).
    pub fn total(&self, g: &G) -> u64 {
        self.groups.get(g).map_or(0, |group| group.total)
    }

    /// The local payload of `x` under `g`, if it has output.
    pub fn local(&self, g: &G, x: &X) -> Option<&K>
    where
        G: Clone,
        X: Clone,
    {
        self.entries
            .get(&(g.clone(), x.clone()))
            .filter(|e| e.tuples() > 0)
            .map(|e| &e.local)
    }

    /// The values under `g` that have output, each with its local payload.
    pub fn values<'a>(
        &'a self,
        g: &G,
    ) -> impl Iterator<Item = (&'a X, &'a K)> + Clone + use<'a, G, X, K> {
        let g = g.clone();
        self.groups
            .get(&g)
            .into_iter()
            .flat_map(|group| group.live.iter())
            .map(move |x| {
                let e = self
                    .entries
                    .get(&(g.clone(), x.clone()))
                    .expect("live values have entries");
                (x, &e.local)
            })
    }

    /// Checks the level's invariants (for tests): every listed value has
    /// output and its recorded position, every value with output is listed,
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
            for x in &group.live {
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
