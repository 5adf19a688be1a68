//! The propagation methods: what a change of one relation's tuple does to
//! the views above each of its atoms.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{factor_value, key_expr, method};
use crate::ir::{
    Access, AtomId, AtomPath, DeltaJoin, Factor, MapId, MapKind, PathBody, Product, Program, Step,
    Trigger,
};

/// One `on_<relation>_changed` method per relation.
pub fn propagations(p: &Program) -> TokenStream {
    let methods = p.triggers.iter().map(|t| propagation(p, t));
    quote! { #(#methods)* }
}

fn propagation(p: &Program, t: &Trigger) -> TokenStream {
    let k = &p.payload;
    let r = &p.relations[t.relation];
    let name = method("on", &format!("{}_changed", r.snake));
    let cols = r.columns.iter().map(|(_, ty)| ty);
    let doc = format!(
        " Propagates a change of one `{}` tuple's payload from `old` to `new` through the views above each atom of `{}`.",
        r.name, r.name
    );
    let paths = t.paths.iter().map(|path| atom_path(p, path));
    quote! {
        #[doc = #doc]
        #[inline]
        fn #name(&mut self, __tuple: &(#(#cols,)*), __old: &#k, __new: &#k) {
            #(#paths)*
        }
    }
}

fn atom_path(p: &Program, path: &AtomPath) -> TokenStream {
    match &path.body {
        PathBody::Steps {
            steps,
            later_same_relation,
        } => view_path(p, path.atom, steps, later_same_relation),
        PathBody::Delta(join) => delta_join(p, path.atom, join),
        &PathBody::Triangle { map, role, columns } => triangle_path(p, map, role, columns),
        &PathBody::Raise(message) => super::top::raise_path(p, path.atom, message),
        &PathBody::Cluster(node) => super::top::cluster_path(p, node),
    }
}

/// IVMε: the triangle map updates the atom's role.
fn triangle_path(p: &Program, map: MapId, role: usize, [x, y]: [usize; 2]) -> TokenStream {
    let field = &p.maps[map].name;
    let update = match p.maps[map].kind {
        MapKind::Triangle { cycle: true, .. } => format_ident!("update"),
        _ => format_ident!("update_{}", ["r", "s", "t"][role]),
    };
    let (x, y) = (syn::Index::from(x), syn::Index::from(y));
    quote! {
        self.#field.#update(&__tuple.#x, &__tuple.#y, __old, __new);
    }
}

