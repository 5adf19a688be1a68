//! Outer joins (`docs/design.md#outer-joins`): `FROM l .. LEFT JOIN r ON
//! c` read as one table, fed by two pieces that are bags of rows:
//!
//! | piece | SELECT | its rows |
//! |---|---|---|
//! | matched | `l.*, r.* FROM l .. JOIN r ON c` | each pair that `c` joins |
//! | unmatched | `l.* FROM l .. WHERE NOT EXISTS (SELECT * FROM r WHERE c)` | each row of `l` that `c` joins to nothing |
//!
//! Both feed the same table, whose columns are `l`'s and then `r`'s (those
//! nullable), `<alias>_<column>` each: an unmatched row has NULL in
//! `r`'s. The view then reads that table in place of its FROM, every
//! column reference renamed. `RIGHT JOIN` is the same with the sides
//! swapped. Conjuncts of WHERE over `l`'s columns alone filter `l`'s rows
//! in both pieces; the rest stay in the view, over the joined rows. A
//! `FULL OUTER JOIN` of two items has a third piece, `r`'s rows that join
//! to nothing, NULL in `l`'s columns, and filters nothing before the join.
//! Several outer joins are taken from the last: its preserved side holds
//! the others, rewritten in turn when its pieces are lowered. Where a side
//! must be one item (a `FULL OUTER JOIN`'s, a `RIGHT JOIN`'s left side),
//! where joins follow the last outer join, or where an ON compares a
//! column an earlier outer join pads with NULL, those items become one
//! nested view of their columns first (`wrap_items`).

use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, Ident as SqlIdent, JoinConstraint, JoinOperator, Select, SelectItem, Spanned,
    TableFactor, TableWithJoins,
};
use sqlparser::tokenizer::Span as Loc;

use super::ast::{
    and_all, children_mut, column_ref, column_refs, has_subquery, qualified, split_and,
};
use super::{Failure, Nest, table_factor};

/// The outer join of a FROM clause: the preserved items, the other one,
/// and the ON condition.
struct OuterJoin {
    /// The FROM without the outer join: the preserved side.
    preserved: Vec<TableWithJoins>,
    /// The side whose columns are NULL where nothing matches.
    nullable: TableFactor,
    /// Which sides keep their unmatched rows.
    kept: Kept,
    /// The ON condition.
    on: Expr,
    /// Where the join is written.
    loc: Loc,
}

/// FROM items made one nested view ([`Nest::wrap_items`]).
struct Wrapped {
    /// The nested view's name.
    table: String,
    /// The items it stands for, each alias with its columns.
    scope: Vec<(String, Vec<String>)>,
    /// The FROM item that reads it.
    item: TableWithJoins,
}

/// Which sides of an outer join keep their unmatched rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    /// The preserved side (`LEFT JOIN`, and `RIGHT JOIN` with the sides
    /// swapped).
    Preserved,
    /// Both (`FULL OUTER JOIN`): the other side's unmatched rows are a
    /// third piece, NULL in the preserved side's columns.
    Both,
    /// The other side only: `l .. RIGHT JOIN r` with several items before
    /// `r`, which become a nested view before the sides swap.
    Other,
}

