//! Property tests of the laws each catalogue semiring promises through the
//! traits it implements.
//!
//! Values are drawn from small ranges, with the reserved values (zero, one,
//! the infinities) mixed in: Int and Count then never overflow, and the
//! float semirings only ever hold small integers, where their arithmetic is
//! exact and the laws can be checked with `==`.

use ivm::semiring::{
    AccessControl, Bool, Count, Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real,
};
#[cfg(feature = "sql")]
use ivm::sql::{Decimal, Fixed};
use ivm::{
    BoundedMonotone, CheckedSemiring, Deletable, Idempotent, Maintained, OplusStrictlyMonotone,
    Positive, Ring, Selective, Semiring, StrictlyMonotone,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------------------
// Value strategies.

/// A number from a small range, or one of the values the semiring reserves.
fn special_or<T: Clone + std::fmt::Debug + 'static>(
    special: Vec<T>,
    ordinary: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    prop_oneof![1 => select(special), 3 => ordinary].boxed()
}

fn ints() -> impl Strategy<Value = Int> {
    special_or(
        vec![Int(0), Int(1), Int(-1)],
        (-1000i64..1000).prop_map(Int),
    )
}

/// Small decimals with scales 0 to 3 (zeros of every scale among them),
/// so that products of three stay far from 28 digits after the point.
#[cfg(feature = "sql")]
fn decimals() -> impl Strategy<Value = Decimal> {
    special_or(
        vec![
            Decimal::ZERO,
            Decimal::ONE,
            Decimal::new(-1, 0),
            Decimal::new(0, 2),
            Decimal::new(100, 2),
        ],
        (-1000i64..1000, 0u32..4).prop_map(|(m, s)| Decimal::new(m, s)),
    )
}

/// Numbers of at most two digits after the point, at scale 6, so that
/// every product of three is exact at that scale (a `Fixed` never
/// rounds).
#[cfg(feature = "sql")]
fn fixeds() -> impl Strategy<Value = Fixed<6>> {
    let at = |hundredths: i128| Fixed::from_mantissa(hundredths * 10_000).expect("small");
    special_or(
        vec![Fixed::ZERO, Fixed::ONE, at(-100), at(50)],
        (-1000i128..1000).prop_map(at),
    )
}

fn counts() -> impl Strategy<Value = Count> {
    special_or(vec![Count(0), Count(1)], (0u64..1000).prop_map(Count))
}

fn reals() -> impl Strategy<Value = Real> {
    special_or(
        vec![Real(0.0), Real(1.0), Real(-1.0)],
        (-8i32..8).prop_map(|x| Real(f64::from(x))),
    )
}

fn bools() -> impl Strategy<Value = Bool> {
    any::<bool>().prop_map(Bool)
}

fn min_plus() -> impl Strategy<Value = MinPlus> {
    special_or(
        vec![MinPlus::INFINITY, MinPlus(0)],
        (-1000i64..1000).prop_map(MinPlus),
    )
}

fn max_plus() -> impl Strategy<Value = MaxPlus> {
    special_or(
        vec![MaxPlus::NEG_INFINITY, MaxPlus(0)],
        (-1000i64..1000).prop_map(MaxPlus),
    )
}

fn max_min() -> impl Strategy<Value = MaxMin> {
    special_or(
        vec![MaxMin::NEG_INFINITY, MaxMin::INFINITY],
        (-50i64..50).prop_map(MaxMin),
    )
}

fn min_max() -> impl Strategy<Value = MinMax> {
    special_or(
        vec![MinMax::INFINITY, MinMax::NEG_INFINITY],
        (-50i64..50).prop_map(MinMax),
    )
}

fn max_max() -> impl Strategy<Value = MaxMax> {
    special_or(
        vec![MaxMax::NEG_INFINITY, MaxMax::BOTTOM, MaxMax(i64::MAX)],
        (-50i64..50).prop_map(MaxMax),
    )
}

fn access() -> impl Strategy<Value = AccessControl> {
    select(AccessControl::LEVELS.to_vec())
}

