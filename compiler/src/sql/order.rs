//! ORDER BY, LIMIT and OFFSET of a view (`docs/design.md#order-by-and-limit`):
//! which select item each ORDER BY item names, which way it sorts, where
//! NULL goes, and the window of rows the view keeps.
//!
//! An ORDER BY item names a select item: by its position (`ORDER BY 2`),
//! its name (an alias, or the column it selects), or its expression as the
//! select list writes it (`ORDER BY SUM(x)` for `SUM(x) AS total`). A view
//! keeps only its select items, so nothing else can order it.

use sqlparser::ast::{
    Expr, LimitClause, OrderByExpr, OrderByKind, OrderBySort, Query, Select, SelectItem, Spanned,
    Value as SqlValue,
};
use sqlparser::tokenizer::Span as Loc;

use super::{SpanMap, ViewField, ViewShape};
use crate::ir::ChangeTracking;

/// A view's ORDER BY, LIMIT and OFFSET.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// The ORDER BY items, in order; none for a LIMIT without ORDER BY,
    /// whose rows are then ordered by their select items.
    pub keys: Vec<OrderKey>,
    /// `LIMIT k`: at most k rows.
    pub limit: Option<u64>,
    /// `OFFSET m`: the first m rows are skipped.
    pub offset: u64,
}

impl Order {
    /// Whether the view keeps only a window of its ordered rows (LIMIT or
    /// OFFSET): then its rows are kept in order as they change, where
    /// ORDER BY alone sorts them at reading.
    pub fn is_window(&self) -> bool {
        self.limit.is_some() || self.offset > 0
    }

    /// The ORDER BY, LIMIT and OFFSET as explain prints them, by the
    /// fields' names.
    pub fn describe(&self, fields: &[ViewField]) -> String {
        let mut text = String::new();
        if !self.keys.is_empty() {
            let keys: Vec<String> = self
                .keys
                .iter()
                .map(|k| {
                    let mut key = fields[k.field].name.to_string();
                    if k.descending {
                        key.push_str(" DESC");
                    }
                    if k.nulls_first == k.descending {
                        key.push_str(if k.nulls_first {
                            " NULLS FIRST"
                        } else {
                            " NULLS LAST"
                        });
                    }
                    key
                })
                .collect();
            text = format!("ORDER BY {}", keys.join(", "));
        }
        let mut window = Vec::new();
        if let Some(limit) = self.limit {
            window.push(format!("LIMIT {limit}"));
        }
        if self.offset > 0 {
            window.push(format!("OFFSET {}", self.offset));
        }
        [text, window.join(" ")]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How a view with LIMIT or OFFSET keeps its window, by how its rule
/// finds what changed (`docs/design.md#order-by-and-limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keeping {
    /// Every row in an ordered map, fed the rule's changes after each
    /// update: the rule finds them in time proportional to them.
    Fed,
    /// The rows sorted at reading and the window cut from them: the rule
    /// finds its changes only by comparing its whole result with the
    /// previous one, which feeding a map after every update would pay.
    Sorted,
}

impl Keeping {
    /// How the window of a view whose rule tracks its changes so is kept.
    pub fn of(tracking: &ChangeTracking) -> Keeping {
        match tracking {
            ChangeTracking::Diff => Keeping::Sorted,
            _ => Keeping::Fed,
        }
    }
}

/// One ORDER BY item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderKey {
    /// The select item it names, from 0.
    pub field: usize,
    /// `DESC`.
    pub descending: bool,
    /// Whether NULL comes first: by default NULL is the smallest value,
    /// as in SQLite (first under ASC, last under DESC).
    pub nulls_first: bool,
}

type Failure = (Loc, String);

/// The ORDER BY, LIMIT and OFFSET of `query`, a view whose row has
/// `fields`: `None` without them, or where they cannot change the one
/// row of a view without GROUP BY.
///
/// # Errors
///
/// An ORDER BY item that names no select item, a LIMIT or OFFSET that is
/// not a whole number, the forms that are not supported (`LIMIT .. BY`,
/// `FETCH .. WITH TIES`, `USING`), and a window that always empties a
/// view of one row.
pub fn order(
    query: &Query,
    select: &Select,
    fields: &[ViewField],
    shape: ViewShape,
    spans: &SpanMap,
) -> Result<Option<Order>, syn::Error> {
    // The select items as written, where each is one field: the lowering
    // rewrites some (an outer join's columns), and ORDER BY quotes them.
    let written: Vec<String> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                Some(e.to_string().to_lowercase())
            }
            _ => None,
        })
        .collect();
    let one_each = written.len() == select.projection.len() && written.len() == fields.len();
    let written = if one_each { written } else { Vec::new() };
    let names = Names { fields, written };
    resolve(query, &names, shape).map_err(|(loc, message)| spans.error(loc, message))
}

/// What an ORDER BY item can name a select item by.
struct Names<'a> {
    /// The fields, with their column names and lowered expressions.
    fields: &'a [ViewField],
    /// The select items' expressions as written, in lower case, where
    /// each is one field (no `*`); empty otherwise.
    written: Vec<String>,
}

