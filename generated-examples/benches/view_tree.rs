//! Updates per second of generated view trees as the database grows,
//! beside a hand-written hash-map implementation of the same query (the
//! floor the generated code must match) and recomputation from scratch.
//!
//! Each measured operation keeps the number of live tuples N constant: it
//! retracts one live contribution and adds a fresh one, so the per-update
//! cost is measured at a fixed N. Run with
//! `cargo bench -p ivm-generated-examples --bench view_tree`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ivm::__private::HashMap;
use ivm::semiring::{Int, MinPlus};
use ivm_generated_examples::retail::{CheapestOffer, RevenueByStore};

/// xorshift64*: repeatable streams without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The same query as `RevenueByStore`, written by hand: Σ_item
/// Sales(store, item) · Prices(store, item) per store, with the same maps.
#[derive(Default)]
struct HandRevenue {
    sales: HashMap<(u32, u64), i64>,
    prices: HashMap<(u32, u64), i64>,
    revenue: HashMap<u32, i64>,
}

impl HandRevenue {
    fn update_sales(&mut self, store: u32, item: u64, delta: i64) {
        let s = self.sales.entry((store, item)).or_default();
        *s += delta;
        if *s == 0 {
            self.sales.remove(&(store, item));
        }
        if let Some(p) = self.prices.get(&(store, item)) {
            let r = self.revenue.entry(store).or_default();
            *r += delta * p;
            if *r == 0 {
                self.revenue.remove(&store);
            }
        }
    }

    fn update_prices(&mut self, store: u32, item: u64, delta: i64) {
        let p = self.prices.entry((store, item)).or_default();
        *p += delta;
        if *p == 0 {
            self.prices.remove(&(store, item));
        }
        if let Some(s) = self.sales.get(&(store, item)) {
            let r = self.revenue.entry(store).or_default();
            *r += delta * s;
            if *r == 0 {
                self.revenue.remove(&store);
            }
        }
    }

    fn get(&self, store: u32) -> i64 {
        self.revenue.get(&store).copied().unwrap_or(0)
    }
}

/// Recomputation from scratch: the base maps only, and the query
/// evaluated again after every update.
#[derive(Default)]
struct RecomputeRevenue {
    sales: HashMap<(u32, u64), i64>,
    prices: HashMap<(u32, u64), i64>,
    revenue: HashMap<u32, i64>,
}

impl RecomputeRevenue {
    fn update_sales(&mut self, store: u32, item: u64, delta: i64) {
        *self.sales.entry((store, item)).or_default() += delta;
        self.sales.retain(|_, v| *v != 0);
        self.recompute();
    }

    fn recompute(&mut self) {
        self.revenue.clear();
        for (k, s) in &self.sales {
            if let Some(p) = self.prices.get(k) {
                *self.revenue.entry(k.0).or_default() += s * p;
            }
        }
        self.revenue.retain(|_, v| *v != 0);
    }
}

/// A workload of N live tuples: N/2 prices and N/2 sales over
/// `stores` stores, and a stream of (store, item) pairs to sell.
struct Workload {
    stores: u64,
    items: u64,
    initial_sales: Vec<(u32, u64)>,
    prices: Vec<(u32, u64, i64)>,
    stream: Vec<(u32, u64)>,
}

fn workload(n: usize) -> Workload {
    let mut rng = Rng(42);
    let stores = (n as u64 / 100).max(10);
    let items = 200;
    let mut prices = Vec::with_capacity(n / 2);
    let mut seen = std::collections::HashSet::new();
    while prices.len() < n / 2 {
        let key = ((rng.next() % stores) as u32, rng.next() % items);
        if seen.insert(key) {
            prices.push((key.0, key.1, 100 + (rng.next() % 1000) as i64));
        }
    }
    let pick = |rng: &mut Rng| {
        let (s, i, _) = prices[(rng.next() % prices.len() as u64) as usize];
        (s, i)
    };
    let initial_sales = (0..n / 2).map(|_| pick(&mut rng)).collect();
    let stream = (0..1 << 16).map(|_| pick(&mut rng)).collect();
    Workload {
        stores,
        items,
        initial_sales,
        prices,
        stream,
    }
}

fn revenue(c: &mut Criterion) {
    let mut group = c.benchmark_group("revenue_by_store");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let w = workload(n);
        let _ = (w.stores, w.items);

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

/// The same query as `CheapestOffer`, written by hand: per (product,
/// seller) the multisets of offers and shipping costs, and per product the
/// multiset of offer + shipping over sellers, with the minimum on demand.
#[derive(Default)]
struct HandCheapest {
    offers: HashMap<(u64, u32), BTreeMap<i64, u32>>,
    shipping: HashMap<(u64, u32), BTreeMap<i64, u32>>,
    best: HashMap<u64, BTreeMap<i64, u32>>,
}

fn min(m: Option<&BTreeMap<i64, u32>>) -> Option<i64> {
    m.and_then(|m| m.keys().next().copied())
}

fn add(m: &mut BTreeMap<i64, u32>, v: i64) {
    *m.entry(v).or_default() += 1;
}

fn remove(m: &mut BTreeMap<i64, u32>, v: i64) -> bool {
    match m.get_mut(&v) {
        Some(c) if *c > 1 => {
            *c -= 1;
            true
        }
        Some(_) => {
            m.remove(&v);
            true
        }
        None => false,
    }
}

impl HandCheapest {
    fn change_offer(&mut self, product: u64, seller: u32, v: i64, insert: bool) {
        let key = (product, seller);
        let before = min(self.offers.get(&key));
        let m = self.offers.entry(key).or_default();
        if insert {
            add(m, v);
        } else {
            remove(m, v);
            if m.is_empty() {
                self.offers.remove(&key);
            }
        }
        let after = min(self.offers.get(&key));
        if before == after {
            return;
        }
        let Some(ship) = min(self.shipping.get(&key)) else {
            return;
        };
        let best = self.best.entry(product).or_default();
        if let Some(b) = before {
            remove(best, b + ship);
        }
        if let Some(a) = after {
            add(best, a + ship);
        }
        if best.is_empty() {
            self.best.remove(&product);
        }
    }

    fn insert_shipping(&mut self, product: u64, seller: u32, v: i64) {
        let key = (product, seller);
        let before = min(self.shipping.get(&key));
        add(self.shipping.entry(key).or_default(), v);
        let after = min(self.shipping.get(&key));
        if before == after {
            return;
        }
        let Some(offer) = min(self.offers.get(&key)) else {
            return;
        };
        let best = self.best.entry(product).or_default();
        if let Some(b) = before {
            remove(best, offer + b);
        }
        if let Some(a) = after {
            add(best, offer + a);
        }
    }

    fn get(&self, product: u64) -> Option<i64> {
        min(self.best.get(&product))
    }
}

fn cheapest(c: &mut Criterion) {
    let mut group = c.benchmark_group("cheapest_offer");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let mut rng = Rng(7);
        let products = (n as u64 / 20).max(10);
        let sellers = 50;
        // N/2 shipping entries and N/2 live offers over the same pairs.
        let pairs: Vec<(u64, u32)> = (0..n / 2)
            .map(|_| (rng.next() % products, (rng.next() % sellers) as u32))
            .collect();
        let stream: Vec<(usize, i64)> = (0..1 << 16)
            .map(|_| {
                (
                    (rng.next() % pairs.len() as u64) as usize,
                    (rng.next() % 1000) as i64,
                )
            })
            .collect();

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
