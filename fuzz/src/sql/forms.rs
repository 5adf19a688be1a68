//! Forms drawn into the views of `view` and `null_view` from a stream of
//! their own (`views`' `extras`), so that a seed draws the same views as
//! before apart from them: `[NOT] EXISTS` correlated by one comparison
//! other than equality ([`theta_exists`], [`own_group`]), `NOT IN` over a subquery
//! column that can be NULL ([`not_in_nullable`]), comparisons with `ANY`,
//! `SOME` and `ALL` ([`quantified`]), and `GREATEST`, `LEAST`, `LISTMAX`,
//! `LISTMIN`, `DATE_PART` and lossless `CAST`s in WHERE ([`condition`]),
//! inside aggregates ([`term`]) and as GROUP BY expressions ([`key`]);
//! and `GREATEST`, `LEAST`, `LISTMAX`, `COALESCE` and `CASE` over
//! aggregates ([`over_aggregate`]).
//! Each keeps to what the compiler takes (`docs/design.md#nested-sql`):
//! the rest are errors by design.

use super::{N, SCHEMA, Table, join_columns, pick};
use crate::rng::Rng;

/// A column's type, as comparisons read it: the integers of each width,
/// decimals (all of scale 2 here), doubles, dates and text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    SmallInt,
    Int,
    BigInt,
    Dec,
    Double,
    Date,
    Text,
}

impl Kind {
    fn number(self) -> bool {
        !matches!(self, Kind::Date | Kind::Text)
    }
}

/// The columns of each table that a comparison reads, with their types.
fn comparable(table: &str) -> &'static [(&'static str, Kind)] {
    use Kind::*;
    match table {
        "r" => &[("a", Int), ("b", Int), ("c", BigInt)],
        "s" => &[("b", Int), ("d", Dec), ("f", Date), ("e", Text)],
        "t" => &[("a", Int), ("g", Double)],
        "u" => &[("w", SmallInt), ("x", Int), ("y", BigInt), ("k", Text)],
        _ => &[("a", Int), ("v", BigInt), ("m", Dec), ("e", Text)],
    }
}

/// Whether two types compare by `op`: an equality (which correlates a
/// subquery) only within one type, the others within one type or between
/// two numbers.
fn compatible(a: Kind, b: Kind, op: &str) -> bool {
    a == b || (op != "=" && a.number() && b.number())
}

/// The tables a subquery reads: the suite's four and `n`.
fn any_table(rng: &mut Rng) -> &'static Table {
    match rng.index(SCHEMA.len() + 1) {
        i if i < SCHEMA.len() => &SCHEMA[i],
        _ => &N,
    }
}

/// A column of `outer` and one of `inner` that compare by `op` (`=`
/// for an equality, anything else for the others; `text` allowed or
/// not): drawn from each side's columns, or two `INT` columns where no
/// column of `inner` matches the one drawn (every table has one).
fn compared_columns(
    rng: &mut Rng,
    outer: &Table,
    inner: &Table,
    text: bool,
    op: &str,
) -> ((&'static str, Kind), &'static str) {
    let mine: Vec<(&str, Kind)> = comparable(outer.name)
        .iter()
        .copied()
        .filter(|&(_, k)| text || k != Kind::Text)
        .collect();
    let x = mine[rng.index(mine.len())];
    let theirs: Vec<&str> = comparable(inner.name)
        .iter()
        .filter(|&&(_, k)| compatible(k, x.1, op))
        .map(|&(c, _)| c)
        .collect();
    if theirs.is_empty() {
        let int = |t: &Table| -> Vec<&'static str> {
            comparable(t.name)
                .iter()
                .filter(|&&(_, k)| k == Kind::Int)
                .map(|&(c, _)| c)
                .collect()
        };
        let (mine, theirs) = (int(outer), int(inner));
        let x = mine[rng.index(mine.len())];
        return ((x, Kind::Int), theirs[rng.index(theirs.len())]);
    }
    (x, theirs[rng.index(theirs.len())])
}

/// A subquery condition over item `k` of `items` (named `x<k>`): one of
/// the three forms of the module's doc. `nullable[k]` says whether the
/// compiler takes item `k`'s columns as ones that can be NULL: `n`'s, and
/// a derived table's (whose columns it does not look into).
pub(super) fn subquery(rng: &mut Rng, items: &[&Table], nullable: &[bool]) -> String {
    match rng.index(5) {
        0 | 1 => {
            let k = rng.index(items.len());
            theta_exists(rng, items[k], &format!("x{k}"))
        }
        2 => not_in_nullable(rng, items, nullable),
        _ => {
            let k = rng.index(items.len());
            quantified(rng, items[k], nullable[k], &format!("x{k}"))
        }
    }
}

