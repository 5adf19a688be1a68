//! The insert-only top join of the two-layer, CROWN and max-max strategies:
//! its relations (`MapKind::Join`, or for a cyclic top join
//! `MapKind::Support` with `MapKind::Extension` indexes and the
//! materialized `MapKind::Joined`), the methods that feed them
//! (`reach_<node>`, `live_<node>`, `support_<node>`), and the readings over
//! them (`Reading::TopJoin`, `Reading::Joined`). Cluster nodes are join
//! nodes too.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{participate, reach};
use super::{key_expr, key_type, product_value};
use crate::ir::{
    ClusterNode, Extension, Factor, Id, JoinNode, Map, MapId, MapKind, Program, Support, TreeNode,
    VarId,
};

fn live(p: &Program, node: impl Into<MapId>) -> syn::Ident {
    format_ident!("live_{}", p.maps[node.into()].name)
}

/// `(__t.1.clone(), __t.0.clone())`: the values of `vars` taken from a tuple
/// over `key`.
pub fn project(key: &[VarId], vars: &[VarId], tuple: &TokenStream) -> TokenStream {
    super::tuple(vars.iter().map(|v| {
        let at = key.iter().position(|k| k == v).expect("a key variable");
        let item = super::item(tuple, at, key.len());
        quote! { ::core::clone::Clone::clone(&#item) }
    }))
}

/// The tree links of a top join node or a cluster node: its parent, its
/// children and the variables it shares with the parent.
pub fn links<K: TreeNode>(p: &Program, node: Id<K>) -> (Option<Id<K>>, &[Id<K>], &[VarId]) {
    let node = p.get(node);
    (node.parent(), node.children(), node.shared())
}

/// `reach_<node>` and `live_<node>` of a top join node or a cluster node.
pub fn join_methods<K: TreeNode>(p: &Program, node: Id<K>) -> TokenStream {
    let reach = reach_method(p, node);
    let live = live_method(p, node);
    quote! {
        #reach

        #live
    }
}

/// `reach_<node>`: a new tuple of the node arrives, and is live at once if
/// every child has a live tuple it agrees with, or waits for them.
fn reach_method<K: TreeNode>(p: &Program, node: Id<K>) -> TokenStream {
    let map = &p.maps[node];
    let field = &map.name;
    let key_ty = key_type(p, &map.key);
    let reach_name = reach(p, node);
    let live_name = live(p, node);
    let reach_body = if p.get(node).children().is_empty() {
        quote! { self.#live_name(__id); }
    } else {
        let waits = wait_for_children(p, node);
        quote! {
            let __t = self.#field.tuple(__id);
            #waits
            if __missing == 0 {
                self.#live_name(__id);
            } else {
                self.#field.set_missing(__id, __missing);
            }
        }
    };
    let reach_doc = match &map.kind {
        MapKind::Cluster(ClusterNode { atom, .. }) => format!(
            " Adds a new `{}` tuple to `{field}`: it is live at once if every atom below has a live tuple it agrees with, and waits for them otherwise.",
            p.atoms[*atom].label
        ),
        _ => format!(
            " Adds a ({}) value to `{field}`: its payload has just turned non-zero, which happens once per value under inserts over a positive semiring.",
            p.var_list(&map.key)
        ),
    };
    // A cluster tuple is looked up by its tuple (a repeated insert raises
    // its payload) and may arrive again; a top join value arrives once,
    // when its payload turns non-zero, and needs no lookup.
    let arrive = if K::top(node).is_none() {
        quote! {
            let ::core::option::Option::Some(__id) = self.#field.insert(__tuple) else {
                return;
            };
        }
    } else {
        quote! { let __id = self.#field.push(__tuple); }
    };
    quote! {
        #[doc = #reach_doc]
        fn #reach_name(&mut self, __tuple: #key_ty) {
            #arrive
            #reach_body
        }
    }
}

/// `__missing`, the number of children with no live tuple agreeing with
/// the tuple `__t` (of id `__id`), which waits at each of them.
fn wait_for_children<K: TreeNode>(p: &Program, node: Id<K>) -> TokenStream {
    let map = &p.maps[node];
    let children = p.get(node).children();
    let t = quote! { __t };
    let child_keys = children.iter().enumerate().map(|(i, &c)| {
        let (_, _, shared) = links(p, c);
        let k = format_ident!("__key_{i}");
        let value = project(&map.key, shared, &t);
        quote! { let #k = #value; }
    });
    let waits = children.iter().enumerate().map(|(i, &c)| {
        let k = format_ident!("__key_{i}");
        let child = &p.maps[c].name;
        quote! {
            if !self.#child.is_live_key(&#k) {
                self.#child.wait(#k, __id);
                __missing += 1;
            }
        }
    });
    quote! {
        #(#child_keys)*
        let mut __missing = 0u32;
        #(#waits)*
    }
}

/// `live_<node>`: a tuple of the node joins with everything below it.
fn live_method<K: TreeNode>(p: &Program, node: Id<K>) -> TokenStream {
    let field = &p.maps[node].name;
    let live_name = live(p, node);
    let live_doc = if K::top(node).is_none() {
        format!(
            " A `{field}` tuple joins with every atom below it: make it live, let it take part if its parent key is active, and tell the parent if its key is new there."
        )
    } else {
        format!(
            " A `{field}` value joins with every relation below it: make it live, and tell the parent if its key is new there."
        )
    };
    let live_body = live_body(p, node);
    quote! {
        #[doc = #live_doc]
        fn #live_name(&mut self, __id: u32) {
            #live_body
        }
    }
}

/// The body of `live_<node>`: make the tuple `__id` live, let it take part
/// in the result where that is known, and at a new key tell the parent's
/// tuples waiting there.
fn live_body<K: TreeNode>(p: &Program, node: Id<K>) -> TokenStream {
    let map = &p.maps[node];
    let field = &map.name;
    let (parent, _, shared) = links(p, node);
    let take_part = participate(p, node);
    // Once `changes()` tracks the top join, a tuple that turns live may
    // take part in the result at once.
    let super::changes::LiveHooks { before, after } =
        match (super::changes::tracked(p), K::top(node)) {
            (Some(t), Some(top)) => t.live_hooks(p, top),
            _ => super::changes::LiveHooks::default(),
        };
    let Some(q) = parent else {
        return match K::top(node) {
            Some(_) => quote! {
                self.#field.make_live((), __id);
                #after
            },
            None => quote! {
                self.#field.make_live((), __id);
                self.#take_part(__id);
            },
        };
    };
    let up = &p.maps[q].name;
    let up_live = live(p, q);
    let key = project(&map.key, shared, &quote! { __t });
    // `()` is written as such: cloning a unit is noise.
    let key_copy = if shared.is_empty() {
        quote! { () }
    } else {
        quote! { ::core::clone::Clone::clone(&__key) }
    };
    // A cluster tuple takes part at once if a parent tuple with its key
    // already does; asked before the parent hears of the key, so that a
    // tuple the parent then activates is not counted twice.
    let (active, then) = if K::top(node).is_none() {
        (
            quote! { let __active = self.#field.is_active(&__key); },
            quote! {
                if __active {
                    self.#take_part(__id);
                }
            },
        )
    } else {
        (quote! {}, quote! {})
    };
    quote! {
        let __t = self.#field.tuple(__id);
        let __key = #key;
        #active
        #before
        let __new_key = self.#field.make_live(#key_copy, __id);
        #then
        #after
        if __new_key {
            for __waiting in self.#field.take_waiting(&__key) {
                if self.#up.satisfy(__waiting) {
                    self.#up_live(__waiting);
                }
            }
        }
    }
}