impl Nest<'_> {
    /// Rewrites `select`'s FROM if it has an outer join: its two pieces
    /// read as one table (see the module's doc).
    pub(super) fn rewrite_outer_join(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        self.wrap_through_last_outer(select, reads)?;
        let Some(mut join) = outer_join(select).map_err(|e| self.error(e))? else {
            return Ok(());
        };
        // Several items on a side that must be one (a FULL OUTER JOIN's
        // sides, a RIGHT JOIN's left side), or an ON over a column an
        // earlier outer join pads: a nested view of them first.
        let several = join.preserved.len() > 1 || !join.preserved[0].joins.is_empty();
        if self.reads_padded(&join, select) || (join.kept != Kept::Preserved && several) {
            let items = std::mem::take(&mut join.preserved);
            let wrapped = self.wrap_items(items, select, reads, join.loc)?;
            rename(&mut join.on, &wrapped.scope, &wrapped.table);
            join.preserved = vec![wrapped.item];
        }
        if join.kept == Kept::Other {
            let piece = std::mem::replace(
                &mut join.preserved,
                vec![TableWithJoins {
                    relation: join.nullable.clone(),
                    joins: Vec::new(),
                }],
            );
            join.nullable = piece.into_iter().next().expect("one nested view").relation;
            join.kept = Kept::Preserved;
        }
        let loc = join.loc;
        let preserved_scope = self.scope(&Select {
            from: join.preserved.clone(),
            ..select.clone()
        });
        let nullable_scope = self.scope(&Select {
            from: vec![TableWithJoins {
                relation: join.nullable.clone(),
                joins: Vec::new(),
            }],
            ..select.clone()
        });
        let columns = |items: &[(String, Vec<String>)]| -> Vec<(String, String)> {
            items
                .iter()
                .flat_map(|(a, cols)| cols.iter().map(move |c| (a.clone(), c.clone())))
                .collect()
        };
        let left = columns(&preserved_scope.items);
        let right = columns(&nullable_scope.items);
        if left.is_empty() || right.is_empty() {
            return Err(self.spans.error(
                loc,
                "an outer join joins tables, views or derived tables by name",
            ));
        }
        self.check_on(&join, &preserved_scope, &nullable_scope)?;
        // WHERE: conjuncts over the preserved side alone filter its rows.
        let mut filters = Vec::new();
        let mut rest = Vec::new();
        if let Some(selection) = select.selection.take() {
            let mut conjuncts = Vec::new();
            split_and(selection, &mut conjuncts);
            for c in conjuncts {
                let right_refs = column_refs(&c)
                    .iter()
                    .any(|r| !preserved_scope.owns(r) && nullable_scope.owns(r));
                if join.kept == Kept::Both && has_subquery(&c) {
                    return Err(self.spans.error(
                        c.span(),
                        "a subquery in the WHERE of a FULL OUTER JOIN is not supported yet: filter a derived table on either side",
                    ));
                }
                // Both sides of a FULL OUTER JOIN can be NULL: every
                // condition is over the joined rows.
                if join.kept == Kept::Preserved && (has_subquery(&c) || !right_refs) {
                    filters.push(c);
                } else {
                    rest.push(c);
                }
            }
        }
        // The joined table keeps the columns the view reads, and those
        // the pieces' joins compare across items (a join column the pieces
        // did not keep would be summed out of their bags, which then are
        // not q-hierarchical): not the rest, since each joined row is kept
        // again in the view's table. A condition over one item's columns
        // (TPC-H Q13's `o_comment NOT LIKE ..`) is applied where the
        // pieces' atoms read that item, so its columns are not kept.
        let mut compared: Vec<Expr> = rest.clone();
        let mut conditions = vec![join.on.clone()];
        conditions.extend(filters.iter().filter(|f| !has_subquery(f)).cloned());
        // The preserved side's own joins, outer ones included (each is
        // rewritten in turn where its piece is lowered).
        for from in &join.preserved {
            for j in &from.joins {
                if let JoinOperator::Join(JoinConstraint::On(e))
                | JoinOperator::Inner(JoinConstraint::On(e))
                | JoinOperator::Left(JoinConstraint::On(e))
                | JoinOperator::LeftOuter(JoinConstraint::On(e)) = &j.join_operator
                {
                    conditions.push(e.clone());
                }
            }
        }
        let items = [&preserved_scope.items[..], &nullable_scope.items[..]].concat();
        for condition in conditions {
            let mut conjuncts = Vec::new();
            split_and(condition, &mut conjuncts);
            compared.extend(
                conjuncts
                    .into_iter()
                    .filter(|c| !within_one_item(c, &items)),
            );
        }
        if join.kept == Kept::Preserved {
            count_by_compared(select, &join.on, &preserved_scope, &nullable_scope, &items);
        }
        let used = used_columns(select, &compared);
        let kept = |(a, c): &(String, String)| used.reads(a, c);
        let mut left: Vec<(String, String)> = left.iter().filter(|x| kept(x)).cloned().collect();
        if left.is_empty() {
            // A row of the table needs a column: the preserved side's first.
            left.push(columns(&preserved_scope.items)[0].clone());
        }
        let right: Vec<(String, String)> = right.into_iter().filter(|x| kept(x)).collect();
        let item = |(a, c): &(String, String)| SelectItem::ExprWithAlias {
            expr: qualified(a, c, loc),
            alias: SqlIdent::with_span(loc, joined_name(a, c)),
        };
        let mut matched = select.clone();
        matched.projection = left.iter().chain(&right).map(item).collect();
        // The other side first: an outer join of the preserved side stays
        // the last join of the matched rows' FROM.
        matched.from = std::iter::once(TableWithJoins {
            relation: join.nullable.clone(),
            joins: Vec::new(),
        })
        .chain(join.preserved.clone())
        .collect();
        let mut matched_where = filters.clone();
        matched_where.push(join.on.clone());
        matched.selection = and_all(matched_where);
        matched.group_by = GroupByExpr::Expressions(Vec::new(), Vec::new());
        matched.having = None;
        let mut unmatched = matched.clone();
        unmatched.projection = left.iter().map(item).collect();
        unmatched.from = join.preserved.clone();
        // ON's conditions over the preserved side alone decide whether its
        // row can match: a row that fails them is unmatched whatever the
        // other side holds (`barred`), one that passes them is where the
        // rest of ON finds no row.
        let (own, on_rest) = own_conditions(&join.on, &preserved_scope);
        let subquery = super::ast::snippet_select("SELECT * FROM t WHERE TRUE", loc);
        let subquery = Select {
            from: vec![TableWithJoins {
                relation: join.nullable.clone(),
                joins: Vec::new(),
            }],
            selection: on_rest,
            ..subquery
        };
        let barred = own.clone().map(|own| {
            let mut barred = unmatched.clone();
            let mut barred_where = filters.clone();
            barred_where.push(super::theta::template(
                "NOT COALESCE(__0, FALSE)",
                &[own],
                loc,
            ));
            barred.selection = and_all(barred_where);
            barred
        });
        let mut unmatched_where = filters;
        unmatched_where.extend(own);
        unmatched_where.push(Expr::Exists {
            subquery: Box::new(super::ast::query_of(subquery)),
            negated: true,
        });
        unmatched.selection = and_all(unmatched_where);
        let other = (join.kept == Kept::Both).then(|| {
            // The other side's rows that match nothing, NULL in the
            // preserved side's columns.
            let mut other = unmatched.clone();
            other.projection = right.iter().map(item).collect();
            other.from = vec![TableWithJoins {
                relation: join.nullable.clone(),
                joins: Vec::new(),
            }];
            let subquery = Select {
                from: join.preserved.clone(),
                selection: Some(join.on.clone()),
                ..super::ast::snippet_select("SELECT * FROM t WHERE TRUE", loc)
            };
            other.selection = Some(Expr::Exists {
                subquery: Box::new(super::ast::query_of(subquery)),
                negated: true,
            });
            other
        });
        let m = self.piece("outer", &matched, loc, None)?;
        let u = self.piece("unmatched", &unmatched, loc, None)?;
        let o = match &other {
            Some(other) if !right.is_empty() => Some(self.piece("unmatched", other, loc, None)?),
            _ => None,
        };
        let b = match &barred {
            Some(barred) => Some(self.piece("barred", barred, loc, None)?),
            None => None,
        };
        // The matched piece's table: the nullable side's columns can be
        // NULL there, as the unmatched rows have them (and, joined in
        // full, the preserved side's too).
        let table = self.pieces[m].name.clone();
        let width = if join.kept == Kept::Both {
            0
        } else {
            left.len()
        };
        for column in self.pieces[m].table.columns.iter_mut().skip(width) {
            column.2 = true;
        }
        // A preserved column that can be NULL in the unmatched rows (one
        // an earlier outer join pads) can be in the table, where the
        // matched rows' join unwrapped it.
        for i in 0..width {
            if self.pieces[u].table.columns[i].2 {
                self.pieces[m].table.columns[i].2 = true;
            }
        }
        for p in std::iter::once(u).chain(o) {
            self.pieces[p].feeds = Some(table.clone());
            // Rows of an unmatched piece leave as matches come, whatever
            // the view's updates are.
            self.pieces[p].retracts = true;
        }
        if let Some(b) = b {
            self.pieces[b].feeds = Some(table.clone());
        }
        reads.push(m);
        reads.push(u);
        reads.extend(o);
        reads.extend(b);
        let alias = SqlIdent::with_span(loc, table.clone());
        select.from = vec![TableWithJoins {
            relation: table_factor(&table, alias, loc),
            joins: Vec::new(),
        }];
        select.selection = and_all(rest);
        let scope = [preserved_scope.items, nullable_scope.items].concat();
        rename_select(select, &scope, &table, loc);
        Ok(())
    }

    /// Whether the ON of an outer join after others compares a column
    /// that one of them pads with NULL (`a LEFT JOIN b ON .. LEFT JOIN c
    /// ON c.x = b.y`).
    fn reads_padded(&self, join: &OuterJoin, select: &Select) -> bool {
        let padded: Vec<TableWithJoins> = join
            .preserved
            .iter()
            .flat_map(|f| &f.joins)
            .filter(|j| is_outer(&j.join_operator))
            .map(|j| TableWithJoins {
                relation: j.relation.clone(),
                joins: Vec::new(),
            })
            .collect();
        if padded.is_empty() {
            return false;
        }
        let padded = self.scope(&Select {
            from: padded,
            ..select.clone()
        });
        column_refs(&join.on).iter().any(|r| padded.owns(r))
    }

    /// FROM items made one nested view of every column they have (their
    /// outer joins rewritten there), which `select` reads in their place;
    /// with the scope they had, to rename what else reads them. Used where
    /// a side of an outer join must be one item (a FULL OUTER JOIN's, a
    /// RIGHT JOIN's left side), where joins follow the last outer join, and
    /// where an ON compares a column an earlier outer join pads: taken
    /// apart in place, those outer joins would leave the unmatched rows'
    /// subquery correlated on a table that is no longer there, while in a
    /// nested view the padded columns are ones that can be NULL, which that
    /// `NOT EXISTS` keeps.
    fn wrap_items(
        &mut self,
        items: Vec<TableWithJoins>,
        select: &mut Select,
        reads: &mut Vec<usize>,
        loc: Loc,
    ) -> Result<Wrapped, syn::Error> {
        if let Some(star) = select.projection.iter().find(|i| {
            matches!(
                i,
                SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..)
            )
        }) {
            return Err(self.spans.error(
                star.span(),
                "`*` over an outer join of several items on one side (a FULL OUTER JOIN's, a RIGHT JOIN's left side), followed by other joins, or whose ON compares a column an earlier outer join pads with NULL, is not supported yet: name the columns",
            ));
        }
        let scope = self.scope(&Select {
            from: items.clone(),
            ..select.clone()
        });
        let mut inner = super::ast::snippet_select("SELECT * FROM t", loc);
        inner.projection = scope
            .items
            .iter()
            .flat_map(|(a, cols)| {
                cols.iter().map(|c| SelectItem::ExprWithAlias {
                    expr: qualified(a, c, loc),
                    alias: SqlIdent::with_span(loc, joined_name(a, c)),
                })
            })
            .collect();
        inner.from = items;
        let p = self.piece("joined", &inner, loc, None)?;
        reads.push(p);
        let table = self.pieces[p].name.clone();
        rename_select(select, &scope.items, &table, loc);
        Ok(Wrapped {
            item: TableWithJoins {
                relation: table_factor(&table, SqlIdent::with_span(loc, table.clone()), loc),
                joins: Vec::new(),
            },
            table,
            scope: scope.items,
        })
    }

    /// Where joins follow the last outer join (`r LEFT JOIN s ON .. JOIN t
    /// ON ..`, or another FROM item after it), the FROM up to that outer
    /// join becomes a nested view ([`Nest::wrap_items`]) that the rest
    /// joins as a table.
    fn wrap_through_last_outer(
        &mut self,
        select: &mut Select,
        reads: &mut Vec<usize>,
    ) -> Result<(), syn::Error> {
        let mut last = None;
        for (i, from) in select.from.iter().enumerate() {
            for (k, j) in from.joins.iter().enumerate() {
                if is_outer(&j.join_operator) {
                    last = Some((i, k));
                }
            }
        }
        let Some((i, k)) = last else {
            return Ok(());
        };
        if i + 1 == select.from.len() && k + 1 == select.from[i].joins.len() {
            return Ok(());
        }
        let loc = select.from[i].joins[k].relation.span();
        let mut rest = select.from.split_off(i + 1);
        let after = select.from[i].joins.split_off(k + 1);
        let prefix = std::mem::take(&mut select.from);
        let wrapped = self.wrap_items(prefix, select, reads, loc)?;
        let mut from = vec![TableWithJoins {
            joins: after,
            ..wrapped.item
        }];
        from.append(&mut rest);
        for j in from.iter_mut().flat_map(|f| &mut f.joins) {
            if let JoinOperator::Join(JoinConstraint::On(e))
            | JoinOperator::Inner(JoinConstraint::On(e)) = &mut j.join_operator
            {
                rename(e, &wrapped.scope, &wrapped.table);
            }
        }
        select.from = from;
        Ok(())
    }

    /// The ON condition of an outer join must read the nullable side: a
    /// conjunct over the preserved side alone would keep its row either
    /// way, which the `NOT EXISTS` of the unmatched rows cannot say.
    fn check_on(
        &self,
        join: &OuterJoin,
        preserved: &super::Scope,
        nullable: &super::Scope,
    ) -> Result<(), syn::Error> {
        if join.kept != Kept::Both {
            return Ok(());
        }
        let mut conjuncts = Vec::new();
        split_and(join.on.clone(), &mut conjuncts);
        for c in &conjuncts {
            let refs = column_refs(c);
            let one_side = |scope: &super::Scope| refs.iter().all(|r| scope.owns(r));
            if !refs.is_empty() && (one_side(preserved) || one_side(nullable)) {
                return Err(self.spans.error(
                    c.span(),
                    "a condition of a FULL OUTER JOIN's ON over one side's columns alone is not supported yet: it decides whether a row of that side can match, and the row is kept either way",
                ));
            }
        }
        Ok(())
    }
}