/// Up a view tree: each step replaces the changed factor's old payload by
/// its new one in the product at one key of its target.
fn view_path(p: &Program, atom_id: AtomId, steps: &[Step], later: &[AtomId]) -> TokenStream {
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
                let reach = super::top::reach(p, step.target);
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

/// The first-order delta of one atom: nested loops over the other atoms,
/// and for each derivation found, its old payload replaced by its new one
/// in the result.
fn delta_join(p: &Program, atom: usize, join: &DeltaJoin) -> TokenStream {
    let maint = super::maintainer(p);
    let k = &p.payload;
    let own = &p.atoms[atom];
    // The variables some key or the head reads; the others are bound to
    // `_`.
    let mut needed: Vec<usize> = p.output.head.clone();
    for l in &join.loops {
        match l.access {
            Access::Point => needed.extend(&p.atoms[l.atom].vars),
            Access::Index(m) => {
                if let MapKind::Index { columns, .. } = &p.maps[m].kind {
                    needed.extend(columns.iter().map(|&c| p.atoms[l.atom].vars[c]));
                }
            }
            Access::Scan => {}
        }
    }
    let bind_name = |v: usize| {
        if needed.contains(&v) {
            let name = &p.vars[v].name;
            quote! { #name }
        } else {
            quote! { _ }
        }
    };
    let names: Vec<TokenStream> = own.vars.iter().map(|&v| bind_name(v)).collect();
    let fields = (0..own.vars.len()).map(syn::Index::from);
    let rel = own.relation;
    // The innermost body: the derivation's payloads before and after.
    let olds = join.loops.iter().map(|l| format_ident!("__old_{}", l.atom));
    let news = join.loops.iter().map(|l| format_ident!("__new_{}", l.atom));
    let result = &p.maps[join.result].name;
    let head = key_expr(p, &p.output.head);
    let mut body = quote! {
        let __old_term: #k = ::core::clone::Clone::clone(__old);
        #(let __old_term = ::ivm::Semiring::mul(&__old_term, &#olds);)*
        let __new_term: #k = ::core::clone::Clone::clone(__new);
        #(let __new_term = ::ivm::Semiring::mul(&__new_term, &#news);)*
        if __old_term != __new_term {
            ::ivm::__private::update_state(&mut self.#result, #head, <#k as #maint>::is_empty, |__state| {
                <#k as #maint>::replace(__state, &__old_term, &__new_term);
            });
        }
    };
    // Wrap it in the loops, innermost first.
    for l in join.loops.iter().rev() {
        let a = &p.atoms[l.atom];
        let base = &p.maps[p.relations[a.relation].base].name;
        let old = format_ident!("__old_{}", l.atom);
        let new = format_ident!("__new_{}", l.atom);
        let same = a.relation == rel;
        let earlier = join.earlier_same_relation.contains(&l.atom);
        // This atom's payload before and after the update: they differ only
        // at the updated tuple of the same relation.
        let payloads = |tuple: TokenStream, value: TokenStream| {
            let skip = earlier.then(|| quote! { if #tuple == *__tuple { continue; } });
            let pick = if same && !earlier {
                quote! {
                    let (#old, #new): (#k, #k) = if #tuple == *__tuple {
                        (::core::clone::Clone::clone(__old), ::core::clone::Clone::clone(__new))
                    } else {
                        let __v: #k = #value;
                        (::core::clone::Clone::clone(&__v), __v)
                    };
                }
            } else {
                quote! {
                    let #new: #k = #value;
                    let #old: #k = ::core::clone::Clone::clone(&#new);
                }
            };
            quote! { #skip #pick }
        };
        body = match l.access {
            Access::Point => {
                let key = key_expr(p, &a.vars);
                let value = quote! {
                    self.#base.get(&__u).map_or_else(
                        <#k as ::ivm::Semiring>::zero,
                        <#k as #maint>::value,
                    )
                };
                let pay = payloads(quote! { __u }, value);
                quote! {
                    #[allow(clippy::never_loop)]
                    for __u in ::core::iter::once(#key) {
                        #pay
                        if ::ivm::Semiring::is_zero(&#old) && ::ivm::Semiring::is_zero(&#new) {
                            continue;
                        }
                        #body
                    }
                }
            }
            Access::Scan => {
                let vars = a.vars.iter().map(|&v| bind_name(v));
                let fields = (0..a.vars.len()).map(syn::Index::from);
                if same && !earlier {
                    // The base map is already updated: a tuple whose
                    // payload has just returned to zero has left it, yet
                    // its derivations with the old payload must still be
                    // taken back. The scan visits it too.
                    let pay = payloads(quote! { *__u }, quote! { __v });
                    quote! {
                        let __left = (!self.#base.contains_key(__tuple))
                            .then(|| (__tuple, <#k as ::ivm::Semiring>::zero()));
                        let __scan = self.#base.iter().map(|(__u, __state)| (__u, <#k as #maint>::value(__state)));
                        for (__u, __v) in __scan.chain(__left) {
                            let (#(#vars,)*) = (#(&__u.#fields,)*);
                            #pay
                            #body
                        }
                    }
                } else {
                    let pay = payloads(quote! { *__u }, quote! { <#k as #maint>::value(__state) });
                    quote! {
                        for (__u, __state) in &self.#base {
                            let (#(#vars,)*) = (#(&__u.#fields,)*);
                            #pay
                            #body
                        }
                    }
                }
            }
            Access::Index(m) => {
                let MapKind::Index { columns, .. } = &p.maps[m].kind else {
                    unreachable!("an index")
                };
                let index = &p.maps[m].name;
                let key_vars: Vec<usize> = columns.iter().map(|&c| a.vars[c]).collect();
                let key = key_expr(p, &key_vars);
                let binds = (0..a.vars.len())
                    .filter(|c| !columns.contains(c) && needed.contains(&a.vars[*c]))
                    .map(|c| {
                        let v = &p.vars[a.vars[c]].name;
                        let f = syn::Index::from(c);
                        quote! { let #v = &__u.#f; }
                    });
                let value = quote! {
                    self.#base.get(__u).map_or_else(
                        <#k as ::ivm::Semiring>::zero,
                        <#k as #maint>::value,
                    )
                };
                let pay = payloads(quote! { *__u }, value);
                quote! {
                    for __u in self.#index.get(&#key) {
                        #(#binds)*
                        #pay
                        #body
                    }
                }
            }
        };
    }
    quote! {
        {
            let (#(#names,)*) = (#(&__tuple.#fields,)*);
            #body
        }
    }
}
