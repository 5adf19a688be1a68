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
//!
//! For `<>` the piece keeps less where it can ([`Bounds::Only`]): the
//! group's only value, NULL where it has several. The extremes change
//! with nearly every row a group gains; the only value, when it gains its
//! second value, and a row of the piece that did not change is not fed to
//! the outer query.
//!
//! A `NOT EXISTS` joins its piece as `EXISTS` does, with no `LEFT JOIN`,
//! where every row the outer query keeps has a group: the subquery reads
//! one table, an outer item `a` is a row of that same table, each
//! equality correlates a column with `a`'s own column of that name (one
//! that cannot be NULL), and each of the subquery's own conditions, said
//! of `a`, is a conjunct of the outer WHERE. Then `a`'s row is in the
//! group it looks up (Q21's `l1` is among the late lines of its own
//! order), so the outer join has no unmatched piece to keep.

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident as SqlIdent, Join as SqlJoin, JoinConstraint,
    JoinOperator, Select, SelectItem, Spanned, TableFactor, TableWithJoins,
};
use sqlparser::tokenizer::Span as Loc;

use super::ast::{
    and_all, children_mut, column_ref, column_refs, has_subquery, qualified, snippet_select,
    split_and,
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
        let outer_scope = self.scope(select);
        let kept: Vec<String> = conjuncts
            .iter()
            .filter(|c| !has_subquery(c))
            .filter_map(|c| normalized(c, &outer_scope, None))
            .collect();
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
                    let left = *negated && !always_grouped(select, inner, &theta, &kept, self);
                    let join = match (negated, left) {
                        (false, _) => Join::Inner,
                        (true, false) => Join::InnerNegated,
                        (true, true) => Join::Left,
                    };
                    out.extend(self.theta_join(select, inner, theta, join, loc)?);
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
        join: Join,
        loc: Loc,
    ) -> Result<Vec<Expr>, syn::Error> {
        let Theta {
            equalities,
            inner: v,
            op,
            outer: y,
            own,
        } = theta;
        let bounds = self.bounds(inner, &v, &op, &equalities, join);
        let y_never_null =
            column_ref(&y).is_some_and(|r| self.scope(select).nullable(&r) == Some(false));
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
                bounds
                    .columns()
                    .iter()
                    .map(|&(f, alias)| SelectItem::ExprWithAlias {
                        expr: template(f, std::slice::from_ref(&v), loc),
                        alias: SqlIdent::with_span(loc, alias.to_string()),
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
        let test = match (bounds, op) {
            (Bounds::Only, _) if y_never_null => {
                template("COALESCE(__0 <> __1, TRUE)", &[column(ONLY), y], loc)
            }
            (Bounds::Only, _) => template(
                "(__0 IS NULL AND __1 IS NOT NULL) OR __0 <> __1",
                &[column(ONLY), y],
                loc,
            ),
            (Bounds::Extremes, BinaryOperator::NotEq) => template(
                "__0 <> __2 OR __1 <> __2",
                &[column(LEAST), column(GREATEST), y],
                loc,
            ),
            (Bounds::Extremes, op) => {
                let bound = match op {
                    BinaryOperator::Lt | BinaryOperator::LtEq => LEAST,
                    _ => GREATEST,
                };
                Expr::BinaryOp {
                    left: Box::new(column(bound)),
                    op,
                    right: Box::new(y),
                }
            }
        };
        let on: Vec<Expr> = equalities
            .into_iter()
            .enumerate()
            .map(|(i, (_, outer))| super::ast::equal(column(&key_column(i)), outer))
            .collect();
        let factor = table_factor(&alias, SqlIdent::with_span(loc, alias.clone()), loc);
        let inner_join = |select: &mut Select, factor| {
            select.from.insert(
                0,
                TableWithJoins {
                    relation: factor,
                    joins: Vec::new(),
                },
            );
        };
        if join != Join::Left {
            inner_join(select, factor);
            let test = match join {
                Join::InnerNegated => template("NOT COALESCE(__0, FALSE)", &[test], loc),
                _ => test,
            };
            return Ok(on.into_iter().chain([test]).collect());
        }
        let test = template("NOT COALESCE(__0, FALSE)", &[test], loc);
        match and_all(on) {
            None => inner_join(select, factor),
            Some(on) => {
                let last = select.from.last_mut().expect("a FROM item");
                last.joins.push(SqlJoin {
                    relation: factor,
                    global: false,
                    join_operator: JoinOperator::LeftOuter(JoinConstraint::On(on)),
                });
            }
        }
        Ok(vec![test])
    }
}

impl Nest<'_> {
    /// What the piece of `inner` keeps of its column `v` (see
    /// [`Bounds::Only`]): its only value where the comparison is `<>`,
    /// the piece is grouped by equalities and joined without padding, and
    /// `v` cannot be NULL; its extremes otherwise.
    fn bounds(
        &self,
        inner: &Select,
        v: &Expr,
        op: &BinaryOperator,
        equalities: &[(Expr, Expr)],
        join: Join,
    ) -> Bounds {
        let never_null =
            || column_ref(v).is_some_and(|r| self.scope(inner).nullable(&r) == Some(false));
        if *op == BinaryOperator::NotEq
            && !equalities.is_empty()
            && join != Join::Left
            && never_null()
        {
            Bounds::Only
        } else {
            Bounds::Extremes
        }
    }
}

