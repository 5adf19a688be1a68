//! `changes()` of the materialized cyclic top join (two layers over a
//! cyclic query): `ChangeTracking::Joined`.
//!
//! The joined tuples are the output tuples, each added once, and an output
//! tuple's payload is the product of the supports' factors at it. Under
//! inserts over a positive semiring a tuple whose payload changed, or that
//! is new, holds a support value whose factors' product changed (was zero,
//! for a new one), which the factors' journals have. Once `changes()` has
//! been called, each support indexes the joined tuples by its key
//! (`Participants`, filled from the whole join at the first call and then
//! as tuples are joined), so a call reads the joined tuples under each
//! changed support value: each once, from the first support with a changed
//! value in it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::super::{key_expr, key_type, top_join::project};
use crate::ir::{ChangeTracking, Factor, Id, MapId, Program, Support};
use crate::plan::names::fresh_name;

/// The supports and join whose `changes()` reads indexes, with the names of
/// the indexes.
pub struct TrackedJoined {
    joined: MapId,
    /// Each support, with its index of the joined tuples by its key.
    along: Vec<(Id<Support>, Ident)>,
}

/// The cyclic top join's tracking, when `changes()` reads it.
pub fn tracked_joined(p: &Program) -> Option<TrackedJoined> {
    let ChangeTracking::Joined { supports, joined } = p.change_tracking() else {
        return None;
    };
    let mut taken: Vec<String> = super::super::semijoin::field_names(p)
        .map(ToString::to_string)
        .collect();
    taken.push(super::field_name(p).to_string());
    let along = supports
        .into_iter()
        .map(|s| {
            let n = fresh_name(p, &taken, &format!("joined_by_{}", p.maps[s].name));
            taken.push(n.clone());
            (s, format_ident!("{n}"))
        })
        .collect();
    Some(TrackedJoined { joined, along })
}

fn factors(p: &Program, support: Id<Support>) -> &[Factor] {
    &p.get(support).factors
}

