//! Payloads under inserts and deletes: the [`Maintained`] trait, through
//! which generated code keeps the ⊕ of a multiset of contributions in every
//! semiring, and [`OrderedState`], its state for the selective semirings.

use std::collections::BTreeMap;
use std::fmt::Debug;

use crate::semiring::{Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real, overflow};
use crate::{Ring, Selective, Semiring};

/// A multiset of contributions and its ⊕, under inserts and retractions: how
/// a view keeps the payload of one key while the updates below it come and
/// go. Every catalogue semiring implements it, so generated code has one way
/// to maintain payloads whatever the semiring; how a retraction works is the
/// semiring's business (`docs/design.md#k-relations-and-updates`):
///
/// - a [`Ring`] (`Int`, `Real`, `Covariance<M>`, `sql::Decimal`) keeps the ⊕ itself, as a
///   plain sum would, and retracts by subtracting;
/// - `Count`, `Bool` and `AccessControl` keep O(1) summaries
///   ([`Deletable`](crate::Deletable)): a sum with a count of
///   contributions, and derivation counts;
/// - the selective semirings without an O(1) summary (`MinPlus`, `MaxPlus`,
///   `MaxMin`, `MinMax`, `MaxMax`) keep an [`OrderedState`], O(log N) per
///   operation, which is optimal under deletes (*Answering Conjunctive
///   Queries with Aggregations under Updates*, section 5.3).
///
/// Generated code calls it through the maps that hold payloads
/// (`PayloadMap::add`, `retract`, `replace`). It is the one trait for
/// retraction: whether it costs O(1) is the class [`Deletable`](crate::Deletable).
///
/// # Laws
///
/// For a state built from `Default` by `insert`s, successful `retract`s and
/// `replace`s:
///
/// - `value` is the ⊕ of the live contributions, and zero when none is
///   live;
/// - `retract(v)` of a live contribution `v` returns `true` and takes it
///   back; a `retract` that returns `false` has changed nothing;
/// - `replace(old, new)`, with `old` live or zero, has the effect of
///   `retract(old)` unless `old` is zero, then `insert(new)` unless `new` is
///   zero;
/// - `is_empty` holds exactly when no contribution is live. In a ring that
///   is when the value is zero: the tuple is then absent.
///
/// # Not required
///
/// - That `retract` refuses every contribution that is not live. A ring
///   cannot tell its contributions apart (after 2 and 3, taking back 5
///   leaves zero), so it refuses only when the value is zero; `Count`
///   refuses what its sum and count rule out. The others are exact.
/// - O(1) time: an [`OrderedState`] takes O(log N).
/// - Zero contributions: callers never insert zero (a zero contribution is
///   an absent one), so a positive semiring refuses to retract zero.
///
/// ```
/// use ivm::Maintained;
/// use ivm::semiring::MinPlus;
///
/// let mut costs = <MinPlus as Maintained>::State::default();
/// for cost in [5, 3, 8] {
///     MinPlus::insert(&mut costs, &MinPlus(cost));
/// }
/// assert_eq!(MinPlus::value(&costs), MinPlus(3));
///
/// // The cheapest derivation goes; the next cheapest takes over.
/// assert!(MinPlus::retract(&mut costs, &MinPlus(3)));
/// assert_eq!(MinPlus::value(&costs), MinPlus(5));
///
/// // 4 was never inserted: refused, nothing changes.
/// assert!(!MinPlus::retract(&mut costs, &MinPlus(4)));
///
/// // One derivation gets cheaper.
/// MinPlus::replace(&mut costs, &MinPlus(8), &MinPlus(1));
/// assert_eq!(MinPlus::value(&costs), MinPlus(1));
/// assert!(!MinPlus::is_empty(&costs));
/// ```
pub trait Maintained: Semiring {
    /// The ⊕ of a multiset of live contributions, in a form that supports
    /// retraction. `Default` is the empty multiset.
    type State: Clone + Debug + Default;

