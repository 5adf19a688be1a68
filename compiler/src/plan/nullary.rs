//! Nullary factors beside a strategy of fixed shape (IVMε's triangle
//! count, the range join): each factor atom (`analysis::shape::
//! nullary_factors`, one summed-out variable that nothing else reads) gets
//! a one-entry view, the ⊕ of its payloads, kept by a view-tree step; the
//! reading multiplies the core's result by them.
//!
//! Every other strategy needs none of this: it sees a nullary factor as
//! one more atom of a cross product.

use proc_macro2::Span;
use syn::Ident;

use crate::analysis::hypergraph::{Mask, members};
use crate::ir::{AtomId, Draft, Factor, Id, PathBody, Step, SumView, Target, push_map};

/// Adds the one-entry view of each atom of `factors`; returns them with
/// their atoms, in atom order.
pub fn views(p: &mut Draft, factors: Mask) -> Vec<(AtomId, Id<SumView>)> {
    members(factors)
        .map(|atom| {
            let [var] = p.atoms[atom].vars[..] else {
                unreachable!("a nullary factor binds one variable")
            };
            let name = &p.vars[var].name;
            let field = super::names::fresh_name(p, &[], &format!("sum_over_{name}"));
            let doc = format!(
                "⊕ over `{name}` of `{}`: a nullary factor of every derivation.",
                p.atoms[atom].label
            );
            let view = SumView {
                var,
                factors: vec![Factor::Atom(atom)],
            };
            let name = Ident::new(&field, Span::call_site());
            (atom, push_map(&mut p.maps, name, doc, Vec::new(), view))
        })
        .collect()
}

/// The path of a factor atom: its change goes into its view.
pub fn path(view: Id<SumView>, atom: AtomId) -> PathBody {
    PathBody::Steps {
        steps: vec![Step {
            target: Target::Sum(view),
            changed: Factor::Atom(atom),
            siblings: Vec::new(),
            binds: Vec::new(),
        }],
        later_same_relation: Vec::new(),
    }
}
