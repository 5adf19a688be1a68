//! The value of a `{ expr }` factor of a rule
//! (`docs/design.md#constants-wildcards-and-factors`): a condition (`bool`:
//! true is one, false is zero, the Iverson bracket) or a lift (a payload, as
//! is).

use crate::Semiring;

/// What a factor's expression may be: a `bool` condition or a payload.
pub trait IntoPayload<K> {
    /// The factor as a payload.
    fn into_payload(self) -> K;

    /// The factor as a payload, `None` when it is zero.
    fn non_zero(self) -> Option<K>;

    /// `acc ⊗ self`, `None` when it is zero. A condition multiplies
    /// nothing: it keeps `acc` or drops it.
    fn times(self, acc: K) -> Option<K>;
}

impl<K: Semiring> IntoPayload<K> for bool {
    #[inline]
    fn into_payload(self) -> K {
        if self { K::one() } else { K::zero() }
    }

    #[inline]
    fn non_zero(self) -> Option<K> {
        self.then(K::one)
    }

    #[inline]
    fn times(self, acc: K) -> Option<K> {
        self.then_some(acc)
    }
}

impl<K: Semiring> IntoPayload<K> for K {
    #[inline]
    fn into_payload(self) -> K {
        self
    }

    #[inline]
    fn non_zero(self) -> Option<K> {
        (!self.is_zero()).then_some(self)
    }

    #[inline]
    fn times(self, acc: K) -> Option<K> {
        let product = acc.mul(&self);
        (!product.is_zero()).then_some(product)
    }
}

/// A factor's payload: `factor::<Int>(q < 24)` is `Int(1)` or `Int(0)`,
/// `factor::<Int>(Int(ep * disc))` is the lift itself.
///
/// ```
/// use ivm::__private::factor;
/// use ivm::semiring::Int;
///
/// assert_eq!(factor::<Int>(3 < 24), Int(1));
/// assert_eq!(factor::<Int>(Int(7 * 5)), Int(35));
/// ```
#[inline]
pub fn factor<K: Semiring>(value: impl IntoPayload<K>) -> K {
    value.into_payload()
}

/// The first factor of a local step: its payload, `None` when it is zero
/// (a condition that fails), so that the factors after it are not
/// evaluated.
///
/// ```
/// use ivm::__private::{first_factor, times};
/// use ivm::semiring::Int;
///
/// let (q, ep) = (30, 7);
/// assert_eq!(first_factor::<Int>(q < 24).and_then(|f| times(f, Int(ep))), None);
/// assert_eq!(first_factor::<Int>(q < 40).and_then(|f| times(f, Int(ep))), Some(Int(7)));
/// ```
#[inline]
pub fn first_factor<K: Semiring>(value: impl IntoPayload<K>) -> Option<K> {
    value.non_zero()
}

/// The product of the factors so far and the next one, `None` when it is
/// zero.
#[inline]
pub fn times<K: Semiring>(acc: K, value: impl IntoPayload<K>) -> Option<K> {
    value.times(acc)
}

/// `payload ⊗ factor`, without the product where `payload` is zero or
/// one: a tuple's change on its way into a local step's derived relation,
/// whose old and new payloads are those of a plain insert or delete (zero
/// and one) nearly always. Exact by the semiring's laws (0 ⊗ f = 0,
/// 1 ⊗ f = f); for decimals, equal by value (`1.00` is one).
///
/// ```
/// use ivm::__private::scaled;
/// use ivm::semiring::Int;
///
/// assert_eq!(scaled(&Int(0), &Int(7)), Int(0));
/// assert_eq!(scaled(&Int(1), &Int(7)), Int(7));
/// assert_eq!(scaled(&Int(3), &Int(7)), Int(21));
/// ```
#[inline]
pub fn scaled<K: Semiring>(payload: &K, factor: &K) -> K {
    if payload.is_zero() {
        K::zero()
    } else if *payload == K::one() {
        factor.clone()
    } else {
        payload.mul(factor)
    }
}
