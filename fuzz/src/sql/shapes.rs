//! Views whose FROM or select list is shaped by SQL's set and join forms:
//! outer joins (`LEFT`/`RIGHT JOIN`), correlated scalar subqueries in the
//! select list (an outer join of their nested view), `UNION [ALL]`,
//! `SELECT DISTINCT` and `COUNT(DISTINCT ..)`; and, from the extras stream
//! of `views`, `INTERSECT` and `EXCEPT` ([`set_operation`]). Each is drawn over the
//! suite's schema with columns of matching types, so that every view
//! compiles; and now and then ordered or cut to a window as a whole
//! (`super::order_by`), never inside.

use super::{Drawn, columns, names};
use crate::rng::Rng;

/// `SELECT <select> <rest>` over FROM items `from` (aliases and tables).
fn query(select: &[String], rest: String, from: &[(&str, &str)], keyless: bool) -> Drawn {
    let from: Vec<(String, &[&str])> = from
        .iter()
        .map(|&(alias, table)| (alias.to_owned(), columns(table)))
        .collect();
    Drawn {
        sql: format!("SELECT {} {rest}", select.join(", ")),
        names: names(select, &from),
        keyless,
    }
}

/// `table.column` of type `INT` that cannot be NULL: the preserved side
/// of an outer join compares one (a NULL there is refused).
const INT_KEYS: &[(&str, &str)] = &[("r", "a"), ("r", "b"), ("s", "b"), ("t", "a"), ("u", "x")];

/// `INT` columns that may be on the NULL side of an outer join.
const INT_PARTNERS: &[(&str, &str)] = &[
    ("r", "a"),
    ("r", "b"),
    ("s", "b"),
    ("t", "a"),
    ("u", "x"),
    ("n", "a"),
];

/// Numeric columns of each table, aggregated over the NULL side.
fn numbers(table: &str) -> &'static [&'static str] {
    match table {
        "r" => &["c", "b"],
        "s" => &["d", "b"],
        "t" => &["g", "a"],
        "u" => &["y", "w"],
        _ => &["v", "m"],
    }
}

/// Columns to group the preserved side by.
fn keys(table: &str) -> &'static [&'static str] {
    match table {
        "r" => &["a", "b"],
        "s" => &["e", "b"],
        "t" => &["h", "a"],
        "u" => &["k", "x"],
        _ => &["e", "a"],
    }
}

/// A condition over the nullable side, for ON.
fn on_condition(table: &str) -> &'static str {
    match table {
        "r" => "{}.c > 0",
        "s" => "{}.e LIKE 'x%'",
        "t" => "{}.h",
        "u" => "{}.w < 1",
        _ => "{}.v IS NOT NULL",
    }
}

/// Columns of one type in several tables, for the SELECTs of a UNION.
const UNION_COLUMNS: &[&[(&str, &str)]] = &[
    &[
        ("r", "a"),
        ("r", "b"),
        ("s", "b"),
        ("t", "a"),
        ("u", "x"),
        ("n", "a"),
    ],
    &[("s", "e"), ("u", "k"), ("n", "e")],
    &[("r", "c"), ("u", "y"), ("n", "v")],
];

/// One view of these shapes.
pub(super) fn view(rng: &mut Rng, i: usize) -> Drawn {
    let drawn = match rng.index(6) {
        0 | 1 => outer_join(rng),
        2 => correlated_scalar(rng),
        3 => union(rng),
        4 => distinct(rng),
        _ => distinct_count(rng),
    };
    Drawn {
        sql: format!(
            "CREATE VIEW random_{i} WITH (intractable = 'allow') AS {}",
            drawn.sql
        ),
        ..drawn
    }
}