fn covariances() -> impl Strategy<Value = Covariance<2>> {
    let small = || (-3i32..4).prop_map(f64::from);
    let arbitrary = (
        small(),
        [small(), small()],
        [[small(), small()], [small(), small()]],
    )
        .prop_map(|(count, sum, moments)| Covariance {
            count,
            sum,
            moments,
        });
    let lifted = [small(), small()].prop_map(Covariance::lift);
    prop_oneof![
        1 => select(vec![Covariance::zero(), Covariance::one()]),
        2 => lifted,
        2 => arbitrary,
    ]
}

// ---------------------------------------------------------------------------
// Laws over three values.

fn semiring_laws<K: Semiring + Default>(a: &K, b: &K, c: &K) -> Result<(), TestCaseError> {
    let (zero, one) = (K::zero(), K::one());
    prop_assert_eq!(a.add(b).add(c), a.add(&b.add(c)), "⊕ is associative");
    prop_assert_eq!(a.add(b), b.add(a), "⊕ is commutative");
    prop_assert_eq!(a.add(&zero), a.clone(), "0 is neutral for ⊕");
    prop_assert_eq!(a.mul(b).mul(c), a.mul(&b.mul(c)), "⊗ is associative");
    prop_assert_eq!(a.mul(b), b.mul(a), "⊗ is commutative");
    prop_assert_eq!(a.mul(&one), a.clone(), "1 is neutral for ⊗");
    prop_assert_eq!(
        a.mul(&b.add(c)),
        a.mul(b).add(&a.mul(c)),
        "⊗ distributes over ⊕"
    );
    prop_assert_eq!(&a.mul(&zero), &zero, "0 annihilates");
    prop_assert_eq!(a.is_zero(), *a == zero, "is_zero agrees with == zero");
    prop_assert!(zero.is_zero() && !one.is_zero());
    prop_assert_eq!(K::default(), zero, "Default is zero");

    let mut sum = a.clone();
    sum.add_assign(b);
    prop_assert_eq!(sum, a.add(b), "add_assign agrees with add");
    let mut product = a.clone();
    product.mul_assign(b);
    prop_assert_eq!(product, a.mul(b), "mul_assign agrees with mul");
    Ok(())
}

fn checked_laws<K: CheckedSemiring>(a: &K, b: &K, _: &K) -> Result<(), TestCaseError> {
    // The strategies stay in range, so the checked path must agree.
    prop_assert_eq!(a.checked_add(b), Some(a.add(b)));
    prop_assert_eq!(a.checked_mul(b), Some(a.mul(b)));
    Ok(())
}

fn ring_laws<K: Ring>(a: &K, b: &K, _: &K) -> Result<(), TestCaseError> {
    prop_assert!(a.add(&a.neg()).is_zero(), "a ⊕ neg(a) = 0");
    prop_assert_eq!(a.neg().neg(), a.clone());
    prop_assert_eq!(a.sub(b).add(b), a.clone(), "sub takes back add");
    Ok(())
}

fn idempotent_laws<K: Idempotent>(a: &K, _: &K, _: &K) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.add(a), a.clone(), "a ⊕ a = a");
    Ok(())
}

fn selective_laws<K: Selective>(a: &K, b: &K, _: &K) -> Result<(), TestCaseError> {
    let sum = a.add(b);
    prop_assert!(sum == *a || sum == *b, "a ⊕ b ∈ {{a, b}}");
    prop_assert_eq!(a.better(b), sum == *a && a != b, "better is a strict win");
    let verdicts = [a.better(b), b.better(a), a == b];
    prop_assert_eq!(verdicts.iter().filter(|&&v| v).count(), 1, "trichotomy");
    prop_assert!(!K::zero().better(a), "zero is never better");
    Ok(())
}

fn positive_laws<K: Positive>(a: &K, b: &K, _: &K) -> Result<(), TestCaseError> {
    if a.add(b).is_zero() {
        prop_assert!(a.is_zero() && b.is_zero(), "zero-sum free");
    }
    if a.mul(b).is_zero() {
        prop_assert!(a.is_zero() || b.is_zero(), "zero-divisor free");
    }
    Ok(())
}

