//! F-IVM's covariance ring: count, sums and second moments of M numeric
//! features, maintained together through joins.

use std::fmt;

use super::{CheckedSemiring, Ring, Semiring};

/// The covariance ring of F-IVM over M features: a payload is the triple
/// (c, s, Q) of a count, a vector of sums and a matrix of sums of products,
/// and the payload of a query result holds the count, the sums and the
/// moment matrix of the features over the join, from which means, variances
/// and covariances (and so linear regression models) follow.
///
/// - (c₁, s₁, Q₁) ⊕ (c₂, s₂, Q₂) = (c₁ + c₂, s₁ + s₂, Q₁ + Q₂);
/// - (c₁, s₁, Q₁) ⊗ (c₂, s₂, Q₂) =
///   (c₁c₂, c₂s₁ + c₁s₂, c₂Q₁ + c₁Q₂ + s₁s₂ᵀ + s₂s₁ᵀ);
/// - 0 = (0, 0, 0), 1 = (1, 0, 0).
///
/// The product is the one of degree-2 polynomials truncated after degree 2,
/// which is why it is associative and distributes over ⊕. It is a ring
/// (negate every component), so deletes subtract. Each relation lifts the
/// features it holds with [`Covariance::lift`] (zero in the positions of
/// features it does not hold), and the join multiplies the lifts.
///
/// As with [`Real`](super::Real), the laws hold exactly only where the
/// floating-point arithmetic is exact.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::Covariance;
///
/// // Feature 0 comes from one relation, feature 1 from another.
/// let r = Covariance::lift([2.0, 0.0]);
/// let s = Covariance::lift([0.0, 3.0]);
/// let joined = r.mul(&s);
/// assert_eq!(joined.count, 1.0);
/// assert_eq!(joined.sum, [2.0, 3.0]);
/// assert_eq!(joined.moments, [[4.0, 6.0], [6.0, 9.0]]);
///
/// let two = joined.add(&joined);
/// assert_eq!(two.count, 2.0);
/// ```
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Covariance<const M: usize> {
    /// c: the number of tuples (the ring's scalar part).
    pub count: f64,
    /// s: per feature, the sum of its values.
    pub sum: [f64; M],
    /// Q: per pair of features (i, j), the sum of the products of their
    /// values. Symmetric for every payload built from lifts.
    pub moments: [[f64; M]; M],
}

impl<const M: usize> Covariance<M> {
    /// The payload of one observation x: (1, x, x xᵀ).
    pub fn lift(x: [f64; M]) -> Self {
        let mut moments = [[0.0; M]; M];
        for (row, xi) in moments.iter_mut().zip(x) {
            for (cell, xj) in row.iter_mut().zip(x) {
                *cell = xi * xj;
            }
        }
        Covariance {
            count: 1.0,
            sum: x,
            moments,
        }
    }

    /// The payload with count `c` and no features: (c, 0, 0). `scalar(0.0)`
    /// is the zero and `scalar(1.0)` the one.
    pub fn scalar(c: f64) -> Self {
        Covariance {
            count: c,
            sum: [0.0; M],
            moments: [[0.0; M]; M],
        }
    }
}

/// Stored as `1 + M + M²` numbers in a row: the count, the sums, then the
/// moments row by row (serde has no impl for arrays of a generic length).
#[cfg(feature = "serde")]
impl<const M: usize> serde::Serialize for Covariance<M> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut out = serializer.serialize_tuple(1 + M + M * M)?;
        out.serialize_element(&self.count)?;
        for x in self.sum.iter().chain(self.moments.iter().flatten()) {
            out.serialize_element(x)?;
        }
        out.end()
    }
}

#[cfg(feature = "serde")]
impl<'de, const M: usize> serde::Deserialize<'de> for Covariance<M> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Numbers<const M: usize>;
        impl<'de, const M: usize> serde::de::Visitor<'de> for Numbers<M> {
            type Value = Covariance<M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} numbers", 1 + M + M * M)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut read = 0;
                let mut next = |seq: &mut A| -> Result<f64, A::Error> {
                    let x = seq
                        .next_element()?
                        .ok_or_else(|| serde::de::Error::invalid_length(read, &self))?;
                    read += 1;
                    Ok(x)
                };
                let mut out = Covariance::<M> {
                    count: next(&mut seq)?,
                    sum: [0.0; M],
                    moments: [[0.0; M]; M],
                };
                for x in out.sum.iter_mut().chain(out.moments.iter_mut().flatten()) {
                    *x = next(&mut seq)?;
                }
                Ok(out)
            }
        }
        deserializer.deserialize_tuple(1 + M + M * M, Numbers::<M>)
    }
}

impl<const M: usize> Semiring for Covariance<M> {
    #[inline]
    fn zero() -> Self {
        Self::scalar(0.0)
    }

    #[inline]
    fn one() -> Self {
        Self::scalar(1.0)
    }

    fn is_zero(&self) -> bool {
        self.count == 0.0
            && self.sum.iter().all(|&s| s == 0.0)
            && self.moments.iter().flatten().all(|&q| q == 0.0)
    }

    fn add(&self, other: &Self) -> Self {
        let mut out = *self;
        out.add_assign(other);
        out
    }

    fn mul(&self, other: &Self) -> Self {
        let (c1, c2) = (self.count, other.count);
        let (s1, s2) = (&self.sum, &other.sum);
        let mut out = Self::scalar(c1 * c2);
        for i in 0..M {
            out.sum[i] = c2 * s1[i] + c1 * s2[i];
            for j in 0..M {
                out.moments[i][j] = c2 * self.moments[i][j]
                    + c1 * other.moments[i][j]
                    + s1[i] * s2[j]
                    + s2[i] * s1[j];
            }
        }
        out
    }

    fn add_assign(&mut self, other: &Self) {
        self.count += other.count;
        for (s, o) in self.sum.iter_mut().zip(&other.sum) {
            *s += o;
        }
        for (row, other_row) in self.moments.iter_mut().zip(&other.moments) {
            for (q, o) in row.iter_mut().zip(other_row) {
                *q += o;
            }
        }
    }
}

impl<const M: usize> Ring for Covariance<M> {
    fn neg(&self) -> Self {
        let mut out = *self;
        out.count = -out.count;
        for s in &mut out.sum {
            *s = -*s;
        }
        for q in out.moments.iter_mut().flatten() {
            *q = -*q;
        }
        out
    }
}

impl<const M: usize> Default for Covariance<M> {
    /// The zero, (0, 0, 0).
    fn default() -> Self {
        Self::zero()
    }
}

impl<const M: usize> CheckedSemiring for Covariance<M> {
    /// Always `Some`: floats reach ±∞ rather than fail.
    fn checked_add(&self, other: &Self) -> Option<Self> {
        Some(self.add(other))
    }

    /// Always `Some`: floats reach ±∞ rather than fail.
    fn checked_mul(&self, other: &Self) -> Option<Self> {
        Some(self.mul(other))
    }
}

impl<const M: usize> fmt::Display for Covariance<M> {
    /// `(count, [sums], [[moments]])`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {:?}, {:?})", self.count, self.sum, self.moments)
    }
}
