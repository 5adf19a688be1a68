//! O(1)-deletable aggregates ([`Deletable`]): the states that let a view
//! of a positive semiring take back one contribution without an ordered
//! multiset, and the [`Maintained`] implementations over them.

use super::{AccessControl, Bool, Count, Covariance, Deletable, Int, Real, Semiring};
use crate::Maintained;

/// The state of a sum: the running ⊕ and the number of live contributions.
///
/// The count is what lets a retraction from an empty state fail and lets
/// `Count` check the last contribution exactly; it is also how a user's
/// positive semiring with a cancellative sum can keep its payloads.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    fn may_hold(&self, v: &K) -> bool {
        match self.contributions {
            0 => false,
            1 => self.sum == *v,
            _ => true,
        }
    }
}

/// The state of a [`Bool`] aggregate: how many true and how many false
/// contributions are live (derivation counting).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LevelCounts {
    counts: [u64; 5],
}

impl LevelCounts {
    /// How many live contributions have the level `v`.
    pub fn contributions(&self, v: AccessControl) -> u64 {
        self.counts[v.rank()]
    }
}

// Rings keep their sum itself (`maintained.rs`): a retraction subtracts,
// in O(1).
impl Deletable for Int {}
impl Deletable for Real {}
impl<const M: usize> Deletable for Covariance<M> {}
impl Deletable for Count {}
impl Deletable for Bool {}
impl Deletable for AccessControl {}

impl Maintained for Count {
    type State = SumState<Count>;

    #[inline]
    fn value(state: &Self::State) -> Self {
        state.sum
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &Self) {
        state.insert(v);
    }

    /// Truncated subtraction that checks it truncates nothing: refuses
    /// zero (never a live contribution: taking it back would lose count of
    /// one), and refuses when nothing is live, when the sum is below `v`
    /// (the remaining contributions would sum to less than zero), or when
    /// one contribution is live and it is not `v`.
    #[inline]
    fn retract(state: &mut Self::State, v: &Self) -> bool {
        if v.is_zero() || !state.may_hold(v) {
            return false;
        }
        let Some(rest) = state.sum.0.checked_sub(v.0) else {
            return false;
        };
        state.sum = Count(rest);
        state.contributions -= 1;
        true
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        state.contributions == 0
    }
}

impl Maintained for Bool {
    type State = BoolState;
    const RETRACTS_EXACTLY: bool = true;

    #[inline]
    fn value(state: &Self::State) -> Self {
        Bool(state.trues > 0)
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &Self) {
        if v.0 {
            state.trues += 1;
        } else {
            state.falses += 1;
        }
    }

    /// Exact: refuses exactly when no live contribution equals `v`, and
    /// always refuses zero (`false`), which is never a live contribution.
    #[inline]
    fn retract(state: &mut Self::State, v: &Self) -> bool {
        if v.is_zero() {
            return false;
        }
        let count = if v.0 {
            &mut state.trues
        } else {
            &mut state.falses
        };
        take_one(count)
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        state.trues == 0 && state.falses == 0
    }
}

impl Maintained for AccessControl {
    type State = LevelCounts;
    const RETRACTS_EXACTLY: bool = true;

    /// The least restrictive level with a live contribution, or `Denied`
    /// (the zero) when there is none.
    #[inline]
    fn value(state: &Self::State) -> Self {
        AccessControl::LEVELS
            .into_iter()
            .zip(state.counts)
            .find(|&(_, count)| count > 0)
            .map_or(AccessControl::Denied, |(level, _)| level)
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &Self) {
        state.counts[v.rank()] += 1;
    }

    /// Exact: refuses exactly when no live contribution has the level `v`,
    /// and always refuses zero (`Denied`), which is never a live
    /// contribution.
    #[inline]
    fn retract(state: &mut Self::State, v: &Self) -> bool {
        !v.is_zero() && take_one(&mut state.counts[v.rank()])
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        state.counts.iter().all(|&count| count == 0)
    }
}

/// Takes one from a count of live contributions; `false`, with the count
/// unchanged, when it is zero.
#[inline]
fn take_one(count: &mut u64) -> bool {
    match count.checked_sub(1) {
        Some(rest) => {
            *count = rest;
            true
        }
        None => false,
    }
}