/// ⊕-strictness in the order `better` defines (zero the least element):
/// a summand better than all others strictly improves the sum.
fn oplus_strict_laws<K: OplusStrictlyMonotone + Selective>(
    a: &K,
    b: &K,
    q: &K,
) -> Result<(), TestCaseError> {
    if q.better(a) && q.better(b) {
        let sum = a.add(b);
        prop_assert!(q.better(&sum) && sum.add(q) == *q);
    }
    Ok(())
}

/// ⊗-strictness in the order `better` defines: for 0 < a < b and k ≥ 0,
/// a ⊗ bᵏ < bᵏ⁺¹.
fn otimes_strict_laws<K: StrictlyMonotone + Selective>(
    a: &K,
    b: &K,
    _: &K,
) -> Result<(), TestCaseError> {
    if !a.is_zero() && b.better(a) {
        let mut b_k = K::one();
        for _ in 0..3 {
            let mixed = a.mul(&b_k);
            b_k = b_k.mul(b);
            prop_assert!(
                b_k.better(&mixed),
                "{:?} ⊗ bᵏ must lose to {:?}",
                mixed,
                b_k
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Laws over a multiset of contributions.

const MAX_LEN: usize = 24;

/// A random permutation of the positions a multiset may have.
fn shuffled() -> impl Strategy<Value = Vec<usize>> {
    Just((0..MAX_LEN).collect::<Vec<_>>()).prop_shuffle()
}

fn fold<K: Semiring>(values: &[K]) -> K {
    values.iter().fold(K::zero(), |acc, v| acc.add(v))
}

/// Removes one element equal to `v`; false if there is none.
fn take_one<K: PartialEq>(live: &mut Vec<K>, v: &K) -> bool {
    match live.iter().position(|x| x == v) {
        Some(i) => {
            live.swap_remove(i);
            true
        }
        None => false,
    }
}

/// Inserts `values` (but zero, which callers never insert), retracts the
/// ones `mask` marks in the order `order` gives, then the rest; after every
/// step the value is the ⊕ of the live contributions, and a probe that is
/// refused leaves the state unchanged.
fn deletable_laws<K: Deletable>(
    values: &[K],
    mask: &[bool],
    order: &[usize],
    probes: &[K],
) -> Result<(), TestCaseError>
where
    <K as Maintained>::State: PartialEq,
{
    let mut state = <K as Maintained>::State::default();
    let mut live = Vec::new();
    prop_assert_eq!(<K as Maintained>::value(&state), K::zero());

    let check = |state: &mut <K as Maintained>::State,
                 live: &[K],
                 probe: &K|
     -> Result<(), TestCaseError> {
        prop_assert_eq!(<K as Maintained>::value(state), fold(live));
        let before = state.clone();
        if K::retract(state, probe) {
            // Accepted, rightly or not (a sum cannot always tell): undo it,
            // since retracting a contribution that is not live is the
            // caller's error and its result is unspecified.
            *state = before;
        } else {
            prop_assert_eq!(&*state, &before, "a refused retract changes nothing");
        }
        Ok(())
    };

    let inserted: Vec<usize> = (0..values.len())
        .filter(|&i| !values[i].is_zero())
        .collect();
    for (&i, probe) in inserted.iter().zip(probes.iter().cycle()) {
        <K as Maintained>::insert(&mut state, &values[i]);
        live.push(values[i].clone());
        check(&mut state, &live, probe)?;
    }
    let positions: Vec<usize> = order
        .iter()
        .copied()
        .filter(|i| inserted.contains(i))
        .collect();
    let (first, second): (Vec<usize>, Vec<usize>) = positions.iter().partition(|&&i| mask[i]);
    for (i, probe) in first.into_iter().chain(second).zip(probes.iter().cycle()) {
        prop_assert!(
            K::retract(&mut state, &values[i]),
            "a live contribution is retractable"
        );
        prop_assert!(take_one(&mut live, &values[i]));
        check(&mut state, &live, probe)?;
    }

    prop_assert_eq!(<K as Maintained>::value(&state), K::zero());
    for probe in probes {
        let before = state.clone();
        prop_assert!(!K::retract(&mut state, probe), "nothing is live");
        prop_assert_eq!(&state, &before);
    }
    Ok(())
}

/// For the derivation-counting states: a retraction succeeds exactly when
/// a live contribution equals the probe (zero is never live).
fn exact_removal_laws<K: Deletable>(
    values: &[K],
    _: &[bool],
    _: &[usize],
    probes: &[K],
) -> Result<(), TestCaseError> {
    let mut state = <K as Maintained>::State::default();
    let mut live: Vec<K> = values.iter().filter(|v| !v.is_zero()).cloned().collect();
    for v in &live {
        <K as Maintained>::insert(&mut state, v);
    }
    for probe in probes {
        prop_assert_eq!(
            K::retract(&mut state, probe),
            !probe.is_zero() && take_one(&mut live, probe)
        );
        prop_assert_eq!(<K as Maintained>::value(&state), fold(&live));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// One module per semiring, with the laws of the traits it implements.

macro_rules! laws {
    (
        $name:ident: $ty:ty = $strategy:expr;
        triples: [$($law:ident),* $(,)?];
        multisets: [$($multiset_law:ident),* $(,)?];
    ) => {
        mod $name {
            use super::*;

            fn payload() -> impl Strategy<Value = $ty> {
                $strategy
            }

            proptest! {
                $(
                    #[test]
                    fn $law(a in payload(), b in payload(), c in payload()) {
                        super::$law::<$ty>(&a, &b, &c)?;
                    }
                )*
                $(
                    #[test]
                    fn $multiset_law(
                        values in vec(payload(), 0..MAX_LEN),
                        mask in vec(any::<bool>(), MAX_LEN),
                        order in shuffled(),
                        probes in vec(payload(), 1..MAX_LEN),
                    ) {
                        super::$multiset_law::<$ty>(&values, &mask, &order, &probes)?;
                    }
                )*
            }
        }
    };
}

laws! {
    int: Int = ints();
    triples: [semiring_laws, checked_laws, ring_laws];
    // A ring retracts by subtraction: `tests/maintained.rs` checks it
    // against its model.
    multisets: [];
}

#[cfg(feature = "sql")]
laws! {
    decimal: Decimal = decimals();
    triples: [semiring_laws, checked_laws, ring_laws];
    // A ring retracts by subtraction: `tests/maintained.rs` checks it
    // against its model.
    multisets: [];
}

#[cfg(feature = "sql")]
laws! {
    fixed: Fixed<6> = fixeds();
    triples: [semiring_laws, checked_laws, ring_laws];
    multisets: [];
}

// A tuple with a decimal component, as `SUM(price), COUNT(*)` is.
#[cfg(feature = "sql")]
laws! {
    decimal_and_int: (Decimal, Int) = (decimals(), ints());
    triples: [semiring_laws, checked_laws, ring_laws];
    multisets: [];
}

laws! {
    real: Real = reals();
    triples: [semiring_laws, checked_laws, ring_laws];
    // A ring retracts by subtraction: `tests/maintained.rs` checks it
    // against its model.
    multisets: [];
}

laws! {
    count: Count = counts();
    triples: [semiring_laws, checked_laws, positive_laws];
    multisets: [deletable_laws];
}

laws! {
    boolean: Bool = bools();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
    ];
    multisets: [deletable_laws, exact_removal_laws];
}

laws! {
    min_plus: MinPlus = min_plus();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
        oplus_strict_laws, otimes_strict_laws,
    ];
    multisets: [];
}

laws! {
    max_plus: MaxPlus = max_plus();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
        oplus_strict_laws, otimes_strict_laws,
    ];
    multisets: [];
}

laws! {
    max_min: MaxMin = max_min();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
        oplus_strict_laws, otimes_strict_laws,
    ];
    multisets: [];
}

laws! {
    min_max: MinMax = min_max();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
        oplus_strict_laws, otimes_strict_laws,
    ];
    multisets: [];
}

laws! {
    max_max: MaxMax = max_max();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
        oplus_strict_laws,
    ];
    multisets: [];
}

