//! Instructions per update for callgrind: loads N live tuples (10^4 unless
//! a third argument says otherwise) into `RevenueByStore`, `CheapestOffer`
//! or TPC-H Q1 or Q6 (`q1`, `q6`), then runs `OPS` operations (each
//! retracts one live contribution and adds a fresh one, as the `ratio`
//! and `tpch` benchmarks do); or, for the insert-only
//! `CheapestConnection` (`connection`, two layers; `connection_hand`, the
//! peer benchmark's hand-written maps, which keep no way to enumerate the
//! result; `connection_stream`, the stream alone) and `ExposedAccounts` (`exposed`, CROWN; `exposed_hand`;
//! `exposed_stream`, the stream alone, generated up front), N
//! tuples and then `OPS` more inserts of random tuples. Run it with two values of `OPS` under
//! `valgrind --tool=callgrind` and divide the difference of the totals by
//! the difference of `OPS`:
//!
//! ```text
//! cargo build --release -p ivm-generated-examples --example update_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/update_cost revenue 0
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/update_cost revenue 100000
//! ```

use std::collections::VecDeque;
use std::hint::black_box;

use ivm::semiring::MinPlus;
use ivm_generated_examples::append_only::{CheapestConnection, ExposedAccounts};
use ivm_generated_examples::retail::{CheapestOffer, RevenueByStore};
use ivm_generated_examples::tpch::data::{Database, Tables};
use ivm_generated_examples::tpch::{ForecastRevenue, PricingSummary};

#[path = "../benches/common/mod.rs"]
mod common;
use common::{OfferWorkload, offer_workload, workload};

fn revenue(n: usize, ops: usize) {
    let w = workload(n);
    let mut q = RevenueByStore::new();
    for &(s, i, p) in &w.prices {
        q.update_prices(s, i, ivm::semiring::Int(p));
    }
    let mut live: VecDeque<_> = w.initial_sales.iter().copied().collect();
    for &(s, i) in &live {
        q.insert_sales(s, i);
    }
    for at in 0..ops {
        let (s, i) = live.pop_front().expect("live");
        q.delete_sales(s, i).expect("live");
        let (s, i) = w.stream[at % w.stream.len()];
        q.insert_sales(s, i);
        live.push_back((s, i));
    }
    black_box(&q);
}

fn cheapest(n: usize, ops: usize) {
    let OfferWorkload { pairs, stream } = offer_workload(n);
    let mut q = CheapestOffer::new();
    let mut live = VecDeque::new();
    for (k, &(p, s)) in pairs.iter().enumerate() {
        q.update_shipping(p, s, MinPlus(5));
        let v = (k % 1000) as i64;
        q.update_offers(p, s, MinPlus(v));
        live.push_back((p, s, v));
    }
    for at in 0..ops {
        let (p, s, v) = live.pop_front().expect("live");
        q.retract_offers(p, s, MinPlus(v)).expect("live");
        let (k, v) = stream[at % stream.len()];
        let (p, s) = pairs[k];
        q.update_offers(p, s, MinPlus(v));
        live.push_back((p, s, v));
    }
    black_box(&q);
}

/// `count` random inserts for `CheapestConnection`, a third of each
/// relation in turn (0: `Feeder`, 1: `Route`, 2: `Onward`), over 2 000
/// origins and hubs and random prices, from a fixed seed.
fn connection_stream(count: usize) -> impl Iterator<Item = (usize, u32, u32, i64)> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count).map(move |at| {
        let (x, y) = ((next() % 2_000) as u32, (next() % 2_000) as u32);
        (at % 3, x, y, (next() % 1_000) as i64)
    })
}

/// `CheapestConnection` under inserts only: N random tuples, then `OPS`
/// more ([`connection_stream`]).
fn connection(n: usize, ops: usize) {
    let mut q = CheapestConnection::new();
    for (relation, x, y, price) in connection_stream(n + ops) {
        match relation {
            0 => q.update_feeder(x, y, MinPlus(price)),
            1 => q.update_route(x, y, MinPlus(price)),
            _ => q.update_onward(x, y, MinPlus(price)),
        }
    }
    black_box(&q);
}

/// The peer benchmark's hand-written `CheapestConnection` (`engines/hand.rs`,
/// with the generated code's maps and hasher): the cheapest feeder per
/// origin, onward flight per hub and price per route, and no structure to
/// enumerate the result with (a read joins the routes with the other two
/// maps). The same stream as [`connection`].
fn connection_hand(n: usize, ops: usize) {
    use ivm::__private::HashMap;
    fn lower<K: std::hash::Hash + Eq>(map: &mut HashMap<K, i64>, key: K, price: i64) {
        map.entry(key)
            .and_modify(|m| *m = (*m).min(price))
            .or_insert(price);
    }
    let mut feeder: HashMap<u32, i64> = HashMap::default();
    let mut route: HashMap<(u32, u32), i64> = HashMap::default();
    let mut onward: HashMap<u32, i64> = HashMap::default();
    for (relation, x, y, price) in connection_stream(n + ops) {
        match relation {
            0 => lower(&mut feeder, x, price),
            1 => lower(&mut route, (x, y), price),
            _ => lower(&mut onward, x, price),
        }
    }
    black_box((&feeder, &route, &onward));
}

