//! Criterion's view of the triangle count on the graph with hubs (see
//! `common/graphs.rs`): the time of one delete + insert pair (a live edge
//! deleted and inserted again, the fresh count read after each) on a
//! graph of N edges built beforehand, for IVMε at ε = 1/2, the
//! first-order delta and factorized IVM. The pairs walk the edges in a
//! shuffled order, so the graph, and N, are the same after every pair.
//! Factorized runs at N = 10^4 only: at 10^5 its build alone takes minutes
//! and gigabytes (its view holds the 2-paths through the hubs).
//!
//! Run with `cargo bench -p ivm-generated-examples --bench triangles_criterion`
//! (10 samples of 2 s per cell); the plain binary `--bench triangles`
//! gives the full comparison.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

mod common;
use common::Rng;
use common::graphs::{Workload, stream};

#[path = "common/triangle_engines.rs"]
mod engines;
use engines::{Engine, Eps50, Factorized, FirstOrder};

/// Builds the graph, then measures delete + insert pairs over the edges
/// in `order`, cyclically.
fn pairs<E: Engine>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    n: usize,
    edges: &[(u32, u32)],
    order: &[(u32, u32)],
) {
    let mut engine = E::make();
    for &(a, b) in edges {
        engine.insert(a, b);
    }
    let before = engine.count();
    let mut at = 0;
    group.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let (a, b) = order[at];
                at = (at + 1) % order.len();
                engine.delete(a, b);
                black_box(engine.count());
                engine.insert(a, b);
                black_box(engine.count());
            }
            start.elapsed()
        });
    });
    assert_eq!(engine.count(), before, "{name}: the graph changed");
}

fn hubs(c: &mut Criterion) {
    let mut group = c.benchmark_group("triangles_hubs_delete_insert");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [10_000usize, 100_000] {
        let edges = stream(Workload::Hubs, n, 0).build;
        let mut order = edges.clone();
        let mut rng = Rng(0x0dd5 ^ n as u64);
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        pairs::<Eps50>(&mut group, "ivm_eps_0.5", n, &edges, &order);
        pairs::<FirstOrder>(&mut group, "first_order", n, &edges, &order);
        if n <= 10_000 {
            pairs::<Factorized>(&mut group, "factorized", n, &edges, &order);
        }
    }
    group.finish();
}

criterion_group!(benches, hubs);
criterion_main!(benches);
