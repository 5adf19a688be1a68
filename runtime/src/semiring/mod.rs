//! Payload algebra: the [`Semiring`] trait, the capability traits above it,
//! and the catalogue of semirings a query can be maintained over.
//!
//! # The ladder
//!
//! [`Semiring`] is all that evaluating a query needs. Maintaining it under
//! updates needs more, and what exactly depends on the strategy, so each
//! extra property is its own trait and generated code bounds its payload by
//! the ones it uses:
//!
//! | trait | promises | used for |
//! |---|---|---|
//! | [`Ring`] | additive inverses | a delete adds `neg(payload)` |
//! | [`CheckedSemiring`] | ⊕ and ⊗ that report overflow | updates that return [`Error::Overflow`](crate::Error::Overflow) |
//! | [`Positive`] | no zero sums, no zero divisors | a non-zero payload stays non-zero under inserts (two-layer structure) |
//! | [`Idempotent`] | a ⊕ a = a | |
//! | [`Selective`] | a ⊕ b ∈ {a, b} | ordered aggregates: keep the best contribution |
//! | [`OplusStrictlyMonotone`] | a dominant summand strictly increases a sum | the q-core lower bound applies |
//! | [`StrictlyMonotone`] | and the same for products | the ∃-hierarchy-core lower bound applies |
//! | [`BoundedMonotone`] | a payload improves a bounded number of times | CROWN under inserts |
//! | [`Natural`] | an injective homomorphism from ℕ | the p-hierarchical lower bound applies |
//! | [`MaxMaxShape`] | ⊕ = ⊗ = max | max-max clusters under inserts |
//! | [`Deletable`] | retraction in O(1) ([`Maintained`](crate::Maintained)'s state is a summary) | deletes in O(1) |
//! | [`Counting`] | a part of a sum can be taken back exactly | IVMε's triangle count |
//!
//! Retraction itself, whatever its cost, is [`Maintained`](crate::Maintained):
//! the one trait through which generated code keeps a payload as contributions
//! come and go. Each class keyword of `#[semiring(path, class, ...)]` names
//! one of these traits (`ring`: [`Ring`], `deletable`: [`Deletable`],
//! `counting`: [`Counting`], ...), and the generated code checks that the
//! type implements it.
//!
//! The marker traits (all but `Ring`, `CheckedSemiring`, `Selective`,
//! `BoundedMonotone` and `Counting`) carry no methods: they are promises
//! that the compiler cannot check. Implementing one for a type that does not satisfy
//! it makes the chosen strategy compute wrong results or miss its bounds.
//!
//! # The catalogue
//!
//! | type | domain | ⊕ | ⊗ | 0 | 1 | classes |
//! |---|---|---|---|---|---|---|
//! | [`Bool`] | `bool` | ∨ | ∧ | false | true | positive, selective, bounded monotone, deletable |
//! | [`Count`] | `u64` | + | × | 0 | 1 | positive, strictly monotone, deletable |
//! | [`Int`] | `i64` | + | × | 0 | 1 | ring, deletable |
//! | [`Real`] | `f64` | + | × | 0 | 1 | ring, deletable |
//! | `sql::Decimal` (feature `sql`) | exact decimals, 96-bit mantissa, scale ≤ 28 | + | × | 0 | 1 | ring, deletable |
//! | [`MinPlus`] | `i64`, `i64::MAX` is +∞ | min | + | +∞ | 0 | positive, selective, strictly monotone |
//! | [`MaxPlus`] | `i64`, `i64::MIN` is −∞ | max | + | −∞ | 0 | positive, selective, strictly monotone |
//! | [`MaxMin`] | `i64` | max | min | `i64::MIN` | `i64::MAX` | positive, selective, strictly monotone |
//! | [`MinMax`] | `i64` | min | max | `i64::MAX` | `i64::MIN` | positive, selective, strictly monotone |
//! | [`MaxMax`] | `i64`, `i64::MIN` adjoined as 0 | max | max, 0 absorbs | `i64::MIN` | `i64::MIN + 1` | positive, selective, ⊕-strictly monotone |
//! | [`AccessControl`] | public < … < secret < denied | min | max | denied | public | positive, selective, bounded monotone, deletable |
//! | [`Covariance<M>`] | (count, sums, moments) | componentwise + | F-IVM's product | all 0 | (1, 0, 0) | ring, deletable |
//!
//! The classes are those of the mathematical semiring each type stands for
//! (ℕ, ℤ, ℤ ∪ {+∞}, ...): a 64-bit representation has no infinite chains,
//! but a maintenance algorithm meets its limits only as an overflow, which
//! the arithmetic semirings report instead of wrapping.
//!
//! Every catalogue type is a plain newtype (or a small struct or enum) with
//! public contents, so payloads are written `Int(5)` or `MinPlus(3)`. For
//! each, `Default` is the semiring's zero: the payload of an absent tuple.
//! `PartialOrd`/`Ord`, where derived, compare the underlying values and not
//! the semiring's natural order; they exist so payloads can key ordered
//! collections.
//!
//! # Laws, once
//!
//! A commutative semiring (K, ⊕, ⊗, 0, 1) satisfies, for all a, b, c:
//!
//! - (K, ⊕, 0) is a commutative monoid: (a ⊕ b) ⊕ c = a ⊕ (b ⊕ c),
//!   a ⊕ b = b ⊕ a, a ⊕ 0 = a;
//! - (K, ⊗, 1) is a commutative monoid: (a ⊗ b) ⊗ c = a ⊗ (b ⊗ c),
//!   a ⊗ b = b ⊗ a, a ⊗ 1 = a;
//! - ⊗ distributes over ⊕: a ⊗ (b ⊕ c) = (a ⊗ b) ⊕ (a ⊗ c);
//! - 0 annihilates: a ⊗ 0 = 0.
//!
//! `tests/semiring_laws.rs` checks every law of every trait on every
//! catalogue type with property tests.

