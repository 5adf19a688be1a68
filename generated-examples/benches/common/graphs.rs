//! The triangle benchmarks' workloads: streams of edge inserts and deletes,
//! generated beforehand (not timed), over four kinds of graph.
//!
//! Each stream has two phases: N inserts of distinct edges (the build
//! phase), then a mixed phase of inserts and deletes of live edges. Every
//! edge inserted is absent at that point and every edge deleted is live,
//! so each relation tuple has multiplicity 1 and the database holds N
//! edges (give or take the adversarial hub's oscillation) throughout the
//! mixed phase.

use std::fmt;

use ivm::__private::HashMap;

use super::Rng;

/// A kind of graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Both endpoints uniform over N/8 vertices (average degree 16).
    Uniform,
    /// N/8 vertices; half the edges join one of 8 hub vertices (as source
    /// or as destination, at random) to a uniform vertex, so each hub's in-
    /// and out-degree is about N/32: a constant share of the graph.
    Hubs,
    /// N/4 vertices; each edge joins a vertex drawn by a Zipf law of
    /// exponent 1.2 (by rank, from a precomputed CDF) to a uniform vertex,
    /// in a random direction: power-law degrees, the top vertex taking
    /// about 10% of the edges at every N.
    PowerLaw,
    /// An adversary of IVMε at ε = 1/2: a uniform background, and one hub
    /// whose out-degree the mixed phase moves back and forth between just
    /// below ½·√M and just above 3/2·√M (M the IVMε size threshold
    /// reached at the end of the build), so that each crossing moves the
    /// hub between the light and heavy parts (minor rebalancing) about
    /// every √M updates, and every update of the hub walks the out-edges of
    /// a vertex that stays light.
    Adversarial,
}

impl Workload {
    /// Every workload, in the order the benchmark runs them.
    pub const ALL: [Workload; 4] = [
        Workload::Uniform,
        Workload::Hubs,
        Workload::PowerLaw,
        Workload::Adversarial,
    ];

    /// A short name, for tables, CSV and file names.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Uniform => "uniform",
            Workload::Hubs => "hubs",
            Workload::PowerLaw => "power_law",
            Workload::Adversarial => "adversarial",
        }
    }

    /// The workload with this name.
    pub fn from_name(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One update of the mixed phase.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub src: u32,
    pub dst: u32,
    /// An insert of an absent edge, or else a delete of a live one.
    pub insert: bool,
}

/// A pre-generated stream.
pub struct Stream {
    /// The build phase: N distinct edges, inserted in this order.
    pub build: Vec<(u32, u32)>,
    /// The mixed phase.
    pub mixed: Vec<Op>,
    /// What the stream was made for, for the report.
    pub note: String,
}

impl Stream {
    /// The bytes the stream takes, for the memory report.
    pub fn bytes(&self) -> usize {
        self.build.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.mixed.capacity() * std::mem::size_of::<Op>()
    }
}

/// The live edges while a stream is generated: a set with uniform sampling.
struct Live {
    list: Vec<(u32, u32)>,
    at: HashMap<(u32, u32), usize>,
}

impl Live {
    fn with_capacity(n: usize) -> Self {
        let mut at = ivm::__private::new_map();
        at.reserve(n);
        Live {
            list: Vec::with_capacity(n),
            at,
        }
    }

    fn contains(&self, e: (u32, u32)) -> bool {
        self.at.contains_key(&e)
    }

    /// Adds `e` unless it is live; says whether it was added.
    fn add(&mut self, e: (u32, u32)) -> bool {
        if self.at.contains_key(&e) {
            return false;
        }
        self.at.insert(e, self.list.len());
        self.list.push(e);
        true
    }

    fn remove(&mut self, e: (u32, u32)) {
        let k = self.at.remove(&e).expect("live edge");
        self.list.swap_remove(k);
        if let Some(&moved) = self.list.get(k) {
            self.at.insert(moved, k);
        }
    }

