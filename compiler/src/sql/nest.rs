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
//! SQL's NULL is not supported yet (`docs/design.md#nested-sql`): a
//! scalar subquery that matches no row, and an aggregate of a piece
//! without GROUP BY and without rows, are NULL. A reader may read such a
//! value only where NULL rejects its row (a comparison in a conjunct of
//! WHERE, arithmetic under it), and the piece's row then reaches it only
//! while the value is not NULL: exact, since SQL would drop the row too.

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident as SqlIdent, InTarget, ObjectName, ObjectNamePart,
    Query, Select, SelectItem, SetExpr, Spanned, TableAlias, TableFactor, TableWithJoins,
    UnaryOperator,
};
use sqlparser::tokenizer::Span as Loc;

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
    /// Whether the piece has no GROUP BY but aggregates: its one row's
    /// aggregates are NULL while it has no rows.
    nullable: Vec<bool>,
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
        // A view that forces a strategy has opted in to its cost: its
        // pieces may take any strategy the cost model picks.
        piece_options: ViewOptions {
            updates: options.updates.clone(),
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
    view.pieces = nest.pieces.into_iter().map(|p| p.view).collect();
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
        if let Some(having) = select.having.take() {
            select = self
                .split_having(select, having)
                .map_err(|e| self.error(e))?;
        }
        inline_constant_tables(&mut select, self.tables).map_err(|e| self.error(e))?;
        self.rewrite_from(&mut select, &mut reads)?;
        self.rewrite_where(&mut select, &mut reads)?;
        self.rewrite_aggregated_scalar(&mut select, &mut reads)?;
        no_subquery_elsewhere(&select).map_err(|e| self.error(e))?;
        self.check_nullable_reads(&select, &reads)
            .map_err(|e| self.error(e))?;
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
        let ident = SqlIdent::with_span(loc, name.clone());
        let sql = format!("{select}");
        let (view, deletes) = self.lower(&ident, self.piece_options.clone(), select, &sql)?;
        let shape = view.wrapper.shape;
        let table = Table {
            name: name.clone(),
            columns: view
                .wrapper
                .fields
                .iter()
                .map(|f| (f.name.to_string(), f.value.ty))
                .collect(),
        };
        let nullable = view
            .wrapper
            .fields
            .iter()
            .map(|f| f.nulls.nullable())
            .collect();
        self.pieces.push(Piece {
            name,
            view,
            table,
            of_view: of_view.map(str::to_string),
            retracts: deletes || shape != ViewShape::Bag,
            nullable,
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
                if !alias.columns.is_empty() {
                    return Err(self.spans.error(
                        alias.name.span,
                        "column names after a derived table's alias are not supported: name the subquery's select items with AS",
                    ));
                }
                let inner = plain_select(subquery).map_err(|e| self.error(e))?.clone();
                let alias_name = alias.name.clone();
                let p = self.piece(&alias_name.value.to_lowercase(), &inner, loc, None)?;
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
                && needs_piece(query)
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
                if !strict && scalar.nullable {
                    return Err(self.spans.error(
                        loc,
                        "this scalar subquery is NULL when no row matches, and NULL under OR, CASE or IS NULL is not supported yet: compare it in a condition of its own (`x < (SELECT ..)`)",
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

    /// A scalar subquery inside the aggregates of a view without GROUP
    /// BY (`SELECT SUM(b * (SELECT SUM(a) FROM r WHERE r.k = s.k)) FROM
    /// s`): joined in as in WHERE, which is exact where every select item
    /// aggregates an argument that reads it (SUM, AVG, MIN or MAX, under
    /// arithmetic): a row whose subquery is NULL adds nothing to any of
    /// them, as in SQL, and the one row is NULL when none is left.
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
        let loc = found[0].1.span();
        let one = found
            .iter()
            .all(|f| f.1.to_string() == found[0].1.to_string());
        let exact = group_by_is_empty(select)
            && one
            && select.projection.iter().all(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    aggregates_strictly(e, &is_slot)
                }
                _ => false,
            });
        if !exact {
            return Err(self.spans.error(
                loc,
                "a scalar subquery in the select list is supported only inside the aggregates (SUM, AVG, MIN, MAX, under arithmetic) of a view without GROUP BY whose every select item reads that one subquery: elsewhere it is NULL where no row matches, which needs SQL's NULL",
            ));
        }
        let query = found[0].1.clone();
        let scalar = self.scalar(&query, loc, reads)?;
        for (slot, ..) in &found {
            for item in &mut select.projection {
                if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item
                {
                    replace_slot(e, *slot, scalar.value.clone());
                }
            }
        }
        select.from.push(TableWithJoins {
            relation: scalar.factor,
            joins: Vec::new(),
        });
        let mut conjuncts: Vec<Expr> = select.selection.take().into_iter().collect();
        conjuncts.extend(scalar.correlation);
        select.selection = and_all(conjuncts);
        Ok(())
    }

    /// A scalar subquery as a piece grouped by its correlated columns.
    fn scalar(
        &mut self,
        query: &Query,
        loc: Loc,
        reads: &mut Vec<usize>,
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
        if !correlation.is_empty() && !null_when_empty(&value) {
            return Err(self.spans.error(
                loc,
                "a correlated scalar subquery whose value is not NULL when no row matches (a COUNT) is not supported yet: it needs an outer join",
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
        let correlation = correlation
            .into_iter()
            .enumerate()
            .map(|(i, (_, outer))| equal(column(&key_column(i)), outer))
            .collect();
        Ok(Scalar {
            factor: table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc),
            value: column(VALUE),
            correlation,
            nullable: *self.pieces[p].nullable.last().unwrap_or(&false) || grouped(&self.pieces[p]),
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
        if negated && self.pieces[p].nullable.first().copied().unwrap_or(false) {
            return Err(self.spans.error(
                loc,
                "NOT IN over a value that can be NULL is not supported until NULLs are",
            ));
        }
        let alias = self.pieces[p].name.clone();
        let column = |c: &str| qualified(&alias, c, loc);
        let mut sub = snippet_select(&format!("SELECT * FROM {alias} AS {alias}"), loc);
        sub.from[0].relation = table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc);
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
        Ok(match lhs {
            Some(lhs) => Expr::In {
                expr: Box::new(lhs),
                target: InTarget::Subquery(subquery),
                negated,
                global: false,
            },
            None => Expr::Exists { subquery, negated },
        })
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

    /// The FROM items of `select` (rewritten), as names resolve in it.
    fn scope(&self, select: &Select) -> Scope {
        let mut items = Vec::new();
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
                        .map(|t| t.columns.iter().map(|c| c.0.clone()).collect())
                        .unwrap_or_default();
                    let alias = alias.as_ref().map_or(n, |a| a.name.value.to_lowercase());
                    items.push((alias, columns));
                }
            }
        }
        Scope { items }
    }

    /// A nullable column of a piece may be read only where NULL rejects
    /// the row: in a conjunct of WHERE, under comparisons and arithmetic.
    fn check_nullable_reads(&self, select: &Select, reads: &[usize]) -> Result<(), Failure> {
        let scope = self.scope(select);
        let mut nullable: Vec<(String, String)> = Vec::new();
        for from in &select.from {
            for factor in
                std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
            {
                let TableFactor::Table { name, alias, .. } = factor else {
                    continue;
                };
                let n = name.to_string().to_lowercase();
                let Some(p) = reads.iter().map(|&p| &self.pieces[p]).find(|p| p.name == n) else {
                    continue;
                };
                let alias = alias
                    .as_ref()
                    .map_or(n.clone(), |a| a.name.value.to_lowercase());
                for (column, _) in p.table.columns.iter().zip(&p.nullable).filter(|(_, n)| **n) {
                    nullable.push((alias.clone(), column.0.clone()));
                }
            }
        }
        if nullable.is_empty() {
            return Ok(());
        }
        let is_nullable = |r: &[SqlIdent]| -> bool {
            match r {
                [c] => {
                    let c = c.value.to_lowercase();
                    nullable.iter().any(|(a, col)| {
                        *col == c
                            && scope
                                .items
                                .iter()
                                .filter(|(_, cols)| cols.contains(&c))
                                .count()
                                == 1
                            && scope
                                .items
                                .iter()
                                .any(|(b, cols)| b == a && cols.contains(&c))
                    })
                }
                [t, c] => nullable
                    .iter()
                    .any(|(a, col)| *a == t.value.to_lowercase() && *col == c.value.to_lowercase()),
                _ => false,
            }
        };
        let fail = |r: &[SqlIdent]| {
            let name = r
                .iter()
                .map(|i| i.value.as_str())
                .collect::<Vec<_>>()
                .join(".");
            Err((
                ident_loc(r),
                format!(
                    "`{name}` is NULL while the subquery it comes from has no rows (an aggregate without GROUP BY), and NULL is not supported yet: read it only in a comparison in WHERE, which drops the row while it is NULL"
                ),
            ))
        };
        // In the select list, only where every item aggregates an argument
        // that NULL makes NULL, in a view without GROUP BY: a row whose
        // value is NULL then adds to no aggregate, as in SQL.
        let reads_nullable = |e: &Expr| column_ref(e).is_some_and(|r| is_nullable(&r));
        let all_strict = group_by_is_empty(select)
            && select.projection.iter().all(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    aggregates_strictly(e, &reads_nullable)
                }
                _ => false,
            });
        for item in &select.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item
                && !all_strict
                && let Some(r) = column_refs(e).into_iter().find(|r| is_nullable(r))
            {
                return fail(&r);
            }
        }
        if let GroupByExpr::Expressions(exprs, _) = &select.group_by {
            for e in exprs {
                if let Some(r) = column_refs(e).into_iter().find(|r| is_nullable(r)) {
                    return fail(&r);
                }
            }
        }
        if let Some(selection) = &select.selection {
            let mut conjuncts = Vec::new();
            split_and(selection.clone(), &mut conjuncts);
            for c in &conjuncts {
                let mut loose = Vec::new();
                non_strict_refs(c, true, &mut loose);
                if let Some(r) = loose.into_iter().find(|r| is_nullable(r)) {
                    return fail(&r);
                }
            }
        }
        Ok(())
    }
}

