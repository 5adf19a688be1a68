//! View trees against the naive evaluator: random sequences of updates,
//! inserts, deletes and retractions (absent ones included) over skewed
//! data, self-joins and every catalogue semiring the strategy serves, with
//! `iter`, `get`, `len` and the outcome of every call compared after every
//! step.

// The first-order cases opt in to intractable queries on purpose; the
// warning that opting in raises is tested in `ui/pass`.
#![allow(deprecated)]

use std::collections::BTreeMap;

use ivm::Semiring;
use ivm::semiring::{
    AccessControl, Bool, Count, Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real,
};
use ivm_tests::naive::{Naive, Retraction};
use proptest::prelude::*;

/// A generated struct seen through generic operations.
trait Subject: Default {
    type K: Semiring;
    fn update(&mut self, rel: usize, t: &[u64], d: Self::K);
    fn retract(&mut self, rel: usize, t: &[u64], d: Self::K) -> Result<(), ivm::Error>;
    fn delete(&mut self, rel: usize, t: &[u64]) -> Result<(), ivm::Error>;
    fn rows(&self) -> Vec<(Vec<u64>, Self::K)>;
    fn get(&self, key: &[u64]) -> Self::K;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    /// `bulk_load` of these contributions.
    fn bulk(contributions: &[(usize, Vec<u64>, Self::K)]) -> Self;
    /// The strategy's own invariants, where it has a check for them.
    fn invariants(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Implements [`Subject`] for a generated struct: each relation with its
/// methods and column count, and the head arity.
macro_rules! subject {
    ($ty:ident: $k:ty; $( $rel:literal => $upd:ident $ret:ident $del:ident [$($c:tt)*] ),* ; head [$($h:tt)*] $(; $inv:ident)?) => {
        impl Subject for $ty {
            $(
                fn $inv(&self) -> Result<(), String> {
                    self.check_invariants()
                }
            )?
            type K = $k;
            fn update(&mut self, rel: usize, t: &[u64], d: $k) {
                match rel {
                    $( $rel => self.$upd($(t[$c] as u32,)* d), )*
                    _ => unreachable!(),
                }
            }
            fn retract(&mut self, rel: usize, t: &[u64], d: $k) -> Result<(), ivm::Error> {
                match rel {
                    $( $rel => self.$ret($(t[$c] as u32,)* d), )*
                    _ => unreachable!(),
                }
            }
            fn delete(&mut self, rel: usize, t: &[u64]) -> Result<(), ivm::Error> {
                match rel {
                    $( $rel => self.$del($(t[$c] as u32,)*), )*
                    _ => unreachable!(),
                }
            }
            fn rows(&self) -> Vec<(Vec<u64>, $k)> {
                self.iter()
                    .map(|(k, p)| {
                        let _ = &k;
                        (vec![$(u64::from(k.$h)),*], p)
                    })
                    .collect()
            }
            fn get(&self, key: &[u64]) -> $k {
                let _ = key;
                $ty::get(self, &($(key[$h] as u32,)*))
            }
            fn len(&self) -> usize {
                $ty::len(self)
            }
            fn is_empty(&self) -> bool {
                $ty::is_empty(self)
            }
            fn bulk(contributions: &[(usize, Vec<u64>, $k)]) -> Self {
                $ty::bulk_load($(
                    contributions
                        .iter()
                        .filter(|c| c.0 == $rel)
                        .map(|c| (($(c.1[$c] as u32,)*), c.2.clone())),
                )*)
            }
        }
    };
}

/// Generates one query over one semiring (with any further attributes)
/// and its [`Subject`] impl: what every shape below has in common.
macro_rules! under_test {
    ($name:ident, [$($k:tt)*], [$($attrs:tt)*], { $($query:tt)* }, $($spec:tt)*) => {
        ivm::ivm_query! {
            #[semiring($($k)*)]
            $($attrs)*
            query $name { $($query)* }
        }
        subject!($name: $($k)*; $($spec)*);
    };
}

/// How test payloads are made for a semiring, and how it retracts.
trait TestPayload: Semiring + std::fmt::Debug {
    /// A non-zero payload from a small random number.
    fn from_raw(raw: u8) -> Self;
    fn retraction() -> Retraction<Self>;
    /// Whether retracting anything but a live contribution may disagree
    /// with the exact model (Count's truncated subtraction).
    const LIVE_RETRACTIONS_ONLY: bool = false;
}

impl TestPayload for Int {
    fn from_raw(raw: u8) -> Self {
        Int(i64::from(raw % 7) - 3).add(&Int(i64::from(raw % 7 == 3)))
    }
    fn retraction() -> Retraction<Self> {
        Retraction::ring()
    }
}
impl TestPayload for Real {
    fn from_raw(raw: u8) -> Self {
        Real(f64::from(raw % 5) - 2.0 + if raw % 5 == 2 { 0.5 } else { 0.0 })
    }
    fn retraction() -> Retraction<Self> {
        Retraction::ring()
    }
}
impl TestPayload for Count {
    fn from_raw(raw: u8) -> Self {
        Count(u64::from(raw % 3) + 1)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
    const LIVE_RETRACTIONS_ONLY: bool = true;
}
impl TestPayload for Bool {
    fn from_raw(_: u8) -> Self {
        Bool(true)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for MinPlus {
    fn from_raw(raw: u8) -> Self {
        MinPlus(i64::from(raw % 9) - 2)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for MaxPlus {
    fn from_raw(raw: u8) -> Self {
        MaxPlus(i64::from(raw % 9) - 2)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for MaxMax {
    fn from_raw(raw: u8) -> Self {
        MaxMax(i64::from(raw % 9))
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for MaxMin {
    fn from_raw(raw: u8) -> Self {
        MaxMin(i64::from(raw % 9) - 4)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for MinMax {
    fn from_raw(raw: u8) -> Self {
        MinMax(i64::from(raw % 9) - 4)
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}
impl TestPayload for Covariance<2> {
    /// Small integer observations, so sums and products stay exact.
    fn from_raw(raw: u8) -> Self {
        let x = [f64::from(raw % 3), f64::from(raw / 3 % 3) - 1.0];
        if raw.is_multiple_of(5) {
            // A negative count: a ring element that is not one observation.
            Covariance::<2>::scalar(-1.0)
        } else {
            Covariance::lift(x)
        }
    }
    fn retraction() -> Retraction<Self> {
        Retraction::ring()
    }
}
impl TestPayload for AccessControl {
    fn from_raw(raw: u8) -> Self {
        AccessControl::LEVELS[usize::from(raw) % 4]
    }
    fn retraction() -> Retraction<Self> {
        Retraction::Contributions
    }
}

/// A query's shape for the naive evaluator: relation arities, atoms as
/// (relation, variables), head variables.
type Shape = (
    &'static [usize],
    &'static [(usize, &'static [usize])],
    &'static [usize],
);

/// One call on the generated API.
#[derive(Debug, Clone)]
enum Op {
    Update(usize, Vec<u64>, u8),
    Insert(usize, Vec<u64>),
    Delete(usize, Vec<u64>),
    Retract(usize, Vec<u64>, u8),
    /// Retract the n-th live contribution made so far (always present).
    RetractLive(usize),
}

/// Tuples over a small, skewed domain: value 0 is a hub that most tuples
/// share, so joins fan out and self-join tuples like (0, 0) are common.
fn tuple(arity: usize) -> BoxedStrategy<Vec<u64>> {
    proptest::collection::vec(
        prop_oneof![3 => Just(0u64), 2 => 1u64..3, 1 => 3u64..6],
        arity,
    )
    .boxed()
}

fn ops(arities: &'static [usize]) -> impl Strategy<Value = Vec<Op>> {
    let rel = 0..arities.len();
    let op = rel.prop_flat_map(move |r| {
        let t = tuple(arities[r]);
        prop_oneof![
            4 => (t.clone(), any::<u8>()).prop_map(move |(t, d)| Op::Update(r, t, d)),
            3 => t.clone().prop_map(move |t| Op::Insert(r, t)),
            2 => t.clone().prop_map(move |t| Op::Delete(r, t)),
            1 => (t, any::<u8>()).prop_map(move |(t, d)| Op::Retract(r, t, d)),
            2 => any::<usize>().prop_map(Op::RetractLive),
        ]
    });
    proptest::collection::vec(op, 1..60)
}

/// Runs `ops` on a fresh subject and the naive evaluator, comparing after
/// every step.
fn check<S: Subject>(query: Shape, ops: &[Op]) -> Result<(), TestCaseError>
where
    S::K: TestPayload,
{
    let (arities, atoms, head) = query;
    let mut subject = S::default();
    let mut naive = Naive::<S::K>::new(
        arities.to_vec(),
        atoms.iter().map(|(r, v)| (*r, v.to_vec())).collect(),
        head.to_vec(),
        S::K::retraction(),
    );
    let mut live: Vec<(usize, Vec<u64>, S::K)> = Vec::new();
    let mut updates: Vec<(usize, Vec<u64>, S::K)> = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        let (got, want) = match op {
            Op::Update(r, t, d) => {
                let d = S::K::from_raw(*d);
                subject.update(*r, t, d.clone());
                naive.update(*r, t, d.clone());
                live.push((*r, t.clone(), d.clone()));
                updates.push((*r, t.clone(), d));
                (true, true)
            }
            Op::Insert(r, t) => {
                subject.update(*r, t, S::K::one());
                naive.update(*r, t, S::K::one());
                live.push((*r, t.clone(), S::K::one()));
                updates.push((*r, t.clone(), S::K::one()));
                (true, true)
            }
            Op::Delete(r, t) => {
                if S::K::LIVE_RETRACTIONS_ONLY && naive.payload(*r, t) != S::K::zero() {
                    continue;
                }
                (subject.delete(*r, t).is_ok(), naive.delete(*r, t).is_ok())
            }
            Op::Retract(r, t, d) => {
                if S::K::LIVE_RETRACTIONS_ONLY && naive.payload(*r, t) != S::K::zero() {
                    continue;
                }
                let d = S::K::from_raw(*d);
                (
                    subject.retract(*r, t, d.clone()).is_ok(),
                    naive.retract(*r, t, d).is_ok(),
                )
            }
            Op::RetractLive(n) => {
                if live.is_empty() {
                    continue;
                }
                let (r, t, d) = live.swap_remove(n % live.len());
                let want = naive.retract(r, &t, d.clone()).is_ok();
                if S::K::LIVE_RETRACTIONS_ONLY && !want {
                    continue;
                }
                (subject.retract(r, &t, d).is_ok(), want)
            }
        };
        prop_assert_eq!(got, want, "step {}: {:?} succeeded differently", step, op);
        if let Err(e) = subject.invariants() {
            return Err(TestCaseError::fail(format!(
                "step {step}: after {op:?}: {e}"
            )));
        }
        let rows = subject.rows();
        let mut seen = BTreeMap::new();
        for (k, p) in rows {
            prop_assert!(
                !p.is_zero(),
                "step {}: iter yields a zero payload for {:?}",
                step,
                k
            );
            prop_assert!(
                seen.insert(k.clone(), p).is_none(),
                "step {}: iter yields {:?} twice",
                step,
                k
            );
        }
        let expected = naive.result();
        prop_assert_eq!(&seen, &expected, "step {}: after {:?}", step, op);
        prop_assert_eq!(subject.len(), expected.len(), "step {}: len", step);
        prop_assert_eq!(subject.is_empty(), expected.is_empty());
        for (k, p) in &expected {
            prop_assert_eq!(&subject.get(k), p, "step {}: get({:?})", step, k);
        }
        if !head.is_empty() {
            let absent = vec![9; head.len()];
            prop_assert_eq!(subject.get(&absent), S::K::zero());
        }
    }
    // Bulk loading every update at once gives what applying them one at a
    // time gives.
    let bulk = S::bulk(&updates);
    let mut reference = Naive::<S::K>::new(
        arities.to_vec(),
        atoms.iter().map(|(r, v)| (*r, v.to_vec())).collect(),
        head.to_vec(),
        S::K::retraction(),
    );
    for (r, t, d) in &updates {
        reference.update(*r, t, d.clone());
    }
    let loaded: BTreeMap<Vec<u64>, S::K> = bulk.rows().into_iter().collect();
    prop_assert_eq!(&loaded, &reference.result(), "bulk_load");
    prop_assert_eq!(bulk.len(), reference.len(), "bulk_load len");
    Ok(())
}

// Q(k) = R(k, x) * S(k, y): a grouped two-relation join.
macro_rules! grouped {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(k: u32, x: u32);
            relation S(k: u32, y: u32);
            Q(k) = R(k, x) * S(k, y);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0]);
    };
}
const GROUPED: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[0, 2])], &[0]);

grouped!(GroupedInt, Int);
grouped!(GroupedCount, Count);
grouped!(GroupedMinPlus, MinPlus);
grouped!(GroupedBool, Bool);
grouped!(GroupedMaxMax, MaxMax);
grouped!(GroupedAccess, AccessControl);

// Q(k) = R(k, i) * S(k, i): the shape of the grouped example queries
// (revenue per store, cheapest offer, statistics per region): two atoms
// meeting on the same key, an intersection.
macro_rules! intersect {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(k: u32, i: u32);
            relation S(k: u32, i: u32);
            Q(k) = R(k, i) * S(k, i);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0]);
    };
}
const INTERSECT: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[0, 1])], &[0]);

