//! TPC-H Q1, Q3 and Q6 on generated data: the maintained results agree
//! with SQLite's answers to the same SQL over the same rows, and with the
//! naive evaluator, after the tables are loaded, after a part of every
//! table is deleted (rows that entered the queries' atoms and rows whose
//! constants or conditions kept them out) and after some are inserted
//! again.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use ivm::semiring::{Count, Int};
use ivm_fuzz::naive::{Naive, Retraction};
use ivm_generated_examples::tpch::data::{Customer, Database, Lineitem, Order, Tables};
use ivm_generated_examples::tpch::{ForecastRevenue, PricingSummary, ShippingPriority};
use rusqlite::{Connection, params};

type Summary = (Int, Int, Int, Int, Int, Count);

/// The SQL of the three queries, in the units of the generated data.
const Q1: &str = "SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice),
        SUM(l_extendedprice * (100 - l_discount)),
        SUM(l_extendedprice * (100 - l_discount) * (100 + l_tax)), SUM(l_discount), COUNT(*)
    FROM lineitem WHERE l_shipdate <= 19980902
    GROUP BY l_returnflag, l_linestatus";
const Q3: &str = "SELECT l_orderkey, o_orderdate, o_shippriority,
        SUM(l_extendedprice * (100 - l_discount))
    FROM customer, orders, lineitem
    WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
        AND o_orderdate < 19950315 AND l_shipdate > 19950315
    GROUP BY l_orderkey, o_orderdate, o_shippriority";
const Q6: &str = "SELECT SUM(l_extendedprice * l_discount) FROM lineitem
    WHERE l_shipdate >= 19940101 AND l_shipdate < 19950101
        AND l_discount BETWEEN 5 AND 7 AND l_quantity < 24";

/// Every copy of the database: the three generated queries, SQLite and
/// the naive evaluator of each query.
struct Copies {
    q1: PricingSummary,
    q3: ShippingPriority,
    q6: ForecastRevenue,
    sql: Connection,
    naive1: Naive<Summary>,
    naive3: Naive<Int>,
    naive6: Naive<Int>,
}

