//! `EXISTS` and `NOT EXISTS` whose subquery compares one of its columns
//! with the outer query's other than by equality (TPC-H Q21's `l2.l_suppkey
//! <> l1.l_suppkey`; `docs/design.md#nested-sql`).
//!
//! Such a subquery has a row with `v op y` for the outer row's `y` exactly
//! when the least or the greatest `v` of the rows it correlates with by
//! equality does: a row with `v < y` exists where the least `v` is below
//! `y`, one with `v <> y` where the least or the greatest differs from
//! `y` (both skip NULL, as `v op y` does). So the subquery becomes a piece
//! grouped by its equality-correlated columns that keeps `MIN(v)` and
//! `MAX(v)`:
//!
//! | condition | rewritten |
//! |---|---|
//! | `EXISTS (.. k = o.k AND v op o.y ..)` | join the piece on `k`, and `lo/hi op o.y` |
//! | `NOT EXISTS (..)` | `LEFT JOIN` the piece on `k`, and `NOT COALESCE(lo/hi op o.y, FALSE)` |
//!
//! A group that is not there fails `EXISTS` (the join drops the row) and
//! passes `NOT EXISTS` (its NULL bounds make the test NULL, and so false
//! under `COALESCE`). Without an equality correlation the piece has one
//! row, joined to every outer row.

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident as SqlIdent, Join, JoinConstraint, JoinOperator,
    Select, SelectItem, Spanned, TableWithJoins,
};
use sqlparser::tokenizer::Span as Loc;

use super::ast::{
    and_all, children_mut, column_ref, column_refs, qualified, snippet_select, split_and,
};
use super::{Nest, Scope, key_column, plain_select, table_factor};

/// The correlation of a subquery with one non-equality: its equalities,
/// its comparison, and its own conditions.
struct Theta {
    /// `inner column = outer expression`, each.
    equalities: Vec<(Expr, Expr)>,
    /// The inner column `v` of `v op y`.
    inner: Expr,
    /// `op`, with the inner column on its left.
    op: BinaryOperator,
    /// The outer expression `y`.
    outer: Expr,
    /// The subquery's conditions on its own columns.
    own: Vec<Expr>,
}

impl Nest<'_> {
    /// Rewrites each `[NOT] EXISTS` conjunct of `select`'s WHERE whose
    /// subquery correlates by one non-equality (see the module's doc);
    /// the rest stay as they are.
    pub(super) fn rewrite_theta_exists(&mut self, select: &mut Select) -> Result<(), syn::Error> {
        let Some(selection) = select.selection.take() else {
            return Ok(());
        };
        let mut conjuncts = Vec::new();
        split_and(selection, &mut conjuncts);
        let mut out = Vec::new();
        for c in conjuncts {
            let Expr::Exists { subquery, negated } = &c else {
                out.push(c);
                continue;
            };
            let Ok(inner) = plain_select(subquery) else {
                out.push(c);
                continue;
            };
            let scope = self.scope(inner);
            match theta(inner, &scope) {
                Some(theta) => {
                    let loc = c.span();
                    out.extend(self.theta_join(select, inner, theta, *negated, loc)?);
                }
                None => out.push(c),
            }
        }
        select.selection = and_all(out);
        Ok(())
    }

    /// The piece of the subquery `inner` correlated by `theta`, joined
    /// into `select`'s FROM; the conditions that take the subquery's place.
    fn theta_join(
        &mut self,
        select: &mut Select,
        inner: &Select,
        theta: Theta,
        negated: bool,
        loc: Loc,
    ) -> Result<Vec<Expr>, syn::Error> {
        let Theta {
            equalities,
            inner: v,
            op,
            outer: y,
            own,
        } = theta;
        let mut piece = inner.clone();
        piece.selection = and_all(own);
        piece.projection = equalities
            .iter()
            .enumerate()
            .map(|(i, (k, _))| SelectItem::ExprWithAlias {
                expr: k.clone(),
                alias: SqlIdent::with_span(loc, key_column(i)),
            })
            .chain(
                [("MIN(__0)", LEAST), ("MAX(__0)", GREATEST)].map(|(f, alias)| {
                    SelectItem::ExprWithAlias {
                        expr: template(f, std::slice::from_ref(&v), loc),
                        alias: SqlIdent::with_span(loc, alias.to_string()),
                    }
                }),
            )
            .collect();
        piece.group_by = GroupByExpr::Expressions(
            equalities.iter().map(|(k, _)| k.clone()).collect(),
            Vec::new(),
        );
        let p = self.piece("exists", &piece, loc, None)?;
        let alias = self.pieces[p].name.clone();
        self.joined_in.push(alias.clone());
        let column = |c: &str| qualified(&alias, c, loc);
        let test = match op {
            BinaryOperator::NotEq => template(
                "__0 <> __2 OR __1 <> __2",
                &[column(LEAST), column(GREATEST), y],
                loc,
            ),
            BinaryOperator::Lt | BinaryOperator::LtEq => Expr::BinaryOp {
                left: Box::new(column(LEAST)),
                op,
                right: Box::new(y),
            },
            _ => Expr::BinaryOp {
                left: Box::new(column(GREATEST)),
                op,
                right: Box::new(y),
            },
        };
        let on: Vec<Expr> = equalities
            .into_iter()
            .enumerate()
            .map(|(i, (_, outer))| super::ast::equal(column(&key_column(i)), outer))
            .collect();
        let factor = table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc);
        if !negated {
            select.from.insert(
                0,
                TableWithJoins {
                    relation: factor,
                    joins: Vec::new(),
                },
            );
            return Ok(on.into_iter().chain([test]).collect());
        }
        let test = template("NOT COALESCE(__0, FALSE)", &[test], loc);
        match and_all(on) {
            None => {
                select.from.insert(
                    0,
                    TableWithJoins {
                        relation: factor,
                        joins: Vec::new(),
                    },
                );
            }
            Some(on) => {
                let last = select.from.last_mut().expect("a FROM item");
                last.joins.push(Join {
                    relation: factor,
                    global: false,
                    join_operator: JoinOperator::LeftOuter(JoinConstraint::On(on)),
                });
            }
        }
        Ok(vec![test])
    }
}

