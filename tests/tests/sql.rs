//! Views written in SQL against SQLite: every view of `queries/sql.sql` is
//! fed random inserts and deletes (of rows inserted before, of rows never
//! inserted, of rows the view's conditions drop) through its text
//! interface, and after every batch its `text_rows()` must be SQLite's
//! answer to the same SELECT over the same rows: exactly for integers,
//! strings and dates, within a relative 1e-8 for the numbers SQLite keeps
//! as doubles (`DECIMAL` columns have no exact type there, and `AVG` is a
//! double in SQLite and a decimal of 8 fractional digits here).

#![allow(deprecated, reason = "views opted in to intractable strategies warn")]

use ivm::sql::TextRetract;
use proptest::prelude::*;
use rusqlite::Connection;
use rusqlite::types::Value;

mod suite {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql.rs"));
}

/// Random views of `ivm_fuzz::sql` (a new draw with `IVM_SQL_SEED`).
mod random {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql_random.rs"));
}

const SUITE: &str = include_str!("../queries/sql.sql");

/// Every view of the suite, fresh.
fn views() -> Vec<Box<dyn TextRetract>> {
    use suite::*;
    vec![
        Box::new(CountByA::new()),
        Box::new(SumsByA::new()),
        Box::new(WholeR::new()),
        Box::new(TwoKeys::new()),
        Box::new(Arithmetic::new()),
        Box::new(Bag::new()),
        Box::new(Constants::new()),
        Box::new(Revenue::new()),
        Box::new(Dates::new()),
        Box::new(Months::new()),
        Box::new(Doubles::new()),
        Box::new(PerA::new()),
        Box::new(ByAOfS::new()),
        Box::new(SelfJoin::new()),
        Box::new(Theta::new()),
        Box::new(Path::new()),
        Box::new(TextConstant::new()),
        Box::new(Cases::new()),
        Box::new(CaseJoin::new()),
        Box::new(Ratios::new()),
        Box::new(WholeRatio::new()),
        Box::new(ByMonth::new()),
        Box::new(Buckets::new()),
        Box::new(UnselectedKey::new()),
        Box::new(Labels::new()),
        Box::new(BagOfExpressions::new()),
        Box::new(DoubleExtremes::new()),
        Box::new(DecimalExtremes::new()),
        Box::new(Inequality::new()),
        Box::new(InequalitySelf::new()),
        Box::new(SemijoinExists::new()),
        Box::new(SemijoinNotExists::new()),
        Box::new(SemijoinIn::new()),
        Box::new(SemijoinNotIn::new()),
        Box::new(SemijoinBag::new()),
        Box::new(SemijoinReaching::new()),
        Box::new(SemijoinNotReaching::new()),
        Box::new(SemijoinTwo::new()),
        Box::new(KeyTimesSum::new()),
        Box::new(Widths::new()),
        Box::new(TextInBag::new()),
        Box::new(TextByGroup::new()),
        Box::new(ConstantBag::new()),
        Box::new(TextKeyless::new()),
        Box::new(TextCases::new()),
        Box::new(TextKeySubquery::new()),
        Box::new(ConstantSums::new()),
        Box::new(ConstantSumByA::new()),
        Box::new(ConstantRatio::new()),
        Box::new(ConstantTermJoin::new()),
    ]
}

/// The suite's statements, split at `;`, with the `-- sqlite:` spelling of
/// the view that follows, if any.
fn statements() -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut sqlite = None;
    let mut current = String::new();
    for line in SUITE.lines() {
        if let Some(s) = line.trim().strip_prefix("-- sqlite:") {
            sqlite = Some(s.trim().to_owned());
            continue;
        }
        if line.trim_start().starts_with("--") {
            continue;
        }
        current.push_str(line);
        current.push('\n');
        if line.trim_end().ends_with(';') {
            out.push((
                current.trim().trim_end_matches(';').to_owned(),
                sqlite.take(),
            ));
            current.clear();
        }
    }
    out
}

/// SQLite's SELECT for a view: the `-- sqlite:` line before it in the
/// suite, or the SELECT its struct reports it was compiled from, with its
/// dates as text (SQLite has no DATE literals).
fn sqlite_select(view: &dyn TextRetract) -> String {
    for (statement, sqlite) in statements() {
        let words: Vec<&str> = statement.split_whitespace().take(3).collect();
        if words.len() == 3
            && words[..2] == ["CREATE", "VIEW"]
            && words[2] == view.name()
            && let Some(s) = sqlite
        {
            return s;
        }
    }
    let (_, select) = view
        .sql()
        .split_once(" AS SELECT ")
        .expect("CREATE VIEW .. AS SELECT");
    let select = sqlite_dates(&format!("SELECT {select}"));
    assert!(
        !select.contains("INTERVAL") && !select.contains("EXTRACT"),
        "view `{}` needs a `-- sqlite:` spelling: {select}",
        view.name()
    );
    select
}

