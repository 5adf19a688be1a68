//! [`Fixed`]: exact decimals at a scale their type fixes, the payload of a
//! `SUM` over `DECIMAL(p, s)` values; and the integer arithmetic in which
//! generated code computes the terms of such a sum.
//!
//! A [`Decimal`] carries its scale in every value, so each `+` aligns two
//! scales and each `×` checks the product's; a `SUM` whose scale the SQL
//! types fix at compile time needs none of that. Generated code computes a
//! row's term (`l_extendedprice * (1 - l_discount)`) on the mantissas as
//! `i128`s, with the scales worked out by the compiler
//! (`::ivm::sql::fixed::mul(fixed::of(&price, 2), fixed::sub(100, ..))`),
//! and keeps the sum as a [`Fixed`]. A row's result reads it back as a
//! [`Decimal`] of the same value and scale.
//!
//! Exactness is as [`Decimal`]'s: nothing is ever rounded, and a value
//! whose mantissa leaves 96 bits (about 7.9 × 10²⁸ units of the last digit)
//! is an overflow, which panics in the semiring operations and is `None`
//! in [`CheckedSemiring`]. The terms' own arithmetic checks only that
//! `i128` is not left, so a term may pass through intermediate values a
//! `Decimal` could not hold; the stored sums are bounded like a
//! `Decimal`'s.

use std::fmt;

use super::Decimal;
use super::decimal::{MAX_MANTISSA, div_round, pow10};
use crate::{CheckedSemiring, Deletable, Maintained, Ring, Semiring};

/// An exact decimal with `S` digits after the point: the mantissa `m`
/// stands for m × 10^(−`S`), and `S` is at most 28. The payload of a `SUM`
/// over decimals of a declared scale, and a commutative ring like
/// [`Decimal`] and [`Int`](crate::semiring::Int): ⊕ adds, ⊗ multiplies
/// (exactly, or panics), zero is `0` and one is `1`.
///
/// Where a [`Decimal`] sum aligns the scales of its operands on every
/// addition, a `Fixed` adds two integers: the compiler chose the scale.
///
/// ```
/// use ivm::sql::{Decimal, Fixed};
/// use ivm::{Ring, Semiring};
///
/// let price = Fixed::<2>::from_decimal("17.25".parse().unwrap()).unwrap();
/// let total = price.add(&Fixed::<2>::from_mantissa(-25).unwrap()); // − 0.25
/// assert_eq!(total.to_string(), "17.00");
/// assert_eq!(Decimal::from(total), Decimal::from(17));
/// assert!(total.sub(&total).is_zero());
///
/// // A product is exact: it needs its digits at the type's scale.
/// let half = Fixed::<2>::from_mantissa(50).unwrap();
/// assert_eq!(half.mul(&half).to_string(), "0.25");
/// assert_eq!(half.checked_mul(Fixed::from_mantissa(25).unwrap()), None); // 0.125
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Fixed<const S: u32>(i128);

impl<const S: u32> Fixed<S> {
    /// Zero.
    pub const ZERO: Fixed<S> = Fixed(0);

    /// One: the mantissa 10^`S`.
    pub const ONE: Fixed<S> = {
        assert!(
            S <= Decimal::MAX_SCALE,
            "ivm: a Fixed scale above 28; a decimal has at most 28 digits after the point"
        );
        Fixed(pow10(S))
    };

    /// The number `mantissa` × 10^(−`S`), or `None` when the mantissa
    /// does not fit in 96 bits.
    ///
    /// ```
    /// use ivm::sql::Fixed;
    ///
    /// assert_eq!(Fixed::<2>::from_mantissa(1725).unwrap().to_string(), "17.25");
    /// assert_eq!(Fixed::<2>::from_mantissa(i128::MAX), None);
    /// ```
    #[inline]
    pub const fn from_mantissa(mantissa: i128) -> Option<Fixed<S>> {
        // Evaluating `ONE` rejects a scale above 28 at compile time.
        let _ = Fixed::<S>::ONE;
        if mantissa < -MAX_MANTISSA || mantissa > MAX_MANTISSA {
            return None;
        }
        Some(Fixed(mantissa))
    }

    /// A sum's term, computed by generated code on mantissas
    /// ([`fixed::mul`](mul) and the like) at scale `S`.
    ///
    /// # Panics
    ///
    /// When the mantissa does not fit in 96 bits, as a [`Decimal`]
    /// operator panics.
    #[inline]
    pub fn term(mantissa: i128) -> Fixed<S> {
        Fixed::from_mantissa(mantissa).unwrap_or_else(|| too_wide(mantissa, S))
    }

