//! Reading the result: `iter`, `get`, `len`, `is_empty`.
//!
//! The result is the product, along the free variables of the variable
//! order, of each value's local payload, times the nullary views of the
//! summed-out roots. Enumeration walks the free levels top-down through
//! values that have output only, so each tuple costs O(1).

use proc_macro2::TokenStream;
use quote::quote;

use super::product_value;
use crate::ir::{MapId, MapKind, Program, Reading};

/// The reading methods.
pub fn methods(p: &Program) -> TokenStream {
    match &p.output.reading {
        Reading::Levels { scalars, roots } => levels(p, scalars, roots),
        &Reading::Materialized(result) => materialized(p, result),
        &Reading::Counted(triangle) => counted(p, triangle),
        Reading::TopJoin(top) => super::top::reading(p, top),
        &Reading::Joined(joined) => super::top::joined_reading(p, joined),
        Reading::Recompute(plan) => super::recompute::reading(p, plan),
    }
}

/// The reading of a view tree: the product of the scalars and of the free
/// levels below the roots.
fn levels(p: &Program, scalars: &[MapId], roots: &[MapId]) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let head_ty = quote! { (#(#head_tys,)*) };
    let factors = scalars.iter().map(|&m| {
        let field = &p.maps[m].name;
        quote! {
            let __factor: #k = self.#field.get(&()).map_or_else(
                <#k as ::ivm::Semiring>::zero,
                <#k as #maint>::value,
            );
            __scalar = ::ivm::Semiring::mul(&__scalar, &__factor);
        }
    });
    let scalar_body = if scalars.is_empty() {
        quote! { <#k as ::ivm::Semiring>::one() }
    } else {
        quote! {
            let mut __scalar = <#k as ::ivm::Semiring>::one();
            #(#factors)*
            __scalar
        }
    };
    let scalar_doc = if scalars.is_empty() {
        " The factor every output tuple's payload is multiplied by: one, as no variable is summed out at the root."
    } else {
        " The factor every output tuple's payload is multiplied by: the views of the summed-out root variables."
    };

    // Enumeration: a product over the root levels.
    let (roots_iter, roots_pat) = levels_product(p, roots, quote! { () }, quote! { __scalar });
    let head_names = p.output.head.iter().map(|&v| &p.vars[v].name);
    // Flatten the nested tuples of the levels into the head's order (a
    // nullary head needs nothing).
    let to_head = (!roots.is_empty()).then(|| {
        quote! { .map(|(#roots_pat, __payload)| ((#(#head_names,)*), __payload)) }
    });
    let filter = p.zero_divisors.then(|| {
        quote! { .filter(|(_, __payload)| !::ivm::Semiring::is_zero(__payload)) }
    });
    let iter = quote! {
        /// The result: each output tuple (the head variables, in head
        /// order) with its non-zero payload, with constant delay.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            let __scalar = self.scalar();
            let __start = if ::ivm::Semiring::is_zero(&__scalar) {
                ::core::option::Option::None
            } else {
                ::core::option::Option::Some(__scalar)
            };
            __start
                .into_iter()
                .flat_map(move |__scalar| #roots_iter)
                #to_head
                #filter
        }
    };

    // Lookup: the product of the local payloads along the key.
    let key_names: Vec<_> = p.output.head.iter().map(|&v| &p.vars[v].name).collect();
    let lookups = free_levels(p, roots).into_iter().map(|m| {
        let MapKind::Free { factors, .. } = &p.maps[m].kind else {
            unreachable!("free levels")
        };
        if factors.is_empty() {
            return quote! {};
        }
        let local = product_value(p, factors);
        quote! {
            let __local: #k = #local;
            if ::ivm::Semiring::is_zero(&__local) {
                return __local;
            }
            __payload = ::ivm::Semiring::mul(&__payload, &__local);
        }
    });
    let destructure = if key_names.is_empty() {
        quote! { let () = key; }
    } else {
        quote! { let (#(#key_names,)*) = key; }
    };
    let get = quote! {
        /// The payload of one output tuple; zero when it is not in the
        /// result.
        pub fn get(&self, key: &#head_ty) -> #k {
            #destructure
            let mut __payload = self.scalar();
            if ::ivm::Semiring::is_zero(&__payload) {
                return __payload;
            }
            #(#lookups)*
            __payload
        }
    };

    let len = if p.zero_divisors {
        quote! {
            /// The number of output tuples. The semiring has zero divisors,
            /// so a product of non-zero payloads can vanish: this counts by
            /// enumerating, in time linear in the result.
            pub fn len(&self) -> usize {
                self.iter().count()
            }

            /// Whether the result is empty.
            pub fn is_empty(&self) -> bool {
                self.iter().next().is_none()
            }
        }
    } else {
        let totals = roots.iter().map(|&m| {
            let field = &p.maps[m].name;
            quote! { self.#field.total(&()) }
        });
        quote! {
            /// The number of output tuples, in O(1).
            pub fn len(&self) -> usize {
                if ::ivm::Semiring::is_zero(&self.scalar()) {
                    return 0;
                }
                let __count = ::ivm::__private::count_product([#(#totals),*]);
                usize::try_from(__count).expect("ivm: more output tuples than fit in usize")
            }

            /// Whether the result is empty, in O(1).
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    };

    quote! {
        #iter
        #get
        #len

        #[doc = #scalar_doc]
        fn scalar(&self) -> #k {
            #scalar_body
        }
    }
}

/// Every free level, top-down.
fn free_levels(p: &Program, roots: &[MapId]) -> Vec<MapId> {
    let mut out = Vec::new();
    let mut stack: Vec<MapId> = roots.iter().rev().copied().collect();
    while let Some(m) = stack.pop() {
        out.push(m);
        if let MapKind::Free { children, .. } = &p.maps[m].kind {
            stack.extend(children.iter().rev().copied());
        }
    }
    out
}

/// An iterator over the combinations of the levels' values under `group`
/// (an expression of the group key), each with the payload `acc` times their
/// local payloads, and the pattern that destructures its items' tuples.
fn levels_product(
    p: &Program,
    levels: &[MapId],
    group: TokenStream,
    acc: TokenStream,
) -> (TokenStream, TokenStream) {
    let k = &p.payload;
    match levels {
        [] => (quote! { ::core::iter::once(((), #acc)) }, quote! { () }),
        [one] => level(p, *one, group, acc),
        [first, rest @ ..] => {
            let (a, pa) = level(p, *first, group.clone(), acc);
            let (b, pb) = levels_product(p, rest, group, quote! { <#k as ::ivm::Semiring>::one() });
            (
                quote! {
                    ::ivm::__private::product(#a, #b).map(|((__a, __pa), (__b, __pb))| {
                        ((__a, __b), ::ivm::Semiring::mul(&__pa, &__pb))
                    })
                },
                quote! { (#pa, #pb) },
            )
        }
    }
}

/// The values of one free level under `group`, with what lies below them.
fn level(
    p: &Program,
    m: MapId,
    group: TokenStream,
    acc: TokenStream,
) -> (TokenStream, TokenStream) {
    let map = &p.maps[m];
    let MapKind::Free {
        var,
        children,
        factors,
        ..
    } = &map.kind
    else {
        unreachable!("free levels only")
    };
    let k = &p.payload;
    let field = &map.name;
    let x = &p.vars[*var].name;
    let mut key = map.key.clone();
    key.push(*var);
    let below_group = {
        let names = key.iter().map(|&v| &p.vars[v].name);
        quote! { (#(::core::clone::Clone::clone(#names),)*) }
    };
    let (below, below_pat) = levels_product(p, children, below_group, quote! { __acc });
    // The local payload is looked up here, at enumeration; the level only
    // lists the values whose local payload is non-zero and has output below.
    let acc_expr = if factors.is_empty() {
        quote! { let __acc = ::core::clone::Clone::clone(&#acc); }
    } else {
        let local = product_value(p, factors);
        quote! {
            let __local: #k = #local;
            let __acc = ::ivm::Semiring::mul(&#acc, &__local);
        }
    };
    (
        quote! {
            self.#field.values(&#group).flat_map(move |#x| {
                #acc_expr
                #below.map(move |(__below, __payload)| ((::core::clone::Clone::clone(#x), __below), __payload))
            })
        },
        quote! { (#x, #below_pat) },
    )
}

/// The reading methods over a materialized result.
fn materialized(p: &Program, result: MapId) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    let field = &p.maps[result].name;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let head_ty = quote! { (#(#head_tys,)*) };
    quote! {
        /// The result: each output tuple (the head variables, in head
        /// order) with its non-zero payload, read from the materialized
        /// result.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            self.#field
                .iter()
                .map(|(__key, __state)| (::core::clone::Clone::clone(__key), <#k as #maint>::value(__state)))
                .filter(|(_, __payload)| !::ivm::Semiring::is_zero(__payload))
        }

        /// The payload of one output tuple; zero when it is not in the
        /// result.
        pub fn get(&self, key: &#head_ty) -> #k {
            self.#field.get(key).map_or_else(
                <#k as ::ivm::Semiring>::zero,
                <#k as #maint>::value,
            )
        }

        /// The number of output tuples, in O(1): an entry is kept exactly
        /// while its payload is non-zero.
        pub fn len(&self) -> usize {
            self.#field.len()
        }

        /// Whether the result is empty, in O(1).
        pub fn is_empty(&self) -> bool {
            self.#field.is_empty()
        }
    }
}

/// The reading methods of a triangle count, plus the invariant check that
/// tests call after every update.
fn counted(p: &Program, triangle: MapId) -> TokenStream {
    let k = &p.payload;
    let field = &p.maps[triangle].name;
    quote! {
        /// The result: the count, as the single output tuple `()`, when it
        /// is non-zero.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ((), #k)> + '_ {
            let __count: #k = ::core::clone::Clone::clone(self.#field.count());
            (!::ivm::Semiring::is_zero(&__count)).then_some(((), __count)).into_iter()
        }

        /// The count (zero when there is no triangle).
        pub fn get(&self, key: &()) -> #k {
            let () = key;
            ::core::clone::Clone::clone(self.#field.count())
        }

        /// 1 when the count is non-zero, else 0.
        pub fn len(&self) -> usize {
            usize::from(!::ivm::Semiring::is_zero(self.#field.count()))
        }

        /// Whether the count is zero.
        pub fn is_empty(&self) -> bool {
            ::ivm::Semiring::is_zero(self.#field.count())
        }

        /// Checks the strategy's invariants (papers/000): for IVMε the size
        /// bounds of the threshold and the degrees of heavy and light values;
        /// for both, the views and the count against their definitions. For
        /// tests: it costs time linear in the database or more.
        #[doc(hidden)]
        pub fn check_invariants(&self) -> ::core::result::Result<(), ::std::string::String> {
            self.#field.check()
        }
    }
}