/// Who consumes the `exposed` stream.
#[derive(Clone, Copy, PartialEq)]
enum Exposed {
    /// The generated `ExposedAccounts` (CROWN).
    Generated,
    /// The peer benchmark's hand-written delta (flagged devices, the
    /// accounts waiting on each unflagged device, the exposed accounts).
    Hand,
    /// Nobody: the stream is only generated, the part of the other two
    /// counts that is neither's work.
    Stream,
}

/// The peer benchmark's `exposed_accounts` stream, shortened: 90 % logins
/// of N/4 accounts on N/2 devices (a quarter of them on 16 shared
/// devices), 10 % devices flagged; N inserts, then `OPS` more, generated
/// up front and fed to `who`.
fn exposed(n: usize, ops: usize, who: Exposed) {
    use ivm::__private::HashMap;
    let mut state = 0x0e89_05ed_u64 ^ n as u64;
    let mut next = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    let (accounts, devices) = ((n as u64 / 4).max(16), (n as u64 / 2).max(16));
    let device = move |next: &mut dyn FnMut(u64) -> u64| {
        if next(4) == 0 {
            next(16)
        } else {
            next(devices)
        }
    };
    let stream: Vec<(bool, u64, u64)> = (0..n + ops)
        .map(|_| {
            if next(10) == 0 {
                (false, 0, device(&mut next))
            } else {
                let account = next(accounts);
                (true, account, device(&mut next))
            }
        })
        .collect();
    if who == Exposed::Stream {
        black_box(&stream);
    } else if who == Exposed::Hand {
        let mut flagged: HashMap<u64, ()> = HashMap::default();
        let mut waiting: HashMap<u64, Vec<u64>> = HashMap::default();
        let mut exposed: HashMap<u64, ()> = HashMap::default();
        for &(login, a, d) in &stream {
            if login {
                if flagged.contains_key(&d) {
                    exposed.insert(a, ());
                } else {
                    waiting.entry(d).or_default().push(a);
                }
            } else if flagged.insert(d, ()).is_none() {
                for a in waiting.remove(&d).unwrap_or_default() {
                    exposed.insert(a, ());
                }
            }
        }
        black_box((&flagged, &waiting, &exposed));
    } else {
        let mut q = ExposedAccounts::new();
        for &(login, a, d) in &stream {
            if login {
                q.insert_logins(a, d);
            } else {
                q.insert_flagged(d);
            }
        }
        black_box(&q);
    }
}

/// TPC-H Q1 or Q6 (`tpch::PricingSummary`, `tpch::ForecastRevenue`) with N
/// live order lines: each operation deletes the oldest and inserts the
/// next of N more generated lines.
fn tpch<Q: Tables>(mut q: Q, n: usize, ops: usize) {
    let scale = (2 * n) as f64 / 5_500_000.0;
    let pool = Database::generate(scale, 11).lineitems;
    let pool = &pool[..2 * n];
    for l in &pool[..n] {
        q.insert_lineitem_row(l);
    }
    let mut live: VecDeque<usize> = (0..n).collect();
    let mut next = n;
    for _ in 0..ops {
        let old = live.pop_front().expect("live");
        q.delete_lineitem_row(&pool[old]).expect("live");
        q.insert_lineitem_row(&pool[next]);
        live.push_back(next);
        next = if next + 1 == pool.len() { 0 } else { next + 1 };
    }
    black_box(&q);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let query = args.next().unwrap_or_else(|| "revenue".into());
    let ops = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let n = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    match query.as_str() {
        "revenue" => revenue(n, ops),
        "cheapest" => cheapest(n, ops),
        "connection" => connection(n, ops),
        "connection_hand" => connection_hand(n, ops),
        "connection_stream" => {
            let folded = connection_stream(n + ops).fold(0, |acc, (r, x, y, price)| {
                acc ^ r as u64 ^ u64::from(x) ^ u64::from(y) ^ price as u64
            });
            black_box(folded);
        }
        "exposed" => exposed(n, ops, Exposed::Generated),
        "exposed_hand" => exposed(n, ops, Exposed::Hand),
        "exposed_stream" => exposed(n, ops, Exposed::Stream),
        "q1" => tpch(PricingSummary::new(), n, ops),
        "q6" => tpch(ForecastRevenue::new(), n, ops),
        other => panic!(
            "unknown query {other}: revenue, cheapest, connection, connection_hand, connection_stream, exposed, exposed_hand, exposed_stream, q1 or q6"
        ),
    }
}