laws! {
    access_control: AccessControl = access();
    triples: [
        semiring_laws, checked_laws, positive_laws, idempotent_laws, selective_laws,
    ];
    multisets: [deletable_laws, exact_removal_laws];
}

laws! {
    covariance: Covariance<2> = covariances();
    triples: [semiring_laws, checked_laws, ring_laws];
    multisets: [deletable_laws];
}

// ---------------------------------------------------------------------------
// Properties specific to one semiring.

/// The number of times a running ⊕ changes while `values` are added.
fn improvements<K: Semiring>(values: &[K]) -> usize {
    let mut acc = K::zero();
    let mut changes = 0;
    for v in values {
        let next = acc.add(v);
        changes += usize::from(next != acc);
        acc = next;
    }
    changes
}

fn assert_bounded_monotone<K: BoundedMonotone>() {}

proptest! {
    #[test]
    fn bool_improves_at_most_once(values in vec(bools(), 0..64)) {
        assert_bounded_monotone::<Bool>();
        prop_assert!(improvements(&values) <= 1);
    }

    #[test]
    fn access_control_improves_at_most_four_times(values in vec(access(), 0..64)) {
        assert_bounded_monotone::<AccessControl>();
        prop_assert!(improvements(&values) <= 4);
    }

    /// Count is strictly monotone in its numeric order.
    #[test]
    fn count_is_strictly_monotone(a in 1u64..100, d in 1u64..100, q in 1u64..100, k in 0u32..4) {
        let b = a + d;
        let b_k = Count(b.pow(k));
        prop_assert!(Count(a).mul(&b_k) < b_k.mul(&Count(b)), "⊗-strictness");
        prop_assert!(Count(a).add(&Count(q)) > Count(a), "⊕-strictness");
    }

    /// Truncated retraction refuses what the sum cannot cover.
    #[test]
    fn count_refuses_more_than_its_sum(values in vec(counts(), 1..MAX_LEN)) {
        let mut state = Default::default();
        for v in values.iter().filter(|v| !v.is_zero()) {
            Count::insert(&mut state, v);
        }
        let before = state.clone();
        let too_much = Count(Count::value(&state).0 + 1);
        prop_assert!(!Count::retract(&mut state, &too_much));
        prop_assert_eq!(state, before);
    }

    /// With one live contribution, Count knows it exactly.
    #[test]
    fn single_contribution_is_known(v in 1u64..100, w in 1u64..100) {
        let mut counts = Default::default();
        Count::insert(&mut counts, &Count(v));
        prop_assert_eq!(Count::retract(&mut counts, &Count(w)), v == w);
    }
}

