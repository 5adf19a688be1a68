//! One `CREATE VIEW .. AS SELECT` lowered onto the rule language: FROM
//! items become atoms, equalities between columns unify variables,
//! equalities with constants become constants in atoms, other conditions
//! become `{ .. }` factors (local or theta, as their columns fall), GROUP BY
//! columns become the head, and the aggregates become one payload: a tuple
//! of ring, count and tropical components with a lift per FROM item.
//!
//! What the lowering decides about the output (the row struct's fields
//! and how each is read off the key and the payload) goes to
//! [`SqlView`], which the emitter turns into the view's wrapper.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, JoinConstraint,
    JoinOperator, Select, SelectItem, SelectItemQualifiedWildcardKind, Spanned, TableFactor,
};
use sqlparser::tokenizer::Span as Loc;
use syn::Ident;

use super::expr::{Arith, Cmp, Column, Scalar, scalar};
use super::row::{Pick, RowCond, RowValue, Term, Typed};
use super::span::SpanMap;
use super::types::{SqlType, Value};
use super::{SqlView, Table, ViewField, ViewOptions, ViewShape, ViewTable};
use crate::syntax::ast::{self, ArgSyntax, AtomSyntax, ExprSyntax, RelationDecl, Rule};

/// The most components a payload may have (the tuple semirings' limit).
const MAX_COMPONENTS: usize = 8;

type Failure = (Loc, String);

/// One FROM item: a table under an alias, of the view's FROM or of a
/// subquery's.
struct Item<'t> {
    alias: String,
    table: &'t Table,
    loc: Loc,
    /// The semijoin whose subquery it is in (`EXISTS`, `IN`); `None` for
    /// the view's own FROM.
    owner: Option<usize>,
}

/// A subquery of WHERE, `EXISTS (..)`, `col IN (SELECT ..)` or their
/// negations: a semijoin of the rule (`exists(..)`).
struct Semijoin {
    negated: bool,
    loc: Loc,
    /// Its conditions over its own columns.
    conditions: Vec<Scalar>,
    /// Its equalities of an outer column that can be NULL (first) with one
    /// of its own. Unified, they would make the outer atom read the column
    /// as `Some(x)`, dropping the rows where it is NULL, which `NOT EXISTS`
    /// keeps; the subquery reads its own column as an `Option` instead
    /// (`let x = Some(y)`), which a NULL never equals. (`EXISTS` is lifted
    /// alike, so that both can correlate on one column.)
    lifted: Vec<(Column, Column)>,
}

/// What a payload component holds.
#[derive(Debug, Clone, PartialEq)]
enum Component {
    /// The number of rows (`Int`): every view has it, so a group exists
    /// exactly while it has rows.
    Count,
    /// The sum of a product of per-item terms, in a ring (`Int`, `Fixed`
    /// for decimals of a declared scale, `Decimal` or `Real`).
    Sum(SqlType, Vec<Scalar>),
    /// The least (`MinPlus`) or greatest (`MaxPlus`) value of a one-item
    /// expression, encoded as an `i64` that keeps the order.
    Best { max: bool, ty: SqlType, arg: Scalar },
}

impl Component {
    fn semiring(&self) -> TokenStream {
        match self {
            Component::Count | Component::Sum(SqlType::BigInt, _) => {
                quote! { ::ivm::semiring::Int }
            }
            Component::Sum(SqlType::Double, _) => quote! { ::ivm::semiring::Real },
            Component::Sum(ty, _) => match ty.fixed_scale() {
                Some(s) => {
                    let s = proc_macro2::Literal::u32_unsuffixed(s);
                    quote! { ::ivm::sql::Fixed<#s> }
                }
                None => quote! { ::ivm::sql::Decimal },
            },
            Component::Best { max: false, .. } => quote! { ::ivm::semiring::MinPlus },
            Component::Best { max: true, .. } => quote! { ::ivm::semiring::MaxPlus },
        }
    }

    /// The SQL type of the component's values.
    fn ty(&self) -> SqlType {
        match self {
            Component::Count => SqlType::BigInt,
            Component::Sum(ty, _) | Component::Best { ty, .. } => *ty,
        }
    }
}

/// An aggregate of the select list, as read off the payload.
#[derive(Debug, Clone)]
enum Aggregate {
    /// `COUNT(*)`, and `COUNT(e)` of an `e` that cannot be NULL: the row
    /// count.
    Count,
    /// `SUM(e)`: the signed sum of terms, in type `ty`, NULL where the
    /// count in component `present` is zero. `COUNT(e)` of an `e` that
    /// can be NULL is the sum of one term, never NULL.
    Sum {
        ty: SqlType,
        terms: Vec<(bool, Term)>,
        present: Option<usize>,
    },
    /// `AVG(e)`: over the rows counted in component `present` (the row
    /// count where that is `None`).
    Avg {
        ty: SqlType,
        terms: Vec<(bool, Term)>,
        present: Option<usize>,
    },
    /// `MIN(e)`, `MAX(e)`: a component, which can be NULL (its zero)
    /// where the view has no GROUP BY or `e` can be NULL.
    Best { component: usize, nullable: bool },
}

/// A GROUP BY key.
#[derive(Debug, Clone)]
enum Key {
    /// A column (its variable's root stands for every column unified
    /// with it).
    Column(Column),
    /// An expression over one FROM item's columns: a computed column of
    /// that item's atom (`{ let k: T = .. }`), named after the select
    /// item's alias where one names it.
    Computed { expr: Scalar, alias: Option<String> },
}

impl Key {
    /// The key's SQL type: a column's own, an expression's computed one.
    fn ty(&self) -> SqlType {
        match self {
            Key::Column(c) => c.ty,
            Key::Computed { expr, .. } => expr.ty(),
        }
    }

    /// Whether it can be NULL.
    fn nullable(&self) -> bool {
        match self {
            Key::Column(c) => c.nullable,
            Key::Computed { expr, .. } => expr.nullable(),
        }
    }
}

/// A select item's value over the group key and the aggregates.
#[derive(Debug, Clone)]
enum Out {
    Key(usize),
    Aggregate(usize),
    Const(Value),
    Arith(Arith, Box<Out>, Box<Out>),
    Neg(Box<Out>),
    Pick(Pick, Vec<Out>),
    /// `CASE WHEN c THEN v .. [ELSE e] END`; no `ELSE` is `ELSE NULL`.
    Case {
        arms: Vec<(OutCond, Out)>,
        otherwise: Option<Box<Out>>,
    },
}

/// A `WHEN` condition of a CASE over aggregates.
#[derive(Debug, Clone)]
enum OutCond {
    Cmp(Cmp, Box<Out>, Box<Out>),
    IsNull(Box<Out>),
    IsNotNull(Box<Out>),
    And(Box<OutCond>, Box<OutCond>),
    Or(Box<OutCond>, Box<OutCond>),
    Not(Box<OutCond>),
}

/// The lowering of one view.
struct Lowering<'a> {
    spans: &'a SpanMap,
    items: Vec<Item<'a>>,
    /// Union-find over the columns of the items, `(item, column)`.
    parent: HashMap<(usize, usize), (usize, usize)>,
    /// Constants in atoms.
    constants: HashMap<(usize, usize), Value>,
    /// Conditions, each a factor of its own.
    conditions: Vec<Scalar>,
    /// Columns read by something (conditions, keys, aggregates).
    read: Vec<(usize, usize)>,
    components: Vec<Component>,
    aggregates: Vec<Aggregate>,
    /// The GROUP BY keys, in order.
    keys: Vec<Key>,
    /// No GROUP BY and no aggregate: the selected columns are the key.
    bag: bool,
    /// The subqueries of WHERE, in order.
    semijoins: Vec<Semijoin>,
}

/// Lowers `select`, the body of view `name`, to a query item and its
/// wrapper's description.
pub fn view(
    spans: &SpanMap,
    tables: &[Table],
    name: &sqlparser::ast::Ident,
    options: ViewOptions,
    select: &Select,
    sql: &str,
) -> Result<(ast::QueryItem, SqlView), syn::Error> {
    let mut lowering = Lowering {
        spans,
        items: Vec::new(),
        parent: HashMap::new(),
        constants: HashMap::new(),
        conditions: Vec::new(),
        read: Vec::new(),
        components: vec![Component::Count],
        aggregates: Vec::new(),
        keys: Vec::new(),
        bag: false,
        semijoins: Vec::new(),
    };
    lowering
        .lower(tables, name, options, select, sql)
        .map_err(|(loc, message)| spans.error(loc, message))
}

