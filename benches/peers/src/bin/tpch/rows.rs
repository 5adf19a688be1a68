//! The stream of a query, and its rows typed as the generated structs
//! take them.

use std::ops::Range;

use ivm::sql::{Date, Decimal};
use ivm_generated_examples::tpch::data::Database;

/// A table of TPC-H, in the order a database fills them: the dimensions
/// first, then the orders, each followed by its lines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Table {
    Region,
    Nation,
    Supplier,
    Part,
    PartSupp,
    Customer,
    Orders,
    Lineitem,
}

/// One row of the stream: its table and its index in the generator's
/// vector of that table, so the stream holds no copy of the data.
#[derive(Clone, Copy, Debug)]
pub struct Ref(pub Table, pub usize);

/// An insert (`true`) or a delete of a row.
pub type Op = (bool, Ref);

/// A query's stream: the load, then every third order's lines and the
/// order deleted (lines first, as a foreign key asks), then those orders
/// and lines inserted again, which restores the load's result. A query
/// that reads neither orders nor lines churns every third part's
/// `PARTSUPP` rows instead.
pub struct Stream {
    pub ops: Vec<Op>,
    /// How many of `ops`, from the start, are the load.
    pub load: usize,
}

impl Stream {
    /// The stream of a query over `tables`.
    pub fn new(db: &Database, tables: &[Table]) -> Stream {
        let reads = |t: Table| tables.contains(&t);
        let mut ops = Vec::new();
        let dimensions = [
            (Table::Region, db.regions.len()),
            (Table::Nation, db.nations.len()),
            (Table::Supplier, db.suppliers.len()),
            (Table::Part, db.parts.len()),
            (Table::PartSupp, db.partsupps.len()),
            (Table::Customer, db.customers.len()),
        ];
        for (table, n) in dimensions.into_iter().filter(|&(t, _)| reads(t)) {
            ops.extend((0..n).map(|i| (true, Ref(table, i))));
        }
        let orders = order_lines(db);
        let (with_order, with_lines) = (reads(Table::Orders), reads(Table::Lineitem));
        for o in &orders {
            o.push(&mut ops, true, with_order, with_lines);
        }
        let load = ops.len();
        if with_order || with_lines {
            let churned: Vec<&OrderLines> = orders
                .iter()
                .filter(|o| db.orders[o.order].orderkey % 3 == 0)
                .collect();
            for insert in [false, true] {
                for o in &churned {
                    o.push(&mut ops, insert, with_order, with_lines);
                }
            }
        } else {
            let churned: Vec<usize> = (0..db.partsupps.len())
                .filter(|&i| db.partsupps[i].partkey % 3 == 0)
                .collect();
            for insert in [false, true] {
                ops.extend(churned.iter().map(|&i| (insert, Ref(Table::PartSupp, i))));
            }
        }
        Stream { ops, load }
    }

    /// The rows typed as the generated structs take them, built before any
    /// timing so every engine is handed the same owned values.
    pub fn typed(&self, db: &Database) -> Vec<(bool, Typed)> {
        self.typed_prefix(db, self.ops.len())
    }

    /// The load's rows, typed.
    pub fn typed_load(&self, db: &Database) -> Vec<(bool, Typed)> {
        self.typed_prefix(db, self.load)
    }

    fn typed_prefix(&self, db: &Database, n: usize) -> Vec<(bool, Typed)> {
        self.ops[..n]
            .iter()
            .map(|&(insert, r)| (insert, Typed::new(db, r)))
            .collect()
    }
}

/// An order and the range of its lines in the generator's vector.
struct OrderLines {
    order: usize,
    lines: Range<usize>,
}

impl OrderLines {
    /// Pushes the lines and the order, each when the query reads it: the
    /// order first on an insert, last on a delete.
    fn push(&self, ops: &mut Vec<Op>, insert: bool, with_order: bool, with_lines: bool) {
        let lines = self
            .lines
            .clone()
            .filter(|_| with_lines)
            .map(|l| (insert, Ref(Table::Lineitem, l)));
        let order = with_order.then_some((insert, Ref(Table::Orders, self.order)));
        if insert {
            ops.extend(order.into_iter().chain(lines));
        } else {
            ops.extend(lines.chain(order));
        }
    }
}

/// Every order with its lines: the generator lists the lines order by
/// order.
fn order_lines(db: &Database) -> Vec<OrderLines> {
    let mut next = 0;
    db.orders
        .iter()
        .enumerate()
        .map(|(order, o)| {
            let start = next;
            while next < db.lineitems.len() && db.lineitems[next].orderkey == o.orderkey {
                next += 1;
            }
            OrderLines {
                order,
                lines: start..next,
            }
        })
        .collect()
}

/// Money in the generator's cents as `DECIMAL(15, 2)`.
pub fn cents(v: i64) -> Decimal {
    Decimal::new(v, 2)
}

/// A generated `yyyymmdd` as a `DATE`.
pub const fn date(yyyymmdd: i32) -> Date {
    Date::from_ymd(
        yyyymmdd / 10_000,
        (yyyymmdd / 100 % 100) as u32,
        (yyyymmdd % 100) as u32,
    )
    .expect("a valid date")
}

/// A row with every column typed as the SQL declares it, in the order of
/// the generated `insert_<table>` methods' arguments.
pub enum Typed {
    Region(RegionRow),
    Nation(NationRow),
    Supplier(SupplierRow),
    Part(PartRow),
    PartSupp(PartSuppRow),
    Customer(CustomerRow),
    Orders(OrdersRow),
    Lineitem(LineitemRow),
}

