//! Nested SQL (`docs/design.md#nested-sql`): what a view reads besides
//! its tables, each a *piece* maintained as a view of its own whose rows
//! the reading view takes as the rows of a table, the way DBToaster
//! maintains a nested aggregate as a map that the outer query reads.
//!
//! This pass rewrites a view's SELECT before [`lower`](super::lower) sees
//! it, so that every FROM item names a table or a piece:
//!
//! | SQL | piece | the reader's SELECT |
//! |---|---|---|
//! | `FROM (SELECT ..) AS t` | the subquery | `FROM <piece> AS t` |
//! | `FROM v`, `v` a view declared before | a copy of `v` | `FROM <piece> AS v` |
//! | `x < (SELECT AVG(a) FROM r WHERE r.k = s.k)` | `SELECT r.k AS k1, AVG(a) AS value FROM r GROUP BY r.k` | `x < sq.value`, `sq.k1 = s.k`, `sq` in FROM |
//! | `.. GROUP BY g HAVING c` | the SELECT without HAVING, with what `c` reads | `SELECT t.* FROM <piece> AS t WHERE c` |
//! | `x IN (SELECT ..)`, `EXISTS (..)` whose subquery aggregates or nests | the subquery, with its correlated columns | `x IN (SELECT p.value FROM <piece> AS p WHERE p.k1 = s.k)` |
//!
//! A piece is lowered like any view (it may read pieces in turn), and
//! the view's generated struct keeps each piece once, feeding its changed
//! rows to the views that read it (`emit/sql/nested.rs`).
//!
//! A piece's fields that can be NULL are nullable columns of the table
//! its readers see (`docs/design.md#nested-sql`). A piece without GROUP
//! BY has exactly one row, NULLs and all, so an uncorrelated scalar
//! subquery is read anywhere. A correlated one's piece is grouped by the
//! correlated columns, and an outer row that matches nothing has no row
//! to join where SQL reads NULL: a reader may read its value only where
//! NULL rejects the row (a comparison in a conjunct of WHERE, arithmetic
//! under it, or the aggregates of a view without GROUP BY that all read
//! it), which is exact, since SQL would drop the row too.

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident as SqlIdent, InTarget, Query, Select, SelectItem,
    SetExpr, Spanned, TableFactor, TableWithJoins,
};
use sqlparser::tokenizer::Span as Loc;

mod ast;
mod constant;
mod outer;
mod quantified;
mod theta;
mod union;
mod using;

pub use union::select_of_set_operation;

use self::ast::{
    aggregates_strictly, and_all, as_semijoin, children_mut, column_ref, column_refs, equal,
    has_subquery, ident_loc, is_slot, object_name, qualified, query_of, replace_slot,
    snippet_select, split_and, table_alias, table_factor, take_scalars,
};
use self::constant::{constant_select, inline_constant_tables};
use super::lower;
use super::span::SpanMap;
use super::{Table, View, ViewOptions, ViewShape};

/// A view declared by an earlier `CREATE VIEW`, which a later one may
/// read.
#[derive(Debug, Clone)]
pub struct Declared {
    /// Its name, in lower case.
    pub name: String,
    /// Its SELECT, with a column list after the view's name applied.
    pub select: Select,
    /// Its statement, as a later view that reads it quotes it.
    pub sql: String,
    /// Where its LIMIT or OFFSET is, if it has one: a view that reads it
    /// would read all its rows, so none may.
    pub window: Option<Loc>,
}

/// A piece of the view being lowered.
struct Piece {
    /// Its name: the table name its readers use, and its struct's.
    name: String,
    view: View,
    /// Its columns, as its readers see them.
    table: Table,
    /// The declared view it is a copy of, if any (read once however
    /// often it is named).
    of_view: Option<String>,
    /// Whether rows leave it (it takes deletes, or it aggregates, so a
    /// changed group is a row that goes and one that comes).
    retracts: bool,
    /// The piece whose table its rows go to, where not its own: the
    /// unmatched rows of an outer join go to the matched rows' table.
    feeds: Option<String>,
}

/// The rewriting of one view and its pieces.
struct Nest<'a> {
    spans: &'a SpanMap,
    tables: &'a [Table],
    declared: &'a [Declared],
    /// The view's name: the prefix of its pieces' names.
    top: String,
    /// The pieces, each after the pieces it reads.
    pieces: Vec<Piece>,
    /// Every piece's name, given before it is lowered (and the pieces it
    /// reads are).
    named: Vec<String>,
    /// The pieces a rewrite joined into a SELECT's FROM in place of a
    /// condition (an EXISTS correlated by `<`): `*` does not name their
    /// columns.
    joined_in: Vec<String>,
    /// The options pieces take: the view's updates, and
    /// `intractable = 'allow'` where the view allows it or forces a
    /// strategy; no forced strategy.
    piece_options: ViewOptions,
}

type Failure = (Loc, String);

/// Lowers view `name` with the pieces it reads.
pub fn view(
    spans: &SpanMap,
    tables: &[Table],
    declared: &[Declared],
    name: &SqlIdent,
    options: ViewOptions,
    select: &Select,
    sql: &str,
) -> Result<View, syn::Error> {
    let mut nest = Nest {
        spans,
        tables,
        declared,
        top: name.value.to_lowercase(),
        pieces: Vec::new(),
        named: Vec::new(),
        joined_in: Vec::new(),
        // A view that forces a strategy has opted in to its cost: its
        // pieces may take any strategy the cost model picks.
        piece_options: ViewOptions {
            updates: options.updates.clone(),
            deletes: options.deletes.clone(),
            strategy: None,
            allow_intractable: options.allow_intractable || options.strategy.is_some(),
        },
    };
    let deletes = options.updates.as_deref() != Some("insert_only");
    let (mut view, _) = nest.lower(name, options, select, sql)?;
    view.deletes = deletes;
    // The view's SQL is whole with the views it reads declared before it.
    let mut statements: Vec<&str> = nest
        .pieces
        .iter()
        .filter_map(|p| p.of_view.as_ref())
        .filter_map(|v| declared.iter().find(|d| d.name == *v))
        .map(|d| d.sql.as_str())
        .collect();
    if !statements.is_empty() {
        statements.push(sql);
        view.wrapper.sql = statements.join(";\n");
    }
    view.pieces = nest
        .pieces
        .into_iter()
        .map(|p| View {
            feeds: p.feeds,
            ..p.view
        })
        .collect();
    Ok(view)
}

