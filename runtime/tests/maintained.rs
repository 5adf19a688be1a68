//! Tests of the runtime pieces generated code maintains views with:
//! `Maintained` for every catalogue semiring, checked against a model of
//! the live contributions on random sequences of inserts, retractions (of
//! live and of absent values) and replacements; and `Group` and `product`,
//! through the `::ivm::__private` paths generated code uses.
//!
//! Values come from small ranges, so that the same contribution recurs
//! (retractions hit live values, ordered states hold duplicates), Int and
//! Count never overflow, and the float rings stay exact.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Debug;

use ::ivm::__private::{Entry, Group, HashMap, new_map, product};
use ivm::maintained::OrderedState;
use ivm::semiring::{
    AccessControl, Bool, Count, Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real,
};
#[cfg(feature = "sql")]
use ivm::sql::{Decimal, Fixed};
use ivm::{Maintained, Ring, Semiring};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

// ---------------------------------------------------------------------------
// Models of the live contributions, one per retraction rule.

/// What the state of a `Maintained` semiring must behave like.
trait Model<K: Semiring>: Default + Debug {
    fn insert(&mut self, v: &K);

    /// Takes back `v` if the rule accepts it, and says whether it did.
    fn retract(&mut self, v: &K) -> bool;

    /// A contribution that is live by the rule, chosen by `i` (rings: any
    /// value, `alt`), or zero when none is.
    fn live(&self, i: usize, alt: &K) -> K;

    fn replace(&mut self, old: &K, new: &K) {
        if !old.is_zero() {
            assert!(self.retract(old), "the test picked a live `old`");
        }
        if !new.is_zero() {
            self.insert(new);
        }
    }

    fn value(&self) -> K;

    fn is_empty(&self) -> bool;

    /// The live contributions, where the rule knows them one by one.
    fn contents(&self) -> Option<&[K]> {
        None
    }
}

/// A ring: the sum is all there is; a retraction fails only on zero.
#[derive(Debug)]
struct SumModel<K>(K);

impl<K: Semiring> Default for SumModel<K> {
    fn default() -> Self {
        SumModel(K::zero())
    }
}

impl<K: Ring> Model<K> for SumModel<K> {
    fn insert(&mut self, v: &K) {
        self.0.add_assign(v);
    }

    fn retract(&mut self, v: &K) -> bool {
        if self.0.is_zero() {
            return false;
        }
        self.0 = self.0.sub(v);
        true
    }

    fn live(&self, _: usize, alt: &K) -> K {
        alt.clone()
    }

    fn replace(&mut self, old: &K, new: &K) {
        self.0 = self.0.add(new).sub(old);
    }

    fn value(&self) -> K {
        self.0.clone()
    }

    fn is_empty(&self) -> bool {
        self.0.is_zero()
    }
}

/// `Count`'s truncated retraction: the sum and the number of live
/// contributions, and what they cannot rule out is accepted.
#[derive(Debug, Default)]
struct CountModel {
    sum: u64,
    contributions: u64,
}

impl Model<Count> for CountModel {
    fn insert(&mut self, v: &Count) {
        self.sum += v.0;
        self.contributions += 1;
    }

    fn retract(&mut self, v: &Count) -> bool {
        let accepted = v.0 != 0
            && self.contributions > 0
            && self.sum >= v.0
            && (self.contributions > 1 || self.sum == v.0);
        if accepted {
            self.sum -= v.0;
            self.contributions -= 1;
        }
        accepted
    }

    fn live(&self, i: usize, _: &Count) -> Count {
        match self.contributions {
            0 => Count(0),
            1 => Count(self.sum),
            // Any part of the sum may be one of two or more contributions.
            _ => Count(i as u64 % (self.sum + 1)),
        }
    }

    fn value(&self) -> Count {
        Count(self.sum)
    }

    fn is_empty(&self) -> bool {
        self.contributions == 0
    }
}

/// An exact rule: the multiset itself.
#[derive(Debug)]
struct MultisetModel<K>(Vec<K>);

impl<K> Default for MultisetModel<K> {
    fn default() -> Self {
        MultisetModel(Vec::new())
    }
}

impl<K: Semiring> Model<K> for MultisetModel<K> {
    fn insert(&mut self, v: &K) {
        self.0.push(v.clone());
    }

