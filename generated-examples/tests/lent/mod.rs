//! A row given lent (`&str` for its text columns, which take
//! `impl ivm::Text`) and the same row given owned (`String`s) are one row:
//! a line inserted one way is deleted the other, and the views end as
//! views fed every row as text (`insert_text`/`delete_text`, which lend
//! their fields). A delete of a line never inserted, lent, is refused and
//! changes nothing.
//!
//! The views cover each way a relation is kept: Q1, Q6 and Q14 keep
//! `LINEITEM` as fingerprints and give their views only the columns they
//! read; Q4's semijoin keeps the lines' fingerprints with their payloads;
//! Q12 and Q3 keep whole orders beside fingerprinted lines. The rule
//! query `OrderPriority` (Q4 in `queries/tpch.ivm`) gives its lines, text
//! lent, to its `exists` body.
//!
//! A module of the `tpch_sql` test, which builds the same views: one test
//! binary fewer to build and link in the README's test command.

use ivm::sql::{Date, Decimal, TextRetract};
use ivm_generated_examples::tpch::data::{Database, text};
use ivm_generated_examples::tpch_sql::{TpchQ1, TpchQ3, TpchQ4, TpchQ6, TpchQ12, TpchQ14};

/// A text column of a line, lent.
macro_rules! lent {
    ($field:expr) => {
        $field.as_str()
    };
}

/// A text column of a line, owned.
macro_rules! owned {
    ($field:expr) => {
        $field.clone()
    };
}

