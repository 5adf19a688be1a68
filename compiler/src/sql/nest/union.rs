//! `UNION ALL`, `UNION`, `SELECT DISTINCT` and `COUNT(DISTINCT e)`
//! (`docs/design.md#union-and-distinct`).
//!
//! A `UNION ALL` of SELECTs is one piece per SELECT, all feeding the first
//! one's table (the way an outer join's unmatched rows feed the matched
//! rows' table): its columns are the first SELECT's names, and a column is
//! nullable where any SELECT's can be NULL. `UNION` is `SELECT DISTINCT *`
//! over that, and `SELECT DISTINCT` without aggregates groups by its select
//! items, so that each row is there once while it has a copy. A view
//! whose aggregates are all `COUNT`, `SUM` or `AVG` of `DISTINCT e` (one
//! `e`) reads a piece grouped by its GROUP BY and `e`, each value of `e`
//! once per group, and aggregates `e` there without `DISTINCT`.
//!
//! `A INTERSECT B` and `A EXCEPT B` are sets: a piece for each side, then
//! a `UNION ALL` of the two that tags each row with its side, grouped by
//! the columns, whose groups `HAVING` keeps where both sides have a row
//! (`INTERSECT`) or only the left one does (`EXCEPT`). GROUP BY takes NULLs
//! as equal, as set operations do.

use sqlparser::ast::{
    DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    Ident as SqlIdent, Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier, Spanned,
    TableFactor, TableWithJoins, Value,
};
use sqlparser::tokenizer::Span as Loc;

use super::ast::{qualified, snippet_select};
use super::{Failure, Nest, plain_select, table_factor};
use crate::sql::lower;

/// `SELECT * FROM (<query>) AS <alias>`: a view whose body is a `UNION`
/// read as one SELECT over it as a derived table.
pub fn select_of_set_operation(query: &Query, alias: &str, loc: Loc) -> Select {
    let mut select = snippet_select("SELECT * FROM t AS t", loc);
    let mut inner = query.clone();
    inner.order_by = None;
    inner.limit_clause = None;
    select.from[0].relation = TableFactor::Derived {
        lateral: false,
        subquery: Box::new(inner),
        alias: Some(super::ast::table_alias(SqlIdent::with_span(
            loc,
            alias.to_string(),
        ))),
        sample: None,
    };
    select
}