impl Nest<'_> {
    /// Lowers one SELECT (the view's or a piece's): its pieces first,
    /// then the SELECT over them. Also says whether it takes deletes.
    fn lower(
        &mut self,
        name: &SqlIdent,
        mut options: ViewOptions,
        select: &Select,
        sql: &str,
    ) -> Result<(View, bool), syn::Error> {
        let mut select = select.clone();
        let mut reads = Vec::new();
        if let Some(selection) = select.selection.take() {
            let mut conjuncts = Vec::new();
            ast::split_and(selection, &mut conjuncts);
            select.selection = and_all(conjuncts.into_iter().flat_map(ast::factor_or).collect());
        }
        if let Some(having) = select.having.take() {
            select = self
                .split_having(select, having)
                .map_err(|e| self.error(e))?;
        }
        inline_constant_tables(&mut select, self.tables).map_err(|e| self.error(e))?;
        self.rewrite_quantified(&mut select)?;
        self.rewrite_theta_exists(&mut select)?;
        self.rewrite_distinct_aggregates(&mut select, &mut reads)?;
        self.rewrite_from(&mut select, &mut reads)?;
        self.rewrite_using(&mut select)?;
        self.rewrite_distinct(&mut select)?;
        if select.selection.as_ref().is_some_and(ast::has_subquery) || self.reads_joined_in(&select)
        {
            self.expand_wildcards(&mut select);
        }
        self.rewrite_outer_join(&mut select, &mut reads)?;
        self.rewrite_where(&mut select, &mut reads)?;
        self.rewrite_aggregated_scalar(&mut select, &mut reads)?;
        no_subquery_elsewhere(&select).map_err(|e| self.error(e))?;
        // A reader of a piece whose rows leave takes deletes, whatever
        // the view's own updates are.
        if reads.iter().any(|&p| self.pieces[p].retracts) {
            options.updates = Some("insert_delete".to_string());
        }
        let deletes = options.updates.as_deref() != Some("insert_only");
        let mut tables = self.tables.to_vec();
        tables.extend(self.pieces.iter().map(|p| p.table.clone()));
        let (item, wrapper) = lower::view(self.spans, &tables, name, options, &select, sql)?;
        let view = View {
            item,
            wrapper,
            pieces: Vec::new(),
            deletes,
            feeds: None,
        };
        Ok((view, deletes))
    }

    fn error(&self, (loc, message): Failure) -> syn::Error {
        self.spans.error(loc, message)
    }

    /// Lowers `select` as a new piece named `<view>_<base>`, read as a
    /// table; its index.
    fn piece(
        &mut self,
        base: &str,
        select: &Select,
        loc: Loc,
        of_view: Option<&str>,
    ) -> Result<usize, syn::Error> {
        let name = self.fresh(base);
        // Taken now: the pieces this one reads are named while it is
        // lowered.
        self.named.push(name.clone());
        let ident = SqlIdent::with_span(loc, name.clone());
        let sql = format!("{select}");
        let (view, deletes) = self.lower(&ident, self.piece_options.clone(), select, &sql)?;
        let shape = view.wrapper.shape;
        let table = Table {
            name: name.clone(),
            keys: group_key(&view.wrapper).into_iter().collect(),
            columns: view
                .wrapper
                .fields
                .iter()
                .map(|f| (f.name.to_string(), f.value.ty, f.value.nullable))
                .collect(),
        };
        self.pieces.push(Piece {
            name,
            view,
            table,
            of_view: of_view.map(str::to_string),
            retracts: deletes || shape != ViewShape::Bag,
            feeds: None,
        });
        Ok(self.pieces.len() - 1)
    }

    /// `<view>_<base>`, or with a number where that names a table, a
    /// view or a piece already.
    fn fresh(&self, base: &str) -> String {
        let taken = |n: &str| {
            self.tables.iter().any(|t| t.name == n)
                || self.declared.iter().any(|d| d.name == n)
                || self.pieces.iter().any(|p| p.name == n)
                || self.named.iter().any(|p| p == n)
                || n == self.top
        };
        let stem = format!("{}_{}", self.top, lower::sanitize(base));
        let mut name = stem.clone();
        let mut n = 2;
        while taken(&name) {
            name = format!("{stem}{n}");
            n += 1;
        }
        name
    }

    /// The FROM items: a derived table or a declared view becomes a
    /// piece, named by its alias.
    fn rewrite_from(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        for from in &mut select.from {
            self.rewrite_item(&mut from.relation, reads)?;
            for join in &mut from.joins {
                self.rewrite_item(&mut join.relation, reads)?;
            }
        }
        Ok(())
    }

    fn rewrite_item(
        &mut self,
        factor: &mut TableFactor,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        let loc = factor.span();
        match factor {
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                ..
            } => {
                if *lateral {
                    return Err(self.spans.error(loc, "LATERAL is not supported"));
                }
                let Some(alias) = alias else {
                    return Err(self.spans.error(
                        loc,
                        "a derived table needs an alias: write `(SELECT ..) AS t`",
                    ));
                };
                let alias_name = alias.name.clone();
                let base = alias_name.value.to_lowercase();
                let p = if alias.columns.is_empty() {
                    self.derived_piece(subquery, &base, loc, reads)?
                } else {
                    // `AS t (a, b)` names the select items, in order.
                    let mut inner = plain_select(subquery).map_err(|e| self.error(e))?.clone();
                    let names: Vec<SqlIdent> =
                        alias.columns.iter().map(|c| c.name.clone()).collect();
                    name_items(&mut inner, &names, "the derived table")
                        .map_err(|e| self.error(e))?;
                    self.piece(&base, &inner, loc, None)?
                };
                reads.push(p);
                *factor = table_factor(&self.pieces[p].name, alias_name, loc);
            }
            TableFactor::Table { name, alias, .. } => {
                let n = name.to_string().to_lowercase();
                if let Some(p) = self.pieces.iter().position(|p| p.name == n) {
                    reads.push(p);
                    return Ok(());
                }
                if self.tables.iter().any(|t| t.name == n) {
                    return Ok(());
                }
                let Some(declared) = self.declared.iter().find(|d| d.name == n) else {
                    return Ok(());
                };
                if declared.window.is_some() {
                    return Err(self.spans.error(
                        loc,
                        format!("view `{n}` keeps a window of its rows (LIMIT or OFFSET), which a view that reads it would not see: declare the window on the view that reads it, or drop it from `{n}`"),
                    ));
                }
                let p = match self
                    .pieces
                    .iter()
                    .position(|p| p.of_view.as_deref() == Some(n.as_str()))
                {
                    Some(p) => p,
                    None => {
                        let select = declared.select.clone();
                        self.piece(&n, &select, loc, Some(&n))?
                    }
                };
                reads.push(p);
                if alias.is_none() {
                    *alias = Some(table_alias(SqlIdent::with_span(loc, n)));
                }
                *name = object_name(&self.pieces[p].name, loc);
            }
            _ => {}
        }
        Ok(())
    }

    /// WHERE: each scalar subquery becomes a piece joined in FROM, and an
    /// `IN`/`EXISTS` subquery that aggregates or nests a semijoin over a
    /// piece.
    fn rewrite_where(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        let Some(selection) = select.selection.take() else {
            return Ok(());
        };
        let mut conjuncts = Vec::new();
        split_and(selection, &mut conjuncts);
        let mut out = Vec::new();
        for mut conjunct in conjuncts {
            // A subquery without FROM is constant: its value is written in.
            if let Some((negated, lhs, query)) = as_semijoin(&conjunct)
                && let Some(constant) = constant_select(query).map_err(|e| self.error(e))?
            {
                let loc = conjunct.span();
                out.push(
                    constant
                        .semijoin(negated, lhs, loc)
                        .map_err(|e| self.error(e))?,
                );
                continue;
            }
            // `x IN (SELECT <aggregate> ..)` without GROUP BY: the subquery
            // has one value (per correlation), and IN is `=`.
            if let Some((false, Some(lhs), query)) = as_semijoin(&conjunct)
                && is_scalar(query)
            {
                conjunct = equal(lhs, Expr::Subquery(Box::new(query.clone())));
            }
            if let Some((negated, lhs, query)) = as_semijoin(&conjunct)
                && (needs_piece(query) || negated && self.correlates_twice(lhs.as_ref(), query))
            {
                let loc = conjunct.span();
                let replaced = self.semijoin(negated, lhs, query, loc, reads)?;
                out.push(replaced);
                continue;
            }
            let mut found = Vec::new();
            take_scalars(&mut conjunct, true, &mut found);
            for (slot, query, strict) in found {
                let loc = query.span();
                if let Some(constant) = constant_select(&query).map_err(|e| self.error(e))? {
                    let (value, condition) = constant.scalar(loc).map_err(|e| self.error(e))?;
                    if !strict && condition.is_some() {
                        return Err(self.spans.error(
                            loc,
                            "this scalar subquery is NULL where its WHERE is false, and NULL under OR, CASE or IS NULL is not supported yet",
                        ));
                    }
                    replace_slot(&mut conjunct, slot, value);
                    out.extend(condition);
                    continue;
                }
                let scalar = self.scalar(&query, loc, reads)?;
                if !strict && scalar.correlated {
                    return Err(self.spans.error(
                        loc,
                        "this correlated scalar subquery is NULL for an outer row that it matches no row of, and there its nested view has no row to join: under OR, CASE or IS NULL that needs an outer join, which is not supported yet; compare it in a condition of its own (`x < (SELECT ..)`)",
                    ));
                }
                replace_slot(&mut conjunct, slot, scalar.value);
                select.from.push(TableWithJoins {
                    relation: scalar.factor,
                    joins: Vec::new(),
                });
                out.extend(scalar.correlation);
            }
            out.push(conjunct);
        }
        select.selection = and_all(out);
        Ok(())
    }

    /// Scalar subqueries in the select list. An uncorrelated one is a
    /// piece of exactly one row (its value NULL or not), joined in
    /// wherever it is read; where a grouped view reads it outside its
    /// aggregates, it joins the GROUP BY (one row: no group splits). A
    /// correlated one is joined in as in WHERE, which is exact only
    /// inside the aggregates of a view without GROUP BY (`SELECT SUM(b *
    /// (SELECT SUM(a) FROM r WHERE r.k = s.k)) FROM s`) whose every select
    /// item aggregates an argument that reads it (SUM, AVG, MIN or MAX,
    /// under arithmetic): a row whose subquery matches nothing adds
    /// nothing to any of them, as in SQL, and the one row is NULL when
    /// none is left.
    fn rewrite_aggregated_scalar(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        let mut found = Vec::new();
        for item in &mut select.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
                take_scalars(e, true, &mut found);
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        // Each subquery once, however often it is written.
        let mut distinct: Vec<(String, Vec<usize>, Query)> = Vec::new();
        for (slot, query, _) in found {
            let text = query.to_string();
            match distinct.iter_mut().find(|d| d.0 == text) {
                Some(d) => d.1.push(slot),
                None => distinct.push((text, vec![slot], query)),
            }
        }
        let strictly = distinct.len() == 1
            && group_by_is_empty(select)
            && select.projection.iter().all(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    aggregates_strictly(e, &is_slot)
                }
                _ => false,
            });
        let mut conjuncts: Vec<Expr> = select.selection.take().into_iter().collect();
        let mut outer_joined = false;
        for (_, slots, query) in &distinct {
            let loc = query.span();
            let scalar = self.scalar_in(query, loc, reads, true)?;
            if scalar.correlated && (!strictly || scalar.counts) {
                // An outer row that matches nothing keeps its row, with
                // NULL (or a count of 0): an outer join of the piece.
                if outer_joined {
                    return Err(self.spans.error(
                        loc,
                        "a second correlated scalar subquery in the select list would need a second outer join, which is not supported yet",
                    ));
                }
                outer_joined = true;
                for slot in slots {
                    replace_in_projection(select, *slot, &scalar.value);
                }
                let last = select.from.last_mut().expect("a FROM item");
                last.joins.push(sqlparser::ast::Join {
                    relation: scalar.factor,
                    global: false,
                    join_operator: sqlparser::ast::JoinOperator::LeftOuter(
                        sqlparser::ast::JoinConstraint::On(
                            and_all(scalar.correlation).expect("a correlated subquery"),
                        ),
                    ),
                });
                continue;
            }
            for slot in slots {
                for item in &mut select.projection {
                    if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } =
                        item
                    {
                        replace_slot(e, *slot, scalar.value.clone());
                    }
                }
            }
            if !scalar.correlated {
                self.group_by_value(select, &scalar.value, loc)?;
            }
            select.from.push(TableWithJoins {
                relation: scalar.factor,
                joins: Vec::new(),
            });
            conjuncts.extend(scalar.correlation);
        }
        select.selection = and_all(conjuncts);
        if outer_joined {
            self.rewrite_outer_join(select, reads)?;
        }
        Ok(())
    }

    /// Where the select list reads an uncorrelated scalar subquery's
    /// `value` outside its aggregates: a grouped view groups by it too (one
    /// row, so no group splits); a view without GROUP BY that aggregates
    /// cannot.
    fn group_by_value(
        &self,
        select: &mut Select,
        value: &Expr,
        loc: Loc,
    ) -> Result<(), syn::Error> {
        let outside = select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                outside_aggregates(e, value)
            }
            _ => false,
        });
        if !outside {
            return Ok(());
        }
        let aggregates = select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                lower::has_aggregate(e)
            }
            _ => false,
        });
        match &mut select.group_by {
            GroupByExpr::Expressions(exprs, _) if !exprs.is_empty() => {
                exprs.push(value.clone());
                Ok(())
            }
            _ if !aggregates => Ok(()),
            _ => Err(self.spans.error(
                loc,
                "a scalar subquery outside the aggregates of a view without GROUP BY is not supported: read it inside one (`MAX(..)`)",
            )),
        }
    }

    /// A scalar subquery as a piece grouped by its correlated columns.
    fn scalar(
        &mut self,
        query: &Query,
        loc: Loc,
        reads: &mut Vec<usize>,
    ) -> Result<Scalar, syn::Error> {
        self.scalar_in(query, loc, reads, false)
    }

    /// [`scalar`](Self::scalar), where `outer_join` says whether an outer
    /// join will read it (the select list's), so that a correlated `COUNT`
    /// can be read as 0 where nothing matches.
    fn scalar_in(
        &mut self,
        query: &Query,
        loc: Loc,
        reads: &mut Vec<usize>,
        outer_join: bool,
    ) -> Result<Scalar, syn::Error> {
        let mut inner = plain_select(query).map_err(|e| self.error(e))?.clone();
        if !group_by_is_empty(&inner) || inner.having.is_some() {
            return Err(self.spans.error(
                loc,
                "a scalar subquery with GROUP BY or HAVING is not supported: it must compute one aggregate over the rows it matches",
            ));
        }
        let value = match inner.projection.as_slice() {
            [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }]
                if lower::has_aggregate(e) =>
            {
                e.clone()
            }
            _ => {
                return Err(self.spans.error(
                    loc,
                    "a scalar subquery selects one aggregate (SUM, COUNT, AVG, MIN or MAX, or arithmetic over them)",
                ));
            }
        };
        let mut inner_reads = Vec::new();
        self.rewrite_from(&mut inner, &mut inner_reads)?;
        let scope = self.scope(&inner);
        if let Some(r) = column_refs(&value).into_iter().find(|r| !scope.owns(r)) {
            return Err(self.spans.error(
                ident_loc(&r),
                "a scalar subquery's value may read only its own FROM items' columns",
            ));
        }
        let correlation = self.correlate(&mut inner, &scope)?;
        let counted = is_count(&value);
        if !(correlation.is_empty() || null_when_empty(&value) || outer_join && counted) {
            return Err(self.spans.error(
                loc,
                "a correlated scalar subquery whose value is not NULL when no row matches (a COUNT) is supported in the select list, as a bare COUNT; elsewhere it needs an outer join, which is not supported there yet",
            ));
        }
        let mut projection = Vec::new();
        let mut keys = Vec::new();
        for (i, (own, _)) in correlation.iter().enumerate() {
            projection.push(SelectItem::ExprWithAlias {
                expr: own.clone(),
                alias: SqlIdent::with_span(loc, key_column(i)),
            });
            keys.push(own.clone());
        }
        projection.push(SelectItem::ExprWithAlias {
            expr: value,
            alias: SqlIdent::with_span(loc, VALUE),
        });
        inner.projection = projection;
        inner.group_by = GroupByExpr::Expressions(keys, Vec::new());
        let p = self.piece("sq", &inner, loc, None)?;
        reads.push(p);
        let alias = self.pieces[p].name.clone();
        let column = |c: &str| qualified(&alias, c, loc);
        let correlation: Vec<Expr> = correlation
            .into_iter()
            .enumerate()
            .map(|(i, (_, outer))| equal(column(&key_column(i)), outer))
            .collect();
        let value = if counted && !correlation.is_empty() {
            // Where nothing matches, the outer join's NULL is a count of 0.
            coalesce_zero(column(VALUE), loc)
        } else {
            column(VALUE)
        };
        Ok(Scalar {
            factor: table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc),
            value,
            counts: counted && !correlation.is_empty(),
            correlation,
            correlated: grouped(&self.pieces[p]),
        })
    }

    /// Takes the correlated conjuncts out of `inner`'s WHERE: each an
    /// equality of one of its columns with an expression over the outer
    /// query's; any other reference to the outer query is an error.
    fn correlate(
        &self,
        inner: &mut Select,
        scope: &Scope,
    ) -> Result<Vec<(Expr, Expr)>, syn::Error> {
        let mut correlation = Vec::new();
        let mut own = Vec::new();
        if let Some(selection) = inner.selection.take() {
            let mut conjuncts = Vec::new();
            split_and(selection, &mut conjuncts);
            for c in conjuncts {
                let refs = column_refs(&c);
                if refs.iter().all(|r| scope.owns(r)) {
                    own.push(c);
                    continue;
                }
                let pair = match &c {
                    Expr::BinaryOp {
                        left,
                        op: BinaryOperator::Eq,
                        right,
                    } => {
                        let inner_side = |e: &Expr| column_ref(e).is_some_and(|r| scope.owns(&r));
                        let outer_side = |e: &Expr| column_refs(e).iter().all(|r| !scope.owns(r));
                        if inner_side(left) && outer_side(right) {
                            Some(((**left).clone(), (**right).clone()))
                        } else if inner_side(right) && outer_side(left) {
                            Some(((**right).clone(), (**left).clone()))
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                match pair {
                    Some(pair) => correlation.push(pair),
                    None => {
                        return Err(self.spans.error(
                            c.span(),
                            "a subquery's condition on the outer query's columns other than an equality with its own column is not supported: correlate with `inner.col = outer.col`",
                        ));
                    }
                }
            }
        }
        inner.selection = and_all(own);
        Ok(correlation)
    }

    /// An `IN` or `EXISTS` subquery that aggregates or nests: a piece
    /// that selects its value (for `IN`) and its correlated columns, and
    /// the semijoin over it that replaces the conjunct.
    fn semijoin(
        &mut self,
        negated: bool,
        lhs: Option<Expr>,
        query: &Query,
        loc: Loc,
        reads: &mut Vec<usize>,
    ) -> Result<Expr, syn::Error> {
        let mut inner = plain_select(query).map_err(|e| self.error(e))?.clone();
        let aggregates = inner.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                lower::has_aggregate(e)
            }
            _ => false,
        });
        let grouped = !group_by_is_empty(&inner);
        if aggregates && !grouped && (lhs.is_none() || negated) {
            return Err(self.spans.error(
                loc,
                if lhs.is_none() {
                    "EXISTS over an aggregate without GROUP BY is always true: drop the subquery"
                } else {
                    "NOT IN over an aggregate that is NULL when no row matches is not supported until NULLs are"
                },
            ));
        }
        let mut inner_reads = Vec::new();
        self.rewrite_from(&mut inner, &mut inner_reads)?;
        let scope = self.scope(&inner);
        let correlation = self.correlate(&mut inner, &scope)?;
        let mut projection = Vec::new();
        if lhs.is_some() {
            let [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }] =
                inner.projection.as_slice()
            else {
                return Err(self
                    .spans
                    .error(loc, "the subquery of IN selects one column"));
            };
            projection.push(SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: SqlIdent::with_span(loc, VALUE),
            });
        }
        let mut keys = Vec::new();
        for (i, (own, _)) in correlation.iter().enumerate() {
            projection.push(SelectItem::ExprWithAlias {
                expr: own.clone(),
                alias: SqlIdent::with_span(loc, key_column(i)),
            });
            keys.push(own.clone());
        }
        if projection.is_empty() {
            // An uncorrelated EXISTS asks whether the piece has a row.
            projection.push(SelectItem::ExprWithAlias {
                expr: Expr::value(sqlparser::ast::Value::Boolean(true)),
                alias: SqlIdent::with_span(loc, "nested_present"),
            });
        }
        inner.projection = projection;
        if (grouped || aggregates)
            && let GroupByExpr::Expressions(exprs, _) = &mut inner.group_by
        {
            exprs.extend(keys);
        }
        let p = self.piece("semijoin", &inner, loc, None)?;
        reads.push(p);
        Ok(semijoin_over(
            &self.pieces[p].name,
            correlation,
            lhs,
            negated,
            loc,
        ))
    }

    /// `.. GROUP BY g HAVING c` as a bag over a piece that keeps every
    /// group with its select items and what `c` reads.
    fn split_having(&mut self, mut select: Select, having: Expr) -> Result<Select, Failure> {
        let mut names: Vec<String> = Vec::new();
        let mut projection = Vec::new();
        for (i, item) in select.projection.iter().enumerate() {
            let (e, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => {
                    (expr, Some(alias.value.to_lowercase()))
                }
                other => {
                    return Err((
                        other.span(),
                        "write the select items out in a view with HAVING".to_string(),
                    ));
                }
            };
            let base = alias.unwrap_or_else(|| lower::default_name(e, i));
            let name = lower::fresh(lower::sanitize(&base), &mut names);
            projection.push(SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: SqlIdent::with_span(e.span(), name),
            });
        }
        let keys: Vec<Expr> = match &select.group_by {
            GroupByExpr::Expressions(exprs, _) => exprs.clone(),
            GroupByExpr::All(_) => Vec::new(),
        };
        let loc = having.span();
        let alias = "grouped".to_string();
        let mut condition = having;
        let mut extra = Vec::new();
        having_reads(
            &mut condition,
            &keys,
            &projection,
            &mut names,
            &mut extra,
            &alias,
        )?;
        let outputs: Vec<String> = projection
            .iter()
            .map(|item| match item {
                SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                _ => unreachable!("every item is named"),
            })
            .collect();
        projection.extend(extra);
        select.projection = projection;
        let mut inner = select;
        inner.having = None;
        // The piece is lowered when the reader's FROM is rewritten.
        let mut outer = snippet_select("SELECT 1 FROM t AS t", loc);
        outer.from[0].relation = TableFactor::Derived {
            lateral: false,
            subquery: Box::new(query_of(inner)),
            alias: Some(table_alias(SqlIdent::with_span(loc, alias.clone()))),
            sample: None,
        };
        outer.projection = outputs
            .iter()
            .map(|name| SelectItem::ExprWithAlias {
                expr: qualified(&alias, name, loc),
                alias: SqlIdent::with_span(loc, name.clone()),
            })
            .collect();
        outer.selection = Some(condition);
        Ok(outer)
    }

    /// Whether `select`'s FROM holds a piece a rewrite joined in.
    fn reads_joined_in(&self, select: &Select) -> bool {
        let scope = self.scope(select);
        scope.items.iter().any(|(a, _)| self.joined_in.contains(a))
    }

    /// Whether a `NOT EXISTS` or `NOT IN` subquery equates one of its
    /// columns with two of the outer query's (`y.a = x.a AND y.a = x.b`).
    /// Lowered as a semijoin, the correlation would unify `x.a` with
    /// `x.b`, keeping only the outer rows where they are equal: right
    /// under EXISTS, wrong under NOT. A piece with a key column per
    /// equality keeps them apart.
    fn correlates_twice(&self, lhs: Option<&Expr>, query: &Query) -> bool {
        let Ok(select) = plain_select(query) else {
            return false;
        };
        let scope = self.scope(select);
        let mut pairs = Vec::new();
        if let (
            Some(lhs),
            [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }],
        ) = (lhs, select.projection.as_slice())
        {
            pairs.push((lhs.clone(), e.clone()));
        }
        let mut conjuncts = Vec::new();
        if let Some(selection) = &select.selection {
            split_and(selection.clone(), &mut conjuncts);
        }
        for c in conjuncts {
            if let Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            } = c
            {
                pairs.push((*left, *right));
            }
        }
        let mut classes = Classes::default();
        for (a, b) in &pairs {
            if let (Some(a), Some(b)) = (column_ref(a), column_ref(b)) {
                let (a, b) = (classes.node(&a, &scope), classes.node(&b, &scope));
                classes.union(a, b);
            }
        }
        classes.some_has_two_outer()
    }

    /// The FROM items of `select` (rewritten), as names resolve in it.
    fn scope(&self, select: &Select) -> Scope {
        let (mut items, mut nullable) = (Vec::new(), Vec::new());
        for from in &select.from {
            for factor in
                std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
            {
                if let TableFactor::Table { name, alias, .. } = factor {
                    let n = name.to_string().to_lowercase();
                    let columns = self
                        .tables
                        .iter()
                        .find(|t| t.name == n)
                        .or_else(|| self.pieces.iter().find(|p| p.name == n).map(|p| &p.table))
                        .map(|t| t.columns.clone())
                        .unwrap_or_default();
                    let alias = alias.as_ref().map_or(n, |a| a.name.value.to_lowercase());
                    for (c, _, _) in columns.iter().filter(|c| c.2) {
                        nullable.push((alias.clone(), c.clone()));
                    }
                    items.push((alias, columns.into_iter().map(|c| c.0).collect()));
                }
            }
        }
        Scope { items, nullable }
    }
}

