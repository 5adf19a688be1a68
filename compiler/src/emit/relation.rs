//! Relations: their base maps (`MapKind::Base`) and indexes
//! (`MapKind::Index`), the public methods of `docs/design.md#the-generated-api` that change
//! them (updates, deletes, retractions, batches, the change enum), and the
//! `on_<relation>_changed` method that carries a tuple's change to each of
//! its atoms' paths.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::method;
use crate::ir::{
    AtomId, BaseMap, Id, Kept, MapKind, Message, PathBody, Program, RelId, RelationIndex,
    RelationIr, Route, Trigger,
};
use crate::query::UpdateModel;

/// `R(a, b)`: a relation's tuple as the docs of its methods write it.
fn tuple_doc(r: &RelationIr) -> String {
    let cols: Vec<String> = r.columns.iter().map(|(c, _)| c.to_string()).collect();
    format!("{}({})", r.name, cols.join(", "))
}

/// The name of the payload parameter: `delta`, unless a column has it.
fn delta_name(r: &RelationIr) -> Ident {
    if r.columns.iter().any(|(c, _)| c == "delta") {
        format_ident!("delta_payload")
    } else {
        format_ident!("delta")
    }
}

/// The type of a column's update parameter: its own, or, for text (a
/// `String` column), anything that reads as a `&str` and turns into a
/// `String`. A caller whose rows are borrowed (fields of a line it read)
/// then allocates nothing for a column that no view keeps: the
/// fingerprint hashes the `&str`, which hashes as the `String` would.
fn param_type(ty: &syn::Type, text: bool) -> TokenStream {
    if text {
        quote! { impl ::ivm::Text }
    } else {
        quote! { #ty }
    }
}

/// How the tuple that `on_<relation>_changed` is given holds a declared
/// relation's columns. A relation that keeps no tuple (its fingerprints,
/// or nothing under trusted deletes) need not own them: its update hashes
/// the columns where they are, and its views take what they read.
pub enum StepTuple {
    /// Every column, owned: the relation's tuple type.
    Whole,
    /// Only the columns its views read (`true`), `()` in place of each
    /// other, so an unread column is never moved or copied. Where every
    /// path is a local step or a view-tree climb (not a self-join's,
    /// which compares whole tuples), and some column is unread.
    Read(Vec<bool>),
    /// Every column, text lent as `&str`: where every path is a
    /// semijoin's, which lends the columns on to its bodies (they take
    /// `impl ivm::Text`) and copies only the text of its keys.
    Lent,
}

/// How relation `rel`'s views are given its tuple: see [`StepTuple`].
pub fn step_tuple(p: &Program, rel: RelId) -> StepTuple {
    if !matches!(
        p.kept(rel),
        Kept::Fingerprinted | Kept::FingerprintedPayloads | Kept::Trusted
    ) {
        return StepTuple::Whole;
    }
    let Some(trigger) = p.triggers.iter().find(|t| t.relation == rel) else {
        return StepTuple::Whole;
    };
    let semijoin = |body: &PathBody| matches!(body, PathBody::Semijoin { .. });
    if trigger.paths.iter().all(|path| semijoin(&path.body)) {
        return StepTuple::Lent;
    }
    let mut read = vec![false; p.relations[rel].columns.len()];
    for path in &trigger.paths {
        let columns = match &path.body {
            PathBody::Feed(d) => super::local::read_columns(p, *d),
            PathBody::Steps {
                steps,
                later_same_relation,
            } if later_same_relation.is_empty() => {
                super::view_tree::read_columns(p, path.atom, steps)
            }
            _ => return StepTuple::Whole,
        };
        for c in columns {
            read[c] = true;
        }
    }
    if read.contains(&false) {
        StepTuple::Read(read)
    } else {
        StepTuple::Whole
    }
}

/// The type of the tuple `on_<relation>_changed` is given ([`StepTuple`]).
fn step_type(p: &Program, rel: RelId) -> TokenStream {
    let r = &p.relations[rel];
    let types = |ty: &dyn Fn(usize, &syn::Type) -> TokenStream| {
        super::tuple(r.columns.iter().enumerate().map(|(c, (_, t))| ty(c, t)))
    };
    match step_tuple(p, rel) {
        StepTuple::Whole => super::relation_type(p, r),
        StepTuple::Read(read) => types(&|c, t| {
            if read[c] {
                quote! { #t }
            } else {
                quote! { () }
            }
        }),
        StepTuple::Lent => types(&|_, t| {
            if crate::ir::is_string_type(t) {
                quote! { &str }
            } else {
                quote! { #t }
            }
        }),
    }
}

/// The update, insert, delete and retract methods of every relation.
///
/// Each is `#[inline]`: a caller's loop of single-tuple updates is the hot
/// path, and a call saves and restores half a dozen registers around an
/// update of a hundred-odd instructions (17 of 156 per insert of
/// `ExposedAccounts`, measured under callgrind). The hint also lets a crate
/// that uses the generated struct from another crate inline it at all;
/// LLVM still declines an update too large to pay.
pub fn methods(p: &Program) -> TokenStream {
    let per_relation = (0..p.relations.len()).map(|r| {
        if p.relations[r].is_fed() {
            feed_method(p, r)
        } else {
            relation_methods(p, r)
        }
    });
    quote! { #(#per_relation)* }
}

/// Keeping a relation's indexes in step with its tuples.
struct IndexUpkeep {
    /// Before the tuple's state changes: for each CROWN index, whether a
    /// message at the tuple's key there can still grow (`__revisit_<i>`).
    /// CROWN only inserts, so `retract` never needs them.
    revisit: TokenStream,
    /// The names of those flags.
    flags: Vec<Ident>,
    /// After the state changed, before the change propagates (so a delta
    /// join or a revisit sees the tuple): a tuple whose payload turned
    /// non-zero enters the indexes (a CROWN index only if some message
    /// there may revisit it).
    enter: TokenStream,
    /// After the change propagated: a tuple whose payload turned zero
    /// leaves them.
    leave: TokenStream,
}

/// What a CROWN index keeps of `__tuple` (in scope): its columns outside
/// the key.
fn kept_part(p: &Program, rel: RelId, columns: &[usize]) -> TokenStream {
    let n = p.relations[rel].columns.len();
    super::tuple(p.columns_outside(rel, columns).into_iter().map(|c| {
        let f = super::item(&quote! { __tuple }, c, n);
        quote! { ::core::clone::Clone::clone(&#f) }
    }))
}

/// For a relation whose payloads are not kept (`Kept::IndexOnly`): the
/// tuple goes into each CROWN index whose message can still grow at its
/// key (`flags`, from [`index_upkeep`]'s `revisit`).
fn index_inserts(p: &Program, rel: RelId, flags: &[Ident]) -> TokenStream {
    let n = p.relations[rel].columns.len();
    let inserts = p
        .all::<RelationIndex>()
        .filter(|(_, index)| index.relation == rel && !index.while_growing.is_empty())
        .zip(flags)
        .map(|((m, index), flag)| {
            let columns = &index.columns;
            let field = &p.maps[m].name;
            let key = super::tuple(columns.iter().map(|&c| {
                let f = super::item(&quote! { __tuple }, c, n);
                quote! { ::core::clone::Clone::clone(&#f) }
            }));
            let kept = kept_part(p, rel, columns);
            quote! {
                if #flag {
                    self.#field.insert(#key, #kept);
                }
            }
        });
    quote! { #(#inserts)* }
}

/// The revisit flags of a relation whose update raises in place
/// (`emit::message::raise_in_update`), in the order of
/// [`index_inserts`]: a message the update has read already (`known`, at
/// the index's key) is asked whether it is at the top, any other is
/// looked up.
fn revisit_known(
    p: &Program,
    rel: RelId,
    atom: AtomId,
    known: &[(Id<Message>, TokenStream)],
) -> (TokenStream, Vec<Ident>) {
    let k = &p.payload;
    let n = p.relations[rel].columns.len();
    let mut flags = Vec::new();
    let lets: Vec<TokenStream> = p
        .maps
        .iter()
        .filter_map(|m| match &m.kind {
            MapKind::Index(RelationIndex {
                relation,
                columns,
                while_growing,
                ..
            }) if *relation == rel && !while_growing.is_empty() => Some((columns, while_growing)),
            _ => None,
        })
        .map(|(columns, while_growing)| {
            let vars: Vec<_> = columns.iter().map(|&c| p.atoms[atom].vars[c]).collect();
            let key = super::tuple(columns.iter().map(|&c| {
                let f = super::item(&quote! { __tuple }, c, n);
                quote! { ::core::clone::Clone::clone(&#f) }
            }));
            let growing =
                while_growing
                    .iter()
                    .map(|&g| match known.iter().find(|(m, _)| *m == g) {
                        Some((_, local)) if p.maps[g].key == vars => {
                            quote! { !<#k as ::ivm::BoundedMonotone>::is_top(&#local) }
                        }
                        _ => super::message::can_grow_at(p, g, &key),
                    });
            let flag = format_ident!("__revisit_{}", flags.len());
            flags.push(flag.clone());
            quote! { let #flag = #(#growing)||*; }
        })
        .collect();
    (quote! { #(#lets)* }, flags)
}

fn index_upkeep(p: &Program, rel: RelId) -> IndexUpkeep {
    let k = &p.payload;
    let (mut revisit, mut flags) = (Vec::new(), Vec::new());
    let (mut enter, mut enter_while, mut leave) = (Vec::new(), Vec::new(), Vec::new());
    let mut refresh = Vec::new();
    for m in &p.maps {
        if let MapKind::Index(RelationIndex {
            relation,
            columns,
            while_growing,
            payloads,
        }) = &m.kind
            && *relation == rel
        {
            let field = &m.name;
            let n = p.relations[rel].columns.len();
            let key = super::tuple(columns.iter().map(|&c| {
                let f = super::item(&quote! { __tuple }, c, n);
                quote! { ::core::clone::Clone::clone(&#f) }
            }));
            let insert =
                quote! { self.#field.insert(#key, ::core::clone::Clone::clone(&__tuple)); };
            if *payloads {
                // The payload beside the tuple follows every change, so a
                // loop that reads it sees what the base map holds: a tuple
                // that turned zero stays, with payload zero, until the
                // change has propagated (as in the indexes without), where
                // another path may loop over the index meanwhile (`alone`
                // below).
                enter.push(quote! {
                    self.#field.insert_with(
                        #key,
                        ::core::clone::Clone::clone(&__tuple),
                        ::core::clone::Clone::clone(&__new),
                    );
                });
                refresh.push(quote! {
                    self.#field.set(&#key, &__tuple, ::core::clone::Clone::clone(&__new));
                });
                leave.push(quote! { self.#field.remove(&#key, &__tuple); });
            } else if while_growing.is_empty() {
                enter.push(insert);
                leave.push(quote! { self.#field.remove(&#key, &__tuple); });
            } else {
                // Only a message that can still grow at the key will
                // revisit the tuple. A CROWN index's tuples never turn
                // zero (inserts over a positive semiring); its groups
                // leave whole (emit::top).
                let flag = format_ident!("__revisit_{}", flags.len());
                let growing = super::message::can_grow(p, while_growing, &key);
                let kept = kept_part(p, rel, columns);
                revisit.push(quote! { let #flag = #(#growing)||*; });
                enter_while.push(quote! {
                    if ::ivm::Semiring::is_zero(&__old) && #flag {
                        self.#field.insert(#key, #kept);
                    }
                });
                flags.push(flag);
            }
        }
    }
    let enter = (!enter.is_empty()).then(|| {
        // While the change propagates, only a path of the relation's
        // other atoms (a self-join), of a relation its atoms feed, or of a
        // semijoin it turns can loop over the relation's own indexes: with
        // one path alone, a tuple about to leave them needs no zero
        // payload first.
        let alone = p
            .triggers
            .iter()
            .find(|t| t.relation == rel)
            .is_some_and(|t| t.paths.len() == 1);
        let refresh = (!refresh.is_empty()).then(|| {
            if !alone {
                quote! { else { #(#refresh)* } }
            } else {
                quote! { else if !<#k as ::ivm::Semiring>::is_zero(&__new) { #(#refresh)* } }
            }
        });
        quote! {
            if ::ivm::Semiring::is_zero(&__old) {
                #(#enter)*
            } #refresh
        }
    });
    let leave = (!leave.is_empty()).then(|| {
        quote! {
            if <#k as ::ivm::Semiring>::is_zero(&__new) {
                #(#leave)*
            }
        }
    });
    IndexUpkeep {
        revisit: quote! { #(#revisit)* },
        flags,
        enter: quote! { #enter #(#enter_while)* },
        leave: quote! { #leave },
    }
}

/// The private method through which an atom's local step changes its
/// derived relation (one contribution, the source tuple's payload times
/// the atom's factors, changes from `from` to `to`), or a semijoin its
/// indicator (from 0 to 1 or back).
fn feed_method(p: &Program, rel_id: RelId) -> TokenStream {
    let r = &p.relations[rel_id];
    let k = &p.payload;
    let IndexUpkeep {
        revisit,
        flags,
        enter,
        leave,
    } = index_upkeep(p, rel_id);
    let base = &p.maps[r.base].name;
    let tuple_ty = super::relation_type(p, &p.relations[rel_id]);
    let feed = method("feed", &r.snake);
    let on_changed = method("on", &format!("{}_changed", r.snake));
    let doc = format!(
        " One contribution to `{}` changes from `from` to `to`.",
        r.name
    );
    let body = if p.kept(rel_id) == Kept::IndexOnly {
        // Over `Bool`, payloads not kept: index the tuple where a message
        // may revisit it, and pass the change up.
        let inserts = index_inserts(p, rel_id, &flags);
        quote! {
            #revisit
            #inserts
            self.#on_changed(&__tuple, __from, __to);
        }
    } else if !p.stores(rel_id) {
        // Not kept (plan::storage): the views above change by the change.
        quote! { self.#on_changed(&__tuple, __from, __to); }
    } else if !p.propagates(rel_id) {
        // Nothing above reads its changes: its map is all there is (a
        // semijoin's count read off its keys, `LevelStore::KeysOf`).
        quote! { self.#base.replace(__tuple, __from, __to); }
    } else {
        // A tuple that is not `Copy` is lent: the map clones it only into
        // a new entry.
        let tuple_copy = if r.columns.iter().all(|(_, t)| crate::ir::is_copy_type(t)) {
            quote! { __tuple }
        } else {
            quote! { &__tuple }
        };
        let unrevisitable = (p.kept(rel_id) == Kept::Revisitable).then(|| {
            quote! {
                if #(!#flags)&&* {
                    self.#on_changed(&__tuple, __from, __to);
                    return;
                }
            }
        });
        quote! {
            #revisit
            #unrevisitable
            if let ::core::option::Option::Some((__old, __new)) = self.#base.replace_changed(#tuple_copy, __from, __to) {
                #enter
                self.#on_changed(&__tuple, &__old, &__new);
                #leave
            }
        }
    };
    quote! {
        #[doc = #doc]
        fn #feed(&mut self, __tuple: #tuple_ty, __from: &#k, __to: &#k) {
            #body
        }
    }
}

/// The update, insert, delete and retract methods of a relation that is
/// not fed, by how its tuples are kept.
fn relation_methods(p: &Program, rel_id: RelId) -> TokenStream {
    let api = UpdateApi::new(p, rel_id);
    if p.kept(rel_id) == Kept::InTriangle {
        return in_triangle_methods(p, &api);
    }
    if p.stores(rel_id) {
        return api.stored_methods();
    }
    match p.kept(rel_id) {
        Kept::Fingerprinted => return api.fingerprinted_methods(quote! { fingerprints }),
        Kept::FingerprintedPayloads => {
            return api.fingerprinted_methods(quote! { fingerprints with payloads });
        }
        Kept::Trusted => return api.trusted_methods(),
        _ => {}
    }
    // Nothing reads the tuples back (plan::storage): the views above
    // change by `delta` at the tuple, whatever its payload was. Over
    // `Bool` (`Kept::IndexOnly`) a tuple a message may still revisit also
    // goes into that message's index first (a repeated insert then raises
    // nothing: ⊕ absorbs it).
    match super::message::raise_in_update(p, rel_id) {
        Some((atom, message)) => api.raising_methods(atom, message),
        None => api.unstored_methods(),
    }
}

/// What the update methods of one relation share: their names, parameters
/// and docs.
struct UpdateApi<'a> {
    p: &'a Program,
    rel_id: RelId,
    /// The column names, in order.
    cols: Vec<&'a Ident>,
    /// The column parameters' types, in order (see [`param_type`]).
    param_tys: Vec<TokenStream>,
    /// The column parameters (`a: u32, b: u32`).
    params: TokenStream,
    /// The tuple the views are given, from the column parameters: text
    /// made a `String` (or lent, [`StepTuple::Lent`]), and `()` for a
    /// column no view reads ([`StepTuple::Read`]).
    tuple: TokenStream,
    /// The tuple a fingerprint hashes, of every column by reference (text
    /// as `&str`): the same bytes as the relation's tuple type.
    hashed: TokenStream,
    /// `let _ = ..;` of the columns left out of `tuple`, which a method
    /// that hashes nothing would otherwise leave unused.
    unread: TokenStream,
    /// Whether `tuple` is the plain tuple of the columns, which
    /// `relation_methods!` builds itself (at most twelve of them).
    plain: bool,
    /// The payload parameter.
    delta: Ident,
    /// `update_<relation>`.
    update: Ident,
    /// `insert_<relation>`.
    insert: Ident,
    /// `on_<relation>_changed`.
    on_changed: Ident,
    /// The first doc line of `update_<relation>`.
    update_doc: String,
}

impl<'a> UpdateApi<'a> {
    /// The names, parameters and docs of relation `rel_id`'s methods.
    fn new(p: &'a Program, rel_id: RelId) -> Self {
        let r = &p.relations[rel_id];
        let cols: Vec<&Ident> = r.columns.iter().map(|(c, _)| c).collect();
        // The triangle state takes its columns by reference, as owned.
        let text_params = p.kept(rel_id) != Kept::InTriangle;
        let text: Vec<bool> = r
            .columns
            .iter()
            .map(|(_, t)| text_params && crate::ir::is_string_type(t))
            .collect();
        let param_tys: Vec<TokenStream> = r
            .columns
            .iter()
            .zip(&text)
            .map(|((_, t), &text)| param_type(t, text))
            .collect();
        let params = quote! { #(#cols: #param_tys),* };
        let delta = delta_name(r);
        let update = method("update", &r.snake);
        let shape = step_tuple(p, rel_id);
        let is_read = |c: usize| !matches!(&shape, StepTuple::Read(read) if !read[c]);
        let tuple = super::tuple(cols.iter().enumerate().map(|(c, col)| {
            if !is_read(c) {
                quote! { () }
            } else if text[c] && matches!(shape, StepTuple::Lent) {
                quote! { ::core::convert::AsRef::<str>::as_ref(&#col) }
            } else if text[c] {
                quote! { ::core::convert::Into::<::std::string::String>::into(#col) }
            } else {
                quote! { #col }
            }
        }));
        let hashed = super::tuple(cols.iter().zip(&text).map(|(col, &text)| {
            if text {
                quote! { ::core::convert::AsRef::<str>::as_ref(&#col) }
            } else {
                quote! { &#col }
            }
        }));
        let unread: Vec<_> = (0..cols.len())
            .filter(|&c| !is_read(c))
            .map(|c| cols[c])
            .collect();
        let unread = (!unread.is_empty()).then(|| quote! { let _ = (#(&#unread,)*); });
        let plain = matches!(shape, StepTuple::Whole) && !text.contains(&true) && cols.len() <= 12;
        let tuple_doc = tuple_doc(r);
        let update_doc = format!(
            " `{tuple_doc} ⊕= {delta}`: adds one contribution `{delta}` to the tuple's payload (a zero `{delta}` changes nothing)."
        );
        UpdateApi {
            p,
            rel_id,
            cols,
            param_tys,
            params,
            tuple,
            hashed,
            unread: quote! { #unread },
            plain,
            delta,
            update,
            insert: method("insert", &r.snake),
            on_changed: method("on", &format!("{}_changed", r.snake)),
            update_doc,
        }
    }

    /// `insert_<relation>` (an update by one) and, under inserts and
    /// deletes, `delete_<relation>` (a retraction of one), over the
    /// `update_<relation>` and `retract_<relation>` written beside them.
    fn shortcuts(&self) -> TokenStream {
        let head = self.head();
        let names = self.names();
        quote! { ::ivm::__private::relation_methods!(#head; #(#names),*); }
    }

    /// `R(a: u32, b: u64)`, the relation as `relation_methods!` takes it.
    fn head(&self) -> TokenStream {
        let r = &self.p.relations[self.rel_id];
        let name = &r.name;
        let cols = &self.cols;
        let tys = &self.param_tys;
        quote! { #name(#(#cols: #tys),*) }
    }

    /// The update, insert, retract and delete methods' names (the last
    /// two under inserts and deletes).
    fn names(&self) -> Vec<Ident> {
        let snake = &self.p.relations[self.rel_id].snake;
        let mut names = vec![self.update.clone(), self.insert.clone()];
        if self.p.updates == UpdateModel::InsertDelete {
            names.push(method("retract", snake));
            names.push(method("delete", snake));
        }
        names
    }

    /// The methods of a relation whose payloads are not kept and whose
    /// update raises the message above `atom` in place.
    fn raising_methods(&self, atom: AtomId, message: Id<Message>) -> TokenStream {
        let UpdateApi {
            p,
            rel_id,
            params,
            tuple,
            delta,
            update,
            update_doc,
            ..
        } = self;
        let k = &p.payload;
        let (reads, known) = super::message::read_children(p, atom, message);
        let (revisit, flags) = revisit_known(p, *rel_id, atom, &known);
        let inserts = index_inserts(p, *rel_id, &flags);
        let raise = super::message::raise_from_update(p, message, delta, &known);
        let insert = self.shortcuts();
        quote! {
            #[doc = #update_doc]
            ///
            /// The relation's payloads are not kept: a tuple a message can
            /// still revisit waits in that message's index (its payload is
            /// one), and the change goes straight to the message above.
            #[inline]
            pub fn #update(&mut self, #params, #delta: #k) {
                if ::ivm::Semiring::is_zero(&#delta) {
                    return;
                }
                let __tuple = #tuple;
                #reads
                #revisit
                #inserts
                #raise
            }

            #insert
        }
    }

    /// The methods of a relation whose tuples are not kept: `delta` goes
    /// to the views above (after the CROWN indexes, `Kept::IndexOnly`).
    fn unstored_methods(&self) -> TokenStream {
        let (p, rel_id) = (self.p, self.rel_id);
        let (index, kept_doc) = if p.kept(rel_id) == Kept::IndexOnly {
            let IndexUpkeep { revisit, flags, .. } = index_upkeep(p, rel_id);
            let inserts = index_inserts(p, rel_id, &flags);
            (
                quote! {
                    #revisit
                    #inserts
                },
                quote! {
                    /// The relation's payloads are not kept: a tuple a message can
                    /// still revisit waits in that message's index (its payload is
                    /// one), and the change goes straight to the messages above.
                },
            )
        } else {
            (
                quote! {},
                quote! {
                    /// The relation's tuples are not kept: `delta` goes straight to
                    /// the views above its atoms.
                },
            )
        };
        let update = self.unkept_update(&kept_doc, &index);
        let insert = self.shortcuts();
        quote! {
            #update

            #insert
        }
    }

    /// `update_<relation>` of a relation whose tuples are not kept: after
    /// `index` (CROWN's index upkeep, if any), `delta` goes straight to the
    /// views above, with old payload zero.
    fn unkept_update(&self, kept_doc: &TokenStream, index: &TokenStream) -> TokenStream {
        let UpdateApi {
            p,
            params,
            tuple,
            unread,
            delta,
            update,
            on_changed,
            update_doc,
            ..
        } = self;
        let k = &p.payload;
        quote! {
            #[doc = #update_doc]
            ///
            #kept_doc
            #[inline]
            pub fn #update(&mut self, #params, #delta: #k) {
                #unread
                if ::ivm::Semiring::is_zero(&#delta) {
                    return;
                }
                let __tuple = #tuple;
                #index
                self.#on_changed(&__tuple, &<#k as ::ivm::Semiring>::zero(), &#delta);
            }
        }
    }

    /// The methods of a relation under trusted deletes that nothing reads
    /// back: an update passes its payload up, and a retraction takes it
    /// back, trusted to name a live contribution.
    fn trusted_methods(&self) -> TokenStream {
        let UpdateApi {
            p,
            rel_id,
            params,
            tuple,
            unread,
            delta,
            update,
            on_changed,
            ..
        } = self;
        let k = &p.payload;
        let snake = &p.relations[*rel_id].snake;
        let retract = method("retract", snake);
        let retract_doc = format!(
            " Retracts one earlier `{update}` of `{}` with this `{delta}`.",
            tuple_doc(&p.relations[*rel_id])
        );
        let shortcuts = self.shortcuts();
        let (kept_doc, trust_doc) = if p.relations[*rel_id].checked_by_holder() {
            (
                quote! {
                    /// The relation's tuples are not kept (the struct that
                    /// holds this rule checks its deletes): `delta` goes
                    /// straight to the views above its atoms.
                },
                quote! {
                    /// The struct that holds this rule checks the delete
                    /// before it passes it on (an earlier part reads the same
                    /// rows, or they are a nested view's), so it is not
                    /// checked again here.
                },
            )
        } else if counted_as_rows(p, *rel_id) {
            (
                quote! {
                    /// The relation's tuples are not kept (deletes are trusted):
                    /// `delta` goes straight to the views above its atoms. A
                    /// semijoin counts the table's rows, one per update, so
                    /// `delta` adds rows, as the SQL view's inserts do: only a
                    /// retraction takes rows back (`docs/design.md#how-a-delete-is-checked`).
                },
                quote! {
                    /// Deletes are trusted (`deletes = 'trusted'`): the caller
                    /// retracts only what it added, and this is not checked. A
                    /// retraction of anything else leaves the result wrong.
                },
            )
        } else {
            (
                quote! {
                    /// The relation's tuples are not kept (deletes are trusted):
                    /// `delta` goes straight to the views above its atoms.
                },
                quote! {
                    /// Deletes are trusted (`deletes = 'trusted'`): the caller
                    /// retracts only what it added, and this is not checked. A
                    /// retraction of anything else leaves the result wrong.
                },
            )
        };
        let add = self.unkept_update(&kept_doc, &TokenStream::new());
        quote! {
            #add

            #[doc = #retract_doc]
            ///
            #trust_doc
            ///
            /// # Errors
            ///
            /// None: the `Result` keeps the signature of checked deletes.
            #[inline]
            pub fn #retract(&mut self, #params, #delta: #k) -> ::ivm::Result<()> {
                #unread
                if !::ivm::Semiring::is_zero(&#delta) {
                    let __tuple = #tuple;
                    self.#on_changed(&__tuple, &#delta, &<#k as ::ivm::Semiring>::zero());
                }
                ::core::result::Result::Ok(())
            }

            #shortcuts
        }
    }

    /// The methods of a relation kept as fingerprints: the tuple is
    /// hashed where it is, and goes on to the views above, with the update's
    /// δ (`kept` is `fingerprints`) or with its old and new payloads
    /// (`fingerprints with payloads`).
    fn fingerprinted_methods(&self, kept: TokenStream) -> TokenStream {
        let k = &self.p.payload;
        let base = &self.p.maps[self.p.relations[self.rel_id].base].name;
        let head = self.head();
        let (tuple, hashed) = (&self.tuple, &self.hashed);
        let wide = (!self.plain).then(|| quote! { as #tuple, hashing #hashed });
        let on_changed = &self.on_changed;
        let names = self.names();
        quote! {
            ::ivm::__private::relation_methods!(#head #wide => #kept #base, #on_changed; delta: #k; #(#names),*);
        }
    }

    /// The methods of a relation whose tuples are kept in its base map
    /// (some only while a message may revisit them, `Kept::Revisitable`),
    /// with the deletion methods under inserts and deletes.
    fn stored_methods(&self) -> TokenStream {
        let UpdateApi {
            p,
            rel_id,
            params,
            tuple,
            delta,
            update,
            on_changed,
            update_doc,
            ..
        } = self;
        let k = &p.payload;
        let r = &p.relations[*rel_id];
        let base = &p.maps[r.base].name;
        let IndexUpkeep {
            revisit,
            flags,
            enter,
            leave,
        } = index_upkeep(p, *rel_id);
        let plain = p.kept(*rel_id) != Kept::Revisitable
            && [&revisit, &enter, &leave].iter().all(|t| t.is_empty());
        if plain {
            // The base map and the propagation are all there is.
            let head = self.head();
            let wide = (!self.plain).then(|| quote! { as #tuple });
            let names = self.names();
            return quote! {
                ::ivm::__private::relation_methods!(#head #wide => #base, #on_changed; delta: #k; #(#names),*);
            };
        }
        // The tuple stays in use after it went into the base map: one that
        // is not `Copy` is lent, and cloned only into a new entry.
        let tuple_copy = if r.columns.iter().all(|(_, t)| crate::ir::is_copy_type(t)) {
            quote! { __tuple }
        } else {
            quote! { &__tuple }
        };
        // What follows any change of a base tuple's state: propagate a
        // change of its payload.
        // The state changes through one probe of the base map, which drops
        // the entry once nothing is alive in it.
        let propagate = quote! {
            #enter
            self.#on_changed(&__tuple, &__old, &__new);
            #leave
        };
        // A tuple no message can revisit any more is not kept
        // (Kept::Revisitable): its contribution goes straight up, where ⊕
        // absorbs what it held.
        let unrevisitable = (p.kept(*rel_id) == Kept::Revisitable).then(|| {
            quote! {
                if #(!#flags)&&* {
                    self.#on_changed(&__tuple, &<#k as ::ivm::Semiring>::zero(), &#delta);
                    return;
                }
            }
        });
        let kept_doc = unrevisitable.as_ref().map(|_| {
            quote! {
                ///
                /// The tuple is kept only while a message may revisit it.
            }
        });
        // A zero delta changes nothing; `add` sees to that unless the tuple
        // may bypass the base map.
        let zero = unrevisitable.as_ref().map(|_| {
            quote! {
                if ::ivm::Semiring::is_zero(&#delta) {
                    return;
                }
            }
        });
        let insert = self.shortcuts();
        let mut out = quote! {
            #[doc = #update_doc]
            #kept_doc
            #[inline]
            pub fn #update(&mut self, #params, #delta: #k) {
                #zero
                let __tuple = #tuple;
                #revisit
                #unrevisitable
                if let ::core::option::Option::Some((__old, __new)) = self.#base.add(#tuple_copy, &#delta) {
                    #propagate
                }
            }

            #insert
        };
        if p.updates == UpdateModel::InsertDelete {
            let rel = r.name.to_string();
            out.extend(self.retract_method(quote! {
                    let __tuple = #tuple;
                    if let ::core::option::Option::Some((__old, __new)) = self.#base.retract(&__tuple, &#delta, #rel)? {
                        #propagate
                    }
                    ::core::result::Result::Ok(())
            }));
        }
        out
    }

    /// `retract_<relation>` (under inserts and deletes), with `body`,
    /// which has the columns and the delta in scope and returns
    /// `ivm::Result<()>`.
    fn retract_method(&self, body: TokenStream) -> TokenStream {
        let UpdateApi {
            p,
            rel_id,
            params,
            delta,
            update,
            ..
        } = self;
        let k = &p.payload;
        let r = &p.relations[*rel_id];
        let retract = method("retract", &r.snake);
        let tuple_doc = tuple_doc(r);
        let retract_doc =
            format!(" Retracts one earlier `{update}` of `{tuple_doc}` with this `{delta}`.");
        quote! {
            #[doc = #retract_doc]
            ///
            /// # Errors
            ///
            /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when no
            /// such contribution is alive; nothing changes then.
            #[inline]
            pub fn #retract(&mut self, #params, #delta: #k) -> ::ivm::Result<()> {
                #body
            }
        }
    }
}

/// The update methods of a relation held by its IVMε triangle state
/// (`Kept::InTriangle`): each goes straight to the state, which looks the
/// tuple up once.
fn in_triangle_methods(p: &Program, api: &UpdateApi) -> TokenStream {
    let rel_id = api.rel_id;
    let r = &p.relations[rel_id];
    let k = &p.payload;
    let rel = r.name.to_string();
    let UpdateApi {
        cols,
        params,
        delta,
        update,
        update_doc,
        ..
    } = api;
    let (map, [x, y]) = p
        .triggers
        .iter()
        .find(|t| t.relation == rel_id)
        .and_then(|t| match t.paths.as_slice() {
            [path] => match path.body {
                crate::ir::PathBody::Triangle { map, columns, .. } => Some((map, columns)),
                _ => None,
            },
            _ => None,
        })
        .expect("checked by plan::storage");
    let field = &p.maps[map].name;
    let (x, y) = (cols[x], cols[y]);
    let shortcuts = api.shortcuts();
    let mut out = quote! {
        #[doc = #update_doc]
        ///
        /// The relation's tuples are held by the triangle state, which this
        /// updates directly.
        #[inline]
        pub fn #update(&mut self, #params, #delta: #k) {
            self.#field.add(&#x, &#y, &#delta);
        }

        #shortcuts
    };
    if p.updates == UpdateModel::InsertDelete {
        out.extend(api.retract_method(quote! { self.#field.retract(&#x, &#y, &#delta, #rel) }));
    }
    out
}

/// The name of the change enum: `<Query>Change`.
fn change_name(p: &Program) -> Ident {
    format_ident!("{}Change", p.name)
}

/// The enum of single-tuple updates that `apply` takes.
pub fn change_enum(p: &Program) -> TokenStream {
    let k = &p.payload;
    let vis = &p.vis;
    let change = change_name(p);
    let doc = format!(
        " One update to a relation of [`{}`], for [`{}::apply`].",
        p.name, p.name
    );
    let variants = p.declared().map(|r| {
        let variant = &r.name;
        let cols: Vec<&Ident> = r.columns.iter().map(|(c, _)| c).collect();
        let tys: Vec<_> = r.columns.iter().map(|(_, t)| t).collect();
        let delta = delta_name(r);
        let names: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
        let vdoc = format!(
            " `{}({}) ⊕= {delta}`: the tuple's columns and the payload to add.",
            r.name,
            names.join(", ")
        );
        quote! {
            #[doc = #vdoc]
            #variant { #(#cols: #tys,)* #delta: #k },
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        #[allow(dead_code, reason = "generated API: not every update kind is used")]
        #[allow(missing_docs, reason = "each variant's doc names its fields")]
        #vis enum #change {
            #(#variants)*
        }
    }
}

/// One `on_<relation>_changed` method per relation, but for a fed
/// relation whose changes go nowhere (its feed method writes its map and
/// stops): an update method always calls its relation's.
pub fn propagations(p: &Program) -> TokenStream {
    // A relation held by its triangle state is updated there directly.
    let methods = p
        .triggers
        .iter()
        .filter(|t| {
            p.kept(t.relation) != Kept::InTriangle
                && super::message::raise_in_update(p, t.relation).is_none()
                && (p.propagates(t.relation) || !p.relations[t.relation].is_fed())
        })
        .map(|t| propagation(p, t));
    quote! { #(#methods)* }
}

fn propagation(p: &Program, t: &Trigger) -> TokenStream {
    let k = &p.payload;
    let r = &p.relations[t.relation];
    let name = method("on", &format!("{}_changed", r.snake));
    let tuple_ty = step_type(p, t.relation);
    let doc = format!(
        " Propagates a change of one `{}` tuple's payload from `old` to `new` through the views above each atom of `{}`.",
        r.name, r.name
    );
    let paths = t.paths.iter().map(|path| super::atom_path(p, path));
    quote! {
        #[doc = #doc]
        #[inline]
        fn #name(&mut self, __tuple: &#tuple_ty, __old: &#k, __new: &#k) {
            #(#paths)*
        }
    }
}

/// The field type of a relation's base map: each tuple's state.
pub fn base_type(p: &Program, base: &BaseMap) -> TokenStream {
    super::payload_map(p, super::relation_type(p, &p.relations[base.relation]))
}

/// The field type of a base map, and its empty value: the tuples' payloads,
/// or their fingerprints' (`Kept::Fingerprinted`,
/// `Kept::FingerprintedPayloads`).
pub fn base_field(p: &Program, base: &BaseMap) -> (TokenStream, TokenStream) {
    if matches!(base.kept, Kept::Fingerprinted | Kept::FingerprintedPayloads) {
        let k = &p.payload;
        return (
            quote! { ::ivm::__private::Fingerprints<#k> },
            quote! { ::ivm::__private::Fingerprints::new() },
        );
    }
    (base_type(p, base), super::payload_map_init())
}

/// The field type of an index of a relation, and its empty value.
pub fn index_field(p: &Program, index: &RelationIndex) -> (TokenStream, TokenStream) {
    let RelationIndex {
        relation,
        columns,
        while_growing,
        payloads,
    } = index;
    let r = &p.relations[*relation];
    let key = super::tuple(columns.iter().map(|&c| {
        let ty = &r.columns[c].1;
        quote! { #ty }
    }));
    let all = super::relation_type(p, r);
    // CROWN's indexes lose no tuple one at a time (inserts only), only
    // whole groups once their messages stop growing.
    if *payloads {
        let k = &p.payload;
        (
            quote! { ::ivm::__private::Index<#key, #all, #k> },
            quote! { ::ivm::__private::Index::default() },
        )
    } else if while_growing.is_empty() {
        (
            quote! { ::ivm::__private::Index<#key, #all> },
            quote! { ::ivm::__private::Index::default() },
        )
    } else {
        let kept = super::tuple(p.columns_outside(*relation, columns).into_iter().map(|c| {
            let ty = &r.columns[c].1;
            quote! { #ty }
        }));
        (
            quote! { ::ivm::__private::GrowingIndex<#key, #kept> },
            quote! { ::ivm::__private::GrowingIndex::default() },
        )
    }
}

/// `apply` and the runtime traits every generated struct implements:
/// `ivm::View`, and `ivm::Retract` under inserts and deletes, from the
/// method each variant of the change enum calls.
pub fn view_impls(p: &Program) -> TokenStream {
    let name = &p.name;
    let k = &p.payload;
    let change = change_name(p);
    let key = super::head_type(p);
    let deletes = p.updates == UpdateModel::InsertDelete;
    let variants = p.declared().enumerate().map(|(i, r)| {
        let variant = &r.name;
        let index = proc_macro2::Literal::u32_unsuffixed(i as u32);
        let cols = r.columns.iter().map(|(c, _)| c);
        let delta = delta_name(r);
        let update = method("update", &r.snake);
        let retract = deletes.then(|| {
            let retract = method("retract", &r.snake);
            quote! { / #retract }
        });
        // Where a sharded run sends the relation's updates.
        let route = match r.route() {
            Some(Route::Hash { column }) => {
                let column = &r.columns[column].0;
                quote! { by #column }
            }
            Some(Route::Every) => quote! { to every },
            Some(Route::First) | None => quote! { to first },
        };
        quote! { #variant = #index { #(#cols,)* #delta } #route => #update #retract }
    });
    quote! {
        ::ivm::__private::impl_view!(#name, #key, #k, #change { #(#variants),* });
    }
}

/// Whether a semijoin of `p` counts the rows of the SQL table `r` (its
/// [`Tally::Rows`](crate::ir::Tally::Rows)), which the update's doc then
/// says.
fn counted_as_rows(p: &Program, r: RelId) -> bool {
    p.semijoins.iter().any(|s| {
        s.tally == crate::ir::Tally::Rows
            && s.parts()
                .any(|part| part.reads.iter().any(|read| read.relation == r))
    })
}
