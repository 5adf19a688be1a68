//! The workloads: pre-generated, seeded update streams, identical for every
//! engine (each engine's child process generates the same stream from the
//! same seed; generation is not timed).
//!
//! A stream is a load part (N updates, applied untimed in chunks of
//! 10 000) followed by the measured part: three rounds of three phases, one
//! per batch size (1, 100, 10 000). Each phase is a fixed slice of the
//! stream; an engine times its batches over a prefix of the slice (until a
//! time budget runs out) and applies the rest untimed, so that every engine
//! applies the whole stream and must end with the same result.

use std::ops::Range;

/// The batch sizes measured, in the order of the phases of a round.
pub const BATCHES: [usize; 3] = [1, 100, 10_000];
/// Rounds of the three phases; the figures are the medians over rounds.
pub const ROUNDS: usize = 3;
/// The chunk size of the untimed parts (the load and phase remainders).
pub const CHUNK: usize = 10_000;

/// xorshift64*: repeatable streams without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The update stream of one workload at one size.
pub struct Stream<U> {
    /// The initial database, applied untimed.
    pub load: Vec<U>,
    /// Under inserts and deletes: updates applied untimed after the load,
    /// so that the maps reach their steady state (their first resizes on
    /// tombstones) before the rounds.
    pub warm_up: Vec<U>,
    /// The measured part: the phases' slices, back to back.
    pub measured: Vec<U>,
    /// For each phase in order: its batch size and its slice of `measured`.
    pub phases: Vec<(usize, Range<usize>)>,
}

/// The workloads of the benchmark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Workload {
    /// (a) `Q(k) = R(k, x) * S(k, y)` over `Int` with `keys` distinct keys:
    /// q-hierarchical, inserts then mixed deletes and inserts.
    Grouped { keys: u32 },
    /// (b) `Q() = E(a, b) * E(b, c) * E(c, a)` over `Int`, on a uniform
    /// random graph or a power-law one (see [`Graph`]): inserts, then
    /// mixed deletes and inserts.
    Triangle { graph: Graph },
    /// (c) `Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) *
    /// Onward(hub, onward)` over `MinPlus`, insert-only (two layers).
    Connection,
    /// (c) `Q(account) = Logins(account, device) * Flagged(device)` over
    /// `Bool`, insert-only (CROWN).
    Exposed,
}

impl Workload {
    pub const ALL: [Workload; 7] = [
        Workload::Grouped { keys: 1_000 },
        Workload::Grouped { keys: 100_000 },
        Workload::Triangle {
            graph: Graph::Uniform,
        },
        Workload::Triangle {
            graph: Graph::PowerLaw,
        },
        Workload::Triangle { graph: Graph::Core },
        Workload::Connection,
        Workload::Exposed,
    ];

    /// A short name, used on the command line and in file names.
    pub fn id(self) -> &'static str {
        match self {
            Workload::Grouped { keys: 1_000 } => "grouped_k1e3",
            Workload::Grouped { .. } => "grouped_k1e5",
            Workload::Triangle {
                graph: Graph::Uniform,
            } => "triangle_uniform",
            Workload::Triangle {
                graph: Graph::PowerLaw,
            } => "triangle_skewed",
            Workload::Triangle { graph: Graph::Core } => "triangle_core",
            Workload::Connection => "cheapest_connection",
            Workload::Exposed => "exposed_accounts",
        }
    }

    pub fn from_id(id: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.id() == id)
    }

    /// The heading of its tables.
    pub fn title(self) -> String {
        match self {
            Workload::Grouped { keys } => format!(
                "(a) grouped count, {} keys: `Q(k) = R(k, x) * S(k, y)` over `Int` (view tree)",
                pow10(keys as usize)
            ),
            Workload::Triangle { graph } => format!(
                "(b) triangle count, {}: `Q() = E(a, b) * E(b, c) * E(c, a)` over `Int` (IVMε, ε = 1/2)",
                graph.name()
            ),
            Workload::Connection => {
                "(c) cheapest connection, insert-only: `Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward)` over `MinPlus` (two layers)".to_string()
            }
            Workload::Exposed => {
                "(c) exposed accounts, insert-only: `Q(account) = Logins(account, device) * Flagged(device)` over `Bool` (CROWN)".to_string()
            }
        }
    }

    /// Whether the measured part only inserts (the database grows).
    pub fn insert_only(self) -> bool {
        matches!(self, Workload::Connection | Workload::Exposed)
    }
}