/// The column of a piece's value (a scalar subquery's, an IN subquery's):
/// a name no view's own column takes, since the piece joins its FROM.
const VALUE: &str = "nested_value";

/// The column of a piece's `i`-th correlated column.
fn key_column(i: usize) -> String {
    format!("nested_key{}", i + 1)
}

/// What a scalar subquery becomes in its reader.
struct Scalar {
    /// The piece as a FROM item.
    factor: TableFactor,
    /// The value's column, in place of the subquery.
    value: Expr,
    /// `piece.k<i> = <outer expression>`, one per correlated column.
    correlation: Vec<Expr>,
    /// Whether it is correlated: its nested view is grouped by the
    /// correlated columns, so an outer row that matches no row of the
    /// subquery has no row to join (where SQL reads NULL). An
    /// uncorrelated one has exactly one row, its value NULL or not.
    correlated: bool,
    /// Whether it is a correlated `COUNT`, 0 where nothing matches: read
    /// through an outer join only, as `COALESCE(value, 0)`.
    counts: bool,
}

/// Whether piece `p` is grouped (a scalar subquery's: by its correlated
/// columns, so that a value with no matching row has no row at all).
fn grouped(p: &Piece) -> bool {
    !p.view.wrapper.key_types.is_empty()
}

/// Names `select`'s items after a column list, in order: a view's
/// (`CREATE VIEW revenue0 (supplier_no, total_revenue)`), a derived
/// table's (`AS c_orders (c_custkey, c_count)`) or the first SELECT's of a
/// UNION; `what` names the list's owner in errors.
pub fn name_items(select: &mut Select, names: &[SqlIdent], what: &str) -> Result<(), Failure> {
    if names.len() != select.projection.len() {
        return Err((
            select.span(),
            format!(
                "{what} names {} columns and selects {} items",
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
                    format!("write the select items out: {what} names them"),
                ));
            }
        };
        *item = SelectItem::ExprWithAlias {
            expr,
            alias: name.clone(),
        };
    }
    Ok(())
}