intersect!(IntersectInt, Int);
intersect!(IntersectMinPlus, MinPlus);
intersect!(IntersectMaxMin, MaxMin);
intersect!(IntersectMinMax, MinMax);
intersect!(IntersectCovariance, Covariance<2>);
intersect!(IntersectAccess, AccessControl);

// Q() = R(s, i) * S(s, i): the total of the same product.
macro_rules! total {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(s: u32, i: u32);
            relation S(s: u32, i: u32);
            Q() = R(s, i) * S(s, i);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head []);
    };
}
const TOTAL: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[0, 1])], &[]);

total!(TotalInt, Int);
total!(TotalCount, Count);
total!(TotalCovariance, Covariance<2>);

// Q() = R(a, b) * S(a, c) * T(a): a nullary count with three levels.
macro_rules! nullary {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(a: u32, c: u32);
            relation T(a: u32);
            Q() = R(a, b) * S(a, c) * T(a);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0]; head []);
    };
}
const NULLARY: Shape = (&[2, 2, 1], &[(0, &[0, 1]), (1, &[0, 2]), (2, &[0])], &[]);

nullary!(NullaryInt, Int);
nullary!(NullaryReal, Real);
nullary!(NullaryCount, Count);
nullary!(NullaryMaxPlus, MaxPlus);

