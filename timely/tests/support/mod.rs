//! What the cluster tests and the sharding benchmark share: random streams
//! of epochs for a few generated queries, and the rows of the TPC-H
//! generator as changes of a SQL view's rule.

#![allow(dead_code, reason = "each test or benchmark uses part of it")]

use ivm::View;
use ivm::semiring::{Int, MinPlus};
use ivm::sql::{Date, Decimal};
use ivm_generated_examples::append_only::CheapestConnectionChange;
use ivm_generated_examples::graph::TrianglesChange;
use ivm_generated_examples::retail::RevenueByStoreChange;
use ivm_generated_examples::tpch::data::{Customer, Database, Lineitem, Order};
use ivm_generated_examples::tpch_sql::TpchQ3Change;
use ivm_timely::Update;

/// A line item row as the `Lineitem` variant of a SQL view's change enum
/// (every view over `lineitem` has the same fields).
macro_rules! line_item {
    ($variant:path, $l:expr) => {{
        let l: &ivm_generated_examples::tpch::data::Lineitem = $l;
        $variant {
            l_orderkey: l.orderkey,
            l_partkey: l.partkey,
            l_suppkey: l.suppkey,
            l_linenumber: l.linenumber,
            l_quantity: ivm::sql::Decimal::new(l.quantity * 100, 2),
            l_extendedprice: ivm::sql::Decimal::new(l.extendedprice, 2),
            l_discount: ivm::sql::Decimal::new(l.discount, 2),
            l_tax: ivm::sql::Decimal::new(l.tax, 2),
            l_returnflag: l.returnflag.to_string(),
            l_linestatus: l.linestatus.to_string(),
            l_shipdate: $crate::support::date(l.shipdate),
            l_commitdate: $crate::support::date(l.commitdate),
            l_receiptdate: $crate::support::date(l.receiptdate),
            l_shipinstruct: l.shipinstruct.clone(),
            l_shipmode: l.shipmode.clone(),
            l_comment: l.comment.clone(),
        }
    }};
}

/// A small deterministic generator (xorshift), so that failures repeat.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Draws a change to add.
pub type Draw<C> = Box<dyn FnMut(&mut Rng) -> C>;

/// A random stream of epochs: changes drawn at random, and, where the query
/// takes retractions, retractions of changes added before and not yet
/// taken back.
pub struct Stream<C> {
    rng: Rng,
    draw: Draw<C>,
    /// A change never added, for an epoch meant to be refused; `None`
    /// for a query maintained under inserts only.
    absent: Option<Draw<C>>,
    /// The changes added and not taken back, when the query retracts.
    live: Vec<C>,
    /// Where the last epoch meant to be refused holds its retraction of a
    /// change never added.
    pub refused_at: usize,
}

impl<C: Clone> Stream<C> {
    /// A stream of inserts and retractions.
    pub fn retracting(seed: u64, draw: Draw<C>, absent: Draw<C>) -> Self {
        Stream {
            rng: Rng(seed),
            draw,
            absent: Some(absent),
            live: Vec::new(),
            refused_at: 0,
        }
    }

    /// A stream of inserts only.
    pub fn inserting(seed: u64, draw: Draw<C>) -> Self {
        Stream {
            rng: Rng(seed),
            draw,
            absent: None,
            live: Vec::new(),
            refused_at: 0,
        }
    }

    /// Whether the stream retracts.
    pub fn retracts(&self) -> bool {
        self.absent.is_some()
    }

    /// The next epoch of `len` updates, about a third of them retractions
    /// when the stream retracts. With `refused`, one of them retracts a
    /// change never added, and the stream goes on as if the epoch had not
    /// been (it is refused as a whole).
    pub fn epoch(&mut self, len: usize, refused: bool) -> Vec<Update<C>> {
        let mut live = self.live.clone();
        let mut epoch = Vec::with_capacity(len + 1);
        for _ in 0..len {
            if self.retracts() && !live.is_empty() && self.rng.below(3) == 0 {
                let at = self.rng.below(live.len() as u64) as usize;
                epoch.push(Update::Retract(live.swap_remove(at)));
            } else {
                let change = (self.draw)(&mut self.rng);
                if self.retracts() {
                    live.push(change.clone());
                }
                epoch.push(Update::Add(change));
            }
        }
        match (&mut self.absent, refused) {
            (Some(absent), true) => {
                let at = self.rng.below(epoch.len() as u64 + 1) as usize;
                epoch.insert(at, Update::Retract(absent(&mut self.rng)));
                self.refused_at = at;
            }
            _ => self.live = live,
        }
        epoch
    }
}

/// Applies an epoch to one struct, as the cluster should.
pub fn apply<Q: View>(one: &mut Q, epoch: Vec<Update<Q::Change>>) {
    for update in epoch {
        match update {
            Update::Add(change) => one.apply([change]),
            Update::Retract(change) => {
                assert!(matches!(one.__retract(change), Some(Ok(()))));
            }
        }
    }
}