/// The column of the piece's least value.
const LEAST: &str = "nested_least";
/// The column of the piece's greatest value.
const GREATEST: &str = "nested_greatest";

/// The correlation of a subquery that compares one of its columns with
/// the outer query's other than by equality, and otherwise correlates by
/// equalities: `None` for any other subquery (one without such a
/// comparison, or with more than one, or that aggregates), which the
/// semijoins take or reject.
fn theta(inner: &Select, scope: &Scope) -> Option<Theta> {
    let plain = matches!(&inner.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
        && inner.having.is_none()
        && inner.distinct.is_none()
        && !inner.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                super::lower::has_aggregate(e)
            }
            _ => false,
        });
    if !plain {
        return None;
    }
    let mut conjuncts = Vec::new();
    split_and(inner.selection.clone()?, &mut conjuncts);
    let (mut equalities, mut own, mut comparisons) = (Vec::new(), Vec::new(), Vec::new());
    for c in conjuncts {
        if column_refs(&c).iter().all(|r| scope.owns(r)) {
            own.push(c);
            continue;
        }
        let (v, op, y) = split_comparison(&c, scope)?;
        if op == BinaryOperator::Eq {
            equalities.push((v, y));
        } else {
            comparisons.push((v, op, y));
        }
    }
    let [(inner, op, outer)] = <[_; 1]>::try_from(comparisons).ok()?;
    Some(Theta {
        equalities,
        inner,
        op,
        outer,
        own,
    })
}

/// `v op y` with `v` a column of the subquery and `y` an expression over
/// the outer query alone, the operator turned where the subquery's column
/// is on the right.
fn split_comparison(c: &Expr, scope: &Scope) -> Option<(Expr, BinaryOperator, Expr)> {
    let Expr::BinaryOp { left, op, right } = c else {
        return None;
    };
    let inner_side = |e: &Expr| column_ref(e).is_some_and(|r| scope.owns(&r));
    let outer_side = |e: &Expr| column_refs(e).iter().all(|r| !scope.owns(r));
    let turned = match op {
        BinaryOperator::Eq | BinaryOperator::NotEq => op.clone(),
        BinaryOperator::Lt => BinaryOperator::Gt,
        BinaryOperator::LtEq => BinaryOperator::GtEq,
        BinaryOperator::Gt => BinaryOperator::Lt,
        BinaryOperator::GtEq => BinaryOperator::LtEq,
        _ => return None,
    };
    if inner_side(left) && outer_side(right) {
        Some(((**left).clone(), op.clone(), (**right).clone()))
    } else if inner_side(right) && outer_side(left) {
        Some(((**right).clone(), turned, (**left).clone()))
    } else {
        None
    }
}

/// The expression `text` with each identifier `__<i>` replaced by
/// `args[i]`, placed at `loc`.
pub(super) fn template(text: &str, args: &[Expr], loc: Loc) -> Expr {
    let mut select = snippet_select(&format!("SELECT {text}"), loc);
    let SelectItem::UnnamedExpr(mut e) = select.projection.remove(0) else {
        unreachable!("a template is one expression")
    };
    fill(&mut e, args);
    e
}

fn fill(e: &mut Expr, args: &[Expr]) {
    if let Expr::Identifier(id) = e
        && let Some(i) = id
            .value
            .strip_prefix("__")
            .and_then(|n| n.parse::<usize>().ok())
    {
        *e = args[i].clone();
        return;
    }
    children_mut(e, &mut |child| fill(child, args));
}
