//! The insert-only strategies against the naive evaluator: the two-layer
//! structure for p-hierarchical queries, CROWN for free-connex queries
//! over bounded monotone semirings, and view trees that do not keep the
//! relations nothing reads back. Random sequences of inserts and
//! payload updates over skewed data (self-joins included); after every
//! step, `iter` must yield each output tuple exactly once with its payload,
//! and `get`, `len` and `is_empty` must agree; `bulk_load` of the whole
//! sequence must give the same result.

use std::collections::BTreeMap;

use ivm::Semiring;
use ivm::semiring::{AccessControl, Bool, Count, MaxMax, MaxMin, MaxPlus, MinPlus};
use ivm_tests::naive::{Naive, Retraction};
use proptest::prelude::*;

/// A generated insert-only struct seen through generic operations.
trait Subject: Default {
    type K: Semiring;
    fn update(&mut self, rel: usize, t: &[u64], d: Self::K);
    fn rows(&self) -> Vec<(Vec<u64>, Self::K)>;
    fn get(&self, key: &[u64]) -> Self::K;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool;
    fn bulk(contributions: &[(usize, Vec<u64>, Self::K)]) -> Self;
}

/// Generates one insert-only query over one semiring and its [`Subject`]
/// impl: each relation's `update` method with its columns, and the head.
macro_rules! under_test {
    ($name:ident, [$($k:tt)*], [$($attrs:tt)*], { $($query:tt)* },
     $( $rel:literal => $upd:ident [$($c:tt)*] ),* ; head [$($h:tt)*]) => {
        ivm::ivm_query! {
            #[semiring($($k)*)]
            #[updates(insert_only)]
            $($attrs)*
            query $name { $($query)* }
        }
        impl Subject for $name {
            type K = $($k)*;
            fn update(&mut self, rel: usize, t: &[u64], d: Self::K) {
                match rel {
                    $( $rel => self.$upd($(t[$c] as u32,)* d), )*
                    _ => unreachable!(),
                }
            }
            fn rows(&self) -> Vec<(Vec<u64>, Self::K)> {
                self.iter()
                    .map(|(k, p)| {
                        let _ = &k;
                        (vec![$(u64::from(k.$h)),*], p)
                    })
                    .collect()
            }
            fn get(&self, key: &[u64]) -> Self::K {
                let _ = key;
                $name::get(self, &($(key[$h] as u32,)*))
            }
            fn len(&self) -> usize {
                $name::len(self)
            }
            fn is_empty(&self) -> bool {
                $name::is_empty(self)
            }
            fn bulk(contributions: &[(usize, Vec<u64>, Self::K)]) -> Self {
                $name::bulk_load($(
                    contributions
                        .iter()
                        .filter(|c| c.0 == $rel)
                        .map(|c| (($(c.1[$c] as u32,)*), c.2.clone())),
                )*)
            }
        }
    };
}

/// Non-zero test payloads from small random numbers.
trait TestPayload: Semiring + std::fmt::Debug {
    fn from_raw(raw: u8) -> Self;
}
impl TestPayload for Count {
    fn from_raw(raw: u8) -> Self {
        Count(u64::from(raw % 3) + 1)
    }
}
impl TestPayload for Bool {
    fn from_raw(_: u8) -> Self {
        Bool(true)
    }
}
impl TestPayload for MinPlus {
    fn from_raw(raw: u8) -> Self {
        MinPlus(i64::from(raw % 9) - 2)
    }
}
impl TestPayload for MaxPlus {
    fn from_raw(raw: u8) -> Self {
        MaxPlus(i64::from(raw % 9) - 2)
    }
}
impl TestPayload for MaxMax {
    fn from_raw(raw: u8) -> Self {
        MaxMax(i64::from(raw % 9))
    }
}
impl TestPayload for MaxMin {
    fn from_raw(raw: u8) -> Self {
        MaxMin(i64::from(raw % 9) - 4)
    }
}
impl TestPayload for AccessControl {
    fn from_raw(raw: u8) -> Self {
        AccessControl::LEVELS[usize::from(raw) % 4]
    }
}

/// A query's shape for the naive evaluator: relation arities, atoms as
/// (relation, variables), head variables.
type Shape = (
    &'static [usize],
    &'static [(usize, &'static [usize])],
    &'static [usize],
);

