//! TPC-H data, generated here: the `CUSTOMER`, `ORDERS`, `LINEITEM`,
//! `PART`, `SUPPLIER`, `PARTSUPP`, `NATION` and `REGION` tables of the
//! benchmark's schema, with values drawn as its specification
//! (TPC-H 3.0, clause 4.2.3) describes, from a seeded generator, so that a
//! test or a benchmark gets the same rows on every machine.
//!
//! Scale factor 1 has 150 000 customers, 1 500 000 orders, about
//! 6 000 000 order lines, 200 000 parts and 10 000 suppliers; a scale
//! factor of 0.001 gives 150, 1 500, about 6 000, 200 and 10. What differs from `dbgen`: the random stream (a SplitMix64
//! generator, not `dbgen`'s), the text of names, addresses and comments
//! (words from a short list), and the units: money is in cents, discounts
//! and taxes in hundredths, dates are `yyyymmdd` numbers, so every
//! aggregate is an exact integer.
//!
//! ```
//! use ivm_generated_examples::tpch::data::Database;
//!
//! let db = Database::generate(0.001, 7);
//! assert_eq!(db.customers.len(), 150);
//! assert_eq!(db.orders.len(), 1_500);
//! assert!(db.lineitems.len() > 1_500 * 3);
//! ```

/// A row of `CUSTOMER`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are the columns, named as in TPC-H
pub struct Customer {
    pub custkey: i64,
    pub name: String,
    pub address: String,
    pub nationkey: i32,
    pub phone: String,
    /// In cents.
    pub acctbal: i64,
    pub mktsegment: String,
    pub comment: String,
}

/// A row of `ORDERS`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Order {
    pub orderkey: i64,
    pub custkey: i64,
    pub orderstatus: char,
    /// In cents.
    pub totalprice: i64,
    /// `yyyymmdd`.
    pub orderdate: i32,
    pub orderpriority: String,
    pub clerk: String,
    pub shippriority: i32,
    pub comment: String,
}

