//! The retail dashboard, kept durable: revenue per store survives restarts
//! and crashes, and after each batch the dashboard repaints only the rows
//! that changed.
//!
//! The state lives in a directory (the first argument; a folder under the
//! system's temporary one by default). Each run opens it, which restores
//! the last checkpoint and replays the log after it, then applies
//! `BATCHES` batches of sales, returns and price changes through
//! [`Durable`], printing after each the stores whose revenue changed (the
//! first few of them) from `changes()`, and checkpoints every 50 batches.
//! Kill it at any moment (Ctrl-C, `kill -9`) and run it again: it goes on
//! from the last batch it acknowledged.
//!
//! Run it with `cargo run --release -p ivm-generated-examples --example
//! durable_dashboard [DIR]`.

use ivm::durable::{Durable, DurableError};
use ivm::semiring::Int;
use ivm_generated_examples::retail::{RevenueByStore, RevenueByStoreChange};

const STORES: u64 = 50;
const ITEMS: u64 = 400;
const BATCHES: u64 = 200;
const PER_BATCH: u64 = 40;

/// splitmix64: the batch of sequence number `seq` is the same in every
/// run, so a resumed run makes the calls the dead one did not.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Batch `seq`: sales of one unit, and price rises (a price is the sum of
/// its rises, in cents, so no earlier price must be known to make one).
fn batch(seq: u64) -> Vec<RevenueByStoreChange> {
    (0..PER_BATCH)
        .map(|i| {
            let r = mix(seq * PER_BATCH + i);
            let store = (r % STORES) as u32;
            let item = (r >> 8) % ITEMS;
            if (r >> 32).is_multiple_of(5) {
                // A price rise of 1 to 50 cents.
                let delta = ((r >> 40) % 50) as i64 + 1;
                RevenueByStoreChange::Prices {
                    store,
                    item,
                    delta: Int(delta),
                }
            } else {
                RevenueByStoreChange::Sales {
                    store,
                    item,
                    delta: Int(1),
                }
            }
        })
        .collect()
}

fn main() -> Result<(), DurableError> {
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("ivm-durable-dashboard"));
    let mut revenue = Durable::<RevenueByStore>::open(&dir)?;
    let r = revenue.recovery().clone();
    println!(
        "opened {}: {} calls held ({}, {} replayed from the log{})",
        dir.display(),
        revenue.sequence(),
        if r.snapshot {
            "from a checkpoint"
        } else {
            "no checkpoint yet"
        },
        r.replayed,
        match r.torn_tail {
            Some((at, bytes)) => format!(", a torn record of {bytes} bytes cut at byte {at}"),
            None => String::new(),
        }
    );
    // The first call reports every row: what a dashboard paints at start.
    let rows = revenue.changes().count();
    println!("{rows} stores with revenue");

    let start = revenue.sequence();
    for seq in start..start + BATCHES {
        revenue.apply(batch(seq))?;
        let mut changed: Vec<_> = revenue.changes().collect();
        changed.sort_by_key(|((store,), _, _)| *store);
        let shown: Vec<String> = changed
            .iter()
            .take(4)
            .map(|((store,), then, now)| format!("store {store}: {} -> {}", then.0, now.0))
            .collect();
        if seq.is_multiple_of(20) {
            println!(
                "batch {seq}: {} rows changed; {}{}",
                changed.len(),
                shown.join(", "),
                if changed.len() > shown.len() {
                    ", ..."
                } else {
                    ""
                }
            );
        }
        if (seq + 1).is_multiple_of(50) {
            revenue.checkpoint()?;
        }
    }
    let total: i64 = revenue.iter().map(|(_, p)| p.0).sum();
    println!(
        "{} calls held, total revenue {total}; run again to go on from here",
        revenue.sequence()
    );
    Ok(())
}
