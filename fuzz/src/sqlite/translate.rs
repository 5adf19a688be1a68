//! SQLite's spelling of the forms of a view's SELECT that SQLite lacks,
//! written on sqlparser's tree ([`sqlite_forms`]):
//!
//! | view | SQLite |
//! |---|---|
//! | `GREATEST(a, b, ..)`, `LISTMAX(..)` | `CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a WHEN a >= b THEN a ELSE b END`, folded left to right |
//! | `LEAST(a, b, ..)`, `LISTMIN(..)` | the same with `<=` |
//! | `DATE_PART('year', d)` (`'month'`, `'day'`) | `CAST(strftime('%Y', d) AS INTEGER)` (`%m`, `%d`) |
//! | `CAST(e AS DECIMAL(p, s))` | `CAST(e AS REAL)` |
//! | `x op ANY (SELECT y FROM .. WHERE p)` (or `SOME`) | `EXISTS (SELECT * FROM .. WHERE (p) AND (x op y))` |
//! | `x op ALL (SELECT y FROM .. WHERE p)` | `NOT EXISTS (SELECT * FROM .. WHERE (p) AND ((x op y) IS NOT TRUE))` |
//!
//! GREATEST and LEAST pass over NULL and are NULL only where every
//! argument is, as PostgreSQL's (SQLite's `max(a, b)` is NULL where any
//! is); the CASE keeps each argument's own type where PostgreSQL's
//! value has their common one, so an integer argument among decimals
//! stays an integer (which matters only where a sum of them divides).
//! A DECIMAL cast is a REAL, as the tables' DECIMAL columns are in
//! SQLite: its NUMERIC affinity would keep a whole value an integer,
//! which then divides as one. `ANY` and `ALL` are read as conditions, true or
//! not: `ALL` is true where no row of the subquery makes `x op y` false
//! or NULL (so over no rows), `ANY` where one makes it true; where either
//! is NULL in SQL, the spelling here is false, which is the same to a
//! conjunct of WHERE (the only place the compiler takes them). `x` moves
//! into the subquery, so it must name its columns through the outer
//! query's aliases (as every view of the suites and the generator does).

use sqlparser::ast::{
    BinaryOperator, DataType, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    JoinConstraint, JoinOperator, OrderByKind, Query, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, TableFactor, TableWithJoins,
    WildcardAdditionalOptions,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

/// `select` with the forms of the module's table spelled for SQLite; as
/// it is where it has none of them (or does not parse, which SQLite then
/// reports).
pub fn sqlite_forms(select: &str) -> String {
    let Ok(mut query) = Parser::new(&GenericDialect {})
        .try_with_sql(select)
        .and_then(|mut p| p.parse_query())
    else {
        return select.to_owned();
    };
    let mut changed = false;
    walk_query(&mut query, &mut |e| changed |= rewrite(e));
    if changed {
        query.to_string()
    } else {
        select.to_owned()
    }
}

/// Rewrites `e` if it is one of the module's forms (its children already
/// are); whether it was.
fn rewrite(e: &mut Expr) -> bool {
    let new = match e {
        Expr::Function(f) => {
            let name = f.name.to_string().to_lowercase();
            let Some(args) = arguments(&f.args) else {
                return false;
            };
            match name.as_str() {
                "greatest" | "listmax" => extreme(args, ">="),
                "least" | "listmin" => extreme(args, "<="),
                "date_part" => match date_part(&args) {
                    Some(e) => e,
                    None => return false,
                },
                _ => return false,
            }
        }
        Expr::Cast { data_type, .. } => {
            if !matches!(
                data_type,
                DataType::Decimal(_) | DataType::Numeric(_) | DataType::Dec(_)
            ) {
                return false;
            }
            *data_type = DataType::Real;
            return true;
        }
        Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        } => match quantified(left, compare_op, right, false) {
            Some(e) => e,
            None => return false,
        },
        Expr::AllOp {
            left,
            compare_op,
            right,
        } => match quantified(left, compare_op, right, true) {
            Some(e) => e,
            None => return false,
        },
        _ => return false,
    };
    *e = new;
    true
}

