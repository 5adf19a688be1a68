//! Generated code against the hand-written baseline, measured side by side:
//! the two run in alternating rounds on the same stream, so drift in the
//! machine's speed (it is shared) hits both alike, and the ratio is the
//! median of the per-round ratios. Prints a table; run with
//! `cargo bench -p ivm-generated-examples --bench ratio`.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::{Int, MinPlus};
use ivm_generated_examples::retail::{CheapestOffer, RevenueByStore};

mod common;
use common::{HandCheapest, HandRevenue, OfferWorkload, offer_workload, workload};

const ROUNDS: usize = 31;
const OPS_PER_ROUND: usize = 20_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `a` and `b` in alternating rounds of `OPS_PER_ROUND` operations;
/// returns the median ns per operation of each and the median of the
/// per-round ratios b/a (above 1: `a` is faster).
fn side_by_side(mut a: impl FnMut(usize), mut b: impl FnMut(usize)) -> (f64, f64, f64) {
    let (mut ta, mut tb, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = 0;
    for round in 0..ROUNDS + 1 {
        let start = Instant::now();
        for i in 0..OPS_PER_ROUND {
            a(at + i);
        }
        let da = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for i in 0..OPS_PER_ROUND {
            b(at + i);
        }
        let db = start.elapsed().as_secs_f64();
        at += OPS_PER_ROUND;
        // The first round warms the caches and is not counted.
        if round > 0 {
            ta.push(da * 1e9 / OPS_PER_ROUND as f64);
            tb.push(db * 1e9 / OPS_PER_ROUND as f64);
            ratio.push(db / da);
        }
    }
    (median(ta), median(tb), median(ratio))
}

fn revenue(n: usize) -> (f64, f64, f64) {
    let w = workload(n);
    let mut generated = RevenueByStore::new();
    let mut hand = HandRevenue::default();
    for &(s, i, p) in &w.prices {
        generated.update_prices(s, i, Int(p));
        hand.update_prices(s, i, p);
    }
    let mut live_g = VecDeque::new();
    for &(s, i) in &w.initial_sales {
        generated.insert_sales(s, i);
        hand.update_sales(s, i, 1);
        live_g.push_back((s, i));
    }
    let mut live_h = live_g.clone();
    let stream = &w.stream;
    let result = side_by_side(
        |at| {
            // One sale returned and one made: two updates, N constant.
            let (s, i) = live_g.pop_front().expect("live");
            generated.delete_sales(s, i).expect("live");
            let (s, i) = stream[at % stream.len()];
            generated.insert_sales(s, i);
            live_g.push_back((s, i));
        },
        |at| {
            let (s, i) = live_h.pop_front().expect("live");
            hand.update_sales(s, i, -1);
            let (s, i) = stream[at % stream.len()];
            hand.update_sales(s, i, 1);
            live_h.push_back((s, i));
        },
    );
    // Both must hold the same result, or the comparison means nothing.
    for store in 0..100 {
        assert_eq!(
            generated.get(&(store,)).0,
            hand.get(store),
            "revenue of store {store}"
        );
    }
    black_box((&generated, &hand));
    result
}

fn cheapest(n: usize) -> (f64, f64, f64) {
    let OfferWorkload { pairs, stream } = offer_workload(n);
    let mut generated = CheapestOffer::new();
    let mut hand = HandCheapest::default();
    let mut live_g = VecDeque::new();
    for (k, &(p, s)) in pairs.iter().enumerate() {
        generated.update_shipping(p, s, MinPlus(5));
        hand.insert_shipping(p, s, 5);
        let v = (k % 1000) as i64;
        generated.update_offers(p, s, MinPlus(v));
        hand.change_offer(p, s, v, true);
        live_g.push_back((p, s, v));
    }
    let mut live_h = live_g.clone();
    let result = side_by_side(
        |at| {
            let (p, s, v) = live_g.pop_front().expect("live");
            generated.retract_offers(p, s, MinPlus(v)).expect("live");
            let (k, v) = stream[at % stream.len()];
            let (p, s) = pairs[k];
            generated.update_offers(p, s, MinPlus(v));
            live_g.push_back((p, s, v));
        },
        |at| {
            let (p, s, v) = live_h.pop_front().expect("live");
            hand.change_offer(p, s, v, false);
            let (k, v) = stream[at % stream.len()];
            let (p, s) = pairs[k];
            hand.change_offer(p, s, v, true);
            live_h.push_back((p, s, v));
        },
    );
    for product in 0..100 {
        let g = generated.get(&(product,));
        let h = hand.get(product).map_or(MinPlus::INFINITY, MinPlus);
        assert_eq!(g, h, "cheapest offer of product {product}");
    }
    result
}

fn main() {
    // `cargo bench` passes `--bench`; there are no options to read.
    println!(
        "query            N   generated ns/op  hand-written ns/op  throughput ratio (generated / hand-written)"
    );
    for (name, run) in [
        ("revenue_by_store", revenue as fn(usize) -> _),
        ("cheapest_offer", cheapest),
    ] {
        for n in [10_000usize, 100_000, 1_000_000] {
            let (g, h, r) = run(n);
            println!(
                "{name:<16} {n:>8} {:>16.1} {:>19.1} {r:>10.2}",
                g / 2.0,
                h / 2.0
            );
        }
    }
}
