//! The one emitter: IR in, Rust tokens out.
//!
//! The generated code names every map after what it holds, documents each
//! one, and reaches the runtime only through absolute paths (`::ivm::...`,
//! `::ivm::__private::...`, `::core::...`), so it compiles in any crate that
//! depends on `ivm`. Locals of its own start with `__` so they never clash
//! with the query's variable names.

mod api;
mod bulk;
mod enumerate;
mod fallback;
mod recompute;
mod top;
mod trigger;

pub use fallback::fallback;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::ir::{Factor, MapId, MapKind, Program, VarId};

/// Emits the struct, its maintenance methods and its enumerator.
pub fn emit(p: &Program) -> TokenStream {
    let name = &p.name;
    let vis = &p.vis;
    let mut docs: Vec<String> = p.docs.clone();
    if !docs.is_empty() {
        docs.push(String::new());
    }
    docs.push(format!(
        " Keeps `{}` fresh under single-tuple updates.",
        p.rule
    ));
    docs.push(String::new());
    docs.push(format!(" {}", p.summary));
    // A base map the program does not keep is only a name (plan::storage).
    let kept = |m: &&crate::ir::Map| {
        !matches!(
            m.kind,
            MapKind::Base {
                kept: crate::ir::Kept::None,
                ..
            }
        )
    };
    let fields = p
        .maps
        .iter()
        .enumerate()
        .filter(|(_, m)| kept(m))
        .map(|(i, m)| {
            let field = &m.name;
            let doc = format!(" {}", m.doc);
            let ty = map_type(p, i);
            quote! { #[doc = #doc] #field: #ty, }
        });
    let inits = p.maps.iter().filter(kept).map(|m| {
        let field = &m.name;
        match &m.kind {
            MapKind::Free {
                children, factors, ..
            } => {
                let leaf = children.is_empty();
                let has_factors = !factors.is_empty();
                quote! { #field: ::ivm::__private::FreeLevel::new(#leaf, #has_factors), }
            }
            MapKind::Index { while_growing, .. } if !while_growing.is_empty() => {
                quote! { #field: ::ivm::__private::GrowingIndex::default(), }
            }
            MapKind::Index { .. } => quote! { #field: ::ivm::__private::Index::default(), },
            MapKind::Join { .. } | MapKind::Cluster { .. } => {
                quote! { #field: ::ivm::__private::JoinNode::new(), }
            }
            MapKind::Extension { .. } => quote! { #field: ::ivm::__private::Extensions::new(), },
            MapKind::Joined => quote! { #field: ::std::vec::Vec::new(), },
            MapKind::Triangle {
                eps: Some(eps),
                cycle: true,
                ..
            } => {
                quote! { #field: ::ivm::__private::GraphTriangle::new(#eps), }
            }
            MapKind::Triangle { eps: Some(eps), .. } => {
                quote! { #field: ::ivm::__private::Triangle::new(#eps), }
            }
            MapKind::Triangle { eps: None, .. } => {
                quote! { #field: ::ivm::__private::Factorized::new(), }
            }
            _ => quote! { #field: ::ivm::__private::HashMap::default(), },
        }
    });
    let api = api::methods(p);
    let bulk = bulk::bulk_load(p);
    let triggers = trigger::propagations(p);
    let top = top::methods(p);
    let enumerate = enumerate::methods(p);
    let change = api::change_enum(p);
    // Stable Rust has no way for a macro to raise a warning of its own, so
    // a use of a deprecated constant carries it, at the query's name.
    let warning = p.warning.as_ref().map(|note| {
        let flag = format_ident!(
            "__IVM_INTRACTABLE_{}",
            name.to_string().to_uppercase(),
            span = name.span()
        );
        quote::quote_spanned! {name.span()=>
            #[deprecated(note = #note)]
            #[doc(hidden)]
            const #flag: () = ();
            const _: () = #flag;
        }
    });
    // The insert-only strategies rely on a positive semiring; say so where
    // the compiler checks it.
    let positive = p.output.reading.is_top_join().then(|| {
        let k = &p.payload;
        quote! {
            const _: () = ::ivm::__private::require_positive::<#k>();
        }
    });
    quote! {
        #warning
        #positive

        #(#[doc = #docs])*
        #vis struct #name {
            #(#fields)*
        }

        // A query's struct is its whole API; a program rarely calls every
        // method, and that is no reason to warn.
        #[allow(dead_code, reason = "generated API: not every method is used")]
        impl #name {
            /// An empty database.
            pub fn new() -> Self {
                #name { #(#inits)* }
            }

            #bulk
            #api
            #enumerate
            #triggers
            #top
        }

        impl ::core::default::Default for #name {
            fn default() -> Self {
                Self::new()
            }
        }

        #change
    }
}

/// The Rust type of a map's field.
fn map_type(p: &Program, map: MapId) -> TokenStream {
    let maint = maintainer(p);
    let k = &p.payload;
    let m = &p.maps[map];
    match &m.kind {
        MapKind::Base { relation, .. } => {
            let cols = p.relations[*relation].columns.iter().map(|(_, t)| t);
            quote! { ::ivm::__private::HashMap<(#(#cols,)*), <#k as #maint>::State> }
        }
        MapKind::Sum { .. } => {
            let key = key_type(p, &m.key);
            quote! { ::ivm::__private::HashMap<#key, <#k as #maint>::State> }
        }
        MapKind::Free { var, .. } => {
            let key = key_type(p, &m.key);
            let x = &p.vars[*var].ty;
            quote! { ::ivm::__private::FreeLevel<#key, #x> }
        }
        MapKind::Index {
            relation,
            columns,
            while_growing,
        } => {
            let r = &p.relations[*relation];
            let key = columns.iter().map(|&c| &r.columns[c].1);
            let all = r.columns.iter().map(|(_, t)| t);
            // CROWN's indexes lose no tuple one at a time (inserts only),
            // only whole groups once their messages stop growing.
            if while_growing.is_empty() {
                quote! { ::ivm::__private::Index<(#(#key,)*), (#(#all,)*)> }
            } else {
                quote! { ::ivm::__private::GrowingIndex<(#(#key,)*), (#(#all,)*)> }
            }
        }
        MapKind::Triangle { vars, eps, cycle } => {
            let tys = vars.iter().map(|&v| &p.vars[v].ty);
            if *cycle {
                let vertex = &p.vars[vars[0]].ty;
                quote! { ::ivm::__private::GraphTriangle<#vertex, #k> }
            } else if eps.is_some() {
                quote! { ::ivm::__private::Triangle<#(#tys,)* #k> }
            } else {
                quote! { ::ivm::__private::Factorized<#(#tys,)* #k> }
            }
        }
        MapKind::Result => {
            let key = key_type(p, &m.key);
            quote! { ::ivm::__private::HashMap<#key, <#k as #maint>::State> }
        }
        MapKind::Join { parent, shared, .. } => {
            let key = key_type(p, &m.key);
            let up = if parent.is_some() {
                key_type(p, shared)
            } else {
                quote! { () }
            };
            quote! { ::ivm::__private::JoinNode<#key, #up> }
        }
        MapKind::Cluster {
            atom,
            parent,
            shared,
            ..
        } => {
            let cols = p.relations[p.atoms[*atom].relation]
                .columns
                .iter()
                .map(|(_, t)| t);
            let up = if parent.is_some() {
                key_type(p, shared)
            } else {
                quote! { () }
            };
            quote! { ::ivm::__private::JoinNode<(#(#cols,)*), #up> }
        }
        MapKind::Support { .. } => {
            let key = key_type(p, &m.key);
            quote! { ::ivm::__private::HashMap<#key, ()> }
        }
        MapKind::Extension { var, .. } => {
            let key = key_type(p, &m.key);
            let v = &p.vars[*var].ty;
            quote! { ::ivm::__private::Extensions<#key, #v> }
        }
        MapKind::Joined => {
            let key = key_type(p, &m.key);
            quote! { ::std::vec::Vec<#key> }
        }
        MapKind::Message { .. } | MapKind::Best { .. } => {
            // Entries only grow, so the plain payload is the state.
            let key = key_type(p, &m.key);
            quote! { ::ivm::__private::HashMap<#key, #k> }
        }
    }
}

/// The trait through which the program keeps payloads: `ivm::Maintained`,
/// or under inserts only over an idempotent semiring the O(1)
/// `ivm::Absorbed`.
fn maintainer(p: &Program) -> TokenStream {
    if p.absorbing {
        quote! { ::ivm::Absorbed }
    } else {
        quote! { ::ivm::Maintained }
    }
}

/// The tuple type of a key over `vars`: `()`, `(u32,)`, `(u32, u64)`.
fn key_type(p: &Program, vars: &[VarId]) -> TokenStream {
    let tys = vars.iter().map(|&v| &p.vars[v].ty);
    quote! { (#(#tys,)*) }
}

/// A key value over `vars` from variables in scope (bound as references).
fn key_expr(p: &Program, vars: &[VarId]) -> TokenStream {
    let names = vars.iter().map(|&v| &p.vars[v].name);
    quote! { (#(::core::clone::Clone::clone(#names),)*) }
}

/// The product of `factors` at the key formed by the variables in scope
/// (one when there are none): a free variable's local payload.
fn product_value(p: &Program, factors: &[Factor]) -> TokenStream {
    let k = &p.payload;
    if factors.is_empty() {
        return quote! { <#k as ::ivm::Semiring>::one() };
    }
    let mut values = factors.iter().map(|&f| factor_value(p, f));
    let first = values.next().expect("at least one factor");
    values.fold(first, |acc, v| quote! { ::ivm::Semiring::mul(&#acc, &#v) })
}

/// The payload of a factor at the key formed by the variables in scope.
fn factor_value(p: &Program, f: Factor) -> TokenStream {
    let maint = maintainer(p);
    let k = &p.payload;
    match f {
        Factor::Atom(a) => {
            let base = &p.maps[p.relations[p.atoms[a].relation].base].name;
            let key = key_expr(p, &p.atoms[a].vars);
            quote! {
                self.#base.get(&#key).map_or_else(
                    <#k as ::ivm::Semiring>::zero,
                    <#k as #maint>::value,
                )
            }
        }
        Factor::Map(m)
            if matches!(
                p.maps[m].kind,
                MapKind::Message { .. } | MapKind::Best { .. }
            ) =>
        {
            // Messages only grow: their entries are plain payloads.
            let map = &p.maps[m].name;
            let key = key_expr(p, &p.maps[m].key);
            quote! {
                self.#map.get(&#key).map_or_else(
                    <#k as ::ivm::Semiring>::zero,
                    ::core::clone::Clone::clone,
                )
            }
        }
        Factor::Map(m) => {
            let map = &p.maps[m].name;
            let key = key_expr(p, &p.maps[m].key);
            quote! {
                self.#map.get(&#key).map_or_else(
                    <#k as ::ivm::Semiring>::zero,
                    <#k as #maint>::value,
                )
            }
        }
    }
}

/// For each CROWN message among `messages`, whether it can still grow at
/// `key` (an expression over the key in scope); a message that can will
/// revisit the tuples indexed there. Callers join them with `||`.
fn can_grow(p: &Program, messages: &[MapId], key: &TokenStream) -> Vec<TokenStream> {
    let k = &p.payload;
    messages
        .iter()
        .map(|&g| {
            let message = &p.maps[g].name;
            quote! {
                !self.#message.get(&#key).is_some_and(<#k as ::ivm::BoundedMonotone>::is_top)
            }
        })
        .collect()
}

/// `snake_case` method name with a prefix: `update_sales`.
fn method(prefix: &str, snake: &str) -> Ident {
    format_ident!("{prefix}_{snake}")
}

/// Formats generated tokens as a Rust file with prettyplease.
pub fn to_file_string(tokens: TokenStream) -> Result<String, syn::Error> {
    let file: syn::File = syn::parse2(tokens)?;
    Ok(prettyplease::unparse(&file))
}