/// The conjuncts of `on` over `preserved`'s columns alone, and the rest.
fn own_conditions(on: &Expr, preserved: &super::Scope) -> (Option<Expr>, Option<Expr>) {
    let mut conjuncts = Vec::new();
    split_and(on.clone(), &mut conjuncts);
    let (own, rest): (Vec<Expr>, Vec<Expr>) = conjuncts.into_iter().partition(|c| {
        let refs = column_refs(c);
        !refs.is_empty() && refs.iter().all(|r| preserved.owns(r))
    });
    (and_all(own), and_all(rest))
}

/// Whether a join is an outer one.
fn is_outer(op: &JoinOperator) -> bool {
    matches!(
        op,
        JoinOperator::Left(_)
            | JoinOperator::LeftOuter(_)
            | JoinOperator::Right(_)
            | JoinOperator::RightOuter(_)
            | JoinOperator::FullOuter(_)
    )
}

/// The outer join of `select`'s FROM, if any: a `LEFT`, `RIGHT` or `FULL
/// [OUTER] JOIN .. ON` as the last join of the last FROM item (so that
/// the preserved side is everything before it).
fn outer_join(select: &mut Select) -> Result<Option<OuterJoin>, Failure> {
    let count = select
        .from
        .iter()
        .flat_map(|f| &f.joins)
        .filter(|j| is_outer(&j.join_operator))
        .count();
    if count == 0 {
        return Ok(None);
    }
    let first_outer = select
        .from
        .iter()
        .flat_map(|f| &f.joins)
        .find(|j| is_outer(&j.join_operator))
        .map(|j| j.relation.span());
    let single_join = select.from.len() == 1 && select.from[0].joins.len() == 1;
    let last = select.from.last_mut().expect("a FROM item");
    let Some(join) = last.joins.last().filter(|j| is_outer(&j.join_operator)) else {
        return Err((
            first_outer.unwrap_or_else(|| select.span()),
            "an outer join is supported as the last join of FROM, or after other outer joins: its preserved side is everything before it".to_string(),
        ));
    };
    let loc = join.relation.span();
    let (constraint, right, kept) = match &join.join_operator {
        JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (c, false, Kept::Preserved),
        JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (c, true, Kept::Preserved),
        JoinOperator::FullOuter(c) => (c, false, Kept::Both),
        _ => unreachable!("an outer join"),
    };
    let JoinConstraint::On(on) = constraint else {
        return Err((
            loc,
            "write an outer join's condition with ON (USING and NATURAL are not supported)"
                .to_string(),
        ));
    };
    let on = on.clone();
    let join = last.joins.pop().expect("a join");
    let (preserved, nullable) = if right {
        // `l RIGHT JOIN r`: `r` is preserved; several items before it
        // become one nested view first (`Kept::Other`).
        if !single_join {
            return Ok(Some(OuterJoin {
                preserved: std::mem::take(&mut select.from),
                nullable: join.relation,
                kept: Kept::Other,
                on,
                loc,
            }));
        }
        let left = select.from.remove(0).relation;
        (
            vec![TableWithJoins {
                relation: join.relation,
                joins: Vec::new(),
            }],
            left,
        )
    } else {
        (std::mem::take(&mut select.from), join.relation)
    };
    Ok(Some(OuterJoin {
        preserved,
        nullable,
        kept,
        on,
        loc,
    }))
}