/// `[NOT] EXISTS (SELECT * FROM inner y WHERE y.k = x.k AND y.v op x.w
/// [AND ..])`: exactly one comparison other than equality between a
/// column of the subquery and a column or expression of `outer`, zero to
/// two equalities, and now and then a condition of its own; in any
/// order.
fn theta_exists(rng: &mut Rng, outer: &Table, x: &str) -> String {
    if rng.index(3) == 0 {
        return own_group(rng, outer, x);
    }
    let inner = any_table(rng);
    let negated = rng.index(2) == 0;
    let mut conjuncts: Vec<String> = Vec::new();
    let equalities = [0, 1, 1, 2][rng.index(4)];
    for _ in 0..equalities {
        let (theirs, mine) = join_columns(rng, inner, outer);
        let c = format!("y.{theirs} = {x}.{mine}");
        if !conjuncts.contains(&c) {
            conjuncts.push(c);
        }
    }
    let ((w, kind), v) = compared_columns(rng, outer, inner, false, "<");
    let w = match rng.index(4) {
        0 if kind != Kind::Date => format!("{x}.{w} + 1"),
        1 if kind != Kind::Date => format!("2 * {x}.{w}"),
        _ => format!("{x}.{w}"),
    };
    let op = pick(rng, &["<>", "<", "<=", ">", ">="]);
    let comparison = if rng.index(2) == 0 {
        format!("y.{v} {op} {w}")
    } else {
        format!("{w} {op} y.{v}")
    };
    let at = rng.index(conjuncts.len() + 1);
    conjuncts.insert(at, comparison);
    if rng.index(2) == 0 {
        conjuncts.push(pick(rng, inner.conditions).replace("{}", "y"));
    }
    format!(
        "{}EXISTS (SELECT * FROM {} y WHERE {})",
        if negated { "NOT " } else { "" },
        inner.name,
        conjuncts.join(" AND ")
    )
}

/// `cond(x) AND NOT EXISTS (SELECT * FROM outer y WHERE y.k = x.k AND
/// y.v op x.w AND cond(y))`: TPC-H Q21's form, where the subquery reads
/// the outer item's own table, correlated by the same column, with a
/// condition the outer query puts on `x` too. Where `x.k` cannot be NULL,
/// `x`'s row is in the group it looks up, and the compiler joins the
/// nested view with no outer join; where it can, the outer join stays.
fn own_group(rng: &mut Rng, outer: &Table, x: &str) -> String {
    let k = pick(rng, outer.joins);
    let ((w, _), v) = compared_columns(rng, outer, outer, false, "<");
    let op = pick(rng, &["<>", "<", "<=", ">", ">="]);
    let condition = pick(rng, outer.conditions);
    format!(
        "{} AND NOT EXISTS (SELECT * FROM {} y WHERE y.{k} = {x}.{k} AND y.{v} {op} {x}.{w} AND {})",
        condition.replace("{}", x),
        outer.name,
        condition.replace("{}", "y"),
    )
}

/// `x.c NOT IN (SELECT y.a FROM n y [WHERE ..])`: a subquery column that
/// can be NULL (then no row passes), maybe correlated on a join column
/// where the outer column cannot be NULL (where it can, a correlated one
/// is an error by design), and with a condition of its own.
fn not_in_nullable(rng: &mut Rng, items: &[&Table], nullable: &[bool]) -> String {
    let k = rng.index(items.len());
    let (outer, x) = (items[k], format!("x{k}"));
    // A column of `n` of the outer column's type.
    let pairs: Vec<(&str, &str)> = comparable(outer.name)
        .iter()
        .filter_map(|&(c, kind)| {
            comparable(N.name)
                .iter()
                .find(|&&(_, k)| k == kind)
                .map(|&(y, _)| (c, y))
        })
        .collect();
    let (mine, theirs) = pairs[rng.index(pairs.len())];
    let mut wheres = Vec::new();
    if rng.index(3) == 0 {
        let (y, o) = join_columns(rng, &N, outer);
        if !nullable[k] {
            wheres.push(format!("y.{y} = {x}.{o}"));
        }
    }
    if rng.index(2) == 0 {
        wheres.push(pick(rng, N.conditions).replace("{}", "y"));
    }
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", wheres.join(" AND "))
    };
    format!("{x}.{mine} NOT IN (SELECT y.{theirs} FROM n y{filter})")
}