fn resolve(query: &Query, names: &Names, shape: ViewShape) -> Result<Option<Order>, Failure> {
    let keys = match &query.order_by {
        None => Vec::new(),
        Some(order_by) => match &order_by.kind {
            OrderByKind::Expressions(items) => items
                .iter()
                .map(|item| key(item, names))
                .collect::<Result<_, _>>()?,
            OrderByKind::All(_) => {
                return Err((
                    order_by.span(),
                    "ORDER BY ALL is not supported: name the select items".to_string(),
                ));
            }
        },
    };
    let (limit, offset) = window(query)?;
    if query.order_by.is_none() && limit.is_none() && offset == 0 {
        return Ok(None);
    }
    let order = Order {
        keys,
        limit,
        offset,
    };
    if shape == ViewShape::Keyless {
        // One row, always: ORDER BY cannot move it, and a window keeps it
        // or drops it for good.
        if order.offset > 0 || order.limit == Some(0) {
            return Err((
                window_span(query),
                "a view without GROUP BY has exactly one row, which this LIMIT or OFFSET always drops: remove them".to_string(),
            ));
        }
        return Ok(None);
    }
    Ok(Some(order))
}

/// The select item an ORDER BY item names, and which way it sorts.
fn key(item: &OrderByExpr, names: &Names) -> Result<OrderKey, Failure> {
    let loc = item.expr.span();
    if item.with_fill.is_some() {
        return Err((loc, "ORDER BY .. WITH FILL is not supported".to_string()));
    }
    let descending = match &item.options.sort {
        None | Some(OrderBySort::Asc) => false,
        Some(OrderBySort::Desc) => true,
        Some(OrderBySort::Using(_)) => {
            return Err((
                loc,
                "ORDER BY .. USING is not supported: write ASC or DESC".to_string(),
            ));
        }
    };
    let field = field(&item.expr, names)?;
    Ok(OrderKey {
        field,
        descending,
        nulls_first: item.options.nulls_first.unwrap_or(!descending),
    })
}

/// The select item `e` names: by position, by name, or by expression.
fn field(e: &Expr, names: &Names) -> Result<usize, Failure> {
    let (fields, loc) = (names.fields, e.span());
    if let Expr::Value(v) = e
        && let SqlValue::Number(n, _) = &v.value
    {
        return match n.parse::<usize>() {
            Ok(p) if (1..=fields.len()).contains(&p) => Ok(p - 1),
            _ => Err((
                loc,
                format!(
                    "ORDER BY {n}: a position in the select list is from 1 to {}",
                    fields.len()
                ),
            )),
        };
    }
    if let Expr::Identifier(id) = e {
        let name = id.value.to_lowercase();
        if let Some(i) = fields.iter().position(|f| f.column == name) {
            return Ok(i);
        }
    }
    let text = e.to_string().to_lowercase();
    if let Some(i) = names.written.iter().position(|w| *w == text) {
        return Ok(i);
    }
    if let Some(i) = fields.iter().position(|f| f.sql.to_lowercase() == text) {
        return Ok(i);
    }
    let names: Vec<&str> = fields.iter().map(|f| f.column.as_str()).collect();
    Err((
        loc,
        format!(
            "ORDER BY `{e}` is not a select item: a view keeps only its select items, so order by one of them, by its name ({}), its position or its expression",
            names.join(", ")
        ),
    ))
}

/// LIMIT and OFFSET (or FETCH FIRST), as whole numbers.
fn window(query: &Query) -> Result<(Option<u64>, u64), Failure> {
    let (mut limit, offset) = match &query.limit_clause {
        None => (None, 0),
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) => {
            if let Some(by) = limit_by.first() {
                return Err((by.span(), "LIMIT .. BY is not supported".to_string()));
            }
            let limit = limit.as_ref().map(|e| count(e, "LIMIT")).transpose()?;
            let offset = offset
                .as_ref()
                .map(|o| count(&o.value, "OFFSET"))
                .transpose()?;
            (limit, offset.unwrap_or(0))
        }
        Some(LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(count(limit, "LIMIT")?), count(offset, "OFFSET")?)
        }
    };
    if let Some(fetch) = &query.fetch {
        if fetch.with_ties || fetch.percent {
            return Err((
                window_span(query),
                "FETCH .. WITH TIES and FETCH .. PERCENT are not supported: write FETCH FIRST n ROWS ONLY".to_string(),
            ));
        }
        let rows = match &fetch.quantity {
            Some(e) => count(e, "FETCH FIRST")?,
            None => 1,
        };
        limit = Some(limit.map_or(rows, |l| l.min(rows)));
    }
    Ok((limit, offset))
}

/// Where the window is written: the LIMIT clause, else FETCH's number,
/// else the whole query.
fn window_span(query: &Query) -> Loc {
    let fetch = query.fetch.as_ref().and_then(|f| f.quantity.as_ref());
    query
        .limit_clause
        .as_ref()
        .map(Spanned::span)
        .or_else(|| fetch.map(Spanned::span))
        .unwrap_or_else(|| query.span())
}

/// A LIMIT's or OFFSET's whole number.
fn count(e: &Expr, clause: &str) -> Result<u64, Failure> {
    if let Expr::Value(v) = e
        && let SqlValue::Number(n, _) = &v.value
        && let Ok(n) = n.parse::<u64>()
    {
        return Ok(n);
    }
    Err((
        e.span(),
        format!("{clause} takes a whole number, such as {clause} 10"),
    ))
}
