//! The SQL front end (`docs/design.md#sql`): `CREATE TABLE` and `CREATE VIEW
//! .. AS SELECT` in, one rule-language query item per view out, plus what
//! the emitter needs to wrap that query's struct in the view's typed API.
//!
//! SQL is only a front end: [`parse`] lowers each view onto the rule
//! language (`docs/design.md#the-rule-language`; [`lower`]), and from
//! [`syntax::check`](crate::syntax::check) on nothing knows where a query
//! came from. The lowering in one line per clause:
//!
//! | SQL | rule |
//! |---|---|
//! | a FROM item (an alias, a self-join) | an atom of its table's relation |
//! | `a.x = b.y` | one variable for both columns |
//! | `a.x = 7`, `a.s = 'BUILDING'` | a constant in the atom |
//! | any other condition | a `{ .. }` factor: local to an atom, or theta |
//! | GROUP BY columns | the head |
//! | the aggregates | one tuple payload: a row count, and a ring, `MinPlus` or `MaxPlus` component per sum of products, minimum or maximum, each lifted by a factor per FROM item |
//!
//! Arithmetic over aggregates, `AVG` and the names and types of the row's
//! fields are read off the key and the payload by the wrapper
//! ([`SqlView`], `emit::sql`).

mod expr;
mod fixed;
pub mod lower;
mod nest;
pub mod order;
pub mod row;
mod span;
pub mod types;

use proc_macro2::Span;
use sqlparser::ast::{
    ColumnOption, CreateTableOptions, Expr, ObjectName, ObjectNamePart, SetExpr, SqlOption,
    Statement, Value as SqlValue,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Span as Loc};
use syn::Ident;

pub use expr::{Arith, Cmp, bare, widen};
pub use span::SpanMap;
pub use types::SqlType;

use crate::syntax::ast;

/// A table declared by `CREATE TABLE`.
#[derive(Debug, Clone)]
pub struct Table {
    /// Its name, in lower case.
    pub name: String,
    /// Its columns, in order: the name in lower case, the type, and
    /// whether it was declared `NULL` (its Rust type is then `Option<T>`).
    pub columns: Vec<(String, SqlType, bool)>,
    /// Its keys, from `PRIMARY KEY` and `UNIQUE`: sets of columns (by
    /// index) no two of its rows share. Not enforced: `ivmc explain`
    /// states the bounds they give, which hold when the data obey them.
    pub keys: Vec<Vec<usize>>,
}

/// The `WITH (..)` options of a view: the attributes of the rule language
/// (`docs/design.md#attributes`).
#[derive(Debug, Clone, Default)]
pub struct ViewOptions {
    /// `updates = 'insert_only'` or `'insert_delete'`.
    pub updates: Option<String>,
    /// `deletes = 'checked'` or `'trusted'`.
    pub deletes: Option<String>,
    /// `strategy = '...'`.
    pub strategy: Option<String>,
    /// `intractable = 'allow'`.
    pub allow_intractable: bool,
}

/// One public field of a view's row struct.
#[derive(Debug, Clone)]
pub struct ViewField {
    /// The select item, as SQL.
    pub sql: String,
    /// The field's name (the select item's alias, column or aggregate).
    pub name: Ident,
    /// The select item's column name in SQL, in lower case: its alias, the
    /// column it selects, or the name SQL gives an expression.
    pub column: String,
    /// Its value, read off the group's key and payload, its type, and
    /// whether it can be SQL's NULL (`None`).
    pub value: row::Typed,
}

/// A table the view reads, as its wrapper exposes it.
#[derive(Debug, Clone)]
pub struct ViewTable {
    /// The SQL name, in lower case (what `insert_text` matches).
    pub name: String,
    /// The `snake_case` name of the methods (`insert_<method>`).
    pub method: String,
    /// The columns: Rust name, SQL name, type, and whether it is
    /// nullable (`Option<T>`).
    pub columns: Vec<(Ident, String, SqlType, bool)>,
}

