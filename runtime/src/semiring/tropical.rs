//! The tropical semirings: `MinPlus` (shortest paths, cheapest derivations)
//! and `MaxPlus` (longest paths, best scores).

use std::fmt;

use super::{
    CheckedSemiring, Idempotent, OplusStrictlyMonotone, Positive, Selective, StrictlyMonotone,
    impl_number_semiring, overflow,
};

/// The min-plus (tropical) semiring over `i64` ∪ {+∞}: ⊕ = min, ⊗ = +,
/// 0 = +∞, 1 = 0. The payload of a result is its cheapest derivation, where
/// a derivation costs the sum of its facts' costs.
///
/// +∞ is represented by `i64::MAX` ([`MinPlus::INFINITY`]), so the finite
/// costs are `i64::MIN ..= i64::MAX - 1`. ⊗ with +∞ gives +∞. A sum of two
/// finite costs that leaves the finite range panics: saturating it to +∞
/// would turn an expensive but present derivation into an absent one, and
/// wrapping would make it cheap. [`CheckedSemiring::checked_mul`] returns
/// `None` instead.
///
/// Positive, selective and strictly monotone. Deletes need an ordered
/// multiset of contributions (*Answering Conjunctive Queries with
/// Aggregations under Updates*, Lemma 24: no O(1) summary can yield the new
/// minimum after the minimum is retracted).
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::MinPlus;
///
/// // Two paths, of lengths 2 + 3 and 1 + 7: the shorter wins.
/// let best = MinPlus(2).mul(&MinPlus(3)).add(&MinPlus(1).mul(&MinPlus(7)));
/// assert_eq!(best, MinPlus(5));
/// assert_eq!(MinPlus::zero(), MinPlus::INFINITY);
/// assert_eq!(MinPlus(4).mul(&MinPlus::INFINITY), MinPlus::INFINITY);
/// assert_eq!(MinPlus::INFINITY.to_string(), "∞");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MinPlus(pub i64);

/// The max-plus (arctic) semiring over `i64` ∪ {−∞}: ⊕ = max, ⊗ = +,
/// 0 = −∞, 1 = 0. The mirror image of [`MinPlus`]: the payload of a result
/// is its best-scoring derivation.
///
/// −∞ is represented by `i64::MIN` ([`MaxPlus::NEG_INFINITY`]), so the
/// finite scores are `i64::MIN + 1 ..= i64::MAX`; a finite sum outside that
/// range panics, and [`CheckedSemiring::checked_mul`] returns `None`.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::MaxPlus;
///
/// let best = MaxPlus(2).mul(&MaxPlus(3)).add(&MaxPlus(1).mul(&MaxPlus(7)));
/// assert_eq!(best, MaxPlus(8));
/// assert_eq!(MaxPlus::zero(), MaxPlus::NEG_INFINITY);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MaxPlus(pub i64);

impl MinPlus {
    /// +∞, the zero of the semiring: no derivation at all.
    pub const INFINITY: MinPlus = MinPlus(i64::MAX);
}

impl MaxPlus {
    /// −∞, the zero of the semiring: no derivation at all.
    pub const NEG_INFINITY: MaxPlus = MaxPlus(i64::MIN);
}

/// ⊗ of `MinPlus`, or `None` when a finite sum leaves the finite range.
#[inline]
fn min_plus_mul(a: i64, b: i64) -> Option<i64> {
    if a == i64::MAX || b == i64::MAX {
        return Some(i64::MAX);
    }
    // A finite sum equal to i64::MAX would read as +∞, so it overflows too.
    a.checked_add(b).filter(|&sum| sum != i64::MAX)
}

/// ⊗ of `MaxPlus`, or `None` when a finite sum leaves the finite range.
#[inline]
fn max_plus_mul(a: i64, b: i64) -> Option<i64> {
    if a == i64::MIN || b == i64::MIN {
        return Some(i64::MIN);
    }
    a.checked_add(b).filter(|&sum| sum != i64::MIN)
}

impl_number_semiring!(MinPlus {
    zero: i64::MAX,
    one: 0,
    add: i64::min,
    mul: |a: i64, b: i64| min_plus_mul(a, b).unwrap_or_else(|| overflow("MinPlus", "⊗", &a, &b)),
});

impl_number_semiring!(MaxPlus {
    zero: i64::MIN,
    one: 0,
    add: i64::max,
    mul: |a: i64, b: i64| max_plus_mul(a, b).unwrap_or_else(|| overflow("MaxPlus", "⊗", &a, &b)),
});

impl CheckedSemiring for MinPlus {
    /// Always `Some`: min never overflows.
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Some(MinPlus(self.0.min(other.0)))
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        min_plus_mul(self.0, other.0).map(MinPlus)
    }
}

impl CheckedSemiring for MaxPlus {
    /// Always `Some`: max never overflows.
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Some(MaxPlus(self.0.max(other.0)))
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        max_plus_mul(self.0, other.0).map(MaxPlus)
    }
}

impl Idempotent for MinPlus {}
impl Idempotent for MaxPlus {}

impl Selective for MinPlus {
    /// Cheaper is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 < other.0
    }
}

impl Selective for MaxPlus {
    /// Higher is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 > other.0
    }
}

impl Positive for MinPlus {}
impl Positive for MaxPlus {}
impl OplusStrictlyMonotone for MinPlus {}
impl OplusStrictlyMonotone for MaxPlus {}
impl StrictlyMonotone for MinPlus {}
impl StrictlyMonotone for MaxPlus {}

impl fmt::Display for MinPlus {
    /// Finite costs as numbers, the zero as `∞`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == MinPlus::INFINITY {
            f.pad("∞")
        } else {
            fmt::Display::fmt(&self.0, f)
        }
    }
}

impl fmt::Display for MaxPlus {
    /// Finite scores as numbers, the zero as `-∞`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == MaxPlus::NEG_INFINITY {
            f.pad("-∞")
        } else {
            fmt::Display::fmt(&self.0, f)
        }
    }
}