/// Tuples over a small, skewed domain: value 0 is a hub most tuples share.
fn tuple(arity: usize) -> BoxedStrategy<Vec<u64>> {
    proptest::collection::vec(
        prop_oneof![3 => Just(0u64), 2 => 1u64..3, 1 => 3u64..6],
        arity,
    )
    .boxed()
}

/// Inserts (payload one) and updates with a random payload.
fn ops(arities: &'static [usize]) -> impl Strategy<Value = Vec<(usize, Vec<u64>, Option<u8>)>> {
    let op = (0..arities.len()).prop_flat_map(move |r| {
        (tuple(arities[r]), proptest::option::of(any::<u8>())).prop_map(move |(t, d)| (r, t, d))
    });
    proptest::collection::vec(op, 1..80)
}

/// Runs the updates on a fresh subject and the naive evaluator, comparing
/// after every step.
fn check<S: Subject>(
    query: Shape,
    ops: &[(usize, Vec<u64>, Option<u8>)],
) -> Result<(), TestCaseError>
where
    S::K: TestPayload,
{
    let (arities, atoms, head) = query;
    let naive_of = || {
        Naive::<S::K>::new(
            arities.to_vec(),
            atoms.iter().map(|(r, v)| (*r, v.to_vec())).collect(),
            head.to_vec(),
            Retraction::Contributions,
        )
    };
    let mut subject = S::default();
    let mut naive = naive_of();
    let mut updates = Vec::new();
    for (step, (r, t, d)) in ops.iter().enumerate() {
        let d = d.map_or_else(S::K::one, S::K::from_raw);
        subject.update(*r, t, d.clone());
        naive.update(*r, t, d.clone());
        updates.push((*r, t.clone(), d));
        let mut seen = BTreeMap::new();
        for (k, p) in subject.rows() {
            prop_assert!(!p.is_zero(), "step {}: zero payload for {:?}", step, k);
            prop_assert!(
                seen.insert(k.clone(), p).is_none(),
                "step {}: iter yields {:?} twice",
                step,
                k
            );
        }
        let expected = naive.result();
        prop_assert_eq!(&seen, &expected, "step {}", step);
        prop_assert_eq!(subject.len(), expected.len(), "step {}: len", step);
        prop_assert_eq!(
            subject.is_empty(),
            expected.is_empty(),
            "step {}: is_empty",
            step
        );
        for (k, p) in &expected {
            prop_assert_eq!(&subject.get(k), p, "step {}: get({:?})", step, k);
        }
        if !head.is_empty() {
            prop_assert_eq!(subject.get(&vec![9; head.len()]), S::K::zero());
        }
    }
    let bulk = S::bulk(&updates);
    let loaded: BTreeMap<Vec<u64>, S::K> = bulk.rows().into_iter().collect();
    prop_assert_eq!(&loaded, &naive.result(), "bulk_load");
    Ok(())
}

// Two layers: Q(a, c) = R(a, b) * S(a, c) * T(c, d), subqueries over (a),
// (a, c) and (c) (papers/001's running example).
macro_rules! branch {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(a: u32, c: u32);
            relation T(c: u32, d: u32);
            Q(a, c) = R(a, b) * S(a, c) * T(c, d);
        }, 0 => update_r [0 1], 1 => update_s [0 1], 2 => update_t [0 1]; head [0 1]);
    };
}
const BRANCH: Shape = (
    &[2, 2, 2],
    &[(0, &[0, 1]), (1, &[0, 2]), (2, &[2, 3])],
    &[0, 2],
);
branch!(BranchCount, Count);
branch!(BranchMinPlus, MinPlus);
branch!(BranchMaxPlus, MaxPlus);
branch!(BranchBool, Bool);
branch!(BranchAccess, AccessControl);
branch!(BranchMaxMax, MaxMax);
branch!(BranchMaxMin, MaxMin);

// The same shape over one relation: a self-join in every subquery.
macro_rules! branch_graph {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation E(src: u32, dst: u32);
            Q(a, c) = E(a, b) * E(a, c) * E(c, d);
        }, 0 => update_e [0 1]; head [0 1]);
    };
}
const BRANCH_GRAPH: Shape = (&[2], &[(0, &[0, 1]), (0, &[0, 2]), (0, &[2, 3])], &[0, 2]);
branch_graph!(BranchGraphCount, Count);
branch_graph!(BranchGraphMinPlus, MinPlus);

