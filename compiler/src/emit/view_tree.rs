//! View trees (`MapKind::Sum` views and `MapKind::Free` levels): the steps
//! that carry a change up the tree (`PathBody::Steps`), the reading along
//! the free levels (`Reading::Levels`), and `bulk_load` in one pass per view
//! (papers/001 section 5.4).
//!
//! The result is the product, along the free variables of the variable
//! order, of each value's local payload, times the nullary views of the
//! summed-out roots. Enumeration walks the free levels top-down through
//! values that have output only, so each tuple costs O(1).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{factor_value, key_expr, key_type, product_value};
use crate::ir::{AtomId, Factor, MapId, MapKind, Product, Program, Step};

/// Up a view tree: each step replaces the changed factor's old payload by
/// its new one in the product at one key of its target.
pub fn path(p: &Program, atom_id: AtomId, steps: &[Step], later: &[AtomId]) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    let atom = &p.atoms[atom_id];
    // The block is named after the atom (`'edge_v_a` for `Edge(v, a)`), so
    // a reader sees which atom each early exit leaves.
    let mut label_name = p.relations[atom.relation].snake.clone();
    for &v in &atom.vars {
        label_name.push('_');
        label_name.push_str(&p.vars[v].name.to_string());
    }
    let block = syn::Lifetime::new(&format!("'{label_name}"), proc_macro2::Span::call_site());
    // Bind the atom's variables to the tuple's columns all at once, so a
    // variable named like another column cannot shadow it.
    // Variables no key on the path needs are bound to `_`.
    let used = used_vars(p, steps);
    let names = atom.vars.iter().map(|&v| {
        if used.contains(&v) {
            let name = &p.vars[v].name;
            quote! { #name }
        } else {
            quote! { _ }
        }
    });
    let fields = (0..atom.vars.len()).map(syn::Index::from);
    let bind = quote! { let (#(#names,)*) = (#(&__tuple.#fields,)*); };

    let mut breaks = false;
    let mut blocks = Vec::new();
    let last = steps.len() - 1;
    for (s, step) in steps.iter().enumerate() {
        let target = &p.maps[step.target];
        let field = &target.name;
        // The product of the siblings at the current key. A sibling that is
        // a later atom of the same relation, read at the updated tuple, must
        // still show its old payload (the self-join delta rule).
        let sibs: Vec<TokenStream> = step
            .siblings
            .iter()
            .map(|&f| {
                let value = factor_value(p, f);
                match f {
                    Factor::Atom(a) if later.contains(&a) => {
                        let key = key_expr(p, &p.atoms[a].vars);
                        quote! {
                            let __sibling: #k = if #key == *__tuple {
                                ::core::clone::Clone::clone(__old)
                            } else {
                                #value
                            };
                            let __sib = ::ivm::Semiring::mul(&__sib, &__sibling);
                        }
                    }
                    _ => quote! {
                        let __sibling: #k = #value;
                        let __sib = ::ivm::Semiring::mul(&__sib, &__sibling);
                    },
                }
            })
            .collect();
        if !sibs.is_empty() {
            breaks = true;
        }
        let sib_product = quote! {
            let __sib = <#k as ::ivm::Semiring>::one();
            #(#sibs)*
            if ::ivm::Semiring::is_zero(&__sib) {
                break #block;
            }
        };
        let Some(product) = target.kind.product() else {
            unreachable!("a step changes a product")
        };
        match product {
            Product::Sum { .. } => {
                let key = key_expr(p, &target.key);
                let terms = if sibs.is_empty() {
                    quote! {
                        let __old_term = __changed_old;
                        let __new_term = __changed_new;
                    }
                } else {
                    quote! {
                        #sib_product
                        let __old_term = ::ivm::Semiring::mul(&__changed_old, &__sib);
                        let __new_term = ::ivm::Semiring::mul(&__changed_new, &__sib);
                    }
                };
                let replace = quote! {
                    <#k as #maint>::replace(__state, &__old_term, &__new_term);
                };
                // One probe: the entry is dropped once its state is empty.
                let update = |body: TokenStream| {
                    quote! {
                        ::ivm::__private::update_state(
                            &mut self.#field,
                            #key,
                            <#k as #maint>::is_empty,
                            |__state| { #body },
                        )
                    }
                };
                if s == last {
                    // A root view: nothing above it to tell.
                    let update = update(replace);
                    blocks.push(quote! { { #terms #update; } });
                } else {
                    breaks = true;
                    let update = update(quote! {
                        let __before = <#k as #maint>::value(__state);
                        #replace
                        (__before, <#k as #maint>::value(__state))
                    });
                    blocks.push(quote! {
                        let (__changed_old, __changed_new) = {
                            #terms
                            let (__before, __after) = #update;
                            if __before == __after {
                                break #block;
                            }
                            (__before, __after)
                        };
                    });
                }
            }
            Product::Free { var, .. } => {
                // The level only records whether the local payload is
                // non-zero; the payload itself is looked up when read. So a
                // change between non-zero payloads stops here.
                let group = key_expr(p, &target.key);
                let x = &p.vars[var].name;
                let recount = recount(p, step.target);
                let locals = if sibs.is_empty() {
                    quote! {
                        let __was_live = !::ivm::Semiring::is_zero(&__changed_old);
                        let __is_live = !::ivm::Semiring::is_zero(&__changed_new);
                    }
                } else {
                    // Without zero divisors the product's liveness follows
                    // the changed factor's: the siblings are looked up
                    // only when it turns zero or non-zero.
                    quote! {
                        if <#k as ::ivm::Semiring>::ZERO_DIVISOR_FREE
                            && ::ivm::Semiring::is_zero(&__changed_old) == ::ivm::Semiring::is_zero(&__changed_new)
                        {
                            break #block;
                        }
                        #sib_product
                        let __was_live = !::ivm::Semiring::is_zero(&::ivm::Semiring::mul(&__changed_old, &__sib));
                        let __is_live = !::ivm::Semiring::is_zero(&::ivm::Semiring::mul(&__changed_new, &__sib));
                    }
                };
                let set = quote! { self.#field.set_live(#group, ::core::clone::Clone::clone(#x), __is_live) };
                let apply = if recount.is_empty() {
                    quote! {
                        if __was_live != __is_live {
                            #set;
                        }
                    }
                } else {
                    quote! {
                        if __was_live != __is_live && #set {
                            #recount
                        }
                    }
                };
                blocks.push(quote! {
                    #locals
                    #apply
                });
            }
            Product::Reach { .. } => {
                // Over a positive semiring a non-zero payload stays
                // non-zero under inserts, and a product of non-zero
                // factors is non-zero: only a factor that was zero can
                // bring a new value into the support.
                let key = key_expr(p, &target.key);
                let reach = super::top_join::reach(p, step.target);
                let product = if sibs.is_empty() {
                    quote! { let __product = __changed_new; }
                } else {
                    quote! {
                        #sib_product
                        let __product = ::ivm::Semiring::mul(&__changed_new, &__sib);
                    }
                };
                blocks.push(quote! {
                    #product
                    if ::ivm::Semiring::is_zero(&__changed_old) && !::ivm::Semiring::is_zero(&__product) {
                        self.#reach(#key);
                    }
                });
            }
        }
    }
    let body = quote! {
        #bind
        let __changed_old: #k = ::core::clone::Clone::clone(__old);
        let __changed_new: #k = ::core::clone::Clone::clone(__new);
        #(#blocks)*
    };
    if breaks {
        quote! { #block: { #body } }
    } else {
        quote! { { #body } }
    }
}

/// The variables the keys along a path's steps read.
fn used_vars(p: &Program, steps: &[Step]) -> Vec<usize> {
    let mut used = Vec::new();
    for step in steps {
        let target = &p.maps[step.target];
        used.extend(&target.key);
        for &f in &step.siblings {
            used.extend(p.factor_key(f));
        }
        if let MapKind::Free { var, .. } = target.kind {
            used.push(var);
            // The recount walks up the free levels, whose keys are a prefix
            // of this one: nothing new.
        }
    }
    used
}

/// After the count of output tuples under one group of a free level
/// changed, refresh the level above (and so on up to the root).
fn recount(p: &Program, level: usize) -> TokenStream {
    let MapKind::Free { parent, .. } = &p.maps[level].kind else {
        return quote! {};
    };
    let Some(parent) = *parent else {
        return quote! {};
    };
    let pm = &p.maps[parent];
    let MapKind::Free { var, children, .. } = &pm.kind else {
        return quote! {};
    };
    let field = &pm.name;
    let x = &p.vars[*var].name;
    let group = key_expr(p, &pm.key);
    let mut child_key = pm.key.clone();
    child_key.push(*var);
    let child_group = key_expr(p, &child_key);
    let totals = children.iter().map(|&c| {
        let child = &p.maps[c].name;
        quote! { self.#child.total(&__below_key) }
    });
    let above = recount(p, parent);
    let set = quote! { self.#field.set_below(#group, ::core::clone::Clone::clone(#x), __below) };
    let then = if above.is_empty() {
        quote! { #set; }
    } else {
        quote! {
            if #set {
                #above
            }
        }
    };
    quote! {
        let __below_key = #child_group;
        let __below = ::ivm::__private::count_product([#(#totals),*]);
        #then
    }
}

/// The reading of a view tree: the product of the scalars and of the free
/// levels below the roots.
pub fn reading(p: &Program, scalars: &[MapId], roots: &[MapId]) -> TokenStream {
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

/// `bulk_load` of a view tree that keeps every relation: the base maps
/// filled first, then every view, children before parents, computed from
/// the entries of its first factor, looking the other factors up. Each
/// view is a projection or an intersection, so each pass is linear in the
/// size of the map it reads.
pub fn bulk_load(p: &Program) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
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

/// The field type of a view (the state of each key's sum) or of a free
/// level.
pub fn field_type(p: &Program, m: MapId) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    let map = &p.maps[m];
    let key = key_type(p, &map.key);
    match &map.kind {
        MapKind::Free { var, .. } => {
            let x = &p.vars[*var].ty;
            quote! { ::ivm::__private::FreeLevel<#key, #x> }
        }
        _ => quote! { ::ivm::__private::HashMap<#key, <#k as #maint>::State> },
    }
}

/// The empty view or free level.
pub fn field_init(p: &Program, m: MapId) -> TokenStream {
    match &p.maps[m].kind {
        MapKind::Free {
            children, factors, ..
        } => {
            let leaf = children.is_empty();
            let has_factors = !factors.is_empty();
            quote! { ::ivm::__private::FreeLevel::new(#leaf, #has_factors) }
        }
        _ => super::hash_map_init(),
    }
}