/// `x0 LEFT JOIN x1` (or the same as a `RIGHT JOIN`), grouped by a
/// preserved column or a bag.
fn outer_join(rng: &mut Rng) -> Drawn {
    let (t0, c0) = *rng.pick(INT_KEYS);
    let (t1, c1) = *rng.pick(INT_PARTNERS);
    let mut on = format!("x1.{c1} = x0.{c0}");
    if rng.index(3) == 0 {
        on.push_str(&format!(" AND {}", on_condition(t1).replace("{}", "x1")));
    }
    let from = if rng.index(4) == 0 {
        format!("{t1} x1 RIGHT JOIN {t0} x0 ON {on}")
    } else {
        format!("{t0} x0 LEFT JOIN {t1} x1 ON {on}")
    };
    let mut wheres = Vec::new();
    if rng.index(3) == 0 {
        wheres.push(format!("x0.{c0} <> 1"));
    }
    if rng.index(4) == 0 {
        let n = rng.pick(numbers(t1));
        wheres.push(format!("x1.{n} IS NULL"));
    }
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", wheres.join(" AND "))
    };
    let n = rng.pick(numbers(t1));
    let tables = [("x0", t0), ("x1", t1)];
    if rng.index(3) == 0 {
        let select = ["x0.*".to_owned(), format!("x1.{n}")];
        return query(&select, format!("FROM {from}{filter}"), &tables, false);
    }
    let k = rng.pick(keys(t0));
    let aggregates = [
        format!("COUNT(x1.{n})"),
        format!("SUM(x1.{n})"),
        format!("MAX(x1.{n})"),
        "COUNT(*)".to_string(),
    ];
    let mut select = vec![format!("x0.{k}")];
    select.extend(aggregates.into_iter().filter(|_| rng.index(2) == 0));
    if select.len() == 1 {
        select.push("COUNT(*)".to_string());
    }
    let rest = format!("FROM {from}{filter} GROUP BY x0.{k}");
    query(&select, rest, &tables, false)
}

/// Two joins, the second an outer join over three items: `x0 LEFT JOIN
/// x1 ON .. LEFT JOIN x2 ON x2.c = x1.c'`, a chain of optional lookups
/// whose second ON compares the column the first pads with NULL (maybe a
/// nullable one of `n`'s too); `x0 JOIN x1 ON ..` then `FULL JOIN x2` or
/// `RIGHT JOIN x2`, whose side of two items is a nested view; or an inner
/// join after the outer one. Grouped by a column of `x0`, or a bag of a
/// column of each.
pub(super) fn outer_chain(rng: &mut Rng, i: usize) -> Drawn {
    let (t0, c0) = *rng.pick(INT_KEYS);
    let (t1, c1) = *rng.pick(INT_PARTNERS);
    let (t2, c2) = *rng.pick(INT_PARTNERS);
    let (first, second) = match rng.index(5) {
        0 => ("JOIN", "FULL JOIN"),
        1 => ("JOIN", "RIGHT JOIN"),
        2 => ("LEFT JOIN", "JOIN"),
        _ => ("LEFT JOIN", "LEFT JOIN"),
    };
    let mut on = format!("x2.{c2} = x1.{c1}");
    // A condition of `x2` alone, not where `x2` keeps its rows (FULL and
    // RIGHT JOIN): a condition of a preserved side alone is an error there
    // (by design).
    if rng.index(3) == 0 && matches!(second, "LEFT JOIN" | "JOIN") {
        on.push_str(&format!(" AND {}", on_condition(t2).replace("{}", "x2")));
    }
    // Now and then a condition of `x0` alone in the first ON: under LEFT
    // JOIN it decides whether a row of `x0` can match, not whether it stays.
    let mut first_on = format!("x1.{c1} = x0.{c0}");
    if rng.index(4) == 0 {
        first_on.push_str(&format!(" AND {}", on_condition(t0).replace("{}", "x0")));
    }
    let from = format!("FROM {t0} x0 {first} {t1} x1 ON {first_on} {second} {t2} x2 ON {on}");
    let (n1, n2) = (rng.pick(numbers(t1)), rng.pick(numbers(t2)));
    let k = rng.pick(keys(t0));
    let tables = [("x0", t0), ("x1", t1), ("x2", t2)];
    let drawn = if rng.index(3) == 0 {
        let select = [format!("x0.{k}"), format!("x1.{n1}"), format!("x2.{n2}")];
        query(&select, from, &tables, false)
    } else {
        let select = [
            format!("x0.{k}"),
            "COUNT(*)".to_string(),
            format!("COUNT(x2.{n2})"),
            format!("SUM(x1.{n1})"),
        ];
        query(&select, format!("{from} GROUP BY x0.{k}"), &tables, false)
    };
    Drawn {
        sql: format!(
            "CREATE VIEW random_{i} WITH (intractable = 'allow') AS {}",
            drawn.sql
        ),
        ..drawn
    }
}