    /// The mantissa: the value times 10^`S`.
    #[inline]
    pub const fn mantissa(self) -> i128 {
        self.0
    }

    /// The same value, or `None` when `value` has more than `S` digits
    /// after the point (a `Fixed` never rounds) or does not fit.
    ///
    /// ```
    /// use ivm::sql::{Decimal, Fixed};
    ///
    /// assert_eq!(Fixed::<3>::from_decimal(Decimal::new(175, 2)).unwrap().mantissa(), 1750);
    /// assert_eq!(Fixed::<1>::from_decimal(Decimal::new(175, 2)), None);
    /// ```
    pub fn from_decimal(value: Decimal) -> Option<Fixed<S>> {
        let _ = Fixed::<S>::ONE;
        let scale = value.scale();
        let mantissa = if scale <= S {
            value.mantissa().checked_mul(pow10(S - scale))?
        } else {
            let divisor = pow10(scale - S);
            if value.mantissa() % divisor != 0 {
                return None;
            }
            value.mantissa() / divisor
        };
        Fixed::from_mantissa(mantissa)
    }

    /// [`from_decimal`](Fixed::from_decimal) of a value the SQL types say
    /// has at most `S` digits after the point: the factor of a sum's term
    /// that generated code computes as a [`Decimal`].
    ///
    /// # Panics
    ///
    /// When it does not fit at scale `S`.
    pub fn of_decimal(value: Decimal) -> Fixed<S> {
        Fixed::from_decimal(value).unwrap_or_else(|| {
            panic!("ivm: the DECIMAL {value} does not fit exactly in a sum with {S} digits after the point")
        })
    }

    /// The same value as a [`Decimal`] of scale `S`.
    #[inline]
    pub fn to_decimal(self) -> Decimal {
        Decimal::from_mantissa(self.0, S).expect("a Fixed mantissa fits in 96 bits")
    }

    /// `self + other`, or `None` when it does not fit in 96 bits.
    #[inline]
    pub const fn checked_add(self, other: Fixed<S>) -> Option<Fixed<S>> {
        // Both below 2⁹⁶: no i128 overflow.
        Fixed::from_mantissa(self.0 + other.0)
    }

    /// `self - other`, or `None` when it does not fit in 96 bits.
    #[inline]
    pub const fn checked_sub(self, other: Fixed<S>) -> Option<Fixed<S>> {
        Fixed::from_mantissa(self.0 - other.0)
    }

    /// `self × other`, or `None` when the product has more than `S` digits
    /// after the point (a `Fixed` never rounds) or does not fit.
    ///
    /// ```
    /// use ivm::sql::Fixed;
    ///
    /// let (half, quarter) = (Fixed::<2>::from_mantissa(50).unwrap(), Fixed::<2>::from_mantissa(25).unwrap());
    /// assert_eq!(half.checked_mul(half), Some(quarter));
    /// assert_eq!(half.checked_mul(quarter), None); // 0.125
    /// ```
    #[inline]
    pub fn checked_mul(self, other: Fixed<S>) -> Option<Fixed<S>> {
        // A factor of one, what a join's other side most often brings.
        if self == Fixed::ONE {
            return Some(other);
        }
        if other == Fixed::ONE {
            return Some(self);
        }
        let unit = pow10(S);
        match self.0.checked_mul(other.0) {
            Some(product) if product % unit == 0 => Fixed::from_mantissa(product / unit),
            Some(_) => None,
            // The product of the mantissas leaves i128, yet the product at
            // scale S may fit: the factors' trailing zeros make room.
            None => {
                let (a, za) = strip_zeros(self.0, S);
                let (b, zb) = strip_zeros(other.0, S);
                let product = a.checked_mul(b)?;
                let mantissa = match (za + zb).checked_sub(S) {
                    Some(extra) => product.checked_mul(pow10(extra))?,
                    None => {
                        let unit = pow10(S - za - zb);
                        if product % unit != 0 {
                            return None;
                        }
                        product / unit
                    }
                };
                Fixed::from_mantissa(mantissa)
            }
        }
    }
}

/// `m` without up to `most` trailing decimal zeros, and how many it lost.
fn strip_zeros(mut m: i128, most: u32) -> (i128, u32) {
    let mut zeros = 0;
    while zeros < most && m != 0 && m % 10 == 0 {
        m /= 10;
        zeros += 1;
    }
    (m, zeros)
}

