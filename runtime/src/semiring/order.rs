//! The semirings built from an order: `Bool`, the fuzzy `MaxMin`, its
//! mirror `MinMax`, the max-max semiring `MaxMax`, and `AccessControl`.

use std::fmt;

use super::{
    BoundedMonotone, Idempotent, OplusStrictlyMonotone, Positive, Selective, Semiring,
    StrictlyMonotone, impl_number_semiring, impl_total_checked,
};

/// Truth values under ∨ and ∧: set semantics, where a payload says whether
/// a tuple is present.
///
/// Positive, selective and bounded monotone (a payload can change under
/// inserts at most once, from false to true). Deletes count the true
/// derivations (derivation counting) through
/// [`Deletable`](crate::Deletable).
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::Bool;
///
/// assert_eq!(Bool(true).mul(&Bool(false)), Bool(false));
/// assert_eq!(Bool(true).add(&Bool(false)), Bool(true));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bool(pub bool);

/// The fuzzy semiring over `i64`: ⊕ = max, ⊗ = min, 0 = `i64::MIN`,
/// 1 = `i64::MAX`. A payload is a degree of confidence: a derivation is as
/// strong as its weakest fact, and a result as strong as its strongest
/// derivation (the bottleneck, or widest-path, semiring).
///
/// The laws are those of any bounded distributive lattice; a chain such as
/// `i64` is one, with its least and greatest elements as 0 and 1.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::MaxMin;
///
/// // Paths with bottlenecks 3 and 5: the wider one wins.
/// let widest = MaxMin(7).mul(&MaxMin(3)).add(&MaxMin(5).mul(&MaxMin(9)));
/// assert_eq!(widest, MaxMin(5));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MaxMin(pub i64);

/// The order dual of [`MaxMin`] over `i64`: ⊕ = min, ⊗ = max,
/// 0 = `i64::MAX`, 1 = `i64::MIN`. A derivation is as late (or as costly) as
/// its worst fact, and a result takes its best derivation: for example the
/// earliest time by which some derivation has all its facts.
///
/// Isomorphic to [`MaxMin`] by reversing the order, so it has the same laws
/// and the same classes.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::MinMax;
///
/// let earliest = MinMax(7).mul(&MinMax(3)).add(&MinMax(5).mul(&MinMax(9)));
/// assert_eq!(earliest, MinMax(7));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MinMax(pub i64);

/// The max-max semiring (*Answering Conjunctive Queries with Aggregations
/// under Updates*, section 5.2): both operations take the maximum, so the
/// payload of a result is the largest annotation among all the facts of all
/// its derivations.
///
/// # Representation, and why the laws hold
///
/// ⊗ = max alone cannot have a zero: 0 must be neutral for ⊕ = max, so the
/// least element, yet must absorb under ⊗, where max(a, least) = a. The
/// semiring therefore takes an ordered domain L and adjoins a fresh 0 below
/// it that absorbs under ⊗:
///
/// - a ⊕ b = max(a, b), with 0 the least element;
/// - a ⊗ b = 0 if a or b is 0, otherwise max(a, b);
/// - 1 is the least element of L, neutral for max on L.
///
/// Here L is `i64::MIN + 1 ..= i64::MAX`, 0 is `i64::MIN`
/// ([`MaxMax::NEG_INFINITY`]) and 1 is `i64::MIN + 1` ([`MaxMax::BOTTOM`]).
/// The laws hold by cases: if 0 is among the operands of ⊗, both sides of
/// ⊗-associativity, of 1-neutrality and of distributivity evaluate to 0 (in
/// a ⊗ (b ⊕ c) with a ≠ 0, a 0 in b or c drops out of the max on both
/// sides); otherwise every equation is one about max over a chain, where
/// max is associative, commutative, idempotent and distributes over itself.
///
/// Positive, selective and ⊕-strictly monotone, but not strictly monotone:
/// for 0 < a < b, a ⊗ bᵏ = b = bᵏ⁺¹. That gap is why free-connex queries
/// without a q-core stay O(1) under inserts here (the same paper,
/// Theorem 22).
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::MaxMax;
///
/// assert_eq!(MaxMax(3).mul(&MaxMax(8)).add(&MaxMax(5)), MaxMax(8));
/// assert_eq!(MaxMax(3).mul(&MaxMax::zero()), MaxMax::zero());
/// assert_eq!(MaxMax(3).mul(&MaxMax::one()), MaxMax(3));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MaxMax(pub i64);

