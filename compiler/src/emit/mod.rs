//! The one emitter: IR in, Rust tokens out.
//!
//! The generated code names every map after what it holds, documents each
//! one, and reaches the runtime only through absolute paths (`::ivm::...`,
//! `::ivm::__private::...`, `::core::...`), so it compiles in any crate that
//! depends on `ivm`. Locals of its own start with `__` so they never clash
//! with the query's variable names.
//!
//! One file per IR construct, each with the field types and initial values
//! of its maps, what an update does to them, the methods they add and how
//! the result is read from them; this file holds the exhaustive matches
//! that send each map, path and reading to its construct, and the helpers
//! they share.
//!
//! | file | maps | path | reading |
//! |---|---|---|---|
//! | `relation.rs` | `Base`, `Index` | (the update API, and the propagation of each relation's changes) | |
//! | `view_tree.rs` | `Sum`, `Free` | `Steps` | `Levels` (and `bulk_load` in one pass) |
//! | `first_order.rs` | `Result` | `DeltaJoin` | `Result` |
//! | `triangle.rs` | `Triangle` | `Triangle` | `Triangle` |
//! | `nullary.rs` | | | a nullary `Triangle` or `Result` times nullary factors |
//! | `top_join.rs` | `Join`, `Support`, `Extension`, `Joined` | | `TopJoin`, `Joined` |
//! | `message.rs` | `Message`, `Best` | `Raise` | |
//! | `cluster_crown.rs` | `Cluster` | `Cluster` | |
//! | `recompute.rs` | | | `Recompute` |

mod aliases;
mod bulk;
mod changes;
mod cluster_crown;
mod fallback;
mod first_order;
mod local;
mod message;
mod names;
mod nullary;
mod range_join;
mod recompute;
mod relation;
mod semijoin;
mod sql;
mod top_join;
mod triangle;
mod view_tree;

pub use fallback::fallback;
pub use sql::wrapper as sql_wrapper;
pub use sql::{
    base_tables as sql_base_tables, composite as sql_composite,
    composite_name as sql_composite_name, nested_view as sql_nested_view,
};

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::tuple::{item, tuple};

use crate::ir::{
    AtomPath, BaseMap, BestMap, Factor, FreeLevel, Kept, LevelStore, MapId, MapKind, Message,
    PathBody, Program, Reading, Typed, VarId,
};

/// Emits the struct, its maintenance methods and its enumerator.
pub fn emit(p: &Program) -> TokenStream {
    let name = &p.name;
    let vis = &p.vis;
    let docs = struct_docs(p);
    let kept = kept_maps(p);
    // What `changes()` of a top join adds: journals and records, none of
    // them in a snapshot.
    let tracked_fields = changes::extra_fields(p);
    let StructFields { decls, inits } = struct_fields(p, &kept, &tracked_fields);
    let field_names: Vec<&Ident> = kept
        .iter()
        .map(|&m| &p.maps[m].name)
        .chain(semijoin::field_names(p))
        .collect();
    let changes_field = changes::field_name(p);
    let fresh = std::iter::once(&changes_field).chain(tracked_fields.iter().map(|(_, _, n)| n));
    let changes_method = changes::method(p);
    let subprograms = semijoin::items(p);
    let semijoin_methods = semijoin::methods(p);
    let api = relation::methods(p);
    let bulk = bulk::bulk_load(p);
    let triggers = relation::propagations(p);
    let top = (0..p.maps.len()).map(|m| map_methods(p, m));
    let enumerate = reading(p);
    let change = relation::change_enum(p);
    let view = relation::view_impls(p);
    let warning = intractable_warning(p);
    let checks = semiring_checks(p);
    let many = too_many_arguments_allow(p);
    let complex = type_complexity_allow(p);
    let code = quote! {
        #subprograms

        #warning
        #checks

        #(#[doc = #docs])*
        #complex
        #vis struct #name {
            #(#decls)*
        }

        // A query's struct is its whole API; a program rarely calls every
        // method, and that is no reason to warn.
        #[allow(dead_code, reason = "generated API: not every method is used")]
        #complex
        #many
        impl #name {
            /// An empty database.
            pub fn new() -> Self {
                #name { #(#inits)* }
            }

            #bulk
            #api
            #enumerate
            #changes_method
            #triggers
            #semijoin_methods
            #(#top)*
        }

        #change

        #view

        // serde for snapshots and durable logs, with `ivm`'s `serde`
        // feature; nothing without it.
        ::ivm::__private::impl_state!(#name { #(#field_names),* } fresh { #(#fresh),* });
    };
    // A snapshot restores only into a struct with the same plan
    // (`Program::plan_hash`).
    let plan = syn::LitInt::new(
        &format!("{:#018x}_u64", p.plan_hash()),
        proc_macro2::Span::call_site(),
    );
    let aliases = aliases::definitions(p, &code);
    quote! {
        #aliases
        #code
        ::ivm::__private::impl_snapshot!(#name, #plan);
    }
}