/// A correlated scalar subquery in the select list: in a grouped view,
/// next to `COUNT(*)`, or a bag; a `COUNT` one now and then (0 where it
/// matches nothing).
fn correlated_scalar(rng: &mut Rng) -> Drawn {
    let (t0, c0) = *rng.pick(INT_KEYS);
    let (t1, c1) = *rng.pick(INT_PARTNERS);
    let n = rng.pick(numbers(t1));
    let value = match rng.index(3) {
        0 => format!("SUM(y.{n})"),
        1 => format!("MIN(y.{n})"),
        _ => "COUNT(*)".to_string(),
    };
    let sub = format!("(SELECT {value} FROM {t1} y WHERE y.{c1} = x0.{c0})");
    let own = rng.pick(numbers(t0));
    let tables = [("x0", t0)];
    if rng.index(2) == 0 {
        let select = [format!("x0.{c0}"), format!("{sub} AS sq")];
        return query(&select, format!("FROM {t0} x0"), &tables, false);
    }
    let k = rng.pick(keys(t0));
    let select = [
        format!("x0.{k}"),
        "COUNT(*)".to_owned(),
        format!("SUM(x0.{own} * {sub}) AS weighted"),
    ];
    query(
        &select,
        format!("FROM {t0} x0 GROUP BY x0.{k}"),
        &tables,
        false,
    )
}

/// `UNION [ALL]` of two or three SELECTs of one column type, as a view
/// or as a derived table counted by group; ordered as a whole, by
/// position or by its column's name.
fn union(rng: &mut Rng) -> Drawn {
    let columns = *rng.pick(UNION_COLUMNS);
    let op = if rng.index(2) == 0 {
        "UNION ALL"
    } else {
        "UNION"
    };
    let branches: Vec<String> = (0..2 + rng.index(2))
        .map(|_| {
            let (t, c) = *rng.pick(columns);
            let filter = if rng.index(2) == 0 {
                format!(" WHERE {}", on_condition(t).replace("{}", "y"))
            } else {
                String::new()
            };
            format!("SELECT y.{c} AS w FROM {t} y{filter}")
        })
        .collect();
    let body = branches.join(&format!(" {op} "));
    if rng.index(2) == 0 {
        Drawn {
            sql: body,
            names: vec![vec!["1".to_owned(), "w".to_owned()]],
            keyless: false,
        }
    } else {
        let select = ["w".to_owned(), "COUNT(*)".to_owned()];
        let rest = format!("FROM ({body}) d GROUP BY w");
        query(&select, rest, &[], false)
    }
}

/// `SELECT DISTINCT` of a table's columns.
fn distinct(rng: &mut Rng) -> Drawn {
    let t = rng.pick(&["r", "s", "t", "u", "n"]);
    let k = keys(t);
    let filter = if rng.index(2) == 0 {
        format!(" WHERE {}", on_condition(t).replace("{}", "x0"))
    } else {
        String::new()
    };
    let tables = [("x0", *t)];
    let rest = format!("FROM {t} x0{filter}");
    let select = match rng.index(3) {
        0 => vec!["*".to_owned()],
        _ => vec![format!("x0.{}", k[0]), format!("x0.{}", k[1])],
    };
    let mut drawn = query(&select, rest, &tables, false);
    drawn.sql = drawn.sql.replacen("SELECT ", "SELECT DISTINCT ", 1);
    drawn
}