// The strong-connex path with every variable free: five subqueries of one
// atom each, joined along a path.
macro_rules! path {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R1(x1: u32);
            relation R2(x1: u32, x2: u32);
            relation R3(x2: u32, x3: u32);
            relation R4(x3: u32, x4: u32);
            relation R5(x4: u32);
            Q(x1, x2, x3, x4) = R1(x1) * R2(x1, x2) * R3(x2, x3) * R4(x3, x4) * R5(x4);
        }, 0 => update_r1 [0], 1 => update_r2 [0 1], 2 => update_r3 [0 1], 3 => update_r4 [0 1], 4 => update_r5 [0]; head [0 1 2 3]);
    };
}
const PATH: Shape = (
    &[1, 2, 2, 2, 1],
    &[
        (0, &[0]),
        (1, &[0, 1]),
        (2, &[1, 2]),
        (3, &[2, 3]),
        (4, &[3]),
    ],
    &[0, 1, 2, 3],
);
path!(PathCount, Count);
path!(PathMinPlus, MinPlus);
path!(PathBool, Bool);

// Deeper subqueries and a nullary one: {R, S} over (a) with b above c,
// {U} over (a, e), {V} over (e), and {W} with no free variable, which
// multiplies every output tuple.
macro_rules! nested {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(a: u32, b: u32, c: u32);
            relation U(a: u32, e: u32);
            relation V(e: u32, f: u32);
            relation W(x: u32, y: u32);
            Q(a, e) = R(a, b) * S(a, b, c) * U(a, e) * V(e, f) * W(x, y);
        }, 0 => update_r [0 1], 1 => update_s [0 1 2], 2 => update_u [0 1], 3 => update_v [0 1], 4 => update_w [0 1]; head [0 1]);
    };
}
const NESTED: Shape = (
    &[2, 3, 2, 2, 2],
    &[
        (0, &[0, 1]),
        (1, &[0, 1, 2]),
        (2, &[0, 3]),
        (3, &[3, 4]),
        (4, &[5, 6]),
    ],
    &[0, 3],
);
nested!(NestedCount, Count);
nested!(NestedMinPlus, MinPlus);

// A full acyclic join is q-hierarchical here (a view tree by default);
// forced to two layers it is the top join alone, and a cartesian product
// of two supports.
under_test!(ForcedFull, [Count], [#[strategy(two_layer)]], {
    relation R(a: u32, b: u32);
    relation S(b: u32, c: u32);
    Q(a, b, c) = R(a, b) * S(b, c);
}, 0 => update_r [0 1], 1 => update_s [0 1]; head [0 1 2]);
const FULL: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[1, 2])], &[0, 1, 2]);
under_test!(ForcedProduct, [MinPlus], [#[strategy(two_layer)]], {
    relation R(a: u32, b: u32);
    relation S(c: u32, d: u32);
    Q(a, c) = R(a, b) * S(c, d);
}, 0 => update_r [0 1], 1 => update_s [0 1]; head [0 1]);
const PRODUCT: Shape = (&[2, 2], &[(0, &[0, 1]), (1, &[2, 3])], &[0, 2]);

// A q-hierarchical query under inserts is a view tree. `R` and `T` each
// feed a sum of their own and are not kept (their updates go straight to
// those sums); `S` is read as a sibling and is kept.
macro_rules! grouped_tree {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(k: u32, y: u32, x: u32);
            relation S(k: u32, y: u32);
            relation T(k: u32, z: u32);
            Q(k) = R(k, y, x) * S(k, y) * T(k, z);
        }, 0 => update_r [0 1 2], 1 => update_s [0 1], 2 => update_t [0 1]; head [0]);
    };
}
const GROUPED_TREE: Shape = (
    &[3, 2, 2],
    &[(0, &[0, 1, 2]), (1, &[0, 1]), (2, &[0, 3])],
    &[0],
);
grouped_tree!(GroupedTreeCount, Count);
grouped_tree!(GroupedTreeMinPlus, MinPlus);
grouped_tree!(GroupedTreeBool, Bool);

// CROWN: free-connex queries with a q-core, over bounded monotone
// semirings. A two-level chain of messages, and a self-join.
macro_rules! q_core {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation S(x: u32, y: u32);
            relation T(y: u32);
            Q(x) = S(x, y) * T(y);
        }, 0 => update_s [0 1], 1 => update_t [0]; head [0]);
    };
}
const Q_CORE: Shape = (&[2, 1], &[(0, &[0, 1]), (1, &[1])], &[0]);
q_core!(QCoreBool, Bool);
q_core!(QCoreAccess, AccessControl);

