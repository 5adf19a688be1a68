//! The arithmetic semirings: `Int` and `Real` (rings) and `Count` (ℕ).

use std::fmt;

use super::{
    CheckedSemiring, OplusStrictlyMonotone, Positive, Ring, StrictlyMonotone, impl_number_semiring,
    impl_total_checked, overflow,
};

/// Integers under + and ×: the ring ℤ, for signed sums and counts.
///
/// A delete adds the negated payload. Arithmetic panics on overflow instead
/// of wrapping, in every build profile; [`CheckedSemiring`] is the
/// non-panicking path.
///
/// ```
/// use ivm::{Ring, Semiring};
/// use ivm::semiring::Int;
///
/// assert_eq!(Int(3).add(&Int(4)), Int(7));
/// assert_eq!(Int(3).mul(&Int(-4)), Int(-12));
/// assert_eq!(Int(3).neg(), Int(-3));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Int(pub i64);

/// Floating-point numbers under + and ×: the ring ℝ, for sums of measures.
///
/// The laws hold exactly only where the arithmetic is exact (integers below
/// 2⁵³, for instance); otherwise they hold up to rounding, so results of
/// different maintenance orders may differ in the last bits. NaN breaks
/// every law and must not be used as a payload. `-0.0` counts as zero.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::Real;
///
/// assert_eq!(Real(1.5).mul(&Real(2.0)), Real(3.0));
/// assert!(Real(-0.0).is_zero());
/// ```
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Real(pub f64);

/// Natural numbers under + and ×: bag semantics, where a payload counts the
/// derivations of a tuple.
///
/// Positive and strictly monotone, with no inverses: a delete retracts one
/// earlier insertion through [`Deletable`](crate::Deletable).
/// Arithmetic panics on overflow instead of wrapping, in every build
/// profile; [`CheckedSemiring`] is the non-panicking path.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::Count;
///
/// assert_eq!(Count(2).mul(&Count(3)).add(&Count::one()), Count(7));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Count(pub u64);

#[inline]
fn int_add(a: i64, b: i64) -> i64 {
    a.checked_add(b)
        .unwrap_or_else(|| overflow("Int", "⊕", &a, &b))
}

#[inline]
fn int_mul(a: i64, b: i64) -> i64 {
    a.checked_mul(b)
        .unwrap_or_else(|| overflow("Int", "⊗", &a, &b))
}

#[inline]
fn count_add(a: u64, b: u64) -> u64 {
    a.checked_add(b)
        .unwrap_or_else(|| overflow("Count", "⊕", &a, &b))
}

#[inline]
fn count_mul(a: u64, b: u64) -> u64 {
    a.checked_mul(b)
        .unwrap_or_else(|| overflow("Count", "⊗", &a, &b))
}

impl_number_semiring!(Int {
    zero: 0,
    one: 1,
    add: int_add,
    mul: int_mul,
    zero_divisor_free: true,
});
impl_number_semiring!(Count {
    zero: 0,
    one: 1,
    add: count_add,
    mul: count_mul,
    zero_divisor_free: true,
});
impl_number_semiring!(Real {
    zero: 0.0,
    one: 1.0,
    add: |a: f64, b: f64| a + b,
    mul: |a: f64, b: f64| a * b,
});

impl Ring for Int {
    /// The negation; panics for `Int(i64::MIN)`, whose inverse does not fit.
    #[inline]
    fn neg(&self) -> Self {
        match self.0.checked_neg() {
            Some(n) => Int(n),
            None => overflow_neg(self.0),
        }
    }

    /// Exact: panics only when the difference leaves `i64` (not, as
    /// negating first would, whenever `other` is `Int(i64::MIN)`).
    #[inline]
    fn sub(&self, other: &Self) -> Self {
        match self.0.checked_sub(other.0) {
            Some(d) => Int(d),
            None => super::overflow("Int", "⊕", &self.0, &-i128::from(other.0)),
        }
    }
}

#[cold]
#[inline(never)]
fn overflow_neg(a: i64) -> ! {
    panic!("ivm: Int overflow in neg: -({a}) does not fit in 64 bits; keep payloads above i64::MIN")
}

impl Ring for Real {
    #[inline]
    fn neg(&self) -> Self {
        Real(-self.0)
    }
}

impl CheckedSemiring for Int {
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        self.0.checked_add(other.0).map(Int)
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        self.0.checked_mul(other.0).map(Int)
    }
}

impl CheckedSemiring for Count {
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        self.0.checked_add(other.0).map(Count)
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        self.0.checked_mul(other.0).map(Count)
    }
}

// Floats do not overflow in the sense that matters here: they reach ±∞ and
// keep obeying IEEE rules, with precision, not representability, degrading.
impl_total_checked!(Real);

impl Positive for Count {}
impl OplusStrictlyMonotone for Count {}
impl StrictlyMonotone for Count {}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}