/// A subquery without FROM: its one row of constants, there where its
/// WHERE holds.
struct Constant {
    /// Its select items.
    values: Vec<Expr>,
    /// Its WHERE.
    condition: Option<Expr>,
}

/// The constant row of a subquery without FROM, if it has none; an error
/// if it aggregates or groups (a FROM-less row counted).
fn constant_select(query: &Query) -> Result<Option<Constant>, Failure> {
    let select = plain_select(query)?;
    if !select.from.is_empty() {
        return Ok(None);
    }
    let mut values = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }
                if !lower::has_aggregate(e) && column_refs(e).is_empty() =>
            {
                values.push(e.clone());
            }
            other => {
                return Err((
                    other.span(),
                    "a SELECT without FROM selects constants (no aggregates, no columns)"
                        .to_string(),
                ));
            }
        }
    }
    if !group_by_is_empty(select) || select.having.is_some() {
        return Err((
            select.span(),
            "a SELECT without FROM has no GROUP BY or HAVING".to_string(),
        ));
    }
    if let Some(c) = &select.selection
        && (!column_refs(c).is_empty() || has_subquery(c))
    {
        return Err((
            c.span(),
            "the WHERE of a SELECT without FROM must be constant".to_string(),
        ));
    }
    Ok(Some(Constant {
        values,
        condition: select.selection.clone(),
    }))
}