/// `x op ANY|SOME|ALL (SELECT y.v FROM inner y [WHERE ..])`, `op` any
/// comparison, maybe correlated on a join column and with a condition of
/// its own. Text compares only by `= ANY` and `<> ALL` (the others need
/// its least and greatest value). Where `x` can be NULL, an `ALL`
/// subquery is uncorrelated (correlated, an error by design); `x` is now
/// and then an expression (`x.c + 1`), which the compiler takes as one
/// that can be NULL, under `ANY` or an uncorrelated `ALL`.
fn quantified(rng: &mut Rng, outer: &Table, nullable: bool, x: &str) -> String {
    let inner = any_table(rng);
    let quantifier = pick(rng, &["ANY", "SOME", "ALL", "ALL"]);
    let all = |q: &str| q == "ALL";
    let op = pick(rng, &["=", "<>", "<", "<=", ">", ">="]);
    // `= ANY` and `<> ALL` (`NOT IN`) are equalities of `x` and `y`, the
    // others compare the least or greatest `y` with `x`.
    let equality = op == if all(quantifier) { "<>" } else { "=" };
    let text = equality;
    let ((c, kind), v) =
        compared_columns(rng, outer, inner, text, if equality { "=" } else { "<" });
    let correlated = !(all(quantifier) && nullable) && rng.index(2) == 0;
    let expression =
        kind.number() && !equality && (!all(quantifier) || !correlated) && rng.index(4) == 0;
    let lhs = if expression {
        format!("{x}.{c} + 1")
    } else {
        format!("{x}.{c}")
    };
    let mut wheres = Vec::new();
    if correlated {
        let (theirs, mine) = join_columns(rng, inner, outer);
        wheres.push(format!("y.{theirs} = {x}.{mine}"));
    }
    if rng.index(2) == 0 {
        wheres.push(pick(rng, inner.conditions).replace("{}", "y"));
    }
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", wheres.join(" AND "))
    };
    format!(
        "{lhs} {op} {quantifier} (SELECT y.{v} FROM {} y{filter})",
        inner.name
    )
}

/// A condition of one table's columns through `GREATEST`, `LEAST`,
/// `LISTMAX`, `LISTMIN`, `DATE_PART` or a lossless `CAST` (`{}` for the
/// item's alias).
fn conditions(table: &str) -> &'static [&'static str] {
    match table {
        "r" => &[
            "GREATEST({}.a, {}.b) > 1",
            "LEAST({}.c, {}.a) <= 0",
            "CAST({}.c AS DOUBLE) > 0.5",
            "CAST({}.a AS DECIMAL(6, 2)) < 1.5",
            "LISTMAX({}.a, {}.b, {}.c) = 2",
        ],
        "s" => &[
            "DATE_PART('day', {}.f) > 10",
            "DATE_PART('month', {}.f) = 2",
            "DATE_PART('year', {}.f) = 2020",
            "GREATEST({}.d, 0) < 1.5",
            "CAST({}.d AS DOUBLE) > 0.5",
            "LEAST({}.b, DATE_PART('day', {}.f)) < 2",
            "GREATEST({}.f, DATE '2020-02-01') > DATE '2020-02-15'",
        ],
        "t" => &[
            "LEAST({}.g, {}.a) > 0",
            "CAST({}.a AS DOUBLE) < {}.g",
            "GREATEST({}.g, 0.5) = 0.5",
        ],
        "u" => &[
            "LISTMAX({}.w, {}.x) >= 1",
            "LISTMIN({}.y, {}.x, 2) < 0",
            "CAST({}.w AS BIGINT) + {}.y > 0",
            "CAST({}.y AS DECIMAL(10, 1)) > 0.5",
        ],
        _ => &[
            "GREATEST({}.v, {}.a) > 1",
            "LEAST({}.v, {}.m) IS NULL",
            "GREATEST({}.a, 1) = 2",
            "CAST({}.a AS DECIMAL(10, 2)) > {}.m",
            "LISTMIN({}.v, {}.a, 2) < 1",
            "CAST({}.m AS DOUBLE) < 0.5",
            "LEAST({}.m, {}.v) IS NOT NULL",
        ],
    }
}

/// Numeric terms of one table's columns of the same functions, for the
/// arguments of aggregates. GREATEST and LEAST do not mix integers with
/// decimals or doubles here: their value has the arguments' common type,
/// where SQLite's spelling (a CASE) keeps each argument's own, and a sum
/// of integers there divides as one.
fn terms(table: &str) -> &'static [&'static str] {
    match table {
        "r" => &[
            "GREATEST({}.a, {}.b)",
            "LEAST({}.c, 1)",
            "CAST({}.c AS DOUBLE)",
            "CAST({}.a AS DECIMAL(10, 2))",
            "CAST({}.b AS BIGINT)",
            "LISTMAX({}.a, {}.b, {}.c)",
        ],
        "s" => &[
            "GREATEST({}.d, 0.25)",
            "CAST({}.d AS DECIMAL(12, 3))",
            "CAST({}.d AS DOUBLE)",
            "DATE_PART('day', {}.f)",
            "LEAST({}.d, 1.5, {}.d * 2)",
            "CAST({}.b AS DECIMAL(8, 1))",
        ],
        "t" => &[
            "LEAST({}.g, 1.5)",
            "CAST({}.a AS DOUBLE)",
            "GREATEST({}.g, 0.5)",
        ],
        "u" => &[
            "LISTMIN({}.w, {}.x)",
            "GREATEST({}.w, {}.x, {}.y)",
            "CAST({}.w AS INT)",
            "CAST({}.y AS DECIMAL(10, 2))",
        ],
        _ => &[
            "GREATEST({}.v, {}.a)",
            "LEAST({}.v, 1)",
            "CAST({}.v AS DECIMAL(12, 1))",
            "CAST({}.m AS DOUBLE)",
            "LISTMAX({}.m, 0.5)",
            "LEAST({}.m, {}.m * 2, 0.75)",
            "CAST({}.a AS BIGINT)",
        ],
    }
}