/// SQLite's spelling of the date expressions the random views use: dates
/// as text, `EXTRACT(F FROM x)` with `strftime`, and the one interval
/// the generator writes, folded.
fn sqlite_dates(select: &str) -> String {
    let mut out = select
        .replace("DATE '2020-01-01' + INTERVAL '1' MONTH", "'2020-02-01'")
        .replace("DATE '", "'");
    while let Some(start) = out.find("EXTRACT(") {
        let end = start + out[start..].find(')').expect("EXTRACT(..)");
        let inner = &out[start + "EXTRACT(".len()..end];
        let (field, column) = inner.split_once(" FROM ").expect("EXTRACT(F FROM x)");
        let format = match field {
            "YEAR" => "%Y",
            "MONTH" => "%m",
            _ => "%d",
        };
        let spelled = format!("CAST(strftime('{format}', {column}) AS INTEGER)");
        out.replace_range(start..=end, &spelled);
    }
    out
}

/// The columns of each table, as the suite declares them.
const TABLES: [(&str, &[(&str, Kind)]); 4] = [
    (
        "r",
        &[("a", Kind::Int), ("b", Kind::Int), ("c", Kind::BigInt)],
    ),
    (
        "s",
        &[
            ("b", Kind::Int),
            ("d", Kind::Decimal),
            ("e", Kind::Text),
            ("f", Kind::Date),
        ],
    ),
    (
        "t",
        &[("a", Kind::Int), ("g", Kind::Double), ("h", Kind::Bool)],
    ),
    (
        "u",
        &[
            ("k", Kind::Text),
            ("w", Kind::SmallInt),
            ("x", Kind::Int),
            ("y", Kind::BigInt),
        ],
    ),
];

#[derive(Clone, Copy, Debug)]
enum Kind {
    SmallInt,
    Int,
    BigInt,
    Decimal,
    Text,
    Date,
    Double,
    Bool,
}

/// A field's text and SQLite value for a small random number: few
/// distinct values, so groups and joins collide.
fn field(kind: Kind, n: u16) -> (String, Value) {
    let n = i64::from(n);
    match kind {
        Kind::SmallInt => {
            let v = n % 5 - 2;
            (v.to_string(), Value::Integer(v))
        }
        Kind::Int => ((n % 4).to_string(), Value::Integer(n % 4)),
        Kind::BigInt => {
            let v = n % 9 - 3;
            (v.to_string(), Value::Integer(v))
        }
        // Now and then a third digit: the column rounds it (a half away
        // from zero) to its declared two, as PostgreSQL does, and SQLite is
        // given the rounded value, a multiple of 0.25 as the others are so
        // that its float sums stay exact.
        Kind::Decimal if n % 5 == 0 => {
            let cents = (n % 11) * 25 - 100;
            let sign = if cents < 0 { "-" } else { "" };
            let mills = (cents.abs() * 10 - 5).max(4);
            let text = format!("{sign}{}.{:03}", mills / 1000, mills % 1000);
            (text, Value::Real(cents as f64 / 100.0))
        }
        Kind::Decimal => {
            let cents = (n % 11) * 25 - 100;
            let text = format!(
                "{}{}.{:02}",
                if cents < 0 { "-" } else { "" },
                cents.abs() / 100,
                cents.abs() % 100
            );
            (text, Value::Real(cents as f64 / 100.0))
        }
        Kind::Text => {
            let v = ["x", "xy", "y", "ax", "X"][(n % 5) as usize];
            (v.to_owned(), Value::Text(v.to_owned()))
        }
        Kind::Date => {
            let day = (n * 7) % 100;
            let date = ivm::sql::Date::from_ymd(2020, 1, 1)
                .unwrap()
                .add_days(day)
                .unwrap()
                .to_string();
            (date.clone(), Value::Text(date))
        }
        Kind::Double => {
            let v = (n % 7) as f64 * 0.375 - 0.5;
            (v.to_string(), Value::Real(v))
        }
        Kind::Bool => {
            let v = n % 2 == 0;
            (v.to_string(), Value::Integer(i64::from(v)))
        }
    }
}

/// One cell, as both sides are compared.
#[derive(Clone, Debug, PartialEq)]
enum Cell {
    Null,
    Int(i64),
    Num(f64),
    Text(String),
}

