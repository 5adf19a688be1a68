//! IVMε and the factorized baseline for the triangle count: the runtime's
//! triangle state (`MapKind::Triangle`), the update of one role
//! (`PathBody::Triangle`) and the count (`Reading::Triangle`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Id, Program, SumView, TriangleState};

/// IVMε: the triangle map updates the atom's role.
pub fn path(p: &Program, map: Id<TriangleState>, role: usize, [x, y]: [usize; 2]) -> TokenStream {
    let field = &p.maps[map].name;
    let update = if p.get(map).cycle {
        format_ident!("update")
    } else {
        format_ident!("update_{}", ["r", "s", "t"][role])
    };
    let (x, y) = (syn::Index::from(x), syn::Index::from(y));
    quote! {
        self.#field.#update(&__tuple.#x, &__tuple.#y, __old, __new);
    }
}

/// The reading methods of a triangle count (times the nullary factors'
/// views `scalars`), plus the invariant check that tests call after every
/// update.
pub fn reading(p: &Program, triangle: Id<TriangleState>, scalars: &[Id<SumView>]) -> TokenStream {
    let field = &p.maps[triangle].name;
    let count = quote! { ::core::clone::Clone::clone(self.#field.count()) };
    let methods = super::nullary::reading(p, count, scalars);
    quote! {
        #methods

        /// Checks the strategy's invariants ("Counting Triangles under Updates
        /// in Worst-Case Optimal Time"): for IVMε the size
        /// bounds of the threshold and the degrees of heavy and light values;
        /// for both, the views and the count against their definitions. For
        /// tests: it costs time linear in the database or more.
        #[doc(hidden)]
        pub fn check_invariants(&self) -> ::core::result::Result<(), ::std::string::String> {
            self.#field.check()
        }
    }
}

/// The field type of the triangle state: IVMε's partitions and views (one
/// copy of the relation when it plays every role), or the factorized
/// baseline's one view.
pub fn field_type(p: &Program, state: &TriangleState) -> TokenStream {
    let k = &p.payload;
    let TriangleState { vars, eps, cycle } = state;
    let tys = vars.iter().map(|&v| &p.vars[v].ty);
    if *cycle {
        let vertex = &p.vars[vars[0]].ty;
        quote! { ::ivm::__private::GraphTriangle<#vertex, #k> }
    } else if eps.is_some() {
        quote! { ::ivm::__private::Triangle<#(#tys,)* #k> }
    } else {
        quote! { ::ivm::__private::Factorized<#(#tys,)* #k> }
    }
}

/// The empty triangle state, with its ε.
pub fn field_init(state: &TriangleState) -> TokenStream {
    let TriangleState { eps, cycle, .. } = state;
    match (eps, cycle) {
        (Some(eps), true) => quote! { ::ivm::__private::GraphTriangle::new(#eps) },
        (Some(eps), false) => quote! { ::ivm::__private::Triangle::new(#eps) },
        (None, _) => quote! { ::ivm::__private::Factorized::new() },
    }
}