impl Nest<'_> {
    /// The piece a derived table's query becomes: one SELECT's, or a
    /// `UNION [ALL]`'s (see the module's doc).
    pub(super) fn derived_piece(
        &mut self,
        query: &Query,
        base: &str,
        loc: Loc,
        reads: &mut Vec<usize>,
    ) -> Result<usize, syn::Error> {
        match &*query.body {
            SetExpr::SetOperation {
                op: op @ (SetOperator::Intersect | SetOperator::Except),
                left,
                right,
                set_quantifier,
            } => {
                if !matches!(
                    set_quantifier,
                    SetQuantifier::None | SetQuantifier::Distinct
                ) {
                    return Err(self.spans.error(
                        query.body.span(),
                        format!("{op} {set_quantifier} is not supported: {op} keeps each row once"),
                    ));
                }
                return self.set_difference(*op, left, right, base, loc, reads);
            }
            SetExpr::SetOperation { .. } => {}
            _ => {
                let inner = plain_select(query).map_err(|e| self.error(e))?.clone();
                return self.piece(base, &inner, loc, None);
            }
        }
        let mut branches = Vec::new();
        let mut distinct = false;
        flatten(&query.body, &mut branches, &mut distinct).map_err(|e| self.error(e))?;
        for branch in &mut branches {
            if let Branch::Set(set) = branch {
                *branch = Branch::Select(Box::new(self.set_branch(set, base, reads)?));
            }
        }
        let branches: Vec<Select> = branches
            .into_iter()
            .map(|b| match b {
                Branch::Select(s) => *s,
                Branch::Set(_) => unreachable!("every INTERSECT or EXCEPT branch is a piece now"),
            })
            .collect();
        let first = self.piece(base, &branches[0], loc, None)?;
        let table = self.pieces[first].name.clone();
        let names: Vec<String> = self.pieces[first]
            .table
            .columns
            .iter()
            .map(|c| c.0.clone())
            .collect();
        for branch in &branches[1..] {
            let mut branch = branch.clone();
            // Each name placed at the item it names.
            let names: Vec<SqlIdent> = names
                .iter()
                .enumerate()
                .map(|(k, n)| {
                    let at = branch.projection.get(k).map_or(branch.span(), |i| i.span());
                    SqlIdent::with_span(at, n.clone())
                })
                .collect();
            super::name_items(&mut branch, &names, "the first SELECT of the UNION")
                .map_err(|e| self.error(e))?;
            let p = self.piece(base, &branch, branch.span(), None)?;
            let (ours, theirs) = (
                &self.pieces[p].table.columns,
                &self.pieces[first].table.columns,
            );
            if let Some((i, (a, b))) = ours
                .iter()
                .zip(theirs)
                .enumerate()
                .find(|(_, (a, b))| a.1 != b.1)
            {
                return Err(self.spans.error(
                    branch.projection[i].span(),
                    format!(
                        "the SELECTs of a UNION give column `{}` type {} in one and {} in another: give it one type",
                        b.0,
                        b.1.name(),
                        a.1.name()
                    ),
                ));
            }
            let nullable: Vec<bool> = ours.iter().map(|c| c.2).collect();
            for (column, n) in self.pieces[first].table.columns.iter_mut().zip(nullable) {
                column.2 |= n;
            }
            self.pieces[p].feeds = Some(table.clone());
            reads.push(p);
        }
        if !distinct {
            return Ok(first);
        }
        // `UNION`: each row once, a DISTINCT over the union's table.
        reads.push(first);
        let mut over = snippet_select("SELECT DISTINCT * FROM t AS t", loc);
        over.from = vec![TableWithJoins {
            relation: table_factor(&table, SqlIdent::with_span(loc, table.clone()), loc),
            joins: Vec::new(),
        }];
        self.piece(base, &over, loc, None)
    }

    /// An `INTERSECT` or `EXCEPT` branch of a `UNION`: its piece, selected
    /// by its columns' names so that the UNION can name its items.
    fn set_branch(
        &mut self,
        set: &Query,
        base: &str,
        reads: &mut Vec<usize>,
    ) -> Result<Select, syn::Error> {
        let loc = set.body.span();
        let p = self.derived_piece(set, base, loc, reads)?;
        let columns: Vec<String> = self.pieces[p]
            .table
            .columns
            .iter()
            .map(|c| c.0.clone())
            .collect();
        let text = format!("SELECT {} FROM {}", columns.join(", "), self.pieces[p].name);
        Ok(snippet_select(&text, loc))
    }

    /// `left INTERSECT right` or `left EXCEPT right` (see the module's
    /// doc): a piece per side, and the piece of their tagged union
    /// grouped by the columns.
    fn set_difference(
        &mut self,
        op: SetOperator,
        left: &SetExpr,
        right: &SetExpr,
        base: &str,
        loc: Loc,
        reads: &mut Vec<usize>,
    ) -> Result<usize, syn::Error> {
        let side = |e: &SetExpr| {
            let mut q = super::ast::query_of(snippet_select("SELECT 1", loc));
            q.body = Box::new(e.clone());
            q
        };
        let l = self.derived_piece(&side(left), base, loc, reads)?;
        let r = self.derived_piece(&side(right), base, loc, reads)?;
        let columns = |p: usize| -> Vec<String> {
            self.pieces[p]
                .table
                .columns
                .iter()
                .map(|c| c.0.clone())
                .collect()
        };
        let (names, theirs) = (columns(l), columns(r));
        if names.len() != theirs.len() {
            return Err(self.spans.error(
                right.span(),
                format!(
                    "the two sides of {op} select {} and {} columns: select as many",
                    names.len(),
                    theirs.len()
                ),
            ));
        }
        let (left_name, right_name) = (self.pieces[l].name.clone(), self.pieces[r].name.clone());
        let keep = match op {
            SetOperator::Intersect => "> 0",
            _ => "= 0",
        };
        let text = format!(
            "SELECT {cols} FROM (SELECT {cols}, 1 AS nested_left, 0 AS nested_right FROM {left_name} \
             UNION ALL SELECT {theirs}, 0, 1 FROM {right_name}) AS tagged \
             GROUP BY {cols} HAVING SUM(nested_left) > 0 AND SUM(nested_right) {keep}",
            cols = names.join(", "),
            theirs = theirs.join(", "),
        );
        let select = snippet_select(&text, loc);
        self.piece(base, &select, loc, None)
    }

    /// `SELECT DISTINCT` (after the FROM is rewritten, so that `*` can be
    /// written out): without aggregates or GROUP BY, a GROUP BY of its
    /// select items; with them, an error.
    pub(super) fn rewrite_distinct(&self, select: &mut Select) -> Result<(), syn::Error> {
        if select.distinct.is_none() {
            return Ok(());
        }
        let loc = select.span();
        let aggregates = select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                lower::has_aggregate(e)
            }
            _ => false,
        });
        let grouped = !super::group_by_is_empty(select);
        if aggregates || grouped || select.having.is_some() {
            return Err(self.spans.error(
                loc,
                "SELECT DISTINCT over aggregates or GROUP BY is not supported yet: its groups are distinct already, or select it from a derived table",
            ));
        }
        self.expand_wildcards(select);
        let keys: Vec<Expr> = select
            .projection
            .iter()
            .filter_map(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    Some(e.clone())
                }
                _ => None,
            })
            .collect();
        select.group_by = GroupByExpr::Expressions(keys, Vec::new());
        select.distinct = None;
        Ok(())
    }

    /// `*` and `t.*` written out as the items they stand for, over the
    /// FROM items as they are now: before the rewriting joins pieces of
    /// its own (a scalar subquery's), whose columns `*` does not name, and
    /// without those joined already (an EXISTS correlated by `<`'s).
    pub(super) fn expand_wildcards(&self, select: &mut Select) {
        let loc = select.span();
        let scope = self.scope(select);
        let mut items = Vec::new();
        for item in std::mem::take(&mut select.projection) {
            match item {
                SelectItem::Wildcard(_) => {
                    let written = scope
                        .items
                        .iter()
                        .filter(|(a, _)| !self.joined_in.contains(a));
                    for (a, cols) in written {
                        items.extend(cols.iter().map(|c| column_item(a, c, loc)));
                    }
                }
                SelectItem::QualifiedWildcard(kind, options) => {
                    let Some(name) = wildcard_item(&kind) else {
                        // Not `name.*`: the lowering says what is wrong.
                        items.push(SelectItem::QualifiedWildcard(kind, options));
                        continue;
                    };
                    for (a, cols) in scope.items.iter().filter(|(a, _)| *a == name) {
                        items.extend(cols.iter().map(|c| column_item(a, c, loc)));
                    }
                }
                other => items.push(other),
            }
        }
        select.projection = items;
    }
}

