//! The insert-only strategies against the first-order delta, on append-only
//! streams: CROWN (`ExposedAccounts`, over `Bool`), two layers
//! (`CheapestConnection`, over `MinPlus`) and the max-max clusters
//! (`LatestFlaggedLogin`, over `MaxMax`), the queries of
//! `queries/append_only.ivm`. Each baseline is the same query compiled with
//! `#[strategy(first_order)]`: a materialized result, and each new tuple
//! joined with the other relations.
//!
//! For each query and each N, a stream of N inserts mixing the relations is
//! generated (not timed), then inserted into a fresh engine of each kind in
//! turn (strategy, then first-order, three times, after an untimed warm-up
//! run at the smallest size; the medians are reported): the amortized time
//! per insert, and the time of one full enumeration of the result
//! afterwards, per output tuple. Both engines must end with the same result.
//! A baseline size is skipped when its runs are projected to take more than
//! 60 s together (the curve so far, extended with its last slope). Prints a
//! markdown table per query and the slope of each curve on a log-log scale;
//! run with
//! `cargo bench -p ivm-generated-examples --bench insert_only` (add
//! `-- --quick` for N up to 10^5 instead of 10^6, a query's name to run only
//! that query, `--no-baseline` to run the strategies only).

use std::fmt::Debug;
use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::{MaxMax, MinPlus};
use ivm_generated_examples::append_only::{
    CheapestConnection, ExposedAccounts, LatestFlaggedLogin,
};

mod common;
use common::Rng;

/// The baselines: the same queries compiled with the first-order strategy.
mod first_order {
    ivm::ivm_query! {
        #[semiring(ivm::semiring::Bool)]
        #[updates(insert_only)]
        #[strategy(first_order)]
        pub query ExposedAccountsFirstOrder {
            relation Logins(account: u64, device: u64);
            relation Flagged(device: u64);
            Q(account) = Logins(account, device) * Flagged(device);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::MinPlus)]
        #[updates(insert_only)]
        #[strategy(first_order)]
        pub query CheapestConnectionFirstOrder {
            relation Feeder(origin: u32, feeder: u32);
            relation Route(origin: u32, hub: u32);
            relation Onward(hub: u32, onward: u32);
            Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::MaxMax)]
        #[updates(insert_only)]
        #[strategy(first_order)]
        pub query LatestFlaggedLoginFirstOrder {
            relation Logins(region: u32, user: u64, device: u64);
            relation FlaggedUsers(region: u32, user: u64);
            relation FlaggedDevices(region: u32, device: u64);
            Q(region) = Logins(region, user, device) * FlaggedUsers(region, user) * FlaggedDevices(region, device);
        }
    }
}
use first_order::{
    CheapestConnectionFirstOrder, ExposedAccountsFirstOrder, LatestFlaggedLoginFirstOrder,
};

/// Runs per cell; the medians are reported.
const RUNS: usize = 3;
/// A baseline size is skipped (with every larger one) when its runs are
/// projected to take longer than this together, in seconds: see
/// [`projected_secs`].
const BASELINE_BUDGET_SECS: f64 = 60.0;

/// What the benchmark needs of each engine: a fresh instance, one insert of
/// the stream, and the result.
trait Engine {
    /// One insert of the stream.
    type Insert;
    /// An output tuple with its payload.
    type Row: Ord + Debug;
    fn make() -> Self;
    fn insert(&mut self, insert: &Self::Insert);
    /// One full enumeration of the result: the number of output tuples.
    fn enumerate(&self) -> usize;
    /// The result, sorted.
    fn result(&self) -> Vec<Self::Row>;
}

/// Implements [`Engine`] for the engines of one query; `$insert` maps an
/// insert of the stream to the engine's methods.
macro_rules! engine {
    ($insert:ty, $row:ty, [$($ty:ident),*], |$e:ident, $i:ident| $apply:expr) => {$(
        impl Engine for $ty {
            type Insert = $insert;
            type Row = $row;
            fn make() -> Self {
                $ty::new()
            }
            #[inline]
            fn insert(&mut self, insert: &$insert) {
                let ($e, $i) = (self, insert);
                $apply
            }
            // Not inlined, so that a profiler can single it out
            // (`valgrind --tool=callgrind --toggle-collect='*enumerate*'`).
            #[inline(never)]
            fn enumerate(&self) -> usize {
                // Each tuple goes through `black_box`, so that its payload
                // is looked up and not optimized away.
                self.iter().map(black_box).count()
            }
            fn result(&self) -> Vec<$row> {
                let mut rows: Vec<$row> = self.iter().collect();
                rows.sort_unstable();
                rows
            }
        }
    )*};
}