#[test]
fn max_max_is_not_strictly_monotone() {
    // ⊗-strictness fails: for 0 < a < b, a ⊗ b = b = b ⊗ b.
    let (a, b) = (MaxMax(1), MaxMax(2));
    assert_eq!(a.mul(&b), b.mul(&b));
    fn oplus_strict<K: OplusStrictlyMonotone>() {}
    oplus_strict::<MaxMax>();
}

#[test]
fn max_max_reserved_values() {
    assert_eq!(MaxMax::zero(), MaxMax(i64::MIN));
    assert_eq!(MaxMax::one(), MaxMax(i64::MIN + 1));
    // 1 is neutral for every element of the domain, the extremes included.
    for x in [i64::MIN + 1, -1, 0, i64::MAX] {
        assert_eq!(MaxMax(x).mul(&MaxMax::one()), MaxMax(x));
        assert_eq!(MaxMax(x).mul(&MaxMax::zero()), MaxMax::zero());
        assert_eq!(MaxMax(x).add(&MaxMax::zero()), MaxMax(x));
    }
}

#[test]
fn access_control_levels() {
    use AccessControl::*;
    assert_eq!(AccessControl::zero(), Denied);
    assert_eq!(AccessControl::one(), Public);
    assert_eq!(AccessControl::default(), Denied);
    // Least restrictive derivation wins; a join takes the most restrictive fact.
    assert_eq!(Secret.add(&Internal), Internal);
    assert_eq!(Secret.mul(&Internal), Secret);
    assert!(Internal.better(&Secret));

    let mut state = Default::default();
    AccessControl::insert(&mut state, &Secret);
    AccessControl::insert(&mut state, &Internal);
    assert_eq!(AccessControl::value(&state), Internal);
    assert!(AccessControl::retract(&mut state, &Internal));
    assert_eq!(AccessControl::value(&state), Secret);
    assert!(!AccessControl::retract(&mut state, &Public));
    assert!(AccessControl::retract(&mut state, &Secret));
    assert_eq!(AccessControl::value(&state), Denied);
}