impl Nest<'_> {
    /// `COUNT(DISTINCT e)` (and `SUM`, `AVG`): where every aggregate of the
    /// select list is one of them over one `e`, the view reads a piece of
    /// its groups' distinct values of `e` (see the module's doc); where
    /// some are and some are not, an error.
    pub(super) fn rewrite_distinct_aggregates(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        let mut calls = Vec::new();
        for item in &select.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
                aggregate_calls(e, &mut calls);
            }
        }
        let distinct: Vec<&sqlparser::ast::Function> =
            calls.iter().copied().filter(|f| is_distinct(f)).collect();
        let Some(first) = distinct.first() else {
            return Ok(());
        };
        let loc = first.span();
        let argument = |f: &sqlparser::ast::Function| match &f.args {
            FunctionArguments::List(list) => match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => Some(e.clone()),
                _ => None,
            },
            _ => None,
        };
        let value = argument(first);
        let name = |f: &sqlparser::ast::Function| f.name.to_string().to_uppercase();
        let same = calls
            .iter()
            .filter(|f| is_distinct(f))
            .all(|f| argument(f) == value && ["COUNT", "SUM", "AVG"].contains(&name(f).as_str()));
        let (Some(value), true) = (value, same) else {
            return Err(self.spans.error(
                loc,
                "DISTINCT in an aggregate is supported as COUNT, SUM or AVG of DISTINCT over one expression per view",
            ));
        };
        // The other aggregates are summed up in two steps: per group and
        // distinct value in the piece, then per group over it.
        let plain: Vec<&sqlparser::ast::Function> =
            calls.iter().copied().filter(|f| !is_distinct(f)).collect();
        if let Some(f) = plain
            .iter()
            .find(|f| !["COUNT", "SUM", "MIN", "MAX"].contains(&name(f).as_str()))
        {
            return Err(self.spans.error(
                f.span(),
                format!(
                    "{} beside a DISTINCT aggregate is not supported: COUNT, SUM, MIN and MAX are",
                    name(f)
                ),
            ));
        }
        if !plain.is_empty() && super::group_by_is_empty(select) {
            return Err(self.spans.error(
                loc,
                "a DISTINCT aggregate beside other aggregates needs GROUP BY (over no rows, a count must be 0)",
            ));
        }
        let plain: Vec<sqlparser::ast::Function> = plain.into_iter().cloned().collect();
        if select.having.is_some() {
            return Err(self.spans.error(
                loc,
                "DISTINCT in an aggregate with HAVING is not supported yet",
            ));
        }
        let keys = group_keys(select).map_err(|e| self.error(e))?;
        // The piece: the groups' keys and the distinct values.
        // A key that is a column keeps its name (`p_brand`), so that the
        // rule and its explanation read as the SQL does.
        let mut names: Vec<String> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let name = match k {
                Expr::Identifier(id) => id.value.to_lowercase(),
                Expr::CompoundIdentifier(ids) => ids[ids.len() - 1].value.to_lowercase(),
                _ => format!("nested_key{}", i + 1),
            };
            let name = if names.contains(&name) || name == DISTINCT_VALUE {
                format!("nested_key{}", i + 1)
            } else {
                name
            };
            names.push(name);
        }
        let key_name = |i: usize| names[i].clone();
        let mut inner = select.clone();
        inner.projection = keys
            .iter()
            .enumerate()
            .map(|(i, k)| SelectItem::ExprWithAlias {
                expr: k.clone(),
                alias: SqlIdent::with_span(loc, key_name(i)),
            })
            .chain(std::iter::once(SelectItem::ExprWithAlias {
                expr: value.clone(),
                alias: SqlIdent::with_span(loc, DISTINCT_VALUE.to_string()),
            }))
            .chain(
                plain
                    .iter()
                    .enumerate()
                    .map(|(i, f)| SelectItem::ExprWithAlias {
                        expr: Expr::Function(f.clone()),
                        alias: SqlIdent::with_span(loc, part_column(i)),
                    }),
            )
            .collect();
        let mut grouping = keys.clone();
        grouping.push(value);
        inner.group_by = GroupByExpr::Expressions(grouping, Vec::new());
        let p = self.piece("distinct", &inner, loc, None)?;
        reads.push(p);
        let alias = self.pieces[p].name.clone();
        // The view over it: each key read off the piece, each aggregate
        // over the distinct values without DISTINCT.
        let column = |c: &str| qualified(&alias, c, loc);
        for item in &mut select.projection {
            let (e, named) = match item {
                SelectItem::UnnamedExpr(e) => {
                    let named = match e {
                        Expr::Identifier(id) => Some(id.clone()),
                        Expr::CompoundIdentifier(ids) => ids.last().cloned(),
                        _ => None,
                    };
                    (e, named)
                }
                SelectItem::ExprWithAlias { expr, .. } => (expr, None),
                _ => continue,
            };
            replace_keys(e, &keys, &column, &key_name);
            replace_plain(e, &plain, &|i, f| {
                // A count of the piece's rows is the sum of their counts.
                let inner = name(f);
                let outer = if inner == "COUNT" {
                    "SUM"
                } else {
                    inner.as_str()
                };
                super::theta::template(&format!("{outer}(__0)"), &[column(&part_column(i))], loc)
            });
            replace_distinct(e, &column(DISTINCT_VALUE));
            if let Some(alias) = named {
                *item = SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias,
                };
            }
        }
        select.from = vec![TableWithJoins {
            relation: table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc),
            joins: Vec::new(),
        }];
        select.selection = None;
        select.group_by = GroupByExpr::Expressions(
            (0..keys.len()).map(|i| column(&key_name(i))).collect(),
            Vec::new(),
        );
        Ok(())
    }
}