impl Constant {
    /// As a scalar: its value, and the condition under which it is not
    /// NULL (its WHERE).
    fn scalar(self, loc: Loc) -> Result<(Expr, Option<Expr>), Failure> {
        let [value] = <[Expr; 1]>::try_from(self.values)
            .map_err(|_| (loc, "a scalar subquery selects one value".to_string()))?;
        Ok((Expr::Nested(Box::new(value)), self.condition))
    }

    /// As the subquery of `EXISTS` or `lhs IN`: its WHERE, and for `IN`
    /// the equality with its value.
    fn semijoin(self, negated: bool, lhs: Option<Expr>, loc: Loc) -> Result<Expr, Failure> {
        let mut conjuncts: Vec<Expr> = self.condition.into_iter().collect();
        if let Some(lhs) = lhs {
            let (value, _) = Constant {
                values: self.values,
                condition: None,
            }
            .scalar(loc)?;
            conjuncts.push(equal(lhs, value));
        }
        let holds = and_all(conjuncts)
            .map(|c| Expr::Nested(Box::new(c)))
            .unwrap_or_else(|| Expr::value(sqlparser::ast::Value::Boolean(true)));
        Ok(if negated {
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr: Box::new(holds),
            }
        } else {
            holds
        })
    }
}

/// A derived table without FROM: its alias, its columns' values and its
/// WHERE.
struct ConstantTable {
    alias: String,
    columns: Vec<(String, Expr)>,
    condition: Option<Expr>,
}

