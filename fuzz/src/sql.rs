//! Random SQL views (`docs/design.md#sql`) over the schema of the SQL suite
//! (`tests/queries/sql.sql`): joins of one to three FROM items (self-joins
//! included), local conditions, GROUP BY columns and expressions (written
//! out, by alias or by position), every aggregate, CASE, a last division,
//! bags (`*` and `x.*` among them), views without GROUP BY, constants of every type in the select
//! list, integer keys of every width in arithmetic with aggregates, text
//! joins and text keys, and subqueries (`[NOT] EXISTS`, `[NOT] IN`)
//! correlated on a join column or on nothing. `tests/build.rs` compiles
//! them and `tests/tests/sql.rs` checks each against SQLite on random
//! streams, so the front end is tested on shapes nobody listed.
//!
//! Every view is in the supported fragment by construction; one that does
//! not compile is a bug of the compiler, and the build says so.

use crate::rng::Rng;

/// The schema the views read: the SQL suite's tables.
pub const TABLES: &str = "CREATE TABLE r (a INT NOT NULL, b INT, c BIGINT);
CREATE TABLE s (b INT, d DECIMAL(8, 2), e VARCHAR(4), f DATE);
CREATE TABLE t (a INT, g DOUBLE, h BOOLEAN);
CREATE TABLE u (k VARCHAR(4), w SMALLINT, x INT, y BIGINT);
CREATE TABLE n (a INT NULL, v BIGINT NULL, e VARCHAR(4) NULL, m DECIMAL(8, 2) NULL);
";

/// What the generator knows of a table: its name, its INT columns and
/// its text columns (to join on), numeric terms, conditions, group-by
/// columns (and which of them are integers, of any width), group-by
/// expressions and columns MIN and MAX take.
struct Table {
    name: &'static str,
    joins: &'static [&'static str],
    texts: &'static [&'static str],
    integers: &'static [&'static str],
    terms: &'static [&'static str],
    conditions: &'static [&'static str],
    keys: &'static [&'static str],
    computed: &'static [&'static str],
    ordered: &'static [&'static str],
}

const SCHEMA: [Table; 4] = [
    Table {
        name: "r",
        joins: &["a", "b"],
        texts: &[],
        integers: &["a", "b", "c"],
        terms: &["a", "b", "c", "(c + 1)", "(2 * b - c)"],
        conditions: &[
            "{}.a < 2",
            "{}.b <> 1",
            "{}.c >= 0",
            "{}.a IN (0, 2)",
            "{}.c BETWEEN -1 AND 3",
            "NOT ({}.a = {}.b)",
            "{}.b = 3",
        ],
        keys: &["a", "b", "c"],
        computed: &[
            "{}.a % 2",
            "{}.c - {}.b",
            "{}.c / 2",
            "CASE WHEN {}.c > 1 THEN 'big' ELSE 'small' END",
        ],
        ordered: &["a", "c"],
    },
    Table {
        name: "s",
        joins: &["b"],
        texts: &["e"],
        integers: &["b"],
        terms: &["d", "(d * 2)", "b", "(d - 1.5)"],
        conditions: &[
            "{}.e LIKE 'x%'",
            "{}.d > 0",
            "{}.f < DATE '2020-02-01'",
            "{}.e = 'xy'",
            "{}.f >= DATE '2020-01-01' + INTERVAL '1' MONTH",
            "EXTRACT(DAY FROM {}.f) > 10",
        ],
        keys: &["b", "e", "f"],
        computed: &[
            "EXTRACT(MONTH FROM {}.f)",
            "{}.d * 2",
            "{}.b * {}.b",
            "CASE WHEN {}.b > 1 THEN {}.f ELSE DATE '2020-01-15' END",
        ],
        ordered: &["d", "f", "b"],
    },
    Table {
        name: "t",
        joins: &["a"],
        texts: &[],
        integers: &["a"],
        terms: &["g", "a", "(g * a)"],
        conditions: &["{}.h", "{}.g > 0.5", "NOT {}.h", "{}.a = 1"],
        keys: &["a", "h"],
        computed: &["NOT {}.h", "{}.a - 1", "CASE WHEN {}.h THEN 1 ELSE 0 END"],
        ordered: &["a", "g"],
    },
    Table {
        name: "u",
        joins: &["x"],
        texts: &["k"],
        integers: &["w", "x"],
        terms: &["x", "y", "w", "(w * x)", "(y - w)"],
        conditions: &[
            "{}.w < 1",
            "{}.k LIKE 'x%'",
            "{}.x <> {}.w",
            "{}.y BETWEEN -2 AND 2",
            "{}.k = 'xy'",
        ],
        keys: &["k", "w", "x"],
        computed: &[
            "{}.w * 2",
            "CASE WHEN {}.x > 1 THEN 'yes' ELSE 'no' END",
            "CASE WHEN {}.w < 0 THEN 1.5 ELSE 2 END",
            "{}.y % 3",
        ],
        ordered: &["w", "y"],
    },
];