    fn retract(&mut self, v: &K) -> bool {
        match self.0.iter().position(|x| x == v) {
            Some(i) => {
                self.0.swap_remove(i);
                true
            }
            None => false,
        }
    }

    fn live(&self, i: usize, _: &K) -> K {
        if self.0.is_empty() {
            K::zero()
        } else {
            self.0[i % self.0.len()].clone()
        }
    }

    fn value(&self) -> K {
        self.0.iter().fold(K::zero(), |acc, v| acc.add(v))
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn contents(&self) -> Option<&[K]> {
        Some(&self.0)
    }
}

// ---------------------------------------------------------------------------
// The random sequences.

#[derive(Clone, Debug)]
enum Op<K> {
    /// A new contribution (never zero).
    Insert(K),
    /// Any value: often absent, sometimes zero.
    Retract(K),
    /// A value the model says is live (rings: the given one).
    RetractLive(usize, K),
    /// `old` is zero (`None`) or a live value chosen as in `RetractLive`;
    /// `new` may be zero.
    Replace { old: Option<usize>, alt: K, new: K },
}

fn ops<K: Semiring>(
    payload: impl Strategy<Value = K> + Clone,
) -> impl Strategy<Value = Vec<Op<K>>> {
    let non_zero = payload
        .clone()
        .prop_filter("a contribution is never zero", |v| !v.is_zero());
    let op = prop_oneof![
        4 => non_zero.prop_map(Op::Insert),
        2 => payload.clone().prop_map(Op::Retract),
        2 => (any::<usize>(), payload.clone()).prop_map(|(i, v)| Op::RetractLive(i, v)),
        2 => (proptest::option::of(any::<usize>()), payload.clone(), payload)
            .prop_map(|(old, alt, new)| Op::Replace { old, alt, new }),
    ];
    vec(op, 0..64)
}

/// Runs `ops` on a state and on the model; after every step the value and
/// emptiness agree, a refused retraction changed nothing, and where the
/// model knows the multiset, the state equals one built from scratch.
fn agrees_with_model<K, M>(ops: &[Op<K>]) -> Result<(), TestCaseError>
where
    K: Maintained,
    K::State: PartialEq,
    M: Model<K>,
{
    let mut state = K::State::default();
    let mut model = M::default();
    prop_assert!(K::is_empty(&state));
    prop_assert_eq!(K::value(&state), K::zero());

    for op in ops {
        let retracted = match op {
            Op::Insert(v) => {
                K::insert(&mut state, v);
                model.insert(v);
                None
            }
            Op::Retract(v) => Some(v.clone()),
            Op::RetractLive(i, alt) => Some(model.live(*i, alt)),
            Op::Replace { old, alt, new } => {
                let old = old.map_or_else(K::zero, |i| model.live(i, alt));
                K::replace(&mut state, &old, new);
                model.replace(&old, new);
                None
            }
        };
        if let Some(v) = retracted {
            let before = state.clone();
            let accepted = K::retract(&mut state, &v);
            prop_assert_eq!(
                accepted,
                model.retract(&v),
                "retract({:?}) of {:?}",
                v,
                model
            );
            if !accepted {
                prop_assert_eq!(&state, &before, "a refused retract changes nothing");
            }
        }

        prop_assert_eq!(
            K::value(&state),
            model.value(),
            "after {:?}: {:?}",
            op,
            state
        );
        prop_assert_eq!(K::is_empty(&state), model.is_empty(), "after {:?}", op);
        if let Some(live) = model.contents() {
            // Another insertion order, same multiset: the same state.
            let mut fresh = K::State::default();
            for v in live.iter().rev() {
                K::insert(&mut fresh, v);
            }
            prop_assert_eq!(&state, &fresh, "the state depends only on the multiset");
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Value strategies.

fn special_or<T: Clone + Debug + 'static>(
    special: Vec<T>,
    ordinary: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    prop_oneof![1 => select(special), 3 => ordinary].boxed()
}

fn ints() -> BoxedStrategy<Int> {
    special_or(vec![Int(0), Int(1), Int(-1)], (-6i64..6).prop_map(Int))
}

/// Small decimals of scales 0 to 2, so that equal values of different
/// scales (`1`, `1.0`, `1.00`) recur.
#[cfg(feature = "sql")]
fn decimals() -> BoxedStrategy<Decimal> {
    special_or(
        vec![
            Decimal::ZERO,
            Decimal::ONE,
            Decimal::new(0, 2),
            Decimal::new(-10, 1),
        ],
        (-6i64..6, 0u32..3).prop_map(|(m, s)| Decimal::new(m, s)),
    )
}

/// Small numbers at scale 2, as a `SUM` over `DECIMAL(p, 2)` keeps them.
#[cfg(feature = "sql")]
fn fixeds() -> BoxedStrategy<Fixed<2>> {
    let at = |m: i128| Fixed::from_mantissa(m).expect("small");
    special_or(
        vec![Fixed::ZERO, Fixed::ONE, at(-100), at(1)],
        (-600i128..600).prop_map(at),
    )
}

fn reals() -> BoxedStrategy<Real> {
    special_or(
        vec![Real(0.0), Real(1.0), Real(-1.0)],
        (-6i32..6).prop_map(|x| Real(f64::from(x))),
    )
}

fn covariances() -> BoxedStrategy<Covariance<2>> {
    let small = || (-3i32..4).prop_map(f64::from);
    prop_oneof![
        1 => select(vec![Covariance::zero(), Covariance::one()]),
        3 => [small(), small()].prop_map(Covariance::lift),
    ]
    .boxed()
}

fn counts() -> BoxedStrategy<Count> {
    special_or(vec![Count(0), Count(1)], (0u64..8).prop_map(Count))
}

fn bools() -> BoxedStrategy<Bool> {
    any::<bool>().prop_map(Bool).boxed()
}

fn access() -> BoxedStrategy<AccessControl> {
    select(AccessControl::LEVELS.to_vec()).boxed()
}

/// A small range of an `i64` newtype, with its zero and its extremes.
fn ordered<K: Clone + Debug + 'static>(wrap: fn(i64) -> K, special: Vec<K>) -> BoxedStrategy<K> {
    special_or(special, (-5i64..5).prop_map(wrap))
}

fn min_plus() -> BoxedStrategy<MinPlus> {
    ordered(MinPlus, vec![MinPlus::INFINITY, MinPlus(i64::MIN)])
}

fn max_plus() -> BoxedStrategy<MaxPlus> {
    ordered(MaxPlus, vec![MaxPlus::NEG_INFINITY, MaxPlus(i64::MAX)])
}

fn max_min() -> BoxedStrategy<MaxMin> {
    ordered(MaxMin, vec![MaxMin::NEG_INFINITY, MaxMin::INFINITY])
}

fn min_max() -> BoxedStrategy<MinMax> {
    ordered(MinMax, vec![MinMax::INFINITY, MinMax::NEG_INFINITY])
}

fn max_max() -> BoxedStrategy<MaxMax> {
    ordered(
        MaxMax,
        vec![MaxMax::NEG_INFINITY, MaxMax::BOTTOM, MaxMax(i64::MAX)],
    )
}

macro_rules! maintained {
    ($($name:ident: $ty:ty = $strategy:expr, $model:ty;)*) => {$(
        mod $name {
            use super::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(512))]
                #[test]
                fn agrees_with_model(ops in ops($strategy)) {
                    super::agrees_with_model::<$ty, $model>(&ops)?;
                }
            }
        }
    )*};
}