impl Copies {
    fn new() -> Copies {
        let sql = Connection::open_in_memory().expect("in-memory SQLite");
        sql.execute_batch(
            "CREATE TABLE customer (c_custkey INTEGER PRIMARY KEY, c_name TEXT, c_address TEXT,
                c_nationkey INTEGER, c_phone TEXT, c_acctbal INTEGER, c_mktsegment TEXT,
                c_comment TEXT);
            CREATE TABLE orders (o_orderkey INTEGER PRIMARY KEY, o_custkey INTEGER,
                o_orderstatus TEXT, o_totalprice INTEGER, o_orderdate INTEGER,
                o_orderpriority TEXT, o_clerk TEXT, o_shippriority INTEGER, o_comment TEXT);
            CREATE TABLE lineitem (l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER,
                l_linenumber INTEGER, l_quantity INTEGER, l_extendedprice INTEGER,
                l_discount INTEGER, l_tax INTEGER, l_returnflag TEXT, l_linestatus TEXT,
                l_shipdate INTEGER, l_commitdate INTEGER, l_receiptdate INTEGER,
                l_shipinstruct TEXT, l_shipmode TEXT, l_comment TEXT,
                PRIMARY KEY (l_orderkey, l_linenumber));",
        )
        .expect("schema");
        Copies {
            q1: PricingSummary::new(),
            q3: ShippingPriority::new(),
            q6: ForecastRevenue::new(),
            sql,
            naive1: naive_q1(),
            naive3: naive_q3(),
            naive6: naive_q6(),
        }
    }

    fn insert_customer(&mut self, c: &Customer) {
        self.q3.insert_customer_row(c);
        self.naive3.update(0, &customer_values(c), Int(1));
        self.sql
            .execute(
                "INSERT INTO customer VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    c.custkey,
                    c.name,
                    c.address,
                    c.nationkey,
                    c.phone,
                    c.acctbal,
                    c.mktsegment,
                    c.comment
                ],
            )
            .expect("insert");
    }

    fn delete_customer(&mut self, c: &Customer) {
        self.q3.delete_customer_row(c).expect("a present customer");
        self.naive3.delete(0, &customer_values(c)).expect("present");
        let n = self
            .sql
            .execute("DELETE FROM customer WHERE c_custkey = ?1", [c.custkey])
            .expect("delete");
        assert_eq!(n, 1);
    }

    fn insert_order(&mut self, o: &Order) {
        self.q3.insert_order_row(o);
        self.naive3.update(1, &order_values(o), Int(1));
        self.sql
            .execute(
                "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    o.orderkey,
                    o.custkey,
                    o.orderstatus.to_string(),
                    o.totalprice,
                    o.orderdate,
                    o.orderpriority,
                    o.clerk,
                    o.shippriority,
                    o.comment
                ],
            )
            .expect("insert");
    }

    fn delete_order(&mut self, o: &Order) {
        self.q3.delete_order_row(o).expect("a present order");
        self.naive3.delete(1, &order_values(o)).expect("present");
        let n = self
            .sql
            .execute("DELETE FROM orders WHERE o_orderkey = ?1", [o.orderkey])
            .expect("delete");
        assert_eq!(n, 1);
    }

    fn insert_lineitem(&mut self, l: &Lineitem) {
        self.q1.insert_lineitem_row(l);
        self.q3.insert_lineitem_row(l);
        self.q6.insert_lineitem_row(l);
        let values = lineitem_values(l);
        self.naive1.update(0, &values, Summary::one());
        self.naive3.update(2, &values, Int(1));
        self.naive6.update(0, &values, Int(1));
        self.sql
            .execute(
                "INSERT INTO lineitem VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
                    ?13, ?14, ?15, ?16)",
                params![
                    l.orderkey,
                    l.partkey,
                    l.suppkey,
                    l.linenumber,
                    l.quantity,
                    l.extendedprice,
                    l.discount,
                    l.tax,
                    l.returnflag.to_string(),
                    l.linestatus.to_string(),
                    l.shipdate,
                    l.commitdate,
                    l.receiptdate,
                    l.shipinstruct,
                    l.shipmode,
                    l.comment
                ],
            )
            .expect("insert");
    }

    fn delete_lineitem(&mut self, l: &Lineitem) {
        self.q1.delete_lineitem_row(l).expect("a present line");
        self.q3.delete_lineitem_row(l).expect("a present line");
        self.q6.delete_lineitem_row(l).expect("a present line");
        let values = lineitem_values(l);
        self.naive1.delete(0, &values).expect("present");
        self.naive3.delete(2, &values).expect("present");
        self.naive6.delete(0, &values).expect("present");
        let n = self
            .sql
            .execute(
                "DELETE FROM lineitem WHERE l_orderkey = ?1 AND l_linenumber = ?2",
                params![l.orderkey, l.linenumber],
            )
            .expect("delete");
        assert_eq!(n, 1);
    }

    /// Every copy gives the same answer to each query, and the answers are
    /// not trivial.
    fn check(&self) {
        // Q1
        let ours: BTreeMap<(char, char), Summary> = self.q1.iter().collect();
        let mut stmt = self.sql.prepare(Q1).expect("Q1");
        let sqlite: BTreeMap<(char, char), Summary> = stmt
            .query_map([], |r| {
                let c = |i| {
                    r.get::<_, String>(i)
                        .map(|s| s.chars().next().expect("a flag"))
                };
                let n = |i| r.get::<_, i64>(i).map(Int);
                Ok((
                    (c(0)?, c(1)?),
                    (
                        n(2)?,
                        n(3)?,
                        n(4)?,
                        n(5)?,
                        n(6)?,
                        Count(r.get::<_, i64>(7)? as u64),
                    ),
                ))
            })
            .expect("Q1 runs")
            .collect::<Result<_, _>>()
            .expect("Q1 rows");
        assert_eq!(ours, sqlite, "Q1 against SQLite");
        assert!(ours.len() >= 3, "Q1 has its groups: {ours:?}");
        let naive: BTreeMap<(char, char), Summary> = self
            .naive1
            .result()
            .into_iter()
            .map(|(k, v)| ((char_of(k[0]), char_of(k[1])), v))
            .collect();
        assert_eq!(ours, naive, "Q1 against the naive evaluator");

        // Q3
        let ours: BTreeMap<(i64, i32, i32), Int> = self.q3.iter().collect();
        let mut stmt = self.sql.prepare(Q3).expect("Q3");
        let sqlite: BTreeMap<(i64, i32, i32), Int> = stmt
            .query_map([], |r| {
                Ok(((r.get(0)?, r.get(1)?, r.get(2)?), Int(r.get(3)?)))
            })
            .expect("Q3 runs")
            .collect::<Result<_, _>>()
            .expect("Q3 rows");
        assert_eq!(ours, sqlite, "Q3 against SQLite");
        assert!(ours.len() >= 5, "Q3 has orders: {}", ours.len());
        let naive: BTreeMap<(i64, i32, i32), Int> = self
            .naive3
            .result()
            .into_iter()
            .map(|(k, v)| ((k[0] as i64, k[1] as i32, k[2] as i32), v))
            .collect();
        assert_eq!(ours, naive, "Q3 against the naive evaluator");

        // Q6
        let ours = self.q6.get(&());
        let sqlite: Option<i64> = self.sql.query_row(Q6, [], |r| r.get(0)).expect("Q6");
        assert_eq!(ours, Int(sqlite.unwrap_or(0)), "Q6 against SQLite");
        assert!(ours.0 > 0);
        assert_eq!(ours, self.naive6.get(&[]), "Q6 against the naive evaluator");
    }
}