/// `n` random views named `random_0`, `random_1`, ..., after the tables.
pub fn views(seed: u64, n: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::from(TABLES);
    for i in 0..n {
        out.push_str(&view(&mut rng, i));
        out.push('\n');
    }
    out
}

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.index(from.len())]
}

fn view(rng: &mut Rng, i: usize) -> String {
    // Now and then a view over an earlier view: a nested view kept once
    // inside it (SQLite reads it through a WITH clause).
    if i > 0 && rng.index(12) == 0 {
        let j = rng.index(i);
        let select = pick(rng, &["COUNT(*) AS n", "COUNT(*) AS n, SUM(1) AS m"]);
        return format!(
            "CREATE VIEW random_{i} WITH (intractable = 'allow') AS SELECT {select} FROM random_{j} v;"
        );
    }
    // Now and then aggregates that read a scalar subquery, in a view
    // without GROUP BY (DBToaster's `SUM(b * (SELECT ..))`).
    if rng.index(14) == 0 {
        return aggregated_scalar(rng, i);
    }
    // FROM: one to three items, each joined to an earlier one.
    let items: Vec<usize> = (0..1 + rng.index(3))
        .map(|_| rng.index(SCHEMA.len()))
        .collect();
    let alias = |k: usize| format!("x{k}");
    // The first item is now and then a derived table of all its table's
    // columns, filtered: a nested view of the same columns.
    let mut from = if rng.index(8) == 0 {
        let filter = if rng.index(2) == 0 {
            let c = pick(rng, SCHEMA[items[0]].conditions).replace("{}", "y");
            format!(" WHERE {c}")
        } else {
            String::new()
        };
        format!(
            "(SELECT * FROM {} y{filter}) {}",
            SCHEMA[items[0]].name,
            alias(0)
        )
    } else {
        format!("{} {}", SCHEMA[items[0]].name, alias(0))
    };
    let mut conditions: Vec<String> = Vec::new();
    for (k, &table) in items.iter().enumerate().skip(1) {
        let other = rng.index(k);
        let (mine, theirs) = join_columns(rng, &SCHEMA[table], &SCHEMA[items[other]]);
        let on = format!("{}.{mine} = {}.{theirs}", alias(k), alias(other));
        if rng.index(2) == 0 {
            from.push_str(&format!(", {} {}", SCHEMA[table].name, alias(k)));
            conditions.push(on);
        } else {
            from.push_str(&format!(
                " JOIN {} {} ON {on}",
                SCHEMA[table].name,
                alias(k)
            ));
        }
    }
    // WHERE: local conditions, and now and then a theta condition (which
    // only the first-order strategy applies).
    for _ in 0..rng.index(3) {
        let k = rng.index(items.len());
        conditions.push(pick(rng, SCHEMA[items[k]].conditions).replace("{}", &alias(k)));
    }
    // Now and then a subquery correlated on a join column of one item:
    // `[NOT] EXISTS (SELECT * FROM .. WHERE y.col = x.col ..)` or `x.col
    // [NOT] IN (SELECT y.col FROM .. ..)`.
    if rng.index(4) == 0 && rng.index(3) == 0 {
        conditions.push(uncorrelated(rng));
    } else if rng.index(4) == 0 {
        let k = rng.index(items.len());
        let inner = &SCHEMA[rng.index(SCHEMA.len())];
        let (theirs, mine) = join_columns(rng, inner, &SCHEMA[items[k]]);
        let outer = format!("{}.{mine}", alias(k));
        let col = format!("y.{theirs}");
        let own = (rng.index(2) == 0).then(|| pick(rng, inner.conditions).replace("{}", "y"));
        let not = if rng.index(3) == 0 { "NOT " } else { "" };
        conditions.push(if rng.index(2) == 0 {
            let and = own.map(|c| format!(" AND {c}")).unwrap_or_default();
            format!(
                "{not}EXISTS (SELECT * FROM {} y WHERE {col} = {outer}{and})",
                inner.name
            )
        } else {
            let filter = own.map(|c| format!(" WHERE {c}")).unwrap_or_default();
            format!(
                "{outer} {not}IN (SELECT {col} FROM {} y{filter})",
                inner.name
            )
        });
    }
    // Now and then a column compared with a scalar subquery, correlated on
    // a join column or not: a nested view keyed by the correlation.
    if rng.index(6) == 0 {
        let k = rng.index(items.len());
        conditions.push(scalar_condition(rng, &SCHEMA[items[k]], &alias(k)));
    }
    let theta = items.len() > 1 && rng.index(5) == 0;
    if theta {
        conditions.push(format!(
            "{}.{} < {}.{}",
            alias(0),
            SCHEMA[items[0]].joins[0],
            alias(1),
            SCHEMA[items[1]].joins[0]
        ));
    }
    // GROUP BY: up to two columns or expressions of one item's columns,
    // each selected (and grouped by as written, by its alias or by its
    // position) or not.
    let mut keys: Vec<String> = Vec::new();
    let mut selected: Vec<String> = Vec::new();
    // Integer columns grouped by as written, which select items may
    // compute with (an `INT` or `SMALLINT` key times a `BIGINT` sum).
    let mut integer_keys: Vec<String> = Vec::new();
    for _ in 0..rng.index(3) {
        let k = rng.index(items.len());
        let table = &SCHEMA[items[k]];
        let column = pick(rng, table.keys);
        let computed = rng.index(3) == 0;
        let key = if computed {
            pick(rng, table.computed).replace("{}", &alias(k))
        } else {
            format!("{}.{column}", alias(k))
        };
        if keys.contains(&key) {
            continue;
        }
        if !computed && table.integers.contains(&column) {
            integer_keys.push(key.clone());
        }
        match rng.index(5) {
            0 => {
                let name = format!("k{}", keys.len());
                keys.push(name.clone());
                selected.push(format!("{key} AS {name}"));
            }
            1 => {
                selected.push(format!("{key} AS k{}", keys.len()));
                keys.push((selected.len()).to_string());
            }
            2 => keys.push(key),
            _ => {
                selected.push(key.clone());
                keys.push(key);
            }
        }
    }
    let term = |rng: &mut Rng| {
        let k = rng.index(items.len());
        let t = pick(rng, SCHEMA[items[k]].terms);
        qualify(t, &alias(k))
    };
    // The select list: the keys, then aggregates (none for a bag).
    let bag = rng.index(6) == 0;
    let mut select: Vec<String> = selected;
    // Constants of every type, now and then.
    if rng.index(4) == 0 {
        select.push(pick(rng, CONSTANTS).to_owned());
    }
    if bag {
        // Every column of the FROM clause, or of one of its items.
        if rng.index(3) == 0 {
            select.push(match rng.index(2) {
                0 => "*".to_owned(),
                _ => format!("{}.*", alias(rng.index(items.len()))),
            });
        }
        if select.is_empty() {
            let k = rng.index(items.len());
            let table = &SCHEMA[items[k]];
            select.push(if rng.index(3) == 0 {
                pick(rng, table.computed).replace("{}", &alias(k))
            } else {
                format!("{}.{}", alias(k), pick(rng, table.keys))
            });
        }
        keys.clear();
    } else {
        if !integer_keys.is_empty() && rng.index(3) == 0 {
            let key = pick_owned(rng, &integer_keys);
            let t = term(rng);
            select.push(match rng.index(4) {
                0 => format!("{key} * SUM({t})"),
                1 => format!("COUNT(*) - {key}"),
                2 => format!("-{key}"),
                _ => format!("SUM({t}) + 2 * {key}"),
            });
        }
        for _ in 0..1 + rng.index(4) {
            let aggregate = match rng.index(11) {
                // Constants are summed once per row, alone or as a term
                // of a sum over several items.
                9 => pick(rng, &["SUM(1)", "SUM(2.5)", "AVG(1)", "SUM(-2)"]).to_owned(),
                10 => format!("SUM({} + {} - 1)", term(rng), term(rng)),
                0 => "COUNT(*)".to_owned(),
                1 => format!("SUM({})", term(rng)),
                2 => {
                    // A product of terms of several items.
                    let (a, b) = (term(rng), term(rng));
                    format!("SUM({a} * {b})")
                }
                3 => format!("AVG({})", term(rng)),
                4 | 5 => {
                    let k = rng.index(items.len());
                    let f = if rng.index(2) == 0 { "MIN" } else { "MAX" };
                    format!("{f}({}.{})", alias(k), pick(rng, SCHEMA[items[k]].ordered))
                }
                6 => {
                    let k = rng.index(items.len());
                    let c = pick(rng, SCHEMA[items[k]].conditions).replace("{}", &alias(k));
                    format!("SUM(CASE WHEN {c} THEN {} ELSE 0 END)", term(rng))
                }
                7 => format!("SUM({}) - 2 * COUNT(*)", term(rng)),
                _ => format!("SUM({}) / COUNT(*)", term(rng)),
            };
            select.push(aggregate);
        }
    }
    let option = if theta {
        "WITH (strategy = 'first_order') "
    } else {
        "WITH (intractable = 'allow') "
    };
    let mut sql = format!(
        "CREATE VIEW random_{i} {option}AS SELECT {} FROM {from}",
        select.join(", ")
    );
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    if !keys.is_empty() {
        sql.push_str(&format!(" GROUP BY {}", keys.join(", ")));
        // HAVING over the group's aggregates: the groups a nested view
        // keeps, filtered (not over a quotient, which can be NULL).
        if rng.index(5) == 0 && !select.iter().any(|s| s.contains(" / ")) {
            let t = term(rng);
            let having = match rng.index(4) {
                0 => "COUNT(*) > 1".to_owned(),
                1 => format!("SUM({t}) > 0"),
                2 => format!("MIN({t}) < 2 AND COUNT(*) <> 2"),
                _ => {
                    let inner = &SCHEMA[rng.index(SCHEMA.len())];
                    let u = qualify(pick(rng, inner.terms), "y");
                    format!("2 * SUM({t}) >= (SELECT SUM({u}) FROM {} y)", inner.name)
                }
            };
            sql.push_str(&format!(" HAVING {having}"));
        }
    }
    // Now and then the whole SELECT is a derived table that an outer one
    // counts.
    if rng.index(10) == 0
        && let Some((head, body)) = sql.split_once(" AS SELECT ")
    {
        let outer = pick(rng, &["COUNT(*) AS n", "COUNT(*) AS n, SUM(2) AS m"]);
        sql = format!("{head} AS SELECT {outer} FROM (SELECT {body}) d");
    }
    sql.push(';');
    sql
}

