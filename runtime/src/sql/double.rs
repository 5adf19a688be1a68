//! [`Double`]: the SQL floating-point types as a key type.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::str::FromStr;

use super::ParseError;

/// A 64-bit float with a total order, for `DOUBLE`, `FLOAT` and `REAL`
/// columns: `Eq`, `Ord` and `Hash` agree with each other, so a `Double` can
/// be a key of a view or a group.
///
/// The order is the numeric one, with two choices where `f64` has none:
///
/// - `-0.0` equals `0.0` (and hashes alike), as in SQL;
/// - every NaN equals every other NaN and is greater than every number,
///   `+∞` included, as PostgreSQL orders `float8`.
///
/// Parsing never yields NaN, but arithmetic can (`∞ − ∞`, `0 / 0`), and the
/// field is public; such a value is still ordered and hashed consistently.
/// Arithmetic is plain IEEE 754 (`Add`, `Sub`, `Mul`, `Div`, `Neg`), and
/// `Display` prints as Rust prints an `f64` (`2.5`, `3`, `-0`, `inf`).
///
/// A column type only: sums of doubles are payloads of
/// [`Real`](crate::semiring::Real).
///
/// ```
/// use ivm::sql::Double;
///
/// assert_eq!(Double(-0.0), Double(0.0));
/// assert!(Double(f64::NAN) > Double(f64::INFINITY));
/// assert_eq!((Double(1.5) * Double(2.0)).to_string(), "3");
/// assert_eq!("2.5e3".parse::<Double>().unwrap(), Double(2500.0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Double(pub f64);

impl Double {
    /// `self / other`, or `None` when `other` is zero: what `/` between
    /// aggregates of a view computes (SQL's division by zero is NULL
    /// there, as in SQLite).
    ///
    /// ```
    /// use ivm::sql::Double;
    ///
    /// assert_eq!(Double(3.0).checked_div(Double(2.0)), Some(Double(1.5)));
    /// assert_eq!(Double(3.0).checked_div(Double(-0.0)), None);
    /// ```
    pub fn checked_div(self, other: Double) -> Option<Double> {
        (other.0 != 0.0).then(|| Double(self.0 / other.0))
    }

    /// An `i64` in the order of `Double`s (equal values, equal keys): how
    /// `MIN` and `MAX` of a `DOUBLE` are kept, as a
    /// [`MinPlus`](crate::semiring::MinPlus) or
    /// [`MaxPlus`](crate::semiring::MaxPlus) component. No value maps to
    /// `i64::MIN` or `i64::MAX`, those semirings' zeros.
    ///
    /// ```
    /// use ivm::sql::Double;
    ///
    /// let values = [f64::NEG_INFINITY, -2.5, -0.0, 0.0, 1e-300, 7.0, f64::INFINITY, f64::NAN];
    /// for pair in values.windows(2) {
    ///     let (a, b) = (Double(pair[0]), Double(pair[1]));
    ///     assert_eq!(a.cmp(&b), a.order_key().cmp(&b.order_key()));
    ///     assert_eq!(Double::from_order_key(a.order_key()), a);
    /// }
    /// ```
    pub fn order_key(self) -> i64 {
        let bits = self.key().to_bits() as i64;
        // Negative floats order backwards by their bits: flip all but the
        // sign (what `f64::total_cmp` does).
        if bits < 0 { bits ^ i64::MAX } else { bits }
    }

    /// The `Double` whose [`order_key`](Double::order_key) is `key`.
    pub fn from_order_key(key: i64) -> Double {
        let bits = if key < 0 { key ^ i64::MAX } else { key };
        Double(f64::from_bits(bits as u64))
    }

    /// The value with `-0.0` as `0.0` and every NaN as one NaN: equal
    /// values have equal keys, and `f64::total_cmp` on keys is the order.
    fn key(self) -> f64 {
        if self.0.is_nan() {
            f64::NAN
        } else {
            // -0.0 + 0.0 is 0.0; every other value is unchanged.
            self.0 + 0.0
        }
    }
}