#[derive(Hash)]
pub struct RegionRow {
    pub regionkey: i32,
    pub name: String,
    pub comment: String,
}

#[derive(Hash)]
pub struct NationRow {
    pub nationkey: i32,
    pub name: String,
    pub regionkey: i32,
    pub comment: String,
}

#[derive(Hash)]
pub struct SupplierRow {
    pub suppkey: i64,
    pub name: String,
    pub address: String,
    pub nationkey: i32,
    pub phone: String,
    pub acctbal: Decimal,
    pub comment: String,
}

#[derive(Hash)]
pub struct PartRow {
    pub partkey: i64,
    pub name: String,
    pub mfgr: String,
    pub brand: String,
    pub r#type: String,
    pub size: i32,
    pub container: String,
    pub retailprice: Decimal,
    pub comment: String,
}

#[derive(Hash)]
pub struct PartSuppRow {
    pub partkey: i64,
    pub suppkey: i64,
    pub availqty: i32,
    pub supplycost: Decimal,
    pub comment: String,
}

#[derive(Hash)]
pub struct CustomerRow {
    pub custkey: i64,
    pub name: String,
    pub address: String,
    pub nationkey: i32,
    pub phone: String,
    pub acctbal: Decimal,
    pub mktsegment: String,
    pub comment: String,
}

#[derive(Hash)]
pub struct OrdersRow {
    pub orderkey: i64,
    pub custkey: i64,
    pub orderstatus: String,
    pub totalprice: Decimal,
    pub orderdate: Date,
    pub orderpriority: String,
    pub clerk: String,
    pub shippriority: i32,
    pub comment: String,
}

#[derive(Hash)]
pub struct LineitemRow {
    pub orderkey: i64,
    pub partkey: i64,
    pub suppkey: i64,
    pub linenumber: i32,
    pub quantity: Decimal,
    pub extendedprice: Decimal,
    pub discount: Decimal,
    pub tax: Decimal,
    pub returnflag: String,
    pub linestatus: String,
    pub shipdate: Date,
    pub commitdate: Date,
    pub receiptdate: Date,
    pub shipinstruct: String,
    pub shipmode: String,
    pub comment: String,
}

impl Typed {
    fn new(db: &Database, Ref(table, i): Ref) -> Typed {
        match table {
            Table::Region => {
                let r = db.regions[i].clone();
                Typed::Region(RegionRow {
                    regionkey: r.regionkey,
                    name: r.name,
                    comment: r.comment,
                })
            }
            Table::Nation => {
                let n = db.nations[i].clone();
                Typed::Nation(NationRow {
                    nationkey: n.nationkey,
                    name: n.name,
                    regionkey: n.regionkey,
                    comment: n.comment,
                })
            }
            Table::Supplier => {
                let s = db.suppliers[i].clone();
                Typed::Supplier(SupplierRow {
                    suppkey: s.suppkey,
                    name: s.name,
                    address: s.address,
                    nationkey: s.nationkey,
                    phone: s.phone,
                    acctbal: cents(s.acctbal),
                    comment: s.comment,
                })
            }
            Table::Part => {
                let p = db.parts[i].clone();
                Typed::Part(PartRow {
                    partkey: p.partkey,
                    name: p.name,
                    mfgr: p.mfgr,
                    brand: p.brand,
                    r#type: p.r#type,
                    size: p.size,
                    container: p.container,
                    retailprice: cents(p.retailprice),
                    comment: p.comment,
                })
            }
            Table::PartSupp => {
                let ps = db.partsupps[i].clone();
                Typed::PartSupp(PartSuppRow {
                    partkey: ps.partkey,
                    suppkey: ps.suppkey,
                    availqty: ps.availqty,
                    supplycost: cents(ps.supplycost),
                    comment: ps.comment,
                })
            }
            Table::Customer => {
                let c = db.customers[i].clone();
                Typed::Customer(CustomerRow {
                    custkey: c.custkey,
                    name: c.name,
                    address: c.address,
                    nationkey: c.nationkey,
                    phone: c.phone,
                    acctbal: cents(c.acctbal),
                    mktsegment: c.mktsegment,
                    comment: c.comment,
                })
            }
            Table::Orders => {
                let o = db.orders[i].clone();
                Typed::Orders(OrdersRow {
                    orderkey: o.orderkey,
                    custkey: o.custkey,
                    orderstatus: o.orderstatus.to_string(),
                    totalprice: cents(o.totalprice),
                    orderdate: date(o.orderdate),
                    orderpriority: o.orderpriority,
                    clerk: o.clerk,
                    shippriority: o.shippriority,
                    comment: o.comment,
                })
            }
            Table::Lineitem => {
                let l = db.lineitems[i].clone();
                Typed::Lineitem(LineitemRow {
                    orderkey: l.orderkey,
                    partkey: l.partkey,
                    suppkey: l.suppkey,
                    linenumber: l.linenumber,
                    // The generator counts whole units.
                    quantity: cents(l.quantity * 100),
                    extendedprice: cents(l.extendedprice),
                    discount: cents(l.discount),
                    tax: cents(l.tax),
                    returnflag: l.returnflag.to_string(),
                    linestatus: l.linestatus.to_string(),
                    shipdate: date(l.shipdate),
                    commitdate: date(l.commitdate),
                    receiptdate: date(l.receiptdate),
                    shipinstruct: l.shipinstruct,
                    shipmode: l.shipmode,
                    comment: l.comment,
                })
            }
        }
    }
}