// Q(v) = E(v, a) * E(v, b): a self-join.
macro_rules! wedges {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation E(src: u32, dst: u32);
            Q(v) = E(v, a) * E(v, b);
        }, 0 => update_e retract_e delete_e [0 1]; head [0]);
    };
}
const WEDGES: Shape = (&[2], &[(0, &[0, 1]), (0, &[0, 2])], &[0]);

wedges!(WedgesInt, Int);
wedges!(WedgesCount, Count);
wedges!(WedgesMinPlus, MinPlus);

// Q(a) = E(a, b) * E(b, a): a self-join whose atoms meet at the same key,
// where (x, x) tuples exercise the self-join delta rule.
macro_rules! mutual {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation E(src: u32, dst: u32);
            Q(a) = E(a, b) * E(b, a);
        }, 0 => update_e retract_e delete_e [0 1]; head [0]);
    };
}
const MUTUAL: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 0])], &[0]);

mutual!(MutualInt, Int);
mutual!(MutualCount, Count);
mutual!(MutualMinPlus, MinPlus);
mutual!(MutualBool, Bool);

// Q(a, b, c) = R(a, b) * S(a, c) * T(d): free variables that branch, and
// a summed-out root that scales every tuple.
macro_rules! branching {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(a: u32, c: u32);
            relation T(d: u32);
            Q(a, b, c) = R(a, b) * S(a, c) * T(d);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0]; head [0 1 2]);
    };
}
const BRANCHING: Shape = (
    &[2, 2, 1],
    &[(0, &[0, 1]), (1, &[0, 2]), (2, &[3])],
    &[0, 1, 2],
);