/// `COUNT(DISTINCT ..)` (and `SUM`), grouped or not.
fn distinct_count(rng: &mut Rng) -> Drawn {
    let t = rng.pick(&["r", "s", "t", "u", "n"]);
    let n = rng.pick(numbers(t));
    let k = rng.pick(keys(t));
    let mut aggregates = vec![format!("COUNT(DISTINCT x0.{n})")];
    if rng.index(2) != 0 {
        aggregates.push(format!("SUM(DISTINCT x0.{n})"));
    }
    let tables = [("x0", *t)];
    if rng.index(3) == 0 {
        query(&aggregates, format!("FROM {t} x0"), &tables, true)
    } else {
        let mut select = vec![format!("x0.{k}")];
        select.extend(aggregates);
        let rest = format!("FROM {t} x0 GROUP BY x0.{k}");
        query(&select, rest, &tables, false)
    }
}

/// Columns of one type in several tables besides [`UNION_COLUMNS`]'
/// (decimals), and pairs of an `INT` and a text column of one table, for
/// the SELECTs of an INTERSECT or EXCEPT.
const DECIMAL_COLUMNS: &[(&str, &str)] = &[("s", "d"), ("n", "m")];
const PAIRS: &[(&str, &str, &str)] = &[("s", "b", "e"), ("u", "x", "k"), ("n", "a", "e")];

/// `A INTERSECT B` or `A EXCEPT B`: two SELECTs of one or two columns of
/// the same types (`n`'s can be NULL, which a set takes as equal to
/// NULL), each filtered or not; as the view, or as a derived table that
/// an outer SELECT counts, sums or groups. Never next to a `UNION`:
/// SQLite reads compound SELECTs left to right, where the compiler (as
/// the standard) binds INTERSECT tighter.
pub(super) fn set_operation(rng: &mut Rng, i: usize) -> Drawn {
    let op = if rng.index(2) == 0 {
        "INTERSECT"
    } else {
        "EXCEPT"
    };
    let filter = |rng: &mut Rng, t: &str| {
        if rng.index(2) == 0 {
            format!(" WHERE {}", on_condition(t).replace("{}", "y"))
        } else {
            String::new()
        }
    };
    // One column (`w`), numeric or not, or two (`w`, `z`).
    let (branches, numeric, pair): (Vec<String>, bool, bool) = if rng.index(4) == 0 {
        let branches = (0..2)
            .map(|_| {
                let (t, a, b) = *rng.pick(PAIRS);
                let f = filter(rng, t);
                format!("SELECT y.{a} AS w, y.{b} AS z FROM {t} y{f}")
            })
            .collect();
        (branches, true, true)
    } else {
        let group = match rng.index(4) {
            0 => DECIMAL_COLUMNS,
            _ => *rng.pick(UNION_COLUMNS),
        };
        let numeric = !group.iter().any(|&(t, c)| columns_of_text(t, c));
        let branches = (0..2)
            .map(|_| {
                let (t, c) = *rng.pick(group);
                let f = filter(rng, t);
                format!("SELECT y.{c} AS w FROM {t} y{f}")
            })
            .collect();
        (branches, numeric, false)
    };
    let body = branches.join(&format!(" {op} "));
    let drawn = match rng.index(3) {
        0 => {
            let mut names = vec![vec!["1".to_owned(), "w".to_owned()]];
            if pair {
                names.push(vec!["2".to_owned(), "z".to_owned()]);
            }
            Drawn {
                sql: body,
                names,
                keyless: false,
            }
        }
        1 => {
            let mut select = vec!["COUNT(*) AS n".to_owned()];
            if numeric && rng.index(2) == 0 {
                select.push("SUM(w) AS total".to_owned());
            }
            let rest = format!("FROM ({body}) d");
            query(&select, rest, &[], true)
        }
        _ => {
            let (key, select) = if pair {
                (
                    "z",
                    vec!["z".to_owned(), "COUNT(*)".to_owned(), "MAX(w)".to_owned()],
                )
            } else {
                ("w", vec!["w".to_owned(), "COUNT(*)".to_owned()])
            };
            let rest = format!("FROM ({body}) d GROUP BY {key}");
            query(&select, rest, &[], false)
        }
    };
    Drawn {
        sql: format!(
            "CREATE VIEW random_{i} WITH (intractable = 'allow') AS {}",
            drawn.sql
        ),
        ..drawn
    }
}

/// Whether `table.column` is text.
fn columns_of_text(table: &str, column: &str) -> bool {
    matches!((table, column), ("s", "e") | ("u", "k") | ("n", "e"))
}