macro_rules! chain {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(b: u32, c: u32);
            relation T(c: u32);
            relation U(a: u32, d: u32);
            Q(a, d) = R(a, b) * S(b, c) * T(c) * U(a, d);
        }, 0 => update_r [0 1], 1 => update_s [0 1], 2 => update_t [0], 3 => update_u [0 1]; head [0 1]);
    };
}
const CHAIN: Shape = (
    &[2, 2, 1, 2],
    &[(0, &[0, 1]), (1, &[1, 2]), (2, &[2]), (3, &[0, 3])],
    &[0, 3],
);
chain!(ChainBool, Bool);
chain!(ChainAccess, AccessControl);

macro_rules! reach2 {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation E(src: u32, dst: u32);
            Q(x) = E(x, y) * E(y, z);
        }, 0 => update_e [0 1]; head [0]);
    };
}
const REACH2: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 2])], &[0]);
reach2!(Reach2Bool, Bool);
reach2!(Reach2Access, AccessControl);

// Three atoms of one relation along a path: one index of `E` by its second
// column serves two messages, so a message growing at a self-loop's vertex
// revisits, through the other message, the very group being revisited.
macro_rules! reach3 {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation E(src: u32, dst: u32);
            Q(a) = E(a, b) * E(b, c) * E(c, d);
        }, 0 => update_e [0 1]; head [0]);
    };
}
const REACH3: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 2]), (0, &[2, 3])], &[0]);
reach3!(Reach3Bool, Bool);
reach3!(Reach3Access, AccessControl);

// A nullary Boolean query through CROWN: is there any R-S-T path?
under_test!(AnyPathBool, [Bool], [#[strategy(crown)]], {
    relation R(a: u32, b: u32);
    relation S(b: u32, c: u32);
    relation T(c: u32);
    Q() = R(a, b) * S(b, c) * T(c);
}, 0 => update_r [0 1], 1 => update_s [0 1], 2 => update_t [0]; head []);
const ANY_PATH: Shape = (&[2, 2, 1], &[(0, &[0, 1]), (1, &[1, 2]), (2, &[2])], &[]);

// Max-max over free-connex queries without a q-core (papers/002 section
// 5.2): clusters of atoms connected through bound variables, each tuple
// counted once it takes part in a full result of its cluster.
under_test!(HierMaxMax, [MaxMax], [], {
    relation R1(x1: u32, x2: u32);
    relation R2(x1: u32);
    relation R3(x2: u32);
    Q() = R1(x1, x2) * R2(x1) * R3(x2);
}, 0 => update_r1 [0 1], 1 => update_r2 [0], 2 => update_r3 [0]; head []);
const HIER: Shape = (&[2, 1, 1], &[(0, &[0, 1]), (1, &[0]), (2, &[1])], &[]);

under_test!(GroupedCoreMaxMax, [MaxMax], [], {
    relation R1(x1: u32, x2: u32, x3: u32);
    relation R2(x1: u32, x3: u32);
    relation R3(x2: u32, x3: u32);
    Q(x3) = R1(x1, x2, x3) * R2(x1, x3) * R3(x2, x3);
}, 0 => update_r1 [0 1 2], 1 => update_r2 [0 1], 2 => update_r3 [0 1]; head [0]);
const GROUPED_CORE: Shape = (
    &[3, 2, 2],
    &[(0, &[0, 1, 2]), (1, &[0, 2]), (2, &[1, 2])],
    &[2],
);

under_test!(PathMaxMax, [MaxMax], [], {
    relation E(src: u32, dst: u32);
    Q() = E(a, b) * E(b, c) * E(c, d);
}, 0 => update_e [0 1]; head []);
const PATH3: Shape = (&[2], &[(0, &[0, 1]), (0, &[1, 2]), (0, &[2, 3])], &[]);

under_test!(ClusterAndOutputMaxMax, [MaxMax], [], {
    relation R(k: u32, x: u32, y: u32);
    relation S(k: u32, x: u32);
    relation T(k: u32, y: u32);
    relation U(k: u32, z: u32);
    Q(k, z) = R(k, x, y) * S(k, x) * T(k, y) * U(k, z);
}, 0 => update_r [0 1 2], 1 => update_s [0 1], 2 => update_t [0 1], 3 => update_u [0 1]; head [0 1]);
const CLUSTER_AND_OUTPUT: Shape = (
    &[3, 2, 2, 2],
    &[(0, &[0, 1, 2]), (1, &[0, 1]), (2, &[0, 2]), (3, &[0, 3])],
    &[0, 3],
);