/// How the piece of a subquery joins the outer query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Join {
    /// `EXISTS`: an inner join, and the test.
    Inner,
    /// `NOT EXISTS` where every row the outer query keeps has a group
    /// ([`always_grouped`]): an inner join, and the test negated.
    InnerNegated,
    /// Any other `NOT EXISTS`: a `LEFT JOIN`, and the test negated with
    /// a missing group passing it.
    Left,
}

/// Whether every row that `select` keeps has a group in the piece of
/// `inner` (see the module's doc): `inner` reads one table, and some
/// item of `select` that no outer join pads with NULL is a row of that
/// table which the correlation looks up by its own columns (none of them
/// NULL) and which passes the subquery's own conditions by a conjunct of
/// `select`'s WHERE (`kept`, each [`normalized`]).
fn always_grouped(
    select: &Select,
    inner: &Select,
    theta: &Theta,
    kept: &[String],
    nest: &Nest<'_>,
) -> bool {
    let [only] = inner.from.as_slice() else {
        return false;
    };
    let Some((table, own_alias)) = table_and_alias(&only.relation) else {
        return false;
    };
    if !only.joins.is_empty() || theta.equalities.is_empty() {
        return false;
    }
    let (scope, inner_scope) = (nest.scope(select), nest.scope(inner));
    // Each equality reads a column of `a` that cannot be NULL, and the
    // subquery's column of that name.
    let by_its_own_key = |a: &str| {
        theta.equalities.iter().all(|(k, y)| {
            let (Some(k), Some(y)) = (column_ref(k), column_ref(y)) else {
                return false;
            };
            let column = column_of(&y, &scope, a);
            column.is_some()
                && column == column_of(&k, &inner_scope, &own_alias)
                && scope.nullable(&y) == Some(false)
        })
    };
    let passes_its_conditions = |a: &str| {
        theta.own.iter().all(|c| {
            normalized(c, &inner_scope, Some((&own_alias, a))).is_some_and(|c| kept.contains(&c))
        })
    };
    unpadded_items(select)
        .filter(|(t, _)| *t == table)
        .any(|(_, a)| by_its_own_key(&a) && passes_its_conditions(&a))
}

/// The column of item `alias` that the reference `r` names in `scope`,
/// if it names one of that item's.
fn column_of(r: &[SqlIdent], scope: &Scope, alias: &str) -> Option<String> {
    let (item, column) = match r {
        [c] => (scope.alias_of(r)?, c),
        [t, c] => (t.value.to_lowercase(), c),
        _ => return None,
    };
    (item == alias).then(|| column.value.to_lowercase())
}

