//! Rejected queries taken on with `#[allow(intractable)]`: the view tree
//! over a general variable order (the compiler's choice) against
//! first-order deltas, on skewed data, side by side.
//!
//! Each relation holds N tuples. A few join keys (`HOT` of them) are heavy:
//! √N tuples of each relation meet at each, and the S tuples between heavy
//! keys are all there; the other tuples have keys drawn from N values. An
//! operation deletes a live tuple and inserts it back (so the database
//! stays the same), half the time a tuple at a heavy key, cycling through
//! the relations. The two engines run in alternating rounds on the same
//! operations, so drift in the machine's speed hits both alike; the table
//! gives the median ns per update of each, the median of the per-round
//! ratios, the slope of log(ns) over log(N) between successive sizes, and
//! the work per update in the RAM model, counted from the data: the view
//! tree's loop iterations (the bound `ivmc explain` prints: `deg_S(c)` for
//! `T`) and the first-order delta's derivations, with their slopes.
//! Run with `cargo bench -p ivm-generated-examples --bench higher_order`
//! (`-- 100000` for one size; `IVM_HOT=16` for more heavy keys;
//! `IVM_ONLY=chain` for one table).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

use ivm::semiring::Int;
use ivm_generated_examples::higher_order::{
    Below, BelowFirstOrder, MatChain, MatChainFirstOrder, MatMul, MatMulFirstOrder, PathCount,
    PathCountFirstOrder,
};

/// Heavy join keys per join variable, unless `IVM_HOT` says otherwise.
const HOT: u32 = 8;

fn hot() -> u32 {
    std::env::var("IVM_HOT")
        .ok()
        .and_then(|h| h.parse().ok())
        .unwrap_or(HOT)
}

/// The number of tuples per value of one column.
fn degrees(tuples: &[(u32, u32)], first: bool) -> HashMap<u32, u64> {
    let mut out = HashMap::new();
    for &(x, y) in tuples {
        *out.entry(if first { x } else { y }).or_insert(0) += 1;
    }
    out
}
const ROUNDS: usize = 11;
/// The largest N at which the first-order inequality join is loaded.
const FIRST_ORDER_UP_TO: u32 = 100_000;
/// The levels of a `u32` range-sum trie.
const RANGE_LEVELS: u32 = 8;