/// The columns a view reads, as its select list, its WHERE conjuncts
/// `rest` and its GROUP BY name them.
struct Used {
    /// `*` is selected.
    all: bool,
    /// The items selected with `t.*`.
    items: Vec<String>,
    /// The column references, in lower case.
    refs: Vec<Vec<String>>,
}

impl Used {
    /// Whether column `column` of item `alias` is read (a bare name is
    /// read for every item that has it).
    fn reads(&self, alias: &str, column: &str) -> bool {
        self.all
            || self.items.iter().any(|a| a == alias)
            || self.refs.iter().any(|r| match r.as_slice() {
                [c] => c == column,
                [a, c] => a == alias && c == column,
                _ => false,
            })
    }
}

fn used_columns(select: &Select, rest: &[Expr]) -> Used {
    let mut used = Used {
        all: false,
        items: Vec::new(),
        refs: Vec::new(),
    };
    let mut exprs: Vec<&Expr> = rest.iter().collect();
    for item in &select.projection {
        match item {
            SelectItem::Wildcard(_) => used.all = true,
            SelectItem::QualifiedWildcard(kind, _) => match super::union::wildcard_item(kind) {
                Some(name) => used.items.push(name),
                None => used.all = true,
            },
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                exprs.push(e);
            }
            _ => used.all = true,
        }
    }
    if let GroupByExpr::Expressions(keys, _) = &select.group_by {
        exprs.extend(keys);
    }
    for e in exprs {
        used.refs.extend(
            column_refs(e)
                .into_iter()
                .map(|r| r.iter().map(|i| i.value.to_lowercase()).collect()),
        );
    }
    used
}