// Cyclic p-hierarchical queries: the top join of the supports is cyclic and
// materialized with worst-case-optimal delta joins.
macro_rules! triangles {
    ($name:ident, $($k:tt)*) => {
        under_test!($name, [$($k)*], [], {
            relation R(a: u32, b: u32);
            relation S(b: u32, c: u32);
            relation T(c: u32, a: u32);
            Q(a, b, c) = R(a, b) * S(b, c) * T(c, a);
        }, 0 => update_r [0 1], 1 => update_s [0 1], 2 => update_t [0 1]; head [0 1 2]);
    };
}
const TRIANGLES: Shape = (
    &[2, 2, 2],
    &[(0, &[0, 1]), (1, &[1, 2]), (2, &[2, 0])],
    &[0, 1, 2],
);
triangles!(TrianglesCount, Count);
triangles!(TrianglesMinPlus, MinPlus);
triangles!(TrianglesBool, Bool);

under_test!(TrianglesGraph, [Count], [], {
    relation E(src: u32, dst: u32);
    Q(a, b, c) = E(a, b) * E(b, c) * E(c, a);
}, 0 => update_e [0 1]; head [0 1 2]);
const TRIANGLES_GRAPH: Shape = (
    &[2],
    &[(0, &[0, 1]), (0, &[1, 2]), (0, &[2, 0])],
    &[0, 1, 2],
);

under_test!(FourCycle, [MinPlus], [], {
    relation R(a: u32, b: u32);
    relation S(b: u32, c: u32);
    relation T(c: u32, d: u32);
    relation U(d: u32, a: u32);
    Q(a, b, c, d) = R(a, b) * S(b, c) * T(c, d) * U(d, a);
}, 0 => update_r [0 1], 1 => update_s [0 1], 2 => update_t [0 1], 3 => update_u [0 1]; head [0 1 2 3]);
const FOUR_CYCLE: Shape = (
    &[2, 2, 2, 2],
    &[(0, &[0, 1]), (1, &[1, 2]), (2, &[2, 3]), (3, &[3, 0])],
    &[0, 1, 2, 3],
);