/// The table a FROM item reads and the alias it goes by, if it is a
/// table.
fn table_and_alias(factor: &TableFactor) -> Option<(String, String)> {
    let TableFactor::Table { name, alias, .. } = factor else {
        return None;
    };
    let table = name.to_string().to_lowercase();
    let alias = alias
        .as_ref()
        .map_or_else(|| table.clone(), |a| a.name.value.to_lowercase());
    Some((table, alias))
}

/// The tables of `select`'s FROM whose columns no outer join pads with
/// NULL, each with its alias: the first item of each FROM entry whose
/// joins are inner or `LEFT` ones.
fn unpadded_items(select: &Select) -> impl Iterator<Item = (String, String)> + '_ {
    select
        .from
        .iter()
        .filter(|from| {
            from.joins.iter().all(|j| {
                matches!(
                    j.join_operator,
                    JoinOperator::Join(_)
                        | JoinOperator::Inner(_)
                        | JoinOperator::Left(_)
                        | JoinOperator::LeftOuter(_)
                )
            })
        })
        .filter_map(|from| table_and_alias(&from.relation))
}

/// `e` as text with each column reference written `alias.column` in
/// lower case, the alias `rename.0` written `rename.1`: two conditions
/// with the same text test the same columns of the same items. `None`
/// where a reference names no item of `scope`.
fn normalized(e: &Expr, scope: &Scope, rename: Option<(&str, &str)>) -> Option<String> {
    fn go(e: &mut Expr, scope: &Scope, rename: Option<(&str, &str)>, ok: &mut bool) {
        if let Some(r) = column_ref(e)
            && !matches!(e, Expr::Nested(_))
        {
            let column = r.last().map(|c| c.value.to_lowercase());
            let alias = match r.as_slice() {
                [_] => scope.alias_of(&r),
                [t, _] => Some(t.value.to_lowercase()),
                _ => None,
            };
            let (Some(column), Some(mut alias)) = (column, alias) else {
                *ok = false;
                return;
            };
            if let Some((from, to)) = rename
                && alias == from
            {
                alias = to.to_string();
            }
            *e = Expr::CompoundIdentifier(vec![SqlIdent::new(alias), SqlIdent::new(column)]);
            return;
        }
        children_mut(e, &mut |child| go(child, scope, rename, ok));
    }
    let mut e = e.clone();
    let mut ok = true;
    go(&mut e, scope, rename, &mut ok);
    ok.then(|| e.to_string())
}

/// What a piece keeps of the values `v` of each group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bounds {
    /// The least and the greatest `v`.
    Extremes,
    /// For `v <> y` where every group has a row and no `v` is NULL: the
    /// group's one `v`, NULL where it has several. A row with `v <> y`
    /// exists where the group has several values or its one value is not
    /// `y`. This changes only when a group gains its second value or
    /// loses its last but one, where the extremes change with nearly every
    /// row that comes (Q21's suppliers per order).
    Only,
}

impl Bounds {
    /// The piece's columns past its key, each an aggregate of `__0` (the
    /// column `v`) and its name.
    fn columns(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Bounds::Extremes => &[("MIN(__0)", LEAST), ("MAX(__0)", GREATEST)],
            Bounds::Only => &[("CASE WHEN MIN(__0) = MAX(__0) THEN MIN(__0) END", ONLY)],
        }
    }
}

/// The column of the piece's only value.
const ONLY: &str = "nested_only";
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

#[cfg(test)]
mod tests {
    use crate::driver::compile_sql_str;

    const SCHEMA: &str = "CREATE TABLE s (b INT, d INT, e INT);
        CREATE TABLE n (a INT NULL, v INT, m INT);";

    /// Whether the view compiled from `view` keeps the outer join's
    /// piece of outer rows with no group.
    fn keeps_unmatched(view: &str) -> bool {
        let code = compile_sql_str(&format!("{SCHEMA}\n{view}")).expect("the view compiles");
        code.contains("Unmatched")
    }