#[test]
fn covariance_of_a_join() {
    // R(a, x) and S(a, y), one tuple each on a = 1: the join has one row
    // (x, y) = (2, 5).
    let r = Covariance::lift([2.0, 0.0]);
    let s = Covariance::lift([0.0, 5.0]);
    let row = r.mul(&s);
    assert_eq!(row, Covariance::lift([2.0, 5.0]));
    // Two rows aggregate componentwise.
    let both = row.add(&Covariance::lift([1.0, 1.0]));
    assert_eq!(both.count, 2.0);
    assert_eq!(both.sum, [3.0, 6.0]);
    assert_eq!(both.moments, [[5.0, 11.0], [11.0, 26.0]]);
}

// ---------------------------------------------------------------------------
// Overflow.

#[test]
fn checked_operations_detect_overflow() {
    assert_eq!(Count(u64::MAX).checked_add(&Count(1)), None);
    assert_eq!(Count(u64::MAX / 2 + 1).checked_mul(&Count(2)), None);
    assert_eq!(Int(i64::MAX).checked_add(&Int(1)), None);
    assert_eq!(Int(i64::MIN).checked_add(&Int(-1)), None);
    assert_eq!(Int(i64::MIN).checked_mul(&Int(-1)), None);
    // A finite cost that would land on the reserved +∞ overflows as well.
    assert_eq!(MinPlus(i64::MAX - 1).checked_mul(&MinPlus(1)), None);
    assert_eq!(MinPlus(i64::MIN).checked_mul(&MinPlus(-1)), None);
    assert_eq!(MaxPlus(i64::MIN + 1).checked_mul(&MaxPlus(-1)), None);
    // ⊗ with the zero is never an overflow.
    assert_eq!(
        MinPlus(i64::MAX - 1).checked_mul(&MinPlus::INFINITY),
        Some(MinPlus::INFINITY)
    );
    assert_eq!(
        MaxPlus(i64::MIN + 1).checked_mul(&MaxPlus::NEG_INFINITY),
        Some(MaxPlus::NEG_INFINITY)
    );
    assert_eq!(
        Count(u64::MAX).checked_add(&Count(0)),
        Some(Count(u64::MAX))
    );
}

#[cfg(feature = "sql")]
#[test]
fn decimal_checked_operations_detect_overflow() {
    let max: Decimal = "79228162514264337593543950335".parse().unwrap();
    assert_eq!(CheckedSemiring::checked_add(&max, &Decimal::ONE), None);
    assert_eq!(CheckedSemiring::checked_mul(&max, &Decimal::from(2)), None);
    let fine = Decimal::new(1, 15);
    assert_eq!(CheckedSemiring::checked_mul(&fine, &fine), None);
    // A tuple reports the overflow of any component.
    assert_eq!((max, Int(1)).checked_add(&(Decimal::ONE, Int(1))), None);
    assert_eq!(
        (Decimal::ONE, Int(i64::MAX)).checked_add(&(Decimal::ONE, Int(1))),
        None
    );
}

#[cfg(feature = "sql")]
#[test]
#[should_panic(expected = "ivm: Decimal overflow in ⊕")]
fn decimal_add_overflow_panics() {
    let max: Decimal = "79228162514264337593543950335".parse().unwrap();
    let _ = max.add(&Decimal::ONE);
}

#[cfg(feature = "sql")]
#[test]
#[should_panic(expected = "ivm: Decimal overflow in ⊗")]
fn decimal_mul_overflow_panics() {
    let _ = Decimal::new(1, 15).mul(&Decimal::new(1, 14));
}