branching!(BranchingInt, Int);
branching!(BranchingCount, Count);
branching!(BranchingMinPlus, MinPlus);
branching!(BranchingAccess, AccessControl);

// Q(a, b) = R(a, b, c) * S(a, b, d) * T(a, e): a three-level hierarchy
// with free variables over summed-out ones.
macro_rules! deep {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32, c: u32);
            relation S(a: u32, b: u32, d: u32);
            relation T(a: u32, e: u32);
            Q(a, b) = R(a, b, c) * S(a, b, d) * T(a, e);
        }, 0 => update_r retract_r delete_r [0 1 2], 1 => update_s retract_s delete_s [0 1 2], 2 => update_t retract_t delete_t [0 1]; head [0 1]);
    };
}
const DEEP: Shape = (
    &[3, 3, 2],
    &[(0, &[0, 1, 2]), (1, &[0, 1, 3]), (2, &[0, 4])],
    &[0, 1],
);

deep!(DeepInt, Int);
deep!(DeepMinPlus, MinPlus);
deep!(DeepBool, Bool);

// Q(a, b) = R(a) * S(b): a product of independent free variables.
macro_rules! product {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32);
            relation S(b: u32);
            Q(a, b) = R(a) * S(b);
        }, 0 => update_r retract_r delete_r [0], 1 => update_s retract_s delete_s [0]; head [0 1]);
    };
}
const PRODUCT: Shape = (&[1, 1], &[(0, &[0]), (1, &[1])], &[0, 1]);