/// The access-control (security) semiring: clearance levels ordered by
/// restrictiveness, `Public < Internal < Confidential < Secret < Denied`.
///
/// A derivation needs every fact it uses, so it is as restrictive as its
/// most restrictive fact (⊗ = max); a result is accessible through any of
/// its derivations, so it takes the least restrictive one (⊕ = min).
/// `Denied` (⊥, inaccessible) is the zero: neutral for min because it is
/// the greatest level, absorbing for max for the same reason. `Public` is
/// the one: the least level, neutral for max. The laws are those of a
/// bounded distributive lattice, which every finite chain is.
///
/// Positive, selective and bounded monotone: under inserts a payload can
/// only become less restrictive, at most four times. Deletes keep one
/// derivation count per level through
/// [`Deletable`](crate::Deletable).
///
/// The derived `Ord` is the restrictiveness order above; the semiring's
/// natural order is its reverse.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::AccessControl::{Confidential, Denied, Internal, Public, Secret};
///
/// // One derivation joins an internal and a secret fact, another is public.
/// assert_eq!(Internal.mul(&Secret).add(&Public.mul(&Confidential)), Confidential);
/// assert_eq!(Secret.mul(&Denied), Denied);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AccessControl {
    /// Anyone may see it; the one of the semiring.
    Public,
    /// Visible inside the organization.
    Internal,
    /// Visible to those cleared for confidential data.
    Confidential,
    /// Visible to those cleared for secrets.
    Secret,
    /// Visible to no one (⊥); the zero of the semiring and the payload of
    /// an absent tuple.
    Denied,
}

impl MaxMin {
    /// −∞, the zero: no derivation.
    pub const NEG_INFINITY: MaxMin = MaxMin(i64::MIN);
    /// +∞, the one: full confidence.
    pub const INFINITY: MaxMin = MaxMin(i64::MAX);
}

impl MinMax {
    /// +∞, the zero: no derivation.
    pub const INFINITY: MinMax = MinMax(i64::MAX);
    /// −∞, the one: neutral in a derivation.
    pub const NEG_INFINITY: MinMax = MinMax(i64::MIN);
}

impl MaxMax {
    /// −∞, the adjoined zero: no derivation. It lies below every element of
    /// the domain and absorbs under ⊗.
    pub const NEG_INFINITY: MaxMax = MaxMax(i64::MIN);
    /// The least element of the domain, the one: a fact that contributes
    /// nothing to a maximum.
    pub const BOTTOM: MaxMax = MaxMax(i64::MIN + 1);
}

impl AccessControl {
    /// All levels, from the least restrictive to the most.
    pub const LEVELS: [AccessControl; 5] = [
        AccessControl::Public,
        AccessControl::Internal,
        AccessControl::Confidential,
        AccessControl::Secret,
        AccessControl::Denied,
    ];

    /// The position in [`LEVELS`](Self::LEVELS).
    #[inline]
    pub(crate) fn rank(self) -> usize {
        self as usize
    }
}

impl Semiring for Bool {
    const ZERO_DIVISOR_FREE: bool = true;

    #[inline]
    fn zero() -> Self {
        Bool(false)
    }

    #[inline]
    fn one() -> Self {
        Bool(true)
    }

    #[inline]
    fn is_zero(&self) -> bool {
        !self.0
    }

    #[inline]
    fn add(&self, other: &Self) -> Self {
        Bool(self.0 | other.0)
    }

    #[inline]
    fn mul(&self, other: &Self) -> Self {
        Bool(self.0 & other.0)
    }

    #[inline]
    fn add_assign(&mut self, other: &Self) {
        self.0 |= other.0;
    }

    #[inline]
    fn mul_assign(&mut self, other: &Self) {
        self.0 &= other.0;
    }
}