/// `10^k` when `n` is a power of ten, else `n`.
pub fn pow10(n: usize) -> String {
    let exp = (n as f64).log10().round() as u32;
    if 10_usize.pow(exp) == n {
        format!("10^{exp}")
    } else {
        n.to_string()
    }
}

/// The length of each phase's slice (batch sizes 1, 100, 10 000). Under
/// inserts and deletes the database keeps N live tuples, so the slices are
/// as long as the time budget can use. Under inserts only the database
/// grows by the measured inserts, so the slices are a fraction of N (at
/// least one batch).
fn phase_lengths(workload: Workload, n: usize, quick: bool) -> [usize; 3] {
    // The triangle count is slower per update (and its peers' untimed
    // remainders costlier), so its slices are shorter.
    let cap = match (workload, quick) {
        (Workload::Triangle { .. }, true) => [10_000, 20_000, 30_000],
        (Workload::Triangle { .. }, false) => [20_000, 30_000, 30_000],
        (_, true) => [20_000, 50_000, 50_000],
        (_, false) => [100_000, 200_000, 200_000],
    };
    if !workload.insert_only() {
        return cap;
    }
    let round = |len: usize, b: usize| (len / b).max(1) * b;
    [
        (n / 40).clamp(1, cap[0]),
        round((n / 20).min(cap[1]), 100),
        round((n / 20).min(cap[2]), 10_000),
    ]
}

/// The warm-up under inserts and deletes: N/2 updates, at most 20 000.
fn warm_up_length(n: usize) -> usize {
    (n / 2).min(20_000)
}

/// The phases' slices of a measured part, in order.
fn phases(lengths: [usize; 3]) -> (usize, Vec<(usize, Range<usize>)>) {
    let mut phases = Vec::new();
    let mut at = 0;
    for _ in 0..ROUNDS {
        for (b, len) in BATCHES.into_iter().zip(lengths) {
            phases.push((b, at..at + len));
            at += len;
        }
    }
    (at, phases)
}

// ---------------------------------------------------------------------------
// (a) The grouped count.

/// An update of `R` (`s == false`) or `S`: insert or delete `(k, v)`.
#[derive(Clone, Copy, Debug)]
pub struct Grouped {
    pub s: bool,
    pub insert: bool,
    pub k: u32,
    pub v: u32,
}

/// N/2 tuples in each relation over `keys` keys (the other column drawn from
/// 2^24 values), then pairs of a delete of a random live tuple and an insert
/// of a fresh one into the same relation, so N stays constant.
pub fn grouped(n: usize, keys: u32, quick: bool) -> Stream<Grouped> {
    let mut rng = Rng(0x9e37_79b9 ^ (n as u64) ^ (u64::from(keys) << 32));
    let mut live: [Vec<(u32, u32)>; 2] = [Vec::new(), Vec::new()];
    let fresh = |rng: &mut Rng| (rng.below(u64::from(keys)) as u32, rng.below(1 << 24) as u32);
    let mut load = Vec::with_capacity(n);
    for i in 0..n {
        let s = i % 2 == 1;
        let (k, v) = fresh(&mut rng);
        live[usize::from(s)].push((k, v));
        load.push(Grouped {
            s,
            insert: true,
            k,
            v,
        });
    }
    let (total, phases) = phases(phase_lengths(Workload::Grouped { keys }, n, quick));
    let warm = warm_up_length(n);
    let mut measured = Vec::with_capacity(warm + total);
    let mut rel = false;
    for i in 0..warm + total {
        if i % 2 == 0 {
            rel = rng.next() % 2 == 1;
            let side = &mut live[usize::from(rel)];
            let (k, v) = side.swap_remove(rng.below(side.len() as u64) as usize);
            measured.push(Grouped {
                s: rel,
                insert: false,
                k,
                v,
            });
        } else {
            let (k, v) = fresh(&mut rng);
            live[usize::from(rel)].push((k, v));
            measured.push(Grouped {
                s: rel,
                insert: true,
                k,
                v,
            });
        }
    }
    let warm_up = measured.drain(..warm).collect();
    Stream {
        load,
        warm_up,
        measured,
        phases,
    }
}

