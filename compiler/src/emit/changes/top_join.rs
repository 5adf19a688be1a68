//! `changes()` of the insert-only top join (two layers, CROWN, max-max):
//! `ChangeTracking::TopJoin`.
//!
//! Under inserts over a positive semiring an output tuple is a tuple of the
//! full join of the top join's nodes, and its payload is the product of
//! every node's local payload (the ⊗ of the node's factors at its key). A
//! tuple whose payload changed therefore holds a node tuple whose local
//! payload changed, and a tuple that is new holds one whose local payload
//! was zero; either way one of its node tuples is *touched*: some factor's
//! journal has it. `changes()` collects the touched tuples of each node and
//! walks the output tuples through each, once (from the first node, root
//! first, with a touched tuple in it):
//!
//! - down, through the live tuples of the children (a live tuple always
//!   extends to the whole subtree below it);
//! - up, through the parent's tuples that *take part* in some output tuple,
//!   which the nodes record once tracking has started (the max-max
//!   strategy's `activate` / `participate`), grouped by the values they
//!   share with the child (`Participants`).
//!
//! A touched tuple is walked only if it takes part itself (its local
//! payload is not zero, its key is active at its node, and every child has
//! a live tuple under it), so no step of a walk ends in nothing: each tuple
//! yielded costs O(number of nodes), and each is yielded at most once per
//! touched node tuple in it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::super::names::participate;
use super::super::top_join::{links, project};
use super::super::{factor_value, item, key_expr, key_type, product_value};
use crate::ir::{BestMap, ChangeTracking, Factor, Id, JoinNode, MapId, MapKind, Message, Program};
use crate::plan::names::fresh_name;

/// What `live_<node>` of a tracked top join adds around `make_live`.
#[derive(Default)]
pub struct LiveHooks {
    /// Before the tuple turns live.
    pub before: TokenStream,
    /// After it did.
    pub after: TokenStream,
}

/// The nodes of a top join whose `changes()` walk it, with the names of the
/// fields it adds.
pub struct Tracked {
    /// The nodes, root first, each after its parent.
    nodes: Vec<Id<JoinNode>>,
    /// Each map that only grows among the factors, with its journal.
    noted: Vec<(MapId, Ident)>,
    /// Each node below the root, with the index of its parent's
    /// participating tuples by the values they share.
    above: Vec<(Id<JoinNode>, Ident)>,
}

/// The top join's tracking, when `changes()` walks it.
pub fn tracked(p: &Program) -> Option<Tracked> {
    let ChangeTracking::TopJoin { nodes } = p.change_tracking() else {
        return None;
    };
    let mut taken: Vec<String> = super::super::semijoin::field_names(p)
        .map(ToString::to_string)
        .collect();
    taken.push(super::field_name(p).to_string());
    let mut name = |base: String| {
        let n = fresh_name(p, &taken, &base);
        taken.push(n.clone());
        format_ident!("{n}")
    };
    let mut noted = Vec::new();
    for &node in &nodes {
        for &f in factors(p, node) {
            if let Factor::Map(m) = f
                && matches!(
                    p.maps[m].kind,
                    MapKind::Message(Message { .. }) | MapKind::Best(BestMap { .. })
                )
                && !noted.iter().any(|(x, _)| *x == m)
            {
                noted.push((m, name(format!("noted_{}", p.maps[m].name))));
            }
        }
    }
    let above = nodes
        .iter()
        .filter(|&&node| links(p, node).0.is_some())
        .map(|&node| (node, name(format!("above_{}", p.maps[node].name))))
        .collect();
    Some(Tracked {
        nodes,
        noted,
        above,
    })
}

fn factors(p: &Program, node: Id<JoinNode>) -> &[Factor] {
    &p.get(node).factors
}

fn children(p: &Program, node: Id<JoinNode>) -> &[Id<JoinNode>] {
    &p.get(node).children
}

impl Tracked {
    /// The journal of a map that only grows, if `changes()` reads it.
    pub fn noted(&self, m: MapId) -> Option<&Ident> {
        self.noted.iter().find(|(x, _)| *x == m).map(|(_, n)| n)
    }

