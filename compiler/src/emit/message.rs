//! Maps that only grow under inserts: CROWN's messages (`MapKind::Message`,
//! raised by `PathBody::Raise`) and the max-max clusters' best payloads
//! (`MapKind::Best`), with the `raise_<map>` method that grows an entry and
//! tells whoever reads it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::top_join::reach;
use super::{factor_value, key_expr, key_type};
use crate::ir::{Factor, Kept, MapId, MapKind, MessageParent, Program, VarId};

/// The name of the method that grows a message entry.
pub fn raise(p: &Program, message: MapId) -> syn::Ident {
    format_ident!("raise_{}", p.maps[message].name)
}

/// The payload of a message's atom at tuple `__u` (in scope, with the
/// atom's variables bound) times the messages of its children.
fn contribution(p: &Program, children: &[MapId], payload: TokenStream) -> TokenStream {
    children.iter().fold(payload, |acc, &c| {
        let v = factor_value(p, Factor::Map(c));
        quote! { ::ivm::Semiring::mul(&#acc, &#v) }
    })
}

/// The variables an atom's contribution reads: its key towards the parent
/// and its children's keys.
fn contribution_vars(p: &Program, message: MapId) -> Vec<VarId> {
    let map = &p.maps[message];
    let MapKind::Message { children, .. } = &map.kind else {
        unreachable!("a message")
    };
    let mut vars = map.key.clone();
    for &c in children {
        vars.extend(&p.maps[c].key);
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

/// The trigger of a CROWN atom: its tuple's new contribution grows its
/// message.
pub fn path(p: &Program, atom: usize, message: MapId) -> TokenStream {
    let MapKind::Message { children, .. } = &p.maps[message].kind else {
        unreachable!("a message")
    };
    let k = &p.payload;
    let used = contribution_vars(p, message);
    let bind = bind_atom(p, atom, &used, &quote! { __tuple });
    let value = contribution(p, children, quote! { ::core::clone::Clone::clone(__new) });
    let key = key_expr(p, &p.maps[message].key);
    let raise_name = raise(p, message);
    quote! {
        {
            #bind
            let __contribution: #k = #value;
            if !::ivm::Semiring::is_zero(&__contribution) {
                self.#raise_name(#key, __contribution);
            }
        }
    }
}

pub fn raise_method(p: &Program, message: MapId) -> TokenStream {
    let k = &p.payload;
    let map = &p.maps[message];
    let parent = match &map.kind {
        MapKind::Message { parent, .. } => *parent,
        MapKind::Best { top } => MessageParent::Join(*top),
        _ => unreachable!("a message or a best map"),
    };
    // A message relies on a bounded monotone semiring; a best map on the
    // max-max semiring's idempotent ⊕ alone.
    let grow = if matches!(map.kind, MapKind::Best { .. }) {
        quote! { ::ivm::__private::absorb }
    } else {
        quote! { ::ivm::__private::grow }
    };
    let field = &map.name;
    let key_ty = key_type(p, &map.key);
    let name = raise(p, message);
    let was_zero = matches!(parent, MessageParent::Join(_))
        .then(|| quote! { let __was_zero = ::ivm::Semiring::is_zero(__entry); });
    let tell = match parent {
        MessageParent::Join(node) => {
            let reach_name = reach(p, node);
            quote! {
                if __was_zero {
                    self.#reach_name(__key);
                }
            }
        }
        MessageParent::Message { map: up, index } => {
            let MapKind::Message {
                atom: up_atom,
                children: up_children,
                ..
            } = &p.maps[up].kind
            else {
                unreachable!("a message")
            };
            let MapKind::Index {
                columns,
                while_growing,
                ..
            } = &p.maps[index].kind
            else {
                unreachable!("an index")
            };
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
            let used = contribution_vars(p, up);
            let bind = bind_atom(p, *up_atom, &used, &quote! { __u });
            let base = &p.maps[p.relations[p.atoms[*up_atom].relation].base].name;
            // Over `Bool` a revisited tuple's payload is one, and no map of
            // payloads is kept (`Kept::IndexOnly`).
            let payload = if p.kept(p.atoms[*up_atom].relation) == Kept::IndexOnly {
                quote! { <#k as ::ivm::Semiring>::one() }
            } else {
                quote! { self.#base.value(__u) }
            };
            let value = contribution(p, up_children, payload);
            let up_key = key_expr(p, &p.maps[up].key);
            let up_raise = raise(p, up);
            let growing = can_grow(p, while_growing, &quote! { __index_key });
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
            let up_relation = p.atoms[*up_atom].relation;
            let only_index = p
                .maps
                .iter()
                .filter(|m| matches!(m.kind, MapKind::Index { relation, .. } if relation == up_relation))
                .count()
                == 1;
            let forget = (p.kept(up_relation) == Kept::Revisitable && only_index).then(|| {
                quote! {
                    else {
                        for __u in &__tuples {
                            self.#base.remove(__u);
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
            quote! {
                #bind_key
                let __index_key = #index_key;
                #walk
            }
        }
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
    // began.
    let note = super::changes::tracked(p)
        .and_then(|t| t.noted(message).cloned())
        .map(|noted| quote! { self.#noted.note(&__key, __entry); });
    quote! {
        #[doc = #doc]
        fn #name(&mut self, __key: #key_ty, __value: #k) {
            let __entry = self
                .#field
                .entry(#key_copy)
                .or_insert_with(<#k as ::ivm::Semiring>::zero);
            let __grown = #grow(__entry, &__value);
            if __grown == *__entry {
                return;
            }
            #was_zero
            #note
            *__entry = __grown;
            #tell
        }
    }
}

/// For each CROWN message among `messages`, whether it can still grow at
/// `key` (an expression over the key in scope); a message that can will
/// revisit the tuples indexed there. Callers join them with `||`.
pub fn can_grow(p: &Program, messages: &[MapId], key: &TokenStream) -> Vec<TokenStream> {
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

/// The field type of a growing map: entries only grow, so the plain
/// payload is the state.
pub fn field_type(p: &Program, m: MapId) -> TokenStream {
    let k = &p.payload;
    let key = key_type(p, &p.maps[m].key);
    quote! { ::ivm::__private::HashMap<#key, #k> }
}