// ---------------------------------------------------------------------------
// The workloads.

/// `hubs` popular values, one of which is drawn with probability
/// `percent`%, among `domain` others drawn uniformly: a few values carry a
/// fixed share of the stream, so their degree grows linearly with N.
fn skewed(rng: &mut Rng, hubs: u64, percent: u64, domain: u64) -> u64 {
    if rng.next() % 100 < percent {
        rng.next() % hubs
    } else {
        hubs + rng.next() % domain
    }
}

/// An insert into `ExposedAccounts`.
#[derive(Clone, Copy)]
enum Exposed {
    Login(u64, u64),
    Flag(u64),
}

/// 90% logins of N/4 accounts on devices (16 shared devices take a quarter
/// of the logins, the rest are among N/2), 10% devices flagged (drawn the
/// same way, so the shared devices are flagged again and again).
fn exposed_stream(n: usize) -> Vec<Exposed> {
    let mut rng = Rng(0xe8905ed ^ n as u64);
    let accounts = (n as u64 / 4).max(16);
    let devices = (n as u64 / 2).max(16);
    (0..n)
        .map(|_| {
            if rng.next().is_multiple_of(10) {
                Exposed::Flag(skewed(&mut rng, 16, 25, devices))
            } else {
                let account = rng.next() % accounts;
                Exposed::Login(account, skewed(&mut rng, 16, 25, devices))
            }
        })
        .collect()
}

engine!(
    Exposed,
    ((u64,), ivm::semiring::Bool),
    [ExposedAccounts, ExposedAccountsFirstOrder],
    |e, i| match *i {
        Exposed::Login(account, device) => e.insert_logins(account, device),
        Exposed::Flag(device) => e.insert_flagged(device),
    }
);

/// An insert into `CheapestConnection`, with its price.
#[derive(Clone, Copy)]
enum Connection {
    Feeder(u32, u32, i64),
    Route(u32, u32, i64),
    Onward(u32, u32, i64),
}

/// Over N/20 airports, 8 of them major hubs that take a quarter of the
/// routes and onward flights: 40% feeder flights, 30% routes, 30% onward
/// flights, each with a price (repeated flights keep their cheapest price).
fn connection_stream(n: usize) -> Vec<Connection> {
    let mut rng = Rng(0xc0ec7 ^ n as u64);
    let airports = (n as u64 / 20).max(64);
    (0..n)
        .map(|_| {
            let kind = rng.next() % 10;
            let uniform = |rng: &mut Rng| (rng.next() % airports) as u32;
            let hub = |rng: &mut Rng| skewed(rng, 8, 25, airports - 8) as u32;
            if kind < 4 {
                let (origin, feeder) = (uniform(&mut rng), uniform(&mut rng));
                Connection::Feeder(origin, feeder, 50 + (rng.next() % 450) as i64)
            } else if kind < 7 {
                let (origin, hub) = (uniform(&mut rng), hub(&mut rng));
                Connection::Route(origin, hub, 100 + (rng.next() % 900) as i64)
            } else {
                let (hub, onward) = (hub(&mut rng), uniform(&mut rng));
                Connection::Onward(hub, onward, 50 + (rng.next() % 450) as i64)
            }
        })
        .collect()
}

engine!(
    Connection,
    ((u32, u32), MinPlus),
    [CheapestConnection, CheapestConnectionFirstOrder],
    |e, i| match *i {
        Connection::Feeder(origin, feeder, price) => {
            e.update_feeder(origin, feeder, MinPlus(price))
        }
        Connection::Route(origin, hub, price) => e.update_route(origin, hub, MinPlus(price)),
        Connection::Onward(hub, onward, price) => e.update_onward(hub, onward, MinPlus(price)),
    }
);

/// An insert into `LatestFlaggedLogin`, with its time.
#[derive(Clone, Copy)]
enum Flagged {
    Login(u32, u64, u64, i64),
    User(u32, u64, i64),
    Device(u32, u64, i64),
}