use std::fmt::Debug;

mod covariance;
mod deletable;
mod numeric;
mod order;
mod tropical;
mod tuple;

pub use covariance::Covariance;
pub use deletable::{BoolState, LevelCounts, SumState};
pub use numeric::{Count, Int, Real};
pub use order::{AccessControl, Bool, MaxMax, MaxMin, MinMax};
pub use tropical::{MaxPlus, MinPlus};

/// A commutative semiring: the payloads of a K-relation.
///
/// # Laws
///
/// (K, ⊕, 0) and (K, ⊗, 1) are commutative monoids, ⊗ distributes over ⊕,
/// and 0 annihilates under ⊗ (see the [module docs](self) for the
/// equations). [`is_zero`](Semiring::is_zero) holds exactly for values equal
/// to [`zero`](Semiring::zero), and `add_assign`/`mul_assign`, when
/// overridden, agree with `add`/`mul`.
///
/// # Not required
///
/// - Additive inverses (that is [`Ring`]); retraction without them is
///   [`Maintained`](crate::Maintained)'s business.
/// - An order of any kind (that is [`Selective`] and the monotonicity
///   markers).
/// - Totality: an implementation may panic where its representation runs
///   out (`Count` and `Int` overflow), and then offers
///   [`CheckedSemiring`] as the non-panicking path.
/// - `Eq` and `Hash`: `Real` and `Covariance` have neither. Generated code
///   never hashes payloads, only keys.
///
/// The operations take their operands by reference so that maintenance
/// loops over large payloads (such as [`Covariance`]) do not clone them.
///
/// ```
/// use ivm::Semiring;
/// use ivm::semiring::Int;
///
/// let mut total = Int::zero();
/// for (price, qty) in [(Int(3), Int(2)), (Int(5), Int(1))] {
///     total.add_assign(&price.mul(&qty));
/// }
/// assert_eq!(total, Int(11));
/// assert!(Int(0).is_zero());
/// ```
pub trait Semiring: Clone + PartialEq + Debug + 'static {
    /// The neutral element of ⊕ and the payload of an absent tuple.
    fn zero() -> Self;

    /// The neutral element of ⊗ and the payload of a plain insert.
    fn one() -> Self;

    /// Whether a ⊗ b = 0 only when a = 0 or b = 0. Generated code then
    /// knows whether a product is zero from its factors alone: a view tree
    /// skips looking up a sibling view when the payload that changed stays
    /// non-zero (or stays zero). `false`, the default, is always correct;
    /// floating-point products, which underflow to zero, must keep it.
    const ZERO_DIVISOR_FREE: bool = false;

    /// Whether `self` equals [`zero`](Semiring::zero). Override it when a
    /// direct test is cheaper than building zero and comparing.
    fn is_zero(&self) -> bool {
        *self == Self::zero()
    }

    /// a ⊕ b: combines alternative derivations (union, projection).
    fn add(&self, other: &Self) -> Self;

    /// a ⊗ b: combines the facts of one derivation (join).
    fn mul(&self, other: &Self) -> Self;

    /// `*self = self ⊕ other`, in place.
    fn add_assign(&mut self, other: &Self) {
        *self = self.add(other);
    }

    /// `*self = self ⊗ other`, in place.
    fn mul_assign(&mut self, other: &Self) {
        *self = self.mul(other);
    }
}

