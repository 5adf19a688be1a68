//! The triangle count under edge updates: IVMε at several ε against the
//! first-order delta and the factorized baseline, on a uniform random graph and on a graph with hubs,
//! as the number of edges N grows. Prints per-update times and the slope of
//! each curve on a log-log scale; run with
//! `cargo bench -p ivm-generated-examples --bench triangles` (add `--quick`
//! for smaller sizes).

use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::Int;

mod common;
use common::Rng;

ivm::ivm_query! {
    #[strategy(ivm_eps(eps = 0.5))]
    query Eps50 {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

ivm::ivm_query! {
    #[strategy(ivm_eps(eps = 0.25))]
    query Eps25 {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

ivm::ivm_query! {
    #[strategy(ivm_eps(eps = 0.75))]
    query Eps75 {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

ivm::ivm_query! {
    #[strategy(factorized)]
    query Factorized {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

ivm::ivm_query! {
    #[strategy(first_order)]
    query FirstOrder {
        relation E(src: u32, dst: u32);
        Q() = E(a, b) * E(b, c) * E(c, a);
    }
}

/// What the benchmark needs of each engine.
trait Engine {
    fn make() -> Self;
    fn insert(&mut self, a: u32, b: u32);
    fn delete(&mut self, a: u32, b: u32);
    fn count(&self) -> Int;
}

macro_rules! engine {
    ($ty:ident) => {
        impl Engine for $ty {
            fn make() -> Self {
                $ty::new()
            }
            fn insert(&mut self, a: u32, b: u32) {
                self.insert_e(a, b);
            }
            fn delete(&mut self, a: u32, b: u32) {
                self.delete_e(a, b).expect("live edge");
            }
            fn count(&self) -> Int {
                self.get(&())
            }
        }
    };
}
engine!(Eps50);
engine!(Eps25);
engine!(Eps75);
engine!(FirstOrder);
engine!(Factorized);

/// An edge: over `vertices` vertices, or, with `hubs`, one endpoint in
/// two among 8 hub vertices.
fn edge(rng: &mut Rng, vertices: u64, hubs: bool) -> (u32, u32) {
    let end = |rng: &mut Rng| {
        if hubs && rng.next().is_multiple_of(2) {
            (rng.next() % 8) as u32
        } else {
            (rng.next() % vertices) as u32
        }
    };
    (end(rng), end(rng))
}

/// Builds N edges, then times `ops` updates (a deletion of a live edge and
/// an insertion of a new one, alternately); returns ns per update and the
/// final count.
fn run<E: Engine>(n: usize, hubs: bool, ops: usize) -> (f64, Int) {
    let mut rng = Rng(0x5eed ^ n as u64 ^ u64::from(hubs));
    let vertices = (n as u64 / 8).max(16);
    let mut engine = E::make();
    let mut live = Vec::with_capacity(n);
    for _ in 0..n {
        let (a, b) = edge(&mut rng, vertices, hubs);
        engine.insert(a, b);
        live.push((a, b));
    }
    let start = Instant::now();
    for i in 0..ops {
        if i % 2 == 0 {
            let k = (rng.next() % live.len() as u64) as usize;
            let (a, b) = live.swap_remove(k);
            engine.delete(a, b);
        } else {
            let (a, b) = edge(&mut rng, vertices, hubs);
            engine.insert(a, b);
            live.push((a, b));
        }
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / ops as f64;
    (ns, black_box(engine.count()))
}

fn slope(points: &[(usize, f64)]) -> f64 {
    let xs: Vec<f64> = points.iter().map(|&(n, _)| (n as f64).ln()).collect();
    let ys: Vec<f64> = points.iter().map(|&(_, t)| t.ln()).collect();
    let mx = xs.iter().sum::<f64>() / xs.len() as f64;
    let my = ys.iter().sum::<f64>() / ys.len() as f64;
    let num: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    num / den
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let sizes: &[usize] = if quick {
        &[4_000, 16_000, 64_000]
    } else {
        &[10_000, 20_000, 40_000, 80_000, 160_000]
    };
    let ops = 4_000;
    for hubs in [false, true] {
        println!(
            "\n{} graph, {ops} updates after building N edges (ns per update):",
            if hubs { "hub" } else { "uniform" }
        );
        println!(
            "{:>8} {:>12} {:>12} {:>12} {:>12} {:>12}",
            "N", "ivm_eps 0.25", "ivm_eps 0.5", "ivm_eps 0.75", "first_order", "factorized"
        );
        let mut curves: [Vec<(usize, f64)>; 5] = Default::default();
        for &n in sizes {
            let (t25, c25) = run::<Eps25>(n, hubs, ops);
            let (t50, c50) = run::<Eps50>(n, hubs, ops);
            let (t75, c75) = run::<Eps75>(n, hubs, ops);
            let (tfo, cfo) = run::<FirstOrder>(n, hubs, ops);
            let (tfa, cfa) = run::<Factorized>(n, hubs, ops);
            assert!(
                c25 == c50 && c50 == c75 && c75 == cfo && cfo == cfa,
                "the engines disagree on the count"
            );
            println!("{n:>8} {t25:>12.0} {t50:>12.0} {t75:>12.0} {tfo:>12.0} {tfa:>12.0}");
            for (curve, t) in curves.iter_mut().zip([t25, t50, t75, tfo, tfa]) {
                curve.push((n, t));
            }
        }
        println!(
            "{:>8} {:>12.2} {:>12.2} {:>12.2} {:>12.2} {:>12.2}",
            "slope",
            slope(&curves[0]),
            slope(&curves[1]),
            slope(&curves[2]),
            slope(&curves[3]),
            slope(&curves[4])
        );
    }
}