/// Puts `value` in the select list where scalar subquery `slot` was.
fn replace_in_projection(select: &mut Select, slot: usize, value: &Expr) {
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            replace_slot(e, slot, value.clone());
        }
    }
}

/// Whether a subquery's value is a bare `COUNT(..)`.
fn is_count(e: &Expr) -> bool {
    match e {
        Expr::Nested(e) => is_count(e),
        Expr::Function(f) => f.name.to_string().eq_ignore_ascii_case("count"),
        _ => false,
    }
}

/// `COALESCE(e, 0)`, placed at `loc`.
fn coalesce_zero(e: Expr, loc: Loc) -> Expr {
    let mut select = snippet_select("SELECT COALESCE(x, 0)", loc);
    let SelectItem::UnnamedExpr(Expr::Function(mut f)) = select.projection.remove(0) else {
        unreachable!("COALESCE(x, 0) is a function call")
    };
    if let sqlparser::ast::FunctionArguments::List(list) = &mut f.args
        && let Some(sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
            first,
        ))) = list.args.first_mut()
    {
        *first = e;
    }
    Expr::Function(f)
}

/// Whether `e` reads `target` outside an aggregate.
fn outside_aggregates(e: &Expr, target: &Expr) -> bool {
    if e == target {
        return true;
    }
    if let Expr::Function(f) = e
        && !f.name.to_string().eq_ignore_ascii_case("coalesce")
    {
        return false;
    }
    let mut found = false;
    self::ast::children(e, &mut |child| found |= outside_aggregates(child, target));
    found
}