impl PartialEq for Double {
    fn eq(&self, other: &Double) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Double {}

impl PartialOrd for Double {
    fn partial_cmp(&self, other: &Double) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Double {
    fn cmp(&self, other: &Double) -> Ordering {
        // `f64::NAN` is positive, so it sorts above +∞ in `total_cmp`.
        self.key().total_cmp(&other.key())
    }
}

impl Hash for Double {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().to_bits().hash(state);
    }
}

impl From<f64> for Double {
    fn from(value: f64) -> Double {
        Double(value)
    }
}

impl From<Double> for f64 {
    fn from(value: Double) -> f64 {
        value.0
    }
}

impl fmt::Display for Double {
    /// As Rust prints the `f64` (`2.5`, `3`, `0.1`, `inf`), but `0` for
    /// both zeros: they are equal, so one text for both keeps a row's text
    /// a function of its value (what `text_changes` relies on).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0.0 {
            return f.write_str("0");
        }
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Double {
    type Err = ParseError;

    /// Reads a decimal number with an optional sign, point and exponent
    /// (`-17.25`, `.5`, `2.5e3`, `1E-7`), rounded to the nearest `f64`, and
    /// the infinities `inf`, `infinity`, `-inf`, ... in any case, which
    /// PostgreSQL accepts as well. Rejects NaN (which would be a value no
    /// row can be compared with in SQL), numbers too large for an `f64`
    /// instead of reading them as infinite, and spaces.
    ///
    /// ```
    /// use ivm::sql::Double;
    ///
    /// assert_eq!("-Infinity".parse::<Double>().unwrap(), Double(f64::NEG_INFINITY));
    /// assert!("NaN".parse::<Double>().is_err());
    /// assert!("1e400".parse::<Double>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Double, ParseError> {
        let value: f64 = text
            .parse()
            .map_err(|_| ParseError::new("not a number (such as -17.25 or 2.5e3)"))?;
        if value.is_nan() {
            return Err(ParseError::new(
                "NaN is not a number a column can hold; leave the row out or use a number",
            ));
        }
        if value.is_infinite() {
            let unsigned = text.trim_start_matches(['+', '-']);
            let named =
                unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity");
            if !named {
                return Err(ParseError::new(
                    "out of range for a double (beyond ±1.8e308)",
                ));
            }
        }
        Ok(Double(value))
    }
}

impl Add for Double {
    type Output = Double;

    /// IEEE addition.
    fn add(self, other: Double) -> Double {
        Double(self.0 + other.0)
    }
}

impl Sub for Double {
    type Output = Double;

    /// IEEE subtraction.
    fn sub(self, other: Double) -> Double {
        Double(self.0 - other.0)
    }
}

impl Mul for Double {
    type Output = Double;

    /// IEEE multiplication.
    fn mul(self, other: Double) -> Double {
        Double(self.0 * other.0)
    }
}

impl Div for Double {
    type Output = Double;

    /// IEEE division: dividing by zero gives an infinity (or NaN for
    /// `0 / 0`), not a panic.
    fn div(self, other: Double) -> Double {
        Double(self.0 / other.0)
    }
}

impl Neg for Double {
    type Output = Double;