/// A commutative ring: a semiring in which every payload has an additive
/// inverse, so a delete is the insert of the negated payload.
///
/// # Laws
///
/// a ⊕ neg(a) = 0 for every a.
///
/// # Not required
///
/// Inverses under ⊗ (a field): nothing divides.
///
/// ```
/// use ivm::{Ring, Semiring};
/// use ivm::semiring::Int;
///
/// let inserted = Int(4);
/// assert!(inserted.add(&inserted.neg()).is_zero());
/// assert_eq!(Int(7).sub(&Int(4)), Int(3));
/// ```
pub trait Ring: Semiring {
    /// The additive inverse: `self ⊕ self.neg() = 0`.
    fn neg(&self) -> Self;

    /// `self ⊕ neg(other)`: takes back a contribution of `other`.
    fn sub(&self, other: &Self) -> Self {
        self.add(&other.neg())
    }
}

/// A semiring whose operations can report that the result does not fit the
/// representation, instead of panicking or losing precision silently.
///
/// # Laws
///
/// Where `checked_add(a, b)` is `Some(r)`, `r == a.add(b)`, and likewise for
/// `checked_mul`. `None` means the plain operation would panic.
///
/// # Not required
///
/// That `None` ever happens: semirings whose operations are total (`Bool`,
/// `Real`, the lattices) always return `Some`.
///
/// ```
/// use ivm::CheckedSemiring;
/// use ivm::semiring::Count;
///
/// assert_eq!(Count(2).checked_add(&Count(3)), Some(Count(5)));
/// assert_eq!(Count(u64::MAX).checked_add(&Count(1)), None);
/// ```
pub trait CheckedSemiring: Semiring {
    /// a ⊕ b, or `None` where it does not fit.
    fn checked_add(&self, other: &Self) -> Option<Self>;

    /// a ⊗ b, or `None` where it does not fit.
    fn checked_mul(&self, other: &Self) -> Option<Self>;
}

/// A positive semiring: zero-sum free and zero-divisor free.
///
/// # Laws
///
/// - a ⊕ b = 0 implies a = 0 and b = 0: inserts never cancel each other,
///   so a tuple that is present stays present under inserts;
/// - a ⊗ b = 0 implies a = 0 or b = 0: a join of present tuples is
///   present, so the support of a join is the join of the supports.
///
/// # Not required
///
/// Any way to delete: positive semirings have no inverses (a ring with
/// 1 ≠ 0 is never positive), so deletes retract earlier insertions through
/// an O(1) summary ([`Deletable`]) or an ordered multiset of contributions.
pub trait Positive: Semiring {}

/// ⊕ is idempotent: a ⊕ a = a for every a. Adding a derivation that is
/// already there changes nothing.
///
/// # Not required
///
/// Idempotent ⊗, or that ⊕ picks one of its operands (that is
/// [`Selective`]).
pub trait Idempotent: Semiring {}

/// ⊕ picks one of its operands: a ⊕ b ∈ {a, b}. Then ⊕ totally orders the
/// payloads (a is at least as good as b when a ⊕ b = a), and a sum is its
/// best summand, which is what ordered aggregates (min, max, most permissive
/// level) keep.
///
/// # Laws
///
/// - a ⊕ b ∈ {a, b};
/// - `a.better(b)` exactly when a ⊕ b = a and a ≠ b. Hence for any a, b,
///   exactly one of `a.better(b)`, `b.better(a)`, a = b holds, and zero is
///   never better than anything.
///
/// # Not required
///
/// That the order agrees with the numeric order of the representation:
/// for [`MinPlus`] smaller is better.
///
/// ```
/// use ivm::Selective;
/// use ivm::semiring::{MaxPlus, MinPlus};
///
/// assert!(MinPlus(3).better(&MinPlus(5)));
/// assert!(MaxPlus(5).better(&MaxPlus(3)));
/// assert!(!MinPlus(3).better(&MinPlus(3)));
/// ```
pub trait Selective: Idempotent {
    /// Whether `self ⊕ other` is `self` and not `other`: `self` strictly
    /// wins.
    fn better(&self, other: &Self) -> bool {
        self != other && self.add(other) == *self
    }
}

