//! The names of the generated methods that one construct defines and
//! others call: a top join node's `reach_<node>` and `participate_<node>`,
//! a message's (or best payload's) `raise_<map>`.

use quote::format_ident;

use crate::ir::{MapId, Program};

/// The method that offers a value to a top join node.
pub fn reach(p: &Program, node: impl Into<MapId>) -> syn::Ident {
    format_ident!("reach_{}", p.maps[node.into()].name)
}

/// The method by which a node's tuple takes part in a full result.
pub fn participate(p: &Program, node: impl Into<MapId>) -> syn::Ident {
    format_ident!("participate_{}", p.maps[node.into()].name)
}

/// The method that raises a message's (or a best payload's) entry.
pub fn raise(p: &Program, message: impl Into<MapId>) -> syn::Ident {
    format_ident!("raise_{}", p.maps[message.into()].name)
}