/// GROUP BY expressions of one table's columns of the same functions.
fn keys(table: &str) -> &'static [&'static str] {
    match table {
        "r" => &[
            "GREATEST({}.a, {}.b)",
            "CAST({}.c AS DECIMAL(6, 1))",
            "LEAST({}.a, {}.c)",
        ],
        "s" => &[
            "DATE_PART('month', {}.f)",
            "DATE_PART('day', {}.f)",
            "LEAST({}.d, 1)",
        ],
        "t" => &["GREATEST({}.a, 1)", "CAST({}.a AS DOUBLE)"],
        "u" => &["LISTMIN({}.w, {}.x)", "CAST({}.w AS BIGINT)"],
        _ => &[
            "GREATEST({}.v, {}.a)",
            "LEAST({}.a, 1)",
            "CAST({}.v AS DOUBLE)",
            "LISTMAX({}.m, 0)",
        ],
    }
}

/// Now and then (one time in `one_in`) a condition of item `alias` of
/// `table` through one of the functions.
pub(super) fn condition(
    rng: &mut Rng,
    table: &Table,
    alias: &str,
    one_in: usize,
) -> Option<String> {
    (rng.index(one_in) == 0).then(|| pick(rng, conditions(table.name)).replace("{}", alias))
}

/// Now and then a term of item `alias` of `table` through one of the
/// functions, in place of `drawn`. Where the aggregate reads another
/// item's columns too (not `alone`), not GREATEST or LEAST of columns
/// that can be NULL: a CASE over them, an error by design there.
pub(super) fn term(
    rng: &mut Rng,
    table: &Table,
    alias: &str,
    drawn: String,
    alone: bool,
) -> String {
    if rng.index(20) != 0 {
        return drawn;
    }
    let terms: Vec<&str> = terms(table.name)
        .iter()
        .copied()
        .filter(|t| alone || !table.nullable || t.starts_with("CAST"))
        .collect();
    pick(rng, &terms).replace("{}", alias)
}

/// Now and then a GROUP BY expression of item `alias` of `table` through
/// one of the functions, in place of the expression `drawn`.
pub(super) fn key(rng: &mut Rng, table: &Table, alias: &str, drawn: String) -> String {
    if rng.index(4) == 0 {
        pick(rng, keys(table.name)).replace("{}", alias)
    } else {
        drawn
    }
}

/// Now and then (one in eight) select item `aggregate` under GREATEST,
/// LEAST, COALESCE or a CASE, or divided by `LISTMAX(1, COUNT(*))`
/// (DBToaster's guarded division): each over the group's components
/// already drawn (`COUNT(*)` is always one), so the view needs none more.
/// A MIN or MAX (which may be of a date or text) only under a CASE that
/// tests the count; not an AVG under a division (a quotient of decimals
/// that SQLite rounds otherwise), nor an item that divides already (a
/// division is the last step of a select item).
pub(super) fn over_aggregate(rng: &mut Rng, aggregate: String) -> String {
    if rng.index(8) != 0 || aggregate.contains(" / ") {
        return aggregate;
    }
    if aggregate.starts_with("MIN(") || aggregate.starts_with("MAX(") {
        return match rng.index(2) {
            0 => aggregate,
            _ => format!("CASE WHEN COUNT(*) > 1 THEN {aggregate} END"),
        };
    }
    match rng.index(7) {
        0 => format!("GREATEST({aggregate}, 1)"),
        1 => format!("LEAST(0, {aggregate})"),
        2 => format!("LISTMIN({aggregate}, COUNT(*), 5)"),
        3 => format!("COALESCE({aggregate}, -1)"),
        4 => format!(
            "CASE WHEN {aggregate} IS NULL THEN -1 WHEN COUNT(*) > 2 AND NOT ({aggregate} < 0) THEN {aggregate} ELSE 0 END"
        ),
        5 => format!("CASE COUNT(*) WHEN 1 THEN {aggregate} END"),
        _ if aggregate.starts_with("AVG(") => format!("LISTMAX({aggregate}, 2)"),
        _ => format!("({aggregate}) / LISTMAX(1, COUNT(*))"),
    }
}