// ---------------------------------------------------------------------------
// (b) The triangle count.

/// An insert or delete of the edge `a -> b` (never a self-loop).
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    pub insert: bool,
    pub a: u32,
    pub b: u32,
}

/// The graphs of the triangle count: N edges over N/8 vertices, whose
/// endpoints are drawn uniformly or with probability proportional to a
/// vertex weight `(i + 1)^-a` (Chung–Lu).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Graph {
    /// Both endpoints uniform: every vertex light, the walks of first
    /// order short.
    Uniform,
    /// a = 0.75: degree exponent about 2.3, as in web and social graphs;
    /// the largest degree grows as N^0.8, and edges between two
    /// high-degree vertices are rare.
    PowerLaw,
    /// a = 1: degree exponent about 2, the largest degrees nearly linear
    /// in N (a share of the edges that falls only as 1/ln N); the
    /// high-degree vertices are joined to each other
    /// often (a dense core), so an update between two of them makes first
    /// order walk two long lists.
    Core,
}

impl Graph {
    fn weight_exponent(self) -> Option<f64> {
        match self {
            Graph::Uniform => None,
            Graph::PowerLaw => Some(-0.75),
            Graph::Core => Some(-1.0),
        }
    }

    /// Keeps the first two graphs' streams as they were when the flag
    /// was a `bool`.
    fn seed(self) -> u64 {
        match self {
            Graph::Uniform => 0,
            Graph::PowerLaw => 1,
            Graph::Core => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Graph::Uniform => "uniform graph",
            Graph::PowerLaw => "power-law graph",
            Graph::Core => "power-law graph with a dense core",
        }
    }
}

/// Draws vertices: uniformly, or with probability proportional to the
/// graph's vertex weight (see [`Graph`]).
struct Vertices {
    cumulative: Option<Vec<f64>>,
    count: u64,
}

impl Vertices {
    fn new(count: u64, graph: Graph) -> Self {
        let cumulative = graph.weight_exponent().map(|exponent| {
            let mut total = 0.0;
            (0..count)
                .map(|i| {
                    total += ((i + 1) as f64).powf(exponent);
                    total
                })
                .collect()
        });
        Vertices { cumulative, count }
    }

    fn draw(&self, rng: &mut Rng) -> u32 {
        match &self.cumulative {
            None => rng.below(self.count) as u32,
            Some(c) => {
                let x = rng.unit() * c[c.len() - 1];
                c.partition_point(|&y| y <= x).min(c.len() - 1) as u32
            }
        }
    }

    fn edge(&self, rng: &mut Rng) -> (u32, u32) {
        loop {
            let (a, b) = (self.draw(rng), self.draw(rng));
            if a != b {
                return (a, b);
            }
        }
    }
}

/// N edges over N/8 vertices (average degree 16), then pairs of a delete of
/// a random live edge and an insert of a fresh one, so N stays constant.
/// Edges may repeat (the count weighs them by multiplicity, in every
/// engine); there are no self-loops.
pub fn triangle(n: usize, graph: Graph, quick: bool) -> Stream<Edge> {
    let mut rng = Rng(0x7419_a3c5 ^ (n as u64) ^ graph.seed());
    let vertices = Vertices::new((n as u64 / 8).max(16), graph);
    let mut live = Vec::with_capacity(n);
    let mut load = Vec::with_capacity(n);
    for _ in 0..n {
        let (a, b) = vertices.edge(&mut rng);
        live.push((a, b));
        load.push(Edge { insert: true, a, b });
    }
    let (total, phases) = phases(phase_lengths(Workload::Triangle { graph }, n, quick));
    let warm = warm_up_length(n);
    let mut measured = Vec::with_capacity(warm + total);
    for i in 0..warm + total {
        if i % 2 == 0 {
            let (a, b) = live.swap_remove(rng.below(live.len() as u64) as usize);
            measured.push(Edge {
                insert: false,
                a,
                b,
            });
        } else {
            let (a, b) = vertices.edge(&mut rng);
            live.push((a, b));
            measured.push(Edge { insert: true, a, b });
        }
    }
    let warm_up = measured.drain(..warm).collect();
    Stream {
        load,
        warm_up,
        measured,
        phases,
    }
}

