//! Hand-written delta code for each query: the floor the generated code is
//! measured against. The same maps and hasher as the generated code
//! (`ivm::__private::HashMap`: hashbrown with foldhash), plain `i64`
//! arithmetic without overflow checks, and only the state each query needs.

use ivm::__private::{Entry, HashMap};

use crate::measure::Engine;
use crate::workloads::{Connection, Edge, Exposed, Grouped};

/// Adds `d` to `map[key]`, removing the entry when it reaches zero; panics
/// when `d` retracts an absent entry.
fn add<K: std::hash::Hash + Eq>(map: &mut HashMap<K, i64>, key: K, d: i64) {
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

// ---------------------------------------------------------------------------
// (a) Q(k) = Σ_x R(k, x) · Σ_y S(k, y): the base relations (multiplicities)
// and one sum per key and relation.

#[derive(Default)]
pub struct HandGrouped {
    base: [HashMap<(u32, u32), i64>; 2],
    sum: [HashMap<u32, i64>; 2],
}

impl HandGrouped {
    fn get(&self, k: u32) -> i64 {
        match (self.sum[0].get(&k), self.sum[1].get(&k)) {
            (Some(r), Some(s)) => r * s,
            _ => 0,
        }
    }
}

impl Engine for HandGrouped {
    type Update = Grouped;
    type Row = (u32, i64);

    fn new() -> Self {
        Self::default()
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Grouped], read: bool) -> i64 {
        for u in batch {
            let side = usize::from(u.s);
            let d = if u.insert { 1 } else { -1 };
            add(&mut self.base[side], (u.k, u.v), d);
            add(&mut self.sum[side], u.k, d);
        }
        if !read {
            return 0;
        }
        batch
            .iter()
            .fold(0, |acc, u| acc.wrapping_add(self.get(u.k)))
    }

    fn rows(&mut self) -> Vec<(u32, i64)> {
        let mut rows: Vec<_> = self.sum[0]
            .keys()
            .map(|&k| (k, self.get(k)))
            .filter(|&(_, v)| v != 0)
            .collect();
        rows.sort_unstable();
        rows
    }
}

// ---------------------------------------------------------------------------
// (b) The first-order delta of the triangle count: adjacency maps both
// ways; a change d of edge a -> b changes the count by 3·d·Σ_c E(b, c)·E(c, a)
// (no self-loops, so the edge occurs once per triangle), walking the
// smaller of out(b) and in(a).

#[derive(Default)]
pub struct HandTriangle {
    out: HashMap<u32, HashMap<u32, i64>>,
    inn: HashMap<u32, HashMap<u32, i64>>,
    count: i64,
}

fn adjust(adj: &mut HashMap<u32, HashMap<u32, i64>>, from: u32, to: u32, d: i64) {
    let inner = adj.entry(from).or_default();
    add(inner, to, d);
    if inner.is_empty() {
        adj.remove(&from);
    }
}

impl HandTriangle {
    fn update(&mut self, a: u32, b: u32, d: i64) {
        let wedges = match (self.out.get(&b), self.inn.get(&a)) {
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

impl Engine for HandTriangle {
    type Update = Edge;
    type Row = i64;

    fn new() -> Self {
        Self::default()
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Edge], _read: bool) -> i64 {
        for e in batch {
            self.update(e.a, e.b, if e.insert { 1 } else { -1 });
        }
        self.count
    }

    fn rows(&mut self) -> Vec<i64> {
        vec![self.count]
    }
}

// ---------------------------------------------------------------------------
// (c) Cheapest connection under inserts: the cheapest feeder per origin,
// the cheapest onward flight per hub, the cheapest price per route.

#[derive(Default)]
pub struct HandConnection {
    feeder: HashMap<u32, i64>,
    route: HashMap<(u32, u32), i64>,
    onward: HashMap<u32, i64>,
}

fn lower<K: std::hash::Hash + Eq>(map: &mut HashMap<K, i64>, key: K, price: i64) {
    map.entry(key)
        .and_modify(|m| *m = (*m).min(price))
        .or_insert(price);
}

impl HandConnection {
    fn get(&self, o: u32, h: u32) -> Option<i64> {
        Some(self.route.get(&(o, h))? + self.feeder.get(&o)? + self.onward.get(&h)?)
    }
}

impl Engine for HandConnection {
    type Update = Connection;
    type Row = (u32, u32, i64);

    fn new() -> Self {
        Self::default()
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Connection], read: bool) -> i64 {
        for u in batch {
            match *u {
                Connection::Feeder(o, _, p) => lower(&mut self.feeder, o, p),
                Connection::Route(o, h, p) => lower(&mut self.route, (o, h), p),
                Connection::Onward(h, _, p) => lower(&mut self.onward, h, p),
            }
        }
        if !read {
            return 0;
        }
        batch.iter().fold(0, |acc, u| match *u {
            Connection::Route(o, h, _) => acc.wrapping_add(self.get(o, h).unwrap_or(i64::MAX)),
            _ => acc,
        })
    }

    fn rows(&mut self) -> Vec<(u32, u32, i64)> {
        let mut rows: Vec<_> = self
            .route
            .keys()
            .filter_map(|&(o, h)| Some((o, h, self.get(o, h)?)))
            .collect();
        rows.sort_unstable();
        rows
    }
}

// ---------------------------------------------------------------------------
// (c) Exposed accounts under inserts: the flagged devices, the accounts
// waiting on each unflagged device, and the exposed accounts.

#[derive(Default)]
pub struct HandExposed {
    flagged: HashMap<u64, ()>,
    waiting: HashMap<u64, Vec<u64>>,
    exposed: HashMap<u64, ()>,
}

impl Engine for HandExposed {
    type Update = Exposed;
    type Row = u64;

    fn new() -> Self {
        Self::default()
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Exposed], read: bool) -> i64 {
        for u in batch {
            match *u {
                Exposed::Login(a, d) => {
                    if self.flagged.contains_key(&d) {
                        self.exposed.insert(a, ());
                    } else {
                        self.waiting.entry(d).or_default().push(a);
                    }
                }
                Exposed::Flag(d) => {
                    if self.flagged.insert(d, ()).is_none() {
                        for a in self.waiting.remove(&d).unwrap_or_default() {
                            self.exposed.insert(a, ());
                        }
                    }
                }
            }
        }
        if !read {
            return 0;
        }
        batch.iter().fold(0, |acc, u| match *u {
            Exposed::Login(a, _) => acc + i64::from(self.exposed.contains_key(&a)),
            Exposed::Flag(_) => acc,
        })
    }

    fn rows(&mut self) -> Vec<u64> {
        let mut rows: Vec<_> = self.exposed.keys().copied().collect();
        rows.sort_unstable();
        rows
    }
}