impl<'a> Lowering<'a> {
    fn lower(
        &mut self,
        tables: &'a [Table],
        name: &sqlparser::ast::Ident,
        options: ViewOptions,
        select: &Select,
        sql: &str,
    ) -> Result<(ast::QueryItem, SqlView), Failure> {
        unsupported_clauses(select)?;
        // FROM: the atoms, and the conditions of JOIN .. ON.
        let on = self.from(tables, select, None)?;
        if self.items.is_empty() {
            return Err((select.span(), "a view needs a FROM clause".to_string()));
        }
        let projection = self.expand_wildcards(&select.projection)?;
        // WHERE and ON: split into conjuncts, each an equality to unify, a
        // constant to match, a condition, or a subquery (a semijoin).
        let mut conjuncts = Vec::new();
        for e in on.into_iter().chain(&select.selection) {
            split_and(e, &mut conjuncts);
        }
        for e in conjuncts {
            if let Some((negated, lhs, query)) = as_semijoin(e) {
                self.semijoin(tables, negated, lhs, query, e.span())?;
                continue;
            }
            let condition = scalar(e, &|ids, loc| self.resolve(ids, loc))?;
            if condition.ty() != SqlType::Bool {
                return Err((e.span(), "expected a condition".to_string()));
            }
            self.conjuncts(condition);
        }
        // GROUP BY.
        match &select.group_by {
            GroupByExpr::Expressions(exprs, modifiers) => {
                if !modifiers.is_empty() {
                    return Err((
                        select.span(),
                        "GROUP BY modifiers are not supported".to_string(),
                    ));
                }
                for e in exprs {
                    let (e, alias) = self.grouped(e, &projection)?;
                    let key = scalar(e, &|ids, loc| self.resolve(ids, loc))?;
                    self.group_by(key, alias, e.span())?;
                }
            }
            GroupByExpr::All(_) => {
                return Err((select.span(), "GROUP BY ALL is not supported".to_string()));
            }
        }
        // The select list. Without GROUP BY and aggregates, a bag of its
        // columns.
        self.bag = self.keys.is_empty()
            && !projection.iter().any(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    has_aggregate(e)
                }
                _ => false,
            });
        let mut outs = Vec::new();
        let mut has_aggregate = false;
        for item in &projection {
            let (e, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => {
                    (expr, Some(alias.value.to_lowercase()))
                }
                other => unreachable!("wildcards are written out: {other}"),
            };
            let out = self.out(e, &mut has_aggregate)?;
            outs.push((e, alias, out));
        }
        // A SELECT without aggregates is a bag of its columns.
        let bag = self.bag;
        if self.components.len() > MAX_COMPONENTS {
            return Err((
                select.span(),
                format!(
                    "this view needs {} aggregate components (a row count and one per distinct sum, minimum or maximum): at most {MAX_COMPONENTS} are supported",
                    self.components.len()
                ),
            ));
        }
        self.build(name, options, sql, outs, bag)
    }

    /// The select list with `*` written out as every column of the
    /// view's FROM items, in order, and `t.*` as every column of `t`: each
    /// an `alias.column` item, named for its column.
    fn expand_wildcards(&self, projection: &[SelectItem]) -> Result<Vec<SelectItem>, Failure> {
        let mut out = Vec::with_capacity(projection.len());
        for item in projection {
            let (options, only) = match item {
                SelectItem::Wildcard(options) => (options, None),
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(name),
                    options,
                ) => (options, Some(name.to_string().to_lowercase())),
                SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(e), _) => {
                    return Err((
                        e.span(),
                        "write `table.*` with the name or alias of a FROM item".to_string(),
                    ));
                }
                other => {
                    out.push(other.clone());
                    continue;
                }
            };
            if !options.to_string().is_empty() {
                return Err((
                    item.span(),
                    format!("`{options}` after `*` is not supported: list the columns instead"),
                ));
            }
            let span = item.span();
            let items: Vec<&Item> = self
                .items
                .iter()
                .filter(|i| i.owner.is_none() && only.as_ref().is_none_or(|name| *name == i.alias))
                .collect();
            if let (Some(name), true) = (&only, items.is_empty()) {
                return Err((
                    span,
                    format!("`{name}.*` names no table or alias of the view's FROM clause"),
                ));
            }
            for i in items {
                for (column, ..) in &i.table.columns {
                    let ids = vec![
                        sqlparser::ast::Ident::with_span(span, i.alias.as_str()),
                        sqlparser::ast::Ident::with_span(span, column.as_str()),
                    ];
                    out.push(SelectItem::UnnamedExpr(Expr::CompoundIdentifier(ids)));
                }
            }
        }
        Ok(out)
    }

    /// What a GROUP BY item names: a select item by its position (`GROUP
    /// BY 1`) or by its alias (where no FROM item has a column of that
    /// name, which takes precedence, as in PostgreSQL), else itself; with
    /// the select item's alias.
    fn grouped<'e>(
        &self,
        e: &'e Expr,
        projection: &'e [SelectItem],
    ) -> Result<(&'e Expr, Option<String>), Failure> {
        let item = |i: usize| match &projection[i] {
            SelectItem::UnnamedExpr(e) => Some((e, None)),
            SelectItem::ExprWithAlias { expr, alias } => {
                Some((expr, Some(alias.value.to_lowercase())))
            }
            _ => None,
        };
        let named = match e {
            Expr::Value(v) => match &v.value {
                sqlparser::ast::Value::Number(n, _) => {
                    let position = n
                        .parse::<usize>()
                        .ok()
                        .filter(|&i| (1..=projection.len()).contains(&i))
                        .ok_or_else(|| {
                            (
                                e.span(),
                                format!(
                                    "GROUP BY {n} names no select item: the select list has {} item{}, counted from 1",
                                    projection.len(),
                                    if projection.len() == 1 { "" } else { "s" }
                                ),
                            )
                        })?;
                    item(position - 1)
                }
                _ => None,
            },
            Expr::Identifier(id) => {
                let name = id.value.to_lowercase();
                let a_column = self
                    .items
                    .iter()
                    .any(|i| i.owner.is_none() && i.table.columns.iter().any(|c| c.0 == name));
                (0..projection.len())
                    .filter_map(item)
                    .find(|(_, alias)| !a_column && alias.as_deref() == Some(name.as_str()))
            }
            _ => None,
        };
        match named {
            Some((expr, _)) if has_aggregate(expr) => Err((
                e.span(),
                "GROUP BY names an aggregate: group by columns or expressions of columns"
                    .to_string(),
            )),
            Some(named) => Ok(named),
            None => Ok((e, None)),
        }
    }

    /// Adds a GROUP BY key, once: a column, or an expression over one FROM
    /// item's columns.
    fn group_by(&mut self, key: Scalar, alias: Option<String>, loc: Loc) -> Result<(), Failure> {
        match key {
            Scalar::Column(c) => {
                let root = self.find((c.item, c.column));
                if !self
                    .keys
                    .iter()
                    .any(|k| matches!(k, Key::Column(k) if self.find((k.item, k.column)) == root))
                {
                    self.keys.push(Key::Column(c));
                    self.read.push((c.item, c.column));
                }
            }
            Scalar::Const(_) => {
                return Err((
                    loc,
                    "GROUP BY a constant groups nothing: group by columns or expressions of columns"
                        .to_string(),
                ));
            }
            expr if self.homes(&expr).len() > 1 => {
                return Err((
                    loc,
                    "GROUP BY an expression over columns of several tables is not supported: group by an expression of one table's columns, or by the columns".to_string(),
                ));
            }
            expr => {
                if !self
                    .keys
                    .iter()
                    .any(|k| matches!(k, Key::Computed { expr: e, .. } if *e == expr))
                {
                    self.read
                        .extend(expr.columns().iter().map(|c| (c.item, c.column)));
                    self.keys.push(Key::Computed { expr, alias });
                }
            }
        }
        Ok(())
    }

    /// The computed GROUP BY key `e` is, if any.
    fn computed_key(&self, e: &Scalar) -> Option<usize> {
        self.keys
            .iter()
            .position(|k| matches!(k, Key::Computed { expr, .. } if expr == e))
    }

    /// The FROM items of `select` (the view's, or semijoin `owner`'s), and
    /// the conditions of its JOIN .. ON.
    fn from<'s>(
        &mut self,
        tables: &'a [Table],
        select: &'s Select,
        owner: Option<usize>,
    ) -> Result<Vec<&'s Expr>, Failure> {
        let mut on = Vec::new();
        for from in &select.from {
            self.item(tables, &from.relation, owner)?;
            for join in &from.joins {
                self.item(tables, &join.relation, owner)?;
                match &join.join_operator {
                    JoinOperator::Join(c) | JoinOperator::Inner(c) | JoinOperator::CrossJoin(c) => {
                        match c {
                            JoinConstraint::On(e) => on.push(e),
                            JoinConstraint::None => {}
                            _ => {
                                return Err((
                                    join.relation.span(),
                                    "write the join condition with ON (USING and NATURAL are not supported)".to_string(),
                                ));
                            }
                        }
                    }
                    _ => {
                        return Err((
                            join.relation.span(),
                            "this join is not supported: use an inner JOIN .. ON, a comma join or a LEFT JOIN .. ON; a semijoin is written `EXISTS (SELECT ..)` or `col IN (SELECT ..)` in WHERE".to_string(),
                        ));
                    }
                }
            }
        }
        Ok(on)
    }

    /// A subquery of WHERE, `[NOT] EXISTS (..)` or `lhs [NOT] IN (SELECT
    /// ..)`: its FROM items join the view's as semijoin `j`'s, its
    /// equalities with the view's columns correlate (unify) them, and its
    /// other conditions stay its own.
    fn semijoin(
        &mut self,
        tables: &'a [Table],
        negated: bool,
        lhs: Option<&Expr>,
        query: &sqlparser::ast::Query,
        loc: Loc,
    ) -> Result<(), Failure> {
        let j = self.semijoins.len();
        self.semijoins.push(Semijoin {
            negated,
            loc,
            conditions: Vec::new(),
            lifted: Vec::new(),
        });
        let select = subquery_select(query)?;
        let on = self.from(tables, select, Some(j))?;
        let scope = Some(j);
        if let Some(lhs) = lhs {
            self.in_correlation(j, lhs, select, loc)?;
        } else if select.projection.iter().any(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                has_aggregate(e)
            }
            _ => false,
        }) {
            return Err((
                select.span(),
                "an aggregate in an EXISTS subquery is not supported".to_string(),
            ));
        }
        let mut conjuncts = Vec::new();
        for e in on.into_iter().chain(&select.selection) {
            split_and(e, &mut conjuncts);
        }
        for e in conjuncts {
            if as_semijoin(e).is_some() {
                return Err((
                    e.span(),
                    "a subquery inside a subquery is not supported".to_string(),
                ));
            }
            let condition = scalar(e, &|ids, loc| self.resolve_in(scope, ids, loc))?;
            if condition.ty() != SqlType::Bool {
                return Err((e.span(), "expected a condition".to_string()));
            }
            self.inner_conjuncts(j, condition, e.span())?;
        }
        Ok(())
    }

    /// `lhs IN (SELECT x ..)`, of semijoin `j`: the correlation `lhs = x`,
    /// which unifies two columns of one type, or else is one of the
    /// subquery's conditions.
    fn in_correlation(
        &mut self,
        j: usize,
        lhs: &Expr,
        select: &Select,
        loc: Loc,
    ) -> Result<(), Failure> {
        let scope = Some(j);
        let [item] = select.projection.as_slice() else {
            return Err((
                select.span(),
                "the subquery of IN selects one column".to_string(),
            ));
        };
        let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item else {
            return Err((
                item.span(),
                "the subquery of IN selects one column".to_string(),
            ));
        };
        let inner = scalar(e, &|ids, loc| self.resolve_in(scope, ids, loc))?;
        let outer = scalar(lhs, &|ids, loc| self.resolve_in(None, ids, loc))?;
        if self.semijoins[j].negated && (inner.nullable() || outer.nullable()) {
            return Err((
                loc,
                "`NOT IN` over a value that can be NULL is not supported yet: SQL makes it NULL, not true, wherever the value or a row of the subquery is NULL; write `NOT EXISTS (SELECT .. WHERE inner = outer)` if that is what you mean".to_string(),
            ));
        }
        match (outer, inner) {
            (Scalar::Column(x), Scalar::Column(y)) if self.items[y.item].owner == scope => {
                if x.ty != y.ty {
                    return Err((
                        loc,
                        format!(
                            "IN compares a {} with a {}: compare columns of one type",
                            x.ty.name(),
                            y.ty.name()
                        ),
                    ));
                }
                if x.nullable {
                    self.lift(j, x, y);
                } else {
                    self.unify(x, y);
                }
            }
            // Else `lhs = x` is one of the subquery's conditions: with
            // a constant on the left (`3 IN (SELECT c ..)`), it reads
            // no outer column, and the subquery is uncorrelated.
            (outer, inner) => {
                let equal = super::expr::compare(Cmp::Eq, outer, inner, loc)?;
                self.inner_conjuncts(j, equal, loc)?;
            }
        }
        Ok(())
    }

    /// A conjunct of semijoin `j`'s WHERE: an equality of columns unifies
    /// them (with one of the view's, it correlates); an equality with a
    /// constant matches; any other condition must read the subquery's own
    /// columns only.
    fn inner_conjuncts(&mut self, j: usize, e: Scalar, loc: Loc) -> Result<(), Failure> {
        let own = |this: &Self, c: &Column| this.items[c.item].owner == Some(j);
        match e {
            Scalar::And(a, b) => {
                self.inner_conjuncts(j, *a, loc)?;
                self.inner_conjuncts(j, *b, loc)
            }
            Scalar::Const(Value::Bool(true)) => Ok(()),
            Scalar::Cmp(Cmp::Eq, a, b) => match (*a, *b) {
                (Scalar::Column(x), Scalar::Column(y))
                    if x.ty == y.ty && (own(self, &x) || own(self, &y)) =>
                {
                    let (outer, inner) = if own(self, &x) { (y, x) } else { (x, y) };
                    if !own(self, &outer) && outer.nullable {
                        self.lift(j, outer, inner);
                        return Ok(());
                    }
                    self.unify(x, y);
                    Ok(())
                }
                (Scalar::Column(c), Scalar::Const(v)) | (Scalar::Const(v), Scalar::Column(c))
                    if own(self, &c)
                        && !c.nullable
                        && constant_in_atom(c.ty, &v)
                        && !self.constants.contains_key(&(c.item, c.column)) =>
                {
                    self.constants.insert((c.item, c.column), v);
                    Ok(())
                }
                (Scalar::Column(x), Scalar::Column(y))
                    if x.ty != y.ty && own(self, &x) != own(self, &y) =>
                {
                    Err((
                        loc,
                        format!(
                            "a subquery correlates a {} with a {}: correlate columns of one type",
                            x.ty.name(),
                            y.ty.name()
                        ),
                    ))
                }
                (a, b) => {
                    self.inner_condition(j, Scalar::Cmp(Cmp::Eq, Box::new(a), Box::new(b)), loc)
                }
            },
            e => self.inner_condition(j, e, loc),
        }
    }

    /// `inner = outer` of semijoin `j`, `outer` a column that can be NULL:
    /// lifted (see [`Semijoin::lifted`]), and `inner` NULL matches nothing
    /// either. An `EXISTS` is lifted too, so that a `NOT EXISTS` on the
    /// same column still finds it as a value in the outer atom.
    fn lift(&mut self, j: usize, outer: Column, inner: Column) {
        // An outer column lifted already is one `let`: its inner columns
        // are equal to each other.
        let root = self.find((outer.item, outer.column));
        if let Some(&(_, earlier)) = self.semijoins[j]
            .lifted
            .iter()
            .find(|(o, _)| self.find((o.item, o.column)) == root)
        {
            self.unify(earlier, inner);
            return;
        }
        if inner.nullable {
            self.semijoins[j]
                .conditions
                .push(Scalar::IsNull(Box::new(Scalar::Column(inner)), true));
        }
        self.read
            .extend([(outer.item, outer.column), (inner.item, inner.column)]);
        self.semijoins[j].lifted.push((outer, inner));
    }

    /// The lifted correlations whose outer column turned out never NULL
    /// in the view's rows (an equality of the view joins it): unified after
    /// all. Decided for all before any is unified.
    fn unify_settled_lifts(&mut self) {
        let joined: Vec<Vec<bool>> = self
            .semijoins
            .iter()
            .map(|sj| {
                sj.lifted
                    .iter()
                    .map(|(o, _)| self.joined((o.item, o.column)))
                    .collect()
            })
            .collect();
        let mut unified = Vec::new();
        for (sj, joined) in self.semijoins.iter_mut().zip(joined) {
            let lifted = std::mem::take(&mut sj.lifted);
            for (pair, joined) in lifted.into_iter().zip(joined) {
                if joined {
                    unified.push(pair);
                } else {
                    sj.lifted.push(pair);
                }
            }
        }
        for (outer, inner) in unified {
            self.unify(outer, inner);
        }
    }

    fn inner_condition(&mut self, j: usize, e: Scalar, loc: Loc) -> Result<(), Failure> {
        let columns = e.columns();
        if columns.iter().any(|c| self.items[c.item].owner != Some(j)) {
            return Err((
                loc,
                "this condition of a subquery on the outer query's columns is not supported: a subquery correlates by equalities of its columns with the outer query's (`inner.col = outer.col`) and at most one other comparison (`inner.col <> outer.col`, `<`, `>`, ..); move conditions on the outer columns alone out of the subquery".to_string(),
            ));
        }
        self.read.extend(columns.iter().map(|c| (c.item, c.column)));
        self.semijoins[j].conditions.push(e);
        Ok(())
    }

    /// Unifies two columns into one variable, named after the view's
    /// column where one is a subquery's.
    fn unify(&mut self, x: Column, y: Column) {
        let (mut rx, mut ry) = (self.find((x.item, x.column)), self.find((y.item, y.column)));
        if self.items[rx.0].owner.is_some() && self.items[ry.0].owner.is_none() {
            std::mem::swap(&mut rx, &mut ry);
        }
        if rx != ry {
            self.parent.insert(ry, rx);
        }
        self.read.extend([(x.item, x.column), (y.item, y.column)]);
    }

    fn item(
        &mut self,
        tables: &'a [Table],
        factor: &TableFactor,
        owner: Option<usize>,
    ) -> Result<(), Failure> {
        let TableFactor::Table {
            name, alias, args, ..
        } = factor
        else {
            return Err((
                factor.span(),
                "only tables may appear in FROM (subqueries, functions and nested joins are not supported)".to_string(),
            ));
        };
        if args.is_some() {
            return Err((
                factor.span(),
                "table functions are not supported".to_string(),
            ));
        }
        let table_name = name.to_string().to_lowercase();
        let table = tables
            .iter()
            .find(|t| t.name == table_name)
            .ok_or_else(|| {
                (
                    name.span(),
                    format!(
                        "no table `{table_name}` is declared: add a CREATE TABLE before the view"
                    ),
                )
            })?;
        let alias_name = alias
            .as_ref()
            .map_or(table_name.clone(), |a| a.name.value.to_lowercase());
        // A subquery's alias may shadow the view's.
        if self
            .items
            .iter()
            .any(|i| i.alias == alias_name && i.owner == owner)
        {
            return Err((
                factor.span(),
                format!("`{alias_name}` names two FROM items: give one an alias"),
            ));
        }
        self.items.push(Item {
            alias: alias_name,
            table,
            loc: factor.span(),
            owner,
        });
        Ok(())
    }

    /// A column of the view's FROM items.
    fn resolve(&self, ids: &[sqlparser::ast::Ident], loc: Loc) -> Result<Column, Failure> {
        self.resolve_in(None, ids, loc)
    }

    /// A column as `scope` sees it: the view's FROM items, or a
    /// subquery's and then (correlated) the view's.
    fn resolve_in(
        &self,
        scope: Option<usize>,
        ids: &[sqlparser::ast::Ident],
        loc: Loc,
    ) -> Result<Column, Failure> {
        // The scopes to search, innermost first.
        let levels: Vec<Option<usize>> = match scope {
            None => vec![None],
            Some(j) => vec![Some(j), None],
        };
        let (item, column_name) = match ids {
            [column] => {
                let column_name = column.value.to_lowercase();
                let at = |level: Option<usize>| -> Vec<usize> {
                    (0..self.items.len())
                        .filter(|&i| {
                            self.items[i].owner == level
                                && self.items[i]
                                    .table
                                    .columns
                                    .iter()
                                    .any(|c| c.0 == column_name)
                        })
                        .collect()
                };
                let matching = levels
                    .iter()
                    .map(|&level| at(level))
                    .find(|m| !m.is_empty())
                    .unwrap_or_default();
                match matching.as_slice() {
                    [i] => (*i, column_name),
                    [] => {
                        return Err((
                            loc,
                            format!("no table in FROM has a column `{column_name}`"),
                        ));
                    }
                    _ => {
                        return Err((
                            loc,
                            format!(
                                "`{column_name}` is ambiguous: name its table, as in `alias.{column_name}`"
                            ),
                        ));
                    }
                }
            }
            [alias, column] => {
                let alias_name = alias.value.to_lowercase();
                let i = levels
                    .iter()
                    .find_map(|&level| {
                        self.items
                            .iter()
                            .position(|i| i.alias == alias_name && i.owner == level)
                    })
                    .ok_or_else(|| (loc, format!("no FROM item is named `{alias_name}`")))?;
                (i, column.value.to_lowercase())
            }
            _ => {
                return Err((
                    loc,
                    "write a column as `column` or `alias.column`".to_string(),
                ));
            }
        };
        let table = self.items[item].table;
        let column = table
            .columns
            .iter()
            .position(|c| c.0 == column_name)
            .ok_or_else(|| {
                (
                    loc,
                    format!("table `{}` has no column `{column_name}`", table.name),
                )
            })?;
        Ok(Column {
            item,
            column,
            ty: table.columns[column].1,
            nullable: table.columns[column].2 && !self.joined((item, column)),
        })
    }

    /// Whether a column is equal to another column: then it is never
    /// NULL where a row reaches the view (`=` rejects NULL), and its atom
    /// reads it as `Some(v)`.
    fn joined(&self, slot: (usize, usize)) -> bool {
        let root = self.find(slot);
        self.parent.keys().any(|&s| self.find(s) == root)
    }

    /// Marks the columns that a join unwrapped as not nullable in every
    /// expression read so far (a condition can be read before the
    /// equality that joins its column).
    fn settle_nulls(&mut self) {
        let joined: Vec<(usize, usize)> = self
            .parent
            .keys()
            .flat_map(|&s| [s, self.find(s)])
            .collect();
        let mut settle = |c: &mut Column| {
            if joined.contains(&(c.item, c.column)) {
                c.nullable = false;
            }
        };
        for e in self.conditions.iter_mut().chain(
            self.semijoins
                .iter_mut()
                .flat_map(|s| s.conditions.iter_mut()),
        ) {
            e.columns_mut(&mut settle);
        }
        for k in &mut self.keys {
            match k {
                Key::Column(c) => settle(c),
                Key::Computed { expr, .. } => expr.columns_mut(&mut settle),
            }
        }
        for c in &mut self.components {
            match c {
                Component::Count => {}
                Component::Sum(_, parts) => {
                    parts.iter_mut().for_each(|p| p.columns_mut(&mut settle));
                }
                Component::Best { arg, .. } => arg.columns_mut(&mut settle),
            }
        }
    }

    fn find(&self, mut slot: (usize, usize)) -> (usize, usize) {
        while let Some(&p) = self.parent.get(&slot) {
            slot = p;
        }
        slot
    }

    fn conjuncts(&mut self, e: Scalar) {
        match e {
            Scalar::And(a, b) => {
                self.conjuncts(*a);
                self.conjuncts(*b);
            }
            Scalar::Const(Value::Bool(true)) => {}
            // A WHERE that is false whatever the rows (a constant
            // subquery's): a factor reads a variable, so it says so as
            // `c <> c` of the first item's first column.
            Scalar::Const(Value::Bool(false)) | Scalar::Null(_) => {
                let c = Scalar::Column(Column {
                    item: 0,
                    column: 0,
                    ty: self.items[0].table.columns[0].1,
                    nullable: self.items[0].table.columns[0].2,
                });
                self.condition(Scalar::Cmp(Cmp::Ne, Box::new(c.clone()), Box::new(c)));
            }
            Scalar::Cmp(Cmp::Eq, a, b) => match (*a, *b) {
                (Scalar::Column(x), Scalar::Column(y)) if x.ty == y.ty => self.unify(x, y),
                (Scalar::Column(c), Scalar::Const(v)) | (Scalar::Const(v), Scalar::Column(c))
                    if !c.nullable
                        && constant_in_atom(c.ty, &v)
                        && !self.constants.contains_key(&(c.item, c.column)) =>
                {
                    self.constants.insert((c.item, c.column), v);
                }
                (a, b) => self.condition(Scalar::Cmp(Cmp::Eq, Box::new(a), Box::new(b))),
            },
            e => self.condition(e),
        }
    }

    fn condition(&mut self, e: Scalar) {
        self.read
            .extend(e.columns().iter().map(|c| (c.item, c.column)));
        self.conditions.push(e);
    }

    /// The value of a select item, registering the aggregates it reads.
    fn out(&mut self, e: &Expr, has_aggregate: &mut bool) -> Result<Out, Failure> {
        let loc = e.span();
        // An expression that is a computed GROUP BY key, as written there;
        // in a bag, an expression of one table's columns is one.
        if !self::has_aggregate(e)
            && let Ok(s) = scalar(e, &|ids, loc| self.resolve(ids, loc))
            && !matches!(s, Scalar::Column(_) | Scalar::Const(_))
        {
            if self.bag && self.homes(&s).len() == 1 {
                self.group_by(s.clone(), None, loc)?;
            }
            if let Some(k) = self.computed_key(&s) {
                return Ok(Out::Key(k));
            }
        }
        Ok(match e {
            Expr::Nested(inner) => self.out(inner, has_aggregate)?,
            Expr::Function(f) if is_scalar_function(f) && self::has_aggregate(e) => {
                if let Some(pick) = pick_of(f) {
                    let args = super::expr::arguments(f, loc)?
                        .into_iter()
                        .map(|a| self.out(a, has_aggregate))
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(Out::Pick(pick, args));
                }
                return Err((
                    loc,
                    format!(
                        "{} over aggregates is not supported yet: apply it inside the aggregate (`MAX(DATE_PART('year', d))`), or to the row's fields in Rust; GREATEST, LEAST and COALESCE are supported over aggregates",
                        f.name.to_string().to_uppercase()
                    ),
                ));
            }
            Expr::Function(f) if !is_scalar_function(f) => {
                *has_aggregate = true;
                Out::Aggregate(self.aggregate(f, loc)?)
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } if self::has_aggregate(e) => self.case_out(
                operand.as_deref(),
                conditions,
                else_result.as_deref(),
                has_aggregate,
            )?,
            Expr::BinaryOp { left, op, right } => {
                let op = match op {
                    sqlparser::ast::BinaryOperator::Plus => Arith::Add,
                    sqlparser::ast::BinaryOperator::Minus => Arith::Sub,
                    sqlparser::ast::BinaryOperator::Multiply => Arith::Mul,
                    sqlparser::ast::BinaryOperator::Divide => Arith::Div,
                    _ if !self::has_aggregate(e) => {
                        return Err((
                            loc,
                            "an expression of columns must be inside an aggregate or be in GROUP BY".to_string(),
                        ));
                    }
                    _ => {
                        return Err((
                            loc,
                            format!("`{op}` over aggregates is not supported: use +, -, * or /"),
                        ));
                    }
                };
                let (a, b) = (
                    self.out(left, has_aggregate)?,
                    self.out(right, has_aggregate)?,
                );
                Out::Arith(op, Box::new(a), Box::new(b))
            }
            Expr::UnaryOp {
                op: sqlparser::ast::UnaryOperator::Minus,
                expr,
            } => Out::Neg(Box::new(self.out(expr, has_aggregate)?)),
            _ => match scalar(e, &|ids, loc| self.resolve(ids, loc))? {
                Scalar::Const(v) => Out::Const(v),
                Scalar::Null(_) => {
                    return Err((
                        loc,
                        "NULL alone in the select list is not supported: it has no type here; select a column or an expression".to_string(),
                    ));
                }
                Scalar::Column(c) => {
                    let root = self.find((c.item, c.column));
                    match self.keys.iter().position(
                        |k| matches!(k, Key::Column(k) if self.find((k.item, k.column)) == root),
                    ) {
                        Some(k) => Out::Key(k),
                        None if self.bag => {
                            // A bag: its columns are the key.
                            self.keys.push(Key::Column(c));
                            self.read.push((c.item, c.column));
                            Out::Key(self.keys.len() - 1)
                        }
                        None => {
                            return Err((
                                loc,
                                "a column in the select list must be in GROUP BY (or inside an aggregate)".to_string(),
                            ));
                        }
                    }
                }
                _ => {
                    return Err((
                        loc,
                        "an expression of columns must be inside an aggregate or be in GROUP BY"
                            .to_string(),
                    ));
                }
            },
        })
    }

    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END` over aggregates: a
    /// simple CASE compares its operand with each `WHEN` value by `=`.
    fn case_out(
        &mut self,
        operand: Option<&Expr>,
        whens: &[sqlparser::ast::CaseWhen],
        otherwise: Option<&Expr>,
        has_aggregate: &mut bool,
    ) -> Result<Out, Failure> {
        let operand = operand.map(|o| self.out(o, has_aggregate)).transpose()?;
        let mut arms = Vec::new();
        for when in whens {
            let condition = match &operand {
                Some(o) => OutCond::Cmp(
                    Cmp::Eq,
                    Box::new(o.clone()),
                    Box::new(self.out(&when.condition, has_aggregate)?),
                ),
                None => self.out_cond(&when.condition, has_aggregate)?,
            };
            arms.push((condition, self.out(&when.result, has_aggregate)?));
        }
        let otherwise = match otherwise {
            Some(Expr::Value(v)) if v.value == sqlparser::ast::Value::Null => None,
            Some(e) => Some(Box::new(self.out(e, has_aggregate)?)),
            None => None,
        };
        Ok(Out::Case { arms, otherwise })
    }

    /// A `WHEN` condition over aggregates: comparisons, `IS [NOT] NULL`,
    /// `AND`, `OR` and `NOT`.
    fn out_cond(&mut self, e: &Expr, has_aggregate: &mut bool) -> Result<OutCond, Failure> {
        use sqlparser::ast::{BinaryOperator, UnaryOperator};
        let mut boxed = |e: &Expr| self.out(e, has_aggregate).map(Box::new);
        Ok(match e {
            Expr::Nested(inner) => return self.out_cond(inner, has_aggregate),
            Expr::IsNull(v) => OutCond::IsNull(boxed(v)?),
            Expr::IsNotNull(v) => OutCond::IsNotNull(boxed(v)?),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => match self.out_cond(expr, has_aggregate)? {
                // Folded as WHERE folds it (NULL stays NULL either way).
                OutCond::Cmp(op, a, b) => OutCond::Cmp(op.negated(), a, b),
                OutCond::Not(c) => *c,
                c => OutCond::Not(Box::new(c)),
            },
            Expr::BinaryOp { left, op, right }
                if matches!(op, BinaryOperator::And | BinaryOperator::Or) =>
            {
                let a = Box::new(self.out_cond(left, has_aggregate)?);
                let b = Box::new(self.out_cond(right, has_aggregate)?);
                match op {
                    BinaryOperator::And => OutCond::And(a, b),
                    _ => OutCond::Or(a, b),
                }
            }
            Expr::BinaryOp { left, op, right } if Cmp::of(op).is_some() => {
                let op = Cmp::of(op).expect("a comparison");
                OutCond::Cmp(op, boxed(left)?, boxed(right)?)
            }
            _ => {
                return Err((
                    e.span(),
                    "a WHEN of a CASE over aggregates compares values (`=`, `<>`, `<`, `<=`, `>`, `>=`), tests `IS [NOT] NULL`, or joins such tests with AND, OR and NOT".to_string(),
                ));
            }
        })
    }

    fn aggregate(&mut self, f: &sqlparser::ast::Function, loc: Loc) -> Result<usize, Failure> {
        let name = f.name.to_string().to_uppercase();
        let FunctionArguments::List(list) = &f.args else {
            return Err((loc, format!("`{name}` needs an argument list")));
        };
        if list.duplicate_treatment.is_some() {
            return Err((loc, "DISTINCT in an aggregate is not supported".to_string()));
        }
        if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
            return Err((
                loc,
                "FILTER, OVER and window functions are not supported".to_string(),
            ));
        }
        let arg = match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] if name == "COUNT" => None,
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => Some(e),
            _ => return Err((loc, format!("`{name}` takes one argument"))),
        };
        let arg = match arg {
            Some(e) => Some(scalar(e, &|ids, loc| self.resolve(ids, loc))?),
            None => None,
        };
        if let Some(a) = &arg {
            self.read
                .extend(a.columns().iter().map(|c| (c.item, c.column)));
        }
        // Where the argument can be NULL, each component of the aggregate
        // counts only the rows where it is not, and one more counts them.
        let guards = match &arg {
            Some(e) => self.guards(e, loc)?,
            None => Vec::new(),
        };
        let keyless = self.keys.is_empty();
        let present = |this: &mut Self| match guards.is_empty() {
            true => keyless.then_some(0),
            false => Some(this.component(Component::Sum(SqlType::BigInt, guards.clone()))),
        };
        let aggregate = match (name.as_str(), arg) {
            ("COUNT", Some(_)) if !guards.is_empty() => {
                let c = self.component(Component::Sum(SqlType::BigInt, guards.clone()));
                Aggregate::Sum {
                    ty: SqlType::BigInt,
                    terms: vec![(false, Term::Component(c))],
                    present: None,
                }
            }
            ("COUNT", _) => Aggregate::Count,
            ("SUM" | "AVG", Some(e)) => {
                if !e.ty().is_number() {
                    return Err((
                        loc,
                        format!("{name} needs a number, found a {}", e.ty().name()),
                    ));
                }
                let ty = e.ty();
                let mut terms = Vec::new();
                self.sum_terms(&e, false, &mut terms, (ty, &guards), loc)?;
                let present = present(self);
                if name == "SUM" {
                    Aggregate::Sum { ty, terms, present }
                } else {
                    Aggregate::Avg { ty, terms, present }
                }
            }
            ("MIN" | "MAX", Some(e)) => {
                let items: Vec<usize> = self.homes(&e);
                if items.len() > 1 {
                    return Err((
                        loc,
                        format!("{name} over columns of several tables is not supported"),
                    ));
                }
                match e.ty() {
                    SqlType::BigInt
                    | SqlType::Date
                    | SqlType::Decimal(Some(_))
                    | SqlType::Double => {}
                    t => {
                        return Err((
                            loc,
                            format!(
                                "{name} over a {} is not supported (integers, doubles, dates and decimals of a declared scale are)",
                                t.name()
                            ),
                        ));
                    }
                }
                let nullable = keyless || e.nullable();
                let c = Component::Best {
                    max: name == "MAX",
                    ty: e.ty(),
                    arg: e,
                };
                Aggregate::Best {
                    component: self.component(c),
                    nullable,
                }
            }
            _ => {
                return Err((
                    loc,
                    format!(
                        "the function `{name}` is not supported: use SUM, COUNT, AVG, MIN or MAX"
                    ),
                ));
            }
        };
        self.aggregates.push(aggregate);
        Ok(self.aggregates.len() - 1)
    }

    /// The FROM items an expression's columns belong to, each column at
    /// the first item holding its variable.
    fn homes(&self, e: &Scalar) -> Vec<usize> {
        let mut items: Vec<usize> = e.columns().iter().map(|c| c.item).collect();
        items.sort_unstable();
        items.dedup();
        items
    }

    /// Splits `SUM(e)` into signed products of one-item terms, one
    /// component each.
    ///
    /// Where the sum's argument can be NULL, each component also has the
    /// `guards`: the indicators that the argument is not NULL.
    fn sum_terms(
        &mut self,
        e: &Scalar,
        negated: bool,
        terms: &mut Vec<(bool, Term)>,
        (ty, guards): (SqlType, &[Scalar]),
        loc: Loc,
    ) -> Result<(), Failure> {
        if let Scalar::Const(v) = e {
            let v = v.cast(ty).ok_or_else(|| {
                (
                    loc,
                    format!("cannot add a {} to a sum of {}", v.ty().name(), ty.name()),
                )
            })?;
            if guards.is_empty() {
                terms.push((negated, Term::PerRow(v)));
            } else {
                // The constant rides on a guard's item: a factor of its
                // own would read no column.
                let mut parts = guards.to_vec();
                parts[0] = Scalar::Arith(
                    Arith::Mul,
                    Box::new(Scalar::Const(v)),
                    Box::new(parts[0].clone()),
                    ty,
                );
                let c = self.component(Component::Sum(ty, parts));
                terms.push((negated, Term::Component(c)));
            }
            return Ok(());
        }
        // Every component of one sum is in the sum's type, so that they
        // add up in one ring.
        if let Some(mut parts) = self.product(e) {
            parts.extend_from_slice(guards);
            let c = self.component(Component::Sum(ty, parts));
            terms.push((negated, Term::Component(c)));
            return Ok(());
        }
        let typed = (ty, guards);
        match e {
            Scalar::Arith(op @ (Arith::Add | Arith::Sub), a, b, _) => {
                self.sum_terms(a, negated, terms, typed, loc)?;
                self.sum_terms(b, negated ^ (*op == Arith::Sub), terms, typed, loc)
            }
            Scalar::Neg(a) => self.sum_terms(a, !negated, terms, typed, loc),
            // `CASE WHEN c THEN a ELSE b END` over several tables, with
            // `c` over one: `a` times [c] plus `b` times [c is not true]
            // (false or NULL).
            Scalar::Case(c, a, b, case_ty) if self.homes(c).len() <= 1 => {
                let indicator = |then: i64| {
                    Scalar::Case(
                        c.clone(),
                        Box::new(Scalar::Const(Value::Int(then))),
                        Box::new(Scalar::Const(Value::Int(1 - then))),
                        SqlType::BigInt,
                    )
                };
                let zero = |e: &Scalar| matches!(e, Scalar::Const(v) if v.is_zero());
                let both_zero = zero(a) && zero(b);
                for (branch, then) in [(a, 1), (b, 0)] {
                    if zero(branch) && !both_zero {
                        continue;
                    }
                    let term = Scalar::Arith(
                        Arith::Mul,
                        branch.clone(),
                        Box::new(indicator(then)),
                        *case_ty,
                    );
                    self.sum_terms(&term, negated, terms, typed, loc)?;
                }
                Ok(())
            }
            _ => Err((
                loc,
                "this sum mixes columns of several tables in a way that is not a sum of products of per-table terms".to_string(),
            )),
        }
    }

    /// The indicators that an aggregate's argument `e` is not NULL, each
    /// over one FROM item's columns: none where it cannot be NULL, one
    /// over its item where it reads one item, else one per item whose
    /// nullable columns it reads (where it is NULL exactly where one of
    /// them is).
    fn guards(&self, e: &Scalar, loc: Loc) -> Result<Vec<Scalar>, Failure> {
        let indicator = |c: Scalar| {
            Scalar::Case(
                Box::new(c),
                Box::new(Scalar::Const(Value::Int(1))),
                Box::new(Scalar::Const(Value::Int(0))),
                SqlType::BigInt,
            )
        };
        if !e.nullable() {
            return Ok(Vec::new());
        }
        let homes = self.homes(e);
        if homes.len() <= 1 {
            return Ok(vec![indicator(super::expr::is_null(e.clone(), true))]);
        }
        if !e.null_by_columns() {
            return Err((
                loc,
                "an aggregate over columns of several tables that can be NULL through CASE, COALESCE or NULL itself is not supported: aggregate an expression of one table's columns, or one that is NULL only where a column is".to_string(),
            ));
        }
        Ok(homes
            .iter()
            .filter_map(|&item| {
                e.strict_columns()
                    .into_iter()
                    .filter(|c| c.item == item)
                    .map(|c| super::expr::is_null(Scalar::Column(c), true))
                    .reduce(|a, b| Scalar::And(Box::new(a), Box::new(b)))
                    .map(indicator)
            })
            .collect())
    }

    /// `e` as a product of terms over one item each, if it is one.
    fn product(&self, e: &Scalar) -> Option<Vec<Scalar>> {
        if self.homes(e).len() <= 1 {
            return Some(vec![e.clone()]);
        }
        match e {
            Scalar::Arith(Arith::Mul, a, b, _) => {
                let mut parts = self.product(a)?;
                parts.extend(self.product(b)?);
                Some(parts)
            }
            _ => None,
        }
    }

    fn component(&mut self, c: Component) -> usize {
        match self.components.iter().position(|d| *d == c) {
            Some(i) => i,
            None => {
                self.components.push(c);
                self.components.len() - 1
            }
        }
    }

    /// The query item the view lowers to and its wrapper's description,
    /// once its clauses are read: the rule's variables, the head, atoms
    /// and factors, the payload, and the row's fields.
    fn build(
        &mut self,
        name: &sqlparser::ast::Ident,
        options: ViewOptions,
        sql: &str,
        outs: Vec<(&Expr, Option<String>, Out)>,
        bag: bool,
    ) -> Result<(ast::QueryItem, SqlView), Failure> {
        let span = self.spans.span(name.span);
        self.bind_unread_items();
        self.keep_read_constants();
        self.unify_settled_lifts();
        self.settle_nulls();
        let mut vars = self.variables();
        let head = self.head(&outs, &mut vars, span);
        let read_tables = self.read_tables();
        let payload = Payload::of(&self.components);
        // The factors: computed keys, conditions, then each item's lift.
        let var_of = |c: Column| self.var(&vars, c);
        let mut exprs: Vec<ExprSyntax> = head.lets;
        exprs.extend(self.conditions.iter().map(|c| ExprSyntax {
            binds: None,
            expr: unparenthesized(c.truth(&var_of)),
            span,
        }));
        exprs.extend(self.lifts(&vars, &payload, span));
        let struct_name = Ident::new(&camel(&name.value), span);
        let rule_name = format_ident!("{}Rule", struct_name);
        let item = ast::QueryItem {
            attrs: attributes(&options, &payload.ty, span),
            docs: vec![format!(" The rule SQL view `{}` lowers to.", name.value)],
            vis: syn::parse_quote! { pub },
            query_token: span,
            name: rule_name.clone(),
            dialect: crate::query::Dialect::Sql {
                view: name.value.to_lowercase(),
                tables: read_tables
                    .iter()
                    .map(|t| (camel(&t.name), t.name.clone()))
                    .collect(),
            },
            relations: relation_decls(&read_tables, span),
            rule: Rule {
                head_name: Ident::new("Q", span),
                head: head.vars,
                atoms: self.atoms(&vars, None),
                exprs,
                exists: self.exists(&vars),
            },
        };
        // The wrapper: fields read off the key and the payload.
        // A bag of constants only has no key either, and a row per copy.
        let shape = match (bag, self.keys.is_empty()) {
            (true, _) => ViewShape::Bag,
            (false, true) => ViewShape::Keyless,
            (false, false) => ViewShape::Grouped,
        };
        let fields = self.fields(&outs, span)?;
        let view = SqlView {
            name: struct_name,
            sql_name: name.value.to_lowercase(),
            rule: rule_name,
            sql: sql.to_string(),
            tables: view_tables(&read_tables, span),
            components: payload.semirings.len(),
            key_types: self.keys.iter().map(Key::ty).collect(),
            fields,
            shape,
            order: None,
            span,
        };
        Ok((item, view))
    }

    /// An atom binds at least one variable: an item none of whose columns
    /// is read (`SELECT COUNT(*) FROM r`) binds its first.
    fn bind_unread_items(&mut self) {
        for i in 0..self.items.len() {
            let reads = |slot: (usize, usize)| {
                let root = self.find(slot);
                self.read.iter().any(|&r| self.find(r) == root)
            };
            if !(0..self.items[i].table.columns.len()).any(|c| reads((i, c))) {
                self.read.push((i, 0));
            }
        }
    }

    /// A column equal to a constant and read by something else (a key, a
    /// join, an aggregate) stays a variable, and the equality is a
    /// condition on it; the other constants stay in their atoms.
    fn keep_read_constants(&mut self) {
        let mut matched: Vec<((usize, usize), Value)> = self.constants.drain().collect();
        matched.sort_by_key(|(slot, _)| *slot);
        for (slot, value) in matched {
            let root = self.find(slot);
            if self.read.iter().any(|&r| self.find(r) == root) {
                let column = Column {
                    item: slot.0,
                    column: slot.1,
                    ty: self.items[slot.0].table.columns[slot.1].1,
                    nullable: self.items[slot.0].table.columns[slot.1].2,
                };
                self.read.push(slot);
                let condition = Scalar::Cmp(
                    Cmp::Eq,
                    Box::new(Scalar::Column(column)),
                    Box::new(Scalar::Const(value)),
                );
                match self.items[slot.0].owner {
                    None => self.conditions.push(condition),
                    Some(j) => self.semijoins[j].conditions.push(condition),
                }
            } else {
                self.constants.insert(slot, value);
            }
        }
    }

    /// The rule's variables: one per class of unified columns that
    /// something reads, named `<alias>_<column>` after the class's root.
    fn variables(&self) -> Vars {
        let mut vars = Vars {
            by_root: HashMap::new(),
            taken: Vec::new(),
        };
        // A class of columns is named after its first column as the SQL
        // writes it (`c_custkey`) where no other class's first column has
        // that name, else with its table's alias (`e_salary`, `m_salary`).
        let mut roots: Vec<(usize, usize)> = Vec::new();
        for &slot in &self.read {
            let root = self.find(slot);
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        let column_name = |(item, column): (usize, usize)| {
            sanitize(&self.items[item].table.columns[column].0.to_string())
        };
        for &root in &roots {
            let (item, column) = root;
            let bare = column_name(root);
            let shared = roots
                .iter()
                .any(|&other| other != root && column_name(other) == bare);
            let base = if shared || RESERVED.contains(&bare.as_str()) {
                sanitize(&format!(
                    "{}_{}",
                    self.items[item].alias, self.items[item].table.columns[column].0
                ))
            } else {
                bare
            };
            let candidate = fresh(base, &mut vars.taken);
            vars.by_root.insert(
                root,
                Ident::new(&candidate, self.spans.span(self.items[item].loc)),
            );
        }
        vars
    }

    /// The variable of column `c`: its class's.
    fn var(&self, vars: &Vars, c: Column) -> Ident {
        vars.by_root[&self.find((c.item, c.column))].clone()
    }

    /// The head: each GROUP BY key's variable, a computed key's named
    /// after its select item's alias and defined by a `let`.
    fn head(&self, outs: &[(&Expr, Option<String>, Out)], vars: &mut Vars, span: Span) -> Head {
        let mut head = Head {
            vars: Vec::new(),
            lets: Vec::new(),
        };
        for (k, key) in self.keys.iter().enumerate() {
            let (expr, alias) = match key {
                Key::Column(c) => {
                    head.vars.push(self.var(vars, *c));
                    continue;
                }
                Key::Computed { expr, alias } => (expr, alias),
            };
            let alias = alias.clone().or_else(|| {
                outs.iter().find_map(|(_, alias, out)| match out {
                    Out::Key(j) if *j == k => alias.clone(),
                    _ => None,
                })
            });
            let item = home(expr);
            let base = sanitize(&format!(
                "{}_{}",
                self.items[item].alias,
                alias.unwrap_or_else(|| format!("key{}", k + 1))
            ));
            let candidate = fresh(base, &mut vars.taken);
            let name = Ident::new(&candidate, self.spans.span(self.items[item].loc));
            let ty = expr.ty();
            let value = super::expr::bare(expr.rust(&|c| self.var(vars, c)));
            let value = match (ty, expr.nullable()) {
                (SqlType::Text, false) => quote! { ::std::string::String::from(#value) },
                (SqlType::Text, true) => {
                    quote! { ::core::option::Option::map(#value, ::std::string::String::from) }
                }
                _ => value,
            };
            let rust_ty = ty.rust_nullable(expr.nullable());
            head.lets.push(ExprSyntax {
                binds: Some((name.clone(), syn::parse2(rust_ty).expect("a type"))),
                expr: syn::parse2(value).expect("an expression"),
                span,
            });
            head.vars.push(name);
        }
        head
    }

    /// Every table the view reads, once, in order of first use.
    fn read_tables(&self) -> Vec<&'a Table> {
        let mut read_tables: Vec<&Table> = Vec::new();
        for item in &self.items {
            if !read_tables.iter().any(|t| t.name == item.table.name) {
                read_tables.push(item.table);
            }
        }
        read_tables
    }

    /// The atom of FROM item `i`: a constant where the item's column
    /// matches one, its class's variable where something reads it, else
    /// `_`.
    fn atom(&self, vars: &Vars, i: usize) -> AtomSyntax {
        let spans = self.spans;
        let item = &self.items[i];
        AtomSyntax {
            relation: Ident::new(&camel(&item.table.name), spans.span(item.loc)),
            args: (0..item.table.columns.len())
                .map(|c| {
                    let loc_span = spans.span(item.loc);
                    if let Some(v) = self.constants.get(&(i, c)) {
                        let value = v.rust(item.table.columns[c].1);
                        return ArgSyntax::Const {
                            expr: Box::new(syn::parse2(value).expect("a literal")),
                            span: loc_span,
                        };
                    }
                    match vars.by_root.get(&self.find((i, c))) {
                        // A nullable column joined to another is read
                        // where it holds a value.
                        Some(v) if item.table.columns[c].2 && self.joined((i, c)) => {
                            ArgSyntax::Some {
                                var: v.clone(),
                                span: loc_span,
                            }
                        }
                        Some(v) => ArgSyntax::Var(v.clone()),
                        None => ArgSyntax::Wildcard(loc_span),
                    }
                })
                .collect(),
            span: spans.span(item.loc),
        }
    }

    /// The atoms of the FROM items of `owner`: the view's (`None`) or a
    /// semijoin's subquery's.
    fn atoms(&self, vars: &Vars, owner: Option<usize>) -> Vec<AtomSyntax> {
        (0..self.items.len())
            .filter(|&i| self.items[i].owner == owner)
            .map(|i| self.atom(vars, i))
            .collect()
    }

    /// The semijoins, each with its subquery's atoms and conditions.
    fn exists(&self, vars: &Vars) -> Vec<ast::ExistsSyntax> {
        let spans = self.spans;
        let var_of = |c: Column| self.var(vars, c);
        self.semijoins
            .iter()
            .enumerate()
            .map(|(j, sj)| ast::ExistsSyntax {
                negated: sj.negated,
                atoms: self.atoms(vars, Some(j)),
                exprs: sj
                    .lifted
                    .iter()
                    .map(|&(outer, inner)| self.lifted(vars, outer, inner, spans.span(sj.loc)))
                    .chain(sj.conditions.iter().map(|c| ExprSyntax {
                        binds: None,
                        expr: unparenthesized(c.truth(&var_of)),
                        span: spans.span(sj.loc),
                    }))
                    .collect(),
                span: spans.span(sj.loc),
            })
            .collect()
    }

    /// `{ let x: Option<T> = Some(y) }` of a lifted correlation: the
    /// subquery's column `y` as the outer column `x`'s variable.
    fn lifted(&self, vars: &Vars, outer: Column, inner: Column, span: Span) -> ExprSyntax {
        let (x, y) = (self.var(vars, outer), self.var(vars, inner));
        // Text is read by reference, the other types by value.
        let y = if inner.ty == SqlType::Text {
            quote! { ::core::clone::Clone::clone(#y) }
        } else {
            quote! { #y }
        };
        let value = if inner.nullable {
            y
        } else {
            quote! { ::core::option::Option::Some(#y) }
        };
        ExprSyntax {
            binds: Some((
                x,
                syn::parse2(outer.ty.rust_nullable(true)).expect("a type"),
            )),
            expr: syn::parse2(value).expect("an expression"),
            span,
        }
    }

    /// Each FROM item's lift, a factor of the payload's tuple type: its
    /// own part of each component, one elsewhere; none for an item with
    /// no part of any (and none at all when the payload is the row count
    /// alone).
    fn lifts(&self, vars: &Vars, payload: &Payload, span: Span) -> Vec<ExprSyntax> {
        if !payload.tuple {
            return Vec::new();
        }
        let var_of = |c: Column| self.var(vars, c);
        let mut lifts = Vec::new();
        for item in (0..self.items.len()).filter(|&i| self.items[i].owner.is_none()) {
            let parts: Vec<LiftPart> = self
                .components
                .iter()
                .zip(&payload.semirings)
                .map(|(c, k)| lift_part(c, k, item, &var_of))
                .collect();
            if parts.iter().any(|p| matches!(p, LiftPart::Own(_))) {
                let values = parts.into_iter().map(|p| match p {
                    LiftPart::Own(v) | LiftPart::One(v) => v,
                });
                lifts.push(ExprSyntax {
                    binds: None,
                    expr: syn::parse2(quote! { ( #(#values,)* ) }).expect("a tuple"),
                    span,
                });
            }
        }
        lifts
    }

    /// The row's fields, one per select item, each with its value read
    /// off the group's key and payload.
    fn fields(
        &self,
        outs: &[(&Expr, Option<String>, Out)],
        span: Span,
    ) -> Result<Vec<ViewField>, Failure> {
        let mut fields = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (i, (e, alias, out)) in outs.iter().enumerate() {
            let base = alias.clone().unwrap_or_else(|| default_name(e, i));
            let field_name = fresh(sanitize(&base), &mut names);
            // A quotient is NULL (`None`) where its divisor is zero.
            let value = match out {
                Out::Arith(Arith::Div, a, b) => self.quotient(a, b, e.span())?,
                _ => self.typed_out(out, e.span())?,
            };
            fields.push(ViewField {
                sql: e.to_string(),
                name: Ident::new(&field_name, span),
                column: base.to_lowercase(),
                value,
            });
        }
        Ok(fields)
    }

    /// A select item's value and its type, or why it does not type.
    fn typed_out(&self, out: &Out, loc: Loc) -> Result<Typed, Failure> {
        Ok(match out {
            Out::Key(k) => Typed {
                value: RowValue::Key(*k),
                ty: self.keys[*k].ty(),
                nullable: self.keys[*k].nullable(),
            },
            Out::Const(v) => Typed::new(RowValue::Const(v.clone()), v.ty()),
            Out::Aggregate(a) => self.typed_aggregate(&self.aggregates[*a]),
            Out::Neg(e) => {
                let e = self.typed_out(e, loc)?;
                if !e.ty.is_number() {
                    return Err((loc, format!("cannot negate a {}", e.ty.name())));
                }
                let ty = if e.ty.is_integer() {
                    SqlType::BigInt
                } else {
                    e.ty
                };
                Typed {
                    nullable: e.nullable,
                    value: RowValue::Neg(Box::new(e)),
                    ty,
                }
            }
            Out::Arith(Arith::Div, ..) => {
                return Err((
                    loc,
                    "a division over aggregates must be the last step of a select item (as in `100 * SUM(a) / SUM(b)`)".to_string(),
                ));
            }
            Out::Pick(pick, args) => self.typed_pick(*pick, args, loc)?,
            Out::Case { arms, otherwise } => self.typed_case(arms, otherwise.as_deref(), loc)?,
            Out::Arith(op, a, b) => {
                let (a, b, ty) = self.operands(a, b, loc)?;
                Typed {
                    nullable: a.nullable || b.nullable,
                    value: RowValue::Arith(*op, Box::new(a), Box::new(b)),
                    ty,
                }
            }
        })
    }

    /// A CASE over aggregates, in its values' common type; NULL where a
    /// value can be or no `ELSE` catches what the arms leave.
    fn typed_case(
        &self,
        arms: &[(OutCond, Out)],
        otherwise: Option<&Out>,
        loc: Loc,
    ) -> Result<Typed, Failure> {
        let arms = arms
            .iter()
            .map(|(c, v)| Ok((self.typed_cond(c, loc)?, self.typed_out(v, loc)?)))
            .collect::<Result<Vec<_>, Failure>>()?;
        let otherwise = otherwise.map(|o| self.typed_out(o, loc)).transpose()?;
        let values = || arms.iter().map(|(_, v)| v).chain(otherwise.as_ref());
        let mut ty = arms[0].1.ty;
        for v in values() {
            ty = ty.common(v.ty).ok_or_else(|| {
                (
                    loc,
                    format!(
                        "the values of this CASE are a {} and a {}: give every THEN and ELSE one type",
                        ty.name(),
                        v.ty.name()
                    ),
                )
            })?;
        }
        let nullable = otherwise.is_none() || values().any(|v| v.nullable);
        Ok(Typed {
            value: RowValue::Case {
                arms,
                otherwise: otherwise.map(Box::new),
            },
            ty: ty.computed(),
            nullable,
        })
    }

    /// A `WHEN` condition's operands typed, each comparison's in the
    /// common type of its sides.
    fn typed_cond(&self, c: &OutCond, loc: Loc) -> Result<RowCond, Failure> {
        let boxed = |c: &OutCond| self.typed_cond(c, loc).map(Box::new);
        Ok(match c {
            OutCond::Cmp(op, a, b) => {
                let (a, b) = (self.typed_out(a, loc)?, self.typed_out(b, loc)?);
                let common = a.ty.common(b.ty).ok_or_else(|| {
                    (
                        loc,
                        format!("cannot compare a {} with a {}", a.ty.name(), b.ty.name()),
                    )
                })?;
                RowCond::Cmp {
                    op: *op,
                    common,
                    operands: Box::new((a, b)),
                }
            }
            OutCond::IsNull(v) => RowCond::IsNull(Box::new(self.typed_out(v, loc)?)),
            OutCond::IsNotNull(v) => RowCond::IsNotNull(Box::new(self.typed_out(v, loc)?)),
            OutCond::And(a, b) => RowCond::And(boxed(a)?, boxed(b)?),
            OutCond::Or(a, b) => RowCond::Or(boxed(a)?, boxed(b)?),
            OutCond::Not(c) => RowCond::Not(boxed(c)?),
        })
    }

    /// GREATEST, LEAST or COALESCE over aggregates, in the arguments'
    /// common type; NULL only where every argument can be.
    fn typed_pick(&self, pick: Pick, args: &[Out], loc: Loc) -> Result<Typed, Failure> {
        let args = args
            .iter()
            .map(|a| self.typed_out(a, loc))
            .collect::<Result<Vec<_>, _>>()?;
        let mut ty = args[0].ty;
        for a in &args[1..] {
            ty = ty.common(a.ty).ok_or_else(|| {
                (
                    loc,
                    format!(
                        "the arguments of {} are a {} and a {}: compare values of one type",
                        pick.name(),
                        ty.name(),
                        a.ty.name()
                    ),
                )
            })?;
        }
        if pick != Pick::Coalesce && !(ty.is_number() || ty == SqlType::Date) {
            return Err((
                loc,
                format!(
                    "GREATEST and LEAST over aggregates compare numbers or dates, not a {}",
                    ty.name()
                ),
            ));
        }
        Ok(Typed {
            nullable: args.iter().all(|a| a.nullable),
            value: RowValue::Pick(pick, args),
            ty: ty.computed(),
        })
    }

    /// The two operands of arithmetic over aggregates, and the common
    /// numeric type both are brought to.
    fn operands(&self, a: &Out, b: &Out, loc: Loc) -> Result<(Typed, Typed, SqlType), Failure> {
        let a = self.typed_out(a, loc)?;
        let b = self.typed_out(b, loc)?;
        let ty = a.ty.common(b.ty).filter(|t| t.is_number()).ok_or_else(|| {
            (
                loc,
                format!(
                    "cannot compute with a {} and a {}",
                    a.ty.name(),
                    b.ty.name()
                ),
            )
        })?;
        Ok((a, b, ty))
    }

    /// `a / b` over aggregates: in `DOUBLE` when either is one, else in
    /// `BIGINT` (truncating, as SQL divides integers) or `DECIMAL`.
    fn quotient(&self, a: &Out, b: &Out, loc: Loc) -> Result<Typed, Failure> {
        let (a, b, common) = self.operands(a, b, loc)?;
        let ty = match common {
            SqlType::BigInt | SqlType::Double => common,
            _ => SqlType::Decimal(None),
        };
        Ok(Typed {
            value: RowValue::Quotient {
                common,
                operands: Box::new((a, b)),
            },
            ty,
            nullable: true,
        })
    }

    /// An aggregate's value and type.
    fn typed_aggregate(&self, a: &Aggregate) -> Typed {
        let (value, ty, nullable) = match a {
            Aggregate::Count => (RowValue::Count, SqlType::BigInt, false),
            Aggregate::Sum { ty, terms, present } => (
                RowValue::Sum {
                    terms: terms.clone(),
                    present: *present,
                },
                *ty,
                present.is_some(),
            ),
            Aggregate::Avg { ty, terms, present } => (
                RowValue::Avg {
                    sum: *ty,
                    terms: terms.clone(),
                    count: present.unwrap_or(0),
                },
                match ty {
                    SqlType::Double => SqlType::Double,
                    _ => SqlType::Decimal(None),
                },
                present.is_some(),
            ),
            Aggregate::Best {
                component,
                nullable,
            } => (
                RowValue::Best(*component),
                self.components[*component].ty(),
                *nullable,
            ),
        };
        Typed {
            value,
            ty,
            nullable,
        }
    }
}

/// The rule's variables as the lowering names them.
struct Vars {
    /// Each class of unified columns' variable, by the class's root.
    by_root: HashMap<(usize, usize), Ident>,
    /// The names taken (the computed keys' too), so that each is fresh.
    taken: Vec<String>,
}

/// The rule's head: the GROUP BY keys' variables, and the `let` factors
/// that compute the computed ones.
struct Head {
    /// The keys' variables, in order.
    vars: Vec<Ident>,
    /// One `{ let k: T = .. }` per computed key.
    lets: Vec<ExprSyntax>,
}

/// The view's payload: the row count alone (`Int`), or a tuple with one
/// semiring per component.
struct Payload {
    /// Each component's semiring.
    semirings: Vec<TokenStream>,
    /// Whether there is more than the row count: the payload is a tuple.
    tuple: bool,
    /// The payload's type.
    ty: syn::Type,
}

impl Payload {
    /// The payload of `components`.
    fn of(components: &[Component]) -> Self {
        let tuple = components.len() > 1;
        let semirings: Vec<TokenStream> = components.iter().map(Component::semiring).collect();
        let ty = if tuple {
            syn::parse2(quote! { ( #(#semirings,)* ) }).expect("a type")
        } else {
            syn::parse2(quote! { ::ivm::semiring::Int }).expect("a type")
        };
        Payload {
            semirings,
            tuple,
            ty,
        }
    }
}

/// What a FROM item's lift puts in one component of the payload.
enum LiftPart {
    /// The item's own factor of the component.
    Own(TokenStream),
    /// Not the item's: the component's one (`Int(1)` for the row count).
    One(TokenStream),
}

/// What FROM item `item`'s lift puts in component `c`, of semiring `k`:
/// the product of its terms of a sum, the (order-keeping) encoding of a
/// minimum or maximum over it, else one.
fn lift_part(
    c: &Component,
    k: &TokenStream,
    item: usize,
    var_of: &dyn Fn(Column) -> Ident,
) -> LiftPart {
    let one = quote! { <#k as ::ivm::Semiring>::one() };
    match c {
        Component::Count => LiftPart::One(quote! { ::ivm::semiring::Int(1) }),
        Component::Sum(ty, parts) => {
            let mine: Vec<&Scalar> = parts.iter().filter(|p| home(p) == item).collect();
            if mine.is_empty() {
                return LiftPart::One(one);
            }
            LiftPart::Own(sum_factor(*ty, &mine, var_of))
        }
        Component::Best { ty, arg, .. } => {
            if home(arg) != item {
                return LiftPart::One(one);
            }
            // Where it can be NULL, the value is bound (`__v`), and NULL
            // is the semiring's zero: no value.
            let v = if arg.nullable() {
                quote! { __v }
            } else {
                arg.rust(var_of)
            };
            // Borrowed, it keeps its parentheses; as an
            // argument, it needs none.
            let bare = super::expr::bare(v.clone());
            let encoded = match ty {
                SqlType::Date => {
                    quote! { i64::from(::ivm::sql::Date::days(&#v)) }
                }
                SqlType::Decimal(Some(s)) => {
                    quote! { ::ivm::sql::Decimal::scaled_mantissa(&#v, #s) }
                }
                SqlType::Double => {
                    quote! { ::ivm::sql::Double::order_key(#bare) }
                }
                _ => bare,
            };
            if arg.nullable() {
                let value = super::expr::bare(arg.rust(var_of));
                let wrap = if encoded.to_string() == "__v" {
                    k.clone()
                } else {
                    quote! { |__v| #k(#encoded) }
                };
                return LiftPart::Own(quote! {
                    ::core::option::Option::map_or(#value, <#k as ::ivm::Semiring>::zero(), #wrap)
                });
            }
            LiftPart::Own(quote! { #k(#encoded) })
        }
    }
}

/// An item's factor of a sum's component in type `ty`: the product of its
/// `parts`. A sum of decimals of a declared scale is an `ivm::sql::Fixed`,
/// computed on mantissas where every part is an exact number that cannot
/// be NULL, else as a `Decimal` and then converted.
fn sum_factor(ty: SqlType, parts: &[&Scalar], var_of: &dyn Fn(Column) -> Ident) -> TokenStream {
    let Some(scale) = ty.fixed_scale() else {
        return ring_product(ty, parts, var_of);
    };
    let factors: Option<Vec<_>> = parts
        .iter()
        .map(|p| super::fixed::mantissa(p, var_of))
        .collect();
    match factors.and_then(|f| super::fixed::Scaled::product_at(f, scale)) {
        // The scale is the payload's, which the lift's type gives.
        Some(m) => quote! { ::ivm::sql::Fixed::term(#m) },
        None => {
            let product = super::expr::bare(ring_product(ty, parts, var_of));
            quote! { ::ivm::sql::Fixed::of_decimal(#product) }
        }
    }
}

/// The product of `parts`, each cast to `ty`, in `ty`'s ring (`Int`,
/// `Real` or `Decimal`).
fn ring_product(ty: SqlType, parts: &[&Scalar], var_of: &dyn Fn(Column) -> Ident) -> TokenStream {
    let mut product: Option<TokenStream> = None;
    for p in parts {
        let v = super::expr::bare(super::expr::cast(p, ty, var_of));
        // Where it is NULL, a guard of the component is zero.
        let v = if p.nullable() {
            quote! { ::core::option::Option::unwrap_or_default(#v) }
        } else {
            v
        };
        let v = match ty {
            SqlType::BigInt => quote! { ::ivm::semiring::Int(#v) },
            SqlType::Double if is_path(&v) => {
                quote! { ::ivm::semiring::Real(#v.0) }
            }
            SqlType::Double => quote! { ::ivm::semiring::Real((#v).0) },
            _ => v,
        };
        product = Some(match product {
            None => v,
            Some(acc) => quote! { ::ivm::Semiring::mul(&#acc, &#v) },
        });
    }
    product.expect("a part")
}

/// The rule's attributes: its semiring, and the view's options.
fn attributes(options: &ViewOptions, semiring: &syn::Type, span: Span) -> Vec<ast::Attribute> {
    let mut attrs = vec![ast::Attribute::Semiring {
        span,
        ty: Box::new(semiring.clone()),
        classes: Vec::new(),
    }];
    if let Some(model) = &options.updates {
        attrs.push(ast::Attribute::Updates {
            span,
            model: Ident::new(model, span),
        });
    }
    if let Some(mode) = &options.deletes {
        attrs.push(ast::Attribute::Deletes {
            span,
            mode: Ident::new(mode, span),
        });
    }
    if let Some(strategy) = &options.strategy {
        attrs.push(ast::Attribute::Strategy {
            span,
            name: Ident::new(strategy, span),
            params: Vec::new(),
        });
    }
    if options.allow_intractable {
        attrs.push(ast::Attribute::AllowIntractable { span });
    }
    attrs
}

/// The rule's relations: each table read, its columns' names sanitized.
fn relation_decls(read_tables: &[&Table], span: Span) -> Vec<RelationDecl> {
    read_tables
        .iter()
        .map(|t| RelationDecl {
            docs: Vec::new(),
            name: Ident::new(&camel(&t.name), span),
            columns: t
                .columns
                .iter()
                .map(|(c, ty, nullable)| ast::ColumnDecl {
                    name: Ident::new(&sanitize(c), span),
                    ty: syn::parse2(ty.rust_nullable(*nullable)).expect("a type"),
                })
                .collect(),
            keys: t.keys.clone(),
        })
        .collect()
}

/// The wrapper's tables: each table read, with its typed-update methods'
/// name and its columns.
fn view_tables(read_tables: &[&Table], span: Span) -> Vec<ViewTable> {
    read_tables
        .iter()
        .map(|t| ViewTable {
            name: t.name.clone(),
            method: crate::plan::names::snake_case(&camel(&t.name)),
            columns: t
                .columns
                .iter()
                .map(|(c, ty, nullable)| {
                    (Ident::new(&sanitize(c), span), c.clone(), *ty, *nullable)
                })
                .collect(),
        })
        .collect()
}

/// A subquery's one SELECT block, without the clauses a semijoin cannot
/// have (WITH, ORDER BY, LIMIT, GROUP BY, ..).
fn subquery_select(query: &sqlparser::ast::Query) -> Result<&Select, Failure> {
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
    let sqlparser::ast::SetExpr::Select(select) = &*query.body else {
        return Err((
            query.body.span(),
            "a subquery is one SELECT block".to_string(),
        ));
    };
    unsupported_clauses(select)?;
    match &select.group_by {
        GroupByExpr::Expressions(exprs, _) if exprs.is_empty() => {}
        _ => {
            return Err((
                select.span(),
                "GROUP BY in a subquery is not supported: a semijoin asks whether a row exists"
                    .to_string(),
            ));
        }
    }
    Ok(select)
}

/// Whether an expression is a plain name (a variable), which needs no
/// parentheses before `.0`.
fn is_path(tokens: &TokenStream) -> bool {
    matches!(
        syn::parse2::<syn::Expr>(tokens.clone()),
        Ok(syn::Expr::Path(_))
    )
}

/// Whether a select item calls an aggregate (a function but `COALESCE`,
/// or one inside it).
pub(super) fn has_aggregate(e: &Expr) -> bool {
    match e {
        Expr::Function(f) if is_scalar_function(f) => match &f.args {
            FunctionArguments::List(list) => list.args.iter().any(
                |a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if has_aggregate(e)),
            ),
            _ => false,
        },
        Expr::Function(_) => true,
        Expr::Nested(e) | Expr::UnaryOp { expr: e, .. } | Expr::Cast { expr: e, .. } => {
            has_aggregate(e)
        }
        Expr::BinaryOp { left, right, .. } => has_aggregate(left) || has_aggregate(right),
        Expr::IsNull(e) | Expr::IsNotNull(e) => has_aggregate(e),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().is_some_and(has_aggregate)
                || else_result.as_deref().is_some_and(has_aggregate)
                || conditions
                    .iter()
                    .any(|w| has_aggregate(&w.condition) || has_aggregate(&w.result))
        }
        _ => false,
    }
}

/// Whether a function computes a value of each row (`COALESCE`,
/// `GREATEST`, `LEAST` and their DBToaster names, `DATE_PART`), not an
/// aggregate.
pub(super) fn is_scalar_function(f: &sqlparser::ast::Function) -> bool {
    let name = f.name.to_string().to_lowercase();
    matches!(
        name.as_str(),
        "coalesce" | "greatest" | "least" | "listmax" | "listmin" | "date_part"
    )
}

/// A condition as a factor's expression.
fn unparenthesized(tokens: TokenStream) -> syn::Expr {
    syn::parse2(super::expr::bare(tokens)).expect("an expression")
}

/// Which argument GREATEST, LEAST (DBToaster's LISTMAX, LISTMIN) or
/// COALESCE picks; `None` for another function.
fn pick_of(f: &sqlparser::ast::Function) -> Option<Pick> {
    match f.name.to_string().to_lowercase().as_str() {
        "greatest" | "listmax" => Some(Pick::Greatest),
        "least" | "listmin" => Some(Pick::Least),
        "coalesce" => Some(Pick::Coalesce),
        _ => None,
    }
}

/// The FROM item a one-item term is computed at: the first whose columns
/// it reads (a constant term goes to the first item).
fn home(e: &Scalar) -> usize {
    e.columns().iter().map(|c| c.item).min().unwrap_or(0)
}

/// Whether `column = value` can be a constant in the atom: the literal
/// forms of the rule language (integers, strings, booleans) of the
/// column's own type.
fn constant_in_atom(ty: SqlType, v: &Value) -> bool {
    match (ty, v) {
        (SqlType::SmallInt, Value::Int(i)) => i16::try_from(*i).is_ok(),
        (SqlType::Int, Value::Int(i)) => i32::try_from(*i).is_ok(),
        (SqlType::BigInt, Value::Int(_)) => true,
        (SqlType::Text, Value::Text(_)) | (SqlType::Bool, Value::Bool(_)) => true,
        _ => false,
    }
}

/// The conjuncts of `e`, its `AND`s (and parentheses) taken apart.
fn split_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: sqlparser::ast::BinaryOperator::And,
            right,
        } => {
            split_and(left, out);
            split_and(right, out);
        }
        Expr::Nested(inner) => split_and(inner, out),
        e => out.push(e),
    }
}

/// A conjunct that is a subquery: `[NOT] EXISTS (..)` or `lhs [NOT] IN
/// (SELECT ..)`, with whether it is negated and the left side of IN.
fn as_semijoin(e: &Expr) -> Option<(bool, Option<&Expr>, &sqlparser::ast::Query)> {
    match e {
        Expr::Exists { subquery, negated } => Some((*negated, None, subquery)),
        Expr::In {
            expr,
            target: sqlparser::ast::InTarget::Subquery(subquery),
            negated,
            global: false,
        } => Some((*negated, Some(expr), subquery)),
        Expr::Nested(inner) => as_semijoin(inner),
        Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Not,
            expr,
        } => as_semijoin(expr).map(|(negated, lhs, q)| (!negated, lhs, q)),
        _ => None,
    }
}