/// The column of a distinct aggregate's piece that holds the values.
const DISTINCT_VALUE: &str = "nested_distinct";

/// The column of a distinct aggregate's piece that holds the `i`-th
/// other aggregate, per group and distinct value.
fn part_column(i: usize) -> String {
    format!("nested_part{}", i + 1)
}

/// Each call of `plain` in `e` replaced by `by(i, call)`, outside
/// subqueries.
fn replace_plain(
    e: &mut Expr,
    plain: &[sqlparser::ast::Function],
    by: &dyn Fn(usize, &sqlparser::ast::Function) -> Expr,
) {
    if let Expr::Function(f) = e
        && let Some(i) = plain.iter().position(|p| p == f)
    {
        *e = by(i, f);
        return;
    }
    super::ast::children_mut(e, &mut |child| replace_plain(child, plain, by));
}

/// Whether an aggregate call is `f(DISTINCT ..)`.
fn is_distinct(f: &sqlparser::ast::Function) -> bool {
    matches!(&f.args, FunctionArguments::List(list) if list.duplicate_treatment == Some(DuplicateTreatment::Distinct))
}

/// The aggregate calls of a select item (every function but the scalar
/// ones, such as COALESCE).
fn aggregate_calls<'e>(e: &'e Expr, out: &mut Vec<&'e sqlparser::ast::Function>) {
    match e {
        Expr::Function(f) if !lower::is_scalar_function(f) => out.push(f),
        Expr::Function(f) => {
            if let FunctionArguments::List(list) = &f.args {
                for arg in &list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg {
                        aggregate_calls(e, out);
                    }
                }
            }
        }
        Expr::BinaryOp { left, right, .. } => {
            aggregate_calls(left, out);
            aggregate_calls(right, out);
        }
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => aggregate_calls(expr, out),
        _ => {}
    }
}