/// Rewrites each `COUNT(c)` of a column `c` of the nullable side that
/// cannot be NULL into `COUNT` of a column of that side that ON compares
/// with `=` across items: in a matched row both are non-NULL (a row whose
/// compared column is NULL matches nothing), and in an unmatched row both
/// are NULL, so every count stays the same. The compared column is kept
/// in the joined table anyway; `c`, when nothing else reads it, is not:
/// TPC-H Q13's `COUNT(o_orderkey)` then leaves the order key out of the
/// matched rows, a bag kept per customer rather than per order (its
/// benefit is in docs/benchmarks.md).
fn count_by_compared(
    select: &mut Select,
    on: &Expr,
    preserved: &super::Scope,
    nullable: &super::Scope,
    items: &[(String, Vec<String>)],
) {
    let nullable_only = |r: &[SqlIdent]| nullable.owns(r) && !preserved.owns(r);
    let mut conjuncts = Vec::new();
    split_and(on.clone(), &mut conjuncts);
    let compared = conjuncts.iter().find_map(|c| {
        let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = c
        else {
            return None;
        };
        if within_one_item(c, items) {
            return None;
        }
        [left, right]
            .into_iter()
            .filter_map(|side| column_ref(side))
            .find(|r| nullable_only(r))
    });
    let Some(compared) = compared else {
        return;
    };
    let (alias, column) = match compared.as_slice() {
        [c] => (nullable.alias_of(&compared), c.value.to_lowercase()),
        [t, c] => (Some(t.value.to_lowercase()), c.value.to_lowercase()),
        _ => return,
    };
    let Some(alias) = alias else {
        return;
    };
    let loc = super::ast::ident_loc(&compared);
    let counted = |e: &Expr| {
        column_ref(e).is_some_and(|r| nullable_only(&r) && nullable.nullable(&r) == Some(false))
    };
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            recount(e, &counted, &|| qualified(&alias, &column, loc));
        }
    }
}

