//! TPC-H Q1 and Q6 under updates: the cost of one update as the number of
//! order lines N grows, and the cost of a line that a condition keeps out
//! beside one that enters.
//!
//! Each measured operation keeps N constant: it deletes the oldest live
//! line and inserts a fresh one (both are counted: the time reported is
//! per update, half an operation). Lines come from the in-repository
//! generator, `ivm_generated_examples::tpch::data`. Run with
//! `cargo bench -p ivm-generated-examples --bench tpch`.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ivm::__private::HashMap;
use ivm_generated_examples::tpch::data::{Database, Lineitem, Tables};
use ivm_generated_examples::tpch::{ForecastRevenue, PricingSummary};

/// The lines of a database with at least `n` of them plus as many again to
/// stream in.
fn lines(n: usize) -> Vec<Lineitem> {
    // About 4 lines per order, 6 000 000 lines at scale factor 1.
    let scale = (2 * n) as f64 / 5_500_000.0;
    let lines = Database::generate(scale, 11).lineitems;
    assert!(lines.len() >= 2 * n, "{} lines for n = {n}", lines.len());
    lines
}

/// A query loaded with the first `live` lines of `pool`, and the stream
/// of the others.
struct Churn<'a, Q> {
    q: Q,
    pool: &'a [Lineitem],
    /// Indexes into `pool` of the live lines, oldest first.
    live: VecDeque<usize>,
    /// The next line of the stream, cycling over the lines not loaded at
    /// first.
    next: usize,
}

impl<'a, Q: Tables> Churn<'a, Q> {
    fn new(mut q: Q, pool: &'a [Lineitem], live: usize) -> Self {
        for l in &pool[..live] {
            q.insert_lineitem_row(l);
        }
        Churn {
            q,
            pool,
            live: (0..live).collect(),
            next: live,
        }
    }

    /// Per update, for `iters` operations: delete the oldest live line,
    /// insert the next one of the stream. A line comes back only after it
    /// was deleted, so N stays constant.
    fn run(&mut self, iters: u64) -> Duration {
        let start = Instant::now();
        for _ in 0..iters {
            let old = self.live.pop_front().expect("live lines");
            self.q
                .delete_lineitem_row(&self.pool[old])
                .expect("a live line");
            self.q.insert_lineitem_row(&self.pool[self.next]);
            self.live.push_back(self.next);
            self.next += 1;
            if self.next == self.pool.len() {
                self.next = 0;
            }
        }
        black_box(&self.q);
        start.elapsed() / 2
    }
}

/// Q6 written by hand: the floor. It keeps the rows (a delete names a
/// whole row, which must be present) and the sum, as the generated code
/// does, in one hash map with the runtime's hasher.
#[derive(Default)]
struct HandQ6 {
    rows: HashMap<Lineitem, u32>,
    revenue: i64,
}

impl HandQ6 {
    fn term(l: &Lineitem) -> i64 {
        let enters = (19940101..19950101).contains(&l.shipdate)
            && (5..=7).contains(&l.discount)
            && l.quantity < 24;
        if enters {
            l.extendedprice * l.discount
        } else {
            0
        }
    }
}

impl Tables for HandQ6 {
    fn insert_lineitem_row(&mut self, row: &Lineitem) {
        *self.rows.entry(row.clone()).or_insert(0) += 1;
        self.revenue += HandQ6::term(row);
    }

    fn delete_lineitem_row(&mut self, row: &Lineitem) -> ivm::Result<()> {
        let Some(count) = self.rows.get_mut(row) else {
            return Err(ivm::Error::AbsentTuple {
                relation: "Lineitem",
            });
        };
        *count -= 1;
        if *count == 0 {
            self.rows.remove(row);
        }
        self.revenue -= HandQ6::term(row);
        Ok(())
    }
}

fn bench_query<Q: Tables>(c: &mut Criterion, name: &str, new: fn() -> Q) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [10_000usize, 100_000, 1_000_000] {
        let pool = lines(n);
        let mut churn = Churn::new(new(), &pool[..2 * n], n);
        group.bench_function(BenchmarkId::new("update", n), |b| {
            b.iter_custom(|iters| churn.run(iters));
        });
    }
    group.finish();
}

fn q1(c: &mut Criterion) {
    bench_query(c, "tpch_q1", PricingSummary::new);
}

fn q6(c: &mut Criterion) {
    bench_query(c, "tpch_q6", ForecastRevenue::new);
    bench_query(c, "tpch_q6_hand_written", HandQ6::default);
}

/// Q6 at N = 10^5: a stream of lines its condition rejects beside a
/// stream of lines that enter (about 2% of TPC-H's lines do).
fn q6_condition(c: &mut Criterion) {
    let mut group = c.benchmark_group("tpch_q6_condition");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let n = 100_000;
    let all = lines(4 * n);
    let enters = |l: &Lineitem| {
        (19940101..19950101).contains(&l.shipdate)
            && (5..=7).contains(&l.discount)
            && l.quantity < 24
    };
    let (initial, rest) = all.split_at(n);
    for (label, pick) in [("rejected", false), ("enters", true)] {
        // N lines of every kind stay loaded; the churn is among 4 000
        // lines of one kind, half of them live at any time.
        let mut pool: Vec<Lineitem> = rest
            .iter()
            .filter(|l| enters(l) == pick)
            .take(4_000)
            .cloned()
            .collect();
        assert!(pool.len() == 4_000, "{label}: {} lines", pool.len());
        let kind = pool.len();
        pool.extend_from_slice(initial);
        let mut q = ForecastRevenue::new();
        for l in &pool[kind..] {
            q.insert_lineitem_row(l);
        }
        let mut churn = Churn::new(q, &pool[..kind], kind / 2);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| churn.run(iters));
        });
    }
    group.finish();
}

criterion_group!(benches, q1, q6, q6_condition);
criterion_main!(benches);