impl TrackedJoined {
    /// The indexes `changes()` adds: declarations, initial values and
    /// names (none of them is part of a snapshot).
    pub fn fields(&self, p: &Program) -> Vec<(TokenStream, TokenStream, Ident)> {
        let joined = &p.maps[self.joined].name;
        self.along
            .iter()
            .map(|(s, name)| {
                let key = key_type(p, &p.maps[*s].key);
                let doc = format!(
                    " What `changes()` reads from a changed `{}` value: from its first call on, the positions in `{joined}` of the tuples with each ({}).",
                    p.maps[*s].name,
                    p.var_list(&p.maps[*s].key)
                );
                (
                    quote! { #[doc = #doc] #name: ::ivm::__private::Participants<#key>, },
                    quote! { #name: ::core::default::Default::default(), },
                    name.clone(),
                )
            })
            .collect()
    }

    /// What replaces `self.<joined>.push(head)` in a support's delta: the
    /// push, and once `changes()` tracks the join, the new tuple's place
    /// in each index (the head variables are in scope).
    pub fn push(&self, p: &Program, head: &TokenStream) -> TokenStream {
        let joined = &p.maps[self.joined].name;
        let changes = super::field_name(p);
        let records = self.along.iter().map(|(s, name)| {
            let key = key_expr(p, &p.maps[*s].key);
            quote! { self.#name.insert(#key, __at); }
        });
        quote! {
            self.#joined.push(#head);
            if self.#changes.is_on() {
                let __at = u32::try_from(self.#joined.len() - 1).expect("more than 2^32 output tuples");
                #(#records)*
            }
        }
    }

    /// `changes()` and its helpers.
    pub fn methods(&self, p: &Program) -> TokenStream {
        let joined = &p.maps[self.joined].name;
        let head = &p.maps[self.joined].key;
        let names: Vec<&Ident> = head.iter().map(|&v| &p.vars[v].name).collect();

        let mut maps: Vec<MapId> = Vec::new();
        for (s, _) in &self.along {
            for &f in factors(p, *s) {
                let m = p.factor_map(f);
                if !maps.contains(&m) {
                    maps.push(m);
                }
            }
        }
        let epochs = maps.iter().map(|&m| {
            let field = &p.maps[m].name;
            quote! { self.#field.end_epoch(); }
        });
        let records = self.along.iter().map(|(s, index)| {
            let key = key_expr(p, &p.maps[*s].key);
            quote! { self.#index.insert(#key, __at); }
        });
        let touched = self.along.iter().enumerate().map(|(i, (s, _))| {
            let set = format_ident!("__touched_{i}");
            let key = &p.maps[*s].key;
            let ty = key_type(p, key);
            let per_factor = factors(p, *s).iter().map(|&f| {
                let fkey = p.top_factor_key(f).expect("checked by `change_tracking`");
                let as_support = project(fkey, key, &quote! { __key });
                let map = &p.maps[p.factor_map(f)].name;
                quote! {
                    for __key in self.#map.changed_then() {
                        #set.insert(#as_support, ());
                    }
                }
            });
            quote! {
                let mut #set: ::ivm::__private::HashMap<#ty, ()> = ::ivm::__private::new_map();
                #(#per_factor)*
            }
        });
        let n = self.along.len();
        let shared_sets = (0..n.saturating_sub(1)).map(|i| {
            let set = format_ident!("__touched_{i}");
            quote! { let #set = ::std::rc::Rc::new(#set); }
        });
        let lists = (0..n).map(|i| {
            let set = format_ident!("__touched_{i}");
            let list = format_ident!("__from_{i}");
            let ty = key_type(p, &p.maps[self.along[i].0].key);
            quote! { let #list: ::std::vec::Vec<#ty> = #set.keys().cloned().collect(); }
        });
        let reads = self.along.iter().enumerate().map(|(i, (_, index))| {
            let list = format_ident!("__from_{i}");
            let earlier: Vec<TokenStream> = self.along[..i]
                .iter()
                .enumerate()
                .map(|(w, (s, _))| {
                    let set = format_ident!("__touched_{w}");
                    let key = key_expr(p, &p.maps[*s].key);
                    quote! { #set.contains_key(&#key) }
                })
                .collect();
            let tuples = quote! {
                self.#index.get(&__r).iter().map(move |&__at| &self.#joined[__at as usize])
            };
            if earlier.is_empty() {
                quote! { .chain(#list.into_iter().flat_map(move |__r| #tuples)) }
            } else {
                let sets: Vec<Ident> = (0..i).map(|w| format_ident!("__touched_{w}")).collect();
                // Only the variables the earlier supports' keys read.
                let binds = head.iter().map(|v| {
                    if self.along[..i]
                        .iter()
                        .any(|(s, _)| p.maps[*s].key.contains(v))
                    {
                        let n = &p.vars[*v].name;
                        quote! { #n }
                    } else {
                        quote! { _ }
                    }
                });
                quote! {
                    .chain(#list.into_iter().flat_map(move |__r| #tuples).filter({
                        #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                        move |__key| {
                            let (#(#binds,)*) = *__key;
                            !(#(#earlier)||*)
                        }
                    }))
                }
            }
        });
        // Every factor of every support, then and now, with one probe each.
        let lookups: Vec<TokenStream> = self
            .along
            .iter()
            .flat_map(|(s, _)| factors(p, *s).iter())
            .map(|&f| {
                let map = &p.maps[p.factor_map(f)].name;
                let key = key_expr(p, p.top_factor_key(f).expect("checked"));
                quote! { self.#map.value_then_and_now(&#key) }
            })
            .collect();
        let start = quote! {
            #(#epochs)*
            if __first {
                for (__at, __key) in self.#joined.iter().enumerate() {
                    let __at = u32::try_from(__at).expect("more than 2^32 output tuples");
                    let (#(#names,)*) = __key;
                    #(#records)*
                }
            }
        };
        let body = quote! {
            #(#touched)*
            #(#lists)*
            #(#shared_sets)*
        };
        let since = quote! {
            ::core::iter::empty() #(#reads)* .cloned()
        };
        super::walking_methods(
            p,
            &[
                "Costs the entries written since the previous call plus the",
                "joined tuples through them; the first call also indexes the",
                "join by each support's key, once.",
            ],
            start,
            None,
            body,
            since,
            &lookups,
        )
    }
}
