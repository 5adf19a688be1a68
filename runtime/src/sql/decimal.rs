//! [`Decimal`]: exact fixed point for `DECIMAL(p, s)` and `NUMERIC`
//! columns, and a payload ring for exact sums.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use std::str::FromStr;

use super::ParseError;
use crate::{CheckedSemiring, Deletable, Maintained, Ring, Semiring};

/// The largest magnitude of a mantissa: 96 bits.
pub(super) const MAX_MANTISSA: i128 = (1 << 96) - 1;

/// 10ⁿ for n ≤ 38, exactly: read from a table, as it is on every sum of
/// two scales.
#[inline]
pub(super) const fn pow10(n: u32) -> i128 {
    POW10[n as usize]
}

/// 10⁰ to 10³⁸, the powers of ten an `i128` holds.
const POW10: [i128; 39] = {
    let mut table = [1i128; 39];
    let mut n = 1;
    while n < 39 {
        table[n] = table[n - 1] * 10;
        n += 1;
    }
    table
};

/// An exact decimal number: a signed integer mantissa of up to 96 bits
/// and a scale, the number of digits after the decimal point, from 0 to
/// 28. The SQL types `DECIMAL(p, s)` and `NUMERIC`, and a payload ring for
/// sums that must not drift: unlike an `f64`, a sum of decimals returns
/// exactly to zero when every contribution has been taken back.
///
/// # Values and scales
///
/// The scale is part of the value as written (`1.50` has scale 2 and
/// displays as `1.50`) but not of its identity: `1.5 == 1.50`, they hash
/// alike and order alike, as numbers do. Arithmetic follows PostgreSQL's
/// scale rules:
///
/// - `a + b` and `a - b` have scale max(scale(a), scale(b));
/// - `a * b` has scale scale(a) + scale(b), which must stay at most 28;
/// - `-a` keeps the scale of `a`;
/// - [`Decimal::avg`] keeps at least 8 digits after the point.
///
/// Arithmetic is exact or it fails: a result whose mantissa does not fit
/// in 96 bits, or a product that needs more than 28 digits after the
/// point, panics in the operators and in [`Semiring`], and is `None` in
/// [`checked_add`](Decimal::checked_add), [`checked_sub`](Decimal::checked_sub),
/// [`checked_mul`](Decimal::checked_mul) and [`CheckedSemiring`]. Nothing
/// wraps and nothing is rounded silently.
///
/// ```
/// use ivm::sql::Decimal;
///
/// let price: Decimal = "17.25".parse().unwrap();
/// let tax = Decimal::new(8, 2); // 0.08
/// assert_eq!((price + tax).to_string(), "17.33");
/// assert_eq!((price * tax).to_string(), "1.3800");
/// assert_eq!(price * tax, "1.38".parse().unwrap());
/// ```
///
/// # As a payload
///
/// `Decimal` is a commutative ring under + and ×, with zero `0` and one
/// `1`, like [`Int`](crate::semiring::Int), and implements the same
/// traits: [`Ring`], [`CheckedSemiring`], [`Maintained`] (the state is the
/// sum; a retraction subtracts) and [`Deletable`]. It can be a component of
/// a tuple payload such as `(Decimal, Int)`.
///
/// ```
/// use ivm::{Ring, Semiring};
/// use ivm::sql::Decimal;
///
/// let revenue = Decimal::new(1050, 2).add(&Decimal::new(-25, 1));
/// assert_eq!(revenue.to_string(), "8.00");
/// assert!(revenue.add(&revenue.neg()).is_zero());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Decimal(rust_decimal::Decimal);

impl Decimal {
    /// Zero, with scale 0.
    pub const ZERO: Decimal = Decimal::new(0, 0);

    /// One, with scale 0.
    pub const ONE: Decimal = Decimal::new(1, 0);

    /// The largest scale: 28 digits after the decimal point.
    pub const MAX_SCALE: u32 = 28;

    /// The number `mantissa` × 10^(−`scale`), which has scale `scale`:
    /// `Decimal::new(1725, 2)` is 17.25 and `Decimal::new(350, 2)` is 3.50.
    /// A `const fn`, so constants of generated code are written this way.
    ///
    /// # Panics
    ///
    /// When `scale` is above 28 ([`Decimal::MAX_SCALE`]).
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// const DISCOUNT: Decimal = Decimal::new(-350, 2);
    /// assert_eq!(DISCOUNT.to_string(), "-3.50");
    /// assert_eq!(DISCOUNT.scale(), 2);
    /// ```
    pub const fn new(mantissa: i64, scale: u32) -> Decimal {
        assert!(
            scale <= Decimal::MAX_SCALE,
            "ivm: Decimal::new with a scale above 28; a decimal has at most 28 digits after the point"
        );
        let magnitude = mantissa.unsigned_abs();
        Decimal(rust_decimal::Decimal::from_parts(
            magnitude as u32,
            (magnitude >> 32) as u32,
            0,
            mantissa < 0,
            scale,
        ))
    }

    /// `mantissa` × 10^(−`scale`), or `None` when the mantissa does not fit
    /// in 96 bits or the scale is above 28.
    #[inline]
    pub(super) fn from_mantissa(mantissa: i128, scale: u32) -> Option<Decimal> {
        if scale > Decimal::MAX_SCALE || !(-MAX_MANTISSA..=MAX_MANTISSA).contains(&mantissa) {
            return None;
        }
        // In range: the parts are the magnitude's three 32-bit words.
        let magnitude = mantissa.unsigned_abs();
        Some(Decimal(rust_decimal::Decimal::from_parts(
            magnitude as u32,
            (magnitude >> 32) as u32,
            (magnitude >> 64) as u32,
            mantissa < 0,
            scale,
        )))
    }

    /// The number of digits after the decimal point, 0 to 28: 2 for
    /// `17.25` and for `3.50`, 0 for `3`.
    pub const fn scale(&self) -> u32 {
        self.0.scale()
    }

    /// The mantissa: the value times 10^[`scale`](Decimal::scale), an
    /// integer of at most 96 bits (1725 for `17.25`, 350 for `3.50`).
    pub const fn mantissa(&self) -> i128 {
        self.0.mantissa()
    }

    /// The mantissa at a larger scale `to`; `None` when it leaves `i128`
    /// (then it leaves 96 bits too).
    fn mantissa_at(&self, to: u32) -> Option<i128> {
        debug_assert!(to >= self.scale() && to <= Decimal::MAX_SCALE);
        self.mantissa().checked_mul(pow10(to - self.scale()))
    }

