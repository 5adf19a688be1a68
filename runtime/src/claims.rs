//! One check per class keyword a semiring of the user's own may state in
//! `#[semiring(path, class, ...)]`: a `const fn` whose bound is the trait
//! that states the class. Generated code calls the ones the user claims,
//! at the keyword's span, so a claim the type does not back with its trait
//! fails to compile there, naming the missing trait.
//!
//! Reached as `::ivm::__private::claims::<keyword>::<K>()`.

use crate::{
    BoundedMonotone, Counting, Deletable, Idempotent, Maintained, MaxMaxShape, Natural,
    OplusStrictlyMonotone, Positive, Ring, Selective, StrictlyMonotone,
};

/// `ring`: additive inverses.
pub const fn ring<K: Ring + Maintained>() {}

/// `positive`: zero-sum free and zero-divisor free.
pub const fn positive<K: Positive>() {}

/// `strictly_monotone`.
pub const fn strictly_monotone<K: StrictlyMonotone>() {}

/// `oplus_strictly_monotone`.
pub const fn oplus_strictly_monotone<K: OplusStrictlyMonotone>() {}

/// `bounded_monotone`.
pub const fn bounded_monotone<K: BoundedMonotone>() {}

/// `idempotent`: idempotent and strictly ordered.
pub const fn idempotent<K: Idempotent>() {}

/// `natural`: an injective homomorphism from ℕ.
pub const fn natural<K: Natural>() {}

/// `max_max`: ⊕ and ⊗ are both max.
pub const fn max_max<K: MaxMaxShape>() {}

/// `deletable`: retraction in O(1).
pub const fn deletable<K: Deletable>() {}

/// `ordered`: retraction through an ordered multiset.
pub const fn ordered<K: Maintained + Selective>() {}

/// `counting`: exact subtraction of a part of a sum.
pub const fn counting<K: Counting>() {}