/// A view without GROUP BY whose every aggregate reads one scalar
/// subquery, correlated on a join column or not.
fn aggregated_scalar(rng: &mut Rng, i: usize) -> String {
    let (outer, inner) = (
        &SCHEMA[rng.index(SCHEMA.len())],
        &SCHEMA[rng.index(SCHEMA.len())],
    );
    let mut wheres = Vec::new();
    if rng.index(2) == 0 {
        let (theirs, mine) = join_columns(rng, inner, outer);
        wheres.push(format!("y.{theirs} = x0.{mine}"));
    }
    if rng.index(3) == 0 {
        wheres.push(pick(rng, inner.conditions).replace("{}", "y"));
    }
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", wheres.join(" AND "))
    };
    // Not AVG: it keeps 8 fractional digits here, and a product of it
    // summed over rows drifts from SQLite's double by more than the
    // comparison's tolerance (a rounding, not a wrong answer).
    let aggregate = pick(rng, &["SUM", "MAX", "MIN"]);
    let u = qualify(pick(rng, inner.terms), "y");
    let subquery = format!("(SELECT {aggregate}({u}) FROM {} y{filter})", inner.name);
    let t = qualify(pick(rng, outer.terms), "x0");
    let mut select = vec![format!("SUM({t} * {subquery})")];
    if rng.index(2) == 0 {
        select.push(format!("AVG({t} + {subquery} - 1)"));
    }
    let condition = if rng.index(2) == 0 {
        format!(" WHERE {}", pick(rng, outer.conditions).replace("{}", "x0"))
    } else {
        String::new()
    };
    format!(
        "CREATE VIEW random_{i} WITH (intractable = 'allow') AS SELECT {} FROM {} x0{condition};",
        select.join(", "),
        outer.name
    )
}