    /// The mantissa at scale `scale` as an `i64`: the value times
    /// 10^`scale`, an integer that orders as the values do. Generated code
    /// keeps `MIN` and `MAX` of a `DECIMAL(p, s)` column this way, in a
    /// `MinPlus` or `MaxPlus` payload.
    ///
    /// # Panics
    ///
    /// When the value has more than `scale` fractional digits, or the
    /// result does not fit in an `i64`.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!(Decimal::new(175, 2).scaled_mantissa(3), 1750);
    /// assert_eq!(Decimal::new(-5, 1).scaled_mantissa(2), -50);
    /// ```
    pub fn scaled_mantissa(&self, scale: u32) -> i64 {
        assert!(
            scale >= self.scale() && scale <= Decimal::MAX_SCALE,
            "ivm: a DECIMAL with {} fractional digits read at scale {scale}",
            self.scale()
        );
        self.mantissa_at(scale)
            .and_then(|m| i64::try_from(m).ok())
            .expect("ivm: a DECIMAL too large for MIN or MAX (more than 18 digits)")
    }

    /// `self + other` with scale max(scale(self), scale(other)), or `None`
    /// when it does not fit.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!(Decimal::new(15, 1).checked_add(Decimal::new(250, 2)).unwrap().to_string(), "4.00");
    /// assert_eq!(Decimal::new(i64::MAX, 0).checked_add(Decimal::new(1, 0)).unwrap().to_string(), "9223372036854775808");
    /// ```
    #[inline]
    pub fn checked_add(self, other: Decimal) -> Option<Decimal> {
        if let Some((a, b, scale)) = Decimal::aligned_small(self, other) {
            return Decimal::from_mantissa(a + b, scale);
        }
        self.checked_add_wide(other)
    }

    /// [`checked_add`](Decimal::checked_add) over any mantissas.
    fn checked_add_wide(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale().max(other.scale());
        let sum = self
            .mantissa_at(scale)?
            .checked_add(other.mantissa_at(scale)?)?;
        Decimal::from_mantissa(sum, scale)
    }

    /// `self - other` with scale max(scale(self), scale(other)), or `None`
    /// when it does not fit.
    #[inline]
    pub fn checked_sub(self, other: Decimal) -> Option<Decimal> {
        if let Some((a, b, scale)) = Decimal::aligned_small(self, other) {
            return Decimal::from_mantissa(a - b, scale);
        }
        self.checked_sub_wide(other)
    }

    /// [`checked_sub`](Decimal::checked_sub) over any mantissas.
    fn checked_sub_wide(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale().max(other.scale());
        let difference = self
            .mantissa_at(scale)?
            .checked_sub(other.mantissa_at(scale)?)?;
        Decimal::from_mantissa(difference, scale)
    }

    /// The fast path of a sum or difference, for the values money and
    /// quantities take: both mantissas fit in 64 bits and the scales are
    /// at most 18 apart, so both mantissas at the larger scale, and their
    /// sum or difference, fit in an `i128` with no check (|m| < 2^63 and
    /// 10^18 < 2^60 give less than 2^124). `None` sends the caller to the
    /// checked arithmetic of the general case.
    #[inline]
    fn aligned_small(a: Decimal, b: Decimal) -> Option<(i128, i128, u32)> {
        let (ma, mb) = (a.small_mantissa()?, b.small_mantissa()?);
        let (sa, sb) = (a.scale(), b.scale());
        match sa.cmp(&sb) {
            std::cmp::Ordering::Equal => Some((ma, mb, sa)),
            std::cmp::Ordering::Less if sb - sa <= 18 => Some((ma * pow10(sb - sa), mb, sb)),
            std::cmp::Ordering::Greater if sa - sb <= 18 => Some((ma, mb * pow10(sa - sb), sa)),
            _ => None,
        }
    }

    /// The mantissa, when it fits in an `i64`.
    #[inline]
    fn small_mantissa(&self) -> Option<i128> {
        let m = self.mantissa();
        (i128::from(i64::MIN)..=i128::from(i64::MAX))
            .contains(&m)
            .then_some(m)
    }

    /// `s − o + n` at the largest of their scales, in one step, when the
    /// three mantissas fit in 64 bits, their scales are at most 18 apart
    /// and the sum fits: each aligned mantissa is below 2^123, so the sum
    /// of three cannot leave an `i128`. `None` sends [`Maintained::replace`]
    /// to its checked steps.
    #[inline]
    fn replaced_small(s: Decimal, o: Decimal, n: Decimal) -> Option<Decimal> {
        let scale = s.scale().max(o.scale()).max(n.scale());
        let at = |x: Decimal| -> Option<i128> {
            let shift = scale - x.scale();
            if shift > 18 {
                return None;
            }
            Some(x.small_mantissa()? * pow10(shift))
        };
        Decimal::from_mantissa(at(s)? - at(o)? + at(n)?, scale)
    }

    /// `self * other` with scale scale(self) + scale(other), or `None` when
    /// that scale is above 28 or the mantissa does not fit in 96 bits.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// let rate = Decimal::new(1, 14); // 0.00000000000001
    /// assert_eq!(rate.checked_mul(Decimal::new(3, 1)).unwrap().to_string(), "0.000000000000003");
    /// assert_eq!(rate.checked_mul(rate).unwrap().scale(), 28);
    /// assert_eq!(rate.checked_mul(Decimal::new(1, 15)), None); // 29 digits after the point
    /// ```
    #[inline]
    pub fn checked_mul(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale() + other.scale();
        // Two mantissas of 64 bits multiply into 127 at most: no check
        // but the range's.
        let product = match (self.small_mantissa(), other.small_mantissa()) {
            (Some(a), Some(b)) => a * b,
            _ => self.mantissa().checked_mul(other.mantissa())?,
        };
        Decimal::from_mantissa(product, scale)
    }

    /// The same value with `scale` digits after the point, rounded half
    /// away from zero when digits are dropped (as PostgreSQL stores a value
    /// into a `NUMERIC(p, s)` column); `None` when `scale` is above 28 or the
    /// value does not fit at that scale.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// let x: Decimal = "2.345".parse().unwrap();
    /// assert_eq!(x.rescale(2).unwrap().to_string(), "2.35");
    /// assert_eq!((-x).rescale(2).unwrap().to_string(), "-2.35");
    /// assert_eq!(x.rescale(5).unwrap().to_string(), "2.34500");
    /// ```
    #[inline]
    pub fn rescale(self, scale: u32) -> Option<Decimal> {
        // Already at that scale: what every value a DECIMAL column is given
        // at its own scale meets, once per decimal column of each row a
        // generated `insert_*` takes. Inlined there, and the rest is not.
        if scale == self.scale() {
            return Some(self);
        }
        self.rescale_to_another(scale)
    }

