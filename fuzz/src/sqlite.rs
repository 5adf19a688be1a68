//! The SQLite oracle of SQL views (the `sqlite` feature): a stream of
//! inserts and deletes over the schema of `sql::TABLES` (the SQL suite's
//! tables), fed to the views through their text interface and to SQLite,
//! with each view's `text_rows()` compared with SQLite's answer to its
//! SELECT and its `text_changes()` followed. `tests/sql.rs` runs it on
//! proptest's streams; the soak runs it on the random views of each batch
//! (`sql::views`), on streams of its own ([`drive`]).

use ivm::sql::{Order, OrderKey, TextRetract};
use rusqlite::Connection;
use rusqlite::types::Value;

use crate::rng::{self, Rng};

mod translate;

pub use translate::sqlite_forms;

/// `ensure!(cond, "...", args)`: an `Err` with the message unless `cond`.
macro_rules! ensure {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err(format!($($message)+));
        }
    };
}

/// SQLite's spelling of the date expressions the random views use: dates
/// as text, `EXTRACT(F FROM x)` with `strftime`, and the one interval
/// the generator writes, folded.
pub fn sqlite_dates(select: &str) -> String {
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

/// A column as the suite declares it: its name, its type, and whether it
/// is nullable (declared `NULL`).
pub type ColumnSpec = (&'static str, Kind, bool);

/// The columns of each table, as the suite declares them.
pub const COLUMNS: [(&str, &[ColumnSpec]); 5] = [
    (
        "r",
        &[
            ("a", Kind::Int, false),
            ("b", Kind::Int, false),
            ("c", Kind::BigInt, false),
        ],
    ),
    (
        "s",
        &[
            ("b", Kind::Int, false),
            ("d", Kind::Decimal, false),
            ("e", Kind::Text, false),
            ("f", Kind::Date, false),
        ],
    ),
    (
        "t",
        &[
            ("a", Kind::Int, false),
            ("g", Kind::Double, false),
            ("h", Kind::Bool, false),
        ],
    ),
    (
        "u",
        &[
            ("k", Kind::Text, false),
            ("w", Kind::SmallInt, false),
            ("x", Kind::Int, false),
            ("y", Kind::BigInt, false),
        ],
    ),
    (
        "n",
        &[
            ("a", Kind::Int, true),
            ("v", Kind::BigInt, true),
            ("e", Kind::Text, true),
            ("m", Kind::Decimal, true),
        ],
    ),
];

/// A column's type, as the generator makes its values.
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs, reason = "the SQL types of the same names")]
pub enum Kind {
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