/// The expressions of an argument list, if it is one of expressions only.
fn arguments(args: &FunctionArguments) -> Option<Vec<Expr>> {
    let FunctionArguments::List(list) = args else {
        return None;
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// GREATEST (`cmp` `>=`) or LEAST (`<=`) of `args`: a CASE per argument
/// past the first, NULL passed over.
fn extreme(args: Vec<Expr>, cmp: &str) -> Expr {
    let mut args = args.into_iter();
    let Some(mut out) = args.next() else {
        return template("NULL", &[]);
    };
    for b in args {
        out = template(
            &format!(
                "CASE WHEN __0 IS NULL THEN __1 WHEN __1 IS NULL THEN __0 WHEN __0 {cmp} __1 THEN __0 ELSE __1 END"
            ),
            &[out, b],
        );
    }
    out
}

/// `DATE_PART('year', d)` as `CAST(strftime('%Y', d) AS INTEGER)`.
fn date_part(args: &[Expr]) -> Option<Expr> {
    let [field, date] = args else {
        return None;
    };
    let field = match field {
        Expr::Value(v) => v.value.to_string().to_lowercase(),
        _ => return None,
    };
    let format = match field.as_str() {
        "'year'" => "%Y",
        "'month'" => "%m",
        "'day'" => "%d",
        _ => return None,
    };
    Some(template(
        &format!("CAST(strftime('{format}', __0) AS INTEGER)"),
        std::slice::from_ref(date),
    ))
}

/// `x op ANY (SELECT y FROM .. WHERE p)` as `EXISTS (SELECT * FROM ..
/// WHERE (p) AND (x op y))`, or under ALL, `NOT EXISTS (.. WHERE (p) AND
/// ((x op y) IS NOT TRUE))`; `None` for any other right-hand side than a
/// SELECT of one expression.
fn quantified(x: &Expr, op: &BinaryOperator, right: &Expr, all: bool) -> Option<Expr> {
    let Expr::Subquery(query) = right else {
        return None;
    };
    let SetExpr::Select(select) = &*query.body else {
        return None;
    };
    let [SelectItem::UnnamedExpr(y) | SelectItem::ExprWithAlias { expr: y, .. }] =
        select.projection.as_slice()
    else {
        return None;
    };
    let compared = template(&format!("__0 {op} __1"), &[x.clone(), y.clone()]);
    let test = if all {
        template("__0 IS NOT TRUE", &[compared])
    } else {
        compared
    };
    let mut select = select.clone();
    select.projection = vec![SelectItem::Wildcard(WildcardAdditionalOptions::default())];
    select.selection = Some(match select.selection.take() {
        Some(p) => template("__0 AND __1", &[p, test]),
        None => test,
    });
    let mut query = query.clone();
    query.body = Box::new(SetExpr::Select(select));
    Some(Expr::Exists {
        subquery: query,
        negated: all,
    })
}

/// The expression `text` with each identifier `__<i>` replaced by
/// `args[i]`, in parentheses where it is not a single term (sqlparser
/// writes a tree's operators without them).
fn template(text: &str, args: &[Expr]) -> Expr {
    let mut e = Parser::new(&GenericDialect {})
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .expect("a template parses");
    walk_expr(&mut e, &mut |e| {
        if let Expr::Identifier(id) = e
            && let Some(i) = id
                .value
                .strip_prefix("__")
                .and_then(|n| n.parse::<usize>().ok())
        {
            *e = parenthesized(args[i].clone());
        }
    });
    e
}

fn parenthesized(e: Expr) -> Expr {
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::Function(_)
        | Expr::Case { .. }
        | Expr::Cast { .. }
        | Expr::Nested(_)
        | Expr::Subquery(_)
        | Expr::Exists { .. } => e,
        e => Expr::Nested(Box::new(e)),
    }
}

/// Calls `f` on every expression of `q`, its subqueries' included, each
/// after its children.
fn walk_query(q: &mut Query, f: &mut dyn FnMut(&mut Expr)) {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            walk_query(&mut cte.query, f);
        }
    }
    walk_set(&mut q.body, f);
    if let Some(order) = &mut q.order_by
        && let OrderByKind::Expressions(keys) = &mut order.kind
    {
        for key in keys {
            walk_expr(&mut key.expr, f);
        }
    }
}