/// Sales and prices of a few stores: `RevenueByStore`, q-hierarchical,
/// sharded on `store`.
pub fn revenue(seed: u64, stores: u64) -> Stream<RevenueByStoreChange> {
    type C = RevenueByStoreChange;
    let draw = move |rng: &mut Rng| {
        let (store, item) = (rng.below(stores) as u32, rng.below(20));
        let delta = Int(rng.below(5) as i64 + 1);
        match rng.below(2) {
            0 => C::Sales { store, item, delta },
            _ => C::Prices { store, item, delta },
        }
    };
    let absent = |rng: &mut Rng| C::Sales {
        store: 1_000_000,
        item: rng.below(20),
        delta: Int(1),
    };
    Stream::retracting(seed, Box::new(draw), Box::new(absent))
}

/// Flights of a small network: `CheapestConnection` over `MinPlus`, under
/// inserts only, with the onward flights replicated.
pub fn connections(seed: u64) -> Stream<CheapestConnectionChange> {
    type C = CheapestConnectionChange;
    let draw = |rng: &mut Rng| {
        let (a, b) = (rng.below(8) as u32, rng.below(8) as u32);
        let delta = MinPlus(rng.below(100) as i64 + 1);
        match rng.below(3) {
            0 => C::Feeder {
                origin: a,
                feeder: b,
                delta,
            },
            1 => C::Route {
                origin: a,
                hub: b,
                delta,
            },
            _ => C::Onward {
                hub: a,
                onward: b,
                delta,
            },
        }
    };
    Stream::inserting(seed, Box::new(draw))
}

/// Edges of a small graph with a few hubs: `Triangles`, which runs on one
/// worker.
pub fn triangles(seed: u64, nodes: u64) -> Stream<TrianglesChange> {
    type C = TrianglesChange;
    let draw = move |rng: &mut Rng| {
        // One node in four is a hub, met by half of the edges.
        let node = |rng: &mut Rng| match rng.below(2) {
            0 => rng.below(nodes / 4 + 1) as u32,
            _ => rng.below(nodes) as u32,
        };
        let (src, dst) = (node(rng), node(rng));
        C::Edge {
            src,
            dst,
            delta: Int(1),
        }
    };
    let absent = |rng: &mut Rng| C::Edge {
        src: 1_000_000,
        dst: rng.below(10) as u32,
        delta: Int(1),
    };
    Stream::retracting(seed, Box::new(draw), Box::new(absent))
}

/// Rows of the TPC-H generator at `scale`: the SQL view `tpch_q3`
/// (`TpchQ3`), sharded on the order key with customers replicated.
pub fn tpch_q3(seed: u64, scale: f64) -> Stream<TpchQ3Change> {
    let db = Database::generate(scale, seed);
    let draw = move |rng: &mut Rng| match rng.below(10) {
        0 => customer(&db.customers[rng.below(db.customers.len() as u64) as usize]),
        1..=2 => order(&db.orders[rng.below(db.orders.len() as u64) as usize]),
        _ => lineitem(&db.lineitems[rng.below(db.lineitems.len() as u64) as usize]),
    };
    let absent = |rng: &mut Rng| {
        let mut line = lineitem(&Database::generate(0.0001, rng.below(1000)).lineitems[0]);
        if let TpchQ3Change::Lineitem { l_orderkey, .. } = &mut line {
            *l_orderkey = -1;
        }
        line
    };
    Stream::retracting(seed, Box::new(draw), Box::new(absent))
}

/// A date written `yyyymmdd`.
pub fn date(v: i32) -> Date {
    Date::from_ymd(v / 10_000, (v / 100 % 100) as u32, (v % 100) as u32).expect("a valid date")
}

/// A customer row as a change of `TpchQ3`.
pub fn customer(c: &Customer) -> TpchQ3Change {
    TpchQ3Change::Customer {
        c_custkey: c.custkey,
        c_name: c.name.clone(),
        c_address: c.address.clone(),
        c_nationkey: c.nationkey,
        c_phone: c.phone.clone(),
        c_acctbal: Decimal::new(c.acctbal, 2),
        c_mktsegment: c.mktsegment.clone(),
        c_comment: c.comment.clone(),
    }
}

/// An order row as a change of `TpchQ3`.
pub fn order(o: &Order) -> TpchQ3Change {
    TpchQ3Change::Orders {
        o_orderkey: o.orderkey,
        o_custkey: o.custkey,
        o_orderstatus: o.orderstatus.to_string(),
        o_totalprice: Decimal::new(o.totalprice, 2),
        o_orderdate: date(o.orderdate),
        o_orderpriority: o.orderpriority.clone(),
        o_clerk: o.clerk.clone(),
        o_shippriority: o.shippriority,
        o_comment: o.comment.clone(),
    }
}

/// A line item row as a change of `TpchQ3`.
pub fn lineitem(l: &Lineitem) -> TpchQ3Change {
    line_item!(TpchQ3Change::Lineitem, l)
}

/// Two free ports on 127.0.0.1, as timely's hosts.
pub fn hosts() -> Vec<String> {
    let listeners: Vec<std::net::TcpListener> = (0..2)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect()
}