/// `iter`, `get`, `len` and `is_empty` over the top join.
pub fn reading(p: &Program, top: &[Id<JoinNode>]) -> TokenStream {
    let k = &p.payload;
    let n = top.len();
    let head_ty = super::head_type(p);
    let root = &p.maps[top[0]].name;
    // One flat_map per node below the root, each after its parent: the
    // state is the array of the nodes' tuple ids.
    let levels = top.iter().enumerate().skip(1).map(|(i, &node)| {
        let JoinNode { parent, shared, .. } = p.get(node);
        let q = parent.expect("below the root");
        let qi = top.iter().position(|&x| x == q).expect("parent placed");
        let up = &p.maps[q].name;
        let field = &p.maps[node].name;
        let key = project(
            &p.maps[q].key,
            shared,
            &quote! { self.#up.tuple(__ids[#qi]) },
        );
        quote! {
            .flat_map(move |__ids: [u32; #n]| {
                self.#field.live(&#key).iter().map(move |&__id| {
                    let mut __ids = __ids;
                    __ids[#i] = __id;
                    __ids
                })
            })
        }
    });
    // Each head variable from the first node that holds it.
    let binds = p.head.iter().map(|&v| {
        let (i, &node) = top
            .iter()
            .enumerate()
            .find(|(_, m)| p.maps[**m].key.contains(&v))
            .expect("every head variable is in a top relation");
        let key = &p.maps[node].key;
        let at = key.iter().position(|&x| x == v).expect("in key");
        let field = &p.maps[node].name;
        let name = &p.vars[v].name;
        let item = super::item(&quote! { self.#field.tuple(__ids[#i]) }, at, key.len());
        quote! { let #name = &#item; }
    });
    let factors: Vec<Factor> = top
        .iter()
        .flat_map(|&m| p.get(m).factors.iter().copied())
        .collect();
    let payload = product_value(p, &factors);
    let head = key_expr(p, &p.head);
    let destructure = destructure_head(p);
    quote! {
        /// The result: each output tuple (the head variables, in head
        /// order) with its non-zero payload, with constant delay. The
        /// tuples come from the live values of the top join; the payload
        /// is looked up in the views below it.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            self.#root
                .live(&())
                .iter()
                .map(|&__id| {
                    let mut __ids = [0u32; #n];
                    __ids[0] = __id;
                    __ids
                })
                #(#levels)*
                .map(move |__ids: [u32; #n]| {
                    #(#binds)*
                    let __payload: #k = #payload;
                    (#head, __payload)
                })
        }

        /// The payload of one output tuple; zero when it is not in the result. O(1): the product of the lower layer's payloads at it.
        pub fn get(&self, key: &#head_ty) -> #k {
            #destructure
            #payload
        }

        /// The number of output tuples, counted by enumerating them (the
        /// insert-only join keeps no counts): linear in the result.
        pub fn len(&self) -> usize {
            self.iter().count()
        }

        /// Whether the result is empty, in O(1): every live value of the
        /// top join's root extends to an output tuple.
        pub fn is_empty(&self) -> bool {
            self.#root.live(&()).is_empty()
        }
    }
}

/// `reach_<support>` for a cyclic top join: a new value updates the
/// support's extension indexes, then a generic join finds the results it
/// completes.
pub fn support_method(p: &Program, support: Id<Support>) -> TokenStream {
    let map = &p.maps[support];
    let delta = &p.get(support).delta;
    let field = &map.name;
    let key_ty = key_type(p, &map.key);
    let name = reach(p, support);
    let names = map.key.iter().map(|&v| &p.vars[v].name);
    let fields = super::field_refs(&quote! { __tuple }, map.key.len());
    let bind = quote! { let (#(#names,)*) = #fields; };
    // This support's own extension indexes, read by the other supports'
    // deltas.
    let upkeep = p.maps.iter().filter_map(|m| match m.kind {
        MapKind::Extension(Extension { support: s, var }) if s == support.map() => {
            let index = &m.name;
            let key = key_expr(p, &m.key);
            let v = super::owned(p, var);
            Some(quote! { self.#index.insert(#key, #v); })
        }
        _ => None,
    });
    let checks = delta.checks.iter().map(|&c| {
        let other = &p.maps[c].name;
        let key = key_expr(p, &p.maps[c].key);
        quote! {
            if !self.#other.contains_key(&#key) {
                return;
            }
        }
    });
    let joined = &p.maps[delta.joined].name;
    let head = key_expr(p, &p.maps[delta.joined].key);
    // Once `changes()` tracks the join, a new tuple is indexed too.
    let mut body = match super::changes::tracked_joined(p) {
        Some(t) => t.push(p, &head),
        None => quote! { self.#joined.push(#head); },
    };
    for (v, sources) in delta.steps.iter().rev() {
        let x = &p.vars[*v].name;
        let keys: Vec<TokenStream> = sources
            .iter()
            .map(|&s| key_expr(p, &p.maps[s].key))
            .collect();
        let key_names: Vec<syn::Ident> = (0..sources.len())
            .map(|i| format_ident!("__key_{}_{}", x, i))
            .collect();
        let lists = sources.iter().zip(&key_names).map(|(&s, k)| {
            let index = &p.maps[s].name;
            quote! { self.#index.get(&#k) }
        });
        let tests = sources.iter().zip(&key_names).map(|(&s, k)| {
            let index = &p.maps[s].name;
            quote! { self.#index.contains(&#k, #x) }
        });
        body = quote! {
            #(let #key_names = #keys;)*
            for #x in ::ivm::__private::shortest([#(#lists),*]) {
                if #(#tests)&&* {
                    #body
                }
            }
        };
    }
    let doc = format!(
        " Adds a ({}) value to `{field}` (its payload has just turned non-zero), and to `{joined}` every result it completes; a value already there changes nothing.",
        p.var_list(&map.key)
    );
    quote! {
        #[doc = #doc]
        fn #name(&mut self, __tuple: #key_ty) {
            if self.#field.insert(::core::clone::Clone::clone(&__tuple), ()).is_some() {
                return;
            }
            #bind
            #(#upkeep)*
            #(#checks)*
            #body
        }
    }
}

/// `iter`, `get`, `len` and `is_empty` over a materialized cyclic top join.
pub fn joined_reading(p: &Program, joined: MapId) -> TokenStream {
    let k = &p.payload;
    let field = &p.maps[joined].name;
    let head_ty = super::head_type(p);
    let factors: Vec<Factor> = p
        .maps
        .iter()
        .flat_map(|m| match &m.kind {
            MapKind::Support(Support { factors, .. }) => factors.clone(),
            _ => Vec::new(),
        })
        .collect();
    let payload = product_value(p, &factors);
    let destructure = destructure_head(p);
    quote! {
        /// The result: each output tuple (the head variables, in head
        /// order) with its non-zero payload, with constant delay. The
        /// tuples are the materialized top join; the payload is looked up
        /// in the views below it.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k)> + '_ {
            self.#field.iter().map(move |key| {
                let __payload: #k = {
                    #destructure
                    #payload
                };
                (::core::clone::Clone::clone(key), __payload)
            })
        }

        /// The payload of one output tuple; zero when it is not in the result. O(1): the product of the lower layer's payloads at it.
        pub fn get(&self, key: &#head_ty) -> #k {
            #destructure
            #payload
        }

        /// The number of output tuples, in O(1).
        pub fn len(&self) -> usize {
            self.#field.len()
        }

        /// Whether the result is empty, in O(1).
        pub fn is_empty(&self) -> bool {
            self.#field.is_empty()
        }
    }
}

/// `let (x, y) = key;`: binds the head variables to a key of the result
/// (by reference), for looking the payload up.
fn destructure_head(p: &Program) -> TokenStream {
    let pattern = super::head_pattern(p);
    quote! { let #pattern = key; }
}

/// The field type of a relation of the top join, and its empty value.
pub fn node_field(p: &Program, map: &Map, node: &JoinNode) -> (TokenStream, TokenStream) {
    let key = key_type(p, &map.key);
    let up = if node.parent.is_some() {
        key_type(p, &node.shared)
    } else {
        quote! { () }
    };
    (
        quote! { ::ivm::__private::JoinNode<#key, #up> },
        quote! { ::ivm::__private::JoinNode::new() },
    )
}

/// The field type of an extension index of a support, and its empty value.
pub fn extension_field(
    p: &Program,
    map: &Map,
    extension: &Extension,
) -> (TokenStream, TokenStream) {
    let key = key_type(p, &map.key);
    let v = &p.vars[extension.var].ty;
    (
        quote! { ::ivm::__private::Extensions<#key, #v> },
        quote! { ::ivm::__private::Extensions::new() },
    )
}