/// What the emitter needs to wrap a view's rule struct in the API of a SQL
/// view (`docs/reference.md#sql-views-from-rust`): typed updates, rows, and
/// the text interface.
#[derive(Debug, Clone)]
pub struct SqlView {
    /// The view's struct (`revenue_by_store` gives `RevenueByStore`).
    pub name: Ident,
    /// The view's SQL name, in lower case.
    pub sql_name: String,
    /// The rule's struct, which the view's struct holds.
    pub rule: Ident,
    /// The view's SQL, for its doc comment.
    pub sql: String,
    /// The tables it reads, each once, in order of first use.
    pub tables: Vec<ViewTable>,
    /// The payload's components, the row count first: a tuple of them
    /// when there are several.
    pub components: usize,
    /// The types of the group key's items (GROUP BY order).
    pub key_types: Vec<SqlType>,
    /// The row's fields, in select-list order.
    pub fields: Vec<ViewField>,
    /// How its rows are keyed.
    pub shape: ViewShape,
    /// Its ORDER BY, LIMIT and OFFSET, if any.
    pub order: Option<order::Order>,
    /// Where the view is named.
    pub span: Span,
}

/// How a view's rows are keyed, by its GROUP BY and aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewShape {
    /// GROUP BY: one row per group that has rows.
    Grouped,
    /// Aggregates without GROUP BY: exactly one row, always (its
    /// aggregates NULL while no row is in it, a count zero).
    Keyless,
    /// No aggregates at all: a bag of the selected columns, one row per
    /// copy in `text_rows`.
    Bag,
}

/// One view: the rule it lowers to, its wrapper, and the pieces it reads.
#[derive(Debug, Clone)]
pub struct View {
    /// The rule-language query item.
    pub item: ast::QueryItem,
    /// The wrapper's description.
    pub wrapper: SqlView,
    /// The nested views it reads as tables (derived tables, views it
    /// names, scalar subqueries, the groups under HAVING), each once and
    /// after the pieces it reads; none of them has pieces of its own
    /// (`docs/design.md#nested-sql`).
    pub pieces: Vec<View>,
    /// Whether its API takes deletes (`updates = 'insert_delete'`, the
    /// default); its rule may take them where the view does not, when it
    /// reads a piece whose rows go.
    pub deletes: bool,
    /// For a piece whose rows go to another piece's table (the unmatched
    /// rows of an outer join, to the matched rows'), that table; `None`
    /// where its readers read it by its own name.
    pub feeds: Option<String>,
}

impl View {
    /// The table its readers see its rows as: its own name, or the one
    /// it [`feeds`](Self::feeds).
    pub fn table_name(&self) -> &str {
        self.feeds.as_deref().unwrap_or(&self.wrapper.sql_name)
    }

    /// For each part of this view (its pieces, then its own rule: the
    /// order in which its composite hands a row to them), the relations,
    /// by the names its rule declares them with, whose deletes the
    /// composite has checked before the part sees them: a table an
    /// earlier part reads, whose check refuses a delete before any later
    /// part is given it, and a piece's rows, which the composite computes.
    /// Every part keeps each table's whole rows (or their fingerprints), so
    /// one check is as strict as many.
    pub fn checked_before_parts(&self) -> Vec<Vec<String>> {
        let pieces: Vec<&str> = self.pieces.iter().map(View::table_name).collect();
        let mut read: Vec<&str> = Vec::new();
        let mut parts = Vec::new();
        for part in self.pieces.iter().chain(std::iter::once(self)) {
            let tables = &part.wrapper.tables;
            parts.push(
                tables
                    .iter()
                    .filter(|t| {
                        pieces.contains(&t.name.as_str()) || read.contains(&t.name.as_str())
                    })
                    .map(|t| lower::camel(&t.name))
                    .collect(),
            );
            read.extend(tables.iter().map(|t| t.name.as_str()));
        }
        parts
    }
}