use ivm::Semiring;

/// The naive evaluator's values: integers as themselves (two's complement),
/// characters as their code, strings as their hash (only compared).
fn string(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn char_of(v: u64) -> char {
    char::from_u32(v as u32).expect("a character")
}

fn customer_values(c: &Customer) -> Vec<u64> {
    vec![
        c.custkey as u64,
        string(&c.name),
        string(&c.address),
        c.nationkey as u64,
        string(&c.phone),
        c.acctbal as u64,
        string(&c.mktsegment),
        string(&c.comment),
    ]
}

fn order_values(o: &Order) -> Vec<u64> {
    vec![
        o.orderkey as u64,
        o.custkey as u64,
        u64::from(o.orderstatus),
        o.totalprice as u64,
        o.orderdate as u64,
        string(&o.orderpriority),
        string(&o.clerk),
        o.shippriority as u64,
        string(&o.comment),
    ]
}

fn lineitem_values(l: &Lineitem) -> Vec<u64> {
    vec![
        l.orderkey as u64,
        l.partkey as u64,
        l.suppkey as u64,
        l.linenumber as u64,
        l.quantity as u64,
        l.extendedprice as u64,
        l.discount as u64,
        l.tax as u64,
        u64::from(l.returnflag),
        u64::from(l.linestatus),
        l.shipdate as u64,
        l.commitdate as u64,
        l.receiptdate as u64,
        string(&l.shipinstruct),
        string(&l.shipmode),
        string(&l.comment),
    ]
}

/// Q1 for the naive evaluator: one atom over `Lineitem` with a variable
/// per column (0 to 15), grouped by the flag (8) and the status (9).
fn naive_q1() -> Naive<Summary> {
    let mut naive = Naive::new(
        vec![16],
        vec![(0, (0..16).collect())],
        vec![8, 9],
        Retraction::Contributions,
    );
    naive.set_factor(|v| {
        let (qty, price, disc, tax, ship) = (
            v[4] as i64,
            v[5] as i64,
            v[6] as i64,
            v[7] as i64,
            v[10] as i64,
        );
        if ship > 19980902 {
            return Summary::zero();
        }
        (
            Int(qty),
            Int(price),
            Int(price * (100 - disc)),
            Int(price * (100 - disc) * (100 + tax)),
            Int(disc),
            Count(1),
        )
    });
    naive
}

/// Q3: `Customer` has variables 0 to 7 (its key 0), `Orders` 8 to 16 with
/// its customer column joining on 0, `Lineitem` 17 to 32 with its order
/// column joining on 8.
fn naive_q3() -> Naive<Int> {
    let customer: Vec<usize> = (0..8).collect();
    let mut orders: Vec<usize> = (8..17).collect();
    orders[1] = 0;
    let mut lineitem: Vec<usize> = (17..33).collect();
    lineitem[0] = 8;
    let mut naive = Naive::new(
        vec![8, 9, 16],
        vec![(0, customer), (1, orders), (2, lineitem)],
        vec![8, 12, 15],
        Retraction::ring(),
    );
    naive.set_constant(0, 6, string("BUILDING"));
    naive.set_factor(|v| {
        let (date, price, disc, ship) = (v[12] as i64, v[22] as i64, v[23] as i64, v[27] as i64);
        if date < 19950315 && ship > 19950315 {
            Int(price * (100 - disc))
        } else {
            Int(0)
        }
    });
    naive
}

/// Q6: one atom over `Lineitem`, nothing free.
fn naive_q6() -> Naive<Int> {
    let mut naive = Naive::new(
        vec![16],
        vec![(0, (0..16).collect())],
        vec![],
        Retraction::ring(),
    );
    naive.set_factor(|v| {
        let (qty, price, disc, ship) = (v[4] as i64, v[5] as i64, v[6] as i64, v[10] as i64);
        if (19940101..19950101).contains(&ship) && (5..=7).contains(&disc) && qty < 24 {
            Int(price * disc)
        } else {
            Int(0)
        }
    });
    naive
}

#[test]
fn tpch_queries_agree_with_sqlite_and_the_naive_evaluator() {
    let db = Database::generate(0.002, 2026);
    let mut copies = Copies::new();
    // Orders and their lines arrive before the customers, so that each
    // table's update meets both empty and full partners.
    for o in &db.orders {
        copies.insert_order(o);
    }
    for l in &db.lineitems {
        copies.insert_lineitem(l);
    }
    for c in &db.customers {
        copies.insert_customer(c);
    }
    copies.check();

    // A third of the lines, a fifth of the orders and a quarter of the
    // customers go: among them lines shipped outside every query's dates,
    // orders placed too late and customers of other segments, which never
    // entered an atom.
    let gone_lines: Vec<&Lineitem> = db.lineitems.iter().step_by(3).collect();
    assert!(gone_lines.iter().any(|l| l.shipdate > 19980902));
    assert!(gone_lines.iter().any(|l| l.shipdate <= 19950315));
    for l in &gone_lines {
        copies.delete_lineitem(l);
    }
    for o in db.orders.iter().step_by(5) {
        copies.delete_order(o);
    }
    let gone_customers: Vec<&Customer> = db.customers.iter().step_by(4).collect();
    assert!(gone_customers.iter().any(|c| c.mktsegment != "BUILDING"));
    for c in &gone_customers {
        copies.delete_customer(c);
    }
    copies.check();

    // Deleting a row twice, or one never inserted, is an error that
    // changes nothing.
    let before: Vec<_> = copies.q1.iter().collect();
    let late = gone_lines
        .iter()
        .find(|l| l.shipdate > 19980902)
        .expect("a late line");
    assert!(copies.q1.delete_lineitem_row(late).is_err());
    assert!(copies.q6.delete_lineitem_row(late).is_err());
    assert!(copies.q3.delete_lineitem_row(late).is_err());
    assert!(copies.q3.delete_customer_row(gone_customers[0]).is_err());
    assert_eq!(before, copies.q1.iter().collect::<Vec<_>>());
    copies.check();

    // Half of the deleted lines and all of the customers come back.
    for l in gone_lines.iter().step_by(2) {
        copies.insert_lineitem(l);
    }
    for c in &gone_customers {
        copies.insert_customer(c);
    }
    copies.check();
}

/// The generator itself: its calendar and the ranges the specification
/// gives its values.
mod generator {
    use ivm_generated_examples::tpch::data::{
        CURRENT_DATE, Database, END_DATE, SEGMENTS, date, day_number,
    };

    #[test]
    fn dates_round_trip() {
        for d in [19700101, 19920101, 19920229, 19950617, 19981231, 20000301] {
            assert_eq!(date(day_number(d)), d);
        }
        assert_eq!(day_number(19700101), 0);
        assert_eq!(date(day_number(19920228) + 1), 19920229);
        assert_eq!(date(day_number(19921231) + 1), 19930101);
    }

    #[test]
    fn values_follow_the_specification() {
        let db = Database::generate(0.001, 1);
        let keys: std::collections::HashSet<i64> = db.orders.iter().map(|o| o.orderkey).collect();
        assert_eq!(keys.len(), db.orders.len());
        assert!(db.orders.iter().all(|o| o.custkey % 3 != 0));
        for l in &db.lineitems {
            assert!(keys.contains(&l.orderkey));
            assert!((1..=50).contains(&l.quantity) && (0..=10).contains(&l.discount));
            assert!(l.shipdate < l.receiptdate && l.receiptdate <= END_DATE + 200);
            assert_eq!(l.linestatus == 'O', l.shipdate > CURRENT_DATE);
            assert_eq!(l.returnflag == 'N', l.receiptdate > CURRENT_DATE);
        }
        // Every segment, and both sides of each date cut the queries make.
        for s in SEGMENTS {
            assert!(db.customers.iter().any(|c| c.mktsegment == s));
        }
        assert!(db.lineitems.iter().any(|l| l.shipdate > 19980902));
        assert!(
            db.lineitems
                .iter()
                .any(|l| (19940101..19950101).contains(&l.shipdate))
        );
    }
}
