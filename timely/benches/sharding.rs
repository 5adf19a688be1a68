//! Updates per second of a sharded run against the size of its epochs:
//! the plain struct, a cluster of 1 worker, of 2 worker threads, and of 2
//! processes × 1 worker over loopback TCP, for a grouped join, a TPC-H
//! view written in SQL and the triangle count. Every cell ends with the
//! cluster's result checked against the plain struct's.
//!
//! `cargo bench -p ivm-timely --bench sharding` prints a Markdown table
//! (medians of three runs) and the bytes each update puts on the wire;
//! `-- --quick` runs once per cell. `docs/sharding.md` holds its figures.

#[path = "../tests/support/mod.rs"]
#[macro_use]
mod support;

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use ivm::semiring::Int;
use ivm::{Semiring, View};
use ivm_generated_examples::graph::Triangles;
use ivm_generated_examples::tpch::data::Database;
use ivm_generated_examples::tpch_sql::TpchQ3;
use ivm_timely::{Cluster, Shard, Topology, Update};
use support::Rng;

ivm::ivm_query! {
    /// The grouped join of the prototype: per key, the product of the sums
    /// of `R` and `S` (q-hierarchical, sharded on `k`).
    pub query GroupedJoin {
        relation R(k: u32, x: u32);
        relation S(k: u32, y: u32);
        Q(k) = R(k, x) * S(k, y);
    }
}

/// Where a cell runs.
#[derive(Clone, Copy, PartialEq)]
enum Setup {
    Plain,
    OneWorker,
    TwoThreads,
    TwoProcesses,
}

impl Setup {
    const ALL: [Setup; 4] = [
        Setup::Plain,
        Setup::OneWorker,
        Setup::TwoThreads,
        Setup::TwoProcesses,
    ];

    fn name(self) -> &'static str {
        match self {
            Setup::Plain => "plain struct",
            Setup::OneWorker => "1 worker",
            Setup::TwoThreads => "2 worker threads",
            Setup::TwoProcesses => "2 processes × 1 worker",
        }
    }
}

/// A query of the benchmark: its stream of updates, in order.
trait Workload: Shard {
    /// Its name on the command line and in the table.
    const NAME: &'static str;
    /// `n` updates: inserts, then retractions of some of them.
    fn stream(n: usize) -> Vec<Update<Self::Change>>;
}

impl Workload for GroupedJoin {
    const NAME: &'static str = "grouped join";

    /// Inserts over 10^5 keys, a third of them retracted as they go.
    fn stream(n: usize) -> Vec<Update<GroupedJoinChange>> {
        let mut rng = Rng(7);
        let mut live = Vec::new();
        (0..n)
            .map(|_| {
                if !live.is_empty() && rng.below(3) == 0 {
                    let at = rng.below(live.len() as u64) as usize;
                    return Update::Retract(live.swap_remove(at));
                }
                let (k, v) = (rng.below(100_000) as u32, rng.below(10) as u32);
                let change = match rng.below(2) {
                    0 => GroupedJoinChange::R {
                        k,
                        x: v,
                        delta: Int(1),
                    },
                    _ => GroupedJoinChange::S {
                        k,
                        y: v,
                        delta: Int(1),
                    },
                };
                live.push(change.clone());
                Update::Add(change)
            })
            .collect()
    }
}

impl Workload for TpchQ3 {
    const NAME: &'static str = "TPC-H Q3 (SQL)";