/// ⊕-strictly monotone (*Answering Conjunctive Queries with Aggregations
/// under Updates*, Definition 7 and section 4.2): for some total order ≤ with
/// 0 as its least element,
///
/// - (infinity) there is an infinite increasing chain 0 < a₁ < a₂ < …;
/// - (⊕-strictness) a summand above every other summand strictly raises
///   the sum: if vᵢ < q for all i, then v₁ ⊕ … ⊕ vₙ < v₁ ⊕ … ⊕ vₙ ⊕ q.
///
/// Over such a semiring, a free-connex query with a q-core (free x and bound
/// y, an atom with both, an atom with y but not x) cannot be maintained in
/// O(N^(1/2−ε)) time per insert with O(N^(1/2−ε)) delay, under the OMv
/// conjecture. [`MaxMax`] is the member of the catalogue that has this
/// property but not [`StrictlyMonotone`].
///
/// # Not required
///
/// That ≤ is the natural order, or anything of ⊗.
pub trait OplusStrictlyMonotone: Semiring {}

/// Strictly monotone (*Answering Conjunctive Queries with Aggregations under
/// Updates*, Definition 7): ⊕-strictly monotone, and (⊗-strictness) for
/// 0 < a < b and k ≥ 0, a ⊗ bᵏ < bᵏ⁺¹: a product with one factor below the
/// largest one stays strictly below the product of largest factors.
///
/// Over such a semiring, inserts alone already make every free-connex query
/// that is not strong-connex hard (the same paper, Corollary 14): the
/// compiler rejects those queries unless the user opts in to a slower
/// strategy. `Count`, `MinPlus`, `MaxPlus`, `MaxMin` and `MinMax` are
/// strictly monotone.
///
/// # Not required
///
/// Cancellative operations: the fuzzy semiring ([`MaxMin`]) is strictly
/// monotone although min is not cancellative.
pub trait StrictlyMonotone: OplusStrictlyMonotone {}

/// Naturally ordered with monotone sequences of bounded length (*Answering
/// Conjunctive Queries with Aggregations under Updates*, section 5.1):
/// a ≤ b when b = a ⊕ c for some c is a partial order, and every chain
/// 0 < a₁ < a₂ < … in it has at most a constant number of elements.
///
/// A payload can then improve only a bounded number of times under inserts,
/// so CROWN, which propagates a change only when it happens, maintains every
/// free-connex query in O(1) amortized time per insert. `Bool` (chains of
/// length 1) and `AccessControl` (length 4) are bounded monotone.
///
/// # Not required
///
/// A total order, or anything about deletes.
pub trait BoundedMonotone: Semiring {
    /// Whether nothing can grow `self`: a ⊕ self = self for every a. A
    /// CROWN message that has reached the top will not change again, so
    /// the tuples that wait on it need no index. `false`, the default, is
    /// always correct.
    fn is_top(&self) -> bool {
        false
    }
}

/// O(1)-deletable aggregates (*Answering Conjunctive Queries with
/// Aggregations under Updates*, Definition 23): the payload of a key is kept
/// as a state of O(1) words that reads the ⊕ of a multiset of contributions,
/// adds one and takes one back, each in O(1) time: the
/// [`Maintained`](crate::Maintained) implementation runs in O(1).
///
/// Rings keep the sum and subtract; `Count` keeps the sum with the number
/// of contributions; `Bool` and `AccessControl` keep derivation counts.
///
/// # Not required
///
/// That a retraction detects every absent contribution: an O(1) summary
/// cannot always tell (after inserting 2 and 3 into a sum, taking back 1
/// and 4 is indistinguishable from taking back 5). Selective semirings such
/// as [`MinPlus`] do not qualify (the same paper, Lemma 24): the best
/// contribution after a retraction needs an ordered multiset and
/// O(log N).
pub trait Deletable: crate::Maintained {}

/// Has an injective homomorphism from (ℕ, +, ×), as `Count` is ℕ itself:
/// with the idempotent, strictly ordered semirings, the class 𝒦 of
/// *The Role of Semirings in Incremental View Maintenance* (Definition 8),
/// over which queries that are not p-hierarchical are hard under inserts.
pub trait Natural: Semiring {}