/// Deletes a live tuple of one relation of `engine` and inserts it back:
/// the relation picked by matching `rel` against the patterns, each with
/// its `delete_*` and `insert_*`.
macro_rules! refresh {
    ($engine:ident, $rel:expr, $x:expr, $y:expr; $($pat:pat => $delete:ident, $insert:ident);*) => {
        match $rel {
            $($pat => {
                $engine.$delete($x, $y).expect("live");
                $engine.$insert($x, $y);
            })*
        }
    };
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

/// A binary relation's tuples: the heavy ones first.
struct Relation {
    tuples: Vec<(u32, u32)>,
    heavy: usize,
}

/// `n` tuples whose first column (`key_first`) or second column is one of
/// the `HOT` heavy keys for √n tuples each; the rest have random keys
/// above the heavy ones. Duplicates are dropped (relations are sets here,
/// so a delete always finds its tuple).
fn relation(rng: &mut Rng, n: u32, key_first: bool) -> Relation {
    let hot = self::hot();
    let degree = (f64::from(n).sqrt() as u32).max(1);
    let mut seen = std::collections::HashSet::new();
    let mut tuples = Vec::new();
    for key in 0..hot {
        for _ in 0..degree {
            let other = hot + rng.below(n);
            let t = if key_first {
                (key, other)
            } else {
                (other, key)
            };
            if seen.insert(t) {
                tuples.push(t);
            }
        }
    }
    let heavy = tuples.len();
    while tuples.len() < n as usize {
        let t = (hot + rng.below(n), hot + rng.below(n));
        if seen.insert(t) {
            tuples.push(t);
        }
    }
    Relation { tuples, heavy }
}

/// The 3-path database: `R(a, b)` heavy in `b`, `S(b, c)` heavy in `c`
/// with every heavy pair, `T(c, d)` heavy in `c`.
struct PathData {
    r: Relation,
    s: Relation,
    t: Relation,
}

fn path_data(n: u32) -> PathData {
    let mut rng = Rng(n.into());
    let r = relation(&mut rng, n, false);
    let mut s = relation(&mut rng, n, false);
    // S also holds every pair of heavy keys: where first order pays most.
    for b in 0..hot() {
        for c in 0..hot() {
            if !s.tuples.contains(&(b, c)) {
                s.tuples.insert(0, (b, c));
                s.heavy += 1;
            }
        }
    }
    let t = relation(&mut rng, n, true);
    PathData { r, s, t }
}

/// The operations: (relation, tuple), half of them at a heavy key.
fn operations(rng: &mut Rng, relations: &[&Relation], count: usize) -> Vec<(usize, (u32, u32))> {
    (0..count)
        .map(|i| {
            let which = i % relations.len();
            let rel = relations[which];
            let at = if rng.below(2) == 0 {
                rng.below(rel.heavy as u32) as usize
            } else {
                rng.below(rel.tuples.len() as u32) as usize
            };
            (which, rel.tuples[at])
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `a` and `b` over `ops` in alternating rounds; the median ns per
/// update (two per operation) of each and the median ratio b/a.
fn side_by_side<T>(
    ops: &[T],
    per_round: usize,
    mut a: impl FnMut(&T),
    mut b: impl FnMut(&T),
) -> (f64, f64, f64) {
    let (mut ta, mut tb, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..=ROUNDS {
        let chunk = &ops[(round * per_round) % ops.len()..][..per_round];
        let start = Instant::now();
        chunk.iter().for_each(&mut a);
        let da = start.elapsed().as_secs_f64();
        let start = Instant::now();
        chunk.iter().for_each(&mut b);
        let db = start.elapsed().as_secs_f64();
        if round > 0 {
            ta.push(da * 1e9 / (2 * per_round) as f64);
            tb.push(db * 1e9 / (2 * per_round) as f64);
            ratio.push(db / da);
        }
    }
    (median(ta), median(tb), median(ratio))
}

/// The mean over `ops` of `work`.
fn mean_work<T>(ops: &[T], work: impl Fn(&T) -> u64) -> f64 {
    ops.iter().map(work).sum::<u64>() as f64 / ops.len() as f64
}

fn slope(prev: Option<(u32, f64)>, n: u32, ns: f64) -> String {
    match prev {
        Some((m, t)) => format!("{:.2}", (ns / t).ln() / (f64::from(n) / f64::from(m)).ln()),
        None => "-".to_owned(),
    }
}

fn path(sizes: &[u32]) {
    println!(
        "3-path count Q() = R(a, b) * S(b, c) * T(c, d), {} heavy keys of degree √N",
        hot()
    );
    header();
    let (mut pv, mut pf, mut wv, mut wf) = (None, None, None, None);
    for &n in sizes {
        let d = path_data(n);
        let mut vt = PathCount::new();
        let mut fo = PathCountFirstOrder::new();
        for &(a, b) in &d.r.tuples {
            vt.insert_r(a, b);
            fo.insert_r(a, b);
        }
        for &(c, e) in &d.t.tuples {
            vt.insert_t(c, e);
            fo.insert_t(c, e);
        }
        for &(b, c) in &d.s.tuples {
            vt.insert_s(b, c);
            fo.insert_s(b, c);
        }
        assert_eq!(vt.get(&()), fo.get(&()), "the engines agree");
        let mut rng = Rng(7);
        // At 10^6 an update at a heavy key costs first order ~10^4
        // derivations, and a few in 10^3 cost it 10^6 (an S tuple between
        // two heavy keys): rounds of 300 operations hold enough of those
        // for the median to be stable (`IVM_ROUND` sets another size).
        let per_round = if n >= 1_000_000 {
            std::env::var("IVM_ROUND")
                .ok()
                .and_then(|r| r.parse().ok())
                .unwrap_or(300)
        } else {
            600
        };
        let ops = operations(&mut rng, &[&d.r, &d.s, &d.t], per_round * (ROUNDS + 1));
        // The work of one update (each operation is two): the view tree
        // loops over S(·, c) for T; first order enumerates derivations.
        let (r_b, s_c, t_c) = (
            degrees(&d.r.tuples, false),
            degrees(&d.s.tuples, false),
            degrees(&d.t.tuples, true),
        );
        let deg = |m: &HashMap<u32, u64>, k: u32| m.get(&k).copied().unwrap_or(0);
        let s_by_b: HashMap<u32, Vec<u32>> =
            d.s.tuples.iter().fold(HashMap::new(), |mut m, &(b, c)| {
                m.entry(b).or_default().push(c);
                m
            });
        let s_by_c: HashMap<u32, Vec<u32>> =
            d.s.tuples.iter().fold(HashMap::new(), |mut m, &(b, c)| {
                m.entry(c).or_default().push(b);
                m
            });
        let work_vt = mean_work(
            &ops,
            |&(rel, (x, _))| if rel == 2 { deg(&s_c, x) } else { 0 },
        );
        let work_fo = mean_work(&ops, |&(rel, (x, y))| match rel {
            0 => s_by_b
                .get(&y)
                .map_or(0, |cs| cs.iter().map(|&c| deg(&t_c, c)).sum()),
            1 => deg(&r_b, x) * deg(&t_c, y),
            _ => s_by_c
                .get(&x)
                .map_or(0, |bs| bs.iter().map(|&b| deg(&r_b, b)).sum()),
        });
        let (tv, tf, ratio) = side_by_side(
            &ops,
            per_round,
            |&(rel, (x, y))| refresh!(vt, rel, x, y; 0 => delete_r, insert_r; 1 => delete_s, insert_s; _ => delete_t, insert_t),
            |&(rel, (x, y))| refresh!(fo, rel, x, y; 0 => delete_r, insert_r; 1 => delete_s, insert_s; _ => delete_t, insert_t),
        );
        assert_eq!(vt.get(&()), fo.get(&()), "the engines agree");
        black_box(vt.get(&()) == Int(0));
        row(n, (tv, tf, ratio), (work_vt, work_fo), (pv, pf, wv, wf));
        (pv, pf) = (Some((n, tv)), Some((n, tf)));
        (wv, wf) = (Some((n, work_vt)), Some((n, work_fo)));
    }
}

/// The table's header.
fn header() {
    println!(
        "{:>9} {:>13} {:>13} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>9}",
        "N",
        "view tree ns",
        "first ord ns",
        "ratio",
        "slope vt",
        "slope fo",
        "work vt",
        "work fo",
        "slope wvt",
        "slope wfo"
    );
}

type Previous = Option<(u32, f64)>;

/// One row: times, ratio and work, with their slopes from the previous
/// size.
fn row(
    n: u32,
    (tv, tf, ratio): (f64, f64, f64),
    (work_vt, work_fo): (f64, f64),
    (pv, pf, wv, wf): (Previous, Previous, Previous, Previous),
) {
    println!(
        "{n:>9} {tv:>13.0} {tf:>13.0} {ratio:>6.1}x {:>9} {:>9} {work_vt:>10.1} {work_fo:>10.1} {:>9} {:>9}",
        slope(pv, n, tv),
        slope(pf, n, tf),
        slope(wv, n, work_vt),
        slope(wf, n, work_fo)
    );
}

fn matmul(sizes: &[u32]) {
    println!(
        "matrix multiplication Q(i, k) = A(i, j) * B(j, k), {} heavy keys of degree √N",
        hot()
    );
    header();
    let (mut pv, mut pf, mut wv, mut wf) = (None, None, None, None);
    for &n in sizes {
        let mut rng = Rng(u64::from(n) + 1);
        let a = relation(&mut rng, n, false);
        let b = relation(&mut rng, n, true);
        let mut vt = MatMul::new();
        let mut fo = MatMulFirstOrder::new();
        for &(i, j) in &a.tuples {
            vt.insert_a(i, j);
            fo.insert_a(i, j);
        }
        for &(j, k) in &b.tuples {
            vt.insert_b(j, k);
            fo.insert_b(j, k);
        }
        assert_eq!(
            ivm::View::len(&vt),
            ivm::View::len(&fo),
            "the engines agree"
        );
        let per_round = if n >= 1_000_000 { 100 } else { 1000 };
        let ops = operations(&mut rng, &[&a, &b], per_round * (ROUNDS + 1));
        // Both loop over the other relation's tuples at `j`: the output
        // entries the update changes.
        let (a_j, b_j) = (degrees(&a.tuples, false), degrees(&b.tuples, true));
        let work = mean_work(&ops, |&(rel, (x, y))| {
            if rel == 0 {
                b_j.get(&y).copied().unwrap_or(0)
            } else {
                a_j.get(&x).copied().unwrap_or(0)
            }
        });
        let (tv, tf, ratio) = side_by_side(
            &ops,
            per_round,
            |&(rel, (x, y))| refresh!(vt, rel, x, y; 0 => delete_a, insert_a; _ => delete_b, insert_b),
            |&(rel, (x, y))| refresh!(fo, rel, x, y; 0 => delete_a, insert_a; _ => delete_b, insert_b),
        );
        assert_eq!(
            ivm::View::len(&vt),
            ivm::View::len(&fo),
            "the engines agree"
        );
        row(n, (tv, tf, ratio), (work, work), (pv, pf, wv, wf));
        (pv, pf) = (Some((n, tv)), Some((n, tf)));
        (wv, wf) = (Some((n, work)), Some((n, work)));
    }
}

/// The matrix chain `Q(i, l) = A(i, j) * B(j, k) * C(k, l)`: `A` and `B`
/// heavy in `j` (√N tuples at each of the heavy keys), and each `k` that a
/// heavy `j` reaches leads to the same `HOT` values of `l`, so many paths
/// `j → k → l` meet at few `l`. Two streams: updates to `A` only (the
/// matrix that changes, `B` and `C` fixed, as in F-IVM's matrix chain),
/// and updates to `A`, `B` and `C` in turn, where the view tree pays for
/// `B` and `C` what first order pays.
fn chain(sizes: &[u32]) {
    let hot = self::hot();
    for (stream, relations) in [
        ("updates to A", 1usize),
        ("updates to A, B and C in turn", 3),
    ] {
        println!(
            "matrix chain Q(i, l) = A(i, j) * B(j, k) * C(k, l), {hot} heavy keys of degree √N, {stream}"
        );
        header();
        let (mut pv, mut pf, mut wv, mut wf) = (None, None, None, None);
        for &n in sizes {
            let mut rng = Rng(u64::from(n) + 3);
            let a = relation(&mut rng, n, false);
            let b = relation(&mut rng, n, true);
            // C: the `k`s of heavy `B` tuples lead to the `hot` first `l`s.
            let mut seen = std::collections::HashSet::new();
            let mut c_tuples = Vec::new();
            for &(_, k) in &b.tuples[..b.heavy] {
                for l in 0..hot {
                    if seen.insert((k, l)) {
                        c_tuples.push((k, l));
                    }
                }
            }
            let heavy = c_tuples.len();
            // The other tuples lead elsewhere: none starts at a heavy `k`.
            let heavy_k: std::collections::HashSet<u32> =
                b.tuples[..b.heavy].iter().map(|&(_, k)| k).collect();
            while c_tuples.len() < n as usize {
                let t = (hot + rng.below(n), hot + rng.below(n));
                if !heavy_k.contains(&t.0) && seen.insert(t) {
                    c_tuples.push(t);
                }
            }
            let c = Relation {
                tuples: c_tuples,
                heavy,
            };
            let mut vt = MatChain::new();
            let mut fo = MatChainFirstOrder::new();
            for &(k, l) in &c.tuples {
                vt.insert_c(k, l);
                fo.insert_c(k, l);
            }
            for &(j, k) in &b.tuples {
                vt.insert_b(j, k);
                fo.insert_b(j, k);
            }
            for &(i, j) in &a.tuples {
                vt.insert_a(i, j);
                fo.insert_a(i, j);
            }
            let agree = |vt: &MatChain, fo: &MatChainFirstOrder| {
                let mut x: Vec<_> = ivm::View::iter(vt).collect();
                let mut y: Vec<_> = ivm::View::iter(fo).collect();
                x.sort_unstable();
                y.sort_unstable();
                assert_eq!(x, y, "the engines agree");
            };
            agree(&vt, &fo);
            let per_round = if n >= 1_000_000 { 40 } else { 200 };
            let rels: Vec<&Relation> = [&a, &b, &c].into_iter().take(relations).collect();
            let ops = operations(&mut rng, &rels, per_round * (ROUNDS + 1));
            // The work in the RAM model: the view tree's loop iterations
            // (`ivmc explain`: deg_V_k(j) for A, deg_C(k) · deg_A(j) for B,
            // deg_B(k) · deg_A(j) for C) and first order's derivations.
            let group = |tuples: &[(u32, u32)], first: bool| -> HashMap<u32, Vec<u32>> {
                tuples.iter().fold(HashMap::new(), |mut m, &(x, y)| {
                    let (key, other) = if first { (x, y) } else { (y, x) };
                    m.entry(key).or_default().push(other);
                    m
                })
            };
            let (b_by_j, b_by_k, c_by_k, a_by_j) = (
                group(&b.tuples, true),
                group(&b.tuples, false),
                group(&c.tuples, true),
                group(&a.tuples, false),
            );
            let deg = |m: &HashMap<u32, Vec<u32>>, k: u32| m.get(&k).map_or(0, Vec::len) as u64;
            let reached = |j: u32| -> u64 {
                let mut ls: Vec<u32> = b_by_j
                    .get(&j)
                    .into_iter()
                    .flatten()
                    .flat_map(|k| c_by_k.get(k).into_iter().flatten().copied())
                    .collect();
                ls.sort_unstable();
                ls.dedup();
                ls.len() as u64
            };
            let paths = |j: u32| -> u64 {
                b_by_j
                    .get(&j)
                    .into_iter()
                    .flatten()
                    .map(|&k| deg(&c_by_k, k))
                    .sum()
            };
            let work_vt = mean_work(&ops, |&(rel, (x, y))| match rel {
                0 => reached(y),
                1 => deg(&c_by_k, y) * deg(&a_by_j, x),
                _ => b_by_k
                    .get(&x)
                    .into_iter()
                    .flatten()
                    .map(|&j| deg(&a_by_j, j))
                    .sum(),
            });
            let work_fo = mean_work(&ops, |&(rel, (x, y))| match rel {
                0 => paths(y),
                1 => deg(&c_by_k, y) * deg(&a_by_j, x),
                _ => b_by_k
                    .get(&x)
                    .into_iter()
                    .flatten()
                    .map(|&j| deg(&a_by_j, j))
                    .sum(),
            });
            let (tv, tf, ratio) = side_by_side(
                &ops,
                per_round,
                |&(rel, (x, y))| refresh!(vt, rel, x, y; 0 => delete_a, insert_a; 1 => delete_b, insert_b; _ => delete_c, insert_c),
                |&(rel, (x, y))| refresh!(fo, rel, x, y; 0 => delete_a, insert_a; 1 => delete_b, insert_b; _ => delete_c, insert_c),
            );
            agree(&vt, &fo);
            row(n, (tv, tf, ratio), (work_vt, work_fo), (pv, pf, wv, wf));
            (pv, pf) = (Some((n, tv)), Some((n, tf)));
            (wv, wf) = (Some((n, work_vt)), Some((n, work_fo)));
        }
        println!();
    }
}

fn inequality(sizes: &[u32]) {
    println!("inequality join Q() = R(a, x) * S(b, y) * {{ x < y }}, lifts a and b, keys uniform");
    println!(
        "{:>9} {:>13} {:>13} {:>13} {:>7} {:>11} {:>9} {:>9} {:>10}",
        "N",
        "range alone",
        "range ns",
        "first ord ns",
        "ratio",
        "slope alone",
        "slope fo",
        "work rj",
        "work fo"
    );
    let (mut pa, mut pf) = (None, None);
    for &n in sizes {
        let mut rng = Rng(u64::from(n) + 2);
        let r = relation(&mut rng, n, false);
        let s = relation(&mut rng, n, false);
        // First order visits each of the ~N²/2 joining pairs while it
        // loads: beyond `FIRST_ORDER_UP_TO` tuples it does not finish, and
        // only the range join runs.
        let with_fo = n <= FIRST_ORDER_UP_TO;
        let mut rj = Below::new();
        let mut fo = BelowFirstOrder::new();
        for (&(x, a), &(y, b)) in r.tuples.iter().zip(&s.tuples) {
            let (a, b) = (i64::from(a % 7), i64::from(b % 5));
            rj.insert_r(a, x);
            rj.insert_s(b, y);
            if with_fo {
                fo.insert_r(a, x);
                fo.insert_s(b, y);
            }
        }
        // Each operation deletes a tuple and inserts it back.
        let per_round = if with_fo { 200 } else { 2000 };
        let ops = operations(&mut rng, &[&r, &s], per_round * (ROUNDS + 1));
        let mut range_step = |&(rel, (k, v)): &(usize, (u32, u32))| {
            let v = i64::from(v % if rel == 0 { 7 } else { 5 });
            if rel == 0 {
                rj.delete_r(v, k).expect("live");
                rj.insert_r(v, k);
            } else {
                rj.delete_s(v, k).expect("live");
                rj.insert_s(v, k);
            }
        };
        // The range join alone: beside first order, whose scans evict its
        // trie from the cache between rounds, it runs cold.
        let (alone, _, _) = side_by_side(&ops, per_round, &mut range_step, |_| {});
        let work_rj = 2 * RANGE_LEVELS;
        if with_fo {
            let (tv, tf, ratio) =
                side_by_side(&ops, per_round, &mut range_step, |&(rel, (k, v))| {
                    let v = i64::from(v % if rel == 0 { 7 } else { 5 });
                    if rel == 0 {
                        fo.delete_r(v, k).expect("live");
                        fo.insert_r(v, k);
                    } else {
                        fo.delete_s(v, k).expect("live");
                        fo.insert_s(v, k);
                    }
                });
            assert_eq!(rj.get(&()), fo.get(&()), "the engines agree");
            println!(
                "{n:>9} {alone:>13.0} {tv:>13.0} {tf:>13.0} {ratio:>6.1}x {:>11} {:>9} {work_rj:>9} {n:>10}",
                slope(pa, n, alone),
                slope(pf, n, tf),
            );
            pf = Some((n, tf));
        } else {
            println!(
                "{n:>9} {alone:>13.0} {:>13} {:>13} {:>7} {:>11} {:>9} {work_rj:>9} {:>10}",
                "-",
                "-",
                "-",
                slope(pa, n, alone),
                "-",
                "-"
            );
        }
        pa = Some((n, alone));
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a number picks one size.
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    // `IVM_ONLY=path|matmul|chain|inequality` runs one table.
    let only = std::env::var("IVM_ONLY").unwrap_or_default();
    let runs = |name: &str| only.is_empty() || only == name;
    if runs("path") {
        path(&sizes);
        println!();
    }
    if runs("matmul") {
        matmul(&sizes);
        println!();
    }
    if runs("chain") {
        chain(&sizes);
    }
    if !runs("inequality") {
        return;
    }
    let mut larger = sizes;
    larger.push(larger.last().copied().unwrap_or(1_000_000) * 4);
    inequality(&larger);
}
