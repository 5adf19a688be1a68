//! The value of a `{ expr }` factor of a rule (DESIGN section 3a): a
//! condition (`bool`: true is one, false is zero, the Iverson bracket) or a
//! lift (a payload, as is).

use crate::Semiring;

/// What a factor's expression may be: a `bool` condition or a payload.
pub trait IntoPayload<K> {
    /// The factor as a payload.
    fn into_payload(self) -> K;
}

impl<K: Semiring> IntoPayload<K> for bool {
    #[inline]
    fn into_payload(self) -> K {
        if self { K::one() } else { K::zero() }
    }
}

impl<K: Semiring> IntoPayload<K> for K {
    #[inline]
    fn into_payload(self) -> K {
        self
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
