//! Instructions per update of the 4-clique count with first-order deltas
//! (`higher_order::CliqueCount`), for callgrind: N edges of a power-law
//! graph (N/8 vertices, degree exponent about 2.3, the peer benchmark's
//! `triangle_skewed` distribution), then `OPS` updates alternating a delete
//! of a random live edge and an insert of a fresh one. Run it with two
//! values of `OPS` under `valgrind --tool=callgrind` and divide the
//! difference of the totals by the difference of `OPS`:
//!
//! ```text
//! cargo build --release -p ivm-generated-examples --example clique_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/clique_cost 0 20000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/clique_cost 2000 20000
//! ```

use std::hint::black_box;

use ivm_generated_examples::higher_order::CliqueCount;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A vertex drawn with weight (i + 1)^-0.75, by its cumulative weights.
fn draw(rng: &mut Rng, cumulative: &[f64]) -> u32 {
    let x = rng.unit() * cumulative[cumulative.len() - 1];
    cumulative
        .partition_point(|&y| y <= x)
        .min(cumulative.len() - 1) as u32
}

fn edge(rng: &mut Rng, cumulative: &[f64]) -> (u32, u32) {
    loop {
        let (a, b) = (draw(rng, cumulative), draw(rng, cumulative));
        if a != b {
            return (a, b);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let ops: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2_000);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let mut total = 0.0;
    let cumulative: Vec<f64> = (0..(n / 8).max(16))
        .map(|i| {
            total += ((i + 1) as f64).powf(-0.75);
            total
        })
        .collect();
    let mut rng = Rng(0x4c11_e2ab ^ n as u64);
    let mut live: Vec<(u32, u32)> = (0..n).map(|_| edge(&mut rng, &cumulative)).collect();
    let mut q = CliqueCount::new();
    for &(a, b) in &live {
        q.insert_e(a, b);
    }
    for i in 0..ops {
        if i % 2 == 0 {
            let at = (rng.unit() * live.len() as f64) as usize;
            let (a, b) = live.swap_remove(at.min(live.len() - 1));
            q.delete_e(a, b).expect("live");
        } else {
            let (a, b) = edge(&mut rng, &cumulative);
            live.push((a, b));
            q.insert_e(a, b);
        }
    }
    black_box(q.get(&()));
}