/// A row of `LINEITEM`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub struct Lineitem {
    pub orderkey: i64,
    pub partkey: i64,
    pub suppkey: i64,
    pub linenumber: i32,
    pub quantity: i64,
    /// In cents.
    pub extendedprice: i64,
    /// In hundredths (0 to 10).
    pub discount: i64,
    /// In hundredths (0 to 8).
    pub tax: i64,
    pub returnflag: char,
    pub linestatus: char,
    /// `yyyymmdd`.
    pub shipdate: i32,
    /// `yyyymmdd`.
    pub commitdate: i32,
    /// `yyyymmdd`.
    pub receiptdate: i32,
    pub shipinstruct: String,
    pub shipmode: String,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Part {
    pub partkey: i64,
    pub name: String,
    pub mfgr: String,
    pub brand: String,
    /// Three words, such as `PROMO BURNISHED COPPER`.
    pub r#type: String,
    pub size: i32,
    pub container: String,
    /// In cents; an order line's price is its quantity times this.
    pub retailprice: i64,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct PartSupp {
    pub partkey: i64,
    pub suppkey: i64,
    pub availqty: i32,
    pub supplycost: i64,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Supplier {
    pub suppkey: i64,
    pub name: String,
    pub address: String,
    pub nationkey: i32,
    pub phone: String,
    /// In cents.
    pub acctbal: i64,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Nation {
    pub nationkey: i32,
    pub name: String,
    pub regionkey: i32,
    pub comment: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Region {
    pub regionkey: i32,
    pub name: String,
    pub comment: String,
}

/// The tables (all but `PARTSUPP`).
#[derive(Clone, Debug, Default)]
pub struct Database {
    /// `CUSTOMER`, by key.
    pub customers: Vec<Customer>,
    /// `ORDERS`, by key.
    pub orders: Vec<Order>,
    /// `LINEITEM`, by order and line number.
    pub lineitems: Vec<Lineitem>,
    /// `PART`, by key: every key that order lines name.
    pub parts: Vec<Part>,
    /// `SUPPLIER`, by key.
    pub suppliers: Vec<Supplier>,
    /// `PARTSUPP`, by part and supplier: four suppliers per part, the
    /// ones order lines name.
    pub partsupps: Vec<PartSupp>,
    /// `NATION`: the specification's 25.
    pub nations: Vec<Nation>,
    /// `REGION`: the specification's 5.
    pub regions: Vec<Region>,
}

/// The nations and their regions, as the specification lists them.
const NATIONS: [(&str, i32); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];
const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];
/// Some of the colours of the specification's part names.
const COLOURS: [&str; 16] = [
    "almond",
    "antique",
    "blue",
    "burlywood",
    "chartreuse",
    "forest",
    "frosted",
    "green",
    "honeydew",
    "lavender",
    "maroon",
    "navy",
    "orchid",
    "peru",
    "red",
    "turquoise",
];

const TYPE_WORDS: [&[&str]; 3] = [
    &["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"],
    &["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"],
    &["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"],
];
const CONTAINERS: [&[&str]; 2] = [
    &["SM", "LG", "MED", "JUMBO", "WRAP"],
    &["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"],
];

/// The market segments (`C_MKTSEGMENT`).
pub const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "HOUSEHOLD",
    "MACHINERY",
];
const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"];
const INSTRUCTIONS: [&str; 4] = [
    "DELIVER IN PERSON",
    "COLLECT COD",
    "NONE",
    "TAKE BACK RETURN",
];
const MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];
const WORDS: [&str; 24] = [
    "furiously",
    "carefully",
    "quickly",
    "slyly",
    "blithely",
    "final",
    "pending",
    "regular",
    "express",
    "ironic",
    "special",
    "bold",
    "deposits",
    "requests",
    "packages",
    "accounts",
    "instructions",
    "foxes",
    "pinto",
    "beans",
    "theodolites",
    "ideas",
    "sleep",
    "haggle",
];

/// 1992-01-01, the first order date.
const START_DATE: i32 = 19920101;
/// 1995-06-17: lines received by then are returned or accepted, lines
/// shipped after it are open.
pub const CURRENT_DATE: i32 = 19950617;
/// 1998-12-31: orders are placed until 151 days before it.
pub const END_DATE: i32 = 19981231;

impl Database {
    /// The tables at scale factor `scale` (1.0 is TPC-H's SF 1), drawn from
    /// the generator seeded with `seed`.
    pub fn generate(scale: f64, seed: u64) -> Database {
        let count = |per_unit: f64| ((per_unit * scale).round() as i64).max(1);
        let (customers, orders) = (count(150_000.0), count(1_500_000.0));
        let (parts, suppliers, clerks) = (count(200_000.0), count(10_000.0), count(1_000.0));
        let mut rng = Rng(seed);
        let mut db = Database::default();
        for custkey in 1..=customers {
            let nationkey = rng.range(0, 24) as i32;
            db.customers.push(Customer {
                custkey,
                name: format!("Customer#{custkey:09}"),
                address: rng.text(10, 40),
                nationkey,
                phone: rng.phone(nationkey),
                acctbal: rng.range(-99_999, 999_999),
                mktsegment: rng.pick(&SEGMENTS).to_owned(),
                comment: rng.text(29, 116),
            });
        }
        let first_day = day_number(START_DATE);
        let last_order_day = day_number(END_DATE) - 151;
        for i in 0..orders {
            // Keys are sparse: the first 8 of every 32.
            let orderkey = i / 8 * 32 + i % 8 + 1;
            // A third of the customers (keys divisible by 3) order nothing.
            let custkey = loop {
                let c = rng.range(1, customers);
                if c % 3 != 0 || customers < 3 {
                    break c;
                }
            };
            let ordered = rng.range(first_day, last_order_day);
            let lines = rng.range(1, 7);
            let (mut total, mut open, mut filled) = (0, 0, 0);
            for linenumber in 1..=lines {
                let partkey = rng.range(1, parts);
                let retail = retail_price(partkey);
                let supplier = rng.range(0, 3);
                let suppkey = (partkey + supplier * (suppliers / 4 + (partkey - 1) / suppliers))
                    % suppliers
                    + 1;
                let quantity = rng.range(1, 50);
                let (discount, tax) = (rng.range(0, 10), rng.range(0, 8));
                let shipped = ordered + rng.range(1, 121);
                let committed = ordered + rng.range(30, 90);
                let received = shipped + rng.range(1, 30);
                let returnflag = match date(received) <= CURRENT_DATE {
                    true if rng.range(0, 1) == 0 => 'R',
                    true => 'A',
                    false => 'N',
                };
                let linestatus = if date(shipped) > CURRENT_DATE {
                    'O'
                } else {
                    'F'
                };
                let extendedprice = quantity * retail;
                total += extendedprice * (100 + tax) * (100 - discount) / 10_000;
                match linestatus {
                    'O' => open += 1,
                    _ => filled += 1,
                }
                db.lineitems.push(Lineitem {
                    orderkey,
                    partkey,
                    suppkey,
                    linenumber: linenumber as i32,
                    quantity,
                    extendedprice,
                    discount,
                    tax,
                    returnflag,
                    linestatus,
                    shipdate: date(shipped),
                    commitdate: date(committed),
                    receiptdate: date(received),
                    shipinstruct: rng.pick(&INSTRUCTIONS).to_owned(),
                    shipmode: rng.pick(&MODES).to_owned(),
                    comment: rng.text(10, 43),
                });
            }
            let orderstatus = match (open, filled) {
                (_, 0) => 'O',
                (0, _) => 'F',
                _ => 'P',
            };
            db.orders.push(Order {
                orderkey,
                custkey,
                orderstatus,
                totalprice: total,
                orderdate: date(ordered),
                orderpriority: rng.pick(&PRIORITIES).to_owned(),
                clerk: format!("Clerk#{:09}", rng.range(1, clerks)),
                shippriority: 0,
                comment: rng.text(19, 78),
            });
        }
        // The other tables from a stream of their own, so the three above
        // are the rows they always were for a seed.
        let mut rng = Rng(seed ^ 0x5eed_0f7a_b1e5);
        for partkey in 1..=parts {
            let mfgr = rng.range(1, 5);
            let words = TYPE_WORDS.map(|w| rng.pick(w));
            db.parts.push(Part {
                partkey,
                // The specification's names are five colours; here the
                // first word is a colour (by key, so the stream is the
                // one it was), which Q20's `p_name LIKE 'forest%'` reads.
                name: format!(
                    "{} {}",
                    COLOURS[(partkey as usize * 7) % COLOURS.len()],
                    rng.text(10, 48)
                ),
                mfgr: format!("Manufacturer#{mfgr}"),
                brand: format!("Brand#{mfgr}{}", rng.range(1, 5)),
                r#type: words.join(" "),
                size: rng.range(1, 50) as i32,
                container: format!("{} {}", rng.pick(CONTAINERS[0]), rng.pick(CONTAINERS[1])),
                retailprice: retail_price(partkey),
                comment: rng.text(5, 22),
            });
        }
        for suppkey in 1..=suppliers {
            let nationkey = rng.range(0, 24) as i32;
            db.suppliers.push(Supplier {
                suppkey,
                name: format!("Supplier#{suppkey:09}"),
                address: rng.text(10, 40),
                nationkey,
                phone: rng.phone(nationkey),
                acctbal: rng.range(-99_999, 999_999),
                comment: rng.text(25, 100),
            });
        }
        for (nationkey, (name, regionkey)) in NATIONS.iter().enumerate() {
            db.nations.push(Nation {
                nationkey: nationkey as i32,
                name: (*name).to_owned(),
                regionkey: *regionkey,
                comment: rng.text(31, 114),
            });
        }
        for (regionkey, name) in REGIONS.iter().enumerate() {
            db.regions.push(Region {
                regionkey: regionkey as i32,
                name: (*name).to_owned(),
                comment: rng.text(31, 115),
            });
        }
        // PARTSUPP from a stream of its own, so the tables above are the
        // rows they always were for a seed.
        let mut rng = Rng(seed ^ 0x9a27_5eed_c0ff_ee11);
        for partkey in 1..=parts {
            let mut chosen = Vec::with_capacity(4);
            for i in 0..4 {
                let suppkey =
                    (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
                // At a small scale two of the four can be one supplier:
                // the pair is a key, so it is kept once.
                if chosen.contains(&suppkey) {
                    continue;
                }
                chosen.push(suppkey);
                db.partsupps.push(PartSupp {
                    partkey,
                    suppkey,
                    availqty: rng.range(1, 9_999) as i32,
                    supplycost: rng.range(100, 100_000),
                    comment: rng.text(49, 198),
                });
            }
        }
        db
    }
}

/// A query over the TPC-H tables that takes their rows: each query
/// implements the methods of the tables it reads, and ignores the others.
pub trait Tables {
    /// Inserts a customer.
    fn insert_customer_row(&mut self, _row: &Customer) {}
    /// Deletes a customer inserted before; `Err` and no change otherwise.
    fn delete_customer_row(&mut self, _row: &Customer) -> ivm::Result<()> {
        Ok(())
    }
    /// Inserts an order.
    fn insert_order_row(&mut self, _row: &Order) {}
    /// Deletes an order inserted before; `Err` and no change otherwise.
    fn delete_order_row(&mut self, _row: &Order) -> ivm::Result<()> {
        Ok(())
    }
    /// Inserts an order line.
    fn insert_lineitem_row(&mut self, _row: &Lineitem) {}
    /// Deletes an order line inserted before; `Err` and no change
    /// otherwise.
    fn delete_lineitem_row(&mut self, _row: &Lineitem) -> ivm::Result<()> {
        Ok(())
    }
}

/// The generated methods of one table, called with a row's columns.
macro_rules! table {
    ($insert:ident $delete:ident: $row:ty => $ins:ident $del:ident ($($col:ident)*)) => {
        fn $insert(&mut self, row: &$row) {
            self.$ins($(row.$col.clone()),*);
        }

        fn $delete(&mut self, row: &$row) -> ivm::Result<()> {
            self.$del($(row.$col.clone()),*)
        }
    };
}

macro_rules! customer {
    () => {
        table!(insert_customer_row delete_customer_row: Customer => insert_customer delete_customer
            (custkey name address nationkey phone acctbal mktsegment comment));
    };
}

macro_rules! order {
    () => {
        table!(insert_order_row delete_order_row: Order => insert_orders delete_orders
            (orderkey custkey orderstatus totalprice orderdate orderpriority clerk shippriority
             comment));
    };
}

macro_rules! lineitem {
    () => {
        table!(insert_lineitem_row delete_lineitem_row: Lineitem => insert_lineitem delete_lineitem
            (orderkey partkey suppkey linenumber quantity extendedprice discount tax returnflag
             linestatus shipdate commitdate receiptdate shipinstruct shipmode comment));
    };
}

impl Tables for super::PricingSummary {
    lineitem!();
}

impl Tables for super::ShippingPriority {
    customer!();
    order!();
    lineitem!();
}

impl Tables for super::ForecastRevenue {
    lineitem!();
}

/// SplitMix64: small, fast and good enough to draw test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `low..=high`.
    fn range(&mut self, low: i64, high: i64) -> i64 {
        let width = (high - low + 1) as u64;
        low + (self.next() % width) as i64
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.range(0, from.len() as i64 - 1) as usize]
    }

    /// A phone number of a nation's country code (the specification's
    /// format).
    fn phone(&mut self, nationkey: i32) -> String {
        format!(
            "{}-{}-{}-{}",
            nationkey + 10,
            self.range(100, 999),
            self.range(100, 999),
            self.range(1000, 9999)
        )
    }

    /// Words of the list, cut to a length drawn from `low..=high`.
    fn text(&mut self, low: i64, high: i64) -> String {
        let len = self.range(low, high) as usize;
        let mut out = String::with_capacity(len + 16);
        while out.len() < len {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(self.pick(&WORDS));
        }
        out.truncate(len);
        out
    }
}