    /// [`rescale`](Self::rescale) to a scale other than this value's.
    fn rescale_to_another(self, scale: u32) -> Option<Decimal> {
        if scale > Decimal::MAX_SCALE {
            return None;
        }
        if scale >= self.scale() {
            return Decimal::from_mantissa(self.mantissa_at(scale)?, scale);
        }
        let divisor = pow10(self.scale() - scale);
        Decimal::from_mantissa(div_round(self.mantissa(), divisor), scale)
    }

    /// This value with at least `scale` digits after the point, zeros
    /// added: what generated code gives a value that takes an expression's
    /// type `DECIMAL(p, scale)` (an integer branch of a CASE whose other
    /// branch is a decimal), so that equal values print alike.
    ///
    /// # Panics
    ///
    /// When the digits do not fit in 96 bits: a value above about 7.9 ×
    /// 10^(28 − `scale`).
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!(Decimal::from(-1).widened(2).to_string(), "-1.00");
    /// assert_eq!(Decimal::new(125, 3).widened(2).to_string(), "0.125");
    /// ```
    pub fn widened(self, scale: u32) -> Decimal {
        if scale <= self.scale() {
            return self;
        }
        self.rescale(scale)
            .expect("ivm: a DECIMAL too large for its expression's scale")
    }

    /// The average of `count` values whose sum is `sum`: `sum / count`,
    /// rounded half away from zero to max(scale(sum), 8) digits after the
    /// point. AVG of integers or decimals keeps at least 8 fractional
    /// digits. Only when the average is so large (above about 7.9 × 10²⁰)
    /// that 8 more digits do not fit in 96 bits does it keep fewer, as many
    /// as fit, and never fewer than `sum` has.
    ///
    /// A negative `count` divides as well; the result is rounded once,
    /// from the exact quotient.
    ///
    /// # Panics
    ///
    /// When `count` is zero: an average of no rows is NULL in SQL, which
    /// the caller must handle before asking.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!(Decimal::avg(Decimal::from(10), 3).to_string(), "3.33333333");
    /// assert_eq!(Decimal::avg(Decimal::from(-5), 8).to_string(), "-0.62500000");
    /// assert_eq!(Decimal::avg(Decimal::new(2, 10), 3).to_string(), "0.0000000001");
    /// ```
    pub fn avg(sum: Decimal, count: i64) -> Decimal {
        assert!(
            count != 0,
            "ivm: Decimal::avg of zero rows; the average of no rows is NULL, check the count first"
        );
        let count = i128::from(count);
        let from = sum.scale();
        let target = from.max(8);
        // |mantissa| < 2⁹⁶ ≈ 7.9 × 10²⁸, so at most 8 more digits fit in
        // i128 (below 1.7 × 10³⁸).
        let numerator = sum.mantissa() * pow10(target - from);
        // At `from` digits the quotient is at most |sum| and fits, so the
        // loop ends; each try rounds the exact quotient once.
        (from..=target)
            .rev()
            .find_map(|scale| {
                let divisor = count * pow10(target - scale);
                Decimal::from_mantissa(div_round(numerator, divisor), scale)
            })
            .expect("an average at the scale of its sum fits")
    }

    /// `self / other`, rounded half away from zero to max(scale(self),
    /// scale(other), 8) digits after the point, or `None` when `other` is
    /// zero or the quotient does not fit. What `/` between aggregates of a
    /// view computes (SQL's division by zero is NULL there, as in SQLite).
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// let third = Decimal::from(1).checked_div(Decimal::from(3)).unwrap();
    /// assert_eq!(third.to_string(), "0.33333333");
    /// assert_eq!(Decimal::new(1500, 2).checked_div(Decimal::new(-4, 0)).unwrap().to_string(), "-3.75000000");
    /// assert_eq!(Decimal::from(1).checked_div(Decimal::ZERO), None);
    /// ```
    pub fn checked_div(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale().max(other.scale()).max(8);
        let quotient = self
            .0
            .checked_div(other.0)?
            .round_dp_with_strategy(scale, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
        Decimal(quotient).rescale(scale).or(Some(Decimal(quotient)))
    }

    /// The nearest `f64` (correctly rounded).
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!(Decimal::new(1725, 2).to_f64(), 17.25);
    /// assert_eq!(Decimal::new(1, 1).to_f64(), 0.1);
    /// ```
    pub fn to_f64(&self) -> f64 {
        // Exact operands, one correctly rounded division: where the
        // mantissa and the power of ten are exact in an f64.
        const EXACT: i128 = 1 << 53;
        let mantissa = self.mantissa();
        if (-EXACT..=EXACT).contains(&mantissa) && self.scale() <= 22 {
            return mantissa as f64 / POWERS_OF_TEN[self.scale() as usize];
        }
        self.to_string()
            .parse()
            .expect("a decimal's text is a float's text")
    }
}

/// 10⁰ to 10²², each exact in an `f64`.
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `n / d` rounded half away from zero (`d` is not zero).
pub(super) fn div_round(n: i128, d: i128) -> i128 {
    let (quotient, remainder) = (n / d, n % d);
    // |remainder| < |d| ≤ max(2⁶³ × 10⁸, 10²⁸) (`avg`, `rescale`): doubling
    // it stays in i128.
    if 2 * remainder.abs() >= d.abs() {
        quotient + n.signum() * d.signum()
    } else {
        quotient
    }
}

/// The panic of the operators and of the semiring operations when a result
/// does not fit: loud, as [`Int`](crate::semiring::Int)'s, since rounding
/// would corrupt sums silently.
#[cold]
#[inline(never)]
fn overflow(op: &str, a: &Decimal, b: &Decimal) -> ! {
    let scale = a.scale() + b.scale();
    if matches!(op, "⊗" | "*") && scale > Decimal::MAX_SCALE {
        panic!(
            "ivm: Decimal overflow in {op}: {a} {op} {b} needs {scale} digits after the point, \
             more than 28; use `ivm::CheckedSemiring` to detect it, or round the operands \
             with `Decimal::rescale`"
        )
    }
    panic!(
        "ivm: Decimal overflow in {op}: {a} {op} {b} does not fit in a 96-bit mantissa; \
         use `ivm::CheckedSemiring` to detect it, or round the operands with `Decimal::rescale`"
    )
}

// By the value, as `Eq` compares (1.0 = 1.00), as one `i128`: the
// mantissa brought to scale 18 where it fits (every value of at most 18
// fractional digits whose mantissa fits 64 bits: one multiplication),
// else the form without trailing zeros, tagged. A relation's fingerprints
// (`crate::fingerprint`) hash every column of every row, and a
// `LINEITEM` row has four decimals: dividing out trailing zeros one by
// one was a tenth of the instructions of TPC-H Q10, checked.
impl std::hash::Hash for Decimal {
    /// Hashes the value, not its representation: `1.50` as `1.5`. Every
    /// value writes 16 bytes, so the bytes of a value say where they end
    /// (a row's fingerprint hashes its columns' bytes one after another).
    /// Snapshots keep fingerprints made of these bytes: a change to them
    /// must raise the compiler's `PLAN_FORMAT`, or a restored view would
    /// refuse its rows' deletes.
    #[inline]
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_i128(hash_form(self.0.mantissa(), self.0.scale()));
    }
}