/// The GROUP BY expressions, a position (`GROUP BY 1`) or a select item's
/// alias read as the item's expression.
fn group_keys(select: &Select) -> Result<Vec<Expr>, Failure> {
    let GroupByExpr::Expressions(exprs, _) = &select.group_by else {
        return Err((select.span(), "GROUP BY ALL is not supported".to_string()));
    };
    let item = |i: usize| match select.projection.get(i) {
        Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) => {
            Some(e.clone())
        }
        _ => None,
    };
    exprs
        .iter()
        .map(|e| match e {
            Expr::Value(v) if let Value::Number(n, _) = &v.value => n
                .parse::<usize>()
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(item)
                .ok_or((e.span(), format!("GROUP BY {n} names no select item"))),
            Expr::Identifier(id) => Ok(select
                .projection
                .iter()
                .find_map(|item| match item {
                    SelectItem::ExprWithAlias { expr, alias }
                        if alias.value.eq_ignore_ascii_case(&id.value) =>
                    {
                        Some(expr.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| e.clone())),
            e => Ok(e.clone()),
        })
        .collect()
}

/// Replaces each GROUP BY expression in `e` (outside aggregates) by the
/// piece's key column.
fn replace_keys(
    e: &mut Expr,
    keys: &[Expr],
    column: &dyn Fn(&str) -> Expr,
    name: &dyn Fn(usize) -> String,
) {
    if let Some(i) = keys.iter().position(|k| k == e) {
        *e = column(&name(i));
        return;
    }
    if matches!(e, Expr::Function(_)) {
        return;
    }
    super::ast::children_mut(e, &mut |child| replace_keys(child, keys, column, name));
}

/// Makes each `f(DISTINCT e)` in `e` an `f(value)` over the piece's
/// distinct values.
fn replace_distinct(e: &mut Expr, value: &Expr) {
    if let Expr::Function(f) = e
        && is_distinct(f)
        && let FunctionArguments::List(list) = &mut f.args
    {
        list.duplicate_treatment = None;
        list.args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(value.clone()))];
        return;
    }
    super::ast::children_mut(e, &mut |child| replace_distinct(child, value));
}

/// The FROM item `name.*` names, in lower case.
pub(super) fn wildcard_item(
    kind: &sqlparser::ast::SelectItemQualifiedWildcardKind,
) -> Option<String> {
    match kind {
        sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(name) => {
            Some(name.to_string().to_lowercase())
        }
        sqlparser::ast::SelectItemQualifiedWildcardKind::Expr(_) => None,
    }
}

/// `alias.column AS column`.
fn column_item(alias: &str, column: &str, loc: Loc) -> SelectItem {
    SelectItem::ExprWithAlias {
        expr: qualified(alias, column, loc),
        alias: SqlIdent::with_span(loc, column.to_string()),
    }
}

/// The SELECTs of a chain of `UNION [ALL]`, in order, and whether any of
/// them is a `UNION` without `ALL` (then the whole is distinct: SQL's
/// `UNION` removes duplicates from everything before it too, and a chain
/// with one is taken as a set).
/// A branch of a `UNION`: a SELECT, or an `INTERSECT` or `EXCEPT` that
/// becomes a piece first.
enum Branch {
    Select(Box<Select>),
    Set(Box<Query>),
}

fn flatten(e: &SetExpr, out: &mut Vec<Branch>, distinct: &mut bool) -> Result<(), Failure> {
    match e {
        SetExpr::Select(select) => {
            out.push(Branch::Select(select.clone()));
            Ok(())
        }
        SetExpr::SetOperation {
            left,
            op: SetOperator::Union,
            set_quantifier,
            right,
        } => {
            match set_quantifier {
                SetQuantifier::All => {}
                SetQuantifier::None | SetQuantifier::Distinct => *distinct = true,
                other => {
                    return Err((e.span(), format!("UNION {other} is not supported")));
                }
            }
            flatten(left, out, distinct)?;
            flatten(right, out, distinct)
        }
        SetExpr::SetOperation { .. } => {
            let mut query = super::ast::query_of(snippet_select("SELECT 1", e.span()));
            query.body = Box::new(e.clone());
            out.push(Branch::Set(Box::new(query)));
            Ok(())
        }
        SetExpr::Query(q) => flatten(&q.body, out, distinct),
        other => Err((other.span(), "a UNION joins SELECT blocks".to_string())),
    }
}