/// `[NOT] EXISTS (SELECT * FROM piece WHERE piece.nested_key<i> = outer
/// ..)`, or `lhs [NOT] IN (SELECT piece.nested_value FROM piece WHERE
/// ..)`: the semijoin that reads nested view `piece` in place of the
/// subquery.
fn semijoin_over(
    piece: &str,
    correlation: Vec<(Expr, Expr)>,
    lhs: Option<Expr>,
    negated: bool,
    loc: Loc,
) -> Expr {
    let column = |c: &str| qualified(piece, c, loc);
    let mut sub = snippet_select(&format!("SELECT * FROM {piece} AS {piece}"), loc);
    sub.from[0].relation = table_factor(piece, SqlIdent::with_span(loc, piece.to_string()), loc);
    sub.selection = and_all(
        correlation
            .into_iter()
            .enumerate()
            .map(|(i, (_, outer))| equal(column(&key_column(i)), outer))
            .collect(),
    );
    if lhs.is_some() {
        sub.projection = vec![SelectItem::UnnamedExpr(column(VALUE))];
    }
    let subquery = Box::new(query_of(sub));
    match lhs {
        Some(lhs) => Expr::In {
            expr: Box::new(lhs),
            target: InTarget::Subquery(subquery),
            negated,
            global: false,
        },
        None => Expr::Exists { subquery, negated },
    }
}