impl ConstantTable {
    /// The derived table `factor` if it has no FROM.
    fn of(factor: &TableFactor) -> Result<Option<ConstantTable>, Failure> {
        let TableFactor::Derived {
            subquery,
            alias: Some(alias),
            ..
        } = factor
        else {
            return Ok(None);
        };
        let Some(constant) = constant_select(subquery)? else {
            return Ok(None);
        };
        let SetExpr::Select(inner) = &*subquery.body else {
            unreachable!("a constant SELECT")
        };
        let columns = inner
            .projection
            .iter()
            .zip(constant.values)
            .enumerate()
            .map(|(i, (item, value))| {
                let name = match item {
                    SelectItem::ExprWithAlias { alias, .. } => alias.value.to_lowercase(),
                    SelectItem::UnnamedExpr(e) => lower::default_name(e, i),
                    _ => String::new(),
                };
                (name, Expr::Nested(Box::new(value)))
            })
            .collect();
        Ok(Some(ConstantTable {
            alias: alias.name.value.to_lowercase(),
            columns,
            condition: constant.condition,
        }))
    }
}

/// Each derived table without FROM (`(SELECT 1 AS x WHERE ..) t`), one
/// row of constants, written into the SELECT: `t.x` (and `x` where no
/// table of the FROM clause has a column `x`) becomes its value, the item
/// leaves FROM, and its WHERE joins the SELECT's.
fn inline_constant_tables(select: &mut Select, tables: &[Table]) -> Result<(), Failure> {
    let mut constants = Vec::new();
    let mut kept = Vec::new();
    for from in std::mem::take(&mut select.from) {
        match ConstantTable::of(&from.relation)? {
            Some(c) if from.joins.is_empty() => constants.push(c),
            _ => kept.push(from),
        }
    }
    select.from = kept;
    if constants.is_empty() {
        return Ok(());
    }
    if select.projection.iter().any(|i| {
        !matches!(
            i,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    }) {
        return Err((
            select.span(),
            "write the select items out in a view that reads a derived table without FROM"
                .to_string(),
        ));
    }
    // The columns of the tables in FROM, which a bare name may mean.
    let mut names: Vec<String> = Vec::new();
    for from in &select.from {
        for factor in std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation))
        {
            if let TableFactor::Table { name, .. } = factor
                && let Some(t) = tables
                    .iter()
                    .find(|t| t.name == name.to_string().to_lowercase())
            {
                names.extend(t.columns.iter().map(|c| c.0.clone()));
            }
        }
    }
    let substitute = |e: &mut Expr| substitute_constants(e, &constants, &names);
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            substitute(e);
        }
    }
    if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
        exprs.iter_mut().for_each(substitute);
    }
    if let Some(h) = &mut select.having {
        substitute(h);
    }
    for join in select.from.iter_mut().flat_map(|f| &mut f.joins) {
        if let sqlparser::ast::JoinOperator::Join(sqlparser::ast::JoinConstraint::On(e))
        | sqlparser::ast::JoinOperator::Inner(sqlparser::ast::JoinConstraint::On(e)) =
            &mut join.join_operator
        {
            substitute(e);
        }
    }
    let mut conjuncts: Vec<Expr> = select.selection.take().into_iter().collect();
    conjuncts.extend(constants.iter().filter_map(|k| k.condition.clone()));
    conjuncts.iter_mut().for_each(substitute);
    select.selection = and_all(conjuncts);
    Ok(())
}

