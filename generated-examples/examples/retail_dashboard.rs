//! A retail dashboard kept fresh under a stream of a million updates.
//!
//! Revenue per store is `Σ_item Sales(store, item) · Prices(store, item)`,
//! maintained by the code `ivm-compiler` generated from
//! `queries/retail.ivm` in O(1) per update. The stream mixes sales (a few
//! popular items take most of them), returns (deletes of earlier sales) and
//! price changes (retracting the old price, adding the new one).
//!
//! Run it with `cargo run --release -p ivm-generated-examples --example retail_dashboard`.

use std::time::Instant;

use ivm::semiring::{Int, MinPlus};
use ivm_generated_examples::retail::{CheapestOffer, RevenueByStore};

/// A small, fast, seeded generator so runs are repeatable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Skewed: half of the draws hit the first 1% of the range.
    fn skewed(&mut self, n: u64) -> u64 {
        if self.next().is_multiple_of(2) {
            self.below(n.div_ceil(100))
        } else {
            self.below(n)
        }
    }
}

const STORES: u64 = 200;
const ITEMS: u64 = 5_000;
const UPDATES: usize = 1_000_000;

fn main() {
    let mut revenue = RevenueByStore::new();
    let mut cheapest = CheapestOffer::new();
    let mut rng = Rng(0x1ced_f00d);
    let mut prices: std::collections::HashMap<(u32, u64), i64> = Default::default();
    let mut sold: Vec<(u32, u64)> = Vec::new();
    let (mut sales, mut returns, mut reprices) = (0u64, 0u64, 0u64);

    let start = Instant::now();
    for step in 0..UPDATES {
        let store = rng.below(STORES) as u32;
        let item = rng.skewed(ITEMS);
        match rng.below(10) {
            // A sale of one unit.
            0..=5 => {
                revenue.insert_sales(store, item);
                sold.push((store, item));
                sales += 1;
            }
            // A return of an earlier sale.
            6 if !sold.is_empty() => {
                let i = rng.below(sold.len() as u64) as usize;
                let (s, it) = sold.swap_remove(i);
                revenue
                    .delete_sales(s, it)
                    .expect("a returned item was sold");
                returns += 1;
            }
            // A new price (in cents): retract the old one, add the new one.
            _ => {
                let price = 100 + rng.below(10_000) as i64;
                if let Some(old) = prices.insert((store, item), price) {
                    revenue
                        .retract_prices(store, item, Int(old))
                        .expect("the old price is live");
                    cheapest
                        .retract_offers(item, store, MinPlus(old))
                        .expect("the old offer is live");
                } else {
                    // Free shipping from this store, the first time it offers the item.
                    cheapest.insert_shipping(item, store);
                }
                revenue.update_prices(store, item, Int(price));
                cheapest.update_offers(item, store, MinPlus(price));
                reprices += 1;
            }
        }
        if (step + 1) % 200_000 == 0 {
            println!(
                "{:>9} updates  {:>5.2}s  stores with revenue: {}",
                step + 1,
                start.elapsed().as_secs_f64(),
                revenue.len()
            );
        }
    }
    let elapsed = start.elapsed();

    let mut top: Vec<((u32,), Int)> = revenue.iter().collect();
    top.sort_by_key(|(_, r)| std::cmp::Reverse(r.0));
    println!("\ntop stores by revenue:");
    for ((store,), r) in top.iter().take(5) {
        println!("  store {store:>3}: {:>12.2}", r.0 as f64 / 100.0);
    }
    let mut offers: Vec<((u64,), MinPlus)> = cheapest.iter().take(3).collect();
    offers.sort();
    println!("a few products with their cheapest offer:");
    for ((product,), p) in offers {
        println!("  product {product:>5}: {:>8.2}", p.0 as f64 / 100.0);
    }
    println!(
        "\n{UPDATES} updates ({sales} sales, {returns} returns, {reprices} price changes) in {:.2}s: {:.2} M updates/s",
        elapsed.as_secs_f64(),
        UPDATES as f64 / elapsed.as_secs_f64() / 1e6
    );
}