/// `x.col <op> (SELECT <aggregate> FROM t y [WHERE ..])`, correlated on a
/// join column or not, or `x.col IN (SELECT <aggregate> ..)`; now and then
/// a SELECT without FROM (`(SELECT 1 WHERE 2 < 1)`).
fn scalar_condition(rng: &mut Rng, outer: &Table, alias: &str) -> String {
    let inner = &SCHEMA[rng.index(SCHEMA.len())];
    let lhs = format!("{alias}.{}", pick(rng, outer.integers));
    // A SELECT without FROM: a constant, NULL where its WHERE is false.
    if rng.index(8) == 0 {
        let op = pick(rng, &["=", "<", ">=", "<>"]);
        let value = pick(rng, &["1", "2 - 3", "0.5"]);
        let filter = pick(rng, &["", " WHERE 1 = 1", " WHERE 2 < 1"]);
        return if rng.index(3) == 0 {
            format!("{lhs} IN (SELECT {value}{filter})")
        } else {
            format!("{lhs} {op} (SELECT {value}{filter})")
        };
    }
    let t = qualify(pick(rng, inner.terms), "y");
    let mut wheres = Vec::new();
    let correlated = rng.index(2) == 0;
    if correlated {
        let (theirs, mine) = join_columns(rng, inner, outer);
        wheres.push(format!("y.{theirs} = {alias}.{mine}"));
    }
    if rng.index(2) == 0 {
        wheres.push(pick(rng, inner.conditions).replace("{}", "y"));
    }
    // A correlated COUNT is 0, not NULL, where no row matches: an outer
    // join, not supported yet.
    let aggregates: &[&str] = if correlated {
        &[
            "SUM({})",
            "AVG({})",
            "MIN({})",
            "MAX({})",
            "2 * SUM({}) - 1",
        ]
    } else {
        &["SUM({})", "AVG({})", "MAX({})", "COUNT(*)", "COUNT(*) - 1"]
    };
    let aggregate = pick(rng, aggregates).replace("{}", &t);
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", wheres.join(" AND "))
    };
    let subquery = format!("(SELECT {aggregate} FROM {} y{filter})", inner.name);
    if rng.index(5) == 0 {
        return format!("{lhs} IN {subquery}");
    }
    let op = pick(rng, &["=", "<", "<=", ">", ">=", "<>"]);
    format!("{lhs} {op} {subquery}")
}