/// `e` with each reference to a constant table's column replaced by its
/// value (a bare name only where no table in `names` has the column).
fn substitute_constants(e: &mut Expr, constants: &[ConstantTable], names: &[String]) {
    let column = |table: Option<&str>, c: &str| {
        constants
            .iter()
            .filter(|k| table.is_none_or(|t| k.alias == t))
            .flat_map(|k| &k.columns)
            .find(|(n, _)| n == c)
            .map(|(_, v)| v.clone())
    };
    let found = match &*e {
        Expr::CompoundIdentifier(ids) if ids.len() == 2 => column(
            Some(&ids[0].value.to_lowercase()),
            &ids[1].value.to_lowercase(),
        ),
        Expr::Identifier(id) if !names.contains(&id.value.to_lowercase()) => {
            column(None, &id.value.to_lowercase())
        }
        _ => None,
    };
    match found {
        Some(v) => *e = v,
        None => children_mut(e, &mut |child| {
            substitute_constants(child, constants, names)
        }),
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
    /// Whether the value can be NULL (no row matches).
    nullable: bool,
}

/// Whether piece `p` is grouped (a scalar subquery's: by its correlated
/// columns, so that a value with no matching row has no row at all).
fn grouped(p: &Piece) -> bool {
    !p.view.wrapper.key_types.is_empty()
}

/// The FROM items of one SELECT: each alias with its columns.
struct Scope {
    items: Vec<(String, Vec<String>)>,
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
            "WITH, ORDER BY and LIMIT are not supported in a subquery".to_string(),
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

/// Whether `e` holds a subquery anywhere.
fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    visit(e, &mut |e| {
        if matches!(
            e,
            Expr::Subquery(_)
                | Expr::Exists { .. }
                | Expr::In {
                    target: InTarget::Subquery(_),
                    ..
                }
        ) {
            found = true;
        }
    });
    found
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

/// The column references of `e`, outside its subqueries.
fn column_refs(e: &Expr) -> Vec<Vec<SqlIdent>> {
    let mut refs = Vec::new();
    visit(e, &mut |e| match e {
        Expr::Identifier(id) => refs.push(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) => refs.push(ids.clone()),
        _ => {}
    });
    refs
}

/// `e` as one column reference, if it is one.
fn column_ref(e: &Expr) -> Option<Vec<SqlIdent>> {
    match e {
        Expr::Identifier(id) => Some(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) => Some(ids.clone()),
        Expr::Nested(e) => column_ref(e),
        _ => None,
    }
}

fn ident_loc(r: &[SqlIdent]) -> Loc {
    Loc::union_iter(r.iter().map(|i| i.span))
}

/// The column references of conjunct `e` that NULL would not reject:
/// under OR, CASE, IS NULL or a function.
fn non_strict_refs(e: &Expr, strict: bool, out: &mut Vec<Vec<SqlIdent>>) {
    match e {
        Expr::Identifier(id) if !strict => out.push(vec![id.clone()]),
        Expr::CompoundIdentifier(ids) if !strict => out.push(ids.clone()),
        _ => {
            let keeps = strict && keeps_strict(e);
            children(e, &mut |child| non_strict_refs(child, keeps, out));
        }
    }
}

/// Whether NULL in an operand of `e` makes `e` NULL or false, so that a
/// conjunct built of such operators drops a row with a NULL.
fn keeps_strict(e: &Expr) -> bool {
    match e {
        Expr::BinaryOp { op, .. } => !matches!(op, BinaryOperator::Or),
        Expr::UnaryOp { .. }
        | Expr::Nested(_)
        | Expr::Between { .. }
        | Expr::In { .. }
        | Expr::Like { .. }
        | Expr::Cast { .. }
        | Expr::Extract { .. } => true,
        _ => false,
    }
}

/// Whether select item `e` is an aggregate (not COUNT) of an argument
/// that is NULL where something `reads` is: it reads it under arithmetic
/// only.
fn aggregates_strictly(e: &Expr, reads: &dyn Fn(&Expr) -> bool) -> bool {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match e {
        Expr::Nested(e) => aggregates_strictly(e, reads),
        Expr::Function(f) if !f.name.to_string().eq_ignore_ascii_case("count") => {
            let FunctionArguments::List(list) = &f.args else {
                return false;
            };
            matches!(
                list.args.as_slice(),
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] if strictly_reads(arg, reads)
            )
        }
        _ => false,
    }
}

/// Whether `e` is NULL where something `reads` is: it reads it under
/// arithmetic only.
fn strictly_reads(e: &Expr, reads: &dyn Fn(&Expr) -> bool) -> bool {
    if reads(e) {
        return true;
    }
    match e {
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } => strictly_reads(e, reads),
        Expr::BinaryOp { left, op, right } => {
            matches!(
                op,
                BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
            ) && (strictly_reads(left, reads) || strictly_reads(right, reads))
        }
        _ => false,
    }
}