/// Replaces the argument of each plain `COUNT(x)` in `e` (no DISTINCT,
/// FILTER or window) for which `counted(x)` holds with `by()`.
fn recount(e: &mut Expr, counted: &dyn Fn(&Expr) -> bool, by: &dyn Fn() -> Expr) {
    if let Expr::Function(f) = e
        && f.name.to_string().eq_ignore_ascii_case("count")
        && f.filter.is_none()
        && f.over.is_none()
        && f.within_group.is_empty()
        && let FunctionArguments::List(list) = &mut f.args
        && matches!(
            list.duplicate_treatment,
            None | Some(DuplicateTreatment::All)
        )
        && list.clauses.is_empty()
        && let [FunctionArg::Unnamed(FunctionArgExpr::Expr(arg))] = list.args.as_mut_slice()
        && counted(arg)
    {
        *arg = by();
        return;
    }
    children_mut(e, &mut |child| recount(child, counted, by));
}

/// Whether every column `e` reads is of one FROM item of `items` (each
/// alias with its columns): a condition applied where an atom reads that
/// item. Not so for a condition with no column, or one whose column no
/// item or several could own (a correlated reference, an ambiguous name).
fn within_one_item(e: &Expr, items: &[(String, Vec<String>)]) -> bool {
    let item_of = |r: &[SqlIdent]| -> Option<&str> {
        let mut owners = items.iter().filter(|(alias, columns)| match r {
            [c] => columns.contains(&c.value.to_lowercase()),
            [t, c] => *alias == t.value.to_lowercase() && columns.contains(&c.value.to_lowercase()),
            _ => false,
        });
        match (owners.next(), owners.next()) {
            (Some((alias, _)), None) => Some(alias.as_str()),
            _ => None,
        }
    };
    let refs = column_refs(e);
    let Some(first) = refs.first().and_then(|r| item_of(r)) else {
        return false;
    };
    !has_subquery(e) && refs.iter().all(|r| item_of(r) == Some(first))
}

