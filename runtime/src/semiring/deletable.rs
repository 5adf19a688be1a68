//! O(1)-deletable aggregates: the states that let a view take back one
//! contribution without an ordered multiset.

use super::overflow;
use super::{
    AccessControl, Bool, Count, Covariance, DeletableAggregate, Int, Real, Ring, Semiring,
};

/// The state of a sum: the running ⊕ and the number of live contributions.
///
/// The count is what lets a retraction from an empty state fail, lets `Int`
/// and `Count` check the last contribution exactly, and lets the float
/// semirings drop accumulated rounding error when the last contribution
/// goes (the sum of nothing is exactly zero).
#[derive(Clone, Debug, PartialEq)]
pub struct SumState<K> {
    sum: K,
    contributions: u64,
}

impl<K: Semiring> Default for SumState<K> {
    fn default() -> Self {
        SumState {
            sum: K::zero(),
            contributions: 0,
        }
    }
}

impl<K> SumState<K> {
    /// The ⊕ of the live contributions.
    pub fn sum(&self) -> &K {
        &self.sum
    }

    /// How many contributions are live.
    pub fn contributions(&self) -> u64 {
        self.contributions
    }
}

impl<K: Semiring> SumState<K> {
    fn insert(&mut self, v: &K) {
        self.sum.add_assign(v);
        self.contributions += 1;
    }

    /// Whether `v` may be a live contribution as far as the count tells:
    /// there is one, and if it is the only one, it is `v`.
    fn may_hold(&self, v: &K, exact: bool) -> bool {
        match self.contributions {
            0 => false,
            1 if exact => self.sum == *v,
            _ => true,
        }
    }
}

impl<K: Ring> SumState<K> {
    /// Removes `v` from a float sum; the last removal resets the sum to an
    /// exact zero rather than to whatever rounding left behind.
    fn remove_inexact(&mut self, v: &K) -> bool {
        if !self.may_hold(v, false) {
            return false;
        }
        self.contributions -= 1;
        self.sum = if self.contributions == 0 {
            K::zero()
        } else {
            self.sum.sub(v)
        };
        true
    }
}

/// The state of a [`Bool`] aggregate: how many true and how many false
/// contributions are live (derivation counting).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoolState {
    trues: u64,
    falses: u64,
}

impl BoolState {
    /// How many live contributions equal `v`.
    pub fn contributions(&self, v: Bool) -> u64 {
        if v.0 { self.trues } else { self.falses }
    }
}

/// The state of an [`AccessControl`] aggregate: per level, how many live
/// contributions have it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LevelCounts {
    counts: [u64; 5],
}

impl LevelCounts {
    /// How many live contributions have the level `v`.
    pub fn contributions(&self, v: AccessControl) -> u64 {
        self.counts[v.rank()]
    }
}

impl DeletableAggregate for Int {
    type State = SumState<Int>;

    fn insert(state: &mut Self::State, v: &Self) {
        state.insert(v);
    }

    /// Refuses when nothing is live, or when one contribution is live and
    /// it is not `v`.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        if !state.may_hold(v, true) {
            return false;
        }
        // A partial sum may lie outside the range even when the total does
        // not; that is an overflow, not an absent contribution.
        let rest = state.sum.0.checked_sub(v.0).unwrap_or_else(|| {
            overflow("Int", "⊕", &state.sum.0, &-i128::from(v.0));
        });
        state.sum = Int(rest);
        state.contributions -= 1;
        true
    }

    fn value(state: &Self::State) -> Self {
        state.sum
    }
}

impl DeletableAggregate for Real {
    type State = SumState<Real>;

    fn insert(state: &mut Self::State, v: &Self) {
        state.insert(v);
    }

    /// Refuses only when nothing is live: rounding makes any finer check
    /// unreliable.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        state.remove_inexact(v)
    }

    fn value(state: &Self::State) -> Self {
        state.sum
    }
}

impl DeletableAggregate for Count {
    type State = SumState<Count>;

    fn insert(state: &mut Self::State, v: &Self) {
        state.insert(v);
    }

    /// Truncated subtraction that checks it truncates nothing: refuses when
    /// nothing is live, when the sum is below `v` (the remaining
    /// contributions would sum to less than zero), or when one contribution
    /// is live and it is not `v`.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        if !state.may_hold(v, true) {
            return false;
        }
        let Some(rest) = state.sum.0.checked_sub(v.0) else {
            return false;
        };
        state.sum = Count(rest);
        state.contributions -= 1;
        true
    }

    fn value(state: &Self::State) -> Self {
        state.sum
    }
}

impl<const M: usize> DeletableAggregate for Covariance<M> {
    type State = SumState<Covariance<M>>;

    fn insert(state: &mut Self::State, v: &Self) {
        state.insert(v);
    }

    /// Refuses only when nothing is live: rounding makes any finer check
    /// unreliable.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        state.remove_inexact(v)
    }

    fn value(state: &Self::State) -> Self {
        state.sum
    }
}

impl DeletableAggregate for Bool {
    type State = BoolState;

    fn insert(state: &mut Self::State, v: &Self) {
        if v.0 {
            state.trues += 1;
        } else {
            state.falses += 1;
        }
    }

    /// Exact: refuses exactly when no live contribution equals `v`.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        let count = if v.0 {
            &mut state.trues
        } else {
            &mut state.falses
        };
        match count.checked_sub(1) {
            Some(rest) => {
                *count = rest;
                true
            }
            None => false,
        }
    }

    fn value(state: &Self::State) -> Self {
        Bool(state.trues > 0)
    }
}

impl DeletableAggregate for AccessControl {
    type State = LevelCounts;

    fn insert(state: &mut Self::State, v: &Self) {
        state.counts[v.rank()] += 1;
    }

    /// Exact: refuses exactly when no live contribution has the level `v`.
    fn remove(state: &mut Self::State, v: &Self) -> bool {
        let count = &mut state.counts[v.rank()];
        match count.checked_sub(1) {
            Some(rest) => {
                *count = rest;
                true
            }
            None => false,
        }
    }

    /// The least restrictive level with a live contribution, or `Denied`
    /// (the zero) when there is none.
    fn value(state: &Self::State) -> Self {
        AccessControl::LEVELS
            .into_iter()
            .zip(state.counts)
            .find(|&(_, count)| count > 0)
            .map_or(AccessControl::Denied, |(level, _)| level)
    }
}