/// A part's retail price in cents (the specification's formula).
fn retail_price(partkey: i64) -> i64 {
    90_000 + (partkey / 10) % 20_001 + 100 * (partkey % 1_000)
}

/// The day number (days since 1970-01-01) of a `yyyymmdd` date.
///
/// ```
/// use ivm_generated_examples::tpch::data::{date, day_number};
///
/// assert_eq!(day_number(19700101), 0);
/// assert_eq!(date(day_number(19920228) + 1), 19920229);
/// ```
pub fn day_number(yyyymmdd: i32) -> i64 {
    let (y, m, d) = (
        i64::from(yyyymmdd / 10_000),
        i64::from(yyyymmdd / 100 % 100),
        i64::from(yyyymmdd % 100),
    );
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `yyyymmdd` date of a day number: the inverse of [`day_number`].
pub fn date(day: i64) -> i32 {
    // Howard Hinnant's civil_from_days.
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y * 10_000 + m * 100 + d) as i32
}

/// The rows as text, in the units and formats of the TPC-H schema in SQL
/// (`queries/tpch.sql`): money and rates as decimals (`1234.56`, `0.05`),
/// dates as `yyyy-mm-dd`. What a loader gives to `insert_text`.
pub mod text {
    use super::{Customer, Lineitem, Nation, Order, Part, PartSupp, Region, Supplier};