    /// Whether the state is the sum itself and a retraction subtracts,
    /// refusing only when the sum is zero (a ring's rule). A tuple of such
    /// semirings retracts the same way as a whole.
    const BY_SUBTRACTION: bool = false;

    /// Whether every retraction `retract` accepts takes back what was
    /// inserted, so that a state told each contribution apart and one told
    /// only each tuple's total agree: a ring's (by subtraction, which is
    /// linear), or an exact `retract`, which refuses every contribution
    /// that is not live. `Count`'s is neither (after 1 and 1 it takes back
    /// 2). A relation kept as fingerprints then tells the views above each
    /// update's δ, without waiting for its map's answer.
    const RETRACTS_EXACTLY: bool = Self::BY_SUBTRACTION;

    /// The ⊕ of the live contributions (zero when none).
    fn value(state: &Self::State) -> Self;

    /// Adds one contribution `v` (callers never pass zero).
    fn insert(state: &mut Self::State, v: &Self);

    /// Retracts one live contribution `v`. Returns `false`, leaving the
    /// state unchanged, when no such contribution is alive.
    fn retract(state: &mut Self::State, v: &Self) -> bool;

    /// One contribution changes from `old` to `new` (either may be zero,
    /// meaning absent). Never fails when `old` is alive (or zero).
    ///
    /// The provided method retracts `old` and inserts `new`; rings replace
    /// it by one addition. Passing an `old` that is not alive is a bug in
    /// the caller, caught by a debug assertion.
    fn replace(state: &mut Self::State, old: &Self, new: &Self) {
        if !old.is_zero() {
            let retracted = Self::retract(state, old);
            debug_assert!(
                retracted,
                "ivm: replace of {old:?}, which is not a live contribution"
            );
        }
        if !new.is_zero() {
            Self::insert(state, new);
        }
    }

    /// No live contribution: the entry holding this state can be dropped.
    fn is_empty(state: &Self::State) -> bool;
}

// ---------------------------------------------------------------------------
// Rings: the state is the sum.

impl Maintained for Int {
    type State = Int;
    const BY_SUBTRACTION: bool = true;

    #[inline]
    fn value(state: &Int) -> Int {
        *state
    }

    /// Panics when the sum leaves `i64`, like [`Semiring::add`].
    #[inline]
    fn insert(state: &mut Int, v: &Int) {
        state.add_assign(v);
    }

    /// Refuses exactly when the sum is zero (the tuple is absent).
    #[inline]
    fn retract(state: &mut Int, v: &Int) -> bool {
        if state.is_zero() {
            return false;
        }
        // Not `Ring::sub`, which negates first and so fails for
        // `Int(i64::MIN)` even where the difference fits.
        let rest = state.0.checked_sub(v.0).unwrap_or_else(|| {
            overflow("Int", "⊕", &state.0, &-i128::from(v.0));
        });
        state.0 = rest;
        true
    }

    /// Exact: panics only when the new sum leaves `i64`, not when
    /// `new − old` or a partial sum would.
    #[inline]
    fn replace(state: &mut Int, old: &Int, new: &Int) {
        // The usual case in plain i64 arithmetic; only when a step of it
        // overflows is the exact sum worked out in i128.
        if let Some(sum) = new
            .0
            .checked_sub(old.0)
            .and_then(|d| state.0.checked_add(d))
        {
            state.0 = sum;
            return;
        }
        let change = i128::from(new.0) - i128::from(old.0);
        state.0 = i64::try_from(i128::from(state.0) + change)
            .unwrap_or_else(|_| overflow("Int", "⊕", &state.0, &change));
    }

    #[inline]
    fn is_empty(state: &Int) -> bool {
        state.is_zero()
    }
}

