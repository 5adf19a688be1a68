//! The reading methods of the recompute strategy: the query evaluated from
//! the base maps by generic join each time the result is read.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{key_expr, key_type};
use crate::ir::{Program, Recompute};

/// `evaluate`, `iter`, `get`, `len` and `is_empty`.
pub fn reading(p: &Program, plan: &Recompute) -> TokenStream {
    let k = &p.payload;
    let head_ty = key_type(p, &p.head);
    // One candidate list per (atom, variable): built from the atom's
    // relation, keyed by the atom's earlier variables.
    let mut builds = Vec::new();
    let mut list_of = std::collections::HashMap::new();
    for (v, sources) in &plan.steps {
        for (atom, key) in sources {
            let name = format_ident!(
                "__{}_{}",
                p.maps[p.relations[p.atoms[*atom].relation].base].name,
                p.vars[*v].name
            );
            let name = if list_of.values().any(|n: &syn::Ident| *n == name) {
                format_ident!("{}_{}", name, atom)
            } else {
                name
            };
            list_of.insert((*atom, *v), name.clone());
            let a = &p.atoms[*atom];
            let base = &p.maps[p.relations[a.relation].base].name;
            let key_ty = key_type(p, key);
            let v_ty = &p.vars[*v].ty;
            let col = |w: usize| {
                let c = a.vars.iter().position(|&x| x == w).expect("atom variable");
                super::item(&quote! { __u }, c, a.vars.len())
            };
            let key_fields = super::tuple(key.iter().map(|&w| {
                let c = col(w);
                quote! { ::core::clone::Clone::clone(&#c) }
            }));
            let vc = col(*v);
            builds.push(quote! {
                let mut #name: ::ivm::__private::Extensions<#key_ty, #v_ty> = ::ivm::__private::Extensions::new();
                for (__u, __v) in self.#base.iter() {
                    if !::ivm::Semiring::is_zero(&__v) {
                        #name.insert(#key_fields, ::core::clone::Clone::clone(&#vc));
                    }
                }
            });
        }
    }
    // The innermost body: every variable is bound; multiply the atoms'
    // payloads and add the product to the head tuple's entry.
    let payloads = p.atoms.iter().map(|a| {
        let base = &p.maps[p.relations[a.relation].base].name;
        let key = key_expr(p, &a.vars);
        quote! {
            let __p: #k = self.#base.value(&#key);
            let __product = ::ivm::Semiring::mul(&__product, &__p);
        }
    });
    let head = key_expr(p, &p.head);
    let mut body = quote! {
        #(#payloads)*
        let __entry = __result.entry(#head).or_insert_with(<#k as ::ivm::Semiring>::zero);
        *__entry = ::ivm::Semiring::add(__entry, &__product);
    };
    body = if p.theta.is_empty() {
        quote! {
            let __product = <#k as ::ivm::Semiring>::one();
            #body
        }
    } else {
        // The theta factors multiply each derivation; a zero one adds
        // nothing.
        let theta = super::local::product(p, &p.theta);
        quote! {
            let __product = #theta;
            if let ::core::option::Option::Some(__product) = __product {
                #body
            }
        }
    };
    for (v, sources) in plan.steps.iter().rev() {
        // A variable no list binds is summed out inside its atom's local
        // step (a SQL column only a lift reads): nothing to iterate.
        if sources.is_empty() {
            continue;
        }
        let x = &p.vars[*v].name;
        let lists: Vec<&syn::Ident> = sources.iter().map(|(a, _)| &list_of[&(*a, *v)]).collect();
        let keys: Vec<TokenStream> = sources.iter().map(|(_, key)| key_expr(p, key)).collect();
        let key_names: Vec<syn::Ident> = (0..sources.len())
            .map(|i| format_ident!("__key_{}_{}", x, i))
            .collect();
        body = quote! {
            #(let #key_names = #keys;)*
            for #x in ::ivm::__private::shortest([#(#lists.get(&#key_names)),*]) {
                if #(#lists.contains(&#key_names, #x))&&* {
                    #body
                }
            }
        };
    }
    quote! {
        /// Evaluates the query from the base relations: generic join over
        /// every variable, O(N^ρ*) (the AGM bound) plus O(N) to build the
        /// candidate lists. The recompute strategy keeps nothing else.
        pub fn evaluate(&self) -> ::ivm::__private::HashMap<#head_ty, #k> {
            #(#builds)*
            let mut __result: ::ivm::__private::HashMap<#head_ty, #k> = ::ivm::__private::new_map();
            #body
            __result.retain(|_, __payload| !::ivm::Semiring::is_zero(__payload));
            __result
        }

        /// The result: each output tuple with its non-zero payload. The
        /// query is evaluated when this is called; then each tuple comes
        /// in O(1).
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            self.evaluate().into_iter()
        }

        /// The payload of one output tuple; zero when it is not in the result. Evaluates the whole query.
        pub fn get(&self, key: &#head_ty) -> #k {
            self.evaluate()
                .remove(key)
                .unwrap_or_else(<#k as ::ivm::Semiring>::zero)
        }

        /// The number of output tuples. Evaluates the whole query.
        pub fn len(&self) -> usize {
            self.evaluate().len()
        }

        /// Whether the result is empty. Evaluates the whole query.
        pub fn is_empty(&self) -> bool {
            self.evaluate().is_empty()
        }
    }
}