    /// The generator's customers, orders and line items (scale 0.01,
    /// repeated to `n` rows with fresh order keys), then a third of the
    /// orders deleted with their lines.
    fn stream(n: usize) -> Vec<Update<Self::Change>> {
        let db = Database::generate(0.01, 1);
        let mut rows: Vec<Self::Change> = db.customers.iter().map(support::customer).collect();
        for round in 0.. {
            for (orders, lines) in [(&db.orders, &db.lineitems)] {
                for o in orders {
                    let mut o = o.clone();
                    o.orderkey += round * 10_000_000;
                    rows.push(support::order(&o));
                }
                for l in lines {
                    let mut l = l.clone();
                    l.orderkey += round * 10_000_000;
                    rows.push(support::lineitem(&l));
                }
            }
            if rows.len() * 4 / 3 >= n {
                break;
            }
        }
        let inserts = n * 3 / 4;
        rows.truncate(inserts);
        let deletes: Vec<_> = rows
            .iter()
            .filter(|row| order_key(row).is_some_and(|key| key % 3 == 0))
            .take(n - inserts)
            .cloned()
            .map(Update::Retract)
            .collect();
        rows.into_iter().map(Update::Add).chain(deletes).collect()
    }
}

/// The order key of an order or line item row.
fn order_key(row: &<TpchQ3 as View>::Change) -> Option<i64> {
    use ivm_generated_examples::tpch_sql::TpchQ3Change as C;
    match row {
        C::Orders { o_orderkey, .. } => Some(*o_orderkey),
        C::Lineitem { l_orderkey, .. } => Some(*l_orderkey),
        C::Customer { .. } => None,
    }
}

impl Workload for Triangles {
    const NAME: &'static str = "triangle count";

    /// Edges among 2 000 nodes with hubs, a third retracted.
    fn stream(n: usize) -> Vec<Update<Self::Change>> {
        let mut stream = support::triangles(9, 2_000);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            out.extend(stream.epoch(1_000.min(n - out.len()), false));
        }
        out
    }
}

/// The updates each cell applies at an epoch size: fewer at small epochs,
/// where every epoch pays a whole round.
fn updates(epoch: usize, query: &str) -> usize {
    let full = if query == Triangles::NAME {
        100_000
    } else {
        1_000_000
    };
    match epoch {
        1 => full / 200,
        100 => full / 10,
        _ => full,
    }
}