/// Implements [`Maintained`] for rings whose state is their sum: a
/// retraction subtracts, and refuses exactly when the sum is zero (the
/// tuple is absent).
///
/// Over floats (`Real`, `Covariance<M>`), a sum returns to exactly zero
/// only where the arithmetic is exact: after contributions 0.1 and 0.2 are
/// retracted, a residue of rounding may remain, and the state is then not
/// empty. That is the ring ℝ approximated by `f64`, not a retraction rule.
macro_rules! maintained_by_sum {
    ($([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> Maintained for $ty {
            type State = Self;
            const BY_SUBTRACTION: bool = true;

            #[inline]
            fn value(state: &Self) -> Self {
                *state
            }

            #[inline]
            fn insert(state: &mut Self, v: &Self) {
                state.add_assign(v);
            }

            /// Refuses exactly when the sum is zero (the tuple is absent).
            #[inline]
            fn retract(state: &mut Self, v: &Self) -> bool {
                if state.is_zero() {
                    return false;
                }
                *state = state.sub(v);
                true
            }

            #[inline]
            fn replace(state: &mut Self, old: &Self, new: &Self) {
                // new − old first, so that a float sum replaced by an equal
                // payload stays bit for bit what it was instead of
                // drifting by rounding.
                state.add_assign(&new.sub(old));
            }

            #[inline]
            fn is_empty(state: &Self) -> bool {
                state.is_zero()
            }
        }
    )*};
}

maintained_by_sum!([] Real, [const M: usize] Covariance<M>);

// Positive semirings with an O(1) summary (`Count`, `Bool`,
// `AccessControl`) implement `Maintained` beside their states, in
// `semiring/deletable.rs`.

// ---------------------------------------------------------------------------
// Selective semirings: an ordered multiset.

/// The live contributions of a selective semiring, as an ordered multiset
/// (each distinct value with how many times it is live), so that when the
/// best contribution is retracted the next best is at hand. O(log N) per
/// operation for N distinct values, which is optimal: no O(1) summary can
/// yield the new best after the best goes (*Answering Conjunctive Queries
/// with Aggregations under Updates*, Lemma 24 and section 5.3).
///
/// Most keys of a view have a single distinct contribution; a state with
/// one keeps it inline and allocates nothing. Most of the others have a
/// few (the suppliers of an order's lines, the offers of a product): up to
/// [`FEW`] distinct values are kept in one sorted vector, where a search
/// and a shift of a handful of entries beat a tree's nodes, each a heap
/// allocation of its own. Past [`FEW`] a B-tree keeps the bound O(log N).
/// Two states are equal exactly when their multisets are, whatever form
/// holds them.
///
/// The order of `K` (its `Ord`) must rank values by the semiring's
/// preference, in either direction: then the best of a multiset is at one
/// of its ends and is found as first ⊕ last. The derived orders of the
/// catalogue types do (smaller is better for [`MinPlus`] and [`MinMax`],
/// larger for the rest). A user's selective semiring can use this state
/// for its own [`Maintained`] implementation.
///
/// ```
/// use ivm::maintained::OrderedState;
/// use ivm::semiring::MaxPlus;
///
/// let mut scores = OrderedState::default();
/// scores.insert(MaxPlus(4));
/// scores.insert(MaxPlus(9));
/// scores.insert(MaxPlus(9));
/// assert_eq!(scores.best(), MaxPlus(9));
/// assert_eq!(scores.contributions(&MaxPlus(9)), 2);
///
/// assert!(scores.retract(&MaxPlus(9)));
/// assert!(scores.retract(&MaxPlus(9)));
/// assert_eq!(scores.best(), MaxPlus(4));
/// assert!(!scores.retract(&MaxPlus(9)));
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "K: serde::Serialize + Ord",
        deserialize = "K: serde::Deserialize<'de> + Ord"
    ))
)]
pub struct OrderedState<K> {
    repr: Repr<K>,
}

/// The most distinct values an [`OrderedState`] keeps in its sorted
/// vector before it moves them to a B-tree.
pub const FEW: usize = 16;