    /// Removes and returns a live edge chosen uniformly.
    fn remove_random(&mut self, rng: &mut Rng) -> (u32, u32) {
        let e = self.list[below(rng, self.list.len() as u64) as usize];
        self.remove(e);
        e
    }
}

/// A uniform draw in 0..n.
fn below(rng: &mut Rng, n: u64) -> u64 {
    rng.next() % n
}

/// A uniform draw in [0, 1).
fn unit(rng: &mut Rng) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// Zipf's law over ranks 0..n: P(k) ∝ 1/(k+1)^s, drawn through its CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, s: f64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for k in 1..=n {
            total += (k as f64).powf(-s);
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        Zipf { cdf }
    }

    fn draw(&self, rng: &mut Rng) -> u32 {
        let u = unit(rng);
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1) as u32
    }
}

/// The IVMε size threshold M after N distinct edge inserts into an empty
/// graph-form triangle query: the one edge relation is the database, and
/// M doubles while N ≥ M.
pub fn threshold_m(n: usize) -> usize {
    let mut m = 1;
    while n >= m {
        m *= 2;
    }
    m
}

/// The stream of a workload: `n` inserts, then `ops` mixed updates (for
/// the adversarial workload, whole oscillations of the hub, at least
/// `ops` updates and two oscillations). The same (workload, n, ops) gives
/// the same stream.
pub fn stream(workload: Workload, n: usize, ops: usize) -> Stream {
    let mut rng = Rng(0x5eed_0000 ^ (n as u64).rotate_left(17) ^ workload as u64);
    match workload {
        Workload::Uniform => {
            let v = (n as u64 / 8).max(16);
            random_stream(n, ops, &mut rng, |rng| (below(rng, v), below(rng, v)))
                .with_note(format!("{v} vertices"))
        }
        Workload::Hubs => {
            let v = (n as u64 / 8).max(16);
            random_stream(n, ops, &mut rng, |rng| {
                if rng.next() & 1 == 0 {
                    let hub = below(rng, 8);
                    let other = below(rng, v);
                    if rng.next() & 1 == 0 {
                        (hub, other)
                    } else {
                        (other, hub)
                    }
                } else {
                    (below(rng, v), below(rng, v))
                }
            })
            .with_note(format!("{v} vertices, 8 hubs"))
        }
        Workload::PowerLaw => {
            let v = (n / 4).max(16);
            let zipf = Zipf::new(v, 1.2);
            random_stream(n, ops, &mut rng, |rng| {
                let skewed = u64::from(zipf.draw(rng));
                let other = below(rng, v as u64);
                if rng.next() & 1 == 0 {
                    (skewed, other)
                } else {
                    (other, skewed)
                }
            })
            .with_note(format!("{v} vertices, Zipf 1.2"))
        }
        Workload::Adversarial => adversarial(n, ops, &mut rng),
    }
}

impl Stream {
    fn with_note(mut self, note: String) -> Self {
        self.note = note;
        self
    }
}

/// N distinct edges drawn with `edge` (self-loops and live edges drawn
/// again), then `ops` updates alternating a delete of a uniformly chosen
/// live edge and an insert of a new edge drawn the same way.
fn random_stream(
    n: usize,
    ops: usize,
    rng: &mut Rng,
    mut edge: impl FnMut(&mut Rng) -> (u64, u64),
) -> Stream {
    let mut live = Live::with_capacity(n + ops);
    let mut fresh = |rng: &mut Rng, live: &mut Live| loop {
        let (a, b) = edge(rng);
        let e = (a as u32, b as u32);
        if a != b && live.add(e) {
            return e;
        }
    };
    let build: Vec<(u32, u32)> = (0..n).map(|_| fresh(rng, &mut live)).collect();
    let mixed = (0..ops)
        .map(|i| {
            if i % 2 == 0 {
                let (src, dst) = live.remove_random(rng);
                Op {
                    src,
                    dst,
                    insert: false,
                }
            } else {
                let (src, dst) = fresh(rng, &mut live);
                Op {
                    src,
                    dst,
                    insert: true,
                }
            }
        })
        .collect();
    Stream {
        build,
        mixed,
        note: String::new(),
    }
}