// ---------------------------------------------------------------------------
// (c) The insert-only queries: the streams of
// generated-examples/benches/insert_only.rs.

/// `hubs` popular values, one of which is drawn with probability
/// `percent`%, among `domain` others drawn uniformly.
fn skewed(rng: &mut Rng, hubs: u64, percent: u64, domain: u64) -> u64 {
    if rng.below(100) < percent {
        rng.below(hubs)
    } else {
        hubs + rng.below(domain)
    }
}

/// An insert into `CheapestConnection`, with its price.
#[derive(Clone, Copy, Debug)]
pub enum Connection {
    Feeder(u32, u32, i64),
    Route(u32, u32, i64),
    Onward(u32, u32, i64),
}

/// Over N/20 airports, 8 of them major hubs that take a quarter of the
/// routes and onward flights: 40% feeder flights, 30% routes, 30% onward
/// flights, each with a price (a repeated flight keeps its cheapest price).
pub fn connection(n: usize, quick: bool) -> Stream<Connection> {
    let mut rng = Rng(0xc0ec7 ^ n as u64);
    let airports = (n as u64 / 20).max(64);
    let (total, phases) = phases(phase_lengths(Workload::Connection, n, quick));
    let mut all: Vec<Connection> = (0..n + total)
        .map(|_| {
            let kind = rng.below(10);
            let uniform = |rng: &mut Rng| rng.below(airports) as u32;
            let hub = |rng: &mut Rng| skewed(rng, 8, 25, airports - 8) as u32;
            if kind < 4 {
                let (origin, feeder) = (uniform(&mut rng), uniform(&mut rng));
                Connection::Feeder(origin, feeder, 50 + rng.below(450) as i64)
            } else if kind < 7 {
                let (origin, hub) = (uniform(&mut rng), hub(&mut rng));
                Connection::Route(origin, hub, 100 + rng.below(900) as i64)
            } else {
                let (hub, onward) = (hub(&mut rng), uniform(&mut rng));
                Connection::Onward(hub, onward, 50 + rng.below(450) as i64)
            }
        })
        .collect();
    let measured = all.split_off(n);
    Stream {
        load: all,
        warm_up: Vec::new(),
        measured,
        phases,
    }
}

/// An insert into `ExposedAccounts`.
#[derive(Clone, Copy, Debug)]
pub enum Exposed {
    Login(u64, u64),
    Flag(u64),
}

/// 90% logins of N/4 accounts on devices (16 shared devices take a quarter
/// of the logins, the rest are among N/2), 10% devices flagged (drawn the
/// same way, so the shared devices are flagged again and again).
pub fn exposed(n: usize, quick: bool) -> Stream<Exposed> {
    let mut rng = Rng(0xe8905ed ^ n as u64);
    let accounts = (n as u64 / 4).max(16);
    let devices = (n as u64 / 2).max(16);
    let (total, phases) = phases(phase_lengths(Workload::Exposed, n, quick));
    let mut all: Vec<Exposed> = (0..n + total)
        .map(|_| {
            if rng.below(10) == 0 {
                Exposed::Flag(skewed(&mut rng, 16, 25, devices))
            } else {
                let account = rng.below(accounts);
                Exposed::Login(account, skewed(&mut rng, 16, 25, devices))
            }
        })
        .collect();
    let measured = all.split_off(n);
    Stream {
        load: all,
        warm_up: Vec::new(),
        measured,
        phases,
    }
}