/// The forms of an [`OrderedState`]. `Few` holds two to [`FEW`] distinct
/// values, and `Many` more than `FEW` once it has grown past them (it goes
/// back to `Few` when a retraction leaves `FEW`; a snapshot of a build
/// without `Few` may restore a smaller `Many`, which is as right, and
/// turns into `Few` at its first retraction). `Few` comes last so that the
/// other forms keep their place in a snapshot.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(bound(
        serialize = "K: serde::Serialize + Ord",
        deserialize = "K: serde::Deserialize<'de> + Ord"
    ))
)]
enum Repr<K> {
    /// Nothing is live.
    Empty,
    /// One distinct value is live, this many times.
    One(K, u32),
    /// More than [`FEW`] distinct values are live, each this many times.
    Many(BTreeMap<K, u32>),
    /// Two to [`FEW`] distinct values are live, in order, each this many
    /// times.
    Few(Vec<(K, u32)>),
}

impl<K> Default for OrderedState<K> {
    /// The empty multiset.
    #[inline]
    fn default() -> Self {
        OrderedState { repr: Repr::Empty }
    }
}

impl<K: Ord + Clone> OrderedState<K> {
    /// Adds one contribution `v`. O(log N).
    ///
    /// # Panics
    ///
    /// When one value would be live more than `u32::MAX` times.
    pub fn insert(&mut self, v: K) {
        match &mut self.repr {
            Repr::Empty => self.repr = Repr::One(v, 1),
            Repr::One(k, count) if *k == v => increment(count),
            Repr::One(k, count) => {
                let first = (k.clone(), *count);
                let mut few = Vec::with_capacity(4);
                if v < first.0 {
                    few.extend([(v, 1), first]);
                } else {
                    few.extend([first, (v, 1)]);
                }
                self.repr = Repr::Few(few);
            }
            Repr::Few(few) => match few.binary_search_by(|(k, _)| k.cmp(&v)) {
                Ok(at) => increment(&mut few[at].1),
                Err(at) if few.len() < FEW => few.insert(at, (v, 1)),
                Err(_) => {
                    let mut map: BTreeMap<K, u32> = std::mem::take(few).into_iter().collect();
                    map.insert(v, 1);
                    self.repr = Repr::Many(map);
                }
            },
            Repr::Many(map) => increment(map.entry(v).or_insert(0)),
        }
    }

    /// Takes back one contribution `v`. Returns `false`, with the state
    /// unchanged, when `v` is not live. O(log N).
    pub fn retract(&mut self, v: &K) -> bool {
        match &mut self.repr {
            Repr::Empty => false,
            Repr::One(k, _) if k != v => false,
            Repr::One(_, count) => {
                if *count > 1 {
                    *count -= 1;
                } else {
                    self.repr = Repr::Empty;
                }
                true
            }
            Repr::Many(map) => {
                let Some(count) = map.get_mut(v) else {
                    return false;
                };
                if *count > 1 {
                    *count -= 1;
                } else {
                    map.remove(v);
                }
                // Back to the vector when few values are left: frees the
                // tree's nodes.
                if map.len() <= FEW {
                    let few: Vec<(K, u32)> = std::mem::take(map).into_iter().collect();
                    self.repr = Repr::Few(few);
                    self.unless_one_is_left();
                }
                true
            }
            Repr::Few(few) => {
                let Ok(at) = few.binary_search_by(|(k, _)| k.cmp(v)) else {
                    return false;
                };
                if few[at].1 > 1 {
                    few[at].1 -= 1;
                } else {
                    few.remove(at);
                    self.unless_one_is_left();
                }
                true
            }
        }
    }

    /// Back to the inline form when one value is left in the vector:
    /// frees it, and keeps `Few` to two or more values.
    fn unless_one_is_left(&mut self) {
        if let Repr::Few(few) = &mut self.repr
            && few.len() <= 1
        {
            self.repr = match few.pop() {
                Some((k, count)) => Repr::One(k, count),
                None => Repr::Empty,
            };
        }
    }