#[test]
#[should_panic(expected = "ivm: Count overflow in ⊕")]
fn count_add_overflow_panics() {
    let _ = Count(u64::MAX).add(&Count(1));
}

#[test]
#[should_panic(expected = "ivm: Count overflow in ⊗")]
fn count_mul_overflow_panics() {
    let _ = Count(u64::MAX).mul(&Count(2));
}

#[test]
#[should_panic(expected = "ivm: Count overflow in ⊕")]
fn count_add_assign_overflow_panics() {
    let mut c = Count(u64::MAX);
    c.add_assign(&Count(1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊕")]
fn int_add_overflow_panics() {
    let _ = Int(i64::MAX).add(&Int(1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊗")]
fn int_mul_overflow_panics() {
    let _ = Int(i64::MIN).mul(&Int(-1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow in neg")]
fn int_neg_overflow_panics() {
    let _ = Int(i64::MIN).neg();
}

#[test]
#[should_panic(expected = "ivm: MinPlus overflow in ⊗")]
fn min_plus_finite_overflow_panics() {
    let _ = MinPlus(i64::MAX - 1).mul(&MinPlus(1));
}

#[test]
#[should_panic(expected = "ivm: MaxPlus overflow in ⊗")]
fn max_plus_finite_overflow_panics() {
    let _ = MaxPlus(i64::MIN + 1).mul(&MaxPlus(-1));
}

// ---------------------------------------------------------------------------
// Display and errors.

#[test]
fn reserved_values_display_as_infinities() {
    assert_eq!(MinPlus::INFINITY.to_string(), "∞");
    assert_eq!(MinPlus(-3).to_string(), "-3");
    assert_eq!(MaxPlus::NEG_INFINITY.to_string(), "-∞");
    assert_eq!(MaxMin::zero().to_string(), "-∞");
    assert_eq!(MaxMin::one().to_string(), "∞");
    assert_eq!(MinMax::zero().to_string(), "∞");
    assert_eq!(MaxMax::zero().to_string(), "-∞");
    assert_eq!(AccessControl::Confidential.to_string(), "confidential");
    assert_eq!(Int(-4).to_string(), "-4");
    assert_eq!(Bool(true).to_string(), "true");
    assert_eq!(Covariance::lift([1.0]).to_string(), "(1, [1.0], [[1.0]])");
    #[cfg(feature = "sql")]
    assert_eq!(Decimal::new(-350, 2).to_string(), "-3.50");
}

#[test]
fn errors_say_what_to_do() {
    let absent = ivm::Error::AbsentTuple { relation: "R" };
    let overflow = ivm::Error::Overflow { relation: "R" };
    for err in [&absent, &overflow] {
        let message = err.to_string();
        assert!(message.contains("`R`"), "{message}");
        assert!(message.starts_with(char::is_lowercase), "{message}");
        let _: &dyn std::error::Error = err;
    }
    assert_ne!(absent, overflow);

    let unknown = ivm::Error::UnknownTable {
        table: "Ordres".to_owned(),
    };
    let count = ivm::Error::FieldCount {
        table: "orders",
        expected: 3,
        found: 1,
    };
    let field = ivm::Error::BadField {
        table: "orders",
        column: "o_orderdate",
        value: "1994-02-30".to_owned(),
        reason: "not a date: no such day in the calendar (yyyy-mm-dd)".to_owned(),
    };
    assert_eq!(
        unknown.to_string(),
        "unknown table `Ordres`: name a table declared by `CREATE TABLE` in the view's SQL"
    );
    assert_eq!(
        count.to_string(),
        "wrong number of fields for `orders`: it has 3 columns, 1 field was given; give one \
         field per column, in the order of `CREATE TABLE`"
    );
    assert_eq!(
        field.to_string(),
        "cannot read \"1994-02-30\" as column `o_orderdate` of `orders`: not a date: no such \
         day in the calendar (yyyy-mm-dd); write the field as its column's type expects"
    );
    for err in [&unknown, &count, &field] {
        let message = err.to_string();
        assert!(message.starts_with(char::is_lowercase), "{message}");
        let _: &dyn std::error::Error = err;
    }
}