/// The joined table's column of item `alias`'s `column`.
fn joined_name(alias: &str, column: &str) -> String {
    format!("{alias}_{column}")
}

/// Renames every column reference of the view's clauses (and `*`, `t.*`)
/// to the joined table's column, read through alias `table`.
fn rename_select(select: &mut Select, scope: &[(String, Vec<String>)], table: &str, loc: Loc) {
    let mut projection = Vec::new();
    for item in std::mem::take(&mut select.projection) {
        match item {
            SelectItem::Wildcard(_) => {
                for (a, cols) in scope {
                    for c in cols {
                        projection.push(SelectItem::ExprWithAlias {
                            expr: qualified(table, &joined_name(a, c), loc),
                            alias: SqlIdent::with_span(loc, c.clone()),
                        });
                    }
                }
            }
            SelectItem::QualifiedWildcard(kind, options) => {
                let Some(name) = super::union::wildcard_item(&kind) else {
                    projection.push(SelectItem::QualifiedWildcard(kind, options));
                    continue;
                };
                for (a, cols) in scope.iter().filter(|(a, _)| *a == name) {
                    for c in cols {
                        projection.push(SelectItem::ExprWithAlias {
                            expr: qualified(table, &joined_name(a, c), loc),
                            alias: SqlIdent::with_span(loc, c.clone()),
                        });
                    }
                }
            }
            SelectItem::UnnamedExpr(mut e) => {
                // The field keeps the name the column would give it.
                let name = match &e {
                    Expr::Identifier(id) => Some(id.clone()),
                    Expr::CompoundIdentifier(ids) => ids.last().cloned(),
                    _ => None,
                };
                rename(&mut e, scope, table);
                projection.push(match name {
                    Some(alias) => SelectItem::ExprWithAlias { expr: e, alias },
                    None => SelectItem::UnnamedExpr(e),
                });
            }
            SelectItem::ExprWithAlias { mut expr, alias } => {
                rename(&mut expr, scope, table);
                projection.push(SelectItem::ExprWithAlias { expr, alias });
            }
            // Not SQL the lowering reads: it says so.
            other => projection.push(other),
        }
    }
    select.projection = projection;
    if let Some(e) = &mut select.selection {
        rename(e, scope, table);
    }
    if let GroupByExpr::Expressions(exprs, _) = &mut select.group_by {
        for e in exprs {
            rename(e, scope, table);
        }
    }
}

