//! Criterion view of the insert-only strategies: the amortized cost of an
//! insert, measured as the time to insert a whole pre-generated stream of N
//! tuples into a fresh engine (criterion reports it as inserts per second).
//! Under inserts only the database grows with every insert, so a stream is
//! the natural unit: a per-insert measurement at a fixed N does not exist.
//!
//! The two-layer structure (`CheapestConnection`, `MinPlus`) and CROWN
//! (`ExposedAccounts`, `Bool`) run beside the first-order delta on the same
//! streams, up to the size where first-order stays within a few seconds.
//! The plain-timing `insert_only` benchmark has the full picture (medians,
//! slopes, enumeration). Run with
//! `cargo bench -p ivm-generated-examples --bench insert_only_criterion`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ivm::semiring::MinPlus;
use ivm_generated_examples::append_only::{CheapestConnection, ExposedAccounts};

mod common;
use common::Rng;

ivm::ivm_query! {
    #[semiring(ivm::semiring::MinPlus)]
    #[updates(insert_only)]
    #[strategy(first_order)]
    query ConnectionFirstOrder {
        relation Feeder(origin: u32, feeder: u32);
        relation Route(origin: u32, hub: u32);
        relation Onward(hub: u32, onward: u32);
        Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward);
    }
}

ivm::ivm_query! {
    #[semiring(ivm::semiring::Bool)]
    #[updates(insert_only)]
    #[strategy(first_order)]
    query ExposedFirstOrder {
        relation Logins(account: u64, device: u64);
        relation Flagged(device: u64);
        Q(account) = Logins(account, device) * Flagged(device);
    }
}

/// N flights (0 feeder, 1 route, 2 onward) over N/20 airports, 8 of them
/// hubs that take a quarter of the routes and onward flights.
fn flights(n: usize) -> Vec<(u8, u32, u32, i64)> {
    let airports = (n as u64 / 20).max(64);
    let mut rng = Rng(0xf1 ^ n as u64);
    let uniform = |rng: &mut Rng| (rng.next() % airports) as u32;
    let hub = |rng: &mut Rng| {
        if rng.next().is_multiple_of(4) {
            (rng.next() % 8) as u32
        } else {
            (8 + rng.next() % (airports - 8)) as u32
        }
    };
    (0..n)
        .map(|_| {
            let kind = (rng.next() % 3) as u8;
            let (a, b) = match kind {
                0 => (uniform(&mut rng), uniform(&mut rng)),
                1 => (uniform(&mut rng), hub(&mut rng)),
                _ => (hub(&mut rng), uniform(&mut rng)),
            };
            (kind, a, b, 50 + (rng.next() % 450) as i64)
        })
        .collect()
}

/// N events: 90% logins of N/4 accounts, 10% flags; 16 shared devices take
/// a quarter of both.
fn events(n: usize) -> Vec<(bool, u64, u64)> {
    let devices = (n as u64 / 2).max(16);
    let accounts = (n as u64 / 4).max(16);
    let mut rng = Rng(0xe5 ^ n as u64);
    (0..n)
        .map(|_| {
            let device = if rng.next().is_multiple_of(4) {
                rng.next() % 16
            } else {
                rng.next() % devices
            };
            let flag = rng.next().is_multiple_of(10);
            (flag, rng.next() % accounts, device)
        })
        .collect()
}

macro_rules! load_flights {
    ($ty:ident, $stream:expr) => {{
        let mut e = $ty::new();
        for &(kind, a, b, price) in $stream {
            match kind {
                0 => e.update_feeder(a, b, MinPlus(price)),
                1 => e.update_route(a, b, MinPlus(price)),
                _ => e.update_onward(a, b, MinPlus(price)),
            }
        }
        black_box(e.is_empty())
    }};
}

macro_rules! load_events {
    ($ty:ident, $stream:expr) => {{
        let mut e = $ty::new();
        for &(flag, account, device) in $stream {
            if flag {
                e.insert_flagged(device);
            } else {
                e.insert_logins(account, device);
            }
        }
        black_box(e.is_empty())
    }};
}

fn two_layer(c: &mut Criterion) {
    let mut group = c.benchmark_group("cheapest_connection_stream");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let stream = flights(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("two_layer", n), |b| {
            b.iter(|| load_flights!(CheapestConnection, &stream))
        });
        if n <= 100_000 {
            group.bench_function(BenchmarkId::new("first_order", n), |b| {
                b.iter(|| load_flights!(ConnectionFirstOrder, &stream))
            });
        }
    }
    group.finish();
}

fn crown(c: &mut Criterion) {
    let mut group = c.benchmark_group("exposed_accounts_stream");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let stream = events(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("crown", n), |b| {
            b.iter(|| load_events!(ExposedAccounts, &stream))
        });
        group.bench_function(BenchmarkId::new("first_order", n), |b| {
            b.iter(|| load_events!(ExposedFirstOrder, &stream))
        });
    }
    group.finish();
}

criterion_group!(benches, two_layer, crown);
criterion_main!(benches);