/// Applies `stream` to one plain struct; returns the seconds taken.
fn plain<Q: Workload>(
    stream: Vec<Update<Q::Change>>,
    epoch: usize,
) -> (f64, HashMap<Q::Key, Q::Payload>) {
    let mut one = Q::default();
    let start = Instant::now();
    for chunk in stream.chunks(epoch) {
        for update in chunk {
            match update.clone() {
                Update::Add(change) => one.apply([change]),
                Update::Retract(change) => {
                    one.__retract(change);
                }
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    (seconds, one.iter().filter(|(_, p)| !p.is_zero()).collect())
}

/// Applies `stream` to a cluster in epochs; returns the seconds taken.
fn sharded<Q: Workload>(
    mut cluster: Cluster<Q>,
    stream: Vec<Update<Q::Change>>,
    epoch: usize,
) -> (f64, HashMap<Q::Key, Q::Payload>) {
    let mut epochs = Vec::new();
    let mut stream = stream.into_iter();
    loop {
        let chunk: Vec<_> = stream.by_ref().take(epoch).collect();
        if chunk.is_empty() {
            break;
        }
        epochs.push(chunk);
    }
    let start = Instant::now();
    for chunk in epochs {
        cluster
            .apply(chunk)
            .expect("the stream retracts only what it added");
    }
    let seconds = start.elapsed().as_secs_f64();
    let result = cluster.collect().unwrap().into_iter().collect();
    cluster.shutdown().unwrap();
    (seconds, result)
}

/// One run of one cell: updates per second.
fn run<Q: Workload>(setup: Setup, epoch: usize, expected: &HashMap<Q::Key, Q::Payload>) -> f64 {
    let n = updates(epoch, Q::NAME);
    let stream = Q::stream(n);
    let (seconds, result) = match setup {
        Setup::Plain => plain::<Q>(stream, epoch),
        Setup::OneWorker => sharded(Cluster::<Q>::threads(1).unwrap(), stream, epoch),
        Setup::TwoThreads => sharded(Cluster::<Q>::threads(2).unwrap(), stream, epoch),
        Setup::TwoProcesses => {
            let hosts = support::hosts();
            let _peer = Peer::spawn(Q::NAME, &hosts);
            let cluster = Cluster::<Q>::processes(hosts, 0, 1).unwrap();
            sharded(cluster, stream, epoch)
        }
    };
    assert!(
        result == *expected,
        "{} on {}: a wrong result",
        Q::NAME,
        setup.name()
    );
    n as f64 / seconds
}

/// The table's rows for one query.
fn bench<Q: Workload>(repeats: usize) {
    println!("\n{}\n", Q::NAME);
    println!("| updates per epoch | 1 | 100 | 10^4 | 10^5 |");
    println!("|---|---|---|---|---|");
    const EPOCHS: [usize; 4] = [1, 100, 10_000, 100_000];
    let expected: Vec<_> = EPOCHS
        .iter()
        .map(|&epoch| plain::<Q>(Q::stream(updates(epoch, Q::NAME)), epoch).1)
        .collect();
    let mut plain_rates = Vec::new();
    for setup in Setup::ALL {
        let mut cells = Vec::new();
        for (i, &epoch) in EPOCHS.iter().enumerate() {
            let mut rates: Vec<f64> = (0..repeats)
                .map(|_| run::<Q>(setup, epoch, &expected[i]))
                .collect();
            rates.sort_by(f64::total_cmp);
            let rate = rates[rates.len() / 2];
            if setup == Setup::Plain {
                plain_rates.push(rate);
                cells.push(format!("{} /s", human(rate)));
            } else {
                cells.push(format!(
                    "{} /s ({:.2}×)",
                    human(rate),
                    rate / plain_rates[i]
                ));
            }
        }
        println!("| {} | {} |", setup.name(), cells.join(" | "));
    }
    let stream = Q::stream(1_000);
    let bytes: usize = stream
        .iter()
        .map(|u| bincode::serialized_size(u).unwrap() as usize)
        .sum();
    println!(
        "\nbytes per update on the wire (its change, serialized): {:.1}",
        bytes as f64 / stream.len() as f64
    );
}

/// A rate such as `12.1 M`.
fn human(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.1} M", rate / 1e6)
    } else {
        format!("{:.0} k", rate / 1e3)
    }
}

/// The second process of a two-process cell: this binary again. Waited
/// for when dropped (it ends when process 0 shuts the cluster down).
struct Peer(Child);

impl Peer {
    fn spawn(query: &str, hosts: &[String]) -> Peer {
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["--peer", query, &hosts.join(",")])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        Peer(child)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.wait();
    }
}

/// Serves as process 1 until process 0 shuts the cluster down.
fn serve<Q: Shard>(hosts: &str) {
    let hosts = hosts.split(',').map(String::from).collect();
    let cluster = Cluster::<Q>::start(Topology::processes(hosts, 1, 1)).unwrap();
    cluster.shutdown().unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--peer") {
        match args[at + 1].as_str() {
            GroupedJoin::NAME => serve::<GroupedJoin>(&args[at + 2]),
            TpchQ3::NAME => serve::<TpchQ3>(&args[at + 2]),
            Triangles::NAME => serve::<Triangles>(&args[at + 2]),
            other => panic!("no query {other}"),
        }
        return;
    }
    // `cargo test --benches` runs benchmarks once as tests: nothing to do.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let repeats = if args.iter().any(|a| a == "--quick") {
        1
    } else {
        3
    };
    // `-- --only join` runs the queries whose name holds `join`.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|at| args[at + 1].as_str());
    let chosen = |name: &str| only.is_none_or(|part| name.contains(part));
    if chosen(GroupedJoin::NAME) {
        bench::<GroupedJoin>(repeats);
    }
    if chosen(TpchQ3::NAME) {
        bench::<TpchQ3>(repeats);
    }
    if chosen(Triangles::NAME) {
        bench::<Triangles>(repeats);
    }
}