impl Cell {
    fn ours(text: &str) -> Cell {
        match text {
            "NULL" => Cell::Null,
            "true" => Cell::Int(1),
            "false" => Cell::Int(0),
            _ => text
                .parse()
                .map(Cell::Int)
                .or_else(|_| text.parse().map(Cell::Num))
                .unwrap_or_else(|_| Cell::Text(text.to_owned())),
        }
    }

    fn sqlite(v: Value) -> Cell {
        match v {
            Value::Null => Cell::Null,
            Value::Integer(i) => Cell::Int(i),
            Value::Real(r) => Cell::Num(r),
            Value::Text(t) => Cell::Text(t),
            Value::Blob(_) => panic!("no blobs in the suite"),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// A key to sort rows by that agrees across the two sides.
    fn sort_key(&self) -> String {
        match self {
            Cell::Null => "null".to_owned(),
            Cell::Text(t) => format!("t{t}"),
            n => format!("n{:.6}", n.number().unwrap() + 0.0),
        }
    }

    fn agrees(&self, other: &Cell) -> bool {
        match (self, other) {
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (a, b) => match (a.number(), b.number()) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-8 * x.abs().max(y.abs()).max(1.0),
                _ => a == b,
            },
        }
    }
}

fn sorted(mut rows: Vec<Vec<Cell>>) -> Vec<Vec<Cell>> {
    rows.sort_by_key(|r| r.iter().map(Cell::sort_key).collect::<Vec<_>>());
    rows
}

/// One step of a stream: which table, what to do, and the numbers a row
/// is made from.
#[derive(Clone, Debug)]
struct Step {
    table: usize,
    action: u8,
    values: [u16; 4],
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (0..TABLES.len(), 0..10u8, any::<[u16; 4]>()).prop_map(|(table, action, values)| Step {
            table,
            action,
            values,
        }),
        1..120,
    )
}

fn row_of(table: usize, values: [u16; 4]) -> (Vec<String>, Vec<Value>) {
    TABLES[table]
        .1
        .iter()
        .zip(values)
        .map(|((_, kind), n)| field(*kind, n))
        .unzip()
}

/// Runs one stream through every view of `views` and SQLite, comparing
/// after every `check_every` steps and at the end.
fn run(
    views: fn() -> Vec<Box<dyn TextRetract>>,
    steps: &[Step],
    check_every: usize,
) -> Result<(), TestCaseError> {
    let db = Connection::open_in_memory().unwrap();
    // LIKE is case-sensitive in the SQL standard and PostgreSQL, and here;
    // SQLite folds ASCII case unless told otherwise.
    db.execute_batch("PRAGMA case_sensitive_like = ON").unwrap();
    for (statement, _) in statements() {
        if statement.starts_with("CREATE TABLE") {
            // SQLite stores a whole DECIMAL as an integer, which then
            // divides as one; a REAL column keeps decimals as numbers with
            // a fraction, as PostgreSQL and this crate do.
            db.execute(&statement.replace("DECIMAL(8, 2)", "REAL"), [])
                .unwrap();
        }
    }
    let mut views = views();
    let selects: Vec<String> = views.iter().map(|v| sqlite_select(&**v)).collect();
    // Each view's rows as its `changes()` report them, call after call.
    let mut seen: Vec<Vec<Vec<String>>> = vec![Vec::new(); views.len()];
    let mut live: Vec<Vec<(Vec<String>, Vec<Value>)>> = vec![Vec::new(); TABLES.len()];
    for (i, step) in steps.iter().enumerate() {
        let (name, kinds) = TABLES[step.table];
        let rows = &mut live[step.table];
        let (text, values, insert) = match step.action {
            0..=5 => {
                let (text, values) = row_of(step.table, step.values);
                (text, values, true)
            }
            6..=8 if !rows.is_empty() => {
                let (text, values) = rows.swap_remove(usize::from(step.values[0]) % rows.len());
                (text, values, false)
            }
            _ => {
                // A row that may never have been inserted: deleting it must
                // fail exactly when no copy is live, and change nothing.
                let (text, _) = row_of(step.table, step.values);
                let fields: Vec<&str> = text.iter().map(String::as_str).collect();
                let absent = !rows.iter().any(|(t, _)| *t == text);
                for view in &mut views {
                    if view.tables().contains(&name) {
                        let result = view.delete_text(name, &fields);
                        if absent {
                            prop_assert!(
                                matches!(result, Err(ivm::Error::AbsentTuple { .. })),
                                "{}: deleting an absent row gave {result:?}",
                                view.name()
                            );
                        } else {
                            // Put the copy back on both sides' behalf.
                            prop_assert!(result.is_ok(), "{}: {result:?}", view.name());
                            view.insert_text(name, &fields).unwrap();
                        }
                    }
                }
                continue;
            }
        };
        let fields: Vec<&str> = text.iter().map(String::as_str).collect();
        for view in &mut views {
            if view.tables().contains(&name) {
                let result = if insert {
                    view.insert_text(name, &fields)
                } else {
                    view.delete_text(name, &fields)
                };
                prop_assert!(result.is_ok(), "{}: {result:?}", view.name());
            }
        }
        let names: Vec<&str> = kinds.iter().map(|(column, _)| *column).collect();
        if insert {
            let holes = vec!["?"; values.len()].join(", ");
            db.execute(
                &format!("INSERT INTO {name} VALUES ({holes})"),
                rusqlite::params_from_iter(values.iter()),
            )
            .unwrap();
            rows.push((text, values));
        } else {
            let condition = names
                .iter()
                .map(|c| format!("{c} = ?"))
                .collect::<Vec<_>>()
                .join(" AND ");
            let deleted = db
                .execute(
                    &format!(
                        "DELETE FROM {name} WHERE rowid = (SELECT rowid FROM {name} WHERE {condition} LIMIT 1)"
                    ),
                    rusqlite::params_from_iter(values.iter()),
                )
                .unwrap();
            prop_assert_eq!(deleted, 1);
        }
        if (i + 1) % check_every == 0 || i + 1 == steps.len() {
            for ((view, select), seen) in views.iter_mut().zip(&selects).zip(&mut seen) {
                compare(&db, &**view, select)?;
                follow_changes(&mut **view, seen)?;
            }
        }
    }
    Ok(())
}

