//! SELECTs without FROM (`docs/design.md#nested-sql`): one row of
//! constants, written into the query that reads it instead of kept as a
//! nested view.

use sqlparser::ast::{
    Expr, GroupByExpr, Query, Select, SelectItem, SetExpr, Spanned, TableFactor, UnaryOperator,
};
use sqlparser::tokenizer::Span as Loc;

use super::ast::{and_all, children_mut, column_refs, equal, has_subquery};
use super::{Failure, group_by_is_empty, plain_select};
use crate::sql::{Table, lower};

/// A subquery without FROM: its one row of constants, there where its
/// WHERE holds.
pub(super) struct Constant {
    /// Its select items.
    values: Vec<Expr>,
    /// Its WHERE.
    condition: Option<Expr>,
}

/// The constant row of a subquery without FROM, if it has none; an error
/// if it aggregates or groups (a FROM-less row counted).
pub(super) fn constant_select(query: &Query) -> Result<Option<Constant>, Failure> {
    // A UNION has FROMs of its own (or is an error where it is read).
    if matches!(&*query.body, sqlparser::ast::SetExpr::SetOperation { .. }) {
        return Ok(None);
    }
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
    pub(super) fn scalar(self, loc: Loc) -> Result<(Expr, Option<Expr>), Failure> {
        let [value] = <[Expr; 1]>::try_from(self.values)
            .map_err(|_| (loc, "a scalar subquery selects one value".to_string()))?;
        Ok((Expr::Nested(Box::new(value)), self.condition))
    }

    /// As the subquery of `EXISTS` or `lhs IN`: its WHERE, and for `IN`
    /// the equality with its value.
    pub(super) fn semijoin(
        self,
        negated: bool,
        lhs: Option<Expr>,
        loc: Loc,
    ) -> Result<Expr, Failure> {
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
pub(super) struct ConstantTable {
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
pub(super) fn inline_constant_tables(select: &mut Select, tables: &[Table]) -> Result<(), Failure> {
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
pub(super) fn substitute_constants(e: &mut Expr, constants: &[ConstantTable], names: &[String]) {
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