/// Renames the column references of `e` that name an item of `scope`.
fn rename(e: &mut Expr, scope: &[(String, Vec<String>)], table: &str) {
    let target =
        |alias: &str, column: &str, loc: Loc| qualified(table, &joined_name(alias, column), loc);
    match e {
        Expr::Identifier(id) => {
            let c = id.value.to_lowercase();
            let owners: Vec<&String> = scope
                .iter()
                .filter(|(_, cols)| cols.contains(&c))
                .map(|(a, _)| a)
                .collect();
            // An ambiguous name is left as it is: the lowering says so.
            if let [a] = owners.as_slice() {
                *e = target(a, &c, id.span);
            }
        }
        Expr::CompoundIdentifier(ids) if ids.len() == 2 => {
            let (a, c) = (ids[0].value.to_lowercase(), ids[1].value.to_lowercase());
            if scope
                .iter()
                .any(|(alias, cols)| *alias == a && cols.contains(&c))
            {
                *e = target(&a, &c, ids[1].span);
            }
        }
        _ => children_mut(e, &mut |child| rename(child, scope, table)),
    }
}

#[cfg(test)]
mod tests {
    use crate::driver::compile_sql_str;

    const SCHEMA: &str = "CREATE TABLE cust (ck INT NOT NULL, seg INT);
        CREATE TABLE ord (okey INT NOT NULL, ock INT, note INT NULL);";

    /// Whether the joined table of the view compiled from `select` (after
    /// `CREATE VIEW w AS`) keeps column `column` of `ord`.
    fn keeps(select: &str, column: &str) -> bool {
        let view = format!("{SCHEMA}\nCREATE VIEW w WITH (intractable = 'allow') AS {select};");
        let code = compile_sql_str(&view).expect("the view compiles");
        code.contains(&format!("ord_{column}"))
    }

    fn keeps_order_key(select: &str) -> bool {
        keeps(select, "okey")
    }

    #[test]
    fn a_count_of_a_column_that_cannot_be_null_counts_by_the_compared_one() {
        assert!(!keeps_order_key(
            "SELECT ck, COUNT(okey) FROM cust LEFT JOIN ord ON ck = ock GROUP BY ck"
        ));
        assert!(!keeps_order_key(
            "SELECT ck, COUNT(ord.okey) + 1 FROM ord RIGHT JOIN cust ON ord.ock = cust.ck AND note > 0 GROUP BY ck"
        ));
    }

    #[test]
    fn other_counts_keep_their_column() {
        // Read elsewhere too.
        assert!(keeps_order_key(
            "SELECT ck, COUNT(okey), SUM(okey) FROM cust LEFT JOIN ord ON ck = ock GROUP BY ck"
        ));
        assert!(keeps_order_key(
            "SELECT ck, COUNT(DISTINCT okey) FROM cust LEFT JOIN ord ON ck = ock GROUP BY ck"
        ));
        // No column of `ord` compared with `=` across items.
        assert!(keeps_order_key(
            "SELECT ck, COUNT(okey) FROM cust LEFT JOIN ord ON ck < ock GROUP BY ck"
        ));
        // Both sides padded.
        assert!(keeps_order_key(
            "SELECT ck, COUNT(okey) FROM cust FULL JOIN ord ON ck = ock GROUP BY ck"
        ));
        // A column that can be NULL counts its own non-NULL values.
        assert!(keeps(
            "SELECT ck, COUNT(note) FROM cust LEFT JOIN ord ON ck = ock GROUP BY ck",
            "note"
        ));
    }
}
