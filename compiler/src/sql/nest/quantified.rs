//! `x op ANY (SELECT y ..)`, `x op ALL (SELECT y ..)` and `x NOT IN
//! (SELECT y ..)` where a value can be NULL (`docs/design.md#nested-sql`),
//! rewritten into the `EXISTS` and `NOT EXISTS` the rest of the front end
//! reads, as conjuncts of WHERE:
//!
//! | condition | rewritten |
//! |---|---|
//! | `x op ANY (SELECT y FROM s WHERE p)` | `EXISTS (SELECT y FROM s WHERE p AND x op y)` |
//! | `x op ALL (..)`, `x NOT IN (..)` (`<> ALL`) | `NOT EXISTS (.. WHERE p AND x op' y)`, `op'` the opposite of `op` |
//! | and where `y` can be NULL | `NOT EXISTS (.. WHERE p AND y IS NULL)` |
//! | and where `x` can be NULL | `(x IS NOT NULL OR (SELECT COUNT(*) FROM s WHERE p) = 0)` |
//!
//! `ALL` is true where every row's comparison is: over no rows, whatever
//! `x` is; never where a row's `y` or `x` is NULL (the comparison is NULL
//! there), which the last two conjuncts say. `ANY` needs none of them: a
//! comparison with NULL is never true, and `EXISTS` asks for a true one.
//! A `NOT IN` whose values cannot be NULL is a `NOT EXISTS` already, and
//! is left to the semijoins.

use sqlparser::ast::{BinaryOperator, Expr, InTarget, Select, SelectItem, SetExpr, Spanned};

use super::ast::{and_all, column_ref, column_refs, split_and};
use super::theta::template;
use super::{Nest, Scope, plain_select};

impl Nest<'_> {
    /// Rewrites each `ANY`, `ALL` and nullable `NOT IN` conjunct of
    /// `select`'s WHERE (see the module's doc).
    pub(super) fn rewrite_quantified(&mut self, select: &mut Select) -> Result<(), syn::Error> {
        let Some(selection) = select.selection.take() else {
            return Ok(());
        };
        let mut conjuncts = Vec::new();
        split_and(selection, &mut conjuncts);
        let mut out = Vec::new();
        for c in conjuncts {
            match self.quantified(&c, select)? {
                Some(rewritten) => out.extend(rewritten),
                None => out.push(c),
            }
        }
        select.selection = and_all(out);
        Ok(())
    }

    /// The conjuncts that take the place of `c`, if it is one of the
    /// module's forms.
    fn quantified(&self, c: &Expr, outer: &Select) -> Result<Option<Vec<Expr>>, syn::Error> {
        let loc = c.span();
        let (x, op, query, all) = match c {
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => match &**right {
                Expr::Subquery(q) => (&**left, compare_op.clone(), &**q, false),
                _ => return Ok(None),
            },
            Expr::AllOp {
                left,
                compare_op,
                right,
            } => match &**right {
                Expr::Subquery(q) => (&**left, compare_op.clone(), &**q, true),
                _ => return Ok(None),
            },
            Expr::In {
                expr,
                target: InTarget::Subquery(q),
                negated: true,
                ..
            } => (&**expr, BinaryOperator::NotEq, &**q, true),
            _ => return Ok(None),
        };
        let inner = plain_select(query).map_err(|e| self.error(e))?;
        let aggregates = inner.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                super::lower::has_aggregate(e)
            }
            _ => false,
        });
        if aggregates
            || !super::group_by_is_empty(inner)
            || inner.having.is_some()
            || inner.from.is_empty()
        {
            // An aggregating subquery is a piece, which the semijoins
            // read; a SELECT without FROM is written into the query.
            return Ok(None);
        }
        let [SelectItem::UnnamedExpr(y) | SelectItem::ExprWithAlias { expr: y, .. }] =
            inner.projection.as_slice()
        else {
            return Err(self.spans.error(
                query.span(),
                "the subquery of a comparison selects one column",
            ));
        };
        let inner_scope = self.scope(inner);
        // Where it is not known (an expression, a derived table), `x` is
        // taken as one that can be NULL.
        let x_nullable = self.nullable(outer, x).unwrap_or(true);
        let y_nullable = self.nullable(inner, y).unwrap_or(true);
        if matches!(c, Expr::In { .. }) && !y_nullable && !x_nullable {
            // A `NOT EXISTS` already.
            return Ok(None);
        }
        let exists = |extra: Expr, negated: bool| {
            let mut select = inner.clone();
            let mut own = Vec::new();
            if let Some(p) = select.selection.take() {
                split_and(p, &mut own);
            }
            own.push(extra);
            select.selection = and_all(own);
            let mut subquery = query.clone();
            subquery.body = Box::new(SetExpr::Select(Box::new(select)));
            Expr::Exists {
                subquery: Box::new(subquery),
                negated,
            }
        };
        let compared = |op: BinaryOperator| Expr::BinaryOp {
            left: Box::new(x.clone()),
            op,
            right: Box::new(y.clone()),
        };
        if !all {
            return Ok(Some(vec![exists(compared(op), false)]));
        }
        let Some(opposite) = opposite(&op) else {
            return Err(self.spans.error(
                loc,
                format!("`{op} ALL` is not a comparison: write =, <>, <, <=, > or >="),
            ));
        };
        let mut out = vec![exists(compared(opposite), true)];
        if y_nullable {
            out.push(exists(
                template("__0 IS NULL", std::slice::from_ref(y), loc),
                true,
            ));
        }
        if x_nullable {
            let correlated = inner
                .selection
                .iter()
                .flat_map(column_refs)
                .any(|r| !inner_scope.owns(&r));
            if correlated {
                return Err(self.spans.error(
                    loc,
                    "a correlated subquery under ALL or NOT IN over a value that can be NULL is not supported yet: where the value is NULL, SQL keeps the row exactly where the subquery has no row for it, a count per correlated value under OR; compare a value that cannot be NULL (`COALESCE(x, ..)`), or write NOT EXISTS",
                ));
            }
            let mut count = inner.clone();
            count.projection = vec![SelectItem::UnnamedExpr(template("COUNT(*)", &[], loc))];
            let mut count_query = query.clone();
            count_query.body = Box::new(SetExpr::Select(Box::new(count)));
            out.push(template(
                "(__0 IS NOT NULL OR __1 = 0)",
                &[x.clone(), Expr::Subquery(Box::new(count_query))],
                loc,
            ));
        }
        Ok(Some(out))
    }

    /// Whether `e`, read in `select`, can be NULL: a column declared
    /// `NULL` (or a nested view's nullable field); `None` for what the
    /// scope does not know (an expression, a derived table's column).
    fn nullable(&self, select: &Select, e: &Expr) -> Option<bool> {
        let scope: Scope = self.scope(select);
        scope.nullable(&column_ref(e)?)
    }
}

/// The comparison that is true where `op`'s is false: `<` for `>=`.
fn opposite(op: &BinaryOperator) -> Option<BinaryOperator> {
    Some(match op {
        BinaryOperator::Eq => BinaryOperator::NotEq,
        BinaryOperator::NotEq => BinaryOperator::Eq,
        BinaryOperator::Lt => BinaryOperator::GtEq,
        BinaryOperator::LtEq => BinaryOperator::Gt,
        BinaryOperator::Gt => BinaryOperator::LtEq,
        BinaryOperator::GtEq => BinaryOperator::Lt,
        _ => return None,
    })
}