    fn above(&self, node: Id<JoinNode>) -> &Ident {
        let (_, name) = self
            .above
            .iter()
            .find(|(x, _)| *x == node)
            .expect("a node below the root");
        name
    }

    /// The fields `changes()` adds: their declarations, initial values and
    /// names (none of them is part of a snapshot).
    pub fn fields(&self, p: &Program) -> Vec<(TokenStream, TokenStream, Ident)> {
        let k = &p.payload;
        let noted = self.noted.iter().map(|(m, name)| {
            let key = key_type(p, &p.maps[*m].key);
            let doc = format!(
                " What `changes()` reads of `{}`: from its first call on, the payload of each entry written during an epoch, from before its first write.",
                p.maps[*m].name
            );
            (
                quote! { #[doc = #doc] #name: ::ivm::__private::Noted<#key, #k>, },
                quote! { #name: ::core::default::Default::default(), },
                name.clone(),
            )
        });
        let above = self.above.iter().map(|(node, name)| {
            let (parent, _, shared) = links(p, *node);
            let parent = &p.maps[parent.expect("below the root")].name;
            let key = key_type(p, shared);
            let doc = format!(
                " What `changes()` walks up through from `{}`: from its first call on, the `{parent}` tuples that take part in the result, by ({}).",
                p.maps[*node].name,
                p.var_list(shared)
            );
            (
                quote! { #[doc = #doc] #name: ::ivm::__private::Participants<#key>, },
                quote! { #name: ::core::default::Default::default(), },
                name.clone(),
            )
        });
        noted.chain(above).collect()
    }

    /// What `live_<node>` adds: a tuple that turns live takes part at once
    /// if it is at the root or its key is active (asked before the parent
    /// hears of the key, so that a tuple the parent then activates is not
    /// counted twice).
    pub fn live_hooks(&self, p: &Program, node: Id<JoinNode>) -> LiveHooks {
        if children(p, node).is_empty() {
            // A leaf records nothing: its parent activates its keys.
            return LiveHooks::default();
        }
        let changes = super::field_name(p);
        let field = &p.maps[node].name;
        let take_part = participate(p, node);
        if links(p, node).0.is_none() {
            return LiveHooks {
                before: quote! {},
                after: quote! {
                    if self.#changes.is_on() {
                        self.#take_part(__id);
                    }
                },
            };
        }
        LiveHooks {
            before: quote! {
                let __takes_part = self.#changes.is_on() && self.#field.is_active(&__key);
            },
            after: quote! {
                if __takes_part {
                    self.#take_part(__id);
                }
            },
        }
    }

    /// `participate_<node>` for each node with children, and the method
    /// that starts the records from the root.
    fn participation(&self, p: &Program) -> TokenStream {
        let methods = self.nodes.iter().filter(|&&n| !children(p, n).is_empty()).map(|&node| {
            let field = &p.maps[node].name;
            let name = participate(p, node);
            let kids = children(p, node);
            let keys = kids.iter().enumerate().map(|(i, &c)| {
                let key = format_ident!("__key_{i}");
                let value = project(&p.maps[node].key, links(p, c).2, &quote! { __t });
                quote! { let #key = #value; }
            });
            let records = kids.iter().enumerate().map(|(i, &c)| {
                let key = format_ident!("__key_{i}");
                let above = self.above(c);
                // `()` is written as such: cloning a unit is noise.
                let copy = if links(p, c).2.is_empty() {
                    quote! { () }
                } else {
                    quote! { ::core::clone::Clone::clone(&#key) }
                };
                quote! { self.#above.insert(#copy, __id); }
            });
            let activations = kids.iter().enumerate().map(|(i, &c)| {
                let key = format_ident!("__key_{i}");
                let child = &p.maps[c].name;
                if children(p, c).is_empty() {
                    quote! { self.#child.activate(#key); }
                } else {
                    let child_part = participate(p, c);
                    quote! {
                        if let ::core::option::Option::Some(__ids) = self.#child.activate(#key) {
                            for __child in __ids {
                                self.#child_part(__child);
                            }
                        }
                    }
                }
            });
            let doc = format!(
                " A `{field}` tuple takes part in the result (tracked once `changes()` has been called): record it for the walks up from its children, and let the live tuples below that agree with it take part."
            );
            quote! {
                #[doc = #doc]
                fn #name(&mut self, __id: u32) {
                    let __t = self.#field.tuple(__id);
                    #(#keys)*
                    #(#records)*
                    #(#activations)*
                }
            }
        });
        let root = self.nodes[0];
        let start = (!children(p, root).is_empty()).then(|| {
            let resets = self.nodes.iter().map(|&n| {
                let field = &p.maps[n].name;
                quote! { self.#field.reset_participation(); }
            });
            let root_field = &p.maps[root].name;
            let root_part = participate(p, root);
            quote! {
                /// Finds the top join's tuples that take part in the
                /// result, from the root's live tuples down: what the first
                /// call of `changes()` starts from.
                fn take_part_from_root(&mut self) {
                    #(#resets)*
                    let __roots = self.#root_field.live(&()).to_vec();
                    for __id in __roots {
                        self.#root_part(__id);
                    }
                }
            }
        });
        quote! {
            #(#methods)*
            #start
        }
    }

    /// `changes()` and its helpers.
    pub fn methods(&self, p: &Program) -> TokenStream {
        let epochs = self.epoch_ends(p);
        let start = (!children(p, self.nodes[0]).is_empty()).then(|| {
            quote! {
                if __first {
                    self.take_part_from_root();
                }
            }
        });
        let touched = self.touched_sets(p);
        let starts = self.walk_starts(p);
        // Sets a later node's walks check their tuples against.
        let shared_sets = (0..self.nodes.len().saturating_sub(1)).map(|i| {
            let set = format_ident!("__touched_{i}");
            quote! { let #set = ::std::rc::Rc::new(#set); }
        });
        let walks = self.walks(p);
        let lookups = self.lookups(p);
        let body = quote! {
            #(#touched)*
            #(#starts)*
            #(#shared_sets)*
        };
        let since = quote! {
            ::core::iter::empty() #(#walks)*
        };
        let methods = super::walking_methods(
            p,
            &[
                "Costs the entries written since the previous call plus the",
                "output tuples through them; the first call also finds which",
                "tuples of the top join take part in the result, once.",
            ],
            quote! {
                #(#epochs)*
                #start
            },
            None,
            body,
            since,
            &lookups,
        );
        let participation = self.participation(p);
        quote! {
            #methods
            #participation
        }
    }

    /// Ending the epoch of every factor map's journal, once each: the maps
    /// that track their own changes, then the journals of those that only
    /// grow.
    fn epoch_ends(&self, p: &Program) -> Vec<TokenStream> {
        let mut payload_maps: Vec<MapId> = Vec::new();
        for &node in &self.nodes {
            for &f in factors(p, node) {
                let m = p.factor_map(f);
                if self.noted(m).is_none() && !payload_maps.contains(&m) {
                    payload_maps.push(m);
                }
            }
        }
        payload_maps
            .iter()
            .map(|&m| &p.maps[m].name)
            .chain(self.noted.iter().map(|(_, n)| n))
            .map(|field| quote! { self.#field.end_epoch(); })
            .collect()
    }

    /// `__touched_<i>`: the touched tuples of each node, from its factors'
    /// journals.
    fn touched_sets(&self, p: &Program) -> Vec<TokenStream> {
        let k = &p.payload;
        let touched = self.nodes.iter().enumerate().map(|(i, &node)| {
            let set = format_ident!("__touched_{i}");
            let node_key = &p.maps[node].key;
            let ty = key_type(p, node_key);
            let per_factor = factors(p, node).iter().map(|&f| {
                let fkey = p.top_factor_key(f).expect("checked by `change_tracking`");
                let as_node = project(fkey, node_key, &quote! { __key });
                let m = p.factor_map(f);
                let map = &p.maps[m].name;
                match self.noted(m) {
                    Some(noted) => quote! {
                        for (__key, __then) in self.#noted.written_then() {
                            let __now = self.#map.get(__key).map_or_else(
                                <#k as ::ivm::Semiring>::zero,
                                ::core::clone::Clone::clone,
                            );
                            if __now != *__then {
                                #set.insert(#as_node, ());
                            }
                        }
                    },
                    None => quote! {
                        for __key in self.#map.changed_then() {
                            #set.insert(#as_node, ());
                        }
                    },
                }
            });
            quote! {
                let mut #set: ::ivm::__private::HashMap<#ty, ()> = ::ivm::__private::new_map();
                #(#per_factor)*
            }
        });
        touched.collect()
    }

    /// `__from_<i>`: the touched tuples of each node that take part in the
    /// result, where walks start.
    fn walk_starts(&self, p: &Program) -> Vec<TokenStream> {
        let starts = self.nodes.iter().enumerate().map(|(i, &node)| {
            let set = format_ident!("__touched_{i}");
            let list = format_ident!("__from_{i}");
            let map = &p.maps[node];
            let ty = key_type(p, &map.key);
            let names = map.key.iter().map(|&v| &p.vars[v].name);
            let fields = super::super::field_refs(&quote! { __r }, map.key.len());
            let local = product_value(p, factors(p, node));
            let (parent, kids, shared) = links(p, node);
            let field = &map.name;
            let active = parent.is_some().then(|| {
                let key = project(&map.key, shared, &quote! { __r });
                quote! { && self.#field.is_active(&#key) }
            });
            let below = kids.iter().map(|&c| {
                let child = &p.maps[c].name;
                let key = project(&map.key, links(p, c).2, &quote! { __r });
                quote! { && !self.#child.live(&#key).is_empty() }
            });
            quote! {
                let #list: ::std::vec::Vec<#ty> = #set
                    .keys()
                    .filter(|__r| {
                        let (#(#names,)*) = #fields;
                        !::ivm::Semiring::is_zero(&#local) #active #(#below)*
                    })
                    .cloned()
                    .collect();
            }
        });
        starts.collect()
    }

    /// The `.chain(..)` of each node's walks from its starting tuples, each
    /// with the touched sets of the nodes before it.
    fn walks(&self, p: &Program) -> Vec<TokenStream> {
        let at = |m: Id<JoinNode>| self.nodes.iter().position(|&x| x == m).expect("a node");
        let walks = self.nodes.iter().enumerate().map(|(x, &node)| {
            let list = format_ident!("__from_{x}");
            let walk = self.walk(p, node, &at);
            let r = if p.maps[node].key.is_empty() {
                quote! { _ }
            } else {
                quote! { __r }
            };
            let sets: Vec<Ident> = (0..x).map(|w| format_ident!("__touched_{w}")).collect();
            if sets.is_empty() {
                quote! { .chain(#list.into_iter().flat_map(move |#r| #walk)) }
            } else {
                quote! {
                    .chain(#list.into_iter().flat_map({
                        #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                        move |#r| #walk
                    }))
                }
            }
        });
        walks.collect()
    }

    /// The payload of an output tuple then and now: each factor of each
    /// node, read with one probe (and one of its journal).
    fn lookups(&self, p: &Program) -> Vec<TokenStream> {
        self.nodes
            .iter()
            .flat_map(|&node| factors(p, node).iter())
            .map(|&f| {
                let m = p.factor_map(f);
                let key = key_expr(p, p.top_factor_key(f).expect("checked"));
                match self.noted(m) {
                    Some(noted) => {
                        let now = factor_value(p, f, None);
                        quote! { self.#noted.then_and_now(&#key, #now) }
                    }
                    None => {
                        let map = &p.maps[m].name;
                        quote! { self.#map.value_then_and_now(&#key) }
                    }
                }
            })
            .collect()
    }

    /// The output tuples through the touched tuple `__r` of node `x`, less
    /// those with a touched tuple at a node before `x`: head tuples.
    fn walk(
        &self,
        p: &Program,
        x: Id<JoinNode>,
        at: &dyn Fn(Id<JoinNode>) -> usize,
    ) -> TokenStream {
        let n = self.nodes.len();
        // Each node after `x`, reached from a placed node.
        let mut steps: Vec<Reach> = Vec::new();
        fn down(p: &Program, y: Id<JoinNode>, steps: &mut Vec<Reach>) {
            for &c in children(p, y) {
                steps.push(Reach::Down { node: c, from: y });
                down(p, c, steps);
            }
        }
        down(p, x, &mut steps);
        let mut from = x;
        while let Some(parent) = links(p, from).0 {
            steps.push(Reach::Up { node: parent, from });
            for &c in children(p, parent) {
                if c != from {
                    steps.push(Reach::Down {
                        node: c,
                        from: parent,
                    });
                    down(p, c, &mut steps);
                }
            }
            from = parent;
        }
        let tuple = |m: Id<JoinNode>| -> TokenStream {
            if m == x {
                quote! { __r }
            } else {
                let field = &p.maps[m].name;
                let i = at(m);
                quote! { self.#field.tuple(__ids[#i]) }
            }
        };
        // `__r` is read where a projection of it is not empty.
        let reads_r = |m: Id<JoinNode>, vars: &[crate::ir::VarId]| m == x && !vars.is_empty();
        let chain = steps.iter().map(|&step| {
            let (y, anchor) = match step {
                Reach::Up { node, from } | Reach::Down { node, from } => (node, from),
            };
            let yi = at(y);
            let anchor_key = &p.maps[anchor].key;
            // The variables shared along the edge walked: the lower node's.
            let vars = match step {
                Reach::Up { .. } => links(p, anchor).2,
                Reach::Down { .. } => links(p, y).2,
            };
            let key = project(anchor_key, vars, &tuple(anchor));
            let source = match step {
                Reach::Up { .. } => {
                    let above = self.above(anchor);
                    quote! { self.#above.get(&#key) }
                }
                Reach::Down { .. } => {
                    let child = &p.maps[y].name;
                    quote! { self.#child.live(&#key) }
                }
            };
            let body = quote! {
                move |__ids: [u32; #n]| {
                    #source.iter().map(move |&__id| {
                        let mut __ids = __ids;
                        __ids[#yi] = __id;
                        __ids
                    })
                }
            };
            if reads_r(anchor, vars) {
                quote! {
                    .flat_map({
                        let __r = ::core::clone::Clone::clone(&__r);
                        #body
                    })
                }
            } else {
                quote! { .flat_map(#body) }
            }
        });
        // Tuples with a touched tuple at an earlier node are that node's.
        let xi = at(x);
        let earlier: Vec<TokenStream> = (0..xi)
            .map(|w| {
                let set = format_ident!("__touched_{w}");
                let field = &p.maps[self.nodes[w]].name;
                quote! { #set.contains_key(self.#field.tuple(__ids[#w])) }
            })
            .collect();
        let filter = (!earlier.is_empty()).then(|| {
            let sets = (0..xi).map(|w| format_ident!("__touched_{w}"));
            quote! {
                .filter({
                    #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                    move |__ids: &[u32; #n]| !(#(#earlier)||*)
                })
            }
        });
        // Each head variable from `x` if it holds it, else from the first
        // node that does.
        let mut reads_ids = false;
        let items: Vec<TokenStream> = p
            .head
            .iter()
            .map(|&v| {
                let m = if p.maps[x].key.contains(&v) {
                    x
                } else {
                    *self
                        .nodes
                        .iter()
                        .find(|&&m| p.maps[m].key.contains(&v))
                        .expect("checked by `change_tracking`")
                };
                reads_ids |= m != x;
                let key = &p.maps[m].key;
                let col = key.iter().position(|&w| w == v).expect("in key");
                let value = item(&tuple(m), col, key.len());
                quote! { ::core::clone::Clone::clone(&#value) }
            })
            .collect();
        if steps.is_empty() {
            // The only node: its tuple is the output tuple.
            return quote! { ::core::iter::once((#(#items,)*)) };
        }
        let ids = if reads_ids {
            quote! { __ids }
        } else {
            quote! { _ }
        };
        quote! {
            ::core::iter::once([0u32; #n])
                #(#chain)*
                #filter
                .map(move |#ids: [u32; #n]| (#(#items,)*))
        }
    }
}

/// One node of a walk through the top join, reached from a node placed
/// before it.
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// `node` is the parent of `from`: its tuples are those above the
    /// placed tuple's key.
    Up {
        node: Id<JoinNode>,
        from: Id<JoinNode>,
    },
    /// `node` is a child of `from`: its live tuples under the placed
    /// tuple's key.
    Down {
        node: Id<JoinNode>,
        from: Id<JoinNode>,
    },
}