/// The scale every value of [`hash_form`]'s common case is brought to.
const HASH_SCALE: u32 = 18;

/// `mantissa / 10^scale` as one `i128`, equal for equal values and
/// different for different ones:
/// - `mantissa · 10^(18 − scale)` where the mantissa without trailing
///   zeros fits 64 bits and its scale is at most 18: less than 2^123 in
///   magnitude;
/// - otherwise bit 126 set, the scale without trailing zeros at bit 97,
///   the sign at bit 96 and the 96-bit magnitude below: at least 2^126.
#[inline]
fn hash_form(mantissa: i128, scale: u32) -> i128 {
    if let Ok(small) = i64::try_from(mantissa)
        && scale <= HASH_SCALE
    {
        // 10^18 fits an `i64`, so this is one 64-by-64-bit product, at
        // most 2^63 · 10^18 < 2^123 in magnitude: no overflow.
        let power = pow10(HASH_SCALE - scale) as i64;
        return i128::from(small) * i128::from(power);
    }
    hash_form_rare(mantissa, scale)
}

/// [`hash_form`] past 64 bits or 18 fractional digits.
#[cold]
fn hash_form_rare(mantissa: i128, scale: u32) -> i128 {
    let (mantissa, scale) = without_trailing_zeros(mantissa, scale);
    if i64::try_from(mantissa).is_ok() && scale <= HASH_SCALE {
        return hash_form(mantissa, scale);
    }
    let sign = i128::from(mantissa < 0) << 96;
    (1 << 126) | (i128::from(scale) << 97) | sign | (mantissa.unsigned_abs() as i128)
}

/// `mantissa / 10^scale` as the mantissa and scale with no trailing zero
/// (zero as `(0, 0)`).
fn without_trailing_zeros(mantissa: i128, mut scale: u32) -> (i128, u32) {
    if mantissa == 0 {
        return (0, 0);
    }
    let mut large = mantissa;
    while scale > 0 && large % 10 == 0 {
        large /= 10;
        scale -= 1;
    }
    (large, scale)
}

impl Default for Decimal {
    /// Zero, with scale 0: also the semiring's zero, the payload of an
    /// absent tuple.
    fn default() -> Self {
        Decimal::ZERO
    }
}

impl From<i64> for Decimal {
    /// The integer, with scale 0.
    fn from(value: i64) -> Self {
        Decimal::new(value, 0)
    }
}

impl From<i32> for Decimal {
    /// The integer, with scale 0.
    fn from(value: i32) -> Self {
        Decimal::new(i64::from(value), 0)
    }
}

impl From<i16> for Decimal {
    /// The integer, with scale 0.
    fn from(value: i16) -> Self {
        Decimal::new(i64::from(value), 0)
    }
}

impl fmt::Display for Decimal {
    /// The digits with as many after the point as the scale: `17.25`,
    /// `-3.50`, `3`. A precision (`{:.1}`) rounds or pads to that many.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// What may follow the sign: digits with at most one point among them.
const NOT_A_DECIMAL: ParseError = ParseError::new("not a decimal number (such as -17.25)");

impl FromStr for Decimal {
    type Err = ParseError;

    /// Reads `[+-]digits[.digits]` (also `5.` and `.5`, as PostgreSQL
    /// does); the scale is the number of digits after the point, so
    /// `"3.50"` has scale 2. Rejects exponents (`1e3`), spaces, `NaN` and
    /// infinities, more than 28 digits after the point, and mantissas
    /// beyond 96 bits: it never rounds.
    ///
    /// ```
    /// use ivm::sql::Decimal;
    ///
    /// assert_eq!("+1.5".parse::<Decimal>().unwrap().to_string(), "1.5");
    /// assert!("1e3".parse::<Decimal>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Decimal, ParseError> {
        let (negative, digits) = match text.as_bytes() {
            [b'-', rest @ ..] => (true, rest),
            [b'+', rest @ ..] => (false, rest),
            all => (false, all),
        };
        let mut mantissa: i128 = 0;
        let mut scale: u32 = 0;
        let mut point = false;
        let mut any_digit = false;
        for &byte in digits {
            match byte {
                b'0'..=b'9' => {
                    any_digit = true;
                    mantissa = mantissa * 10 + i128::from(byte - b'0');
                    if mantissa > MAX_MANTISSA {
                        return Err(ParseError::new(
                            "out of range for a decimal (at most 28 significant digits)",
                        ));
                    }
                    if point {
                        scale += 1;
                        if scale > Decimal::MAX_SCALE {
                            return Err(ParseError::new(
                                "more than 28 digits after the decimal point",
                            ));
                        }
                    }
                }
                b'.' if !point => point = true,
                _ => return Err(NOT_A_DECIMAL),
            }
        }
        if !any_digit {
            return Err(NOT_A_DECIMAL);
        }
        let signed = if negative { -mantissa } else { mantissa };
        Ok(Decimal::from_mantissa(signed, scale).expect("checked while reading"))
    }
}

impl Add for Decimal {
    type Output = Decimal;

