//! A sharded run is exact: each change goes where its query's partition
//! plan routes it (`ivm::Routed`), among several workers each holding one
//! instance of the generated struct, and the ⊕ of the workers' results per
//! output tuple equals the result of one struct fed the whole stream.
//! Over several semirings (a sum, a minimum, the covariance ring, a
//! count), with deletes, a replicated relation, self-joins, and a query
//! that runs on one worker.

use std::collections::BTreeMap;
use std::fmt::Debug;

use ivm::semiring::{Covariance, Int, MinPlus};
use ivm::{Retract, Route, Routed, Semiring, View};
use ivm_generated_examples::append_only::CheapestConnection;
use ivm_generated_examples::graph::{Triangles, Wedges};
use ivm_generated_examples::retail::{
    CheapestOffer, HouseStatistics, OpenStock, RevenueByStore, TotalRevenue,
};

/// A small deterministic generator (xorshift), so that failures repeat.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// The result as a map, zeros left out.
fn result<Q: View>(q: &Q) -> BTreeMap<Q::Key, Q::Payload>
where
    Q::Key: Ord,
{
    q.iter().filter(|(_, p)| !p.is_zero()).collect()
}

/// Checks that the ⊕ of the shards' results, per output tuple, is `one`'s
/// result; returns how many shards hold part of it.
fn compare<Q: View>(one: &Q, shards: &[Q]) -> usize
where
    Q::Key: Ord + Clone + Debug,
    Q::Payload: Debug,
{
    let mut combined: BTreeMap<Q::Key, Q::Payload> = BTreeMap::new();
    for shard in shards {
        for (key, payload) in shard.iter() {
            let sum = combined.entry(key).or_insert_with(Q::Payload::zero);
            *sum = sum.add(&payload);
        }
    }
    combined.retain(|_, p| !p.is_zero());
    assert_eq!(combined, result(one));
    shards.iter().filter(|s| !result(*s).is_empty()).count()
}

/// Feeds `changes` (each an insert, or with `true` a retraction) to one
/// struct and to `workers` structs by route, and compares the results.
/// Returns how many workers hold part of the result.
fn check<Q>(workers: usize, changes: Vec<(Q::Change, bool)>) -> usize
where
    Q: Routed + Retract,
    Q::Change: Clone,
    Q::Key: Ord + Clone + Debug,
    Q::Payload: Debug,
{
    let mut one = Q::default();
    let mut shards: Vec<Q> = (0..workers).map(|_| Q::default()).collect();
    for (change, retract) in changes {
        let targets: Vec<usize> = match Q::route(&change).worker(workers) {
            Some(w) => vec![w],
            None => (0..workers).collect(),
        };
        if retract {
            let whole = one.retract(change.clone()).is_ok();
            for &w in &targets {
                // The owner refuses exactly what the whole refuses.
                assert_eq!(shards[w].retract(change.clone()).is_ok(), whole);
            }
        } else {
            one.apply([change.clone()]);
            for &w in &targets {
                shards[w].apply([change.clone()]);
            }
        }
    }
    compare(&one, &shards)
}

/// [`check`] for a query under inserts only (no retractions in
/// `changes`).
fn check_inserts<Q>(workers: usize, changes: Vec<Q::Change>) -> usize
where
    Q: Routed,
    Q::Change: Clone,
    Q::Key: Ord + Clone + Debug,
    Q::Payload: Debug,
{
    let mut one = Q::default();
    let mut shards: Vec<Q> = (0..workers).map(|_| Q::default()).collect();
    for change in changes {
        match Q::route(&change).worker(workers) {
            Some(w) => shards[w].apply([change.clone()]),
            None => shards.iter_mut().for_each(|s| s.apply([change.clone()])),
        }
        one.apply([change]);
    }
    compare(&one, &shards)
}

/// `n` changes drawn by `draw`, a fifth of them retractions of an earlier
/// change.
fn stream<C: Clone>(n: usize, mut draw: impl FnMut(&mut Rng) -> C) -> Vec<(C, bool)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut done: Vec<C> = Vec::new();
    (0..n)
        .map(|_| {
            if !done.is_empty() && rng.below(5) == 0 {
                let at = rng.below(done.len() as u64) as usize;
                (done.swap_remove(at), true)
            } else {
                let c = draw(&mut rng);
                done.push(c.clone());
                (c, false)
            }
        })
        .collect()
}

