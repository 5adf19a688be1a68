//! `bulk_load`: a non-empty initial database built in one pass per map
//! (papers/001 section 5.4), rather than one propagation per tuple.
//!
//! Base maps are filled first; then every view, children before parents,
//! is computed from the entries of its first factor, looking the other
//! factors up. Each view is a projection or an intersection, so each pass
//! is linear in the size of the map it reads.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{key_expr, product_value};
use crate::ir::{Factor, Product, Program, Reading};

/// The `bulk_load` constructor.
pub fn bulk_load(p: &Program) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    // Views are built in one pass for view trees only, and only when every
    // relation is kept to build them from.
    if !matches!(p.output.reading, Reading::Levels { .. })
        || (0..p.relations.len()).any(|r| !p.stores(r))
    {
        return bulk_by_updates(p);
    }
    let params = p.relations.iter().map(|r| {
        let name = format_ident!("{}", r.snake);
        let tys = r.columns.iter().map(|(_, t)| t);
        quote! { #name: impl ::core::iter::IntoIterator<Item = ((#(#tys,)*), #k)> }
    });
    let fill = p.relations.iter().map(|r| {
        let name = format_ident!("{}", r.snake);
        let base = &p.maps[r.base].name;
        quote! {
            for (__tuple, __payload) in #name {
                if ::ivm::Semiring::is_zero(&__payload) {
                    continue;
                }
                let __state = __db.#base.entry(__tuple).or_default();
                <#k as #maint>::insert(__state, &__payload);
            }
            __db.#base.retain(|_, __state| !<#k as #maint>::is_empty(__state));
        }
    });
    let views = p.maps.iter().filter_map(|map| {
        let field = &map.name;
        match map.kind.product()? {
            // Only view trees are built in one pass, and they have no top
            // join.
            Product::Reach { .. } => None,
            Product::Sum { factors, .. } => {
                let key = key_expr(p, &map.key);
                let (source, bind) = scan(p, factors[0]);
                let term = product_value(p, factors);
                Some(quote! {
                    for #source {
                        #bind
                        let __term: #k = #term;
                        if !::ivm::Semiring::is_zero(&__term) {
                            let __state = self.#field.entry(#key).or_default();
                            <#k as #maint>::insert(__state, &__term);
                        }
                    }
                })
            }
            Product::Free {
                var,
                factors,
                children,
            } => {
                let mut full = map.key.clone();
                full.push(var);
                let group = key_expr(p, &map.key);
                let x = &p.vars[var].name;
                let live = (!factors.is_empty()).then(|| {
                    let (source, bind) = scan(p, factors[0]);
                    let local = product_value(p, factors);
                    quote! {
                        for #source {
                            #bind
                            let __local: #k = #local;
                            if !::ivm::Semiring::is_zero(&__local) {
                                self.#field.set_live(#group, ::core::clone::Clone::clone(#x), true);
                            }
                        }
                    }
                });
                // Values with output below: every group of the levels
                // under this one, with the product of their totals.
                let below = children.iter().map(|&c| {
                    let child = &p.maps[c].name;
                    let totals = children.iter().map(|&c2| {
                        let other = &p.maps[c2].name;
                        quote! { self.#other.total(__g) }
                    });
                    let names = full.iter().map(|&v| &p.vars[v].name);
                    quote! {
                        for __g in self.#child.groups() {
                            let __below = ::ivm::__private::count_product([#(#totals),*]);
                            let (#(#names,)*) = __g;
                            self.#field.set_below(#group, ::core::clone::Clone::clone(#x), __below);
                        }
                    }
                });
                Some(quote! { #live #(#below)* })
            }
        }
    });
    quote! {
        /// A database holding the given contributions (each `(tuple,
        /// payload)` is one `update`), built in one pass per view rather
        /// than one update at a time.
        pub fn bulk_load(#(#params),*) -> Self {
            let mut __db = Self::new();
            #(#fill)*
            __db.build_views();
            __db
        }

        /// Computes every view from the base maps, children before parents.
        fn build_views(&mut self) {
            #(#views)*
        }
    }
}

/// A `for` pattern over the entries of `factor`, binding the variables of
/// the factor's key as references.
fn scan(p: &Program, factor: Factor) -> (TokenStream, TokenStream) {
    match factor {
        Factor::Atom(a) => {
            let atom = &p.atoms[a];
            let base = &p.maps[p.relations[atom.relation].base].name;
            let names = atom.vars.iter().map(|&v| {
                let n = &p.vars[v].name;
                quote! { #n }
            });
            let fields = (0..atom.vars.len()).map(syn::Index::from);
            (
                quote! { __tuple in self.#base.keys() },
                quote! { let (#(#names,)*) = (#(&__tuple.#fields,)*); },
            )
        }
        Factor::Map(m) => {
            let map = &p.maps[m];
            let field = &map.name;
            let names = map.key.iter().map(|&v| &p.vars[v].name);
            let fields = (0..map.key.len()).map(syn::Index::from);
            (
                quote! { __key in self.#field.keys() },
                quote! { let (#(#names,)*) = (#(&__key.#fields,)*); },
            )
        }
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
    let params = p.relations.iter().map(|r| {
        let name = format_ident!("{}", r.snake);
        let tys = r.columns.iter().map(|(_, t)| t);
        quote! { #name: impl ::core::iter::IntoIterator<Item = ((#(#tys,)*), #k)> }
    });
    let feed = p.relations.iter().map(|r| {
        let name = format_ident!("{}", r.snake);
        let update = format_ident!("update_{}", r.snake);
        let cols: Vec<_> = (0..r.columns.len()).map(syn::Index::from).collect();
        quote! {
            for (__tuple, __payload) in #name {
                __db.#update(#(__tuple.#cols,)* __payload);
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