/// N/20 users, each with a home region (half of them in 4 large regions,
/// the others spread over N/100 small ones) and two devices of their own,
/// and 8 shared devices per region (kiosks, a VPN exit) that take a quarter
/// of the logins and half of the device flags: 80% logins of a user in
/// their region, 10% users flagged, 10% devices flagged. The time of an
/// event is its position in the stream, so a repeated login or flag raises
/// its tuple's payload.
fn flagged_stream(n: usize) -> Vec<Flagged> {
    let mut rng = Rng(0xf1a9 ^ n as u64);
    let users = (n as u64 / 20).max(16);
    let small_regions = (n as u64 / 100).max(4);
    let region = |user: u64| {
        if user.is_multiple_of(2) {
            (user / 2 % 4) as u32
        } else {
            (4 + user / 2 % small_regions) as u32
        }
    };
    let own_device = |rng: &mut Rng, user: u64| 8 + 2 * user + rng.next() % 2;
    (0..n)
        .map(|t| {
            let time = t as i64 + 1;
            let kind = rng.next() % 10;
            let user = rng.next() % users;
            if kind < 8 {
                let device = if rng.next().is_multiple_of(4) {
                    rng.next() % 8
                } else {
                    own_device(&mut rng, user)
                };
                Flagged::Login(region(user), user, device, time)
            } else if kind < 9 {
                Flagged::User(region(user), user, time)
            } else if rng.next().is_multiple_of(2) {
                Flagged::Device(region(user), rng.next() % 8, time)
            } else {
                Flagged::Device(region(user), own_device(&mut rng, user), time)
            }
        })
        .collect()
}

engine!(
    Flagged,
    ((u32,), MaxMax),
    [LatestFlaggedLogin, LatestFlaggedLoginFirstOrder],
    |e, i| match *i {
        Flagged::Login(region, user, device, t) => e.update_logins(region, user, device, MaxMax(t)),
        Flagged::User(region, user, t) => e.update_flagged_users(region, user, MaxMax(t)),
        Flagged::Device(region, device, t) => {
            e.update_flagged_devices(region, device, MaxMax(t))
        }
    }
);

// ---------------------------------------------------------------------------
// Measuring.

/// One run of one engine on one stream.
struct Sample {
    /// ns per insert, amortized over the stream.
    insert_ns: f64,
    /// ns per output tuple of one full enumeration.
    enumerate_ns: f64,
    /// Output tuples.
    tuples: usize,
}

/// Inserts the stream into a fresh engine, then enumerates the result once.
fn run<E: Engine>(stream: &[E::Insert]) -> (Sample, E) {
    let mut engine = E::make();
    let start = Instant::now();
    for insert in stream {
        engine.insert(black_box(insert));
    }
    let inserted = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let tuples = black_box(&engine).enumerate();
    let enumerated = start.elapsed().as_secs_f64();
    let sample = Sample {
        insert_ns: inserted * 1e9 / stream.len() as f64,
        enumerate_ns: enumerated * 1e9 / tuples.max(1) as f64,
        tuples,
    };
    (sample, engine)
}

