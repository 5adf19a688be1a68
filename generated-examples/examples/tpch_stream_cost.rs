//! Instructions per row of a TPC-H view of `queries/tpch_sql.sql` over the
//! peer benchmark's stream, for callgrind: at scale factor 0.01, the
//! regions, nations, suppliers and customers, then each order followed by its lines, then the deletes of
//! every third order with its lines (lines first), each row given as text
//! to `insert_text` or `delete_text` (a table the view does not read is
//! skipped). The second argument caps the rows fed. Under callgrind, the
//! inclusive cost of the view's `insert_text` and `delete_text` divided by
//! the rows is what a row costs the view, its text parsed included:
//!
//! ```text
//! cargo build --release -p ivm-generated-examples --example tpch_stream_cost
//! valgrind --tool=callgrind --callgrind-out-file=q3.out \
//!     target/release/examples/tpch_stream_cost q3 1000000000
//! callgrind_annotate --inclusive=yes q3.out | grep -E 'TpchQ3::(insert|delete)_text '
//! ```

use ivm::sql::TextRetract;
use ivm_generated_examples::tpch::data::{Database, Lineitem, text};
use ivm_generated_examples::tpch_sql::{TpchQ3, TpchQ4, TpchQ10, TpchQ13, TpchQ18, TpchQ21};

/// One row of the stream: an insert or a delete into a table.
struct Row {
    insert: bool,
    table: &'static str,
    fields: Vec<String>,
}

fn stream(db: &Database) -> Vec<Row> {
    let row = |insert, table, fields| Row {
        insert,
        table,
        fields,
    };
    let mut rows: Vec<Row> = db
        .regions
        .iter()
        .map(|r| row(true, "region", text::region(r)))
        .collect();
    rows.extend(
        db.nations
            .iter()
            .map(|n| row(true, "nation", text::nation(n))),
    );
    rows.extend(
        db.suppliers
            .iter()
            .map(|s| row(true, "supplier", text::supplier(s))),
    );
    rows.extend(
        db.customers
            .iter()
            .map(|c| row(true, "customer", text::customer(c))),
    );
    let position: std::collections::HashMap<i64, usize> = db
        .orders
        .iter()
        .enumerate()
        .map(|(i, o)| (o.orderkey, i))
        .collect();
    let mut lines: Vec<Vec<&Lineitem>> = vec![Vec::new(); db.orders.len()];
    for l in &db.lineitems {
        lines[position[&l.orderkey]].push(l);
    }
    for (o, ls) in db.orders.iter().zip(&lines) {
        rows.push(row(true, "orders", text::order(o)));
        rows.extend(ls.iter().map(|l| row(true, "lineitem", text::lineitem(l))));
    }
    for (o, ls) in db.orders.iter().zip(&lines).step_by(3) {
        rows.extend(ls.iter().map(|l| row(false, "lineitem", text::lineitem(l))));
        rows.push(row(false, "orders", text::order(o)));
    }
    rows
}

fn main() {
    let mut args = std::env::args().skip(1);
    let query = args.next().unwrap_or_else(|| "q3".into());
    let cap: usize = args
        .next()
        .map_or(usize::MAX, |n| n.parse().expect("a row count"));
    let mut view: Box<dyn TextRetract> = match query.as_str() {
        "q3" => Box::new(TpchQ3::new()),
        "q4" => Box::new(TpchQ4::new()),
        "q10" => Box::new(TpchQ10::new()),
        "q13" => Box::new(TpchQ13::new()),
        "q18" => Box::new(TpchQ18::new()),
        "q21" => Box::new(TpchQ21::new()),
        other => panic!("no query {other}: q3, q4, q10, q13, q18 or q21"),
    };
    let rows = stream(&Database::generate(0.01, 2016));
    let mut fed = 0;
    for row in rows.iter().take(cap) {
        let fields: Vec<&str> = row.fields.iter().map(String::as_str).collect();
        let done = if row.insert {
            view.insert_text(row.table, &fields)
        } else {
            view.delete_text(row.table, &fields)
        };
        match done {
            Ok(()) | Err(ivm::Error::UnknownTable { .. }) => fed += 1,
            Err(e) => panic!("{e}"),
        }
    }
    println!("{fed} rows");
}