/// The keys `CREATE TABLE` declares (`PRIMARY KEY` and `UNIQUE`, on a
/// column or over several), each a set of column indexes, once each; not
/// a `UNIQUE` over a column declared `NULL`, which rows may share.
fn table_keys(
    create: &sqlparser::ast::CreateTable,
    columns: &[(String, SqlType, bool)],
    table: &str,
    spans: &SpanMap,
) -> Result<Vec<Vec<usize>>, syn::Error> {
    use sqlparser::ast::{Spanned, TableConstraint};
    // UNIQUE lets rows share NULL: over a column that can be NULL it is
    // no key (PRIMARY KEY columns cannot be NULL).
    let nullable = |key: &[usize]| key.iter().any(|&i| columns[i].2);
    let mut keys: Vec<Vec<usize>> = Vec::new();
    for (i, column) in create.columns.iter().enumerate() {
        for option in &column.options {
            match option.option {
                ColumnOption::PrimaryKey(_) => keys.push(vec![i]),
                ColumnOption::Unique(_) if !nullable(&[i]) => keys.push(vec![i]),
                _ => {}
            }
        }
    }
    for constraint in &create.constraints {
        let (named, unique) = match constraint {
            TableConstraint::PrimaryKey(k) => (&k.columns, false),
            TableConstraint::Unique(k) => (&k.columns, true),
            _ => continue,
        };
        let mut key = Vec::new();
        for c in named {
            let Expr::Identifier(ident) = &c.column.expr else {
                return Err(spans.error(
                    c.span(),
                    "a key lists columns by name: `PRIMARY KEY (a, b)`",
                ));
            };
            let wanted = ident.value.to_lowercase();
            let Some(i) = columns.iter().position(|(n, ..)| *n == wanted) else {
                return Err(spans.error(
                    ident.span,
                    format!("table `{table}` has no column `{wanted}` for its key"),
                ));
            };
            key.push(i);
        }
        key.sort_unstable();
        key.dedup();
        if !(unique && nullable(&key)) {
            keys.push(key);
        }
    }
    keys.sort();
    keys.dedup();
    Ok(keys)
}

/// Whether `text` reads as SQL rather than the rule language: its first
/// word is `CREATE` (after comments).
pub fn looks_like_sql(text: &str) -> bool {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    rest.get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("create"))
}