/// Select items of every constant type (SQLite writes `TRUE` as 1 and a
/// date as its text, which is how the tests compare them).
const CONSTANTS: &[&str] = &[
    "'ab'",
    "'' AS empty",
    "7",
    "-3 AS minus",
    "1.5",
    "TRUE",
    "DATE '2020-01-01' AS first_day",
];

fn pick_owned(rng: &mut Rng, from: &[String]) -> String {
    from[rng.index(from.len())].clone()
}

/// Two columns to equate, one of each table: INT columns, or now and then
/// text columns where both tables have one.
/// A subquery that reads no column of the view's: `[NOT] EXISTS (SELECT *
/// FROM ..)` or `constant [NOT] IN (SELECT col FROM ..)`, a condition on
/// the whole result.
fn uncorrelated(rng: &mut Rng) -> String {
    let inner = &SCHEMA[rng.index(SCHEMA.len())];
    let own = (rng.index(3) != 0).then(|| pick(rng, inner.conditions).replace("{}", "y"));
    let not = if rng.index(3) == 0 { "NOT " } else { "" };
    if rng.index(2) == 0 {
        let filter = own.map(|c| format!(" WHERE {c}")).unwrap_or_default();
        return format!("{not}EXISTS (SELECT * FROM {} y{filter})", inner.name);
    }
    let (col, constant) = if !inner.texts.is_empty() && rng.index(2) == 0 {
        (
            pick(rng, inner.texts),
            format!("'{}'", pick(rng, &["xy", "x", ""])),
        )
    } else {
        (pick(rng, inner.joins), rng.index(4).to_string())
    };
    let filter = own.map(|c| format!(" WHERE {c}")).unwrap_or_default();
    format!(
        "{constant} {not}IN (SELECT y.{col} FROM {} y{filter})",
        inner.name
    )
}

fn join_columns(rng: &mut Rng, a: &Table, b: &Table) -> (&'static str, &'static str) {
    if !a.texts.is_empty() && !b.texts.is_empty() && rng.index(2) == 0 {
        (pick(rng, a.texts), pick(rng, b.texts))
    } else {
        (pick(rng, a.joins), pick(rng, b.joins))
    }
}

/// A term with its columns named through `alias`: `(c + 1)` becomes
/// `(x0.c + 1)`.
fn qualify(term: &str, alias: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for ch in term.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_alphabetic() {
            word.push(ch);
            continue;
        }
        if !word.is_empty() {
            out.push_str(&format!("{alias}.{word}"));
            word.clear();
        }
        out.push(ch);
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_qualified() {
        assert_eq!(qualify("(2 * b - c)", "x1"), "(2 * x1.b - x1.c)");
        assert_eq!(qualify("d", "x0"), "x0.d");
    }

    #[test]
    fn every_view_compiles() {
        let text = views(7, 60);
        if let Err(e) = ivm_compiler::driver::compile_str(&text) {
            panic!(
                "{}",
                ivm_compiler::diagnostic::render(&e, "random.sql", &text)
            );
        }
    }
}