fn walk_set(s: &mut SetExpr, f: &mut dyn FnMut(&mut Expr)) {
    match s {
        SetExpr::Select(select) => walk_select(select, f),
        SetExpr::Query(q) => walk_query(q, f),
        SetExpr::SetOperation { left, right, .. } => {
            walk_set(left, f);
            walk_set(right, f);
        }
        _ => {}
    }
}

fn walk_select(s: &mut Select, f: &mut dyn FnMut(&mut Expr)) {
    for item in &mut s.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                walk_expr(e, f);
            }
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(e), _) => {
                walk_expr(e, f);
            }
            _ => {}
        }
    }
    for from in &mut s.from {
        walk_from(from, f);
    }
    if let Some(e) = &mut s.selection {
        walk_expr(e, f);
    }
    if let GroupByExpr::Expressions(keys, _) = &mut s.group_by {
        for key in keys {
            walk_expr(key, f);
        }
    }
    if let Some(e) = &mut s.having {
        walk_expr(e, f);
    }
}

fn walk_from(from: &mut TableWithJoins, f: &mut dyn FnMut(&mut Expr)) {
    walk_factor(&mut from.relation, f);
    for join in &mut from.joins {
        walk_factor(&mut join.relation, f);
        use JoinOperator as J;
        if let J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::FullOuter(c)
        | J::CrossJoin(c) = &mut join.join_operator
            && let JoinConstraint::On(e) = c
        {
            walk_expr(e, f);
        }
    }
}

fn walk_factor(factor: &mut TableFactor, f: &mut dyn FnMut(&mut Expr)) {
    match factor {
        TableFactor::Derived { subquery, .. } => walk_query(subquery, f),
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => walk_from(table_with_joins, f),
        _ => {}
    }
}

/// Calls `f` on `e`'s children (and theirs), then on `e`.
fn walk_expr(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match e {
        Expr::BinaryOp { left, right, .. }
        | Expr::AnyOp { left, right, .. }
        | Expr::AllOp { left, right, .. }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right) => {
            walk_expr(left, f);
            walk_expr(right, f);
        }
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsNotTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::IsNotFalse(expr)
        | Expr::Cast { expr, .. }
        | Expr::Extract { expr, .. } => walk_expr(expr, f),
        Expr::In { expr, target, .. } => {
            walk_expr(expr, f);
            match target {
                sqlparser::ast::InTarget::List(list) => {
                    list.iter_mut().for_each(|e| walk_expr(e, f));
                }
                sqlparser::ast::InTarget::Subquery(q) => walk_query(q, f),
                _ => {}
            }
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            walk_expr(expr, f);
            walk_expr(low, f);
            walk_expr(high, f);
        }
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            walk_expr(expr, f);
            walk_expr(pattern, f);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                walk_expr(o, f);
            }
            for when in conditions {
                walk_expr(&mut when.condition, f);
                walk_expr(&mut when.result, f);
            }
            if let Some(e) = else_result {
                walk_expr(e, f);
            }
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            walk_expr(expr, f);
            if let Some(e) = substring_from {
                walk_expr(e, f);
            }
            if let Some(e) = substring_for {
                walk_expr(e, f);
            }
        }
        Expr::Function(func) => {
            if let FunctionArguments::List(list) = &mut func.args {
                for arg in &mut list.args {
                    match arg {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                        | FunctionArg::Named {
                            arg: FunctionArgExpr::Expr(e),
                            ..
                        } => walk_expr(e, f),
                        _ => {}
                    }
                }
            }
        }
        Expr::Subquery(q) | Expr::Exists { subquery: q, .. } => walk_query(q, f),
        _ => {}
    }
    f(e);
}