    /// The sum, with scale max(scale(a), scale(b)).
    ///
    /// # Panics
    ///
    /// When the sum does not fit ([`Decimal::checked_add`] is `None`).
    fn add(self, other: Decimal) -> Decimal {
        self.checked_add(other)
            .unwrap_or_else(|| overflow("+", &self, &other))
    }
}

impl Sub for Decimal {
    type Output = Decimal;

    /// The difference, with scale max(scale(a), scale(b)).
    ///
    /// # Panics
    ///
    /// When the difference does not fit ([`Decimal::checked_sub`] is
    /// `None`).
    fn sub(self, other: Decimal) -> Decimal {
        self.checked_sub(other)
            .unwrap_or_else(|| overflow("-", &self, &other))
    }
}

impl Mul for Decimal {
    type Output = Decimal;

    /// The product, with scale scale(a) + scale(b).
    ///
    /// # Panics
    ///
    /// When that scale is above 28 or the product does not fit in 96 bits
    /// ([`Decimal::checked_mul`] is `None`).
    fn mul(self, other: Decimal) -> Decimal {
        self.checked_mul(other)
            .unwrap_or_else(|| overflow("*", &self, &other))
    }
}

impl Neg for Decimal {
    type Output = Decimal;

    /// The negation, with the same scale; never fails (the range is
    /// symmetric).
    fn neg(self) -> Decimal {
        Decimal::from_mantissa(-self.mantissa(), self.scale()).expect("the range is symmetric")
    }
}

impl AddAssign for Decimal {
    /// `*self = *self + other`; panics as `+` does.
    fn add_assign(&mut self, other: Decimal) {
        *self = *self + other;
    }
}

impl SubAssign for Decimal {
    /// `*self = *self - other`; panics as `-` does.
    fn sub_assign(&mut self, other: Decimal) {
        *self = *self - other;
    }
}

impl MulAssign for Decimal {
    /// `*self = *self * other`; panics as `*` does.
    fn mul_assign(&mut self, other: Decimal) {
        *self = *self * other;
    }
}

// ---------------------------------------------------------------------------
// The ring of decimals, as a payload: the same traits as `Int`.

impl Semiring for Decimal {
    /// Exact arithmetic: a product of non-zero decimals is non-zero (or
    /// panics).
    const ZERO_DIVISOR_FREE: bool = true;

    #[inline]
    fn zero() -> Self {
        Decimal::ZERO
    }

    #[inline]
    fn one() -> Self {
        Decimal::ONE
    }

    /// By value: `0.00` is zero.
    #[inline]
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// The sum; panics where [`Decimal::checked_add`] is `None`.
    #[inline]
    fn add(&self, other: &Self) -> Self {
        Decimal::checked_add(*self, *other).unwrap_or_else(|| overflow("⊕", self, other))
    }

    /// The product; panics where [`Decimal::checked_mul`] is `None`.
    #[inline]
    fn mul(&self, other: &Self) -> Self {
        Decimal::checked_mul(*self, *other).unwrap_or_else(|| overflow("⊗", self, other))
    }
}

impl Ring for Decimal {
    /// The negation, with the same scale; never fails.
    #[inline]
    fn neg(&self) -> Self {
        -*self
    }

    /// The difference; panics where [`Decimal::checked_sub`] is `None`.
    #[inline]
    fn sub(&self, other: &Self) -> Self {
        Decimal::checked_sub(*self, *other).unwrap_or_else(|| overflow("-", self, other))
    }
}

impl CheckedSemiring for Decimal {
    #[inline]
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Decimal::checked_add(*self, *other)
    }

    #[inline]
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        Decimal::checked_mul(*self, *other)
    }
}

/// A ring: the state is the sum, and a retraction subtracts (as for
/// [`Int`](crate::semiring::Int)).
impl Maintained for Decimal {
    type State = Decimal;
    const BY_SUBTRACTION: bool = true;

    #[inline]
    fn value(state: &Decimal) -> Decimal {
        *state
    }

    /// Panics when the sum does not fit, like [`Semiring::add`].
    #[inline]
    fn insert(state: &mut Decimal, v: &Decimal) {
        *state = Semiring::add(state, v);
    }

    /// Refuses exactly when the sum is zero (the tuple is absent).
    #[inline]
    fn retract(state: &mut Decimal, v: &Decimal) -> bool {
        if state.is_zero() {
            return false;
        }
        *state = Ring::sub(state, v);
        true
    }

    /// Tries the three orders of the two additions, so it panics only
    /// where each overflows on the way, in particular when the new sum does
    /// not fit (not, as `new − old` first would, whenever `old` and `new`
    /// are far apart).
    #[inline]
    fn replace(state: &mut Decimal, old: &Decimal, new: &Decimal) {
        let (s, o, n) = (*state, *old, *new);
        if let Some(sum) = Decimal::replaced_small(s, o, n) {
            *state = sum;
            return;
        }
        *state = n
            .checked_sub(o)
            .and_then(|d| s.checked_add(d))
            .or_else(|| s.checked_sub(o).and_then(|r| r.checked_add(n)))
            .or_else(|| s.checked_add(n).and_then(|r| r.checked_sub(o)))
            .unwrap_or_else(|| overflow("⊕", &s, &(n - o)));
    }

    #[inline]
    fn is_empty(state: &Decimal) -> bool {
        state.is_zero()
    }
}

impl Deletable for Decimal {}