    /// A `PARTSUPP` row's fields.
    pub fn partsupp(p: &PartSupp) -> Vec<String> {
        vec![
            p.partkey.to_string(),
            p.suppkey.to_string(),
            p.availqty.to_string(),
            hundredths(p.supplycost),
            p.comment.clone(),
        ]
    }

    /// Hundredths as a decimal with two digits: `-1234` is `-12.34`.
    pub fn hundredths(v: i64) -> String {
        let sign = if v < 0 { "-" } else { "" };
        format!("{sign}{}.{:02}", v.abs() / 100, v.abs() % 100)
    }

    /// A `yyyymmdd` number as `yyyy-mm-dd`.
    pub fn date(v: i32) -> String {
        format!("{:04}-{:02}-{:02}", v / 10000, v / 100 % 100, v % 100)
    }

    /// A `CUSTOMER` row's fields.
    pub fn customer(c: &Customer) -> Vec<String> {
        vec![
            c.custkey.to_string(),
            c.name.clone(),
            c.address.clone(),
            c.nationkey.to_string(),
            c.phone.clone(),
            hundredths(c.acctbal),
            c.mktsegment.clone(),
            c.comment.clone(),
        ]
    }

    /// An `ORDERS` row's fields.
    pub fn order(o: &Order) -> Vec<String> {
        vec![
            o.orderkey.to_string(),
            o.custkey.to_string(),
            o.orderstatus.to_string(),
            hundredths(o.totalprice),
            date(o.orderdate),
            o.orderpriority.clone(),
            o.clerk.clone(),
            o.shippriority.to_string(),
            o.comment.clone(),
        ]
    }

