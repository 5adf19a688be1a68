//! Updates per second of generated view trees as the database grows,
//! beside a hand-written hash-map implementation of the same query (the
//! floor the generated code must match) and recomputation from scratch.
//!
//! Each measured operation keeps the number of live tuples N constant: it
//! retracts one live contribution and adds a fresh one, so the per-update
//! cost is measured at a fixed N. Run with
//! `cargo bench -p ivm-generated-examples --bench view_tree`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ivm::semiring::{Int, MinPlus};
use ivm_generated_examples::retail::{CheapestOffer, RevenueByStore};

mod common;
use common::{
    HandCheapest, HandRevenue, OfferWorkload, RecomputeRevenue, offer_workload, workload,
};

fn revenue(c: &mut Criterion) {
    let mut group = c.benchmark_group("revenue_by_store");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let w = workload(n);

        // Generated code.
        let mut generated = RevenueByStore::new();
        for &(s, i, p) in &w.prices {
            generated.update_prices(s, i, Int(p));
        }
        let mut live = std::collections::VecDeque::new();
        for &(s, i) in &w.initial_sales {
            generated.insert_sales(s, i);
            live.push_back((s, i));
        }
        group.bench_function(BenchmarkId::new("generated", n), |b| {
            let mut at = 0;
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    // One sale returned, one new sale: N stays constant.
                    let (s, i) = live.pop_front().expect("live sales");
                    generated.delete_sales(s, i).expect("live");
                    let (s, i) = w.stream[at % w.stream.len()];
                    at += 1;
                    generated.insert_sales(s, i);
                    live.push_back((s, i));
                }
                black_box(generated.get(&(0,)));
                start.elapsed() / 2
            });
        });

        // Hand-written code on the same stream.
        let mut hand = HandRevenue::default();
        for &(s, i, p) in &w.prices {
            hand.update_prices(s, i, p);
        }
        let mut live = std::collections::VecDeque::new();
        for &(s, i) in &w.initial_sales {
            hand.update_sales(s, i, 1);
            live.push_back((s, i));
        }
        group.bench_function(BenchmarkId::new("hand_written", n), |b| {
            let mut at = 0;
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    let (s, i) = live.pop_front().expect("live sales");
                    hand.update_sales(s, i, -1);
                    let (s, i) = w.stream[at % w.stream.len()];
                    at += 1;
                    hand.update_sales(s, i, 1);
                    live.push_back((s, i));
                }
                black_box(hand.get(0));
                start.elapsed() / 2
            });
        });

        // Recomputation, at the sizes where it finishes in time.
        if n <= 100_000 {
            let mut recompute = RecomputeRevenue::default();
            for &(s, i, p) in &w.prices {
                recompute.prices.insert((s, i), p);
            }
            for &(s, i) in &w.initial_sales {
                *recompute.sales.entry((s, i)).or_default() += 1;
            }
            let mut live: std::collections::VecDeque<(u32, u64)> =
                w.initial_sales.iter().copied().collect();
            group.bench_function(BenchmarkId::new("recompute", n), |b| {
                let mut at = 0;
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        let (s, i) = live.pop_front().expect("live sales");
                        recompute.update_sales(s, i, -1);
                        let (s, i) = w.stream[at % w.stream.len()];
                        at += 1;
                        recompute.update_sales(s, i, 1);
                        live.push_back((s, i));
                    }
                    black_box(recompute.revenue.len());
                    start.elapsed() / 2
                });
            });
        }
    }
    group.finish();
}

fn cheapest(c: &mut Criterion) {
    let mut group = c.benchmark_group("cheapest_offer");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let OfferWorkload { pairs, stream } = offer_workload(n);
        let mut generated = CheapestOffer::new();
        let mut hand = HandCheapest::default();
        let mut live = std::collections::VecDeque::new();
        for (k, &(p, s)) in pairs.iter().enumerate() {
            generated.update_shipping(p, s, MinPlus(5));
            hand.insert_shipping(p, s, 5);
            let v = (k % 1000) as i64;
            generated.update_offers(p, s, MinPlus(v));
            hand.change_offer(p, s, v, true);
            live.push_back((p, s, v));
        }
        let mut live_hand = live.clone();
        group.bench_function(BenchmarkId::new("generated", n), |b| {
            let mut at = 0;
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    let (p, s, v) = live.pop_front().expect("live offers");
                    generated.retract_offers(p, s, MinPlus(v)).expect("live");
                    let (k, v) = stream[at % stream.len()];
                    at += 1;
                    let (p, s) = pairs[k];
                    generated.update_offers(p, s, MinPlus(v));
                    live.push_back((p, s, v));
                }
                black_box(generated.get(&(0,)));
                start.elapsed() / 2
            });
        });
        group.bench_function(BenchmarkId::new("hand_written", n), |b| {
            let mut at = 0;
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    let (p, s, v) = live_hand.pop_front().expect("live offers");
                    hand.change_offer(p, s, v, false);
                    let (k, v) = stream[at % stream.len()];
                    at += 1;
                    let (p, s) = pairs[k];
                    hand.change_offer(p, s, v, true);
                    live_hand.push_back((p, s, v));
                }
                black_box(hand.get(0));
                start.elapsed() / 2
            });
        });
    }
    group.finish();
}

criterion_group!(benches, revenue, cheapest);
criterion_main!(benches);