/// A decimal is stored as `rust_decimal`'s 16-byte form (flags, scale and
/// the 96-bit mantissa), which keeps the scale: `1.50` restores as `1.50`.
#[cfg(feature = "serde")]
impl serde::Serialize for Decimal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize().serialize(serializer)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Decimal {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bytes = <[u8; 16]>::deserialize(deserializer)?;
        // `deserialize` takes any scale bits; a scale past 28 is no decimal
        // this type ever made, so it is refused rather than clamped.
        if bytes[2] > 28 {
            return Err(serde::de::Error::custom(format!(
                "decimal scale {} is past the largest, 28",
                bytes[2]
            )));
        }
        Ok(Decimal(rust_decimal::Decimal::deserialize(bytes)))
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, Hash, Hasher};

    use super::*;

    fn d(text: &str) -> Decimal {
        text.parse().unwrap()
    }

    fn hash_of(x: Decimal) -> (u64, u64) {
        let mut std = std::collections::hash_map::DefaultHasher::new();
        x.hash(&mut std);
        let fold = foldhash::fast::FixedState::with_seed(7).hash_one(x);
        (std.finish(), fold)
    }

    #[test]
    fn equality_and_hash_are_by_value() {
        assert_eq!(d("1.0"), d("1.00"));
        assert_eq!(d("1.0"), Decimal::from(1));
        assert_eq!(hash_of(d("1.0")), hash_of(d("1.00")));
        assert_eq!(hash_of(d("1.0")), hash_of(Decimal::ONE));
        assert_eq!(hash_of(d("0.000")), hash_of(d("-0")));
        assert_eq!(hash_of(d("-2.50")), hash_of(Decimal::new(-25, 1)));
        // Past 64 bits and 18 fractional digits, and back within them.
        let wide = d("1.000000000000000000000000000");
        assert_eq!(hash_of(wide), hash_of(Decimal::ONE));
        let fine = d("0.0000000000000000000000000001");
        assert_ne!(hash_of(fine), hash_of(Decimal::ZERO));
        assert_ne!(hash_of(fine), hash_of(-fine));
        let max = d("79228162514264337593543950335");
        assert_ne!(hash_of(max), hash_of(d("79228162514264337593543950334")));
        assert_ne!(hash_of(max), hash_of(-max));
        assert_ne!(d("1.01"), d("1.1"));
        assert!(d("-1.5") < d("-1.49") && d("1.49") < d("1.5") && d("2") > d("1.99999"));
        assert_eq!(d("2.0").cmp(&d("2")), std::cmp::Ordering::Equal);
        assert_eq!(Decimal::default(), Decimal::ZERO);
    }

    #[test]
    fn display_keeps_the_scale() {
        assert_eq!(d("17.25").to_string(), "17.25");
        assert_eq!(d("-3.50").to_string(), "-3.50");
        assert_eq!(d("3").to_string(), "3");
        assert_eq!(d("0.5").to_string(), "0.5");
        assert_eq!(d("-0.00").to_string(), "0.00");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("5.").to_string(), "5");
        assert_eq!(d("007.10").to_string(), "7.10");
        assert_eq!(Decimal::new(-5, 3).to_string(), "-0.005");
        assert_eq!(Decimal::new(i64::MIN, 0).to_string(), i64::MIN.to_string());
        assert_eq!(format!("{:?}", d("1.50")), "Decimal(1.50)");
        assert_eq!(format!("{:>7}", d("1.50")), "   1.50");
    }

    #[test]
    fn parses_signs_and_points() {
        assert_eq!(d("-17.25"), Decimal::new(-1725, 2));
        assert_eq!(d("17"), Decimal::new(17, 0));
        assert_eq!(d("+1.5"), Decimal::new(15, 1));
        assert_eq!(d("0.5").scale(), 1);
        assert_eq!(d("1.500").scale(), 3);
        assert_eq!(d("79228162514264337593543950335").mantissa(), MAX_MANTISSA);
        assert_eq!(
            d("-0.0000000000000000000000000001"),
            Decimal::new(-1, Decimal::MAX_SCALE)
        );
    }

    #[test]
    fn rejects_what_is_not_a_plain_decimal() {
        for bad in [
            "", "-", "+", ".", "-.", "1.2.3", "abc", "1e3", "1E-2", "1.5e0", " 1", "1 ", "--1",
            "+-1", "1_000", "NaN", "inf", "1,5", "0x10", "١",
        ] {
            let err = bad.parse::<Decimal>().unwrap_err();
            assert_eq!(err, NOT_A_DECIMAL, "{bad:?}");
        }
        let too_long = "79228162514264337593543950336".parse::<Decimal>();
        assert_eq!(
            too_long.unwrap_err().reason(),
            "out of range for a decimal (at most 28 significant digits)"
        );
        let too_fine = "0.00000000000000000000000000001".parse::<Decimal>();
        assert_eq!(
            too_fine.unwrap_err().reason(),
            "more than 28 digits after the decimal point"
        );
    }

    #[test]
    fn new_is_const_and_checks_the_scale() {
        const X: Decimal = Decimal::new(-1725, 2);
        assert_eq!(X, d("-17.25"));
        assert_eq!(Decimal::new(0, 5).to_string(), "0.00000");
        assert_eq!(Decimal::new(i64::MAX, 28).mantissa(), i128::from(i64::MAX));
        assert!(std::panic::catch_unwind(|| Decimal::new(1, 29)).is_err());
        assert_eq!(Decimal::from(-7i16), Decimal::new(-7, 0));
        assert_eq!(Decimal::from(i32::MIN).to_string(), i32::MIN.to_string());
        assert_eq!(Decimal::from(i64::MAX).scale(), 0);
    }

    #[test]
    fn scale_rules() {
        // + and - take the larger scale.
        assert_eq!((d("1.5") + d("2.25")).to_string(), "3.75");
        assert_eq!((d("1.50") + d("2")).to_string(), "3.50");
        assert_eq!((d("1.5") + d("-1.5")).to_string(), "0.0");
        assert_eq!((d("10") - d("0.001")).to_string(), "9.999");
        assert_eq!((d("1.25") - d("0.25")).to_string(), "1.00");
        // * adds the scales.
        assert_eq!((d("1.5") * d("2.25")).to_string(), "3.375");
        assert_eq!((d("0.10") * d("0.10")).to_string(), "0.0100");
        assert_eq!((d("17.25") * d("3")).to_string(), "51.75");
        assert_eq!((d("-2.0") * d("0.5")).to_string(), "-1.00");
        // - keeps it.
        assert_eq!((-d("3.50")).to_string(), "-3.50");
        assert_eq!((-d("0.00")).to_string(), "0.00");
        // Assignment operators agree.
        let mut x = d("1.5");
        x += d("0.25");
        x -= d("1");
        x *= d("2.0");
        assert_eq!(x.to_string(), "1.500");
    }

    #[test]
    fn checked_operations_never_round() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        assert_eq!(max.checked_add(Decimal::ONE), None);
        assert_eq!((-max).checked_sub(Decimal::ONE), None);
        assert_eq!(
            max.checked_sub(Decimal::ONE).unwrap().mantissa(),
            MAX_MANTISSA - 1
        );
        // Adding a finer number would need more digits than 96 bits hold.
        assert_eq!(max.checked_add(d("0.1")), None);
        assert_eq!(
            d("7922816251426433759354395033.4")
                .checked_add(d("0.1"))
                .unwrap()
                .to_string(),
            "7922816251426433759354395033.5"
        );
        assert_eq!(max.checked_mul(d("2")), None);
        assert_eq!(max.checked_mul(max), None);
        assert_eq!(
            max.checked_mul(d("1.0")),
            None,
            "the scale would need a longer mantissa"
        );
        assert_eq!(max.checked_mul(Decimal::ONE), Some(max));
        let fine = Decimal::new(1, 20);
        assert_eq!(fine.checked_mul(Decimal::new(1, 8)).unwrap().scale(), 28);
        assert_eq!(fine.checked_mul(Decimal::new(1, 9)), None);
        assert_eq!(
            fine.checked_mul(Decimal::new(10, 9)),
            None,
            "the scale rule holds even for trailing zeros"
        );
        assert_eq!(d("-1.5").checked_mul(d("-2")), Some(d("3")));
        assert_eq!(CheckedSemiring::checked_add(&max, &Decimal::ONE), None);
        assert_eq!(CheckedSemiring::checked_mul(&d("2"), &d("3")), Some(d("6")));
    }

    #[test]
    #[should_panic(expected = "ivm: Decimal overflow in +")]
    fn add_overflow_panics() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        let _ = max + Decimal::ONE;
    }

    #[test]
    #[should_panic(expected = "ivm: Decimal overflow in -")]
    fn sub_overflow_panics() {
        let min = Decimal::from_mantissa(-MAX_MANTISSA, 2).unwrap();
        let _ = min - Decimal::ONE;
    }

    #[test]
    #[should_panic(expected = "needs 30 digits after the point, more than 28")]
    fn mul_scale_overflow_panics() {
        let _ = Decimal::new(1, 15) * Decimal::new(1, 15);
    }

    #[test]
    #[should_panic(expected = "ivm: Decimal overflow in ⊕")]
    fn semiring_add_overflow_panics() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        let _ = Semiring::add(&max, &Decimal::ONE);
    }

    #[test]
    #[should_panic(
        expected = "ivm: Decimal overflow in ⊗: 79228162514264337593543950335 ⊗ 2 does not fit"
    )]
    fn semiring_mul_overflow_panics() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        let _ = Semiring::mul(&max, &Decimal::from(2));
    }

    #[test]
    fn avg_keeps_eight_digits_at_least() {
        assert_eq!(Decimal::avg(d("10"), 3).to_string(), "3.33333333");
        assert_eq!(Decimal::avg(d("20"), 3).to_string(), "6.66666667");
        assert_eq!(Decimal::avg(d("-20"), 3).to_string(), "-6.66666667");
        assert_eq!(Decimal::avg(d("20"), -3).to_string(), "-6.66666667");
        assert_eq!(Decimal::avg(d("6"), 2).to_string(), "3.00000000");
        assert_eq!(Decimal::avg(d("0"), 7).to_string(), "0.00000000");
        // Half away from zero.
        assert_eq!(Decimal::avg(d("0.00000001"), 2).to_string(), "0.00000001");
        assert_eq!(Decimal::avg(d("-0.00000001"), 2).to_string(), "-0.00000001");
        assert_eq!(Decimal::avg(d("0.00000001"), 3).to_string(), "0.00000000");
        // A finer sum keeps its scale.
        assert_eq!(
            Decimal::avg(d("1.0000000000"), 3).to_string(),
            "0.3333333333"
        );
        assert_eq!(Decimal::avg(d("17.25"), 1).to_string(), "17.25000000");
        // The largest sums keep as many digits as fit, never fewer than their own.
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        assert_eq!(Decimal::avg(max, 1), max);
        assert_eq!(Decimal::avg(max, 1).scale(), 0);
        let big = Decimal::avg(max, 1000);
        assert_eq!(big.to_string(), "79228162514264337593543950.335");
        let third = Decimal::avg(d("100000000000000000000.5"), 3);
        assert_eq!(third.to_string(), "33333333333333333333.50000000");
        assert_eq!(
            Decimal::avg(d("100000000000000000000000"), 3).to_string(),
            "33333333333333333333333.333333"
        );
        assert_eq!(Decimal::avg(d("1"), i64::MIN).to_string(), "0.00000000");
        assert_eq!(Decimal::avg(d("-1"), i64::MIN).to_string(), "0.00000000");
    }

    #[test]
    #[should_panic(expected = "ivm: Decimal::avg of zero rows")]
    fn avg_of_nothing_panics() {
        let _ = Decimal::avg(d("1"), 0);
    }

    #[test]
    fn rescale_rounds_half_away_from_zero() {
        assert_eq!(d("2.345").rescale(2), Some(d("2.35")));
        assert_eq!(d("2.344").rescale(2), Some(d("2.34")));
        assert_eq!(d("-2.345").rescale(0).unwrap().to_string(), "-2");
        assert_eq!(d("-2.5").rescale(0).unwrap().to_string(), "-3");
        assert_eq!(d("2").rescale(3).unwrap().to_string(), "2.000");
        assert_eq!(d("2").rescale(29), None);
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        assert_eq!(max.rescale(1), None);
    }

    #[test]
    fn to_f64_is_correctly_rounded() {
        for text in [
            "0",
            "17.25",
            "-3.50",
            "0.1",
            "0.3",
            "123456789.123456789",
            "-0.0000000000000000000000000001",
            "79228162514264337593543950335",
            "7.9228162514264337593543950335",
            "9007199254740993",
        ] {
            let x: Decimal = text.parse().unwrap();
            assert_eq!(x.to_f64(), text.parse::<f64>().unwrap(), "{text}");
        }
        assert_eq!(Decimal::new(-1725, 2).to_f64(), -17.25);
    }

    /// Mantissas around the edges of the fast paths: small, near 2^63,
    /// and beyond 64 bits.
    fn edge_mantissa() -> impl proptest::strategy::Strategy<Value = i128> {
        use proptest::prelude::*;
        prop_oneof![
            -1000i128..1000,
            proptest::num::i64::ANY.prop_map(i128::from),
            (-(1i128 << 96) + 1)..(1i128 << 96),
        ]
    }

    proptest::proptest! {
        #[test]
        fn fast_paths_agree_with_the_general_arithmetic(
            a in edge_mantissa(), sa in 0u32..=28, b in edge_mantissa(), sb in 0u32..=28,
        ) {
            let (Some(x), Some(y)) = (Decimal::from_mantissa(a, sa), Decimal::from_mantissa(b, sb)) else {
                return Ok(());
            };
            proptest::prop_assert_eq!(x.checked_add(y), x.checked_add_wide(y));
            proptest::prop_assert_eq!(x.checked_sub(y), x.checked_sub_wide(y));
            let wide = x.mantissa().checked_mul(y.mantissa()).and_then(|m| Decimal::from_mantissa(m, sa + sb));
            proptest::prop_assert_eq!(x.checked_mul(y), wide);
            // Equal values keep their scale too.
            if let Some(sum) = x.checked_add(y) {
                proptest::prop_assert_eq!(sum.scale(), sa.max(sb));
            }
        }

        /// The hashed form is equal exactly for equal values: across the
        /// fast path (64 bits, scale at most 18) and the rare one, and
        /// for the same value written with more trailing zeros.
        #[test]
        fn the_hash_form_is_the_value(
            a in edge_mantissa(), sa in 0u32..=28, b in edge_mantissa(), sb in 0u32..=28,
            zeros in 0u32..=28,
        ) {
            let (Some(x), Some(y)) = (Decimal::from_mantissa(a, sa), Decimal::from_mantissa(b, sb)) else {
                return Ok(());
            };
            let form = |d: Decimal| hash_form(d.mantissa(), d.scale());
            proptest::prop_assert_eq!(form(x) == form(y), x == y, "{} and {}", x, y);
            let padded = a.checked_mul(pow10(zeros)).and_then(|m| Decimal::from_mantissa(m, sa + zeros));
            if let Some(padded) = padded {
                proptest::prop_assert_eq!(padded, x);
                proptest::prop_assert_eq!(form(padded), form(x), "{} and {}", padded, x);
            }
        }

        #[test]
        fn display_parses_back(mantissa in proptest::num::i64::ANY, scale in 0u32..=28) {
            let x = Decimal::new(mantissa, scale);
            let back: Decimal = x.to_string().parse().unwrap();
            proptest::prop_assert_eq!(back, x);
            proptest::prop_assert_eq!(back.scale(), scale);
            proptest::prop_assert_eq!(x.to_f64(), x.to_string().parse::<f64>().unwrap());
        }

        #[test]
        fn arithmetic_is_exact(a in -1_000_000i64..1_000_000, sa in 0u32..6, b in -1_000_000i64..1_000_000, sb in 0u32..6) {
            // Against exact rational arithmetic on i128 numerators over 10^12.
            let (x, y) = (Decimal::new(a, sa), Decimal::new(b, sb));
            let at = |m: i64, s: u32| i128::from(m) * pow10(12 - s);
            let sum = x + y;
            proptest::prop_assert_eq!(sum.scale(), sa.max(sb));
            proptest::prop_assert_eq!(sum.mantissa() * pow10(12 - sum.scale()), at(a, sa) + at(b, sb));
            let difference = x - y;
            proptest::prop_assert_eq!(difference.mantissa() * pow10(12 - difference.scale()), at(a, sa) - at(b, sb));
            let product = x * y;
            proptest::prop_assert_eq!(product.scale(), sa + sb);
            proptest::prop_assert_eq!(product.mantissa(), i128::from(a) * i128::from(b));
        }

        #[test]
        fn replace_is_exact(s in -1000i64..1000, o in -1000i64..1000, n in -1000i64..1000, scales in (0u32..4, 0u32..4, 0u32..4)) {
            let (s, o, n) = (Decimal::new(s, scales.0), Decimal::new(o, scales.1), Decimal::new(n, scales.2));
            let mut state = s;
            Decimal::replace(&mut state, &o, &n);
            proptest::prop_assert_eq!(state, s - o + n);
            proptest::prop_assert_eq!(state.scale(), scales.0.max(scales.1).max(scales.2));
        }

        /// The one-step sum agrees with the checked steps wherever it
        /// answers, at the edges of 64 and 96 bits and of the scales.
        #[test]
        fn replaced_small_agrees_with_the_checked_steps(
            s in edge_mantissa(), ss in 0u32..=28, o in edge_mantissa(), so in 0u32..=28,
            n in edge_mantissa(), sn in 0u32..=28,
        ) {
            let (Some(s), Some(o), Some(n)) = (
                Decimal::from_mantissa(s, ss), Decimal::from_mantissa(o, so), Decimal::from_mantissa(n, sn),
            ) else {
                return Ok(());
            };
            let steps = n.checked_sub_wide(o).and_then(|d| s.checked_add_wide(d));
            if let Some(sum) = Decimal::replaced_small(s, o, n) {
                if let Some(steps) = steps {
                    proptest::prop_assert_eq!(sum, steps);
                    proptest::prop_assert_eq!(sum.scale(), steps.scale());
                }
                let exact = s.mantissa_at(sum.scale()).unwrap() - o.mantissa_at(sum.scale()).unwrap()
                    + n.mantissa_at(sum.scale()).unwrap();
                proptest::prop_assert_eq!(sum.mantissa(), exact);
            }
        }
    }

    #[test]
    fn replace_finds_an_order_that_fits() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        // new − old overflows, state − old does not.
        let mut state = -max;
        Decimal::replace(&mut state, &(-max), &max);
        assert_eq!(state, max);
        // Both overflow (at scale 1), state + new does not.
        let mut state = -max;
        Decimal::replace(&mut state, &d("0.1"), &max);
        assert_eq!(state.to_string(), "-0.1");
    }

    #[test]
    #[should_panic(expected = "ivm: Decimal overflow in ⊕")]
    fn replace_overflow_panics() {
        let max = Decimal::from_mantissa(MAX_MANTISSA, 0).unwrap();
        let mut state = max;
        Decimal::replace(&mut state, &Decimal::ZERO, &Decimal::ONE);
    }

    #[test]
    fn generated_code_paths_accept_decimal() {
        use crate::__private::{claims, factor, first_factor, times};
        claims::ring::<Decimal>();
        claims::deletable::<Decimal>();
        claims::counting::<Decimal>();
        claims::ring::<(Decimal, crate::semiring::Int)>();
        assert_eq!(factor::<Decimal>(true), Decimal::ONE);
        assert_eq!(factor::<Decimal>(d("2.5")), d("2.5"));
        let lifted = first_factor::<Decimal>(d("1.5")).and_then(|f| times(f, d("2.00")));
        assert_eq!(lifted.unwrap().to_string(), "3.000");
        assert_eq!(first_factor::<Decimal>(d("0.00")), None);
        assert_eq!(crate::Counting::minus(&d("5.5"), &d("2")), d("3.5"));
    }
}