    /// A `PART` row's fields.
    pub fn part(p: &Part) -> Vec<String> {
        vec![
            p.partkey.to_string(),
            p.name.clone(),
            p.mfgr.clone(),
            p.brand.clone(),
            p.r#type.clone(),
            p.size.to_string(),
            p.container.clone(),
            hundredths(p.retailprice),
            p.comment.clone(),
        ]
    }

    /// A `SUPPLIER` row's fields.
    pub fn supplier(s: &Supplier) -> Vec<String> {
        vec![
            s.suppkey.to_string(),
            s.name.clone(),
            s.address.clone(),
            s.nationkey.to_string(),
            s.phone.clone(),
            hundredths(s.acctbal),
            s.comment.clone(),
        ]
    }

    /// A `NATION` row's fields.
    pub fn nation(n: &Nation) -> Vec<String> {
        vec![
            n.nationkey.to_string(),
            n.name.clone(),
            n.regionkey.to_string(),
            n.comment.clone(),
        ]
    }

    /// A `REGION` row's fields.
    pub fn region(r: &Region) -> Vec<String> {
        vec![r.regionkey.to_string(), r.name.clone(), r.comment.clone()]
    }

    /// A `LINEITEM` row's fields.
    pub fn lineitem(l: &Lineitem) -> Vec<String> {
        vec![
            l.orderkey.to_string(),
            l.partkey.to_string(),
            l.suppkey.to_string(),
            l.linenumber.to_string(),
            hundredths(l.quantity * 100),
            hundredths(l.extendedprice),
            hundredths(l.discount),
            hundredths(l.tax),
            l.returnflag.to_string(),
            l.linestatus.to_string(),
            date(l.shipdate),
            date(l.commitdate),
            date(l.receiptdate),
            l.shipinstruct.clone(),
            l.shipmode.clone(),
            l.comment.clone(),
        ]
    }
}
