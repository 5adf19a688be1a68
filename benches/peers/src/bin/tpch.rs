//! TPC-H queries written in SQL (`generated-examples/queries/
//! tpch_sql.sql`) as single-row update streams, every row one update and
//! the result fresh after each, as in DBToaster's single-tuple mode, with
//! engines side by side over the same rows in one run:
//!
//! - the generated struct (`tpch_sql::TpchQ*`), which checks every delete,
//!   fed through its typed owned-row API (Q1, Q3, Q4, Q5, Q6, Q10, Q12,
//!   Q14, Q17, Q18, and Q7, Q8, Q15, Q19, Q21, Q9, Q20, then Q2, Q11, Q13,
//!   Q16, Q22, which read no lines: every query of the file);
//! - a hand-written loop for Q1, Q3, Q4, Q5, Q6, Q10, Q12 and Q14
//!   (`tpch/hand.rs`) taking the same owned rows, adding into plain maps
//!   in integer units and checking nothing: the floor for a generated
//!   struct; and the same loop with its deletes checked as the generated
//!   struct checks them (`hand::Checked`): the floor for a checked one;
//! - a drop-only engine, which takes each row and drops it: what the
//!   owned-row API costs on its own;
//! - the generated struct again, checked and trusted, fed the same typed
//!   rows lent (`&String` for `impl ivm::Text`, the others copied): what
//!   it costs where rows are read in place and not handed over;
//! - differential-dataflow for Q1, Q3, Q6, Q10 and Q14 (`tpch/dd.rs`), one
//!   logical time per row and, as a batched reference, per 10^4 rows;
//! - Q1, Q3 and Q6 declared `updates = 'insert_only'`, fed the load only.
//!
//! ```sh
//! cargo run --release --manifest-path benches/peers/Cargo.toml --bin tpch -- [SCALE [Q1,Q6,...]]
//! ```
//!
//! A query's stream (`tpch/rows.rs`) is the load of the tables it reads,
//! in the order a database fills them (regions, nations, suppliers,
//! parts, customers, then each order followed by its lines), then the
//! deletes of every third order with its lines (lines first), then their
//! inserts again; a query that reads neither orders nor lines (Q2, Q11,
//! Q16) churns the `PARTSUPP` rows of every third part instead. Rows are typed (`Decimal`, `Date`, `String`) before the
//! timing starts, and each engine is timed over one pass of the stream.
//! The first table gives rows per second over the stream (the
//! insert-only views: over the load), the generated struct's rate over
//! the hand-written loop's, and Hot Dog's published rates, quoted for
//! reference, not measured here; the second, the seconds each took.
//!
//! Every engine's result after the stream is checked before the figures
//! are printed: the generated struct's against the hand-written loop's
//! and differential-dataflow's, and, for every query, against a fresh
//! struct fed the load only (the re-inserts restore the load's result).
//! Q3 and Q10 carry the specification's `ORDER BY` and `LIMIT`, so the
//! `iter()` of their structs lists only the window: it is compared, in
//! order, with differential-dataflow's result sorted and cut the same
//! way, and their whole result, which `ivm::View` still gives, with the
//! whole of differential-dataflow's (`check_q3`, `check_q10`).

// The crate root is `src/bin/tpch.rs`, whose modules would otherwise be
// looked for beside it, among the other binaries.
#[path = "tpch/dd.rs"]
mod dd;
#[path = "tpch/engines.rs"]
mod engines;
#[path = "tpch/hand.rs"]
mod hand;
#[path = "tpch/rows.rs"]
mod rows;

use std::cmp::Reverse;
use std::collections::HashMap;
use std::time::Duration;

