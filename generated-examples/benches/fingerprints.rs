//! The check of a delete on its own: `ivm::__private::Fingerprints`, the
//! map a relation nothing reads back keeps (docs/design.md#how-a-delete-is-checked),
//! over a stream shaped like the TPC-H benchmark's: N rows of
//! `LINEITEM`'s shape inserted, every third deleted, then inserted again.
//! Criterion reports rows per second over the stream; at 6·10^5 rows
//! (scale factor 0.1) the map outgrows the caches. Run with
//! `cargo bench -p ivm-generated-examples --bench fingerprints`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ivm::__private::Fingerprints;
use ivm::semiring::Int;

mod common;
use common::Rng;

/// A row with `LINEITEM`'s kinds of columns: numbers, and short strings.
type Line = (
    i64,
    i64,
    i64,
    i32,
    i64,
    i64,
    &'static str,
    &'static str,
    i32,
    &'static str,
);

/// N distinct rows, in a seeded order.
fn lines(n: usize) -> Vec<Line> {
    const MODES: [&str; 4] = ["AIR", "MAIL", "SHIP", "TRUCK"];
    const FLAGS: [&str; 3] = ["A", "N", "R"];
    let mut rng = Rng(0x2016);
    (0..n as i64)
        .map(|i| {
            let r = rng.next();
            (
                i / 4,
                (r % 20_000) as i64,
                (r % 1_000) as i64,
                (i % 4) as i32 + 1,
                (r % 5_000) as i64,
                (r % 10_000_000) as i64,
                FLAGS[(r % 3) as usize],
                MODES[(r % 4) as usize],
                (r % 2_500) as i32,
                "DELIVER IN PERSON",
            )
        })
        .collect()
}

/// The stream: every row inserted, every third deleted, and inserted again.
fn stream(fingerprints: &mut Fingerprints<Int>, rows: &[Line]) {
    let one = Int(1);
    for row in rows {
        fingerprints.add_delta(row, &one);
    }
    for row in rows.iter().step_by(3) {
        fingerprints
            .retract_delta(row, &one, "lineitem")
            .expect("each deleted row is present");
    }
    for row in rows.iter().step_by(3) {
        fingerprints.add_delta(row, &one);
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fingerprints");
    group.sample_size(10);
    for n in [60_000, 600_000] {
        let rows = lines(n);
        group.throughput(Throughput::Elements((n + 2 * n.div_ceil(3)) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &rows, |b, rows| {
            b.iter(|| {
                let mut fingerprints = Fingerprints::new();
                stream(&mut fingerprints, rows);
                black_box(fingerprints.len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