/// The panic of a term or a sum that leaves 96 bits: loud, as
/// [`Decimal`]'s, since rounding would corrupt sums silently.
#[cold]
#[inline(never)]
fn too_wide(mantissa: i128, scale: u32) -> ! {
    panic!(
        "ivm: DECIMAL overflow: a sum or term of mantissa {mantissa} at scale {scale} does not fit in 96 bits"
    )
}

/// The panic of a term's arithmetic when it leaves `i128`.
#[cold]
#[inline(never)]
fn term_overflow(op: &str) -> ! {
    panic!("ivm: DECIMAL overflow in {op} of a sum's term: its mantissa leaves 128 bits")
}

/// The mantissa of `value` at `scale` digits after the point: what a
/// `DECIMAL(p, scale)` column brings to a sum's term. A value with more
/// digits (one that did not come through the column's `at scale`, which
/// rounds) is rounded half away from zero, as storing it there would.
///
/// # Panics
///
/// When the mantissa at `scale` leaves `i128` (a value far beyond 96 bits
/// of digits), or `scale` is above 38.
///
/// ```
/// use ivm::sql::{Decimal, fixed};
///
/// assert_eq!(fixed::of(&Decimal::new(1725, 2), 2), 1725);
/// assert_eq!(fixed::of(&Decimal::new(15, 1), 2), 150);
/// assert_eq!(fixed::of(&Decimal::new(1255, 3), 2), 126);
/// ```
#[inline]
pub fn of(value: &Decimal, scale: u32) -> i128 {
    let from = value.scale();
    if from == scale {
        return value.mantissa();
    }
    if from < scale {
        return value
            .mantissa()
            .checked_mul(pow10(scale - from))
            .unwrap_or_else(|| term_overflow("a column's value"));
    }
    div_round(value.mantissa(), pow10(from - scale))
}

/// `a + b` of two mantissas at one scale.
///
/// # Panics
///
/// When the sum leaves `i128`.
#[inline]
pub fn add(a: i128, b: i128) -> i128 {
    a.checked_add(b).unwrap_or_else(|| term_overflow("+"))
}

/// `a - b` of two mantissas at one scale.
///
/// # Panics
///
/// When the difference leaves `i128`.
#[inline]
pub fn sub(a: i128, b: i128) -> i128 {
    a.checked_sub(b).unwrap_or_else(|| term_overflow("-"))
}

/// `a × b` of two mantissas: the product's scale is the sum of theirs.
///
/// # Panics
///
/// When the product leaves `i128`.
#[inline]
pub fn mul(a: i128, b: i128) -> i128 {
    // Two mantissas of 64 bits multiply into 127 at most: no check.
    if let (Ok(x), Ok(y)) = (i64::try_from(a), i64::try_from(b)) {
        return i128::from(x) * i128::from(y);
    }
    a.checked_mul(b).unwrap_or_else(|| term_overflow("×"))
}

/// `-a` of a mantissa.
///
/// # Panics
///
/// At `i128::MIN`, which no term reaches but by overflow.
#[inline]
pub fn neg(a: i128) -> i128 {
    a.checked_neg().unwrap_or_else(|| term_overflow("-"))
}

impl<const S: u32> From<Fixed<S>> for Decimal {
    /// The same value, with scale `S`.
    #[inline]
    fn from(value: Fixed<S>) -> Decimal {
        value.to_decimal()
    }
}

impl<const S: u32> fmt::Display for Fixed<S> {
    /// As a [`Decimal`] of scale `S`: `Fixed::<2>` of 17 shows `17.00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_decimal(), f)
    }
}

impl<const S: u32> fmt::Debug for Fixed<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fixed({self})")
    }
}

impl<const S: u32> Semiring for Fixed<S> {
    /// Exact arithmetic: a product of non-zero values is non-zero (or
    /// panics).
    const ZERO_DIVISOR_FREE: bool = true;

    #[inline]
    fn zero() -> Self {
        Fixed::ZERO
    }

    #[inline]
    fn one() -> Self {
        Fixed::ONE
    }

    #[inline]
    fn is_zero(&self) -> bool {
        self.0 == 0
    }

    /// The sum; panics where [`Fixed::checked_add`] is `None`.
    #[inline]
    fn add(&self, other: &Self) -> Self {
        Fixed::checked_add(*self, *other).unwrap_or_else(|| too_wide(self.0 + other.0, S))
    }

    /// The product; panics where [`Fixed::checked_mul`] is `None`.
    #[inline]
    fn mul(&self, other: &Self) -> Self {
        Fixed::checked_mul(*self, *other).unwrap_or_else(|| {
            panic!(
                "ivm: DECIMAL overflow in ⊗: {self} ⊗ {other} does not fit exactly at scale {S}; \
                 use `ivm::CheckedSemiring` to detect it"
            )
        })
    }
}