    /// Two cells of one column under one ORDER BY item. Numbers compare
    /// to six decimals, where SQLite's doubles and this crate's decimals
    /// agree.
    fn order(a: &Cell, b: &Cell, key: &OrderKey) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match (a, b) {
            (Cell::Null, Cell::Null) => Ordering::Equal,
            (Cell::Null, _) => match key.nulls_first {
                true => Ordering::Less,
                false => Ordering::Greater,
            },
            (_, Cell::Null) => match key.nulls_first {
                true => Ordering::Greater,
                false => Ordering::Less,
            },
            (a, b) => {
                let micros = |c: &Cell| match c {
                    Cell::Int(i) => Some(i128::from(*i) * 1_000_000),
                    Cell::Num(x) => Some((x * 1e6).round() as i128),
                    _ => None,
                };
                let o = match (a, b) {
                    (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
                    _ => micros(a).cmp(&micros(b)),
                };
                if key.descending { o.reverse() } else { o }
            }
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

/// The `CREATE TABLE` statements without their key constraints
/// (`, PRIMARY KEY (..)` and `, UNIQUE (..)`), which SQLite would enforce
/// and the random rows break.
fn without_keys(tables: &str) -> String {
    let mut out = tables.to_owned();
    for constraint in [", PRIMARY KEY (", ", UNIQUE ("] {
        while let Some(start) = out.find(constraint) {
            let end = out[start..].find(')').map_or(out.len(), |e| start + e + 1);
            out.replace_range(start..end, "");
        }
    }
    out
}

fn sorted(mut rows: Vec<Vec<Cell>>) -> Vec<Vec<Cell>> {
    rows.sort_by_key(|r| r.iter().map(Cell::sort_key).collect::<Vec<_>>());
    rows
}

/// One step of a stream: which table, what to do, and the numbers a row
/// is made from.
#[derive(Clone, Debug)]
pub struct Step {
    /// The table, an index into [`COLUMNS`].
    pub table: usize,
    /// 0 to 5 insert, 6 to 8 delete a live row, 9 delete a row that may be absent.
    pub action: u8,
    /// The numbers the row's fields are made from.
    pub values: [u16; 4],
}

fn row_of(table: usize, values: [u16; 4]) -> (Vec<String>, Vec<Value>) {
    COLUMNS[table]
        .1
        .iter()
        .zip(values)
        .map(
            |(&(_, kind, nullable), n)| match nullable && (n >> 9) % 4 == 0 {
                // A quarter of a nullable column's fields are NULL.
                true => ("NULL".to_owned(), Value::Null),
                false => field(kind, n),
            },
        )
        .unzip()
}

/// Runs one stream through every view of `views` and SQLite, whose
/// answers are `selects` (one per view) over the tables of `tables` (the
/// `CREATE TABLE` statements), comparing after every `check_every` steps
/// and at the end: each view's `text_rows()` against SQLite's rows, and
/// its `text_changes()` against its rows.
///
/// # Errors
///
/// What disagrees, in words.
pub fn run(
    tables: &str,
    views: &mut [Box<dyn TextRetract>],
    selects: &[String],
    steps: &[Step],
    check_every: usize,
) -> Result<(), String> {
    let db = Connection::open_in_memory().map_err(|e| e.to_string())?;
    // LIKE is case-sensitive in the SQL standard and PostgreSQL, and here;
    // SQLite folds ASCII case unless told otherwise.
    db.execute_batch("PRAGMA case_sensitive_like = ON")
        .map_err(|e| e.to_string())?;
    // SQLite stores a whole DECIMAL as an integer, which then divides as
    // one; a REAL column keeps decimals as numbers with a fraction, as
    // PostgreSQL and this crate do.
    db.execute_batch(&without_keys(tables).replace("DECIMAL(8, 2)", "REAL"))
        .map_err(|e| e.to_string())?;
    // Each view's rows as its `changes()` report them, call after call.
    let mut seen: Vec<Vec<Vec<String>>> = vec![Vec::new(); views.len()];
    let mut live: Vec<Vec<(Vec<String>, Vec<Value>)>> = vec![Vec::new(); COLUMNS.len()];
    for (i, step) in steps.iter().enumerate() {
        let (name, kinds) = COLUMNS[step.table];
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
                // Compared by value: two texts of a DECIMAL (`1.245` and
                // `1.25`) are one value once the column rounds them.
                let (text, values) = row_of(step.table, step.values);
                let fields: Vec<&str> = text.iter().map(String::as_str).collect();
                let absent = !rows.iter().any(|(_, v)| *v == values);
                for view in views.iter_mut() {
                    // A view with trusted deletes is never asked to
                    // delete what is not there.
                    let trusted = view.sql().contains("deletes = 'trusted'");
                    if view.tables().contains(&name) && !(absent && trusted) {
                        let result = view.delete_text(name, &fields);
                        if absent {
                            ensure!(
                                matches!(result, Err(ivm::Error::AbsentTuple { .. })),
                                "{}: deleting an absent row gave {result:?}",
                                view.name()
                            );
                        } else {
                            // Put the copy back on both sides' behalf.
                            ensure!(result.is_ok(), "{}: {result:?}", view.name());
                            view.insert_text(name, &fields)
                                .map_err(|e| format!("{}: {e}", view.name()))?;
                        }
                    }
                }
                continue;
            }
        };
        let fields: Vec<&str> = text.iter().map(String::as_str).collect();
        for view in views.iter_mut() {
            if view.tables().contains(&name) {
                let result = if insert {
                    view.insert_text(name, &fields)
                } else {
                    view.delete_text(name, &fields)
                };
                ensure!(result.is_ok(), "{}: {result:?}", view.name());
            }
        }
        let names: Vec<&str> = kinds.iter().map(|(column, ..)| *column).collect();
        if insert {
            let holes = vec!["?"; values.len()].join(", ");
            db.execute(
                &format!("INSERT INTO {name} VALUES ({holes})"),
                rusqlite::params_from_iter(values.iter()),
            )
            .map_err(|e| e.to_string())?;
            rows.push((text, values));
        } else {
            let condition = names
                .iter()
                // `IS`: NULL is NULL there, as a deleted row's field.
                .map(|c| format!("{c} IS ?"))
                .collect::<Vec<_>>()
                .join(" AND ");
            let deleted = db
                .execute(
                    &format!(
                        "DELETE FROM {name} WHERE rowid = (SELECT rowid FROM {name} WHERE {condition} LIMIT 1)"
                    ),
                    rusqlite::params_from_iter(values.iter()),
                )
                .map_err(|e| e.to_string())?;
            ensure!(deleted == 1, "SQLite deleted {deleted} rows of a live one");
        }
        if (i + 1) % check_every == 0 || i + 1 == steps.len() {
            for ((view, select), seen) in views.iter_mut().zip(selects).zip(&mut seen) {
                compare(&db, &**view, select)?;
                follow_changes(&mut **view, seen)?;
            }
        }
    }
    Ok(())
}

/// Applies the view's `text_changes()` to `seen`, its rows at the previous
/// call, and checks that they give its rows now.
fn follow_changes(view: &mut dyn TextRetract, seen: &mut Vec<Vec<String>>) -> Result<(), String> {
    let (gone, came) = view.text_changes();
    for row in gone {
        let at = seen.iter().position(|r| *r == row);
        ensure!(
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
    ensure!(
        *seen == now,
        "view `{}`: the rows after its changes are {seen:?}, but it has {now:?}",
        view.name()
    );
    Ok(())
}

/// Compares the view's rows with SQLite's answer to `select`: as sets of
/// rows, or, for a view with ORDER BY, LIMIT or OFFSET, in order (SQLite's
/// rows sorted by the view's order and cut to its window here, so that
/// ties and decimals that SQLite keeps as doubles order alike).
fn compare(db: &Connection, view: &dyn TextRetract, select: &str) -> Result<(), String> {
    let order = view.order();
    let ours: Vec<Vec<Cell>> = view
        .text_rows()
        .iter()
        .map(|r| r.iter().map(|c| Cell::ours(c)).collect())
        .collect();
    let (ours, select) = match &order {
        Some(order) => (ours, unordered(select, order)),
        None => (sorted(ours), select),
    };
    let mut statement = db
        .prepare(select)
        .map_err(|e| format!("SQLite cannot run `{select}`: {e}"))?;
    let width = statement.column_count();
    let theirs: Vec<Vec<Cell>> = statement
        .query_map([], |row| {
            (0..width)
                .map(|i| row.get::<_, Value>(i).map(Cell::sqlite))
                .collect()
        })
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let theirs = match &order {
        Some(order) => window(theirs.into_iter().map(|r| (r, ())).collect(), order)
            .into_iter()
            .map(|(r, ())| r)
            .collect(),
        None => sorted(theirs),
    };
    let agree = ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(y)));
    ensure!(
        agree,
        "view `{}` disagrees with SQLite\n  ours:   {ours:?}\n  SQLite: {theirs:?}\n  SELECT: {select}",
        view.name()
    );
    Ok(())
}

/// `select` without its ORDER BY, LIMIT, OFFSET and FETCH, which only a
/// view's top-level SELECT has.
fn unordered<'a>(select: &'a str, order: &Order) -> &'a str {
    let clauses: &[&str] = if order.keys.is_empty() {
        &[" LIMIT ", " OFFSET ", " FETCH "]
    } else {
        &[" ORDER BY "]
    };
    let cut = clauses.iter().filter_map(|c| select.rfind(c)).min();
    cut.map_or(select, |at| &select[..at])
}