/// The doc lines of the struct: the query's own, then what it keeps fresh
/// and how.
fn struct_docs(p: &Program) -> Vec<String> {
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
    docs
}

/// The maps the struct has a field for: a base map the program does not
/// keep is only a name (plan::storage), and so is a free level read off
/// its factor's keys (`LevelStore::KeysOf`).
fn kept_maps(p: &Program) -> Vec<MapId> {
    (0..p.maps.len())
        .filter(|&m| {
            !matches!(
                p.maps[m].kind,
                MapKind::Base(BaseMap {
                    kept: Kept::None | Kept::IndexOnly | Kept::InTriangle | Kept::Trusted,
                    ..
                }) | MapKind::Free(FreeLevel {
                    store: LevelStore::KeysOf(_),
                    ..
                })
            )
        })
        .collect()
}

/// The struct's fields: their declarations and, in the same order, their
/// initial values in `new`.
struct StructFields {
    decls: Vec<TokenStream>,
    inits: Vec<TokenStream>,
}

/// The fields of the kept maps, the semijoins' subprograms, the changes
/// journal and what change tracking adds (`tracked`).
fn struct_fields(
    p: &Program,
    kept: &[MapId],
    tracked: &[(TokenStream, TokenStream, Ident)],
) -> StructFields {
    let (decls, inits) = kept
        .iter()
        .map(|&m| {
            let name = &p.maps[m].name;
            let doc = format!(" {}", p.maps[m].doc);
            let (ty, init) = field(p, m);
            (
                quote! { #[doc = #doc] #name: #ty, },
                quote! { #name: #init, },
            )
        })
        .chain(semijoin::fields(p))
        .chain([changes::field(p)])
        .chain(tracked.iter().map(|(f, i, _)| (f.clone(), i.clone())))
        .unzip();
    StructFields { decls, inits }
}

/// The intractability warning, when the query has one: stable Rust has no
/// way for a macro to raise a warning of its own, so a use of a deprecated
/// constant carries it, at the query's name.
fn intractable_warning(p: &Program) -> Option<TokenStream> {
    let name = &p.name;
    p.warning.as_ref().map(|note| {
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
    })
}

/// The compile-time checks of the semiring: the classes a semiring of the
/// user's own claims, the catalogue types, and positivity where a strategy
/// relies on it.
fn semiring_checks(p: &Program) -> TokenStream {
    let claims = claim_checks(p);
    let catalogue = catalogue_checks(p);
    // The insert-only strategies rely on a positive semiring; say so where
    // the compiler checks it.
    let positive = p.reading.is_top_join().then(|| {
        let k = &p.payload;
        quote! {
            const _: () = ::ivm::__private::require_positive::<#k>();
        }
    });
    quote! {
        #claims
        #catalogue
        #positive
    }
}

/// Each class a semiring of the user's own claims, checked against the
/// trait that states it, at the keyword; `None` without claims.
fn claim_checks(p: &Program) -> Option<TokenStream> {
    let claims = p.claims.iter().map(|keyword| {
        // The payload type is spanned at the keyword too: rustc reports an
        // unmet bound at the type argument.
        let k = respan(quote::ToTokens::to_token_stream(&p.payload), keyword.span());
        quote::quote_spanned! {keyword.span()=>
            ::ivm::__private::claims::#keyword::<#k>();
        }
    });
    (!p.claims.is_empty()).then(|| {
        quote! {
            const _: () = {
                #(#claims)*
            };
        }
    })
}

/// A check that each catalogue semiring's path names that type, or the
/// strategies chosen for it may be wrong (a type of the user's own under a
/// catalogue name); proved at the type as written.
fn catalogue_checks(p: &Program) -> TokenStream {
    let catalogue = p.catalogue_types.iter().map(|(ty, name)| {
        let span = syn::spanned::Spanned::span(ty);
        let ty = respan(quote::ToTokens::to_token_stream(ty), span);
        quote::quote_spanned! {span=>
            const _: () = ::ivm::__private::catalogue::<#ty>(#name);
        }
    });
    quote! { #(#catalogue)* }
}

/// The number of columns of the widest relation.
fn widest_relation(p: &Program) -> usize {
    p.relations
        .iter()
        .map(|r| r.columns.len())
        .max()
        .unwrap_or(0)
}

/// Wide relations: one parameter per column, past clippy's threshold.
fn too_many_arguments_allow(p: &Program) -> Option<TokenStream> {
    (widest_relation(p) > 5).then(|| {
        quote! { #[allow(clippy::too_many_arguments, reason = "one parameter per column")] }
    })
}

/// Maps of tuple payloads (several aggregates, as SQL views have), of
/// wide keys and of `Option` columns (SQL's nullable ones) spell long
/// types: an index of a four-column relation by three of them is already
/// past clippy's threshold.
fn type_complexity_allow(p: &Program) -> Option<TokenStream> {
    let tuple_payload = matches!(p.payload, syn::Type::Tuple(_));
    let options = p.relations.iter().any(|r| {
        r.columns
            .iter()
            .any(|(_, ty)| quote! { #ty }.to_string().contains("Option"))
    });
    (widest_relation(p) > 3 || tuple_payload || options).then(|| {
        quote! { #[allow(clippy::type_complexity, reason = "tuple payloads and wide keys spell long types")] }
    })
}

/// A map's field, by construct: its Rust type and its initial (empty)
/// value.
fn field(p: &Program, m: MapId) -> (TokenStream, TokenStream) {
    let map = &p.maps[m];
    let payloads = || payload_map(p, key_type(p, &map.key));
    let keys = || {
        let key = key_type(p, &map.key);
        quote! { ::ivm::__private::HashMap<#key, ()> }
    };
    match &map.kind {
        MapKind::Base(base) => relation::base_field(p, base),
        MapKind::Index(index) => relation::index_field(p, index),
        MapKind::ViewIndex(index) => (
            view_tree::view_index_type(p, map, index),
            quote! { ::ivm::__private::Index::default() },
        ),
        MapKind::Sum(_) | MapKind::Result(_) => (payloads(), payload_map_init()),
        MapKind::Free(level) => view_tree::level_field(p, map, level),
        MapKind::RangeSums(sums) => (
            range_join::field_type(p, sums),
            quote::quote! { ::core::default::Default::default() },
        ),
        MapKind::Triangle(state) => (triangle::field_type(p, state), triangle::field_init(state)),
        MapKind::Join(node) => top_join::node_field(p, map, node),
        MapKind::Support(_) => (keys(), hash_map_init()),
        MapKind::Extension(extension) => top_join::extension_field(p, map, extension),
        MapKind::Joined(_) => {
            let key = key_type(p, &map.key);
            (
                quote! { ::std::vec::Vec<#key> },
                quote! { ::std::vec::Vec::new() },
            )
        }
        MapKind::Message(_) | MapKind::Best(_) => (message::field_type(p, map), hash_map_init()),
        MapKind::Cluster(node) => (
            cluster_crown::field_type(p, node),
            cluster_crown::field_init(),
        ),
    }
}

/// The methods a map adds to the struct, by construct.
fn map_methods(p: &Program, m: MapId) -> TokenStream {
    match p.typed(m) {
        Typed::Join(node) => top_join::join_methods(p, node),
        Typed::Cluster(node) => {
            let mut methods = top_join::join_methods(p, node);
            methods.extend(cluster_crown::participate_method(p, node));
            methods
        }
        Typed::Message(id) => message::raise_method(p, message::Grown::Message(id)),
        Typed::Best(id) => message::raise_method(p, message::Grown::Best(id)),
        Typed::Support(id) => top_join::support_method(p, id),
        Typed::Base(_)
        | Typed::Index(_)
        | Typed::ViewIndex(_)
        | Typed::Sum(_)
        | Typed::Free(_)
        | Typed::Result(_)
        | Typed::RangeSums(_)
        | Typed::Triangle(_)
        | Typed::Extension(_)
        | Typed::Joined(_) => TokenStream::new(),
    }
}

/// What an update to an atom's tuple does, by construct.
fn atom_path(p: &Program, path: &AtomPath) -> TokenStream {
    match &path.body {
        PathBody::Steps {
            steps,
            later_same_relation,
        } => view_tree::path(p, path.atom, steps, later_same_relation),
        PathBody::DeltaJoin(join) => first_order::path(p, path.atom, join),
        &PathBody::Triangle { map, role, columns } => triangle::path(p, map, role, columns),
        &PathBody::Raise(message) => message::path(p, path.atom, message),
        &PathBody::Cluster(node) => cluster_crown::path(p, node),
        &PathBody::Feed(d) => local::path(p, d),
        &PathBody::Semijoin { semijoin, relation } => semijoin::path(p, semijoin, relation),
        PathBody::Range(step) => range_join::path(p, path.atom, step),
    }
}

/// The reading methods (`iter`, `get`, `len`, `is_empty`), by construct.
fn reading(p: &Program) -> TokenStream {
    match &p.reading {
        Reading::Levels { scalars, roots } => view_tree::reading(p, scalars, roots),
        Reading::Result { map, scalars } => first_order::reading(p, *map, scalars),
        Reading::Triangle { map, scalars } => triangle::reading(p, *map, scalars),
        Reading::TopJoin(top) => top_join::reading(p, top),
        &Reading::Joined(joined) => top_join::joined_reading(p, joined),
        Reading::Recompute(plan) => recompute::reading(p, plan),
    }
}

/// The initial value of a field that is a `PayloadMap`.
fn payload_map_init() -> TokenStream {
    quote! { ::ivm::__private::PayloadMap::new() }
}

/// The initial value of a field that is a plain hash map.
fn hash_map_init() -> TokenStream {
    quote! { ::ivm::__private::HashMap::default() }
}

/// The type of a map from `key` to payloads: `PayloadMap`, keeping each
/// payload by `ivm::Maintained`, or under inserts only over an idempotent
/// semiring by the O(1) `ivm::Absorbed`.
fn payload_map(p: &Program, key: TokenStream) -> TokenStream {
    let k = &p.payload;
    if p.absorbing {
        quote! { ::ivm::__private::PayloadMap<#key, #k, ::ivm::__private::Absorbing> }
    } else {
        quote! { ::ivm::__private::PayloadMap<#key, #k> }
    }
}

/// What a flat pattern of `n` names binds by reference to the items of
/// `base`, a tuple of `n` items: `&base` (match ergonomics bind each item
/// by reference, through any references `base` is behind), or `(&t.0,
/// &t.1, ..)` for a tuple nested beyond twelve items.
fn field_refs(base: &TokenStream, n: usize) -> TokenStream {
    if n <= 12 {
        return quote! { &#base };
    }
    let fields = (0..n).map(|i| item(base, i, n));
    quote! { (#(&#fields,)*) }
}

/// The tuple type of a key over `vars`: `()`, `(u32,)`, `(u32, u64)`,
/// or the name of a wide one (`aliases`).
fn key_type(p: &Program, vars: &[VarId]) -> TokenStream {
    aliases::named(
        p,
        tuple(vars.iter().map(|&v| {
            let ty = &p.vars[v].ty;
            quote! { #ty }
        })),
        None,
    )
}

/// A key value over `vars` from variables in scope (bound as references).
fn key_expr(p: &Program, vars: &[VarId]) -> TokenStream {
    tuple(vars.iter().map(|&v| owned(p, v)))
}

/// `base`, a tuple over `vars` behind a reference, cloned: a key over all
/// of its items in order.
fn cloned_whole(p: &Program, vars: &[VarId], base: &TokenStream) -> TokenStream {
    let ty = key_type(p, vars);
    quote! { <#ty as ::core::clone::Clone>::clone(#base) }
}

/// The type of a free level's values: its variable's type, or the tuple
/// of its variables' types.
fn level_type(p: &Program, vars: &[VarId]) -> TokenStream {
    match vars {
        [one] => {
            let ty = &p.vars[*one].ty;
            quote! { #ty }
        }
        _ => key_type(p, vars),
    }
}

/// A free level's value from its variables in scope (bound as references).
fn level_value(p: &Program, vars: &[VarId]) -> TokenStream {
    match vars {
        [one] => owned(p, *one),
        _ => key_expr(p, vars),
    }
}

/// The pattern that binds a free level's variables, by reference, to one
/// of its values (given as a reference).
fn level_pattern(p: &Program, vars: &[VarId]) -> TokenStream {
    match vars {
        [one] => {
            let name = &p.vars[*one].name;
            quote! { #name }
        }
        _ => names_pattern(p, vars),
    }
}

/// The pattern that binds `vars`, by reference, to a key over them (given
/// as a reference), nested as [`tuple`] nests the key.
fn names_pattern(p: &Program, vars: &[VarId]) -> TokenStream {
    tuple(vars.iter().map(|&v| {
        let name = &p.vars[v].name;
        quote! { #name }
    }))
}

/// The type of an output tuple: the head variables' types, in head order.
fn head_type(p: &Program) -> TokenStream {
    key_type(p, &p.head)
}

/// Whether `code` reads a head variable by name.
fn reads_head(p: &Program, code: &TokenStream) -> bool {
    p.head
        .iter()
        .any(|&v| aliases::mentions(code, &p.vars[v].name))
}

/// What binds `key` (an output tuple, by reference) for `parts` to read:
/// the head variables the parts read by name (the others `_`: a part may
/// read `key` itself too), nothing where the parts read only `key`, and
/// `let _ = key;` where they read neither.
fn head_binding(p: &Program, parts: &[TokenStream]) -> TokenStream {
    if parts.iter().any(|part| reads_head(p, part)) {
        let pattern = tuple(p.head.iter().map(|&v| {
            let name = &p.vars[v].name;
            if parts.iter().any(|part| aliases::mentions(part, name)) {
                quote! { #name }
            } else {
                quote! { _ }
            }
        }));
        quote! { let #pattern = key; }
    } else if parts
        .iter()
        .any(|part| aliases::mentions(part, &format_ident!("key")))
    {
        quote! {}
    } else {
        quote! { let _ = key; }
    }
}

/// The pattern that binds the head variables to an output tuple.
fn head_pattern(p: &Program) -> TokenStream {
    names_pattern(p, &p.head)
}

/// The tuple type of a relation's tuples, or its name when it is wide
/// (`aliases`).
fn relation_type(p: &Program, r: &crate::ir::RelationIr) -> TokenStream {
    let ty = tuple(r.columns.iter().map(|(_, ty)| quote! { #ty }));
    aliases::named(p, ty, Some(&r.name))
}

/// The value of a variable in scope (bound as a reference): copied for a
/// primitive type, cloned otherwise.
fn owned(p: &Program, v: VarId) -> TokenStream {
    let name = &p.vars[v].name;
    if p.vars[v].is_copy() {
        quote! { *#name }
    } else {
        quote! { ::core::clone::Clone::clone(#name) }
    }
}

/// The product of `factors` at the key formed by the variables in scope
/// (one when there are none): a free variable's local payload.
fn product_value(p: &Program, factors: &[Factor]) -> TokenStream {
    product_value_at(p, factors, None)
}

/// A tuple in scope, behind a reference, and the variables it holds in
/// order: a factor keyed by exactly those variables is read at it, with
/// no key built.
#[derive(Clone, Copy)]
struct Whole<'a> {
    vars: &'a [VarId],
    tuple: &'a TokenStream,
}

/// [`product_value`], reading a factor keyed like `whole` at it.
fn product_value_at(p: &Program, factors: &[Factor], whole: Option<Whole>) -> TokenStream {
    let k = &p.payload;
    if factors.is_empty() {
        return quote! { <#k as ::ivm::Semiring>::one() };
    }
    let mut values = factors.iter().map(|&f| factor_value(p, f, whole));
    let first = values.next().expect("at least one factor");
    values.fold(first, |acc, v| quote! { ::ivm::Semiring::mul(&#acc, &#v) })
}

/// A reference to the key over `vars`: `whole`'s tuple when it holds
/// exactly them, else a key built from the variables in scope.
fn key_ref(p: &Program, vars: &[VarId], whole: Option<Whole>) -> TokenStream {
    match whole {
        Some(Whole { vars: w, tuple }) if w == vars => quote! { #tuple },
        _ => {
            let key = key_expr(p, vars);
            quote! { &#key }
        }
    }
}

/// The payload of a factor at the key formed by the variables in scope.
fn factor_value(p: &Program, f: Factor, whole: Option<Whole>) -> TokenStream {
    let k = &p.payload;
    match f {
        Factor::Atom(a) => {
            let base = &p.maps[p.relations[p.atoms[a].relation].base].name;
            let key = key_ref(p, &p.atoms[a].vars, whole);
            quote! { self.#base.value(#key) }
        }
        Factor::Map(m)
            if matches!(
                p.maps[m].kind,
                MapKind::Message(Message { .. }) | MapKind::Best(BestMap { .. })
            ) =>
        {
            // Messages only grow: their entries are plain payloads.
            let map = &p.maps[m].name;
            let key = key_ref(p, &p.maps[m].key, whole);
            quote! {
                self.#map.get(#key).map_or_else(
                    <#k as ::ivm::Semiring>::zero,
                    ::core::clone::Clone::clone,
                )
            }
        }
        Factor::Map(m) => {
            let map = &p.maps[m].name;
            let key = key_ref(p, &p.maps[m].key, whole);
            quote! { self.#map.value(#key) }
        }
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(group) = &tree {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = proc_macro2::TokenTree::Group(inner);
            } else {
                tree.set_span(span);
            }
            tree
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