impl<const S: u32> Ring for Fixed<S> {
    /// The negation; never fails.
    #[inline]
    fn neg(&self) -> Self {
        Fixed(-self.0)
    }

    /// The difference; panics where [`Fixed::checked_sub`] is `None`.
    #[inline]
    fn sub(&self, other: &Self) -> Self {
        Fixed::checked_sub(*self, *other).unwrap_or_else(|| too_wide(self.0 - other.0, S))
    }
}

impl<const S: u32> CheckedSemiring for Fixed<S> {
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Fixed::checked_add(*self, *other)
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        Fixed::checked_mul(*self, *other)
    }
}

/// A ring: the state is the sum, and a retraction subtracts (as for
/// [`Decimal`]).
impl<const S: u32> Maintained for Fixed<S> {
    type State = Fixed<S>;
    const BY_SUBTRACTION: bool = true;

    #[inline]
    fn value(state: &Fixed<S>) -> Fixed<S> {
        *state
    }

    /// Panics when the sum does not fit, like [`Semiring::add`].
    #[inline]
    fn insert(state: &mut Fixed<S>, v: &Fixed<S>) {
        *state = Semiring::add(state, v);
    }

    /// Refuses exactly when the sum is zero (the tuple is absent).
    #[inline]
    fn retract(state: &mut Fixed<S>, v: &Fixed<S>) -> bool {
        if state.is_zero() {
            return false;
        }
        *state = Ring::sub(state, v);
        true
    }

    /// `state − old + new` in one step: three mantissas below 2⁹⁶ cannot
    /// leave an `i128`, so it panics only when the new sum does not fit.
    #[inline]
    fn replace(state: &mut Fixed<S>, old: &Fixed<S>, new: &Fixed<S>) {
        let sum = state.0 - old.0 + new.0;
        *state = Fixed::from_mantissa(sum).unwrap_or_else(|| too_wide(sum, S));
    }

    #[inline]
    fn is_empty(state: &Fixed<S>) -> bool {
        state.is_zero()
    }
}

impl<const S: u32> Deletable for Fixed<S> {}

