//! What the benchmarks share: a seeded generator, the workloads, and the
//! hand-written and recompute baselines of the example queries.

#![allow(dead_code, reason = "each benchmark uses a part")]

use std::collections::BTreeMap;

use ivm::__private::HashMap;

pub mod graphs;

/// xorshift64*: repeatable streams without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The same query as `RevenueByStore`, written by hand: Σ_item
/// Sales(store, item) · Prices(store, item) per store, with the same maps.
#[derive(Default)]
pub struct HandRevenue {
    sales: HashMap<(u32, u64), i64>,
    prices: HashMap<(u32, u64), i64>,
    revenue: HashMap<u32, i64>,
}

impl HandRevenue {
    pub fn update_sales(&mut self, store: u32, item: u64, delta: i64) {
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

    pub fn update_prices(&mut self, store: u32, item: u64, delta: i64) {
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

    pub fn get(&self, store: u32) -> i64 {
        self.revenue.get(&store).copied().unwrap_or(0)
    }
}

/// Recomputation from scratch: the base maps only, and the query
/// evaluated again after every update.
#[derive(Default)]
pub struct RecomputeRevenue {
    pub sales: HashMap<(u32, u64), i64>,
    pub prices: HashMap<(u32, u64), i64>,
    pub revenue: HashMap<u32, i64>,
}

impl RecomputeRevenue {
    pub fn update_sales(&mut self, store: u32, item: u64, delta: i64) {
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
pub struct Workload {
    pub initial_sales: Vec<(u32, u64)>,
    pub prices: Vec<(u32, u64, i64)>,
    pub stream: Vec<(u32, u64)>,
}

pub fn workload(n: usize) -> Workload {
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
        initial_sales,
        prices,
        stream,
    }
}

/// The same query as `CheapestOffer`, written by hand: per (product,
/// seller) the multisets of offers and shipping costs, and per product the
/// multiset of offer + shipping over sellers, with the minimum on demand.
#[derive(Default)]
pub struct HandCheapest {
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
    pub fn change_offer(&mut self, product: u64, seller: u32, v: i64, insert: bool) {
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

    pub fn insert_shipping(&mut self, product: u64, seller: u32, v: i64) {
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

    pub fn get(&self, product: u64) -> Option<i64> {
        min(self.best.get(&product))
    }
}

/// The offers workload of `CheapestOffer`: N/2 (product, seller) pairs,
/// each with shipping and one live offer, and a stream of (pair, price)
/// new offers.
pub struct OfferWorkload {
    pub pairs: Vec<(u64, u32)>,
    pub stream: Vec<(usize, i64)>,
}

pub fn offer_workload(n: usize) -> OfferWorkload {
    let mut rng = Rng(7);
    let products = (n as u64 / 20).max(10);
    let pairs: Vec<(u64, u32)> = (0..n / 2)
        .map(|_| (rng.next() % products, (rng.next() % 50) as u32))
        .collect();
    let stream = (0..1 << 16)
        .map(|_| {
            (
                (rng.next() % pairs.len() as u64) as usize,
                (rng.next() % 1000) as i64,
            )
        })
        .collect();
    OfferWorkload { pairs, stream }
}