// Summed-out variables below a cyclic top join.
under_test!(TrianglesWithTails, [Count], [], {
    relation R(a: u32, b: u32, x: u32);
    relation S(b: u32, c: u32);
    relation T(c: u32, a: u32, y: u32);
    Q(a, b, c) = R(a, b, x) * S(b, c) * T(c, a, y);
}, 0 => update_r [0 1 2], 1 => update_s [0 1], 2 => update_t [0 1 2]; head [0 1 2]);
const TRIANGLES_WITH_TAILS: Shape = (
    &[3, 2, 3],
    &[(0, &[0, 1, 3]), (1, &[1, 2]), (2, &[2, 0, 4])],
    &[0, 1, 2],
);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test] fn triangles_count(ops in ops(TRIANGLES.0)) { check::<TrianglesCount>(TRIANGLES, &ops)?; }
    #[test] fn triangles_min_plus(ops in ops(TRIANGLES.0)) { check::<TrianglesMinPlus>(TRIANGLES, &ops)?; }
    #[test] fn triangles_bool(ops in ops(TRIANGLES.0)) { check::<TrianglesBool>(TRIANGLES, &ops)?; }
    #[test] fn triangles_graph(ops in ops(TRIANGLES_GRAPH.0)) { check::<TrianglesGraph>(TRIANGLES_GRAPH, &ops)?; }
    #[test] fn four_cycle(ops in ops(FOUR_CYCLE.0)) { check::<FourCycle>(FOUR_CYCLE, &ops)?; }
    #[test] fn triangles_with_tails(ops in ops(TRIANGLES_WITH_TAILS.0)) { check::<TrianglesWithTails>(TRIANGLES_WITH_TAILS, &ops)?; }

    #[test] fn hier_max_max(ops in ops(HIER.0)) { check::<HierMaxMax>(HIER, &ops)?; }
    #[test] fn grouped_core_max_max(ops in ops(GROUPED_CORE.0)) { check::<GroupedCoreMaxMax>(GROUPED_CORE, &ops)?; }
    #[test] fn path_max_max(ops in ops(PATH3.0)) { check::<PathMaxMax>(PATH3, &ops)?; }
    #[test] fn cluster_and_output_max_max(ops in ops(CLUSTER_AND_OUTPUT.0)) { check::<ClusterAndOutputMaxMax>(CLUSTER_AND_OUTPUT, &ops)?; }

    #[test] fn branch_count(ops in ops(BRANCH.0)) { check::<BranchCount>(BRANCH, &ops)?; }
    #[test] fn branch_min_plus(ops in ops(BRANCH.0)) { check::<BranchMinPlus>(BRANCH, &ops)?; }
    #[test] fn branch_max_plus(ops in ops(BRANCH.0)) { check::<BranchMaxPlus>(BRANCH, &ops)?; }
    #[test] fn branch_bool(ops in ops(BRANCH.0)) { check::<BranchBool>(BRANCH, &ops)?; }
    #[test] fn branch_access(ops in ops(BRANCH.0)) { check::<BranchAccess>(BRANCH, &ops)?; }
    #[test] fn branch_max_max(ops in ops(BRANCH.0)) { check::<BranchMaxMax>(BRANCH, &ops)?; }
    #[test] fn branch_max_min(ops in ops(BRANCH.0)) { check::<BranchMaxMin>(BRANCH, &ops)?; }
    #[test] fn branch_graph_count(ops in ops(BRANCH_GRAPH.0)) { check::<BranchGraphCount>(BRANCH_GRAPH, &ops)?; }
    #[test] fn branch_graph_min_plus(ops in ops(BRANCH_GRAPH.0)) { check::<BranchGraphMinPlus>(BRANCH_GRAPH, &ops)?; }
    #[test] fn path_count(ops in ops(PATH.0)) { check::<PathCount>(PATH, &ops)?; }
    #[test] fn path_min_plus(ops in ops(PATH.0)) { check::<PathMinPlus>(PATH, &ops)?; }
    #[test] fn path_bool(ops in ops(PATH.0)) { check::<PathBool>(PATH, &ops)?; }
    #[test] fn nested_count(ops in ops(NESTED.0)) { check::<NestedCount>(NESTED, &ops)?; }
    #[test] fn nested_min_plus(ops in ops(NESTED.0)) { check::<NestedMinPlus>(NESTED, &ops)?; }
    #[test] fn forced_full(ops in ops(FULL.0)) { check::<ForcedFull>(FULL, &ops)?; }
    #[test] fn forced_product(ops in ops(PRODUCT.0)) { check::<ForcedProduct>(PRODUCT, &ops)?; }
    #[test] fn grouped_tree_count(ops in ops(GROUPED_TREE.0)) { check::<GroupedTreeCount>(GROUPED_TREE, &ops)?; }
    #[test] fn grouped_tree_min_plus(ops in ops(GROUPED_TREE.0)) { check::<GroupedTreeMinPlus>(GROUPED_TREE, &ops)?; }
    #[test] fn grouped_tree_bool(ops in ops(GROUPED_TREE.0)) { check::<GroupedTreeBool>(GROUPED_TREE, &ops)?; }
    #[test] fn q_core_bool(ops in ops(Q_CORE.0)) { check::<QCoreBool>(Q_CORE, &ops)?; }
    #[test] fn q_core_access(ops in ops(Q_CORE.0)) { check::<QCoreAccess>(Q_CORE, &ops)?; }
    #[test] fn chain_bool(ops in ops(CHAIN.0)) { check::<ChainBool>(CHAIN, &ops)?; }
    #[test] fn chain_access(ops in ops(CHAIN.0)) { check::<ChainAccess>(CHAIN, &ops)?; }
    #[test] fn reach2_bool(ops in ops(REACH2.0)) { check::<Reach2Bool>(REACH2, &ops)?; }
    #[test] fn reach2_access(ops in ops(REACH2.0)) { check::<Reach2Access>(REACH2, &ops)?; }
    #[test] fn reach3_bool(ops in ops(REACH3.0)) { check::<Reach3Bool>(REACH3, &ops)?; }
    #[test] fn reach3_access(ops in ops(REACH3.0)) { check::<Reach3Access>(REACH3, &ops)?; }
    #[test] fn any_path_bool(ops in ops(ANY_PATH.0)) { check::<AnyPathBool>(ANY_PATH, &ops)?; }
}
