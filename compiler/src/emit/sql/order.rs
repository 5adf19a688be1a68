//! The order of a view with ORDER BY or LIMIT (`docs/design.md#order-by-and-limit`):
//! `ivm::sql::order::Ordered`, its ORDER BY, LIMIT and OFFSET as data and
//! the comparison of two rows, which the runtime sorts or ranks them by.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::row::Reader;

use crate::sql::SqlView;
use crate::sql::order::{Order, OrderKey};

/// `impl Ordered for <view>`: the ORDER BY items, then every other select
/// item ascending, so that ties break the same way on every run.
pub(super) fn ordered(view: &SqlView, order: &Order) -> TokenStream {
    let SqlView { name, rule, .. } = view;
    let keys = order.keys.iter().map(|k| {
        let column = Literal::usize_unsuffixed(k.field);
        let (descending, nulls_first) = (k.descending, k.nulls_first);
        quote! {
            ::ivm::sql::OrderKey { column: #column, descending: #descending, nulls_first: #nulls_first }
        }
    });
    let limit = match order.limit {
        Some(k) => {
            let k = Literal::u64_unsuffixed(k);
            quote! { ::core::option::Option::Some(#k) }
        }
        None => quote! { ::core::option::Option::None },
    };
    let offset = Literal::u64_unsuffixed(order.offset);
    let ties = (0..view.fields.len())
        .filter(|f| !order.keys.iter().any(|k| k.field == *f))
        .map(|field| OrderKey {
            field,
            descending: false,
            nulls_first: true,
        });
    let mut comparisons = order
        .keys
        .iter()
        .copied()
        .chain(ties)
        .map(|k| compare(view, k));
    let first = comparisons
        .next()
        .expect("a view selects at least one item");
    let doc = format!(
        " The order of `{}`'s rows: {}, then the other select items ascending.",
        view.sql_name,
        order.describe(&view.fields)
    );
    quote! {
        #[doc = #doc]
        impl ::ivm::sql::order::Ordered for #name {
            const ORDER: ::ivm::sql::Order = ::ivm::sql::Order {
                keys: &[#(#keys),*],
                limit: #limit,
                offset: #offset,
            };

            fn order(
                (__ka, __pa): (&<#rule as ::ivm::View>::Key, &<#rule as ::ivm::View>::Payload),
                (__kb, __pb): (&<#rule as ::ivm::View>::Key, &<#rule as ::ivm::View>::Payload),
            ) -> ::core::cmp::Ordering {
                #first #(.then_with(|| #comparisons))*
            }
        }
    }
}

/// Two groups compared on one select item, read off their keys and
/// payloads (`__ka`, `__pa` and `__kb`, `__pb`). NULL (`None`) is below
/// every value, as `Option` orders it; `NULLS LAST` under ASC and `NULLS
/// FIRST` under DESC override that.
fn compare(view: &SqlView, k: OrderKey) -> TokenStream {
    let reader = Reader::new(view);
    let field = &view.fields[k.field];
    let side = |key: &str, payload: &str| {
        reader.field_ref(field, &format_ident!("{key}"), &format_ident!("{payload}"))
    };
    let (a, b) = (side("__ka", "__pa"), side("__kb", "__pb"));
    let (a, b) = if k.descending { (b, a) } else { (a, b) };
    let moved_nulls = k.nulls_first == k.descending;
    if moved_nulls && field.value.nullable {
        quote! { ::ivm::sql::order::nulls_last(#a, #b) }
    } else {
        quote! { ::core::cmp::Ord::cmp(#a, #b) }
    }
}
