//! `bulk_load`: a non-empty initial database, built in one pass per map
//! where the strategy allows it ("The Role of Semirings in Incremental View
//! Maintenance", section 5.4), else one update at a time.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{PathBody, Program, Reading};

/// The `bulk_load` constructor.
pub fn bulk_load(p: &Program) -> TokenStream {
    // Views are built in one pass for view trees only, and only when every
    // relation is kept to build them from.
    // A general variable order's views are joins, not projections or
    // intersections: those are built one update at a time.
    let general = p.triggers.iter().any(|t| {
        t.paths.iter().any(|path| {
            matches!(&path.body, PathBody::Steps { steps, .. } if steps.iter().any(|s| !s.binds.is_empty()))
        })
    });
    // A semijoin's counts are filled by the updates that reach them.
    if matches!(p.reading, Reading::Levels { .. })
        && (0..p.relations.len()).all(|r| p.stores(r))
        && !general
        && p.semijoins.is_empty()
    {
        super::view_tree::bulk_load(p)
    } else {
        bulk_by_updates(p)
    }
}

/// `bulk_load` for a materialized result, IVMε, the insert-only
/// strategies, or a view tree that does not keep every relation (the pass
/// per view above reads the base maps): the contributions go in one update
/// at a time. (A first-order delta costs what evaluating the join costs
/// anyway; IVMε's amortized bound already covers a load of N tuples in
/// O(N^(1 + max(ε, 1 − ε))); the insert-only strategies, and a view tree
/// under inserts, are O(1) amortized per tuple, so the load is one linear
/// pass.)
fn bulk_by_updates(p: &Program) -> TokenStream {
    let k = &p.payload;
    let params = p.declared().map(|r| {
        let name = format_ident!("{}", r.snake);
        let ty = super::relation_type(p, r);
        quote! { #name: impl ::core::iter::IntoIterator<Item = (#ty, #k)> }
    });
    let feed = p.declared().map(|r| {
        let name = format_ident!("{}", r.snake);
        let update = format_ident!("update_{}", r.snake);
        let n = r.columns.len();
        let cols = (0..n).map(|i| super::item(&quote! { __tuple }, i, n));
        quote! {
            for (__tuple, __payload) in #name {
                __db.#update(#(#cols,)* __payload);
            }
        }
    });
    quote! {
        /// A database holding the given contributions (each `(tuple,
        /// payload)` is one `update`), applied one at a time.
        pub fn bulk_load(#(#params),*) -> Self {
            let mut __db = Self::new();
            #(#feed)*
            __db
        }
    }
}