product!(ProductInt, Int);
product!(ProductCount, Count);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test] fn grouped_int(ops in ops(GROUPED.0)) { check::<GroupedInt>(GROUPED, &ops)?; }
    #[test] fn grouped_count(ops in ops(GROUPED.0)) { check::<GroupedCount>(GROUPED, &ops)?; }
    #[test] fn grouped_min_plus(ops in ops(GROUPED.0)) { check::<GroupedMinPlus>(GROUPED, &ops)?; }
    #[test] fn grouped_bool(ops in ops(GROUPED.0)) { check::<GroupedBool>(GROUPED, &ops)?; }
    #[test] fn grouped_max_max(ops in ops(GROUPED.0)) { check::<GroupedMaxMax>(GROUPED, &ops)?; }
    #[test] fn grouped_access(ops in ops(GROUPED.0)) { check::<GroupedAccess>(GROUPED, &ops)?; }
    #[test] fn nullary_int(ops in ops(NULLARY.0)) { check::<NullaryInt>(NULLARY, &ops)?; }
    #[test] fn nullary_real(ops in ops(NULLARY.0)) { check::<NullaryReal>(NULLARY, &ops)?; }
    #[test] fn nullary_count(ops in ops(NULLARY.0)) { check::<NullaryCount>(NULLARY, &ops)?; }
    #[test] fn nullary_max_plus(ops in ops(NULLARY.0)) { check::<NullaryMaxPlus>(NULLARY, &ops)?; }
    #[test] fn wedges_int(ops in ops(WEDGES.0)) { check::<WedgesInt>(WEDGES, &ops)?; }
    #[test] fn wedges_count(ops in ops(WEDGES.0)) { check::<WedgesCount>(WEDGES, &ops)?; }
    #[test] fn wedges_min_plus(ops in ops(WEDGES.0)) { check::<WedgesMinPlus>(WEDGES, &ops)?; }
    #[test] fn mutual_int(ops in ops(MUTUAL.0)) { check::<MutualInt>(MUTUAL, &ops)?; }
    #[test] fn mutual_count(ops in ops(MUTUAL.0)) { check::<MutualCount>(MUTUAL, &ops)?; }
    #[test] fn mutual_min_plus(ops in ops(MUTUAL.0)) { check::<MutualMinPlus>(MUTUAL, &ops)?; }
    #[test] fn mutual_bool(ops in ops(MUTUAL.0)) { check::<MutualBool>(MUTUAL, &ops)?; }
    #[test] fn branching_int(ops in ops(BRANCHING.0)) { check::<BranchingInt>(BRANCHING, &ops)?; }
    #[test] fn branching_count(ops in ops(BRANCHING.0)) { check::<BranchingCount>(BRANCHING, &ops)?; }
    #[test] fn branching_min_plus(ops in ops(BRANCHING.0)) { check::<BranchingMinPlus>(BRANCHING, &ops)?; }
    #[test] fn branching_access(ops in ops(BRANCHING.0)) { check::<BranchingAccess>(BRANCHING, &ops)?; }
    #[test] fn deep_int(ops in ops(DEEP.0)) { check::<DeepInt>(DEEP, &ops)?; }
    #[test] fn deep_min_plus(ops in ops(DEEP.0)) { check::<DeepMinPlus>(DEEP, &ops)?; }
    #[test] fn deep_bool(ops in ops(DEEP.0)) { check::<DeepBool>(DEEP, &ops)?; }
    #[test] fn product_int(ops in ops(PRODUCT.0)) { check::<ProductInt>(PRODUCT, &ops)?; }
    #[test] fn intersect_int(ops in ops(INTERSECT.0)) { check::<IntersectInt>(INTERSECT, &ops)?; }
    #[test] fn intersect_min_plus(ops in ops(INTERSECT.0)) { check::<IntersectMinPlus>(INTERSECT, &ops)?; }
    #[test] fn intersect_max_min(ops in ops(INTERSECT.0)) { check::<IntersectMaxMin>(INTERSECT, &ops)?; }
    #[test] fn intersect_min_max(ops in ops(INTERSECT.0)) { check::<IntersectMinMax>(INTERSECT, &ops)?; }
    #[test] fn intersect_covariance(ops in ops(INTERSECT.0)) { check::<IntersectCovariance>(INTERSECT, &ops)?; }
    #[test] fn intersect_access(ops in ops(INTERSECT.0)) { check::<IntersectAccess>(INTERSECT, &ops)?; }
    #[test] fn total_int(ops in ops(TOTAL.0)) { check::<TotalInt>(TOTAL, &ops)?; }
    #[test] fn total_count(ops in ops(TOTAL.0)) { check::<TotalCount>(TOTAL, &ops)?; }
    #[test] fn total_covariance(ops in ops(TOTAL.0)) { check::<TotalCovariance>(TOTAL, &ops)?; }
    #[test] fn product_count(ops in ops(PRODUCT.0)) { check::<ProductCount>(PRODUCT, &ops)?; }
}

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊕")]
fn int_overflow_in_a_base_tuple_is_detected() {
    let mut q = GroupedInt::default();
    q.update_r(1, 1, Int(i64::MAX));
    q.update_r(1, 1, Int(1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊗")]
fn int_overflow_in_a_view_is_detected() {
    let mut q = GroupedInt::default();
    q.update_r(1, 1, Int(i64::MAX / 2));
    q.update_s(1, 1, Int(3));
}

#[test]
#[should_panic(expected = "ivm: Count overflow")]
fn count_overflow_is_detected() {
    let mut q = NullaryCount::default();
    q.update_t(1, Count(u64::MAX));
    q.update_r(1, 1, Count(2));
    q.update_s(1, 1, Count(1));
}

// The first-order delta strategy, forced or taken on with
// `#[allow(intractable)]`: any query, any semiring.
macro_rules! first_order {
    ($name:ident, [$($k:tt)*], { $($query:tt)* }, $($spec:tt)*) => {
        under_test!($name, [$($k)*], [#[allow(intractable)] #[strategy(first_order)]], { $($query)* }, $($spec)*);
    };
}

first_order!(FoTriangleInt, [Int], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e retract_e delete_e [0 1]; head []);
first_order!(FoTriangleCount, [Count], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e retract_e delete_e [0 1]; head []);
first_order!(FoTriangleMinPlus, [MinPlus], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e retract_e delete_e [0 1]; head []);
const FO_TRIANGLE: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 2]), (0, &[2, 0])], &[]);

first_order!(FoPathInt, [Int], {
    relation R(x: u32, y: u32);
    relation S(y: u32, z: u32);
    Q(x, z) = R(x, y) * S(y, z);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0 1]);
first_order!(FoPathBool, [Bool], {
    relation R(x: u32, y: u32);
    relation S(y: u32, z: u32);
    Q(x, z) = R(x, y) * S(y, z);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0 1]);
first_order!(FoPathMaxPlus, [MaxPlus], {
    relation R(x: u32, y: u32);
    relation S(y: u32, z: u32);
    Q(x, z) = R(x, y) * S(y, z);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0 1]);
const FO_PATH: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[1, 2])], &[0, 2]);

