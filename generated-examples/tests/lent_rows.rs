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
//! Q12 and Q3 keep whole orders beside fingerprinted lines.

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
