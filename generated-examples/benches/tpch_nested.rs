//! TPC-H Q17 and Q18 (`queries/tpch_sql.sql`: nested views maintained
//! once inside each view) under single-row streams: every row of the
//! tables a query reads is inserted one at a time, the result fresh after
//! each, and then every row is deleted again. Rows per second of each
//! phase, at two scale factors, with the log-log slope of the cost per
//! row between them. The rows are converted to the views' typed columns
//! before the clock starts.
//!
//! ```sh
//! cargo bench -p ivm-generated-examples --bench tpch_nested
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

use ivm::sql::{Date, Decimal};
use ivm_generated_examples::tpch::data::{Customer, Database, Lineitem, Order, Part};
use ivm_generated_examples::tpch_sql::{TpchQ17, TpchQ18};

/// The scale factors: 60 000 and 600 000 order lines.
const SCALES: [f64; 2] = [0.01, 0.1];
/// Runs per cell; the median is reported.
const RUNS: usize = 3;

fn date(yyyymmdd: i32) -> Date {
    Date::from_ymd(
        yyyymmdd / 10_000,
        (yyyymmdd / 100 % 100) as u32,
        (yyyymmdd % 100) as u32,
    )
    .expect("a generated date")
}

fn cents(v: i64) -> Decimal {
    Decimal::new(v, 2)
}

/// A row of one of the tables, as the views' typed methods take it.
#[derive(Clone)]
enum Row {
    Part(Part),
    Customer(Customer),
    Order(Order),
    Line(Lineitem),
}

/// A view's typed methods for the rows of each table it reads.
trait Stream {
    /// Inserts the row.
    fn insert(&mut self, row: Row);
    /// Deletes the row, inserted before.
    fn delete(&mut self, row: Row);
}

fn line_args(l: Lineitem) -> LineArgs {
    (
        l.orderkey,
        l.partkey,
        l.suppkey,
        l.linenumber,
        cents(l.quantity * 100),
        cents(l.extendedprice),
        cents(l.discount),
        cents(l.tax),
        l.returnflag.to_string(),
        l.linestatus.to_string(),
        date(l.shipdate),
        date(l.commitdate),
        date(l.receiptdate),
        l.shipinstruct,
        l.shipmode,
        l.comment,
    )
}

type LineArgs = (
    i64,
    i64,
    i64,
    i32,
    Decimal,
    Decimal,
    Decimal,
    Decimal,
    String,
    String,
    Date,
    Date,
    Date,
    String,
    String,
    String,
);

macro_rules! line {
    ($view:expr, $method:ident, $l:expr) => {{
        let a = line_args($l);
        $view.$method(
            a.0, a.1, a.2, a.3, a.4, a.5, a.6, a.7, a.8, a.9, a.10, a.11, a.12, a.13, a.14, a.15,
        )
    }};
}

macro_rules! part {
    ($view:expr, $method:ident, $p:expr) => {{
        let p = $p;
        $view.$method(
            p.partkey,
            p.name,
            p.mfgr,
            p.brand,
            p.r#type,
            p.size,
            p.container,
            cents(p.retailprice),
            p.comment,
        )
    }};
}

macro_rules! customer {
    ($view:expr, $method:ident, $c:expr) => {{
        let c = $c;
        $view.$method(
            c.custkey,
            c.name,
            c.address,
            c.nationkey,
            c.phone,
            cents(c.acctbal),
            c.mktsegment,
            c.comment,
        )
    }};
}

macro_rules! orders {
    ($view:expr, $method:ident, $o:expr) => {{
        let o = $o;
        $view.$method(
            o.orderkey,
            o.custkey,
            o.orderstatus.to_string(),
            cents(o.totalprice),
            date(o.orderdate),
            o.orderpriority,
            o.clerk,
            o.shippriority,
            o.comment,
        )
    }};
}

impl Stream for TpchQ17 {
    fn insert(&mut self, row: Row) {
        match row {
            Row::Part(p) => part!(self, insert_part, p),
            Row::Line(l) => line!(self, insert_lineitem, l),
            Row::Customer(_) | Row::Order(_) => unreachable!("Q17 reads parts and lines"),
        }
    }

    fn delete(&mut self, row: Row) {
        match row {
            Row::Part(p) => part!(self, delete_part, p),
            Row::Line(l) => line!(self, delete_lineitem, l),
            Row::Customer(_) | Row::Order(_) => unreachable!("Q17 reads parts and lines"),
        }
        .expect("a row inserted before");
    }
}