/// Parses SQL text and lowers each view, with `spans` placing errors.
///
/// # Errors
///
/// The first statement or construct outside the supported fragment, a
/// parse error, or a name that does not resolve, at its line and column.
pub fn parse(text: &str, spans: &SpanMap) -> Result<Vec<View>, syn::Error> {
    let statements =
        Parser::parse_sql(&GenericDialect {}, text).map_err(|e| parse_error(&e, spans))?;
    let mut tables: Vec<Table> = Vec::new();
    let mut views = Vec::new();
    let mut declared: Vec<nest::Declared> = Vec::new();
    for statement in &statements {
        use sqlparser::ast::Spanned;
        let loc = statement.span();
        match statement {
            Statement::CreateTable(create) => {
                let name = object_name(&create.name, spans)?;
                if tables.iter().any(|t| t.name == name) {
                    return Err(spans.error(
                        create.name.span(),
                        format!("table `{name}` is declared twice"),
                    ));
                }
                if create.query.is_some() {
                    return Err(spans.error(
                        loc,
                        "CREATE TABLE .. AS SELECT is not supported: write CREATE VIEW",
                    ));
                }
                let mut columns: Vec<(String, SqlType, bool)> = Vec::new();
                for column in &create.columns {
                    let column_name = column.name.value.to_lowercase();
                    if columns.iter().any(|c| c.0 == column_name) {
                        return Err(spans.error(
                            column.name.span,
                            format!("column `{column_name}` is declared twice in `{name}`"),
                        ));
                    }
                    for option in &column.options {
                        if !matches!(
                            option.option,
                            ColumnOption::NotNull
                                | ColumnOption::Null
                                | ColumnOption::PrimaryKey(_)
                                | ColumnOption::Unique(_)
                        ) {
                            return Err(spans.error(
                                column.name.span,
                                format!(
                                    "the column option `{}` is not supported (NOT NULL, PRIMARY KEY and UNIQUE are accepted and not enforced)",
                                    option.option
                                ),
                            ));
                        }
                    }
                    let ty = SqlType::of(&column.data_type)
                        .map_err(|m| spans.error(column.name.span, m))?;
                    let nullable = column
                        .options
                        .iter()
                        .any(|o| matches!(o.option, ColumnOption::Null));
                    columns.push((column_name, ty, nullable));
                }
                if columns.is_empty() {
                    return Err(spans.error(loc, format!("table `{name}` has no columns")));
                }
                let keys = table_keys(create, &columns, &name, spans)?;
                tables.push(Table {
                    name,
                    columns,
                    keys,
                });
            }
            Statement::CreateView(create) => {
                let name_ident = last_ident(&create.name, spans)?;
                if create.materialized
                    || create.or_replace
                    || create.or_alter
                    || create.to.is_some()
                {
                    return Err(spans.error(
                        loc,
                        "write the view as CREATE VIEW name [WITH (..)] AS SELECT ..",
                    ));
                }
                let options = view_options(&create.options, spans)?;
                let query = &create.query;
                if query.with.is_some() {
                    return Err(spans.error(
                        query.span(),
                        "WITH (common table expressions) is not supported",
                    ));
                }
                let order_by_or_limit = query
                    .order_by
                    .as_ref()
                    .map(|o| o.span())
                    .or_else(|| query.limit_clause.as_ref().map(|l| l.span()))
                    .or_else(|| query.fetch.as_ref().map(|_| query.span()));
                // A UNION is read as a derived table of its SELECTs.
                let union;
                let select = match &*query.body {
                    SetExpr::Select(select) => select,
                    SetExpr::SetOperation { .. } => {
                        let alias = format!("{}_union", name_ident.value.to_lowercase());
                        union = nest::select_of_set_operation(query, &alias, query.body.span());
                        &union
                    }
                    other => {
                        return Err(spans.error(
                            other.span(),
                            "a view is one SELECT block (subqueries and VALUES are not supported)",
                        ));
                    }
                };
                let view_name = name_ident.value.to_lowercase();
                if views.iter().any(|v: &View| v.wrapper.sql_name == view_name)
                    || tables.iter().any(|t| t.name == view_name)
                {
                    return Err(
                        spans.error(name_ident.span, format!("`{view_name}` is declared twice"))
                    );
                }
                let select = with_column_names(select, &create.columns, spans)?;
                let sql = statement.to_string();
                let mut view = nest::view(
                    spans,
                    &tables,
                    &declared,
                    &name_ident,
                    options,
                    &select,
                    &sql,
                )?;
                let w = &view.wrapper;
                view.wrapper.order = order::order(query, &select, &w.fields, w.shape, spans)?;
                declared.push(nest::Declared {
                    name: view_name,
                    select,
                    sql,
                    window: view
                        .wrapper
                        .order
                        .as_ref()
                        .filter(|o| o.is_window())
                        .and(order_by_or_limit),
                });
                views.push(view);
            }
            // TPC-H's Q15 drops the view it declared: the struct stays.
            Statement::Drop {
                object_type: sqlparser::ast::ObjectType::View,
                names,
                ..
            } if names.iter().all(|n| {
                let n = n.to_string().to_lowercase();
                declared.iter().any(|d| d.name == n)
            }) => {}
            other => {
                let word = other.to_string();
                let word = word
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ");
                return Err(spans.error(
                    loc,
                    format!("`{word} ..` is not supported: write CREATE TABLE and CREATE VIEW .. AS SELECT statements"),
                ));
            }
        }
    }
    if views.is_empty() {
        let end = Location::new(1, 1);
        return Err(spans.error(
            Loc::new(end, end),
            "no CREATE VIEW: declare the tables and at least one view to maintain",
        ));
    }
    Ok(views)
}

/// `select` with the column list after a view's name (`CREATE VIEW
/// revenue0 (supplier_no, total_revenue) AS ..`) as its items' names.
fn with_column_names(
    select: &sqlparser::ast::Select,
    columns: &[sqlparser::ast::ViewColumnDef],
    spans: &SpanMap,
) -> Result<sqlparser::ast::Select, syn::Error> {
    let mut select = select.clone();
    if !columns.is_empty() {
        let names: Vec<_> = columns.iter().map(|c| c.name.clone()).collect();
        nest::name_items(&mut select, &names, "the view")
            .map_err(|(loc, message)| spans.error(loc, message))?;
    }
    Ok(select)
}

