//! Maps that only grow under inserts: CROWN's messages (`MapKind::Message`,
//! raised by `PathBody::Raise`) and the max-max clusters' best payloads
//! (`MapKind::Best`), with the `raise_<map>` method that grows an entry and
//! tells whoever reads it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{raise, reach};
use super::{factor_value, key_expr, key_type};
use crate::ir::{
    AtomId, AtomPath, BestMap, Factor, Id, Kept, Map, MapId, MapKind, Message, MessageParent,
    PathBody, Program, RelId, RelationIndex, VarId,
};

/// The payload of a message's atom at tuple `__u` (in scope, with the
/// atom's variables bound) times the messages of its children. `known`
/// pairs a child with a local that already holds its entry at the tuple's
/// key, read in place of a second probe.
fn contribution(
    p: &Program,
    children: &[Id<Message>],
    payload: TokenStream,
    known: &[(Id<Message>, TokenStream)],
) -> TokenStream {
    children.iter().fold(payload, |acc, &c| {
        let v = match known.iter().find(|(m, _)| *m == c) {
            Some((_, local)) => quote! { ::core::clone::Clone::clone(&#local) },
            None => factor_value(p, Factor::Map(c.map()), None),
        };
        quote! { ::ivm::Semiring::mul(&#acc, &#v) }
    })
}

/// The variables an atom's contribution reads: its key towards the parent
/// and the keys of its children not `known`.
fn contribution_vars(
    p: &Program,
    message: Id<Message>,
    known: &[(Id<Message>, TokenStream)],
) -> Vec<VarId> {
    let map = &p.maps[message];
    let children = &p.get(message).children;
    let mut vars = map.key.clone();
    for &c in children {
        if !known.iter().any(|(m, _)| *m == c) {
            vars.extend(&p.maps[c].key);
        }
    }
    vars
}

/// Binds the atom's variables to the fields of `tuple`, `_` for the ones
/// not read.
fn bind_atom(p: &Program, atom: usize, used: &[VarId], tuple: &TokenStream) -> TokenStream {
    let a = &p.atoms[atom];
    let names = a.vars.iter().map(|v| {
        if used.contains(v) {
            let n = &p.vars[*v].name;
            quote! { #n }
        } else {
            quote! { _ }
        }
    });
    let fields = super::field_refs(tuple, a.vars.len());
    quote! { let (#(#names,)*) = #fields; }
}

/// Binds the variables of the atom's columns `columns`, the fields of
/// `tuple` in that order, `_` for the ones not read.
fn bind_columns(
    p: &Program,
    atom: usize,
    columns: &[usize],
    used: &[VarId],
    tuple: &TokenStream,
) -> TokenStream {
    let a = &p.atoms[atom];
    let names = columns.iter().map(|&c| {
        let v = a.vars[c];
        if used.contains(&v) {
            let n = &p.vars[v].name;
            quote! { #n }
        } else {
            quote! { _ }
        }
    });
    let fields = super::field_refs(tuple, columns.len());
    quote! { let (#(#names,)*) = #fields; }
}

/// The trigger of a CROWN atom: its tuple's new contribution grows its
/// message.
pub fn path(p: &Program, atom: usize, message: Id<Message>) -> TokenStream {
    let used = contribution_vars(p, message, &[]);
    let bind = bind_atom(p, atom, &used, &quote! { __tuple });
    let raise = raise_contribution(
        p,
        message,
        quote! { ::core::clone::Clone::clone(__new) },
        &[],
    );
    quote! {
        {
            #bind
            #raise
        }
    }
}

/// The contribution of a tuple of `message`'s atom (its variables bound,
/// its payload `payload`) raised into the message, unless zero.
fn raise_contribution(
    p: &Program,
    message: Id<Message>,
    payload: TokenStream,
    known: &[(Id<Message>, TokenStream)],
) -> TokenStream {
    let children = &p.get(message).children;
    let k = &p.payload;
    let value = contribution(p, children, payload, known);
    let key = key_expr(p, &p.maps[message].key);
    let raise_name = raise(p, message);
    quote! {
        let __contribution: #k = #value;
        if !::ivm::Semiring::is_zero(&__contribution) {
            self.#raise_name(#key, __contribution);
        }
    }
}

/// The atom and message of a relation whose update raises the message in
/// place: one atom, payloads not kept (`Kept::IndexOnly`), not fed by a
/// local step. Its update reads each child message once, for both the
/// index checks and the contribution, and has no `on_<relation>_changed`.
pub fn raise_in_update(p: &Program, rel: RelId) -> Option<(AtomId, Id<Message>)> {
    if p.kept(rel) != Kept::IndexOnly || p.relations[rel].is_fed() {
        return None;
    }
    let trigger = p.triggers.iter().find(|t| t.relation == rel)?;
    match &trigger.paths[..] {
        [
            AtomPath {
                atom,
                body: PathBody::Raise(message),
            },
        ] => Some((*atom, *message)),
        _ => None,
    }
}

/// The children of `message` read once at the tuple in scope: the
/// statements that bind the atom's variables and read each child into a
/// local, and each child with its local.
pub fn read_children(
    p: &Program,
    atom: AtomId,
    message: Id<Message>,
) -> (TokenStream, Vec<(Id<Message>, TokenStream)>) {
    let children = &p.get(message).children;
    let k = &p.payload;
    let used = contribution_vars(p, message, &[]);
    let bind = bind_atom(p, atom, &used, &quote! { __tuple });
    let known: Vec<(Id<Message>, TokenStream)> = children
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let local = format_ident!("__child_{i}");
            (c, quote! { #local })
        })
        .collect();
    let reads = known.iter().map(|(c, local)| {
        let v = factor_value(p, Factor::Map(c.map()), None);
        quote! { let #local: #k = #v; }
    });
    (quote! { #bind #(#reads)* }, known)
}

/// The raise of an update made in place (see [`raise_in_update`]): the
/// tuple's payload `delta` times the children read by [`read_children`].
pub fn raise_from_update(
    p: &Program,
    message: Id<Message>,
    delta: &syn::Ident,
    known: &[(Id<Message>, TokenStream)],
) -> TokenStream {
    raise_contribution(
        p,
        message,
        quote! { ::core::clone::Clone::clone(&#delta) },
        known,
    )
}

/// A map that only grows, with a `raise_<map>` method.
#[derive(Debug, Clone, Copy)]
pub enum Grown {
    /// A CROWN message.
    Message(Id<Message>),
    /// A max-max cluster's best payloads.
    Best(Id<BestMap>),
}

impl Grown {
    fn map(self) -> MapId {
        match self {
            Grown::Message(m) => m.map(),
            Grown::Best(b) => b.map(),
        }
    }
}

/// The method that grows an entry of a CROWN message or a best map and
/// tells whoever reads it.
pub fn raise_method(p: &Program, grown: Grown) -> TokenStream {
    let k = &p.payload;
    let message = grown.map();
    let map = &p.maps[message];
    // A message relies on a bounded monotone semiring; a best map on the
    // max-max semiring's idempotent ⊕ alone.
    let grow = match grown {
        Grown::Best(_) => quote! { ::ivm::__private::absorb },
        Grown::Message(_) => quote! { ::ivm::__private::grow },
    };
    let field = &map.name;
    let key_ty = key_type(p, &map.key);
    let name = raise(p, message);
    // After the entry grew: whether it was zero before, to reach the top
    // join; its new value, to revisit the tuples waiting on it.
    let (after, tell) = match grown {
        Grown::Best(best) => tell_join(p, fed_node(p, best.map())),
        Grown::Message(m) => match p.get(m).parent {
            MessageParent::Join => tell_join(p, fed_node(p, m.map())),
            MessageParent::Message { index } => {
                let up = p.parent_message(m).expect("checked by ir::verify");
                revisit_parent(p, m, up, index)
            }
        },
    };
    let doc = format!(
        " Adds a contribution to `{field}` at one ({}) value; if the entry grew, tells its parent.",
        p.var_list(&map.key)
    );
    let key_copy = if map.key.is_empty() {
        quote! { () }
    } else {
        quote! { ::core::clone::Clone::clone(&__key) }
    };
    // `changes()` of the top join reads what a factor held when an epoch
    // began: the entry's value before the write, zero for a new one.
    let noted = super::changes::tracked(p).and_then(|t| t.noted(message).cloned());
    let note_old = noted
        .as_ref()
        .map(|noted| quote! { self.#noted.note(&__key, __entry.get()); });
    let note_zero = noted.as_ref().map(|noted| {
        quote! { self.#noted.note(&__key, &<#k as ::ivm::Semiring>::zero()); }
    });
    // One probe: a present entry grows in place, an absent one is inserted
    // with the contribution (zero ⊕ value is the value).
    let (bind, grown_old, grown_new, (occupied, vacant)) = match after {
        After::WasZero => (
            quote! { let __was_zero = },
            quote! { let __was_zero = ::ivm::Semiring::is_zero(__entry.get()); },
            quote! { __grown },
            (quote! { __was_zero }, quote! { true }),
        ),
        After::Now => (
            quote! { let __now: #k = },
            quote! {},
            quote! { ::core::clone::Clone::clone(&__grown) },
            (quote! { __grown }, quote! { __value }),
        ),
        After::Nothing => (
            quote! {},
            quote! {},
            quote! { __grown },
            (quote! {}, quote! {}),
        ),
    };
    let inserted = match after {
        After::Now => quote! { ::core::clone::Clone::clone(&__value) },
        After::WasZero | After::Nothing => quote! { __value },
    };
    quote! {
        #[doc = #doc]
        fn #name(&mut self, __key: #key_ty, __value: #k) {
            #bind match self.#field.entry(#key_copy) {
                ::ivm::__private::Entry::Occupied(mut __entry) => {
                    let __grown = #grow(__entry.get(), &__value);
                    if __grown == *__entry.get() {
                        return;
                    }
                    #grown_old
                    #note_old
                    *__entry.get_mut() = #grown_new;
                    #occupied
                }
                ::ivm::__private::Entry::Vacant(__entry) => {
                    if ::ivm::Semiring::is_zero(&__value) {
                        return;
                    }
                    #note_zero
                    __entry.insert(#inserted);
                    #vacant
                }
            };
            #tell
        }
    }
}

/// After an entry turned non-zero at `__key`: offer the key to the top
/// join node the map feeds.
/// The top join node that map `m` feeds (`ir::verify` checks there is one).
fn fed_node(p: &Program, m: MapId) -> MapId {
    p.fed_node(m).expect("checked by ir::verify").map()
}

fn tell_join(p: &Program, node: MapId) -> (After, TokenStream) {
    let reach_name = reach(p, node);
    (
        After::WasZero,
        quote! {
            if __was_zero {
                self.#reach_name(__key);
            }
        },
    )
}

/// After a message grew at `__key`: revisit the parent atom's tuples that
/// share the key (through `index`), raising the parent's message by each
/// one's new contribution, and drop the group once no message can grow
/// there.
fn revisit_parent(
    p: &Program,
    message: Id<Message>,
    up: Id<Message>,
    index: Id<RelationIndex>,
) -> (After, TokenStream) {
    let k = &p.payload;
    let map = &p.maps[message];
    let Message {
        atom: up_atom,
        children: up_children,
        ..
    } = p.get(up);
    let RelationIndex {
        columns,
        while_growing,
        ..
    } = p.get(index);
    let index_field = &p.maps[index].name;
    let up_vars = &p.atoms[*up_atom].vars;
    let index_vars: Vec<VarId> = columns.iter().map(|&c| up_vars[c]).collect();
    // The key's variables, bound to read the index key.
    let names = map.key.iter().map(|&v| {
        let n = &p.vars[v].name;
        quote! { #n }
    });
    let fields = super::field_refs(&quote! { __key }, map.key.len());
    let bind_key = quote! { let (#(#names,)*) = #fields; };
    let index_key = key_expr(p, &index_vars);

    let up_relation = p.atoms[*up_atom].relation;
    let base = &p.maps[p.relations[up_relation].base].name;
    // The group keeps each tuple's columns outside the key
    // (`__u`); the key's are the group's (`__index_key`).
    let kept = p.columns_outside(up_relation, columns);
    let arity = p.relations[up_relation].columns.len();
    let whole = super::tuple((0..arity).map(|c| {
        let f = match kept.iter().position(|&k| k == c) {
            Some(i) => super::item(&quote! { __u }, i, kept.len()),
            None => {
                let i = columns.iter().position(|&k| k == c).expect("a key column");
                super::item(&quote! { __index_key }, i, columns.len())
            }
        };
        quote! { ::core::clone::Clone::clone(&#f) }
    }));
    // Over `Bool` a revisited tuple's payload is one, and no map of
    // payloads is kept (`Kept::IndexOnly`).
    let payload = if p.kept(up_relation) == Kept::IndexOnly {
        quote! { <#k as ::ivm::Semiring>::one() }
    } else {
        quote! { self.#base.value(&#whole) }
    };
    // Every tuple of the group has the key this entry just grew
    // at, and nothing in the loop grows the entry again (raises
    // only go up the tree): the loop reads the grown value, not
    // the map.
    let mut same_key = index_vars;
    let mut message_key = map.key.clone();
    same_key.sort_unstable();
    message_key.sort_unstable();
    let known = if same_key == message_key {
        vec![(message, quote! { __now })]
    } else {
        Vec::new()
    };
    let used = contribution_vars(p, up, &known);
    let bind = bind_columns(p, *up_atom, &kept, &used, &quote! { __u });
    let value = contribution(p, up_children, payload, &known);
    let up_key = key_expr(p, &p.maps[up].key);
    let up_raise = raise(p, up);
    let growing = if !known.is_empty() && while_growing[..] == [message] {
        vec![quote! { !<#k as ::ivm::BoundedMonotone>::is_top(&__now) }]
    } else {
        can_grow(p, while_growing, &quote! { __index_key })
    };
    let revisit = quote! {
        #bind
        let __contribution: #k = #value;
        if !::ivm::Semiring::is_zero(&__contribution) {
            self.#up_raise(#up_key, __contribution);
        }
    };
    // A relation kept only while its tuples may be revisited, through
    // this index alone, forgets the tuples of a group that leaves
    // (when the index serves one message; see below).
    let only_index = p
            .maps
            .iter()
            .filter(|m| matches!(m.kind, MapKind::Index(RelationIndex { relation, .. }) if relation == up_relation))
            .count()
            == 1;
    let forget = (p.kept(up_relation) == Kept::Revisitable && only_index).then(|| {
        quote! {
            else {
                for __u in &__tuples {
                    self.#base.remove(&#whole);
                }
            }
        }
    });
    // Raising the parent borrows `self`, so the loop cannot read the
    // group in place. With one message the group is taken out while
    // it is read: raises only go up the tree, so none reads this
    // index meanwhile. An index serving several messages (atoms of
    // one relation) may be revisited through another message by a
    // raise this loop starts, so its group stays in place and the
    // loop reads a copy. Either way the group is dropped once no
    // message at its key can grow and revisit it.
    let walk = if while_growing.len() == 1 {
        quote! {
            let __tuples = self.#index_field.take(&__index_key);
            for __u in &__tuples {
                #revisit
            }
            if #(#growing)||* {
                self.#index_field.restore(__index_key, __tuples);
            } #forget
        }
    } else {
        // No tuple is forgotten here: a revisit this loop starts may
        // drop the group through the other message, while this loop
        // still reads the payloads of its copy.
        quote! {
            let __tuples = self.#index_field.get(&__index_key).to_vec();
            for __u in &__tuples {
                #revisit
            }
            if !(#(#growing)||*) {
                self.#index_field.take(&__index_key);
            }
        }
    };
    let after = if known.is_empty() {
        After::Nothing
    } else {
        After::Now
    };
    (
        after,
        quote! {
            #bind_key
            let __index_key = #index_key;
            #walk
        },
    )
}

/// What a raise needs of the entry it grew, besides the fact.
#[derive(Clone, Copy)]
enum After {
    /// Whether it was zero (absent) before: the top join hears of a new key.
    WasZero,
    /// Its new value (`__now`): the revisits read it.
    Now,
    /// Nothing.
    Nothing,
}

/// For each CROWN message among `messages`, whether it can still grow at
/// `key` (an expression over the key in scope); a message that can will
/// revisit the tuples indexed there. Callers join them with `||`.
pub fn can_grow(p: &Program, messages: &[Id<Message>], key: &TokenStream) -> Vec<TokenStream> {
    messages.iter().map(|&g| can_grow_at(p, g, key)).collect()
}

/// Whether CROWN message `g` can still grow at `key`.
pub fn can_grow_at(p: &Program, g: Id<Message>, key: &TokenStream) -> TokenStream {
    let (k, message) = (&p.payload, &p.maps[g].name);
    quote! {
        !self.#message.get(&#key).is_some_and(<#k as ::ivm::BoundedMonotone>::is_top)
    }
}

/// The field type of a growing map: entries only grow, so the plain
/// payload is the state.
pub fn field_type(p: &Program, map: &Map) -> TokenStream {
    let k = &p.payload;
    let key = key_type(p, &map.key);
    quote! { ::ivm::__private::HashMap<#key, #k> }
}
