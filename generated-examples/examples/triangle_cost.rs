//! Instructions per update of the triangle count on a uniform graph, for
//! callgrind (or its time, with `time`): IVMε (`ivm`: `graph::Triangles`,
//! ε = 1/2), the runtime's IVMε state alone without the generated code's
//! base relation map (`raw`), or the hand-written first-order delta of the
//! peer benchmark (`hand`), on the peer
//! benchmark's `triangle_uniform` stream: N edges over N/8 vertices
//! (average degree 16, every vertex light), then `OPS` updates that
//! alternate a delete of a random live edge and an insert of a fresh one.
//! Run it with two values of `OPS` under `valgrind --tool=callgrind` and
//! divide the difference of the totals by the difference of `OPS`:
//!
//! ```text
//! cargo build --release -p ivm-generated-examples --example triangle_cost
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/triangle_cost ivm 0 100000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/triangle_cost ivm 100000 100000
//! ```

use std::hint::black_box;

use ivm::__private::{Entry, HashMap};

use ivm::__private::GraphTriangle;
use ivm::semiring::Int;
use ivm_generated_examples::graph::Triangles;

/// The hand-written delta of `benches/peers` (`engines/hand.rs`): nested
/// hash maps out and in (the generated code's maps and hasher), walking
/// the smaller of out(b) and in(a).
#[derive(Default)]
struct Hand {
    out: HashMap<u32, HashMap<u32, i64>>,
    inn: HashMap<u32, HashMap<u32, i64>>,
    count: i64,
}

/// Adds `d` to `map[key]` through one entry, removing it at zero.
fn add(map: &mut HashMap<u32, i64>, key: u32, d: i64) {
    match map.entry(key) {
        Entry::Occupied(mut e) => {
            *e.get_mut() += d;
            if *e.get() == 0 {
                e.remove();
            }
        }
        Entry::Vacant(e) => {
            assert!(d > 0, "a delete of an absent tuple");
            e.insert(d);
        }
    }
}

fn adjust(adj: &mut HashMap<u32, HashMap<u32, i64>>, from: u32, to: u32, d: i64) {
    let inner = adj.entry(from).or_default();
    add(inner, to, d);
    if inner.is_empty() {
        adj.remove(&from);
    }
}

impl Hand {
    fn update(&mut self, a: u32, b: u32, d: i64) {
        let wedges: i64 = match (self.out.get(&b), self.inn.get(&a)) {
            (Some(out_b), Some(in_a)) => {
                let (small, large) = if out_b.len() <= in_a.len() {
                    (out_b, in_a)
                } else {
                    (in_a, out_b)
                };
                small
                    .iter()
                    .map(|(c, m)| large.get(c).map_or(0, |m2| m * m2))
                    .sum()
            }
            _ => 0,
        };
        self.count += 3 * d * wedges;
        adjust(&mut self.out, a, b, d);
        adjust(&mut self.inn, b, a, d);
    }
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }

    fn edge(&mut self, vertices: u64) -> (u32, u32) {
        loop {
            let (a, b) = (self.below(vertices) as u32, self.below(vertices) as u32);
            if a != b {
                return (a, b);
            }
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let engine = args.next().unwrap_or_else(|| "ivm".into());
    let ops: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let vertices = (n as u64 / 8).max(16);
    let mut rng = Rng(0x7419_a3c5 ^ n as u64);
    let initial: Vec<(u32, u32)> = (0..n).map(|_| rng.edge(vertices)).collect();
    let mut live = initial.clone();
    let mut stream = Vec::with_capacity(ops);
    for i in 0..ops {
        if i % 2 == 0 {
            let (a, b) = live.swap_remove(rng.below(live.len() as u64) as usize);
            stream.push((a, b, false));
        } else {
            let (a, b) = rng.edge(vertices);
            live.push((a, b));
            stream.push((a, b, true));
        }
    }
    match engine.as_str() {
        "ivm" => {
            let mut q = Triangles::new();
            for &(a, b) in &initial {
                q.insert_edge(a, b);
            }
            for &(a, b, insert) in &stream {
                if insert {
                    q.insert_edge(a, b);
                } else {
                    q.delete_edge(a, b).expect("live");
                }
            }
            black_box(q.get(&()));
        }
        "hand" => {
            let mut h = Hand::default();
            for &(a, b) in &initial {
                h.update(a, b, 1);
            }
            for &(a, b, insert) in &stream {
                h.update(a, b, if insert { 1 } else { -1 });
            }
            black_box(h.count);
        }
        "raw" => {
            // The runtime's IVMε state alone, without the base relation map
            // the generated code keeps beside it (the payload comes from
            // the partition itself).
            let mut t: GraphTriangle<u32, Int> = GraphTriangle::new(0.5);
            let initial = initial.iter().map(|&(a, b)| (a, b, true));
            for (a, b, insert) in initial.chain(stream.iter().copied()) {
                let old = t.payload(&a, &b);
                let new = Int(old.0 + if insert { 1 } else { -1 });
                t.update(&a, &b, &old, &new);
            }
            black_box(t.count());
        }
        other => panic!("unknown engine {other}: ivm, raw or hand"),
    }
}