impl_number_semiring!(MaxMin {
    zero: i64::MIN,
    one: i64::MAX,
    add: i64::max,
    mul: i64::min,
    zero_divisor_free: true,
});
impl_number_semiring!(MinMax {
    zero: i64::MAX,
    one: i64::MIN,
    add: i64::min,
    mul: i64::max,
    zero_divisor_free: true,
});
impl_number_semiring!(MaxMax {
    zero: i64::MIN,
    one: i64::MIN + 1,
    add: i64::max,
    // Plain max would make the adjoined zero neutral instead of absorbing.
    mul: |a: i64, b: i64| if a == i64::MIN || b == i64::MIN {
        i64::MIN
    } else {
        a.max(b)
    },
    zero_divisor_free: true,
});

impl Semiring for AccessControl {
    #[inline]
    fn zero() -> Self {
        AccessControl::Denied
    }

    #[inline]
    fn one() -> Self {
        AccessControl::Public
    }

    #[inline]
    fn is_zero(&self) -> bool {
        *self == AccessControl::Denied
    }

    #[inline]
    fn add(&self, other: &Self) -> Self {
        *self.min(other)
    }

    #[inline]
    fn mul(&self, other: &Self) -> Self {
        *self.max(other)
    }
}

impl Default for AccessControl {
    /// `Denied`, the zero: the payload of an absent tuple.
    #[inline]
    fn default() -> Self {
        AccessControl::Denied
    }
}

impl_total_checked!(Bool, MaxMin, MinMax, MaxMax, AccessControl);

impl Idempotent for Bool {}
impl Idempotent for MaxMin {}
impl Idempotent for MinMax {}
impl Idempotent for MaxMax {}
impl Idempotent for AccessControl {}

impl Selective for Bool {
    /// True beats false.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 && !other.0
    }
}

impl Selective for MaxMin {
    /// Higher confidence is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 > other.0
    }
}

impl Selective for MinMax {
    /// Lower is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 < other.0
    }
}

impl Selective for MaxMax {
    /// Higher is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self.0 > other.0
    }
}

impl Selective for AccessControl {
    /// Less restrictive is better.
    #[inline]
    fn better(&self, other: &Self) -> bool {
        self < other
    }
}

impl Positive for Bool {}
impl Positive for MaxMin {}
impl Positive for MinMax {}
impl Positive for MaxMax {}
impl Positive for AccessControl {}

impl OplusStrictlyMonotone for MaxMin {}
impl OplusStrictlyMonotone for MinMax {}
impl OplusStrictlyMonotone for MaxMax {}
impl StrictlyMonotone for MaxMin {}
impl StrictlyMonotone for MinMax {}

impl BoundedMonotone for Bool {
    /// True: or cannot grow it.
    #[inline]
    fn is_top(&self) -> bool {
        self.0
    }
}

impl BoundedMonotone for AccessControl {
    /// `Public`, the least restrictive level: the minimum cannot grow it.
    #[inline]
    fn is_top(&self) -> bool {
        *self == AccessControl::Public
    }
}

/// Writes the extreme values of an `i64` lattice as infinities.
fn fmt_extended(value: i64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match value {
        i64::MIN => f.pad("-∞"),
        i64::MAX => f.pad("∞"),
        _ => fmt::Display::fmt(&value, f),
    }
}

impl fmt::Display for Bool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Display for MaxMin {
    /// `i64::MIN` (the zero) as `-∞` and `i64::MAX` (the one) as `∞`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_extended(self.0, f)
    }
}

impl fmt::Display for MinMax {
    /// `i64::MAX` (the zero) as `∞` and `i64::MIN` (the one) as `-∞`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_extended(self.0, f)
    }
}

impl fmt::Display for MaxMax {
    /// The adjoined zero as `-∞`, every element of the domain as a number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == MaxMax::NEG_INFINITY {
            f.pad("-∞")
        } else {
            fmt::Display::fmt(&self.0, f)
        }
    }
}

impl fmt::Display for AccessControl {
    /// The level's name in lowercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            AccessControl::Public => "public",
            AccessControl::Internal => "internal",
            AccessControl::Confidential => "confidential",
            AccessControl::Secret => "secret",
            AccessControl::Denied => "denied",
        })
    }
}
