//! Restoring a snapshot against rebuilding the same state with
//! `bulk_load`, side by side, for a view tree (`RevenueByStore`), a
//! general view tree (`PathCount`), IVMε (`Triangles`) and CROWN under
//! inserts only (`LatestFlaggedLogin`), each holding N tuples in all.
//!
//! Per query and N: the median over rounds of the time `bulk_load` takes
//! from the tuples in memory, of `snapshot` into a `Vec<u8>` and of
//! `restore` from it, the snapshot's size, and the ratio bulk_load ÷
//! restore (the median of the per-round ratios). Every restored state is
//! checked to answer as the original.
//!
//! Run with `cargo bench -p ivm-generated-examples --bench snapshot`
//! (`-- 100000` for one size).

use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::{Int, MaxMax};
use ivm_generated_examples::append_only::LatestFlaggedLogin;
use ivm_generated_examples::graph::Triangles;
use ivm_generated_examples::higher_order::PathCount;
use ivm_generated_examples::retail::RevenueByStore;

mod common;
use common::Rng;

const ROUNDS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `load`, `snapshot` and `restore` in alternating rounds and prints
/// one row.
fn measure<Q>(name: &str, n: usize, load: impl Fn() -> Q, same: impl Fn(&Q, &Q) -> bool)
where
    Q: ivm::snapshot::Snapshot,
{
    let (mut loads, mut saves, mut restores, mut ratios) = (vec![], vec![], vec![], vec![]);
    let mut size = 0;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let q = load();
        let load_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let mut bytes = Vec::new();
        q.snapshot(&mut bytes).expect("a snapshot");
        let save_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let back = Q::restore(&bytes[..]).expect("a restore");
        let restore_s = start.elapsed().as_secs_f64();
        assert!(
            same(&q, &back),
            "{name}: the restored state answers as the original"
        );
        size = bytes.len();
        black_box((q, back));
        loads.push(load_s);
        saves.push(save_s);
        restores.push(restore_s);
        ratios.push(load_s / restore_s);
    }
    println!(
        "{name:<20} {n:>9} {:>12.1} {:>12.1} {:>12.1} {:>10.1} {:>8.1}x",
        median(loads) * 1e3,
        median(saves) * 1e3,
        median(restores) * 1e3,
        size as f64 / (1 << 20) as f64,
        median(ratios),
    );
}

fn sorted<K: Ord, P: PartialEq>(it: impl Iterator<Item = (K, P)>) -> Vec<(K, P)> {
    let mut v: Vec<_> = it.collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100_000, 1_000_000]
    } else {
        sizes
    };
    println!(
        "{:<20} {:>9} {:>12} {:>12} {:>12} {:>10} {:>9}",
        "query", "N", "bulk_load ms", "snapshot ms", "restore ms", "MiB", "ratio"
    );
    for &n in &sizes {
        let mut rng = Rng(0x5eed ^ n as u64);
        // Half sales, half prices, over N/20 stores.
        let stores = (n / 20).max(1) as u64;
        let sales: Vec<((u32, u64), Int)> = (0..n / 2)
            .map(|i| {
                (
                    ((rng.next() % stores) as u32, i as u64),
                    Int(1 + (rng.next() % 5) as i64),
                )
            })
            .collect();
        let prices: Vec<((u32, u64), Int)> = sales
            .iter()
            .map(|&((s, i), _)| ((s, i), Int(100 + (rng.next() % 900) as i64)))
            .collect();
        measure(
            "RevenueByStore",
            n,
            || RevenueByStore::bulk_load(sales.iter().cloned(), prices.iter().cloned()),
            |a, b| sorted(a.iter()) == sorted(b.iter()),
        );

        // A third of the tuples per relation, keys drawn from N/10 values.
        let keys = (n / 10).max(1) as u64;
        let mut pairs = |count: usize| -> Vec<((u32, u32), Int)> {
            (0..count)
                .map(|_| {
                    (
                        ((rng.next() % keys) as u32, (rng.next() % keys) as u32),
                        Int(1),
                    )
                })
                .collect()
        };
        let (r, s, t) = (pairs(n / 3), pairs(n / 3), pairs(n / 3));
        measure(
            "PathCount",
            n,
            || PathCount::bulk_load(r.iter().cloned(), s.iter().cloned(), t.iter().cloned()),
            |a, b| a.get(&()) == b.get(&()),
        );

        // N edges over N/8 vertices (average degree 16).
        let vertices = (n / 8).max(1) as u64;
        let mut seen = std::collections::HashSet::new();
        let edges: Vec<((u32, u32), Int)> = std::iter::from_fn(|| {
            Some((
                (rng.next() % vertices) as u32,
                (rng.next() % vertices) as u32,
            ))
        })
        .filter(|&(a, b)| a != b && seen.insert((a, b)))
        .take(n)
        .map(|e| (e, Int(1)))
        .collect();
        measure(
            "Triangles",
            n,
            || Triangles::bulk_load(edges.iter().cloned()),
            |a, b| a.get(&()) == b.get(&()),
        );

        // Logins, flagged users and devices over 1 000 regions, with times.
        let regions = 1000;
        let logins: Vec<((u32, u64, u64), MaxMax)> = (0..n / 2)
            .map(|i| {
                let r = (rng.next() % regions) as u32;
                ((r, rng.next() % keys, rng.next() % keys), MaxMax(i as i64))
            })
            .collect();
        let users: Vec<((u32, u64), MaxMax)> = (0..n / 4)
            .map(|i| {
                (
                    ((rng.next() % regions) as u32, rng.next() % keys),
                    MaxMax(i as i64),
                )
            })
            .collect();
        let devices: Vec<((u32, u64), MaxMax)> = (0..n / 4)
            .map(|i| {
                (
                    ((rng.next() % regions) as u32, rng.next() % keys),
                    MaxMax(i as i64),
                )
            })
            .collect();
        measure(
            "LatestFlaggedLogin",
            n,
            || {
                LatestFlaggedLogin::bulk_load(
                    logins.iter().cloned(),
                    users.iter().cloned(),
                    devices.iter().cloned(),
                )
            },
            |a, b| sorted(a.iter()) == sorted(b.iter()),
        );
    }
}
