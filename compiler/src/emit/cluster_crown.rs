//! The max-max clusters (`MapKind::Cluster`): a new tuple joins its
//! cluster's join tree (`PathBody::Cluster`), and a tuple that takes part in
//! a full result raises the cluster's best payload.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::names::{participate, raise, reach};
use super::top_join::{links, project};
use crate::ir::{ClusterNode, Id, Program};

/// A cluster tuple takes part in a full result: it raises the cluster's
/// best payload, and the live tuples below that agree with it take part
/// too.
pub fn participate_method(p: &Program, node: Id<ClusterNode>) -> TokenStream {
    let k = &p.payload;
    let map = &p.maps[node];
    let ClusterNode {
        atom,
        children,
        best,
        ..
    } = p.get(node);
    let field = &map.name;
    let name = participate(p, node);
    let t = quote! { __t };
    let best_key = project(&map.key, &p.maps[*best].key, &t);
    let raise_best = raise(p, *best);
    let base = &p.maps[p.relations[p.atoms[*atom].relation].base].name;
    let keys = children.iter().enumerate().map(|(i, &c)| {
        let (_, _, shared) = links(p, c);
        let k = format_ident!("__key_{i}");
        let value = project(&map.key, shared, &t);
        quote! { let #k = #value; }
    });
    let activations = children.iter().enumerate().map(|(i, &c)| {
        let k = format_ident!("__key_{i}");
        let child = &p.maps[c].name;
        let child_part = participate(p, c);
        quote! {
            if let ::core::option::Option::Some(__ids) = self.#child.activate(#k) {
                for __child in __ids {
                    self.#child_part(__child);
                }
            }
        }
    });
    let doc = format!(
        " A `{field}` tuple takes part in a full result of its cluster: raise the cluster's best payload with its own, and let the agreeing tuples below take part."
    );
    quote! {
        #[doc = #doc]
        fn #name(&mut self, __id: u32) {
            self.#field.set_participating(__id);
            let __t = self.#field.tuple(__id);
            let __payload: #k = self.#base.value(__t);
            let __best_key = #best_key;
            #(#keys)*
            self.#raise_best(__best_key, __payload);
            #(#activations)*
        }
    }
}

/// The trigger of a max-max atom: a new tuple joins its cluster's tree; a
/// tuple that takes part already raises its cluster's best payload with
/// its grown one.
pub fn path(p: &Program, node: Id<ClusterNode>) -> TokenStream {
    let map = &p.maps[node];
    let best = &p.get(node).best;
    let field = &map.name;
    let reach_name = reach(p, node);
    let raise_best = raise(p, *best);
    let best_key = project(&map.key, &p.maps[*best].key, &quote! { __tuple });
    quote! {
        match self.#field.id(__tuple) {
            ::core::option::Option::Some(__id) => {
                if self.#field.participates(__id) {
                    self.#raise_best(#best_key, ::core::clone::Clone::clone(__new));
                }
            }
            ::core::option::Option::None => {
                self.#reach_name(::core::clone::Clone::clone(__tuple));
            }
        }
    }
}

/// The field type of a cluster node: a join node over the atom's tuples,
/// keyed towards its parent by the shared variables.
pub fn field_type(p: &Program, node: &ClusterNode) -> TokenStream {
    let ClusterNode {
        atom,
        parent,
        shared,
        ..
    } = node;
    let tuple_ty = super::relation_type(p, &p.relations[p.atoms[*atom].relation]);
    let up = if parent.is_some() {
        super::key_type(p, shared)
    } else {
        quote! { () }
    };
    quote! { ::ivm::__private::JoinNode<#tuple_ty, #up> }
}

/// The empty cluster node.
pub fn field_init() -> TokenStream {
    quote! { ::ivm::__private::JoinNode::new() }
}