/// The projected wall-clock seconds of `RUNS` runs of a baseline on a stream
/// of `n` inserts, from its ns/insert at the sizes run so far: the curve is
/// extended from the last size with the log-log slope of its last step (at
/// least 0; 0 when only one size was run). A blow-up shows one size ahead:
/// at 10 times the previous size, a cost per insert that grew linearly takes
/// 100 times as long.
fn projected_secs(curve: &[(usize, f64)], n: usize) -> f64 {
    let Some(&(last_n, last_t)) = curve.last() else {
        return 0.0;
    };
    let slope = match curve.len() {
        1 => 0.0,
        k => {
            let (prev_n, prev_t) = curve[k - 2];
            ((last_t / prev_t).ln() / (last_n as f64 / prev_n as f64).ln()).max(0.0)
        }
    };
    let per_insert = last_t * (n as f64 / last_n as f64).powf(slope);
    per_insert * n as f64 * RUNS as f64 / 1e9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The least-squares slope of log(t) against log(N).
fn slope(points: &[(usize, f64)]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = points.iter().map(|&(n, _)| (n as f64).ln()).collect();
    let ys: Vec<f64> = points.iter().map(|&(_, t)| t.ln()).collect();
    let mx = xs.iter().sum::<f64>() / xs.len() as f64;
    let my = ys.iter().sum::<f64>() / ys.len() as f64;
    let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    Some(num / den)
}

fn power_of_ten(n: usize) -> String {
    let exp = (n as f64).log10().round() as i32;
    if 10_usize.pow(exp as u32) == n {
        format!("10^{exp}")
    } else {
        n.to_string()
    }
}

/// Measures the strategy `S` against the first-order baseline `F` on a
/// stream of each size, and prints the table and the slopes.
fn compare<S, F>(
    selected: impl Fn(&str) -> bool,
    no_baseline: bool,
    title: &str,
    strategy: &str,
    sizes: &[usize],
    stream: impl Fn(usize) -> Vec<S::Insert>,
) where
    S: Engine,
    F: Engine<Insert = S::Insert, Row = S::Row>,
{
    if !selected(title) {
        return;
    }
    println!("\n### {title}\n");
    println!(
        "| N | output tuples | {strategy} ns/insert | first-order ns/insert | first-order / {strategy} | {strategy} ns/tuple enumerated | first-order ns/tuple enumerated |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let (mut curve_s, mut curve_f) = (Vec::new(), Vec::new());
    // One untimed run of each engine first: the first run of a process
    // also pays for the allocator taking its memory from the system.
    {
        let warm_up = stream(sizes[0]);
        black_box(run::<S>(&warm_up));
        if !no_baseline {
            black_box(run::<F>(&warm_up));
        }
    }
    let mut skipped = Vec::new();
    for &n in sizes {
        let stream = stream(n);
        let projected = projected_secs(&curve_f, n);
        let skip = no_baseline || !skipped.is_empty() || projected > BASELINE_BUDGET_SECS;
        if skip && !no_baseline {
            skipped.push((n, projected));
        }
        let (mut s_ins, mut s_enum, mut f_ins, mut f_enum) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut tuples = 0;
        for _ in 0..RUNS {
            let (s, s_engine) = run::<S>(&stream);
            s_ins.push(s.insert_ns);
            s_enum.push(s.enumerate_ns);
            tuples = s.tuples;
            if !skip {
                let expected = s_engine.result();
                drop(s_engine);
                let (f, f_engine) = run::<F>(&stream);
                f_ins.push(f.insert_ns);
                f_enum.push(f.enumerate_ns);
                assert_eq!(f.tuples, tuples, "{title}, N = {n}: the engines disagree");
                let got = f_engine.result();
                if got != expected {
                    let first = expected.iter().zip(&got).find(|(a, b)| a != b);
                    panic!(
                        "{title}, N = {n}: the engines disagree; first difference \
                         (strategy, first-order): {first:?}"
                    );
                }
            }
        }
        let (ts, es) = (median(s_ins), median(s_enum));
        curve_s.push((n, ts));
        if skip {
            println!(
                "| {} | {tuples} | {ts:.0} | skipped | | {es:.1} | skipped |",
                power_of_ten(n)
            );
        } else {
            let (tf, ef) = (median(f_ins), median(f_enum));
            curve_f.push((n, tf));
            println!(
                "| {} | {tuples} | {ts:.0} | {tf:.0} | {:.2} | {es:.1} | {ef:.1} |",
                power_of_ten(n),
                tf / ts
            );
        }
    }
    for (n, projected) in skipped {
        println!(
            "\nfirst-order skipped at N = {}: {RUNS} runs projected to take {projected:.0} s",
            power_of_ten(n)
        );
    }
    let show = |s: Option<f64>| s.map_or_else(|| "—".to_string(), |s| format!("{s:.2}"));
    println!(
        "\nlog-log slope of ns/insert against N: {strategy} {}, first-order {}",
        show(slope(&curve_s)),
        show(slope(&curve_f))
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    // The strategies only, e.g. under a profiler.
    let no_baseline = args.iter().any(|a| a == "--no-baseline");
    // Other arguments (not flags) select queries by name.
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let selected =
        |title: &str| names.is_empty() || names.iter().any(|n| title.contains(n.as_str()));
    let sizes: &[usize] = if quick {
        &[1_000, 10_000, 100_000]
    } else {
        &[10_000, 100_000, 1_000_000]
    };
    let start = Instant::now();
    println!(
        "Insert-only streams of N inserts into a fresh engine, median of {RUNS} runs \
         (ns per insert, amortized; ns per output tuple of one full enumeration)."
    );
    compare::<ExposedAccounts, ExposedAccountsFirstOrder>(
        selected,
        no_baseline,
        "ExposedAccounts (`Bool`, CROWN): Q(account) = Logins(account, device) * Flagged(device)",
        "crown",
        sizes,
        exposed_stream,
    );
    compare::<CheapestConnection, CheapestConnectionFirstOrder>(
        selected,
        no_baseline,
        "CheapestConnection (`MinPlus`, two layers): Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward)",
        "two-layer",
        sizes,
        connection_stream,
    );
    compare::<LatestFlaggedLogin, LatestFlaggedLoginFirstOrder>(
        selected,
        no_baseline,
        "LatestFlaggedLogin (`MaxMax`, clusters): Q(region) = Logins(region, user, device) * FlaggedUsers(region, user) * FlaggedDevices(region, device)",
        "cluster",
        sizes,
        flagged_stream,
    );
    println!("\ntotal time: {:.0} s", start.elapsed().as_secs_f64());
}