    /// The distinct live values in order, each with how many times it is
    /// live.
    fn entries(&self) -> Entries<'_, K> {
        match &self.repr {
            Repr::Empty => Entries::One(None),
            Repr::One(k, count) => Entries::One(Some((k, *count))),
            Repr::Few(few) => Entries::Few(few.iter()),
            Repr::Many(map) => Entries::Many(map.iter()),
        }
    }

    /// How many live contributions equal `v`.
    pub fn contributions(&self, v: &K) -> u32 {
        match &self.repr {
            Repr::Empty => 0,
            Repr::One(k, count) => {
                if k == v {
                    *count
                } else {
                    0
                }
            }
            Repr::Few(few) => few
                .binary_search_by(|(k, _)| k.cmp(v))
                .map_or(0, |at| few[at].1),
            Repr::Many(map) => map.get(v).copied().unwrap_or(0),
        }
    }

    /// Whether no contribution is live.
    #[inline]
    pub fn is_empty(&self) -> bool {
        matches!(self.repr, Repr::Empty)
    }
}

impl<K: Selective + Ord> OrderedState<K> {
    /// The ⊕ of the live contributions: the best one, or zero when none is
    /// live. O(log N).
    pub fn best(&self) -> K {
        match &self.repr {
            Repr::Empty => K::zero(),
            Repr::One(k, _) => k.clone(),
            // The best is at one end of the order; which end is the
            // semiring's to say, so ask ⊕ instead of assuming min or max.
            Repr::Few(few) => match (few.first(), few.last()) {
                (Some((first, _)), Some((last, _))) => first.add(last),
                _ => K::zero(),
            },
            Repr::Many(map) => match (map.first_key_value(), map.last_key_value()) {
                (Some((first, _)), Some((last, _))) => first.add(last),
                _ => K::zero(),
            },
        }
    }
}

/// Equal multisets, whatever forms hold them.
impl<K: Ord + Clone> PartialEq for OrderedState<K> {
    fn eq(&self, other: &Self) -> bool {
        self.entries().eq(other.entries())
    }
}

impl<K: Ord + Clone> Eq for OrderedState<K> {}