maintained! {
    int: Int = ints(), SumModel<Int>;
    real: Real = reals(), SumModel<Real>;
    covariance: Covariance<2> = covariances(), SumModel<Covariance<2>>;
    count: Count = counts(), CountModel;
    boolean: Bool = bools(), MultisetModel<Bool>;
    access_control: AccessControl = access(), MultisetModel<AccessControl>;
    min_plus: MinPlus = min_plus(), MultisetModel<MinPlus>;
    max_plus: MaxPlus = max_plus(), MultisetModel<MaxPlus>;
    max_min: MaxMin = max_min(), MultisetModel<MaxMin>;
    min_max: MinMax = min_max(), MultisetModel<MinMax>;
    max_max: MaxMax = max_max(), MultisetModel<MaxMax>;
}

#[cfg(feature = "sql")]
maintained! {
    decimal: Decimal = decimals(), SumModel<Decimal>;
    decimal_and_int: (Decimal, Int) = (decimals(), ints()).boxed(), SumModel<(Decimal, Int)>;
    fixed: Fixed<2> = fixeds(), SumModel<Fixed<2>>;
    fixed_and_int: (Fixed<2>, Int) = (fixeds(), ints()).boxed(), SumModel<(Fixed<2>, Int)>;
}

/// `RETRACTS_EXACTLY` says what the models above check: linear for the
/// rings (`SumModel`), exact for the multisets (`MultisetModel`), neither
/// for `Count` (`CountModel`), and for a tuple, each of its components.
#[test]
fn exact_retraction_is_declared_as_the_models_check_it() {
    const {
        assert!(Int::RETRACTS_EXACTLY && Real::RETRACTS_EXACTLY);
        assert!(Covariance::<2>::RETRACTS_EXACTLY);
        assert!(Bool::RETRACTS_EXACTLY && AccessControl::RETRACTS_EXACTLY);
        assert!(MinPlus::RETRACTS_EXACTLY && MaxPlus::RETRACTS_EXACTLY);
        assert!(MaxMin::RETRACTS_EXACTLY && MinMax::RETRACTS_EXACTLY);
        assert!(MaxMax::RETRACTS_EXACTLY);
        assert!(!Count::RETRACTS_EXACTLY);
        assert!(<(Int, MinPlus, MaxPlus)>::RETRACTS_EXACTLY);
        assert!(!<(Int, Count)>::RETRACTS_EXACTLY);
    }
}

