//! What `changes()` costs, side by side in one run:
//!
//! - **Per change, as the fan-out grows.** `OpenStock`,
//!   `Q(store, item) = Open(store) * Stock(store, item)`, with one store
//!   stocking F items (and 10^5 other stock rows in other stores): each
//!   operation changes the store's weight (`update_open`), which changes
//!   F output rows, and reads `changes()` to the end. The time per
//!   changed row should not grow with F.
//! - **The same for the insert-only top join.** `CheapestConnection`
//!   (two layers, `MinPlus`), with one origin routed to F hubs (and 10^5
//!   other routes from other origins): each operation adds a cheaper
//!   feeder flight into the origin, which lowers all F of its output rows.
//! - **Nothing for a program that never reads changes.** The same update
//!   stream of `RevenueByStore` on two instances, one whose `changes()`
//!   was never called and one that reads `changes()` after every update,
//!   against the hand-written floor of the `ratio` benchmark. (What the
//!   code costs with tracking off against the code before tracking
//!   existed is counted in instructions with `examples/update_cost.rs`:
//!   see `docs/benchmarks.md`.)
//!
//! Run with `cargo bench -p ivm-generated-examples --bench changes`
//! (`IVM_ONLY=fan_out`, `top_join` or `untouched` runs one section).

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::{Int, MinPlus};
use ivm_generated_examples::append_only::CheapestConnection;
use ivm_generated_examples::retail::{OpenStock, RevenueByStore};

mod common;
use common::{HandRevenue, workload};

const ROUNDS: usize = 15;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One fan-out table: for each F, `setup(F)` builds a query whose every
/// `update(query, round, i)` changes F output rows, and `read(query)`
/// counts what `changes()` yields; medians over the rounds of the update's
/// time, the read's time and the read's time per changed row, with the
/// log-log slope of the last between successive sizes.
fn fan_out_table<Q>(
    title: &str,
    setup: impl Fn(u64) -> Q,
    mut update: impl FnMut(&mut Q, usize, usize),
    read: impl Fn(&mut Q) -> u64,
) {
    println!("{title}");
    println!(
        "{:>8} {:>14} {:>16} {:>14} {:>8}",
        "F", "update ns", "changes() ns", "ns per change", "slope"
    );
    let mut prev: Option<(f64, f64)> = None;
    for f in [10u64, 100, 1_000, 10_000, 100_000] {
        let mut q = setup(f);
        // The first call reports the whole result; tracking starts there.
        black_box(read(&mut q));
        let reps = (200_000 / f).clamp(3, 2_000) as usize;
        let (mut upd, mut reads, mut per) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let (mut tu, mut tc, mut changed) = (0.0, 0.0, 0u64);
            for i in 0..reps {
                let start = Instant::now();
                update(&mut q, round, i);
                tu += start.elapsed().as_secs_f64();
                let start = Instant::now();
                let n = read(&mut q);
                tc += start.elapsed().as_secs_f64();
                assert_eq!(n, f, "every row of the skewed key changed");
                changed += n;
            }
            upd.push(tu * 1e9 / reps as f64);
            reads.push(tc * 1e9 / reps as f64);
            per.push(tc * 1e9 / changed as f64);
        }
        let (u, r, p) = (median(upd), median(reads), median(per));
        let slope = prev.map_or("-".to_owned(), |(pf, pp)| {
            format!("{:.2}", (p / pp).ln() / (f as f64 / pf).ln())
        });
        println!("{f:>8} {u:>14.0} {r:>16.0} {p:>14.1} {slope:>8}");
        prev = Some((f as f64, p));
    }
}

/// Counts the changes a query reports, reading each.
macro_rules! count_changes {
    () => {
        |q: &mut _| {
            q.changes().fold(0u64, |n, change| {
                black_box(change);
                n + 1
            })
        }
    };
}

fn fan_out() {
    fan_out_table(
        "changes() after an update that changes F rows (OpenStock, one store with F items)",
        |f| {
            let mut q = OpenStock::new();
            for i in 0..100_000u64 {
                q.insert_stock(1 + (i % 1000) as u32, i);
            }
            for item in 0..f {
                q.insert_stock(0, item);
            }
            q.insert_open(0);
            q
        },
        |q: &mut OpenStock, round, i| {
            let delta = if (round + i) % 2 == 0 {
                Int(1)
            } else {
                Int(-1)
            };
            q.update_open(0, delta);
        },
        count_changes!(),
    );
}