/// The adversary of IVMε at ε = 1/2 (see [`Workload::Adversarial`]).
///
/// With M the threshold after the build and θ = √M, the hub's out-degree
/// oscillates between `lo` = ⌈θ/2⌉ − 1 (below θ/2: a heavy value becomes
/// light) and `hi` = ⌈3θ/2⌉ (a light value becomes heavy). Its potential
/// out-neighbours are `hi` spokes, each with about N/(3·hi) out-edges, a
/// share of the graph that keeps them light (N/(3·hi) < M/(4.5·θ) = θ/4.5) while the
/// hub's minor rebalancing walks all of them, about N/3 tuples. Feeders
/// close triangles: each has an edge into the hub, and half of each
/// spoke's out-edges go to feeders. The rest of the N edges are uniform
/// over N/8 background vertices. The build inserts all of this in random
/// order, with the hub at degree `lo` (light); the mixed phase inserts hub
/// → spoke edges up to degree `hi`, deletes them down to `lo`, and so on.
fn adversarial(n: usize, ops: usize, rng: &mut Rng) -> Stream {
    // M after the build, unless the hub's first swing up doubles it (N
    // just below a power of two): then the doubled M, which holds from
    // there on (N never falls below M/4).
    let mut m = threshold_m(n);
    let (lo, hi) = loop {
        let theta = (m as f64).sqrt();
        let (lo, hi) = (
            (0.5 * theta).ceil() as usize - 1,
            (1.5 * theta).ceil() as usize,
        );
        if n + hi - lo < m {
            break (lo, hi);
        }
        m *= 2;
    };
    let v = (n as u64 / 8).max(16);
    let hub = v as u32;
    let spokes: Vec<u32> = (0..hi as u32).map(|i| hub + 1 + i).collect();
    let per_spoke = (n / (3 * hi)).max(1);

    let mut live = Live::with_capacity(n + hi);
    let mut build = Vec::with_capacity(n);
    // Feeders: `hi` background vertices with an edge into the hub.
    let mut feeders = Vec::with_capacity(hi);
    while feeders.len() < hi {
        let f = below(rng, v) as u32;
        if live.add((f, hub)) {
            feeders.push(f);
            build.push((f, hub));
        }
    }
    // The spokes' out-edges, half to feeders, half to the background.
    for &s in &spokes {
        let mut added = 0;
        while added < per_spoke {
            let t = if added % 2 == 0 {
                feeders[below(rng, feeders.len() as u64) as usize]
            } else {
                below(rng, v) as u32
            };
            if live.add((s, t)) {
                build.push((s, t));
                added += 1;
            }
        }
    }
    // The hub's first `lo` out-edges.
    for &s in &spokes[..lo] {
        assert!(live.add((hub, s)));
        build.push((hub, s));
    }
    // The uniform background.
    assert!(build.len() <= n, "N = {n} is too small for the adversary");
    while build.len() < n {
        let (a, b) = (below(rng, v) as u32, below(rng, v) as u32);
        if a != b && live.add((a, b)) {
            build.push((a, b));
        }
    }
    // Fisher–Yates: the build inserts all of it in random order.
    for i in (1..build.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        build.swap(i, j);
    }
    // The oscillation, in whole cycles.
    let cycle = 2 * (hi - lo);
    let cycles = ops.div_ceil(cycle).max(2);
    let mut mixed = Vec::with_capacity(cycles * cycle);
    for _ in 0..cycles {
        for &s in &spokes[lo..hi] {
            debug_assert!(!live.contains((hub, s)));
            mixed.push(Op {
                src: hub,
                dst: s,
                insert: true,
            });
        }
        for &s in spokes[lo..hi].iter().rev() {
            mixed.push(Op {
                src: hub,
                dst: s,
                insert: false,
            });
        }
    }
    Stream {
        build,
        mixed,
        note: format!(
            "M = 2^{}, hub out-degree {lo}..{hi}, {hi} spokes of out-degree {per_spoke}, cycle {cycle} updates",
            m.trailing_zeros()
        ),
    }
}