fn unsupported_clauses(select: &Select) -> Result<(), Failure> {
    let loc = select.span();
    if select.distinct.is_some() {
        return Err((
            loc,
            "SELECT DISTINCT is not supported: GROUP BY the columns instead".to_string(),
        ));
    }
    if let Some(h) = &select.having {
        return Err((h.span(), "HAVING is not supported".to_string()));
    }
    if select.top.is_some() || !select.named_window.is_empty() || select.qualify.is_some() {
        return Err((loc, "TOP, WINDOW and QUALIFY are not supported".to_string()));
    }
    if select.into.is_some() || !select.lateral_views.is_empty() {
        return Err((loc, "INTO and LATERAL VIEW are not supported".to_string()));
    }
    Ok(())
}

/// The name of a select item without an alias: its column, else its
/// aggregate function, else `expr<i>`.
pub(super) fn default_name(e: &Expr, i: usize) -> String {
    match e {
        Expr::Identifier(id) => id.value.to_lowercase(),
        Expr::CompoundIdentifier(ids) => ids
            .last()
            .map_or(format!("expr{}", i + 1), |id| id.value.to_lowercase()),
        Expr::Function(f) => f.name.to_string().to_lowercase(),
        Expr::Nested(inner) => default_name(inner, i),
        _ => format!("expr{}", i + 1),
    }
}

/// `base`, or `base_2`, `base_3`, ... if taken; recorded as taken.
pub(super) fn fresh(base: String, taken: &mut Vec<String>) -> String {
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.push(name.clone());
    name
}

/// Names a variable of generated code must not take: the primitive types
/// generated expressions name (`i64::from(..)`), and the parameters and
/// locals of generated methods.
const RESERVED: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char", "str", "key", "first", "delta",
];

/// A name usable as a Rust identifier.
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if syn::parse_str::<Ident>(&s).is_err() {
        s.push('_');
    }
    s
}

/// `revenue_by_store` → `RevenueByStore`.
pub fn camel(name: &str) -> String {
    let s: String = sanitize(name)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("View{s}")
    } else {
        s
    }
}