fn object_name(name: &ObjectName, spans: &SpanMap) -> Result<String, syn::Error> {
    Ok(last_ident(name, spans)?.value.to_lowercase())
}

fn last_ident(name: &ObjectName, spans: &SpanMap) -> Result<sqlparser::ast::Ident, syn::Error> {
    use sqlparser::ast::Spanned;
    match name.0.as_slice() {
        [ObjectNamePart::Identifier(id)] => Ok(id.clone()),
        _ => Err(spans.error(
            name.span(),
            "write a plain name (schemas are not supported)",
        )),
    }
}

fn view_options(options: &CreateTableOptions, spans: &SpanMap) -> Result<ViewOptions, syn::Error> {
    use sqlparser::ast::Spanned;
    let list = match options {
        CreateTableOptions::None => return Ok(ViewOptions::default()),
        CreateTableOptions::With(list) => list,
        other => {
            return Err(spans.error(
                other.span(),
                "write a view's options as WITH (option = 'value', ..)",
            ));
        }
    };
    let mut trusted_at = None;
    let mut out = ViewOptions::default();
    for option in list {
        let SqlOption::KeyValue { key, value } = option else {
            return Err(spans.error(option.span(), "write an option as name = 'value'"));
        };
        let key_name = key.to_string().to_lowercase();
        let text = match value {
            Expr::Value(v) => match &v.value {
                SqlValue::SingleQuotedString(s) => s.clone(),
                _ => String::new(),
            },
            Expr::Identifier(id) => id.value.clone(),
            _ => String::new(),
        };
        let bad = |what: &str| spans.error(value.span(), format!("`{key_name}` takes {what}"));
        match key_name.as_str() {
            "updates" => match text.as_str() {
                "insert_only" | "insert_delete" => out.updates = Some(text),
                _ => return Err(bad("'insert_only' or 'insert_delete'")),
            },
            "deletes" => match text.as_str() {
                "checked" | "trusted" => {
                    if text == "trusted" {
                        trusted_at = Some(value.span());
                    }
                    out.deletes = Some(text);
                }
                _ => return Err(bad("'checked' or 'trusted'")),
            },
            "strategy" => {
                if syn::parse_str::<Ident>(&text).is_err() {
                    return Err(bad("a strategy's name, such as 'first_order'"));
                }
                out.strategy = Some(text);
            }
            "intractable" => match text.as_str() {
                "allow" => out.allow_intractable = true,
                _ => return Err(bad("'allow'")),
            },
            _ => {
                return Err(spans.error(
                    key.span(),
                    format!(
                        "unknown view option `{key_name}`: use updates, deletes, strategy or intractable"
                    ),
                ));
            }
        }
    }
    if let Some(at) = trusted_at
        && out.updates.as_deref() == Some("insert_only")
    {
        return Err(spans.error(
            at,
            "`deletes = 'trusted'` with `updates = 'insert_only'`: an insert-only view takes no deletes; drop one of the two",
        ));
    }
    Ok(out)
}

/// A parse error of sqlparser at the line and column its message names.
fn parse_error(e: &sqlparser::parser::ParserError, spans: &SpanMap) -> syn::Error {
    let message = match e {
        sqlparser::parser::ParserError::TokenizerError(m)
        | sqlparser::parser::ParserError::ParserError(m) => m.clone(),
        other => other.to_string(),
    };
    let (text, location) = match message.rsplit_once(" at Line: ") {
        Some((text, at)) => {
            let mut parts = at.split(", Column: ");
            let line = parts
                .next()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or(0);
            let column = parts
                .next()
                .and_then(|c| c.trim().parse().ok())
                .unwrap_or(0);
            (text.to_string(), Location::new(line, column))
        }
        None => (message, Location::new(0, 0)),
    };
    let mut end = location;
    end.column += 1;
    spans.error(Loc::new(location, end), format!("SQL syntax: {text}"))
}
