//! TPC-H Q1, Q3, Q4, Q5, Q6, Q10, Q12 and Q14 (and customers without orders)
//! written in SQL, kept fresh while
//! generated tables are loaded row by row through `insert_text` (with a
//! progress bar) and then changed by a stream of deletes and inserts.
//!
//! ```sh
//! cargo run --release -p ivm-generated-examples --example tpch_sql -- [SCALE]
//! ```
//!
//! Every view reads only some tables; the loader gives each row to the
//! views that read its table (`ivm::sql::TextView::tables`), so the same
//! loop serves any set of views.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use ivm::sql::TextRetract;
use ivm_generated_examples::tpch::data::{Database, text};
use ivm_generated_examples::tpch_sql::{
    TpchIdleCustomers, TpchQ1, TpchQ3, TpchQ4, TpchQ5, TpchQ6, TpchQ10, TpchQ12, TpchQ14,
};

/// Every row of the database as (table, fields), in load order.
fn rows(db: &Database) -> Vec<(&'static str, Vec<String>)> {
    let mut rows = Vec::new();
    rows.extend(db.regions.iter().map(|r| ("region", text::region(r))));
    rows.extend(db.nations.iter().map(|n| ("nation", text::nation(n))));
    rows.extend(db.suppliers.iter().map(|s| ("supplier", text::supplier(s))));
    rows.extend(db.parts.iter().map(|p| ("part", text::part(p))));
    rows.extend(db.customers.iter().map(|c| ("customer", text::customer(c))));
    rows.extend(db.orders.iter().map(|o| ("orders", text::order(o))));
    rows.extend(db.lineitems.iter().map(|l| ("lineitem", text::lineitem(l))));
    rows
}

fn apply(
    views: &mut [Box<dyn TextRetract>],
    table: &str,
    fields: &[String],
    insert: bool,
) -> ivm::Result<()> {
    let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
    for view in views.iter_mut().filter(|v| v.tables().contains(&table)) {
        if insert {
            view.insert_text(table, &fields)?;
        } else {
            view.delete_text(table, &fields)?;
        }
    }
    Ok(())
}

fn summary(views: &[Box<dyn TextRetract>]) {
    for view in views {
        let rows = view.text_rows();
        let first = rows.first().map(|r| r.join(" | ")).unwrap_or_default();
        println!("  {:<9} {:>6} rows   e.g. {first}", view.name(), rows.len());
    }
}

fn main() -> ivm::Result<()> {
    let scale: f64 = std::env::args()
        .nth(1)
        .map_or(0.01, |s| s.parse().expect("a scale factor"));
    let db = Database::generate(scale, 1);
    let rows = rows(&db);
    let mut views: Vec<Box<dyn TextRetract>> = vec![
        Box::new(TpchQ1::new()),
        Box::new(TpchQ3::new()),
        Box::new(TpchQ5::new()),
        Box::new(TpchQ6::new()),
        Box::new(TpchQ10::new()),
        Box::new(TpchQ12::new()),
        Box::new(TpchQ14::new()),
        Box::new(TpchQ4::new()),
        Box::new(TpchIdleCustomers::new()),
    ];

    println!("loading TPC-H at scale factor {scale}: {} rows", rows.len());
    let bar = ProgressBar::new(rows.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} rows, {per_sec}, {eta} left")
            .expect("a valid template"),
    );
    let start = Instant::now();
    for (i, (table, fields)) in rows.iter().enumerate() {
        apply(&mut views, table, fields, true)?;
        if i % 1024 == 0 {
            bar.set_position(i as u64);
        }
    }
    bar.finish_and_clear();
    println!(
        "loaded in {:.2} s, every view fresh after every row:",
        start.elapsed().as_secs_f64()
    );
    summary(&views);

    // A stream of changes: every fifth order line goes, then every tenth
    // comes back.
    let lines: Vec<&(&str, Vec<String>)> = rows.iter().filter(|(t, _)| *t == "lineitem").collect();
    let start = Instant::now();
    let mut changes = 0;
    for (table, fields) in lines.iter().step_by(5) {
        apply(&mut views, table, fields, false)?;
        changes += 1;
    }
    for (table, fields) in lines.iter().step_by(10) {
        apply(&mut views, table, fields, true)?;
        changes += 1;
    }
    println!(
        "{changes} deletes and inserts in {:.2} s:",
        start.elapsed().as_secs_f64()
    );
    summary(&views);
    Ok(())
}