impl Stream for TpchQ18 {
    fn insert(&mut self, row: Row) {
        match row {
            Row::Customer(c) => customer!(self, insert_customer, c),
            Row::Order(o) => orders!(self, insert_orders, o),
            Row::Line(l) => line!(self, insert_lineitem, l),
            Row::Part(_) => unreachable!("Q18 reads customers, orders and lines"),
        }
    }

    fn delete(&mut self, row: Row) {
        match row {
            Row::Customer(c) => customer!(self, delete_customer, c),
            Row::Order(o) => orders!(self, delete_orders, o),
            Row::Line(l) => line!(self, delete_lineitem, l),
            Row::Part(_) => unreachable!("Q18 reads customers, orders and lines"),
        }
        .expect("a row inserted before");
    }
}

/// Q17's stream: the parts, then the lines.
fn q17_rows(db: &Database) -> Vec<Row> {
    let parts = db.parts.iter().cloned().map(Row::Part);
    parts
        .chain(db.lineitems.iter().cloned().map(Row::Line))
        .collect()
}

/// Q18's stream: the customers, then each order followed by its lines.
fn q18_rows(db: &Database) -> Vec<Row> {
    let mut rows: Vec<Row> = db.customers.iter().cloned().map(Row::Customer).collect();
    let mut lines = db.lineitems.iter().peekable();
    for o in &db.orders {
        rows.push(Row::Order(o.clone()));
        while let Some(l) = lines.next_if(|l| l.orderkey == o.orderkey) {
            rows.push(Row::Line(l.clone()));
        }
    }
    rows
}

/// Inserts every row, then deletes every row (lines before what they
/// name): the time of each phase.
fn run<V: Stream + Default>(rows: &[Row]) -> (Duration, Duration) {
    let (inserts, deletes) = (
        rows.to_vec(),
        rows.iter().rev().cloned().collect::<Vec<_>>(),
    );
    let mut view = V::default();
    let start = Instant::now();
    for row in inserts {
        view.insert(row);
    }
    let loaded = start.elapsed();
    black_box(&view);
    let start = Instant::now();
    for row in deletes {
        view.delete(row);
    }
    let emptied = start.elapsed();
    black_box(&view);
    (loaded, emptied)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo test --benches` runs each bench once as a test: one small run.
    let quick = std::env::args().any(|a| a == "--test");
    let scales: &[f64] = if quick { &[0.001] } else { &SCALES };
    println!("| query | scale | rows | inserts, rows/s | deletes, rows/s |");
    println!("|---|---:|---:|---:|---:|");
    let mut per_row: Vec<(&str, Vec<f64>)> = vec![("Q17", Vec::new()), ("Q18", Vec::new())];
    for &scale in scales {
        let db = Database::generate(scale, 11);
        for (name, rows, run) in [
            (
                "Q17",
                q17_rows(&db),
                run::<TpchQ17> as fn(&[Row]) -> (Duration, Duration),
            ),
            ("Q18", q18_rows(&db), run::<TpchQ18>),
        ] {
            let runs = if quick { 1 } else { RUNS };
            let times: Vec<(Duration, Duration)> = (0..runs).map(|_| run(&rows)).collect();
            let n = rows.len() as f64;
            let ins = median(times.iter().map(|t| n / t.0.as_secs_f64()).collect());
            let del = median(times.iter().map(|t| n / t.1.as_secs_f64()).collect());
            println!(
                "| {name} | {scale} | {} | {:.0} k | {:.0} k |",
                rows.len(),
                ins / 1e3,
                del / 1e3
            );
            let both = median(
                times
                    .iter()
                    .map(|t| (t.0 + t.1).as_secs_f64() / (2.0 * n))
                    .collect(),
            );
            per_row
                .iter_mut()
                .find(|(q, _)| *q == name)
                .expect("a query")
                .1
                .push(both);
        }
    }
    if scales.len() == 2 {
        for (name, costs) in &per_row {
            let slope = (costs[1] / costs[0]).log10() / (scales[1] / scales[0]).log10();
            println!(
                "{name}: cost per row {:.0} ns and {:.0} ns, log-log slope {slope:.2}",
                costs[0] * 1e9,
                costs[1] * 1e9
            );
        }
    }
}