    /// The negation.
    fn neg(self) -> Double {
        Double(-self.0)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use proptest::prelude::*;

    use super::*;

    fn hash(x: Double) -> u64 {
        foldhash::fast::FixedState::with_seed(3).hash_one(x)
    }

    #[test]
    fn zeros_are_one_key() {
        assert_eq!(Double(-0.0), Double(0.0));
        assert_eq!(hash(Double(-0.0)), hash(Double(0.0)));
        assert_eq!(Double(-0.0).cmp(&Double(0.0)), Ordering::Equal);
        assert!(Double(-0.0) > Double(-f64::MIN_POSITIVE));
        assert_eq!(Double(-0.0).to_string(), "0");
    }

    #[test]
    fn nan_is_one_value_above_everything() {
        let other_nan = Double(f64::from_bits(f64::NAN.to_bits() ^ 1));
        let negative_nan = Double(-f64::NAN);
        assert!(other_nan.0.is_nan() && negative_nan.0.is_nan());
        assert_eq!(Double(f64::NAN), other_nan);
        assert_eq!(Double(f64::NAN), negative_nan);
        assert_eq!(hash(Double(f64::NAN)), hash(negative_nan));
        assert!(negative_nan > Double(f64::INFINITY));
        assert!(Double(f64::NEG_INFINITY) < Double(f64::MIN));
    }

    #[test]
    fn parses_numbers_and_infinities() {
        let ok = |text: &str| text.parse::<Double>().unwrap().0;
        assert_eq!(ok("-17.25"), -17.25);
        assert_eq!(ok("+1.5"), 1.5);
        assert_eq!(ok(".5"), 0.5);
        assert_eq!(ok("2.5e3"), 2500.0);
        assert_eq!(ok("1E-2"), 0.01);
        assert_eq!(ok("0.1"), 0.1);
        assert_eq!(ok("1e-400"), 0.0);
        assert_eq!(ok("inf"), f64::INFINITY);
        assert_eq!(ok("-Infinity"), f64::NEG_INFINITY);
        assert_eq!(ok("+INF"), f64::INFINITY);
        for bad in [
            "", " 1", "1 ", "abc", "1.2.3", "NaN", "nan", "-nan", "1e400", "-1e400", "1,5", "--1",
            "infinit",
        ] {
            assert!(bad.parse::<Double>().is_err(), "{bad:?}");
        }
        assert_eq!(
            "NaN".parse::<Double>().unwrap_err().reason(),
            "NaN is not a number a column can hold; leave the row out or use a number"
        );
        assert_eq!(
            "x".parse::<Double>().unwrap_err().reason(),
            "not a number (such as -17.25 or 2.5e3)"
        );
    }

    #[test]
    fn arithmetic_is_ieee() {
        assert_eq!(Double(1.5) + Double(2.0), Double(3.5));
        assert_eq!(Double(1.5) - Double(2.0), Double(-0.5));
        assert_eq!(Double(1.5) * Double(2.0), Double(3.0));
        assert_eq!(Double(1.0) / Double(4.0), Double(0.25));
        assert_eq!(Double(1.0) / Double(0.0), Double(f64::INFINITY));
        assert_eq!(-Double(2.0), Double(-2.0));
        assert_eq!(Double::from(2.0), Double(2.0));
        assert_eq!(f64::from(Double(2.0)), 2.0);
        assert_eq!(Double::default(), Double(0.0));
        assert_eq!(
            (Double(0.1) + Double(0.2)).to_string(),
            "0.30000000000000004"
        );
    }

    fn doubles() -> impl Strategy<Value = Double> {
        prop_oneof![
            any::<f64>().prop_map(Double),
            prop::sample::select(vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                f64::NAN,
                -f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ])
            .prop_map(Double),
        ]
    }

    proptest! {
        #[test]
        fn eq_ord_and_hash_agree(a in doubles(), b in doubles(), c in doubles()) {
            prop_assert_eq!(a == b, a.cmp(&b) == Ordering::Equal);
            prop_assert_eq!(a.partial_cmp(&b), Some(a.cmp(&b)));
            prop_assert_eq!(b.cmp(&a), a.cmp(&b).reverse());
            if a == b {
                prop_assert_eq!(hash(a), hash(b));
            }
            if a <= b && b <= c {
                prop_assert!(a <= c);
            }
            if !a.0.is_nan() && !b.0.is_nan() {
                prop_assert_eq!(a.0.partial_cmp(&b.0), Some(a.cmp(&b)), "the numeric order");
            }
        }

        #[test]
        fn display_parses_back(x in any::<f64>().prop_filter("a number", |x| !x.is_nan())) {
            let back: Double = Double(x).to_string().parse().unwrap();
            // Bit for bit, but for the zeros, which print alike (equal).
            if x == 0.0 {
                prop_assert_eq!(back.0.to_bits(), 0);
            } else {
                prop_assert_eq!(back.0.to_bits(), x.to_bits());
            }
        }
    }
}