/// A sum of decimals returns exactly to zero, where one of floats keeps a
/// residue of rounding.
#[cfg(feature = "sql")]
#[test]
fn decimal_sums_do_not_drift() {
    let prices: Vec<Decimal> = ["0.1", "0.2", "17.25", "-3.50", "0.3"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    let mut state = <Decimal as Maintained>::State::default();
    for p in &prices {
        Decimal::insert(&mut state, p);
    }
    assert_eq!(Decimal::value(&state).to_string(), "14.35");
    for p in &prices {
        assert!(Decimal::retract(&mut state, p));
    }
    assert!(Decimal::is_empty(&state));
    assert!(!Decimal::retract(&mut state, &prices[0]));
}

// ---------------------------------------------------------------------------
// Edges of the retraction rules.

#[test]
fn int_replace_is_exact_where_new_minus_old_does_not_fit() {
    let mut state = Int(i64::MIN + 10);
    Int::replace(&mut state, &Int(i64::MIN + 10), &Int(i64::MAX));
    assert_eq!(state, Int(i64::MAX));
}

#[test]
fn int_retract_of_the_least_value_fits_where_its_negation_does_not() {
    let mut state = Int(-1);
    assert!(Int::retract(&mut state, &Int(i64::MIN)));
    assert_eq!(state, Int(i64::MAX));
}

#[test]
#[should_panic(expected = "ivm: Int overflow")]
fn int_replace_overflow_panics_with_the_crate_message() {
    let mut state = Int(i64::MAX);
    Int::replace(&mut state, &Int(-1), &Int(1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow")]
fn int_retract_overflow_panics_with_the_crate_message() {
    let mut state = Int(i64::MIN + 1);
    Int::retract(&mut state, &Int(2));
}

#[test]
fn rings_refuse_only_on_zero() {
    let mut state = <Int as Maintained>::State::default();
    assert!(!Int::retract(&mut state, &Int(3)));
    Int::insert(&mut state, &Int(2));
    // Not a contribution, but a ring cannot tell: accepted.
    assert!(Int::retract(&mut state, &Int(5)));
    assert_eq!(Int::value(&state), Int(-3));
    assert!(!Int::is_empty(&state));
}

#[test]
fn positive_semirings_refuse_to_retract_zero() {
    let mut count = <Count as Maintained>::State::default();
    Count::insert(&mut count, &Count(2));
    Count::insert(&mut count, &Count(3));
    assert!(!Count::retract(&mut count, &Count(0)));
    assert_eq!(count.contributions(), 2);

    let mut best = <MinPlus as Maintained>::State::default();
    MinPlus::insert(&mut best, &MinPlus(1));
    assert!(!MinPlus::retract(&mut best, &MinPlus::INFINITY));
    assert!(!Bool::retract(&mut Default::default(), &Bool(false)));
}

#[test]
fn replace_from_and_to_zero_is_insert_and_retract() {
    let mut state = <MaxPlus as Maintained>::State::default();
    MaxPlus::replace(&mut state, &MaxPlus::NEG_INFINITY, &MaxPlus(4));
    assert_eq!(MaxPlus::value(&state), MaxPlus(4));
    MaxPlus::replace(&mut state, &MaxPlus(4), &MaxPlus::NEG_INFINITY);
    assert!(MaxPlus::is_empty(&state));

    let mut count = <Count as Maintained>::State::default();
    Count::replace(&mut count, &Count(0), &Count(3));
    Count::replace(&mut count, &Count(3), &Count(5));
    assert_eq!((Count::value(&count), count.contributions()), (Count(5), 1));
}

#[test]
fn ordered_state_returns_to_its_inline_form() {
    let mut state = OrderedState::default();
    state.insert(MinMax(3));
    let single = state.clone();
    state.insert(MinMax(7));
    state.insert(MinMax(1));
    assert_eq!(state.best(), MinMax(1));
    assert!(state.retract(&MinMax(7)));
    assert!(state.retract(&MinMax(1)));
    assert_eq!(state, single);
    assert_eq!(state.contributions(&MinMax(3)), 1);
    assert!(state.retract(&MinMax(3)));
    assert!(state.is_empty());
    assert_eq!(state.best(), MinMax::zero());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// An ordered state against a plain ordered map of counts, over more
    /// distinct values than its sorted vector holds (`ivm::maintained::FEW`),
    /// so that updates cross between the vector and the tree both ways.
    /// Each step also checks that a state built afresh from the same
    /// multiset, in another order, is equal to it whatever its form.
    #[test]
    fn ordered_state_agrees_with_a_map_of_counts(
        ops in vec((any::<bool>(), 0i64..40), 0..400),
    ) {
        let mut state = OrderedState::default();
        let mut model: std::collections::BTreeMap<i64, u32> = Default::default();
        for (insert, v) in ops {
            if insert {
                state.insert(MinPlus(v));
                *model.entry(v).or_default() += 1;
            } else {
                let live = model.get(&v).is_some_and(|&n| n > 0);
                prop_assert_eq!(state.retract(&MinPlus(v)), live);
                if live {
                    let n = model.get_mut(&v).expect("live");
                    *n -= 1;
                    if *n == 0 {
                        model.remove(&v);
                    }
                }
            }
            let best = model.keys().next().map_or(MinPlus::zero(), |&v| MinPlus(v));
            prop_assert_eq!(state.best(), best);
            prop_assert_eq!(state.is_empty(), model.is_empty());
            prop_assert_eq!(state.contributions(&MinPlus(v)), model.get(&v).copied().unwrap_or(0));
            let mut afresh = OrderedState::default();
            for (&v, &n) in model.iter().rev() {
                for _ in 0..n {
                    afresh.insert(MinPlus(v));
                }
            }
            prop_assert_eq!(&afresh, &state);
        }
    }
}

#[test]
fn ordered_states_of_different_multisets_differ() {
    let mut few = OrderedState::default();
    let mut many = OrderedState::default();
    for v in 0..3 {
        few.insert(MaxPlus(v));
    }
    for v in 0..40 {
        many.insert(MaxPlus(v));
    }
    assert_ne!(few, many);
    for v in 3..40 {
        assert!(many.retract(&MaxPlus(v)));
    }
    assert_eq!(few, many);
    few.insert(MaxPlus(1));
    assert_ne!(few, many);
    assert_eq!(few.contributions(&MaxPlus(1)), 2);
}

#[test]
fn the_best_is_found_at_either_end_of_the_order() {
    // The same values, opposite preferences.
    let mut low = <MaxMin as Maintained>::State::default();
    let mut high = <MinMax as Maintained>::State::default();
    for x in [4, -2, 9, 0] {
        MaxMin::insert(&mut low, &MaxMin(x));
        MinMax::insert(&mut high, &MinMax(x));
    }
    assert_eq!(MaxMin::value(&low), MaxMin(9));
    assert_eq!(MinMax::value(&high), MinMax(-2));
}

// ---------------------------------------------------------------------------
// Group and product.

#[test]
fn group_push_returns_positions() {
    let mut group = Group::new();
    assert!(group.is_empty());
    assert_eq!(group.push('a'), 0);
    assert_eq!(group.push('b'), 1);
    assert_eq!(group.push('c'), 2);
    assert_eq!(group.len(), 3);
    assert_eq!(group.get(1), Some(&'b'));
    assert_eq!(group.get(3), None);
    assert_eq!(group.iter().collect::<String>(), "abc");
    assert_eq!((&group).into_iter().count(), 3);
}

#[test]
fn group_swap_remove_reports_the_moved_key() {
    let mut group = Group::new();
    for k in ['a', 'b', 'c', 'd'] {
        group.push(k);
    }
    // The middle: the last key moves in.
    assert_eq!(group.swap_remove(1), Some(&'d'));
    assert_eq!(group.iter().collect::<String>(), "adc");
    // The last: nothing moves.
    assert_eq!(group.swap_remove(2), None);
    assert_eq!(group.iter().collect::<String>(), "ad");
    assert_eq!(group.swap_remove(0), Some(&'d'));
    assert_eq!(group.swap_remove(0), None);
    assert!(group.is_empty());
}

#[test]
#[should_panic]
fn group_swap_remove_out_of_bounds_panics() {
    let mut group: Group<u8> = Group::default();
    group.swap_remove(0);
}

proptest! {
    /// The bookkeeping generated code does: a map from key to position,
    /// fixed after every removal, always agrees with the group.
    #[test]
    fn group_positions_stay_consistent(ops in vec((any::<bool>(), 0u8..16), 0..200)) {
        let mut positions: HashMap<u8, usize> = new_map();
        let mut group = Group::new();
        for (insert, key) in ops {
            match positions.entry(key) {
                Entry::Vacant(slot) if insert => {
                    slot.insert(group.push(key));
                }
                Entry::Occupied(slot) if !insert => {
                    let pos = slot.remove();
                    if let Some(&moved) = group.swap_remove(pos) {
                        positions.insert(moved, pos);
                    }
                }
                _ => {}
            }
            prop_assert_eq!(group.len(), positions.len());
            for (key, &pos) in &positions {
                prop_assert_eq!(group.get(pos), Some(key));
            }
            let in_group: BTreeSet<u8> = group.iter().copied().collect();
            let in_map: BTreeSet<u8> = positions.keys().copied().collect();
            prop_assert_eq!(in_group, in_map);
        }
    }

    #[test]
    fn product_is_the_cartesian_product(a in vec(0u8..9, 0..6), b in vec(0u8..9, 0..6)) {
        let got: Vec<(&u8, &u8)> = product(&a, &b).collect();
        let want: Vec<(&u8, &u8)> = a.iter().flat_map(|x| b.iter().map(move |y| (x, y))).collect();
        prop_assert_eq!(&got, &want);

        let mut it = product(&a, &b);
        for consumed in 0..=want.len() {
            let left = want.len() - consumed;
            prop_assert_eq!(it.size_hint(), (left, Some(left)));
            it.next();
        }
        prop_assert_eq!(it.next(), None, "fused");
    }
}

#[test]
fn product_of_an_empty_side_ends_at_once() {
    // `a` is not run through, pairing each item with nothing.
    let pulled = Cell::new(0);
    let a = (0..1000).inspect(|_| pulled.set(pulled.get() + 1));
    assert_eq!(product(a, std::iter::empty::<u8>()).next(), None);
    assert_eq!(pulled.get(), 0);
    assert_eq!(product(std::iter::empty::<u8>(), 0u64..).next(), None);
    assert_eq!(product(0..3, 0..0).size_hint(), (0, Some(0)));
}

#[test]
fn product_nests_over_more_branches() {
    let triples: Vec<((u8, char), bool)> = product(product(0..2, ['x', 'y']), [true]).collect();
    assert_eq!(
        triples,
        [
            ((0, 'x'), true),
            ((0, 'y'), true),
            ((1, 'x'), true),
            ((1, 'y'), true),
        ]
    );
    assert_eq!(product(0.., 0..3).take(4).last(), Some((1, 0)));
}