/// The entries of an [`OrderedState`], in order: see
/// [`OrderedState::entries`].
enum Entries<'a, K> {
    One(Option<(&'a K, u32)>),
    Few(std::slice::Iter<'a, (K, u32)>),
    Many(std::collections::btree_map::Iter<'a, K, u32>),
}

impl<'a, K> Iterator for Entries<'a, K> {
    type Item = (&'a K, u32);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::One(one) => one.take(),
            Entries::Few(few) => few.next().map(|(k, count)| (k, *count)),
            Entries::Many(many) => many.next().map(|(k, count)| (k, *count)),
        }
    }
}

/// Adds one to a count of live contributions.
#[inline]
fn increment(count: &mut u32) {
    *count = count.checked_add(1).unwrap_or_else(|| too_many());
}

#[cold]
#[inline(never)]
fn too_many() -> ! {
    panic!(
        "ivm: more than u32::MAX live contributions of one value to one payload; \
         retract some before inserting more"
    )
}

/// Implements [`Maintained`] by an [`OrderedState`] for selective semirings
/// whose derived order ranks their values.
macro_rules! maintained_by_order {
    ($($ty:ty),* $(,)?) => {$(
        impl Maintained for $ty {
            type State = OrderedState<$ty>;
            const RETRACTS_EXACTLY: bool = true;

            #[inline]
            fn value(state: &Self::State) -> Self {
                state.best()
            }

            #[inline]
            fn insert(state: &mut Self::State, v: &Self) {
                state.insert(*v);
            }

            /// Exact: refuses exactly when no live contribution equals `v`.
            #[inline]
            fn retract(state: &mut Self::State, v: &Self) -> bool {
                state.retract(v)
            }

            #[inline]
            fn is_empty(state: &Self::State) -> bool {
                state.is_empty()
            }
        }
    )*};
}

maintained_by_order!(MinPlus, MaxPlus, MaxMin, MinMax, MaxMax);

// ---------------------------------------------------------------------------
// Inserts only, over an idempotent semiring: the state is the value.

/// How generated code keeps a payload under inserts only over an idempotent
/// semiring (`Bool`, `MinPlus`, `MaxMax`, ...): the state is the ⊕ itself,
/// and every operation is one ⊕, O(1). A query compiled with
/// `#[updates(insert_only)]` over such a semiring calls these methods where
/// a query under deletes calls [`Maintained`]'s, whose ordered multisets
/// cost O(log N) for the selective semirings.
///
/// Why one ⊕ is enough: under inserts a contribution only grows in the
/// semiring's natural order (products and sums of growing payloads grow).
/// When `old ≤ new`, `new = old ⊕ c` for some `c`, so with an idempotent ⊕,
/// `(rest ⊕ old) ⊕ new = rest ⊕ new`: adding the new contribution without
/// taking back the old one gives the right total. Nothing here can retract,
/// and the generated code of an insert-only query has no deletes.
///
/// ```
/// use ivm::Absorbed;
/// use ivm::semiring::MinPlus;
///
/// let mut cost = <MinPlus as Absorbed>::State::default();
/// <MinPlus as Absorbed>::insert(&mut cost, &MinPlus(5));
/// // The path got cheaper.
/// <MinPlus as Absorbed>::replace(&mut cost, &MinPlus(5), &MinPlus(2));
/// <MinPlus as Absorbed>::insert(&mut cost, &MinPlus(4));
/// assert_eq!(<MinPlus as Absorbed>::value(&cost), MinPlus(2));
/// ```
pub trait Absorbed: crate::Idempotent {
    /// The ⊕ of the contributions so far; `Default` is zero.
    type State: Clone + Debug + Default;

    /// The ⊕ of the contributions so far.
    fn value(state: &Self::State) -> Self;

    /// Adds one contribution.
    fn insert(state: &mut Self::State, v: &Self);

    /// A contribution grew from `old` to `new`: adds `new`, which absorbs
    /// `old`.
    fn replace(state: &mut Self::State, old: &Self, new: &Self);

    /// Whether nothing non-zero has been added.
    fn is_empty(state: &Self::State) -> bool;
}

/// The state of an [`Absorbed`] payload: the value, zero by default.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AbsorbedState<K>(pub K);

impl<K: Semiring> Default for AbsorbedState<K> {
    fn default() -> Self {
        AbsorbedState(K::zero())
    }
}

impl<K: crate::Idempotent> Absorbed for K {
    type State = AbsorbedState<K>;

    #[inline]
    fn value(state: &Self::State) -> Self {
        state.0.clone()
    }

    #[inline]
    fn insert(state: &mut Self::State, v: &Self) {
        state.0 = state.0.add(v);
    }

    #[inline]
    fn replace(state: &mut Self::State, _old: &Self, new: &Self) {
        state.0 = state.0.add(new);
    }

    #[inline]
    fn is_empty(state: &Self::State) -> bool {
        state.0.is_zero()
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;

    /// A build before the sorted vector kept every state of two or more
    /// distinct values in a tree. Its snapshots restore here as the same
    /// multisets, and move to the vector at their first retraction.
    #[test]
    fn a_small_tree_of_an_older_snapshot_restores_as_the_same_multiset() {
        let tree = BTreeMap::from([(MinPlus(3), 1), (MinPlus(5), 2)]);
        let older = OrderedState {
            repr: Repr::Many(tree),
        };
        let bytes = postcard::to_stdvec(&older).expect("serializes");
        let mut restored: OrderedState<MinPlus> = postcard::from_bytes(&bytes).expect("restores");
        let mut fresh = OrderedState::default();
        for v in [5, 3, 5] {
            fresh.insert(MinPlus(v));
        }
        assert!(matches!(fresh.repr, Repr::Few(_)));
        assert_eq!(restored, fresh);
        assert_eq!(restored.best(), MinPlus(3));
        assert!(restored.retract(&MinPlus(5)));
        assert!(matches!(restored.repr, Repr::Few(_)));
        assert!(fresh.retract(&MinPlus(5)));
        assert_eq!(restored, fresh);
    }
}
