//! Random SQL views (DESIGN section 3b) over the schema of the SQL suite
//! (`tests/queries/sql.sql`): joins of one to three FROM items (self-joins
//! included), local conditions, GROUP BY columns and expressions (written
//! out, by alias or by position), every aggregate, CASE, a last division,
//! bags, views without GROUP BY, and subqueries (`[NOT] EXISTS`, `[NOT]
//! IN`) correlated on a join column. `tests/build.rs` compiles
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
";

/// What the generator knows of a table: its name, its INT columns (to
/// join on), numeric terms, conditions, group-by columns, group-by
/// expressions and columns MIN and MAX take.
struct Table {
    name: &'static str,
    joins: &'static [&'static str],
    terms: &'static [&'static str],
    conditions: &'static [&'static str],
    keys: &'static [&'static str],
    computed: &'static [&'static str],
    ordered: &'static [&'static str],
}

const SCHEMA: [Table; 3] = [
    Table {
        name: "r",
        joins: &["a", "b"],
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
        computed: &["EXTRACT(MONTH FROM {}.f)", "{}.d * 2", "{}.b * {}.b"],
        ordered: &["d", "f", "b"],
    },
    Table {
        name: "t",
        joins: &["a"],
        terms: &["g", "a", "(g * a)"],
        conditions: &["{}.h", "{}.g > 0.5", "NOT {}.h", "{}.a = 1"],
        keys: &["a", "h"],
        computed: &["NOT {}.h", "{}.a - 1", "CASE WHEN {}.h THEN 1 ELSE 0 END"],
        ordered: &["a", "g"],
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
    // FROM: one to three items, each joined to an earlier one.
    let items: Vec<usize> = (0..1 + rng.index(3)).map(|_| rng.index(3)).collect();
    let alias = |k: usize| format!("x{k}");
    let mut from = format!("{} {}", SCHEMA[items[0]].name, alias(0));
    let mut conditions: Vec<String> = Vec::new();
    for (k, &table) in items.iter().enumerate().skip(1) {
        let other = rng.index(k);
        let on = format!(
            "{}.{} = {}.{}",
            alias(k),
            pick(rng, SCHEMA[table].joins),
            alias(other),
            pick(rng, SCHEMA[items[other]].joins)
        );
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
    if rng.index(4) == 0 {
        let k = rng.index(items.len());
        let outer = format!("{}.{}", alias(k), pick(rng, SCHEMA[items[k]].joins));
        let inner = &SCHEMA[rng.index(3)];
        let col = format!("y.{}", pick(rng, inner.joins));
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
    for _ in 0..rng.index(3) {
        let k = rng.index(items.len());
        let table = &SCHEMA[items[k]];
        let key = if rng.index(3) == 0 {
            pick(rng, table.computed).replace("{}", &alias(k))
        } else {
            format!("{}.{}", alias(k), pick(rng, table.keys))
        };
        if keys.contains(&key) {
            continue;
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
    if bag {
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
        for _ in 0..1 + rng.index(4) {
            let aggregate = match rng.index(9) {
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
    }
    sql.push(';');
    sql
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