/// Whether `e` is a scalar subquery taken out by [`take_scalars`].
fn is_slot(e: &Expr) -> bool {
    matches!(e, Expr::Identifier(id) if id.value.starts_with('\u{0}'))
}

/// Takes each scalar subquery of `e` out, with whether NULL in its place
/// would reject the row; it is put back by [`replace_slot`].
fn take_scalars(e: &mut Expr, strict: bool, out: &mut Vec<(usize, Query, bool)>) {
    if let Expr::Subquery(query) = e {
        let slot = out.len();
        out.push(((slot), (**query).clone(), strict));
        *e = Expr::Identifier(SqlIdent::new(slot_name(slot)));
        return;
    }
    if matches!(
        e,
        Expr::Exists { .. }
            | Expr::In {
                target: InTarget::Subquery(_),
                ..
            }
    ) {
        return;
    }
    let keeps = strict && keeps_strict(e);
    children_mut(e, &mut |child| take_scalars(child, keeps, out));
}

fn slot_name(slot: usize) -> String {
    format!("\u{0}scalar{slot}")
}

/// Puts `value` where [`take_scalars`] took scalar subquery `slot` out.
fn replace_slot(e: &mut Expr, slot: usize, value: Expr) {
    let mut value = Some(value);
    fn go(e: &mut Expr, name: &str, value: &mut Option<Expr>) {
        if let Expr::Identifier(id) = e
            && id.value == name
        {
            if let Some(v) = value.take() {
                *e = v;
            }
            return;
        }
        children_mut(e, &mut |child| go(child, name, value));
    }
    go(e, &slot_name(slot), &mut value);
}

/// Calls `f` on `e` and every expression under it, outside subqueries.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    children(e, &mut |child| visit(child, f));
}

/// The operands of the expression forms the SQL front end reads.
fn children(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut owned = e.clone();
    children_mut(&mut owned, &mut |child| f(child));
}