    #[test]
    fn a_row_in_its_own_group_joins_without_an_outer_join() {
        assert!(!keeps_unmatched(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT s.e, COUNT(*) FROM s
             WHERE s.d > 0 AND NOT EXISTS
                 (SELECT * FROM s s3 WHERE s3.e = s.e AND s3.b <> s.b AND s3.d > 0)
             GROUP BY s.e;"
        ));
        // The conditions written unqualified: each names its own query's
        // `s`.
        let unqualified = |outer: &str| {
            format!(
                "CREATE VIEW w WITH (intractable = 'allow') AS SELECT e, COUNT(*) FROM s
                 WHERE {outer} AND NOT EXISTS
                     (SELECT * FROM s y WHERE y.e = s.e AND s.b <> y.b AND 0 < d)
                 GROUP BY e;"
            )
        };
        assert!(!keeps_unmatched(&unqualified("0 < d")));
        assert!(keeps_unmatched(&unqualified("1 < d")));
    }

    /// Which columns the piece of a `<>`-correlated subquery keeps.
    fn keeps_only(view: &str) -> bool {
        let code = compile_sql_str(&format!("{SCHEMA}\n{view}")).expect("the view compiles");
        assert_ne!(
            code.contains("nested_only"),
            code.contains("nested_least"),
            "one or the other"
        );
        code.contains("nested_only")
    }

    #[test]
    fn a_group_keeps_its_only_value_where_every_row_has_one() {
        // EXISTS, and a NOT EXISTS joined without an outer join.
        assert!(keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT s.e, COUNT(*) FROM s
             WHERE EXISTS (SELECT * FROM s s2 WHERE s2.e = s.e AND s2.b <> s.b) GROUP BY s.e;"
        ));
        assert!(keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT s.e, COUNT(*) FROM s
             WHERE s.d > 0 AND NOT EXISTS
                 (SELECT * FROM s s3 WHERE s3.e = s.e AND s3.b <> s.b AND s3.d > 0)
             GROUP BY s.e;"
        ));
        // The outer value can be NULL: the test says so, the piece is the same.
        assert!(keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM n
             WHERE EXISTS (SELECT * FROM s WHERE s.e = n.v AND s.b <> n.a)"
        ));
    }

    #[test]
    fn a_group_keeps_its_extremes_otherwise() {
        // The inner value can be NULL: a group of NULLs has none.
        assert!(!keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM s
             WHERE EXISTS (SELECT * FROM n WHERE n.v = s.b AND n.a <> s.e)"
        ));
        // An outer join: a missing group must pass.
        assert!(!keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM s
             WHERE NOT EXISTS (SELECT * FROM s s2 WHERE s2.e = s.d AND s2.b <> s.b)"
        ));
        // No equality: the one row of an empty piece is there.
        assert!(!keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM s
             WHERE EXISTS (SELECT * FROM s s2 WHERE s2.b <> s.b)"
        ));
        // Another comparison than `<>`.
        assert!(!keeps_only(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM s
             WHERE EXISTS (SELECT * FROM s s2 WHERE s2.e = s.e AND s2.b < s.b)"
        ));
    }

    #[test]
    fn a_row_that_may_have_no_group_keeps_the_outer_join() {
        // The subquery's own condition is not the outer query's.
        assert!(keeps_unmatched(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT s.e, COUNT(*) FROM s
             WHERE s.d > 1 AND NOT EXISTS
                 (SELECT * FROM s s3 WHERE s3.e = s.e AND s3.b <> s.b AND s3.d > 0)
             GROUP BY s.e;"
        ));
        // Correlated on another column than the row's own.
        assert!(keeps_unmatched(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT s.e, COUNT(*) FROM s
             WHERE NOT EXISTS (SELECT * FROM s s3 WHERE s3.e = s.d AND s3.b <> s.b)
             GROUP BY s.e;"
        ));
        // The correlated column can be NULL: such a row has no group.
        assert!(keeps_unmatched(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM n
             WHERE NOT EXISTS (SELECT * FROM n n2 WHERE n2.a = n.a AND n2.v <> n.v)"
        ));
        // The subquery reads another table.
        assert!(keeps_unmatched(
            "CREATE VIEW w WITH (intractable = 'allow') AS SELECT COUNT(*) FROM n
             WHERE NOT EXISTS (SELECT * FROM s WHERE s.e = n.v AND s.b <> n.m)"
        ));
    }
}