first_order!(FoCycleInt, [Int], {
    relation R(a: u32, b: u32);
    relation S(b: u32, c: u32);
    relation T(c: u32, d: u32);
    relation U(d: u32, a: u32);
    Q(a) = R(a, b) * S(b, c) * T(c, d) * U(d, a);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0 1], 3 => update_u retract_u delete_u [0 1]; head [0]);
const FO_CYCLE: Shape = (
    &[2, 2, 2, 2],
    &[(0, &[0, 1]), (1, &[1, 2]), (2, &[2, 3]), (3, &[3, 0])],
    &[0],
);

first_order!(FoQCoreCount, [Count], {
    relation S(x: u32, y: u32);
    relation T(y: u32);
    Q(x) = S(x, y) * T(y);
}, 0 => update_s retract_s delete_s [0 1], 1 => update_t retract_t delete_t [0]; head [0]);
const FO_Q_CORE: Shape = (&[2, 1], &[(0, &[0, 1]), (1, &[1])], &[0]);

first_order!(FoMutualInt, [Int], {
    relation E(src: u32, dst: u32);
    Q(a) = E(a, b) * E(b, a);
}, 0 => update_e retract_e delete_e [0 1]; head [0]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test] fn first_order_triangle_int(ops in ops(FO_TRIANGLE.0)) { check::<FoTriangleInt>(FO_TRIANGLE, &ops)?; }
    #[test] fn first_order_triangle_count(ops in ops(FO_TRIANGLE.0)) { check::<FoTriangleCount>(FO_TRIANGLE, &ops)?; }
    #[test] fn first_order_triangle_min_plus(ops in ops(FO_TRIANGLE.0)) { check::<FoTriangleMinPlus>(FO_TRIANGLE, &ops)?; }
    #[test] fn first_order_path_int(ops in ops(FO_PATH.0)) { check::<FoPathInt>(FO_PATH, &ops)?; }
    #[test] fn first_order_path_bool(ops in ops(FO_PATH.0)) { check::<FoPathBool>(FO_PATH, &ops)?; }
    #[test] fn first_order_path_max_plus(ops in ops(FO_PATH.0)) { check::<FoPathMaxPlus>(FO_PATH, &ops)?; }
    #[test] fn first_order_cycle_int(ops in ops(FO_CYCLE.0)) { check::<FoCycleInt>(FO_CYCLE, &ops)?; }
    #[test] fn first_order_q_core_count(ops in ops(FO_Q_CORE.0)) { check::<FoQCoreCount>(FO_Q_CORE, &ops)?; }
    #[test] fn first_order_mutual_int(ops in ops(MUTUAL.0)) { check::<FoMutualInt>(MUTUAL, &ops)?; }
}

// The recompute baseline: nothing maintained but the relations; every read
// evaluates the query by generic join.
macro_rules! recompute {
    ($name:ident, [$($k:tt)*], { $($query:tt)* }, $($spec:tt)*) => {
        under_test!($name, [$($k)*], [#[strategy(recompute)]], { $($query)* }, $($spec)*);
    };
}

recompute!(RcTriangleInt, [Int], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e retract_e delete_e [0 1]; head []);
recompute!(RcTriangleCount, [Count], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e retract_e delete_e [0 1]; head []);
recompute!(RcPathMinPlus, [MinPlus], {
    relation R(x: u32, y: u32);
    relation S(y: u32, z: u32);
    Q(x, z) = R(x, y) * S(y, z);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0 1]);
recompute!(RcCycleInt, [Int], {
    relation R(a: u32, b: u32);
    relation S(b: u32, c: u32);
    relation T(c: u32, d: u32);
    relation U(d: u32, a: u32);
    Q(a) = R(a, b) * S(b, c) * T(c, d) * U(d, a);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0 1], 3 => update_u retract_u delete_u [0 1]; head [0]);
recompute!(RcQCoreBool, [Bool], {
    relation S(x: u32, y: u32);
    relation T(y: u32);
    Q(x) = S(x, y) * T(y);
}, 0 => update_s retract_s delete_s [0 1], 1 => update_t retract_t delete_t [0]; head [0]);
recompute!(RcGroupedCovariance, [Covariance<2>], {
    relation R(k: u32, x: u32);
    relation S(k: u32, y: u32);
    Q(k) = R(k, x) * S(k, y);
}, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1]; head [0]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test] fn recompute_triangle_int(ops in ops(FO_TRIANGLE.0)) { check::<RcTriangleInt>(FO_TRIANGLE, &ops)?; }
    #[test] fn recompute_triangle_count(ops in ops(FO_TRIANGLE.0)) { check::<RcTriangleCount>(FO_TRIANGLE, &ops)?; }
    #[test] fn recompute_path_min_plus(ops in ops(FO_PATH.0)) { check::<RcPathMinPlus>(FO_PATH, &ops)?; }
    #[test] fn recompute_cycle_int(ops in ops(FO_CYCLE.0)) { check::<RcCycleInt>(FO_CYCLE, &ops)?; }
    #[test] fn recompute_q_core_bool(ops in ops(FO_Q_CORE.0)) { check::<RcQCoreBool>(FO_Q_CORE, &ops)?; }
    #[test] fn recompute_grouped_covariance(ops in ops(GROUPED.0)) { check::<RcGroupedCovariance>(GROUPED, &ops)?; }
}