/// The columns of a grouped piece that hold its GROUP BY key, by index:
/// a key of its rows, since each group is one row (`docs/design.md#keys`).
/// `None` for other pieces, and where a key item is not selected.
fn group_key(view: &crate::sql::SqlView) -> Option<Vec<usize>> {
    if view.shape != ViewShape::Grouped {
        return None;
    }
    (0..view.key_types.len())
        .map(|i| {
            view.fields
                .iter()
                .position(|f| matches!(f.value.value, crate::sql::row::RowValue::Key(k) if k == i))
        })
        .collect()
}

/// The FROM items of one SELECT: each alias with its columns.
struct Scope {
    /// Each FROM item's alias, with its columns.
    items: Vec<(String, Vec<String>)>,
    /// The columns that can be NULL, each with its item's alias.
    nullable: Vec<(String, String)>,
}

impl Scope {
    /// Whether a column reference names one of these items' columns.
    fn owns(&self, r: &[SqlIdent]) -> bool {
        match r {
            [c] => {
                let c = c.value.to_lowercase();
                self.items.iter().any(|(_, cols)| cols.contains(&c))
            }
            [t, _] => {
                let t = t.value.to_lowercase();
                self.items.iter().any(|(a, _)| *a == t)
            }
            _ => false,
        }
    }

