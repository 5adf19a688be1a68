//! `JOIN .. USING (c, ..)` and `NATURAL JOIN` (`docs/design.md#sql`),
//! written as `JOIN .. ON left.c = right.c AND ..`: the left side's item
//! that has `c` (the first, in a chain), and the joined item. A column
//! named in USING is one column of the join, so an unqualified `c`
//! elsewhere in the SELECT names the left side's (the right side's for a
//! `RIGHT JOIN`, whose right side is kept), and `*` lists it once, first,
//! then the other columns of each side, as SQL does.

use sqlparser::ast::{
    Expr, Ident as SqlIdent, JoinConstraint, JoinOperator, Select, SelectItem, Spanned,
    TableWithJoins,
};

use super::ast::{and_all, children_mut, equal, qualified};
use super::{Nest, Scope};

/// A column a USING or NATURAL join merges, and the item that stands for
/// it.
struct Merged {
    column: String,
    item: String,
}

impl Nest<'_> {
    /// Rewrites every USING and NATURAL join of `select`'s FROM into ON
    /// (see the module's doc).
    pub(super) fn rewrite_using(&self, select: &mut Select) -> Result<(), syn::Error> {
        let mut merged = Vec::new();
        let mut from = std::mem::take(&mut select.from);
        for twj in &mut from {
            for j in 0..twj.joins.len() {
                if let Some(m) = self.using_join(twj, j)? {
                    merged.extend(m);
                }
            }
        }
        select.from = from;
        if merged.is_empty() {
            return Ok(());
        }
        let scope = self.scope(select);
        expand_star(select, &scope, &merged);
        let rename = |e: &mut Expr| qualify(e, &merged);
        for item in &mut select.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
                rename(e);
            }
        }
        if let Some(e) = &mut select.selection {
            rename(e);
        }
        if let Some(e) = &mut select.having {
            rename(e);
        }
        if let sqlparser::ast::GroupByExpr::Expressions(keys, _) = &mut select.group_by {
            keys.iter_mut().for_each(rename);
        }
        Ok(())
    }

    /// Join `j` of `twj` as an ON join, if it was a USING or NATURAL one:
    /// the columns it merges.
    fn using_join(
        &self,
        twj: &mut TableWithJoins,
        j: usize,
    ) -> Result<Option<Vec<Merged>>, syn::Error> {
        let join = &twj.joins[j];
        let loc = join.relation.span();
        let (constraint, right_kept) = match &join.join_operator {
            JoinOperator::Join(c)
            | JoinOperator::Inner(c)
            | JoinOperator::Left(c)
            | JoinOperator::LeftOuter(c) => (c, false),
            JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (c, true),
            JoinOperator::FullOuter(c) => (c, false),
            _ => return Ok(None),
        };
        if !matches!(
            constraint,
            JoinConstraint::Using(_) | JoinConstraint::Natural
        ) {
            return Ok(None);
        }
        if matches!(join.join_operator, JoinOperator::FullOuter(_)) {
            return Err(self.spans.error(
                loc,
                "FULL OUTER JOIN is not supported yet: write a LEFT JOIN",
            ));
        }
        let left = self.scope(&Select {
            from: vec![TableWithJoins {
                relation: twj.relation.clone(),
                joins: twj.joins[..j].to_vec(),
            }],
            ..super::ast::snippet_select("SELECT 1", loc)
        });
        let right = self.scope(&Select {
            from: vec![TableWithJoins {
                relation: join.relation.clone(),
                joins: Vec::new(),
            }],
            ..super::ast::snippet_select("SELECT 1", loc)
        });
        let right_item = right.items.first().map(|(a, _)| a.clone());
        let Some(right_item) = right_item else {
            return Err(self.spans.error(
                loc,
                "USING and NATURAL join a table or a derived table with an alias",
            ));
        };
        let columns: Vec<String> = match constraint {
            JoinConstraint::Using(names) => {
                names.iter().map(|n| n.to_string().to_lowercase()).collect()
            }
            _ => right.items[0]
                .1
                .iter()
                .filter(|c| left.items.iter().any(|(_, cols)| cols.contains(c)))
                .cloned()
                .collect(),
        };
        let mut on = Vec::new();
        let mut merged = Vec::new();
        for c in columns {
            let Some((left_item, _)) = left.items.iter().find(|(_, cols)| cols.contains(&c)) else {
                return Err(self.spans.error(
                    loc,
                    format!("USING ({c}): no table on the left of the join has column `{c}`"),
                ));
            };
            if !right.items[0].1.contains(&c) {
                return Err(self.spans.error(
                    loc,
                    format!("USING ({c}): `{right_item}` has no column `{c}`"),
                ));
            }
            on.push(equal(
                qualified(left_item, &c, loc),
                qualified(&right_item, &c, loc),
            ));
            let item = if right_kept {
                right_item.clone()
            } else {
                left_item.clone()
            };
            merged.push(Merged { column: c, item });
        }
        let on = and_all(on).unwrap_or_else(|| {
            // A NATURAL join without shared columns is a cross join.
            super::theta::template("TRUE", &[], loc)
        });
        let join = &mut twj.joins[j];
        let constraint = JoinConstraint::On(on);
        join.join_operator = match &join.join_operator {
            JoinOperator::Left(_) => JoinOperator::Left(constraint),
            JoinOperator::LeftOuter(_) => JoinOperator::LeftOuter(constraint),
            JoinOperator::Right(_) => JoinOperator::Right(constraint),
            JoinOperator::RightOuter(_) => JoinOperator::RightOuter(constraint),
            JoinOperator::Inner(_) => JoinOperator::Inner(constraint),
            _ => JoinOperator::Join(constraint),
        };
        Ok(Some(merged))
    }
}

/// An unqualified reference to a merged column, qualified by the item
/// that stands for it, in `e` and under it (not in subqueries).
fn qualify(e: &mut Expr, merged: &[Merged]) {
    if let Expr::Identifier(id) = e {
        let name = id.value.to_lowercase();
        if let Some(m) = merged.iter().find(|m| m.column == name) {
            *e = qualified(&m.item, &m.column, id.span);
        }
        return;
    }
    children_mut(e, &mut |child| qualify(child, merged));
}

/// `*` as SQL lists it over a USING or NATURAL join: each merged column
/// once, first, then every other column of each item in order.
fn expand_star(select: &mut Select, scope: &Scope, merged: &[Merged]) {
    let mut items = Vec::new();
    for item in std::mem::take(&mut select.projection) {
        if let SelectItem::Wildcard(_) = &item {
            let loc = item.span();
            for m in merged {
                items.push(SelectItem::ExprWithAlias {
                    expr: qualified(&m.item, &m.column, loc),
                    alias: SqlIdent::with_span(loc, m.column.clone()),
                });
            }
            for (alias, columns) in &scope.items {
                for c in columns {
                    if !merged.iter().any(|m| m.column == *c) {
                        items.push(SelectItem::UnnamedExpr(qualified(alias, c, loc)));
                    }
                }
            }
        } else {
            items.push(item);
        }
    }
    select.projection = items;
}
