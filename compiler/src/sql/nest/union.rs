//! `UNION ALL`, `UNION` and `SELECT DISTINCT` (`docs/design.md#union-and-distinct`).
//!
//! A `UNION ALL` of SELECTs is one piece per SELECT, all feeding the first
//! one's table (the way an outer join's unmatched rows feed the matched
//! rows' table): its columns are the first SELECT's names, and a column is
//! nullable where any SELECT's can be NULL. `UNION` is `SELECT DISTINCT *`
//! over that, and `SELECT DISTINCT` without aggregates groups by its select
//! items, so that each row is there once while it has a copy.

use sqlparser::ast::{
    Expr, GroupByExpr, Ident as SqlIdent, Query, Select, SelectItem, SetExpr, SetOperator,
    SetQuantifier, Spanned, TableFactor, TableWithJoins,
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
        if !matches!(&*query.body, SetExpr::SetOperation { .. }) {
            let inner = plain_select(query).map_err(|e| self.error(e))?.clone();
            return self.piece(base, &inner, loc, None);
        }
        let mut branches = Vec::new();
        let mut distinct = false;
        flatten(&query.body, &mut branches, &mut distinct).map_err(|e| self.error(e))?;
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
            name_items(&mut branch, &names).map_err(|e| self.error(e))?;
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
        // `*` and `t.*` as the items they stand for.
        let scope = self.scope(select);
        let mut items = Vec::new();
        for item in std::mem::take(&mut select.projection) {
            match item {
                SelectItem::Wildcard(_) => {
                    for (a, cols) in &scope.items {
                        items.extend(cols.iter().map(|c| column_item(a, c, loc)));
                    }
                }
                SelectItem::QualifiedWildcard(kind, _) => {
                    let name = kind.to_string().to_lowercase();
                    for (a, cols) in scope.items.iter().filter(|(a, _)| *a == name) {
                        items.extend(cols.iter().map(|c| column_item(a, c, loc)));
                    }
                }
                other => items.push(other),
            }
        }
        let keys: Vec<Expr> = items
            .iter()
            .filter_map(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    Some(e.clone())
                }
                _ => None,
            })
            .collect();
        select.projection = items;
        select.group_by = GroupByExpr::Expressions(keys, Vec::new());
        select.distinct = None;
        Ok(())
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
fn flatten(e: &SetExpr, out: &mut Vec<Select>, distinct: &mut bool) -> Result<(), Failure> {
    match e {
        SetExpr::Select(select) => {
            out.push((**select).clone());
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
        SetExpr::SetOperation { op, .. } => Err((
            e.span(),
            format!("{op} is not supported yet: UNION and UNION ALL are"),
        )),
        SetExpr::Query(q) => flatten(&q.body, out, distinct),
        other => Err((other.span(), "a UNION joins SELECT blocks".to_string())),
    }
}

/// Names a later SELECT of a UNION's items after the first one's columns.
fn name_items(select: &mut Select, names: &[String]) -> Result<(), Failure> {
    if names.len() != select.projection.len() {
        return Err((
            select.span(),
            format!(
                "the SELECTs of a UNION select {} and {} items: they must select as many",
                names.len(),
                select.projection.len()
            ),
        ));
    }
    for (item, name) in select.projection.iter_mut().zip(names) {
        let expr = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e.clone(),
            other => {
                return Err((
                    other.span(),
                    "write the select items out in the later SELECTs of a UNION".to_string(),
                ));
            }
        };
        *item = SelectItem::ExprWithAlias {
            expr,
            alias: SqlIdent::with_span(item.span(), name.clone()),
        };
    }
    Ok(())
}