#[test]
fn sums_are_exact_on_three_workers() {
    use ivm_generated_examples::retail::{RevenueByStoreChange as C, TotalRevenueChange as T};
    let draw = |r: &mut Rng| {
        let (store, item, delta) = (r.below(8) as u32, r.below(20), Int(r.below(9) as i64 + 1));
        if r.below(2) == 0 {
            C::Sales { store, item, delta }
        } else {
            C::Prices { store, item, delta }
        }
    };
    assert_eq!(check::<RevenueByStore>(3, stream(2000, draw)), 3);
    let draw = |r: &mut Rng| {
        let (store, item, delta) = (r.below(8) as u32, r.below(20), Int(r.below(9) as i64 + 1));
        if r.below(2) == 0 {
            T::Sales { store, item, delta }
        } else {
            T::Prices { store, item, delta }
        }
    };
    assert_eq!(check::<TotalRevenue>(3, stream(2000, draw)), 3);
}

#[test]
fn minimums_and_the_covariance_ring_are_exact() {
    use ivm_generated_examples::retail::{CheapestOfferChange as C, HouseStatisticsChange as H};
    let draw = |r: &mut Rng| {
        let (product, seller, cost) = (r.below(10), r.below(6) as u32, MinPlus(r.below(50) as i64));
        if r.below(2) == 0 {
            C::Offers {
                product,
                seller,
                delta: cost,
            }
        } else {
            C::Shipping {
                product,
                seller,
                delta: cost,
            }
        }
    };
    assert_eq!(check::<CheapestOffer>(4, stream(2000, draw)), 4);
    let draw = |r: &mut Rng| {
        let (region, house) = (r.below(5) as u32, r.below(30));
        let features = Covariance::<2>::lift([r.below(7) as f64, r.below(3) as f64]);
        if r.below(2) == 0 {
            H::Listings {
                region,
                house,
                delta: features,
            }
        } else {
            H::Active {
                region,
                house,
                delta: Covariance::one(),
            }
        }
    };
    assert_eq!(check::<HouseStatistics>(2, stream(1000, draw)), 2);
}

#[test]
fn self_joins_and_one_worker_queries_are_exact() {
    use ivm_generated_examples::graph::{TrianglesChange as T, WedgesChange as W};
    let draw = |r: &mut Rng| W::Edge {
        src: r.below(12) as u32,
        dst: r.below(12) as u32,
        delta: Int(1),
    };
    assert_eq!(check::<Wedges>(3, stream(2000, draw)), 3);
    // The triangle count over one edge relation has no key: one worker.
    assert_eq!(
        Triangles::route(&T::Edge {
            src: 1,
            dst: 2,
            delta: Int(1)
        }),
        Route::First
    );
    let draw = |r: &mut Rng| T::Edge {
        src: r.below(9) as u32,
        dst: r.below(9) as u32,
        delta: Int(1),
    };
    assert_eq!(check::<Triangles>(3, stream(1500, draw)), 1);
}

#[test]
fn a_view_of_two_levels_is_exact() {
    use ivm_generated_examples::retail::OpenStockChange as C;
    let draw = |r: &mut Rng| {
        let store = r.below(6) as u32;
        if r.below(4) == 0 {
            C::Open {
                store,
                delta: Int(r.below(3) as i64 + 1),
            }
        } else {
            C::Stock {
                store,
                item: r.below(15),
                delta: Int(1),
            }
        }
    };
    assert_eq!(check::<OpenStock>(3, stream(2000, draw)), 3);
}

#[test]
fn a_replicated_relation_under_inserts_only_is_exact() {
    use ivm_generated_examples::append_only::CheapestConnectionChange as C;
    let onward = C::Onward {
        hub: 1,
        onward: 2,
        delta: MinPlus(3),
    };
    assert_eq!(CheapestConnection::route(&onward), Route::Every);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let changes: Vec<C> = (0..3000)
        .map(|_| {
            let delta = MinPlus(rng.below(40) as i64);
            let (a, b) = (rng.below(8) as u32, rng.below(6) as u32);
            match rng.below(3) {
                0 => C::Feeder {
                    origin: a,
                    feeder: b,
                    delta,
                },
                1 => C::Route {
                    origin: a,
                    hub: b,
                    delta,
                },
                _ => C::Onward {
                    hub: b,
                    onward: a,
                    delta,
                },
            }
        })
        .collect();
    assert_eq!(check_inserts::<CheapestConnection>(3, changes), 3);
}