/// Stored as its mantissa: the scale is the type's.
#[cfg(feature = "serde")]
impl<const S: u32> serde::Serialize for Fixed<S> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de, const S: u32> serde::Deserialize<'de> for Fixed<S> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mantissa = i128::deserialize(deserializer)?;
        Fixed::from_mantissa(mantissa).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "decimal mantissa {mantissa} does not fit in 96 bits"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f2(text: &str) -> Fixed<2> {
        Fixed::from_decimal(text.parse().unwrap()).unwrap()
    }

    #[test]
    fn reads_and_shows_at_its_scale() {
        assert_eq!(f2("17.25").mantissa(), 1725);
        assert_eq!(f2("3").to_string(), "3.00");
        assert_eq!(f2("-0.5").to_string(), "-0.50");
        assert_eq!(format!("{:?}", f2("1.5")), "Fixed(1.50)");
        assert_eq!(Fixed::<2>::from_decimal("0.125".parse().unwrap()), None);
        assert_eq!(Fixed::<0>::ONE.mantissa(), 1);
        assert_eq!(
            Fixed::<28>::ONE.to_string(),
            format!("1.{}", "0".repeat(28))
        );
    }

    #[test]
    fn agrees_with_decimal() {
        let values = ["0", "1", "-1", "17.25", "-3.5", "0.01", "99999999999999.99"];
        for a in values {
            for b in values {
                let (x, y) = (f2(a), f2(b));
                let (p, q): (Decimal, Decimal) = (a.parse().unwrap(), b.parse().unwrap());
                assert_eq!(Decimal::from(x.add(&y)), p + q, "{a} + {b}");
                assert_eq!(Decimal::from(x.sub(&y)), p - q, "{a} - {b}");
                let exact = p.checked_mul(q);
                let product = exact
                    .and_then(|e| e.rescale(2))
                    .filter(|r| Some(*r) == exact);
                assert_eq!(x.checked_mul(y).map(Decimal::from), product, "{a} × {b}");
            }
        }
    }

    /// The product agrees with exact `i128` arithmetic, on mantissas
    /// around the edges of 64 bits and past them, at scales from 0 to 20.
    #[test]
    fn products_agree_with_exact_i128_arithmetic() {
        use proptest::prelude::*;
        fn exact<const S: u32>(a: i128, b: i128) -> Option<Option<Fixed<S>>> {
            let product = a.checked_mul(b)?;
            let unit = pow10(S);
            Some(
                (product % unit == 0)
                    .then(|| Fixed::from_mantissa(product / unit))
                    .flatten(),
            )
        }
        fn agree<const S: u32>(a: i128, b: i128) -> Result<(), TestCaseError> {
            let (Some(x), Some(y)) = (Fixed::<S>::from_mantissa(a), Fixed::<S>::from_mantissa(b))
            else {
                return Ok(());
            };
            if let Some(expected) = exact::<S>(a, b) {
                prop_assert_eq!(x.checked_mul(y), expected, "{} × {}", x, y);
            }
            Ok(())
        }
        let mantissa = || {
            prop_oneof![
                -10_000i128..10_000,
                any::<i64>().prop_map(i128::from),
                any::<i32>().prop_map(|m| i128::from(m) * 100),
                (-(1i128 << 96) + 1)..(1i128 << 96),
            ]
        };
        proptest!(|(a in mantissa(), b in mantissa())| {
            agree::<0>(a, b)?;
            agree::<2>(a, b)?;
            agree::<4>(a, b)?;
            agree::<18>(a, b)?;
            agree::<20>(a, b)?;
        });
    }

    #[test]
    fn overflow_is_none_at_96_bits() {
        let max = Fixed::<0>::from_mantissa(MAX_MANTISSA).unwrap();
        assert_eq!(max.checked_add(Fixed::ONE), None);
        assert_eq!(max.neg().checked_sub(Fixed::ONE), None);
        assert_eq!(Fixed::<0>::from_mantissa(MAX_MANTISSA + 1), None);
        assert_eq!(max.checked_mul(max), None);
        assert_eq!(max.checked_mul(Fixed::ONE), Some(max));
    }

    #[test]
    fn products_past_i128_use_trailing_zeros() {
        // 10⁸ × 0.1 at scale 20: the mantissas' product, 10⁴⁷, leaves
        // i128; the result's mantissa, 10²⁷, fits.
        let big = Fixed::<20>::from_mantissa(10i128.pow(28)).unwrap(); // 10⁸
        let tenth = Fixed::<20>::from_mantissa(10i128.pow(19)).unwrap(); // 0.1
        assert_eq!(
            big.checked_mul(tenth).unwrap().to_string(),
            format!("10000000.{}", "0".repeat(20))
        );
        let half = Fixed::<28>::from_mantissa(5 * 10i128.pow(27)).unwrap();
        assert_eq!(
            half.checked_mul(half).unwrap().mantissa(),
            25 * 10i128.pow(26)
        );
    }

    #[test]
    fn maintained_sums_return_to_zero() {
        let mut state = Fixed::<2>::ZERO;
        for v in ["17.25", "-3.50", "0.01"] {
            Fixed::insert(&mut state, &f2(v));
        }
        assert_eq!(state.to_string(), "13.76");
        Fixed::replace(&mut state, &f2("17.25"), &f2("1.00"));
        assert_eq!(state.to_string(), "-2.49");
        for v in ["1.00", "-3.50", "0.01"] {
            assert!(Fixed::retract(&mut state, &f2(v)));
        }
        assert!(Fixed::is_empty(&state));
        assert!(!Fixed::retract(&mut state, &f2("1")));
    }

    #[test]
    fn term_arithmetic() {
        let price = Decimal::new(1725, 2);
        let discount = Decimal::new(5, 2);
        // price × (1 − discount) at scale 4, as generated code computes it.
        let term = mul(of(&price, 2), sub(100, of(&discount, 2)));
        assert_eq!(
            Fixed::<4>::term(term).to_decimal(),
            price * (Decimal::ONE - discount)
        );
        assert_eq!(of(&Decimal::new(-1255, 3), 2), -126);
        assert_eq!(neg(5), -5);
        assert_eq!(add(i128::from(i64::MAX), 1), i128::from(i64::MAX) + 1);
        assert_eq!(
            mul(i128::from(i64::MAX), i128::from(i64::MAX)),
            i128::from(i64::MAX).pow(2)
        );
    }

    #[test]
    #[should_panic(expected = "does not fit in 96 bits")]
    fn a_term_past_96_bits_panics() {
        Fixed::<0>::term(MAX_MANTISSA + 1);
    }

    #[test]
    #[should_panic(expected = "leaves 128 bits")]
    fn a_term_past_128_bits_panics() {
        mul(i128::MAX, 2);
    }
}