// Under inserts only a q-hierarchical query is still a view tree, and its
// generated API has no deletes (calling one does not compile).
ivm::ivm_query! {
    #[semiring(ivm::semiring::MaxMax)]
    #[updates(insert_only)]
    query AppendOnlyMaxMax {
        relation R(k: u32, x: u32);
        relation S(k: u32, x: u32);
        Q(k) = R(k, x) * S(k, x);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn insert_only_view_tree(inserts in proptest::collection::vec((0..2usize, tuple(2), any::<u8>()), 1..60)) {
        let mut q = AppendOnlyMaxMax::new();
        let mut naive = Naive::<MaxMax>::new(
            vec![2, 2],
            vec![(0, vec![0, 1]), (1, vec![0, 1])],
            vec![0],
            Retraction::Contributions,
        );
        for (r, t, d) in &inserts {
            let d = MaxMax::from_raw(*d);
            match r {
                0 => q.update_r(t[0] as u32, t[1] as u32, d),
                _ => q.update_s(t[0] as u32, t[1] as u32, d),
            }
            naive.update(*r, t, d);
            let got: BTreeMap<Vec<u64>, MaxMax> =
                q.iter().map(|((k,), p)| (vec![u64::from(k)], p)).collect();
            prop_assert_eq!(&got, &naive.result());
            prop_assert_eq!(q.len(), naive.len());
        }
    }
}

// IVMε for the triangle count, at every ε, with separate relations and in
// the graph form (one relation used three times); the invariants of
// papers/000 are checked after every step.
macro_rules! ivm_eps {
    ($name:ident, [$($k:tt)*], $eps:literal) => {
        under_test!($name, [$($k)*], [#[strategy(ivm_eps(eps = $eps))]], {
            relation R(a: u32, b: u32);
            relation S(c: u32, b: u32);
            relation T(c: u32, a: u32);
            Q() = R(a, b) * S(c, b) * T(c, a);
        }, 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0 1]; head []; invariants);
    };
}
const EPS_TRIANGLE: Shape = (&[2, 2, 2], &[(0, &[0, 1]), (1, &[2, 1]), (2, &[2, 0])], &[]);

ivm_eps!(EpsInt0, [Int], 0);
ivm_eps!(EpsInt25, [Int], 0.25);
ivm_eps!(EpsInt50, [Int], 0.5);
ivm_eps!(EpsInt75, [Int], 0.75);
ivm_eps!(EpsInt1, [Int], 1);
ivm_eps!(EpsCount50, [Count], 0.5);
ivm_eps!(EpsReal50, [Real], 0.5);

macro_rules! ivm_eps_graph {
    ($name:ident, [$($k:tt)*], $eps:literal) => {
        under_test!($name, [$($k)*], [#[strategy(ivm_eps(eps = $eps))]], {
            relation E(src: u32, dst: u32);
            Q() = E(a, b) * E(b, c) * E(c, a);
        }, 0 => update_e retract_e delete_e [0 1]; head []; invariants);
    };
}

ivm_eps_graph!(EpsGraphInt50, [Int], 0.5);
ivm_eps_graph!(EpsGraphCount25, [Count], 0.25);
ivm_eps_graph!(EpsGraphInt0, [Int], 0);
ivm_eps_graph!(EpsGraphInt1, [Int], 1);
ivm_eps_graph!(EpsGraphReal75, [Real], 0.75);