/// Applies the view's `text_changes()` to `seen`, its rows at the previous
/// call, and checks that they give its rows now.
fn follow_changes(
    view: &mut dyn TextRetract,
    seen: &mut Vec<Vec<String>>,
) -> Result<(), TestCaseError> {
    let (gone, came) = view.text_changes();
    for row in gone {
        let at = seen.iter().position(|r| *r == row);
        prop_assert!(
            at.is_some(),
            "view `{}`: `changes()` takes away {row:?}, which it did not have",
            view.name()
        );
        seen.swap_remove(at.unwrap());
    }
    seen.extend(came);
    let mut now = view.text_rows();
    now.sort();
    seen.sort();
    prop_assert_eq!(
        &*seen,
        &now,
        "view `{}`: the rows after its changes",
        view.name()
    );
    Ok(())
}

fn compare(db: &Connection, view: &dyn TextRetract, select: &str) -> Result<(), TestCaseError> {
    let ours = sorted(
        view.text_rows()
            .iter()
            .map(|r| r.iter().map(|c| Cell::ours(c)).collect())
            .collect(),
    );
    let mut statement = db.prepare(select).unwrap();
    let width = statement.column_count();
    let theirs: Vec<Vec<Cell>> = statement
        .query_map([], |row| {
            (0..width)
                .map(|i| row.get::<_, Value>(i).map(Cell::sqlite))
                .collect()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let theirs = sorted(theirs);
    let agree = ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(y)));
    prop_assert!(
        agree,
        "view `{}` disagrees with SQLite\n  ours:   {ours:?}\n  SQLite: {theirs:?}\n  SELECT: {select}",
        view.name()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_view_agrees_with_sqlite(steps in steps()) {
        run(views, &steps, 7)?;
    }

    #[test]
    fn every_random_view_agrees_with_sqlite(steps in steps()) {
        run(random::all, &steps, 7)?;
    }
}

/// Every view of the file is in `views()`: none goes unchecked.
#[test]
fn the_suite_lists_every_view() {
    let declared = statements()
        .iter()
        .filter(|(s, _)| s.starts_with("CREATE VIEW"))
        .count();
    assert_eq!(views().len(), declared);
    for view in views() {
        sqlite_select(&*view);
    }
}

/// A longer stream over skewed data: most rows land in one group.
#[test]
fn a_long_skewed_stream_agrees() {
    let steps: Vec<Step> = (0..3000u32)
        .map(|i| {
            let x = i.wrapping_mul(2_654_435_761);
            let hot = if x % 3 == 0 { 0 } else { (x >> 8) as u16 };
            Step {
                table: (x % TABLES.len() as u32) as usize,
                action: ((x >> 4) % 10) as u8,
                values: [hot, (x >> 12) as u16, (x >> 16) as u16, (x >> 20) as u16],
            }
        })
        .collect();
    run(views, &steps, 100).unwrap();
}