/// ⊕ and ⊗ are both max over a totally ordered domain, with the least
/// element as zero ([`MaxMax`]): free-connex queries without a q-core are
/// then tractable under inserts (*Answering Conjunctive Queries with
/// Aggregations under Updates*, section 5.2).
pub trait MaxMaxShape: Selective {}

/// A sum can be taken back exactly: `minus` undoes an earlier ⊕ of a part
/// of the sum. Every ring is one, by subtraction, and so is `Count`, by
/// subtraction that never goes below zero. IVMε keeps its triangle count
/// over such a semiring.
///
/// # Laws
///
/// `a.add(&b).minus(&b) == a` for every a and b.
///
/// ```
/// use ivm::Counting;
/// use ivm::semiring::{Count, Int};
///
/// assert_eq!(Count(7).minus(&Count(3)), Count(4));
/// assert_eq!(Int(2).minus(&Int(5)), Int(-3));
/// ```
pub trait Counting: Semiring {
    /// `self − part`, where `part` was added into `self` (so the result
    /// is never negative for `Count`).
    fn minus(&self, part: &Self) -> Self;
}

impl<K: Ring> Counting for K {
    fn minus(&self, part: &Self) -> Self {
        self.sub(part)
    }
}

impl Counting for Count {
    fn minus(&self, part: &Self) -> Self {
        Count(
            self.0
                .checked_sub(part.0)
                .expect("ivm: Count underflow: a retraction took back more than was inserted"),
        )
    }
}

/// Implements [`Semiring`] and `Default` (as zero) for a newtype over one
/// `Copy` number, from its zero, its one, and ⊕ and ⊗ on the inner values.
macro_rules! impl_number_semiring {
    ($ty:ident { zero: $zero:expr, one: $one:expr, add: $add:expr, mul: $mul:expr $(,)? }) => {
        impl_number_semiring!($ty {
            zero: $zero,
            one: $one,
            add: $add,
            mul: $mul,
            zero_divisor_free: false
        });
    };
    ($ty:ident { zero: $zero:expr, one: $one:expr, add: $add:expr, mul: $mul:expr, zero_divisor_free: $zdf:expr $(,)? }) => {
        impl $crate::semiring::Semiring for $ty {
            const ZERO_DIVISOR_FREE: bool = $zdf;

            #[inline]
            fn zero() -> Self {
                $ty($zero)
            }

            #[inline]
            fn one() -> Self {
                $ty($one)
            }

            #[inline]
            fn is_zero(&self) -> bool {
                self.0 == $zero
            }

            #[inline]
            fn add(&self, other: &Self) -> Self {
                $ty(($add)(self.0, other.0))
            }

            #[inline]
            fn mul(&self, other: &Self) -> Self {
                $ty(($mul)(self.0, other.0))
            }

            #[inline]
            fn add_assign(&mut self, other: &Self) {
                self.0 = ($add)(self.0, other.0);
            }

            #[inline]
            fn mul_assign(&mut self, other: &Self) {
                self.0 = ($mul)(self.0, other.0);
            }
        }

        impl Default for $ty {
            /// The semiring's zero, the payload of an absent tuple.
            #[inline]
            fn default() -> Self {
                <Self as $crate::semiring::Semiring>::zero()
            }
        }
    };
}

/// Implements [`CheckedSemiring`] for semirings whose operations never fail.
macro_rules! impl_total_checked {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::semiring::CheckedSemiring for $ty {
            /// Always `Some`: ⊕ is total here.
            #[inline]
            fn checked_add(&self, other: &Self) -> Option<Self> {
                Some($crate::semiring::Semiring::add(self, other))
            }

            /// Always `Some`: ⊗ is total here.
            #[inline]
            fn checked_mul(&self, other: &Self) -> Option<Self> {
                Some($crate::semiring::Semiring::mul(self, other))
            }
        }
    )*};
}

use {impl_number_semiring, impl_total_checked};

/// The panic behind `Count`, `Int` and the tropical semirings when a result
/// leaves the representation. Wrapping would corrupt payloads silently, so
/// this is loud even in release builds.
#[cold]
#[inline(never)]
pub(crate) fn overflow(semiring: &str, op: &str, a: &dyn Debug, b: &dyn Debug) -> ! {
    panic!(
        "ivm: {semiring} overflow in {op}: {a:?} {op} {b:?} does not fit in 64 bits; \
         use `ivm::CheckedSemiring` to detect it, or a wider payload"
    )
}