/// The operands of the expression forms the SQL front end reads,
/// mutably (a subquery's are its own).
fn children_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    use sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    match e {
        Expr::BinaryOp { left, right, .. } => {
            f(left);
            f(right);
        }
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::Cast { expr, .. }
        | Expr::Extract { expr, .. } => f(expr),
        Expr::In {
            expr,
            target: InTarget::Subquery(_),
            ..
        } => f(expr),
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::In {
            expr,
            target: InTarget::List(list),
            ..
        } => {
            f(expr);
            list.iter_mut().for_each(&mut *f);
        }
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            f(expr);
            f(pattern);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            if let Some(o) = operand {
                f(o);
            }
            for when in conditions {
                f(&mut when.condition);
                f(&mut when.result);
            }
            if let Some(e) = else_result {
                f(e);
            }
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            f(expr);
            if let Some(e) = substring_from {
                f(e);
            }
            if let Some(e) = substring_for {
                f(e);
            }
        }
        Expr::Function(func) => {
            if let FunctionArguments::List(list) = &mut func.args {
                for arg in &mut list.args {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg {
                        f(e);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The conjuncts of `e`, its `AND`s (and parentheses) taken apart.
fn split_and(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            split_and(*left, out);
            split_and(*right, out);
        }
        Expr::Nested(inner)
            if matches!(
                *inner,
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            split_and(*inner, out);
        }
        e => out.push(e),
    }
}

/// The conjunction of `conjuncts`, `None` for none.
fn and_all(conjuncts: Vec<Expr>) -> Option<Expr> {
    conjuncts.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

/// `alias.column`, placed at `loc`.
fn qualified(alias: &str, column: &str, loc: Loc) -> Expr {
    Expr::CompoundIdentifier(vec![
        SqlIdent::with_span(loc, alias.to_string()),
        SqlIdent::with_span(loc, column.to_string()),
    ])
}

fn equal(a: Expr, b: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::Eq,
        right: Box::new(b),
    }
}

/// A conjunct that is `[NOT] EXISTS (..)` or `lhs [NOT] IN (SELECT ..)`.
fn as_semijoin(e: &Expr) -> Option<(bool, Option<Expr>, &Query)> {
    match e {
        Expr::Exists { subquery, negated } => Some((*negated, None, subquery)),
        Expr::In {
            expr,
            target: InTarget::Subquery(subquery),
            negated,
            global: false,
        } => Some((*negated, Some((**expr).clone()), subquery)),
        Expr::Nested(inner) => as_semijoin(inner),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => as_semijoin(expr).map(|(negated, lhs, q)| (!negated, lhs, q)),
        _ => None,
    }
}

fn object_name(name: &str, loc: Loc) -> ObjectName {
    ObjectName(vec![ObjectNamePart::Identifier(SqlIdent::with_span(
        loc,
        name.to_string(),
    ))])
}

fn table_alias(name: SqlIdent) -> TableAlias {
    TableAlias {
        explicit: true,
        name,
        columns: Vec::new(),
        at: None,
    }
}

/// `FROM <piece> AS <alias>`, placed at `loc`.
fn table_factor(piece: &str, alias: SqlIdent, loc: Loc) -> TableFactor {
    let mut select = snippet_select("SELECT 1 FROM t AS t", loc);
    let mut factor = select.from.remove(0).relation;
    if let TableFactor::Table { name, alias: a, .. } = &mut factor {
        *name = object_name(piece, loc);
        *a = Some(table_alias(alias));
    }
    factor
}

/// A SELECT parsed from text of our own, to be filled in, its tokens
/// placed at `loc` (so that an error in it points at the SQL it stands
/// for).
fn snippet_select(text: &str, loc: Loc) -> Select {
    let dialect = sqlparser::dialect::GenericDialect {};
    let query = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_query())
        .expect("a SELECT of the nesting pass parses");
    let SetExpr::Select(select) = *query.body else {
        unreachable!("a SELECT")
    };
    let mut select = *select;
    select.select_token.0.span = loc;
    for item in &mut select.projection {
        match item {
            SelectItem::Wildcard(options) => options.wildcard_token.0.span = loc,
            SelectItem::UnnamedExpr(Expr::Value(v)) => v.span = loc,
            _ => {}
        }
    }
    select
}

/// A query of one SELECT.
fn query_of(select: Select) -> Query {
    let dialect = sqlparser::dialect::GenericDialect {};
    let mut query = *sqlparser::parser::Parser::new(&dialect)
        .try_with_sql("SELECT 1")
        .and_then(|mut p| p.parse_query())
        .expect("a SELECT parses");
    query.body = Box::new(SetExpr::Select(Box::new(select)));
    query
}
