//! The struct of a view written in SQL (`docs/design.md#sql`): it holds the
//! struct of the rule the view lowered to and gives it the view's API:
//! typed `insert_<table>`/`delete_<table>`, rows with named fields, and
//! the text interface (`insert_text`, `delete_text`, `text_rows`).
//!
//! Everything here is decided by the lowering ([`SqlView`]): the wrapper
//! reads each row off the rule's key and payload, and the rest of its API
//! (forwarding updates, the shape's reading, the text interface, the
//! change enum and the runtime traits) is the same for every view, written
//! once in the runtime's `sql_view!`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Program, Route};
use crate::sql::order::Keeping;
use crate::sql::types::SqlType;
use crate::sql::{SqlView, ViewShape, ViewTable};

mod nested;
mod order;
mod row;

pub use nested::{base_tables, composite, name as composite_name};

use row::Reader;

/// The view's struct, its row struct, how a row is read off a group, and
/// the rest of its API from `ivm::__private::sql_view!`.
///
/// `program` is the rule's, whose relations' routes the view's tables
/// take (`None` for a rejected view or one with nested views: its tables
/// then route to one worker); `keeping` says how a LIMIT's window is kept.
pub fn wrapper(
    view: &SqlView,
    deletes: bool,
    program: Option<&Program>,
    keeping: Keeping,
) -> TokenStream {
    let SqlView {
        name,
        rule,
        sql,
        sql_name,
        ..
    } = view;
    let (row, key, payload, shape) = reading(view);
    let field_names = view.fields.iter().map(|f| &f.name);
    let change = format_ident!("{}Change", name);
    let tables = view
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| table(t, i, deletes, route(t, program)));
    let parts = parts(view, &row, keeping);
    let ordered = view.order.as_ref().map(|o| order::ordered(view, o));
    let order = match &view.order {
        None => quote! { unordered },
        Some(o) if o.is_window() && keeping == Keeping::Fed => quote! { ranked },
        Some(o) if o.is_window() => quote! { windowed },
        Some(_) => quote! { sorted },
    };
    quote! {
        #parts

        #ordered

        ::ivm::__private::sql_view! {
            #name = #sql_name, #sql over #rule;
            rows #row { #(#field_names),* }, key = #key, payload = #payload, #shape, #order;
            change #change { #(#tables),* }
        }
    }
}