fn fan_out_top_join() {
    println!();
    // Each feeder is cheaper than every one before: all F rows of the
    // origin get cheaper.
    let mut price = 1_000_000_000i64;
    let mut feeder = 0u32;
    fan_out_table(
        "changes() after an insert that changes F rows (CheapestConnection, one origin with F hubs)",
        |f| {
            let f = f as u32;
            let mut q = CheapestConnection::new();
            for i in 0..100_000u32 {
                let (origin, hub) = (1 + i % 1000, i);
                q.update_feeder(origin, 0, MinPlus(5));
                q.update_route(origin, hub, MinPlus(7));
                q.update_onward(hub, 0, MinPlus(3));
            }
            for hub in 0..f {
                q.update_route(0, 1_000_000 + hub, MinPlus(7));
                q.update_onward(1_000_000 + hub, 0, MinPlus(3));
            }
            q.update_feeder(0, 0, MinPlus(1_000_000_000));
            q
        },
        |q: &mut CheapestConnection, _, _| {
            price -= 1;
            feeder += 1;
            q.update_feeder(0, feeder, MinPlus(price));
        },
        count_changes!(),
    );
}

fn untouched() {
    println!();
    println!(
        "RevenueByStore, 10^5 live tuples, ns per operation (a sale returned and one made), {ROUNDS} rounds"
    );
    let w = workload(100_000);
    let mut quiet = RevenueByStore::new();
    let mut reading = RevenueByStore::new();
    let mut hand = HandRevenue::default();
    for &(s, i, p) in &w.prices {
        quiet.update_prices(s, i, Int(p));
        reading.update_prices(s, i, Int(p));
        hand.update_prices(s, i, p);
    }
    let mut live: Vec<VecDeque<(u32, u64)>> = vec![VecDeque::new(); 3];
    for &(s, i) in &w.initial_sales {
        quiet.insert_sales(s, i);
        reading.insert_sales(s, i);
        hand.update_sales(s, i, 1);
        live.iter_mut().for_each(|l| l.push_back((s, i)));
    }
    black_box(reading.changes().count());
    let stream = &w.stream;
    let per_round = 20_000;
    let (mut tq, mut tr, mut th, mut ratio) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..=ROUNDS {
        let base = round * per_round;
        let start = Instant::now();
        for at in base..base + per_round {
            let (s, i) = live[0].pop_front().expect("live");
            quiet.delete_sales(s, i).expect("live");
            let (s, i) = stream[at % stream.len()];
            quiet.insert_sales(s, i);
            live[0].push_back((s, i));
        }
        let dq = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for at in base..base + per_round {
            let (s, i) = live[1].pop_front().expect("live");
            reading.delete_sales(s, i).expect("live");
            let (s, i) = stream[at % stream.len()];
            reading.insert_sales(s, i);
            live[1].push_back((s, i));
            black_box(reading.changes().count());
        }
        let dr = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for at in base..base + per_round {
            let (s, i) = live[2].pop_front().expect("live");
            hand.update_sales(s, i, -1);
            let (s, i) = stream[at % stream.len()];
            hand.update_sales(s, i, 1);
            live[2].push_back((s, i));
        }
        let dh = start.elapsed().as_secs_f64();
        if round > 0 {
            let per = |d: f64| d * 1e9 / per_round as f64;
            tq.push(per(dq));
            tr.push(per(dr));
            th.push(per(dh));
            ratio.push(dh / dq);
        }
    }
    for store in 0..100 {
        assert_eq!(quiet.get(&(store,)), reading.get(&(store,)));
        assert_eq!(quiet.get(&(store,)).0, hand.get(store));
    }
    println!(
        "{:>34} {:>8.0}\n{:>34} {:>8.0}\n{:>34} {:>8.0}\n{:>34} {:>8.2}",
        "never reads changes()",
        median(tq),
        "reads changes() after each op",
        median(tr),
        "hand-written",
        median(th),
        "hand-written ÷ never reads",
        median(ratio)
    );
}

fn main() {
    // `IVM_ONLY=fan_out|top_join|untouched` runs one section.
    let only = std::env::var("IVM_ONLY").ok();
    let run = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if run("fan_out") {
        fan_out();
    }
    if run("top_join") {
        fan_out_top_join();
    }
    if run("untouched") {
        untouched();
    }
}
