//! Tuples of semirings: several aggregates in one payload
//! (`docs/design.md#tuples-of-semirings`), `#[semiring((Int, Int, Count))]`
//! with a lift such as `{ (Int(q), Int(p), Count(1)) }`.
//!
//! ⊕ and ⊗ are componentwise, zero and one are the components' zeros and
//! ones. A tuple is zero when every component is: a tuple with one
//! non-zero component is present. Componentwise products have zero
//! divisors ((1, 0) ⊗ (0, 1) = (0, 0)), so a tuple is never
//! [`Positive`](crate::Positive); it is a [`Ring`] when every component is,
//! [`Deletable`](crate::Deletable) or [`Idempotent`] likewise.
//!
//! Payload states are kept per component ([`Maintained`]): a contribution
//! adds its non-zero components to their states. A tuple of rings retracts
//! as a ring does (it subtracts, and refuses only when the tuple is
//! absent); any other tuple takes back each non-zero component from its
//! state, all or none.
//!
//! ```
//! use ivm::Semiring;
//! use ivm::semiring::{Count, Int};
//!
//! let a = (Int(3), Count(1));
//! let b = (Int(4), Count(1));
//! assert_eq!(a.add(&b), (Int(7), Count(2)));
//! assert_eq!(a.mul(&b), (Int(12), Count(1)));
//! assert!(!(Int(0), Count(1)).is_zero());
//! ```

use crate::{CheckedSemiring, Deletable, Idempotent, Maintained, Ring, Semiring};

macro_rules! tuple_semiring {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: Semiring),+> Semiring for ($($t,)+) {
            #[inline]
            fn zero() -> Self {
                ($($t::zero(),)+)
            }

            #[inline]
            fn one() -> Self {
                ($($t::one(),)+)
            }

            #[inline]
            fn is_zero(&self) -> bool {
                $(self.$i.is_zero())&&+
            }

            #[inline]
            fn add(&self, other: &Self) -> Self {
                ($(self.$i.add(&other.$i),)+)
            }

            #[inline]
            fn mul(&self, other: &Self) -> Self {
                ($(self.$i.mul(&other.$i),)+)
            }
        }

        impl<$($t: CheckedSemiring),+> CheckedSemiring for ($($t,)+) {
            fn checked_add(&self, other: &Self) -> Option<Self> {
                Some(($(self.$i.checked_add(&other.$i)?,)+))
            }

            fn checked_mul(&self, other: &Self) -> Option<Self> {
                Some(($(self.$i.checked_mul(&other.$i)?,)+))
            }
        }

        impl<$($t: Ring),+> Ring for ($($t,)+) {
            #[inline]
            fn neg(&self) -> Self {
                ($(self.$i.neg(),)+)
            }
        }

        impl<$($t: Idempotent),+> Idempotent for ($($t,)+) {}

        impl<$($t: Deletable),+> Deletable for ($($t,)+) {}

        impl<$($t: Maintained),+> Maintained for ($($t,)+) {
            type State = ($($t::State,)+);
            const BY_SUBTRACTION: bool = $($t::BY_SUBTRACTION)&&+;
            // A component refused refuses the whole, so each component
            // retracting exactly (or linearly) is enough.
            const RETRACTS_EXACTLY: bool = $($t::RETRACTS_EXACTLY)&&+;

            #[inline]
            fn value(state: &Self::State) -> Self {
                ($($t::value(&state.$i),)+)
            }

            #[inline]
            fn insert(state: &mut Self::State, v: &Self) {
                $(
                    if !v.$i.is_zero() {
                        $t::insert(&mut state.$i, &v.$i);
                    }
                )+
            }

            /// A tuple of rings subtracts, refusing only when the tuple is
            /// absent; any other takes back every non-zero component, or,
            /// if one is refused, none.
            fn retract(state: &mut Self::State, v: &Self) -> bool {
                if Self::BY_SUBTRACTION {
                    if Self::is_empty(state) {
                        return false;
                    }
                    $($t::replace(&mut state.$i, &v.$i, &$t::zero());)+
                    return true;
                }
                if v.is_zero() {
                    return false;
                }
                let before = state.clone();
                let taken = $((v.$i.is_zero() || $t::retract(&mut state.$i, &v.$i)))&&+;
                if !taken {
                    *state = before;
                }
                taken
            }

            #[inline]
            fn replace(state: &mut Self::State, old: &Self, new: &Self) {
                $($t::replace(&mut state.$i, &old.$i, &new.$i);)+
            }

            #[inline]
            fn is_empty(state: &Self::State) -> bool {
                $($t::is_empty(&state.$i))&&+
            }
        }
    )*};
}

tuple_semiring! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}