    /// The alias of the one item with the column an unqualified
    /// reference names; `None` where no item or several have it.
    fn alias_of(&self, r: &[SqlIdent]) -> Option<String> {
        let [c] = r else {
            return None;
        };
        let c = c.value.to_lowercase();
        let mut having = self.items.iter().filter(|(_, cols)| cols.contains(&c));
        match (having.next(), having.next()) {
            (Some((alias, _)), None) => Some(alias.clone()),
            _ => None,
        }
    }

    /// Whether the column a reference names can be NULL; `None` where no
    /// item of the scope has it.
    fn nullable(&self, r: &[SqlIdent]) -> Option<bool> {
        let (item, column) = match r {
            [c] => (None, c.value.to_lowercase()),
            [t, c] => (Some(t.value.to_lowercase()), c.value.to_lowercase()),
            _ => return None,
        };
        let (alias, _) = self
            .items
            .iter()
            .find(|(a, cols)| item.as_ref().is_none_or(|t| t == a) && cols.contains(&column))?;
        Some(self.nullable.contains(&(alias.clone(), column)))
    }
}

/// Column references of a subquery's equalities in classes of equal ones
/// (union-find), each reference by its text and whether it is the
/// subquery's own.
#[derive(Default)]
struct Classes {
    nodes: Vec<(String, bool)>,
    parent: Vec<usize>,
}