// The graph form with every edge reversed is still one orientation (one
// partitioned copy, one view); with one edge reversed it is not, and the
// relation plays three distinct roles.
under_test!(EpsGraphReversed, [Int], [#[strategy(ivm_eps(eps = 0.5))]], {
    relation E(src: u32, dst: u32);
    Q() = E(b, a) * E(c, b) * E(a, c);
}, 0 => update_e retract_e delete_e [0 1]; head []; invariants);
const REVERSED_TRIANGLE: Shape = (&[2], &[(0, &[1, 0]), (0, &[2, 1]), (0, &[0, 2])], &[]);
under_test!(EpsSelfJoinMixed, [Int], [#[strategy(ivm_eps(eps = 0.5))]], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(a, c);
}, 0 => update_e retract_e delete_e [0 1]; head []; invariants);
const MIXED_TRIANGLE: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 2]), (0, &[0, 2])], &[]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test] fn ivm_eps_int_0(ops in ops(EPS_TRIANGLE.0)) { check::<EpsInt0>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_int_025(ops in ops(EPS_TRIANGLE.0)) { check::<EpsInt25>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_int_05(ops in ops(EPS_TRIANGLE.0)) { check::<EpsInt50>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_int_075(ops in ops(EPS_TRIANGLE.0)) { check::<EpsInt75>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_int_1(ops in ops(EPS_TRIANGLE.0)) { check::<EpsInt1>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_count(ops in ops(EPS_TRIANGLE.0)) { check::<EpsCount50>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_real(ops in ops(EPS_TRIANGLE.0)) { check::<EpsReal50>(EPS_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_int(ops in ops(FO_TRIANGLE.0)) { check::<EpsGraphInt50>(FO_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_count(ops in ops(FO_TRIANGLE.0)) { check::<EpsGraphCount25>(FO_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_int_0(ops in ops(FO_TRIANGLE.0)) { check::<EpsGraphInt0>(FO_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_int_1(ops in ops(FO_TRIANGLE.0)) { check::<EpsGraphInt1>(FO_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_real(ops in ops(FO_TRIANGLE.0)) { check::<EpsGraphReal75>(FO_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_graph_reversed(ops in ops(REVERSED_TRIANGLE.0)) { check::<EpsGraphReversed>(REVERSED_TRIANGLE, &ops)?; }
    #[test] fn ivm_eps_self_join_mixed(ops in ops(MIXED_TRIANGLE.0)) { check::<EpsSelfJoinMixed>(MIXED_TRIANGLE, &ops)?; }
}

/// A long run over a graph with hubs: the database grows past several
/// doublings of M and shrinks back, hubs turn heavy and light again, and
/// the invariants and the count are checked after every update.
#[test]
fn ivm_eps_crosses_every_rebalancing_boundary() {
    let mut q = EpsGraphInt50::new();
    let mut naive = Naive::<Int>::new(
        vec![2],
        vec![(0, vec![0, 1]), (0, vec![1, 2]), (0, vec![2, 0])],
        vec![],
        Retraction::ring(),
    );
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut live: Vec<(u32, u32)> = Vec::new();
    for step in 0..3000 {
        // Grow for 1500 steps, then shrink; a third of the endpoints are
        // one of three hubs.
        let grow = step < 1500 || next().is_multiple_of(4);
        if grow || live.is_empty() {
            let pick = |r: u64| {
                if r.is_multiple_of(3) {
                    (r / 3 % 3) as u32
                } else {
                    (r % 40) as u32
                }
            };
            let (a, b) = (pick(next()), pick(next()));
            q.insert_e(a, b);
            naive.update(0, &[u64::from(a), u64::from(b)], Int(1));
            live.push((a, b));
        } else {
            let i = (next() % live.len() as u64) as usize;
            let (a, b) = live.swap_remove(i);
            q.delete_e(a, b).expect("live");
            naive
                .delete(0, &[u64::from(a), u64::from(b)])
                .expect("live");
        }
        if step % 7 == 0 || step > 2900 {
            q.check_invariants()
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(q.get(&()), naive.get(&[]), "step {step}");
        }
    }
}

// The factorized baseline for the triangle count.
ivm::ivm_query! {
    #[strategy(factorized)]
    query FactorizedInt {
        relation R(a: u32, b: u32);
        relation S(c: u32, b: u32);
        relation T(c: u32, a: u32);
        Q() = R(a, b) * S(c, b) * T(c, a);
    }
}
subject!(FactorizedInt: Int; 0 => update_r retract_r delete_r [0 1], 1 => update_s retract_s delete_s [0 1], 2 => update_t retract_t delete_t [0 1]; head []; invariants);

ivm::ivm_query! {
    #[semiring(ivm::semiring::Count)]
    #[strategy(factorized)]
    query FactorizedGraphCount {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}
subject!(FactorizedGraphCount: Count; 0 => update_e retract_e delete_e [0 1]; head []; invariants);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test] fn factorized_int(ops in ops(EPS_TRIANGLE.0)) { check::<FactorizedInt>(EPS_TRIANGLE, &ops)?; }
    #[test] fn factorized_graph_count(ops in ops(FO_TRIANGLE.0)) { check::<FactorizedGraphCount>(FO_TRIANGLE, &ops)?; }
}