use ivm::sql::{Date, Decimal, TextView};
use ivm_generated_examples::tpch::data::Database;
use ivm_generated_examples::tpch_sql::{
    TpchQ1, TpchQ2, TpchQ3, TpchQ4, TpchQ5, TpchQ6, TpchQ7, TpchQ8, TpchQ9, TpchQ10, TpchQ11,
    TpchQ12, TpchQ13, TpchQ14, TpchQ15, TpchQ16, TpchQ17, TpchQ18, TpchQ19, TpchQ20, TpchQ21,
    TpchQ22,
};
use ivm_generated_examples::tpch_sql_trusted as trusted;

use engines::{DropOnly, Engine, Lent, insert_only, time, time_lent};
use rows::{Stream, Table};

/// The rows of a differential-dataflow batch in the batched run.
const BATCH: usize = 10_000;

/// A query: its name, the tables it reads besides the lines, Hot Dog's
/// published rate in rows per second, and how it is measured.
struct Query {
    name: &'static str,
    tables: &'static [Table],
    hot_dog: f64,
    measure: fn(&mut Bench),
    /// Times the same view declared `deletes = 'trusted'`.
    trusted: fn(&mut Bench),
}

const QUERIES: &[Query] = &[
    Query {
        name: "Q1",
        tables: &[Table::Lineitem],
        hot_dog: 1.27e6,
        measure: q1,
        trusted: |b| b.trusted(trusted::TpchQ1::new),
    },
    Query {
        name: "Q3",
        tables: &[Table::Customer, Table::Orders, Table::Lineitem],
        hot_dog: 3.74e6,
        measure: q3,
        trusted: |b| b.trusted(trusted::TpchQ3::new),
    },
    Query {
        name: "Q4",
        tables: &[Table::Orders, Table::Lineitem],
        hot_dog: 10.08e6,
        measure: q4,
        trusted: |b| b.trusted(trusted::TpchQ4::new),
    },
    Query {
        name: "Q5",
        tables: &[
            Table::Region,
            Table::Nation,
            Table::Supplier,
            Table::Customer,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 584e3,
        measure: q5,
        trusted: |b| b.trusted(trusted::TpchQ5::new),
    },
    Query {
        name: "Q6",
        tables: &[Table::Lineitem],
        hot_dog: 138.33e6,
        measure: q6,
        trusted: |b| b.trusted(trusted::TpchQ6::new),
    },
    Query {
        name: "Q10",
        tables: &[
            Table::Nation,
            Table::Customer,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 2.89e6,
        measure: q10,
        trusted: |b| b.trusted(trusted::TpchQ10::new),
    },
    Query {
        name: "Q12",
        tables: &[Table::Orders, Table::Lineitem],
        hot_dog: 8.68e6,
        measure: q12,
        trusted: |b| b.trusted(trusted::TpchQ12::new),
    },
    Query {
        name: "Q14",
        tables: &[Table::Part, Table::Lineitem],
        hot_dog: 33.04e6,
        measure: q14,
        trusted: |b| b.trusted(trusted::TpchQ14::new),
    },
    Query {
        name: "Q17",
        tables: &[Table::Part, Table::Lineitem],
        hot_dog: 379e3,
        measure: |b| b.generated_only(TpchQ17::new),
        trusted: |b| b.trusted(trusted::TpchQ17::new),
    },
    Query {
        name: "Q18",
        tables: &[Table::Customer, Table::Orders, Table::Lineitem],
        hot_dog: 1.13e6,
        measure: |b| b.generated_only(TpchQ18::new),
        trusted: |b| b.trusted(trusted::TpchQ18::new),
    },
    Query {
        name: "Q7",
        tables: &[
            Table::Nation,
            Table::Supplier,
            Table::Customer,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 651e3,
        measure: |b| b.generated_only(TpchQ7::new),
        trusted: |b| b.trusted(trusted::TpchQ7::new),
    },
    Query {
        name: "Q8",
        tables: &[
            Table::Region,
            Table::Nation,
            Table::Supplier,
            Table::Part,
            Table::Customer,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 91e3,
        measure: |b| b.generated_only(TpchQ8::new),
        trusted: |b| b.trusted(trusted::TpchQ8::new),
    },
    Query {
        name: "Q15",
        tables: &[Table::Supplier, Table::Lineitem],
        hot_dog: 17.0,
        measure: |b| b.generated_only(TpchQ15::new),
        trusted: |b| b.trusted(trusted::TpchQ15::new),
    },
    Query {
        name: "Q19",
        tables: &[Table::Part, Table::Lineitem],
        hot_dog: 1.95e6,
        measure: |b| b.generated_only(TpchQ19::new),
        trusted: |b| b.trusted(trusted::TpchQ19::new),
    },
    Query {
        name: "Q21",
        tables: &[
            Table::Nation,
            Table::Supplier,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 837e3,
        measure: |b| b.generated_only(TpchQ21::new),
        trusted: |b| b.trusted(trusted::TpchQ21::new),
    },
    Query {
        name: "Q9",
        tables: &[
            Table::Nation,
            Table::Supplier,
            Table::Part,
            Table::PartSupp,
            Table::Orders,
            Table::Lineitem,
        ],
        hot_dog: 104e3,
        measure: |b| b.generated_only(TpchQ9::new),
        trusted: |b| b.trusted(trusted::TpchQ9::new),
    },
    Query {
        name: "Q20",
        tables: &[
            Table::Nation,
            Table::Supplier,
            Table::Part,
            Table::PartSupp,
            Table::Lineitem,
        ],
        hot_dog: 977.0,
        measure: |b| b.generated_only(TpchQ20::new),
        trusted: |b| b.trusted(trusted::TpchQ20::new),
    },
    Query {
        name: "Q2",
        tables: &[
            Table::Region,
            Table::Nation,
            Table::Supplier,
            Table::Part,
            Table::PartSupp,
        ],
        hot_dog: f64::NAN,
        measure: |b| b.generated_only(TpchQ2::new),
        trusted: |b| b.trusted(trusted::TpchQ2::new),
    },
    Query {
        name: "Q11",
        tables: &[Table::Nation, Table::Supplier, Table::PartSupp],
        hot_dog: 768.0,
        measure: |b| b.generated_only(TpchQ11::new),
        trusted: |b| b.trusted(trusted::TpchQ11::new),
    },
    Query {
        name: "Q13",
        tables: &[Table::Customer, Table::Orders],
        hot_dog: 780e3,
        measure: |b| b.generated_only(TpchQ13::new),
        trusted: |b| b.trusted(trusted::TpchQ13::new),
    },
    Query {
        name: "Q16",
        tables: &[Table::Supplier, Table::Part, Table::PartSupp],
        hot_dog: 124e3,
        measure: |b| b.generated_only(TpchQ16::new),
        trusted: |b| b.trusted(trusted::TpchQ16::new),
    },
    Query {
        name: "Q22",
        tables: &[Table::Customer, Table::Orders],
        hot_dog: 189.0,
        measure: |b| b.generated_only(TpchQ22::new),
        trusted: |b| b.trusted(trusted::TpchQ22::new),
    },
];

fn main() {
    let mut args = std::env::args().skip(1);
    let scale: f64 = args
        .next()
        .map_or(0.1, |s| s.parse().expect("a scale factor"));
    let queries = selected(args.next());
    let db = Database::generate(scale, 2016);
    println!(
        "TPC-H scale factor {scale}: {} customers, {} orders, {} lines",
        db.customers.len(),
        db.orders.len(),
        db.lineitems.len()
    );
    let figures: Vec<Figures> = queries
        .into_iter()
        .map(|q| {
            let mut bench = Bench::new(&db, q);
            (q.measure)(&mut bench);
            (q.trusted)(&mut bench);
            // Progress, apart from the tables: a run at scale 0.1 takes
            // minutes.
            eprintln!("{}: measured and checked", q.name);
            bench.figures
        })
        .collect();
    print_rates(&figures);
    print_seconds(&figures);
}

/// The queries a comma-separated list such as `Q6,Q14` names, or all of
/// them.
fn selected(list: Option<String>) -> Vec<&'static Query> {
    let Some(list) = list else {
        return QUERIES.iter().collect();
    };
    list.split(',')
        .map(|name| {
            let name = name.trim().to_uppercase();
            QUERIES.iter().find(|q| q.name == name).unwrap_or_else(|| {
                let all: Vec<_> = QUERIES.iter().map(|q| q.name).collect();
                panic!("no query {name}: the queries are {all:?}")
            })
        })
        .collect()
}

/// What one query's engines measured; `None` where an engine does not run
/// the query.
struct Figures {
    query: &'static str,
    rows: usize,
    /// The rows the generated view lists at the end (for Q3, Q10 and Q18,
    /// the LIMIT's window).
    result_rows: usize,
    generated: Duration,
    /// The same view with `deletes = 'trusted'`.
    trusted: Option<Duration>,
    /// The generated view, checked and trusted, fed the same rows lent
    /// (`impl ivm::Text` for the text columns).
    lent: Option<Duration>,
    lent_trusted: Option<Duration>,
    hand: Option<Duration>,
    /// The hand-written loop with checked deletes (`hand::Checked`).
    hand_checked: Option<Duration>,
    drop_only: Duration,
    dd: Option<Duration>,
    dd_batched: Option<Duration>,
    /// The load's rows, and the insert-only view's time over them.
    insert_only: Option<(usize, Duration)>,
    hot_dog: f64,
}

/// A query's stream over the database, and the figures of the engines run
/// on it so far.
struct Bench<'a> {
    db: &'a Database,
    stream: Stream,
    /// The generated view's rows after the stream, sorted.
    rows: Vec<Vec<String>>,
    figures: Figures,
}

impl<'a> Bench<'a> {
    /// The query's stream, and the drop-only engine timed over it.
    fn new(db: &'a Database, query: &Query) -> Bench<'a> {
        let stream = Stream::new(db, query.tables);
        let (drop_only, DropOnly) = time(stream.typed(db), DropOnly);
        let figures = Figures {
            query: query.name,
            rows: stream.ops.len(),
            result_rows: 0,
            generated: Duration::ZERO,
            trusted: None,
            lent: None,
            lent_trusted: None,
            hand: None,
            hand_checked: None,
            drop_only,
            dd: None,
            dd_batched: None,
            insert_only: None,
            hot_dog: query.hot_dog,
        };
        Bench {
            db,
            stream,
            rows: Vec::new(),
            figures,
        }
    }

    /// Times the generated struct `new()` gives over the stream, and checks
    /// that it ends with the result of one fed the load only: the re-inserts
    /// restore it, so this checks the deletes.
    fn generated<V: Engine + Lent + TextView>(&mut self, new: impl Fn() -> V) -> V {
        let (took, view) = time(self.stream.typed(self.db), new());
        self.figures.generated = took;
        let typed = self.stream.typed(self.db);
        let (lent, lent_view) = time_lent(&typed, new());
        self.figures.lent = Some(lent);
        let what = format!("{}: fed rows owned and lent", self.figures.query);
        assert_eq!(sorted_rows(&lent_view), sorted_rows(&view), "{what}");
        let (_, loaded) = time(self.stream.typed_load(self.db), new());
        let what = format!(
            "{}: after the stream and after the load",
            self.figures.query
        );
        let rows = sorted_rows(&view);
        assert_eq!(rows, sorted_rows(&loaded), "{what}");
        self.figures.result_rows = rows.len();
        self.rows = rows;
        view
    }

    /// Times the view `new()` gives, declared `deletes = 'trusted'`, over
    /// the stream (which deletes only rows it inserted), and checks that it
    /// ends with the checked view's rows.
    fn trusted<V: Engine + Lent + TextView>(&mut self, new: impl Fn() -> V) {
        let (took, view) = time(self.stream.typed(self.db), new());
        self.figures.trusted = Some(took);
        let what = format!("{}: trusted and checked deletes", self.figures.query);
        assert_eq!(sorted_rows(&view), self.rows, "{what}");
        let typed = self.stream.typed(self.db);
        let (lent, view) = time_lent(&typed, new());
        self.figures.lent_trusted = Some(lent);
        let what = format!("{}: trusted, fed rows lent", self.figures.query);
        assert_eq!(sorted_rows(&view), self.rows, "{what}");
    }

    /// [`Bench::generated`], for a query no other engine runs.
    fn generated_only<V: Engine + Lent + TextView>(&mut self, new: impl Fn() -> V) {
        self.generated(new);
    }

    /// Times the hand-written loop `new()` gives, and the same loop with
    /// its deletes checked, which must refuse none.
    fn hand<E: Engine>(&mut self, new: impl Fn() -> E) -> E {
        let (took, engine) = time(self.stream.typed(self.db), new());
        self.figures.hand = Some(took);
        let checked = hand::Checked::new(new());
        let (took, checked) = time(self.stream.typed(self.db), checked);
        let what = format!("{}: the checked loop refused a delete", self.figures.query);
        assert_eq!(checked.refused, 0, "{what}");
        self.figures.hand_checked = Some(took);
        engine
    }

    /// Times an insert-only view over the load.
    fn insert_only<E: Engine>(&mut self, view: E) -> E {
        let (took, view) = time(self.stream.typed_load(self.db), view);
        self.figures.insert_only = Some((self.stream.load, took));
        view
    }

    /// Times the plan `plan` gives over the stream, a row per logical time
    /// and [`BATCH`] rows per time, checks that both end with the same
    /// result, and returns it.
    fn dd<K: Clone + Eq + std::hash::Hash + std::fmt::Debug + 'static>(
        &mut self,
        plan: fn() -> dd::Dd<K>,
    ) -> HashMap<K, i64> {
        let (took, result) = plan().run(self.db, &self.stream.ops, 1);
        let (batched, in_batches) = plan().run(self.db, &self.stream.ops, BATCH);
        let what = format!(
            "{}: differential-dataflow by row and by batch",
            self.figures.query
        );
        assert_eq!(result, in_batches, "{what}");
        self.figures.dd = Some(took);
        self.figures.dd_batched = Some(batched);
        result
    }
}

/// A view's rows as text, sorted, to compare views whatever their order.
fn sorted_rows(view: &impl TextView) -> Vec<Vec<String>> {
    let mut rows = view.text_rows();
    rows.sort();
    rows
}

/// Q1's sums per flag and status, in the order and units of
/// `hand::Q1::groups`.
type Q1Result = HashMap<(String, String), [i64; 6]>;

fn q1(b: &mut Bench) {
    let view = b.generated(TpchQ1::new);
    // The whole payload: the rows show the sum of the discounts only as
    // an average.
    let expected: Q1Result = ivm::View::iter(&view)
        .map(|(group, p)| {
            let sums = [
                Decimal::from(p.1).scaled_mantissa(2),
                Decimal::from(p.2).scaled_mantissa(2),
                Decimal::from(p.3).scaled_mantissa(4),
                Decimal::from(p.4).scaled_mantissa(6),
                Decimal::from(p.5).scaled_mantissa(2),
                p.0.0,
            ];
            (group, sums)
        })
        .collect();
    let mut hand = b.hand(hand::Q1::default).groups;
    // A group whose lines all left stays, at zero.
    hand.retain(|_, sums| sums[5] != 0);
    assert_eq!(hand, expected, "Q1: hand-written and generated");
    let mut flow = Q1Result::new();
    for ((flag, status, i), v) in b.dd(dd::q1) {
        flow.entry((flag.to_string(), status.to_string()))
            .or_default()[i as usize] = v;
    }
    assert_eq!(flow, expected, "Q1: differential-dataflow and generated");
    let only = b.insert_only(insert_only::Q1InsertOnly::new());
    assert_eq!(
        sorted_rows(&only),
        sorted_rows(&view),
        "Q1: insert_only and generated"
    );
}

fn q3(b: &mut Bench) {
    let view = b.generated(TpchQ3::new);
    let flow = b.dd(dd::q3);
    check_q3(&view, &flow, "Q3: generated and differential-dataflow");
    let hand: Q3Result = b
        .hand(hand::Q3::default)
        .revenue
        .into_iter()
        .filter(|&(_, revenue)| revenue != 0)
        .map(|(k, revenue)| (q3_key(k), revenue))
        .collect();
    assert_eq!(hand, flow, "Q3: hand-written and differential-dataflow");
    // The insert-only copy has no ORDER BY or LIMIT: `iter()` lists every
    // row.
    let only: Q3Result = b
        .insert_only(insert_only::Q3InsertOnly::new())
        .iter()
        .map(|(k, row)| (q3_key(k), row.revenue.scaled_mantissa(4)))
        .collect();
    assert_eq!(only, flow, "Q3: insert_only and differential-dataflow");
}

/// Q6's revenue, in cents × hundredths.
fn q6(b: &mut Bench) {
    let revenue = |r: Option<Decimal>| r.map_or(0, |d| d.scaled_mantissa(4));
    let view = b.generated(TpchQ6::new);
    let expected = revenue(view.get(&()).expect("one row").revenue);
    let hand = b.hand(hand::Q6::default).revenue;
    assert_eq!(hand, expected, "Q6: hand-written and generated");
    let flow = b.dd(dd::q6).get(&()).copied().unwrap_or(0);
    assert_eq!(flow, expected, "Q6: differential-dataflow and generated");
    let only = b.insert_only(insert_only::Q6InsertOnly::new());
    let only = revenue(only.get(&()).expect("one row").revenue);
    assert_eq!(only, expected, "Q6: insert_only and generated");
}

/// Q4's count of orders per priority.
fn q4(b: &mut Bench) {
    let view = b.generated(TpchQ4::new);
    let expected: HashMap<String, i64> = view
        .iter()
        .map(|(_, row)| (row.o_orderpriority, row.order_count))
        .collect();
    let mut hand = b.hand(hand::Q4::default).counts;
    hand.retain(|_, count| *count != 0);
    assert_eq!(hand, expected, "Q4: hand-written and generated");
}

/// Q5's revenue per nation, in cents × hundredths.
fn q5(b: &mut Bench) {
    let view = b.generated(TpchQ5::new);
    let expected: HashMap<String, i64> = view
        .iter()
        .map(|(_, row)| (row.n_name, row.revenue.scaled_mantissa(4)))
        .collect();
    let mut hand = b.hand(hand::Q5::default).revenue;
    hand.retain(|_, revenue| *revenue != 0);
    assert_eq!(hand, expected, "Q5: hand-written and generated");
}

fn q10(b: &mut Bench) {
    let view = b.generated(TpchQ10::new);
    let flow = b.dd(dd::q10);
    check_q10(&view, &flow, "Q10: generated and differential-dataflow");
    let mut hand = b.hand(hand::Q10::default).revenue;
    hand.retain(|_, revenue| *revenue != 0);
    assert_eq!(hand, flow, "Q10: hand-written and differential-dataflow");
}

/// Q12's counts of high and low priority lines per ship mode.
fn q12(b: &mut Bench) {
    let view = b.generated(TpchQ12::new);
    let expected: HashMap<String, (i64, i64)> = view
        .iter()
        .map(|(_, row)| (row.l_shipmode, (row.high_line_count, row.low_line_count)))
        .collect();
    let counts = b.hand(hand::Q12::default).counts;
    let hand: HashMap<String, (i64, i64)> = hand::Q12::MODES
        .iter()
        .zip(counts)
        .filter(|&(_, counts)| counts != (0, 0))
        .map(|(mode, counts)| (mode.to_string(), counts))
        .collect();
    assert_eq!(hand, expected, "Q12: hand-written and generated");
}

/// Q14's revenue of promoted parts and of all (the view divides the one
/// by the other), compared as decimals: the view keeps the first at the
/// scale of a product with the promotion flag, cents × 10^6.
fn q14(b: &mut Bench) {
    let view = b.generated(TpchQ14::new);
    let expected = ivm::View::iter(&view)
        .map(|((), p)| (Decimal::from(p.1), Decimal::from(p.2)))
        .next()
        .unwrap_or_default();
    let in_hundredths = |(promo, all): (i64, i64)| (Decimal::new(promo, 4), Decimal::new(all, 4));
    let hand = b.hand(hand::Q14::default);
    assert_eq!(
        in_hundredths((hand.promo_revenue, hand.revenue)),
        expected,
        "Q14: hand-written and generated"
    );
    let flow = b.dd(dd::q14);
    let promo = flow.get(&true).copied().unwrap_or(0);
    let all = promo + flow.get(&false).copied().unwrap_or(0);
    assert_eq!(
        in_hundredths((promo, all)),
        expected,
        "Q14: differential-dataflow and generated"
    );
}

/// The key of a Q3 row as differential-dataflow keeps it: the date as
/// `yyyymmdd`.
fn q3_key((order, day, priority): (i64, Date, i32)) -> (i64, i32, i32) {
    let day = day.year() * 10_000 + day.month() as i32 * 100 + day.day() as i32;
    (order, day, priority)
}

/// A Q3 result as differential-dataflow keeps it: the revenue per key
/// ([`q3_key`]), in cents × hundredths.
type Q3Result = HashMap<(i64, i32, i32), i64>;

/// Checks `tpch_q3` against differential-dataflow's result `r`. The view
/// ends `ORDER BY revenue DESC, o_orderdate LIMIT 10`, so its `iter()`
/// lists only the window: compared, in order, with `r` sorted by the
/// view's order and cut to its LIMIT. The whole result, which
/// `ivm::View::iter` still gives as (group key, payload) pairs, is
/// compared with the whole of `r`.
fn check_q3(view: &TpchQ3, r: &Q3Result, what: &str) {
    let whole: Q3Result = ivm::View::iter(view)
        .map(|(k, (_, revenue))| (q3_key(k), Decimal::from(revenue).scaled_mantissa(4)))
        .collect();
    assert_eq!(&whole, r, "{what}: the whole result");
    let window: Vec<_> = view
        .iter()
        .map(|(k, row)| (q3_key(k), row.revenue.scaled_mantissa(4)))
        .collect();
    // The view's order: the ORDER BY items, then every select item
    // ascending (`l_orderkey`, then `o_shippriority`; the date and the
    // revenue are ranked already). The date as `yyyymmdd` sorts as the date.
    let expected = window_of(view, r, |&((order, day, priority), revenue)| {
        (Reverse(revenue), day, order, priority)
    });
    assert_eq!(window, expected, "{what}: the window");
}

/// Checks `tpch_q10` against differential-dataflow's result `r`, revenue
/// per customer, as [`check_q3`] does: the view ends `ORDER BY revenue DESC
/// LIMIT 20`, so its `iter()` lists only the window.
fn check_q10(view: &TpchQ10, r: &HashMap<i64, i64>, what: &str) {
    let whole: HashMap<i64, i64> = ivm::View::iter(view)
        .map(|(k, (_, revenue))| (k.0, Decimal::from(revenue).scaled_mantissa(4)))
        .collect();
    assert_eq!(&whole, r, "{what}: the whole result");
    let window: Vec<_> = view
        .iter()
        .map(|(k, row)| (k.0, row.revenue.scaled_mantissa(4)))
        .collect();
    // The view's order: revenue descending, then the select items
    // ascending, of which the first, `c_custkey`, is unique per group and
    // so settles every tie.
    let expected = window_of(view, r, |&(custkey, revenue)| (Reverse(revenue), custkey));
    assert_eq!(window, expected, "{what}: the window");
}

/// The window a view with LIMIT lists, out of differential-dataflow's
/// whole result: its (key, revenue) rows sorted by `order`, which must be
/// the view's order, and cut to the view's LIMIT.
fn window_of<K: Copy, O: Ord>(
    view: &impl TextView,
    result: &HashMap<K, i64>,
    order: impl Fn(&(K, i64)) -> O,
) -> Vec<(K, i64)> {
    let window = view.order().expect("a view with ORDER BY");
    assert_eq!(window.offset, 0, "{}: no OFFSET expected", view.name());
    let limit = window.limit.expect("a view with LIMIT");
    let mut rows: Vec<(K, i64)> = result.iter().map(|(&k, &v)| (k, v)).collect();
    rows.sort_by_key(order);
    rows.truncate(limit as usize);
    rows
}

/// Rows per second over the stream, in every engine's column.
fn print_rates(figures: &[Figures]) {
    println!();
    println!(
        "Rows per second over each query's stream (load, deletes of every third order with its lines, or for Q2, Q11 and Q16 of every third part's PARTSUPP rows, their inserts again; one row per update):"
    );
    println!();
    println!(
        "| query | rows in stream | result rows | generated (checked) | generated (trusted) | hand-written | checked / hand | trusted / hand | hand-written, checked | checked / hand, checked | drop-only | lent, checked | lent, trusted | dd, batch 1 | dd, batch 10^4 | insert_only, load only | Hot Dog, published |"
    );
    println!(
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for f in figures {
        let per_s = |d: Duration| f.rows as f64 / d.as_secs_f64();
        let cell = |d: Option<Duration>| d.map_or("–".into(), |d| rate(per_s(d)));
        let ratio = |hand: Option<Duration>, took: Option<Duration>| match (hand, took) {
            (Some(hand), Some(took)) => format!("{:.2}", hand.as_secs_f64() / took.as_secs_f64()),
            _ => "–".into(),
        };
        let only = f.insert_only.map_or("–".into(), |(rows, d)| {
            rate(rows as f64 / d.as_secs_f64())
        });
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {only} | {} |",
            f.query,
            f.rows,
            f.result_rows,
            rate(per_s(f.generated)),
            cell(f.trusted),
            cell(f.hand),
            ratio(f.hand, Some(f.generated)),
            ratio(f.hand, f.trusted),
            cell(f.hand_checked),
            ratio(f.hand_checked, Some(f.generated)),
            rate(per_s(f.drop_only)),
            cell(f.lent),
            cell(f.lent_trusted),
            cell(f.dd),
            cell(f.dd_batched),
            rate(f.hot_dog)
        );
    }
}

/// Seconds each engine took over its query's stream (the insert-only
/// views: over the load).
fn print_seconds(figures: &[Figures]) {
    println!();
    println!("Seconds per query:");
    println!();
    println!(
        "| query | generated (checked) | generated (trusted) | hand-written | hand-written, checked | drop-only | dd, batch 1 | dd, batch 10^4 | insert_only, load only |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let secs = |d: Duration| format!("{:.3}", d.as_secs_f64());
    let cell = |d: Option<Duration>| d.map_or("–".into(), secs);
    for f in figures {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            f.query,
            secs(f.generated),
            cell(f.trusted),
            cell(f.hand),
            cell(f.hand_checked),
            secs(f.drop_only),
            cell(f.dd),
            cell(f.dd_batched),
            cell(f.insert_only.map(|(_, d)| d))
        );
    }
}

fn rate(r: f64) -> String {
    if r.is_nan() {
        "–".to_string()
    } else if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.0} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}