/// `$view.$method(..)` with the columns of the line `$f` (its text
/// fields, as `text::lineitem` writes them), the text ones through
/// `$text!`.
macro_rules! line {
    ($view:expr, $method:ident, $f:expr, $text:ident) => {{
        let f: &[String] = $f;
        let decimal = |i: usize| f[i].parse::<Decimal>().unwrap();
        let date = |i: usize| f[i].parse::<Date>().unwrap();
        $view.$method(
            f[0].parse().unwrap(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
            decimal(4),
            decimal(5),
            decimal(6),
            decimal(7),
            $text!(f[8]),
            $text!(f[9]),
            date(10),
            date(11),
            date(12),
            $text!(f[13]),
            $text!(f[14]),
            $text!(f[15]),
        )
    }};
}

/// Inserts the other tables' rows as text into both views.
fn dimensions<V: TextRetract>(db: &Database, views: [&mut V; 2]) {
    let tables: [(&str, Vec<Vec<String>>); 3] = [
        (
            "customer",
            db.customers.iter().map(text::customer).collect(),
        ),
        ("orders", db.orders.iter().map(text::order).collect()),
        ("part", db.parts.iter().map(text::part).collect()),
    ];
    for view in views {
        for (table, rows) in &tables {
            if !view.tables().contains(table) {
                continue;
            }
            for row in rows {
                let fields: Vec<&str> = row.iter().map(String::as_str).collect();
                view.insert_text(table, &fields).unwrap();
            }
        }
    }
}

/// Feeds `typed` the lines typed, alternately lent and owned, and deletes
/// every third the other way; `as_text` the same as text. Then checks that
/// they agree, and that a delete of a line never inserted is refused.
macro_rules! mixed {
    ($test:ident, $view:ty) => {
        #[test]
        fn $test() {
            let db = Database::generate(0.002, 7);
            let (mut typed, mut as_text) = (<$view>::new(), <$view>::new());
            dimensions(&db, [&mut typed, &mut as_text]);
            let lines: Vec<Vec<String>> = db.lineitems.iter().map(text::lineitem).collect();
            for (i, f) in lines.iter().enumerate() {
                if i % 2 == 0 {
                    line!(typed, insert_lineitem, f, lent);
                } else {
                    line!(typed, insert_lineitem, f, owned);
                }
                let fields: Vec<&str> = f.iter().map(String::as_str).collect();
                as_text.insert_text("lineitem", &fields).unwrap();
            }
            for (i, f) in lines.iter().enumerate().step_by(3) {
                let deleted = if i % 2 == 0 {
                    line!(typed, delete_lineitem, f, owned)
                } else {
                    line!(typed, delete_lineitem, f, lent)
                };
                deleted.unwrap();
                let fields: Vec<&str> = f.iter().map(String::as_str).collect();
                as_text.delete_text("lineitem", &fields).unwrap();
            }
            let rows = as_text.text_rows();
            assert!(!rows.is_empty());
            assert_eq!(typed.text_rows(), rows);
            // A line inserted, but with another comment: never inserted.
            let mut other = lines[1].clone();
            other[15].push_str(" (not this one)");
            assert!(line!(typed, delete_lineitem, &other, lent).is_err());
            assert_eq!(typed.text_rows(), rows);
        }
    };
}

mixed!(q1_lent_and_owned_lines_are_one_row, TpchQ1);
mixed!(q3_lent_and_owned_lines_are_one_row, TpchQ3);
mixed!(q4_lent_and_owned_lines_are_one_row, TpchQ4);
mixed!(q6_lent_and_owned_lines_are_one_row, TpchQ6);
mixed!(q12_lent_and_owned_lines_are_one_row, TpchQ12);
mixed!(q14_lent_and_owned_lines_are_one_row, TpchQ14);

/// A line of the rule query `OrderPriority` (`queries/tpch.ivm`), its text
/// columns through `$text!`.
macro_rules! rule_line {
    ($view:expr, $method:ident, $l:expr, $text:ident) => {{
        let l: &ivm_generated_examples::tpch::data::Lineitem = $l;
        $view.$method(
            l.orderkey,
            l.partkey,
            l.suppkey,
            l.linenumber,
            l.quantity,
            l.extendedprice,
            l.discount,
            l.tax,
            l.returnflag,
            l.linestatus,
            l.shipdate,
            l.commitdate,
            l.receiptdate,
            $text!(l.shipinstruct),
            $text!(l.shipmode),
            $text!(l.comment),
        )
    }};
}

/// Inserts the order `$o` into the rule query `$view`, its text columns
/// through `$text!`.
macro_rules! rule_order {
    ($view:expr, $o:expr, $text:ident) => {{
        let o: &ivm_generated_examples::tpch::data::Order = $o;
        $view.insert_orders(
            o.orderkey,
            o.custkey,
            o.orderstatus,
            o.totalprice,
            o.orderdate,
            $text!(o.orderpriority),
            $text!(o.clerk),
            o.shippriority,
            $text!(o.comment),
        )
    }};
}

/// TPC-H Q4 as a rule (`OrderPriority`), whose lines only an `exists`
/// reads: fed lines lent and owned, every third deleted the other way,
/// it counts per priority the orders of the quarter with a late line
/// among those left, as a direct count over the rows says.
#[test]
fn a_rule_whose_semijoin_is_lent_its_lines_counts_as_the_rows_say() {
    use ivm_generated_examples::tpch::OrderPriority;
    use std::collections::{BTreeMap, BTreeSet};

    let db = Database::generate(0.002, 9);
    let mut q = OrderPriority::new();
    for (i, o) in db.orders.iter().enumerate() {
        if i % 2 == 0 {
            rule_order!(q, o, lent);
        } else {
            rule_order!(q, o, owned);
        }
    }
    for (i, l) in db.lineitems.iter().enumerate() {
        if i % 2 == 0 {
            rule_line!(q, insert_lineitem, l, lent);
        } else {
            rule_line!(q, insert_lineitem, l, owned);
        }
    }
    let mut live = vec![true; db.lineitems.len()];
    for (i, l) in db.lineitems.iter().enumerate().step_by(3) {
        let deleted = if i % 2 == 0 {
            rule_line!(q, delete_lineitem, l, owned)
        } else {
            rule_line!(q, delete_lineitem, l, lent)
        };
        deleted.unwrap();
        live[i] = false;
    }
    let mut other = db.lineitems[1].clone();
    other.comment.push_str(" (not this one)");
    assert!(rule_line!(q, delete_lineitem, &other, lent).is_err());

    let late: BTreeSet<i64> = db
        .lineitems
        .iter()
        .zip(&live)
        .filter(|(l, live)| **live && l.commitdate < l.receiptdate)
        .map(|(l, _)| l.orderkey)
        .collect();
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for o in &db.orders {
        if (19930701..19931001).contains(&o.orderdate) && late.contains(&o.orderkey) {
            *expected.entry(o.orderpriority.clone()).or_default() += 1;
        }
    }
    let counted: BTreeMap<String, i64> = q.iter().map(|((p,), n)| (p, n.0)).collect();
    assert!(!expected.is_empty());
    assert_eq!(counted, expected);
}