/// A nested view's struct (`docs/design.md#nested-sql`), which only the
/// view that reads it feeds: its rows and typed updates, without the text
/// interface, change enum and traits of [`wrapper`].
pub fn nested_view(view: &SqlView, deletes: bool) -> TokenStream {
    let SqlView { name, rule, .. } = view;
    let (row, key, payload, shape) = reading(view);
    let field_names = view.fields.iter().map(|f| &f.name);
    let tables = view.tables.iter().map(|t| {
        let sql_name = &t.name;
        let columns = columns(t);
        let insert = format_ident!("insert_{}", t.method);
        let delete = deletes.then(|| {
            let delete = format_ident!("delete_{}", t.method);
            quote! { / #delete }
        });
        quote! { #sql_name (#(#columns),*) => #insert #delete }
    });
    let parts = parts(view, &row, Keeping::Fed);
    quote! {
        #parts

        ::ivm::__private::sql_nested_view! {
            #name over #rule;
            rows #row { #(#field_names),* }, key = #key, payload = #payload, #shape;
            tables { #(#tables),* }
        }
    }
}

/// The row struct's name, the rule's key and payload types, and the
/// view's shape as `sql_view!` takes it.
fn reading(view: &SqlView) -> (Ident, TokenStream, TokenStream, TokenStream) {
    let SqlView { name, rule, .. } = view;
    let row = format_ident!("{}Row", name);
    // The group key is the rule's output tuple, the payload its payload.
    let key = quote! { <#rule as ::ivm::View>::Key };
    let payload = quote! { <#rule as ::ivm::View>::Payload };
    let shape = match view.shape {
        ViewShape::Grouped => quote! { grouped },
        ViewShape::Keyless => quote! { keyless },
        ViewShape::Bag => {
            let count = Reader::new(view).count();
            quote! { bag |__payload| #count }
        }
    };
    (row, key, payload, shape)
}

/// The view's struct, its row struct, and how a row is read off a group.
fn parts(view: &SqlView, row: &Ident, keeping: Keeping) -> TokenStream {
    let SqlView {
        name,
        rule,
        fields,
        key_types,
        shape,
        ..
    } = view;
    let reader = Reader::new(view);
    let key = quote! { <#rule as ::ivm::View>::Key };
    let payload = quote! { <#rule as ::ivm::View>::Payload };
    let structs = structs(view, row, keeping);
    let field_values = fields.iter().map(|f| {
        let (field, value) = (&f.name, reader.field(f));
        quote! { #field: #value }
    });
    let unused_key =
        (*shape == ViewShape::Keyless || key_types.is_empty()).then(|| quote! { let _ = __key; });
    quote! {
        #structs

        impl #name {
            /// A group's row, read off its key and payload.
            fn row(__key: &#key, __payload: &#payload) -> #row {
                #unused_key
                #row { #(#field_values,)* }
            }
        }
    }
}

/// The view's struct (the rule's struct, the `changes()` flag and, with
/// LIMIT or OFFSET, the window's state) and its row struct, one
/// documented field per select item.
fn structs(view: &SqlView, row: &Ident, keeping: Keeping) -> TokenStream {
    let SqlView {
        name,
        rule,
        sql,
        sql_name,
        ..
    } = view;
    let doc =
        format!(" The SQL view `{sql_name}`, kept fresh under single-row inserts and deletes:");
    let sql_doc = format!(" ```sql\n {sql}\n ```");
    let row_doc = format!(" One row of `{sql_name}`: its select items, in order.");
    let window = view.order.as_ref().filter(|o| o.is_window());
    let ranked = window.map(|o| {
        let doc = match keeping {
            Keeping::Fed => format!(
                " Every row in the view's order, for its window `{}`: fed the groups that changed after each update.",
                o.describe(&view.fields)
            ),
            Keeping::Sorted => format!(
                " The window `{}` as `changes()` last reported it.",
                o.describe(&view.fields)
            ),
        };
        quote! {
            #[doc = #doc]
            ranked: ::ivm::sql::order::Ranked<#name>,
        }
    });
    let state = match (window, keeping) {
        (Some(_), Keeping::Fed) => quote! {
            ::ivm::__private::impl_state!(#name { rule } fresh { changes_started, ranked } then(::ivm::sql::order::rank));
        },
        (Some(_), Keeping::Sorted) => quote! {
            ::ivm::__private::impl_state!(#name { rule } fresh { changes_started, ranked });
        },
        (None, _) => quote! {
            ::ivm::__private::impl_state!(#name { rule } fresh { changes_started });
        },
    };
    let field_defs = view.fields.iter().map(|f| {
        let (field, ty) = (&f.name, Reader::field_type(f));
        let doc = if f.value.nullable {
            format!(" `{}` (`None` where it is SQL's NULL).", f.sql)
        } else {
            format!(" `{}`.", f.sql)
        };
        quote! { #[doc = #doc] pub #field: #ty }
    });
    quote! {
        #[doc = #doc]
        ///
        #[doc = #sql_doc]
        pub struct #name {
            rule: #rule,
            /// Whether `changes()` or `text_changes()` was called.
            changes_started: bool,
            #ranked
        }

        #state

        #[doc = #row_doc]
        #[derive(Debug, Clone, PartialEq)]
        pub struct #row {
            #(#field_defs,)*
        }
    }
}

/// A table as `sql_view!` takes it: its change variant and index, SQL
/// name, columns (Rust name, type, SQL name, and the scale a `DECIMAL(p,
/// s)` value is stored at) and methods.
fn table(t: &ViewTable, index: usize, deletes: bool, route: TokenStream) -> TokenStream {
    let variant = change_variant(t);
    let index = proc_macro2::Literal::u32_unsuffixed(index as u32);
    let name = &t.name;
    let columns = columns(t);
    let insert = format_ident!("insert_{}", t.method);
    let delete = deletes.then(|| {
        let delete = format_ident!("delete_{}", t.method);
        quote! { / #delete }
    });
    quote! { #variant = #index #name (#(#columns),*) #route => #insert #delete }
}

/// A table's columns as `sql_view!` and `sql_nested_view!` take them:
/// Rust name, type (`as text` for a `TEXT` column that is not nullable,
/// whose parameter takes a `&str` too), SQL name and the scale a
/// `DECIMAL(p, s)` value is stored at.
fn columns(t: &ViewTable) -> impl Iterator<Item = TokenStream> + '_ {
    t.columns.iter().map(|(c, sql, ty, nullable)| {
        let rust = ty.rust_nullable(*nullable);
        let text = (*ty == SqlType::Text && !nullable).then(|| quote! { as text });
        let scale = scale(*ty);
        quote! { #c: #rust #text = #sql #scale }
    })
}

/// `at scale s` for a `DECIMAL(p, s)` column.
fn scale(ty: SqlType) -> Option<TokenStream> {
    match ty {
        SqlType::Decimal(Some(scale)) => Some(quote! { at scale #scale }),
        _ => None,
    }
}

/// Where a sharded run sends a table's rows: the route of the rule's
/// relation of the same name, over the table's column (rescaled first for
/// a DECIMAL, as the view stores it).
fn route(t: &ViewTable, program: Option<&Program>) -> TokenStream {
    let variant = change_variant(t);
    let relation = program.and_then(|p| p.declared().find(|r| r.name == variant));
    match relation.and_then(|r| r.route()) {
        Some(Route::Hash { column }) => {
            let (c, _, ty, _) = &t.columns[column];
            match ty {
                SqlType::Decimal(Some(scale)) => quote! { by #c at scale #scale },
                _ => quote! { by #c },
            }
        }
        Some(Route::Every) => quote! { to every },
        Some(Route::First) | None => quote! { to first },
    }
}

/// A table's variant of the change enum: its name in camel case.
fn change_variant(t: &ViewTable) -> Ident {
    format_ident!("{}", crate::sql::lower::camel(&t.name))
}
