//! The retail dashboard of `retail_dashboard.rs`, sharded on timely
//! dataflow: revenue per store on two workers, each holding the stores
//! whose number hashes to it, fed in epochs of 10 000 updates.
//!
//! ```text
//! cargo run --release -p ivm-generated-examples --example sharded
//! cargo run --release -p ivm-generated-examples --example sharded -- --processes
//! ```
//!
//! With `--processes`, the two workers are two processes on 127.0.0.1
//! (this program starts the second one itself). Either way, the result is
//! checked against one `RevenueByStore` fed the same stream.

use std::collections::HashMap;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::Instant;

use ivm::semiring::Int;
use ivm_generated_examples::retail::{RevenueByStore, RevenueByStoreChange};
use ivm_timely::{Cluster, ClusterError, Topology, Update};

/// A small, fast, seeded generator so runs are repeatable.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

const STORES: u64 = 200;
const ITEMS: u64 = 5_000;
const EPOCHS: usize = 100;
const PER_EPOCH: usize = 10_000;

/// The stream: sales, returns of earlier sales, and price changes (the old
/// price retracted, the new one added), one epoch at a time.
struct Shop {
    rng: Rng,
    sold: Vec<(u32, u64)>,
    prices: HashMap<(u32, u64), i64>,
}

impl Shop {
    fn epoch(&mut self) -> Vec<Update<RevenueByStoreChange>> {
        use RevenueByStoreChange::{Prices, Sales};
        let mut epoch = Vec::with_capacity(PER_EPOCH + PER_EPOCH / 4);
        while epoch.len() < PER_EPOCH {
            let (store, item) = (self.rng.below(STORES) as u32, self.rng.below(ITEMS));
            match self.rng.below(10) {
                0..=5 => {
                    self.sold.push((store, item));
                    epoch.push(Update::Add(Sales {
                        store,
                        item,
                        delta: Int(1),
                    }));
                }
                6 if !self.sold.is_empty() => {
                    let at = self.rng.below(self.sold.len() as u64) as usize;
                    let (store, item) = self.sold.swap_remove(at);
                    epoch.push(Update::Retract(Sales {
                        store,
                        item,
                        delta: Int(1),
                    }));
                }
                _ => {
                    let price = 100 + self.rng.below(10_000) as i64;
                    if let Some(old) = self.prices.insert((store, item), price) {
                        epoch.push(Update::Retract(Prices {
                            store,
                            item,
                            delta: Int(old),
                        }));
                    }
                    epoch.push(Update::Add(Prices {
                        store,
                        item,
                        delta: Int(price),
                    }));
                }
            }
        }
        epoch
    }
}

fn main() -> Result<(), ClusterError> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--peer") {
        // The second process: it serves until the first shuts down.
        let hosts = args[at + 1].split(',').map(String::from).collect();
        return Cluster::<RevenueByStore>::start(Topology::processes(hosts, 1, 1))?.shutdown();
    }
    let mut peer = None;
    let mut cluster = if args.iter().any(|a| a == "--processes") {
        let hosts = free_hosts();
        peer = Some(
            Command::new(std::env::current_exe().expect("this program"))
                .args(["--peer", &hosts.join(",")])
                .stdout(Stdio::null())
                .spawn()
                .expect("the second process starts"),
        );
        println!("two processes: {}", hosts.join(" and "));
        Cluster::<RevenueByStore>::processes(hosts, 0, 1)?
    } else {
        println!("two worker threads");
        Cluster::<RevenueByStore>::threads(2)?
    };

    let mut shop = Shop {
        rng: Rng(0x1ced_f00d),
        sold: Vec::new(),
        prices: HashMap::new(),
    };
    let mut one = RevenueByStore::new();
    let mut applied = std::time::Duration::ZERO;
    for epoch in 1..=EPOCHS {
        let batch = shop.epoch();
        let start = Instant::now();
        cluster.apply(batch.clone())?;
        applied += start.elapsed();
        for update in batch {
            match update {
                Update::Add(change) => one.apply([change]),
                Update::Retract(change) => ivm::Retract::retract(&mut one, change).expect("live"),
            }
        }
        if epoch % 25 == 0 {
            let moved = cluster.changes()?;
            println!(
                "epoch {epoch:>3}: {} stores' revenue changed since the last report",
                moved.len()
            );
        }
    }

    let mut top = cluster.collect()?;
    top.sort_by_key(|(_, revenue)| std::cmp::Reverse(revenue.0));
    println!("\ntop stores by revenue:");
    for ((store,), revenue) in top.iter().take(5) {
        println!("  store {store:>3}: {:>12.2}", revenue.0 as f64 / 100.0);
    }
    let mut all = top.clone();
    let mut expected: Vec<_> = one.iter().collect();
    all.sort();
    expected.sort();
    assert_eq!(all, expected, "the sharded result is the single struct's");
    let updates = (EPOCHS * PER_EPOCH) as f64;
    println!(
        "\n{} epochs of {PER_EPOCH} updates on {} workers: {:.2} M updates/s in `apply`; \
         the result equals one struct's",
        EPOCHS,
        cluster.workers(),
        updates / applied.as_secs_f64() / 1e6
    );
    cluster.shutdown()?;
    if let Some(mut peer) = peer {
        peer.wait().expect("the second process ends");
    }
    Ok(())
}

/// Two free ports on 127.0.0.1.
fn free_hosts() -> Vec<String> {
    let listeners: Vec<TcpListener> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().expect("bound").to_string())
        .collect()
}
