//! The shape of a rejected query: its struct and methods with bodies that
//! cannot run, emitted beside the `compile_error!` so the user's calls do
//! not bury the real error under "no method named ..." errors.

use proc_macro2::TokenStream;
use quote::quote;

use super::method;
use crate::plan::names::snake_case;
use crate::query::{Query, UpdateModel};

/// The generated API of `query` with bodies that panic (never run: the
/// build stops at the error).
pub fn fallback(query: &Query) -> TokenStream {
    let name = &query.name;
    let vis = &query.vis;
    let k = &query.semiring.ty;
    let head_tys = query.head.iter().map(|&v| &query.variables[v].ty);
    let head_ty = quote! { (#(#head_tys,)*) };
    // Never runs: the `compile_error!` beside it stops the build.
    let rejected = quote! { ::core::panic!("ivm: the query was rejected at compile time") };
    let rels = query.relations.iter().map(|r| {
        let snake = snake_case(&r.name.to_string());
        let tys = r.columns.iter().map(|c| &c.ty);
        let params = quote! { #(_: #tys),* };
        let update = method("update", &snake);
        let insert = method("insert", &snake);
        let mut out = quote! {
            /// Not generated: the query was rejected.
            pub fn #update(&mut self, #params, _: #k) { #rejected }
            /// Not generated: the query was rejected.
            pub fn #insert(&mut self, #params) { #rejected }
        };
        if query.updates == UpdateModel::InsertDelete {
            let delete = method("delete", &snake);
            let retract = method("retract", &snake);
            out.extend(quote! {
                /// Not generated: the query was rejected.
                pub fn #delete(&mut self, #params) -> ::ivm::Result<()> { #rejected }
                /// Not generated: the query was rejected.
                pub fn #retract(&mut self, #params, _: #k) -> ::ivm::Result<()> { #rejected }
            });
        }
        out
    });
    quote! {
        /// Not generated: the query was rejected (see the error above).
        #vis struct #name {}

        impl #name {
            /// Not generated: the query was rejected.
            pub fn new() -> Self { #name {} }
            #(#rels)*
            /// Not generated: the query was rejected.
            pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ { ::core::iter::empty() }
            /// Not generated: the query was rejected.
            pub fn get(&self, _: &#head_ty) -> #k { #rejected }
            /// Not generated: the query was rejected.
            pub fn len(&self) -> usize { #rejected }
            /// Not generated: the query was rejected.
            pub fn is_empty(&self) -> bool { #rejected }
        }

        impl ::core::default::Default for #name {
            fn default() -> Self { Self::new() }
        }
    }
}