/// SQLite's rows of a view with ORDER BY, LIMIT or OFFSET (queried
/// without them) as the view lists them: sorted by `order` and cut to its
/// window, as [`compare`] takes them. Numbers order to six decimals, where
/// SQLite's doubles and exact decimals agree.
pub fn in_order(rows: Vec<Vec<Value>>, order: &Order) -> Vec<Vec<Value>> {
    let cells = rows
        .into_iter()
        .map(|r| (r.iter().cloned().map(Cell::sqlite).collect(), r));
    window(cells.collect(), order)
        .into_iter()
        .map(|(_, values)| values)
        .collect()
}

/// Rows sorted by `order` (its keys, then every column ascending), NULL
/// the smallest value unless a key moves it, and cut to its window; each
/// row's cells beside whatever `T` goes with them.
fn window<T>(mut rows: Vec<(Vec<Cell>, T)>, order: &Order) -> Vec<(Vec<Cell>, T)> {
    let width = rows.first().map_or(0, |r| r.0.len());
    let ties = (0..width).map(|column| OrderKey {
        column,
        descending: false,
        nulls_first: true,
    });
    let keys: Vec<OrderKey> = order.keys.iter().copied().chain(ties).collect();
    rows.sort_by(|(a, _), (b, _)| {
        keys.iter()
            .map(|k| Cell::order(&a[k.column], &b[k.column], k))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let offset = usize::try_from(order.offset).unwrap_or(usize::MAX);
    let limit = order
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    rows.into_iter().skip(offset).take(limit).collect()
}

/// SQLite's SELECT for a view: the one its struct reports it was compiled
/// from, with the forms SQLite lacks spelled in its SQL ([`sqlite_forms`])
/// and dates as text ([`sqlite_dates`]). The views it reads come
/// before it in its SQL (`CREATE VIEW v AS ..;\n`), and are a `WITH`
/// clause here.
pub fn select_of(view: &dyn TextRetract) -> String {
    let mut statements: Vec<&str> = view.sql().split(";\n").collect();
    let last = statements.pop().expect("a statement");
    let select = |statement: &str| {
        statement
            .split_once(" AS SELECT ")
            .map(|(head, select)| {
                // The name and any column list, without `WITH (..)` options.
                let head = head.trim_start_matches("CREATE VIEW ");
                let name = head.split_once(" WITH (").map_or(head, |(name, _)| name);
                (name.to_owned(), format!("SELECT {select}"))
            })
            .expect("CREATE VIEW .. AS SELECT")
    };
    let (_, body) = select(last);
    let with: Vec<String> = statements
        .into_iter()
        .map(|s| {
            let (name, select) = select(s);
            format!("{name} AS ({select})")
        })
        .collect();
    let text = if with.is_empty() {
        body
    } else {
        format!("WITH {} {body}", with.join(", "))
    };
    sqlite_dates(&sqlite_forms(&text))
}

/// The most live rows a soak stream keeps per table: past it, it deletes,
/// so that SQLite's answers stay cheap and groups keep turning over.
const LIVE_ROWS: usize = 40;

/// A soak stream of `n` steps over the tables of [`COLUMNS`].
pub fn stream(rng: &mut Rng, n: u64) -> Vec<Step> {
    let mut live = [0usize; COLUMNS.len()];
    (0..n)
        .map(|_| {
            let table = rng.index(COLUMNS.len());
            let mut action = rng.below(10) as u8;
            if live[table] >= LIVE_ROWS && action <= 5 {
                action = 6;
            }
            match action {
                0..=5 => live[table] += 1,
                6..=8 => live[table] = live[table].saturating_sub(1),
                _ => {}
            }
            let values = [0; 4].map(|_: u16| rng.below(u64::from(u16::MAX)) as u16);
            Step {
                table,
                action,
                values,
            }
        })
        .collect()
}

/// The SQL half of a soak batch: each view of `views()` driven alone
/// against SQLite over the tables `tables`, on a stream of `--steps`
/// steps of its own (from `--seed` and its index), checked every few
/// steps, on `--threads` threads. Prints a `case` line per view, with a
/// report after a mismatch, as `harness::main` does; returns whether any
/// view failed.
pub fn drive(tables: &str, views: fn() -> Vec<Box<dyn TextRetract>>) -> bool {
    let args = crate::harness::Args::parse();
    crate::harness::quiet_panics();
    let count = views().len();
    let failed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for t in 0..args.threads.max(1) {
            let failed = &failed;
            scope.spawn(move || {
                let mut all = views();
                for i in (t..count).step_by(args.threads.max(1)) {
                    let mut rng = Rng::new(rng::derive(args.seed, i as u64));
                    let steps = stream(&mut rng, args.steps);
                    let view = &mut all[i..=i];
                    let select = [select_of(&*view[0])];
                    let outcome = crate::harness::catch(std::panic::AssertUnwindSafe(|| {
                        run(tables, view, &select, &steps, 5)
                    }))
                    .and_then(|r| r);
                    let mut text = format!(
                        "case {} strategy=sql intractable=false semiring=sql updates={} episodes=1 cut_short=0 result={}\n",
                        view[0].name(),
                        args.steps,
                        if outcome.is_ok() { "ok" } else { "mismatch" }
                    );
                    if let Err(e) = outcome {
                        failed.store(true, std::sync::atomic::Ordering::Relaxed);
                        text.push_str(&format!(
                            "--- report\nSQL view `{}` (stream seed {}, view {i}, {} steps) disagrees with SQLite:\n\n{};\n\n{e}\n--- end\n",
                            view[0].name(),
                            args.seed,
                            args.steps,
                            view[0].sql()
                        ));
                    }
                    print!("{text}");
                }
            });
        }
    });
    failed.into_inner()
}