#[cfg(test)]
mod tests {
    use super::sqlite_forms;
    use rusqlite::Connection;

    #[test]
    fn spellings() {
        assert_eq!(
            sqlite_forms("SELECT LEAST(a, b + 1) FROM r"),
            "SELECT CASE WHEN a IS NULL THEN (b + 1) WHEN (b + 1) IS NULL THEN a WHEN a <= (b + 1) THEN a ELSE (b + 1) END FROM r"
        );
        assert_eq!(
            sqlite_forms(
                "SELECT x.a FROM r x WHERE x.b > ALL (SELECT y.a FROM n y WHERE y.v > 1 OR y.e = 'x')"
            ),
            "SELECT x.a FROM r x WHERE NOT EXISTS (SELECT * FROM n y WHERE (y.v > 1 OR y.e = 'x') AND ((x.b > y.a) IS NOT TRUE))"
        );
        assert_eq!(
            sqlite_forms(
                "SELECT 1 FROM s WHERE DATE_PART('month', f) = 2 AND CAST(b AS DECIMAL(10, 2)) > 0"
            ),
            "SELECT 1 FROM s WHERE CAST(strftime('%m', f) AS INTEGER) = 2 AND CAST(b AS REAL) > 0"
        );
        // Nothing to spell: the text as it was.
        let plain = "SELECT a  FROM r WHERE b IN (SELECT a FROM n)";
        assert_eq!(sqlite_forms(plain), plain);
    }

    /// SQLite's answers to the spellings agree with SQL's semantics of
    /// the forms, NULLs and empty subqueries included.
    #[test]
    fn semantics() {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE o (x INT NULL);
             INSERT INTO o VALUES (1), (2), (3), (NULL);
             CREATE TABLE i (y INT NULL, k INT);
             INSERT INTO i VALUES (2, 1), (NULL, 2), (1, 3), (3, 3);",
        )
        .unwrap();
        let rows = |sql: &str| -> Vec<Option<i64>> {
            let sql = sqlite_forms(sql);
            let mut st = db.prepare(&sql).unwrap();
            st.query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        // `x > ALL`: false where a row's y is NULL (k = 2), true over no
        // rows (k = 9) whatever x is, NULL included.
        assert_eq!(
            rows("SELECT x FROM o WHERE x > ALL (SELECT y FROM i WHERE k = 1) ORDER BY x"),
            [Some(3)]
        );
        assert!(rows("SELECT x FROM o WHERE x > ALL (SELECT y FROM i WHERE k = 2)").is_empty());
        assert_eq!(
            rows("SELECT x FROM o WHERE x > ALL (SELECT y FROM i WHERE k = 9) ORDER BY x").len(),
            4
        );
        assert_eq!(
            rows("SELECT x FROM o WHERE x >= ALL (SELECT y FROM i WHERE k = 3) ORDER BY x"),
            [Some(3)]
        );
        // `x = ANY`, `x < SOME`: NULL never matches.
        assert_eq!(
            rows("SELECT x FROM o WHERE x = ANY (SELECT y FROM i) ORDER BY x"),
            [Some(1), Some(2), Some(3)]
        );
        assert_eq!(
            rows("SELECT x FROM o WHERE x < SOME (SELECT y FROM i WHERE k > 1) ORDER BY x"),
            [Some(1), Some(2)]
        );
        // GREATEST and LEAST pass over NULL.
        assert_eq!(
            rows("SELECT GREATEST(x, 2) FROM o ORDER BY 1"),
            [Some(2), Some(2), Some(2), Some(3)]
        );
        assert_eq!(
            rows("SELECT LEAST(x, NULL) FROM o ORDER BY 1"),
            [None, Some(1), Some(2), Some(3)]
        );
        assert_eq!(
            rows("SELECT LISTMIN(y, k, 2) FROM i ORDER BY 1"),
            [Some(1), Some(1), Some(2), Some(2)]
        );
        assert_eq!(
            rows("SELECT DATE_PART('day', '2020-03-07') + DATE_PART('year', '2020-03-07')"),
            [Some(2027)]
        );
    }
}