impl Classes {
    fn node(&mut self, r: &[SqlIdent], scope: &Scope) -> usize {
        let text = r
            .iter()
            .map(|i| i.value.to_lowercase())
            .collect::<Vec<_>>()
            .join(".");
        if let Some(i) = self.nodes.iter().position(|(t, _)| *t == text) {
            return i;
        }
        self.nodes.push((text, scope.owns(r)));
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }

    fn root(&self, mut i: usize) -> usize {
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        self.parent[a] = b;
    }

    /// Whether a class holds two outer references (by text: `x.a` and `a`
    /// count as two, which only costs a piece where none was needed).
    fn some_has_two_outer(&self) -> bool {
        let outer: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].1)
            .collect();
        outer
            .iter()
            .enumerate()
            .any(|(k, &i)| outer[k + 1..].iter().any(|&j| self.root(i) == self.root(j)))
    }
}

/// The SELECT of a subquery: one block, without WITH, ORDER BY or LIMIT.
fn plain_select(query: &Query) -> Result<&Select, Failure> {
    if query.with.is_some()
        || query.order_by.is_some()
        || query.limit_clause.is_some()
        || query.fetch.is_some()
    {
        return Err((
            query.span(),
            "WITH, ORDER BY and LIMIT are not supported in a subquery: its rows are a set to the query that reads it; order and limit the view itself".to_string(),
        ));
    }
    match &*query.body {
        SetExpr::Select(select) => Ok(select),
        other => Err((other.span(), "a subquery is one SELECT block".to_string())),
    }
}

fn group_by_is_empty(select: &Select) -> bool {
    matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
}

/// Whether a subquery computes one aggregate without GROUP BY: one value.
fn is_scalar(query: &Query) -> bool {
    let SetExpr::Select(select) = &*query.body else {
        return false;
    };
    matches!(
        select.projection.as_slice(),
        [SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }]
            if lower::has_aggregate(e)
    ) && group_by_is_empty(select)
        && select.having.is_none()
}

/// Whether an `IN` or `EXISTS` subquery needs a piece: it aggregates,
/// groups, or reads a derived table, a view or a subquery of its own.
fn needs_piece(query: &Query) -> bool {
    let SetExpr::Select(select) = &*query.body else {
        return false;
    };
    let aggregates = select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            lower::has_aggregate(e)
        }
        _ => false,
    });
    let nested_from = select.from.iter().any(|f| {
        std::iter::once(&f.relation)
            .chain(f.joins.iter().map(|j| &j.relation))
            .any(|r| !matches!(r, TableFactor::Table { .. }))
    });
    let nested_where = select.selection.as_ref().is_some_and(has_subquery);
    aggregates
        || !group_by_is_empty(select)
        || select.having.is_some()
        || nested_from
        || nested_where
}

/// A select list, GROUP BY or ON condition may not hold a scalar
/// subquery yet.
fn no_subquery_elsewhere(select: &Select) -> Result<(), Failure> {
    let items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    let keys = match &select.group_by {
        GroupByExpr::Expressions(exprs, _) => exprs.iter().collect(),
        GroupByExpr::All(_) => Vec::new(),
    };
    for e in items.chain(keys) {
        if has_subquery(e) {
            return Err((
                e.span(),
                "a subquery in the select list or GROUP BY is not supported yet: it is NULL where no row matches, which needs SQL's NULL; compare it in WHERE, or join a derived table".to_string(),
            ));
        }
    }
    Ok(())
}

/// Whether a subquery's value is NULL when it matches no row: every
/// aggregate but COUNT is, and arithmetic over a NULL is NULL.
fn null_when_empty(e: &Expr) -> bool {
    match e {
        Expr::Function(f) => !f.name.to_string().eq_ignore_ascii_case("count"),
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } => null_when_empty(e),
        Expr::BinaryOp { left, right, .. } => null_when_empty(left) || null_when_empty(right),
        _ => false,
    }
}

/// `HAVING`'s condition over the piece `alias`: each aggregate call a
/// column of its own (added to `extra`), a GROUP BY expression or a
/// select item's alias the piece's column.
fn having_reads(
    e: &mut Expr,
    keys: &[Expr],
    projection: &[SelectItem],
    names: &mut Vec<String>,
    extra: &mut Vec<SelectItem>,
    alias: &str,
) -> Result<(), Failure> {
    let loc = e.span();
    let column = |name: &str| qualified(alias, name, loc);
    let text = e.to_string().to_lowercase();
    // A select item written the same way is read from its column.
    for item in projection {
        if let SelectItem::ExprWithAlias { expr, alias: name } = item
            && (expr.to_string().to_lowercase() == text
                || matches!(e, Expr::Identifier(id) if id.value.eq_ignore_ascii_case(&name.value)))
        {
            *e = column(&name.value);
            return Ok(());
        }
    }
    let is_key = keys.iter().any(|k| k.to_string().to_lowercase() == text);
    if matches!(e, Expr::Function(_)) || is_key {
        let name = lower::fresh(
            if is_key {
                "having_key".into()
            } else {
                "having_value".into()
            },
            names,
        );
        extra.push(SelectItem::ExprWithAlias {
            expr: e.clone(),
            alias: SqlIdent::with_span(loc, name.clone()),
        });
        *e = column(&name);
        return Ok(());
    }
    match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Err((
            loc,
            format!("HAVING reads `{e}`, which is neither a GROUP BY column nor in an aggregate"),
        )),
        Expr::Subquery(_) => Ok(()),
        _ => {
            let mut result = Ok(());
            children_mut(e, &mut |child| {
                if result.is_ok() {
                    result = having_reads(child, keys, projection, names, extra, alias);
                }
            });
            result
        }
    }
}
