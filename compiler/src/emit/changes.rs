//! `changes()`: the output tuples whose payload changed since the previous
//! call (see `ivm::__private::Changes`). A materialized result (first
//! order, the range join) notes each entry's payload before its first
//! write of an epoch, so a call costs the entries written; every other
//! reading compares the whole result with the one of the previous call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::ir::{Program, Reading};
use crate::plan::names::fresh_name;

/// The field that tracks changes: `changes`, or `changes_2`, ... where a
/// map is called that.
pub fn field_name(p: &Program) -> Ident {
    let taken: Vec<String> = super::semijoin::field_names(p)
        .map(ToString::to_string)
        .collect();
    format_ident!("{}", fresh_name(p, &taken, "changes"))
}

/// Whether `changes()` reads a journal of the result's writes.
fn journaled(p: &Program) -> bool {
    matches!(p.output.reading, Reading::Materialized(_))
}

/// The field's declaration and initial value.
pub fn field(p: &Program) -> (TokenStream, TokenStream) {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let doc = if journaled(p) {
        " What `changes()` reports from: from its first call on, the payload each result entry had when the epoch began, noted at the entry's first write."
    } else {
        " What `changes()` reports from: from its first call on, the result as of the previous call."
    };
    (
        quote! {
            #[doc = #doc]
            #name: ::ivm::__private::Changes<(#(#head_tys,)*), #k>,
        },
        quote! { #name: ::core::default::Default::default(), },
    )
}

/// Notes the payload of result entry `key` (an expression) before a write
/// to `result`; the caller writes at `__result_key` next.
pub fn note(p: &Program, result: &Ident, key: &TokenStream) -> TokenStream {
    let name = field_name(p);
    quote! {
        let __result_key = #key;
        self.#name.note(&__result_key, || self.#result.value(&__result_key));
    }
}

/// The `changes()` method.
pub fn method(p: &Program) -> TokenStream {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let head_ty = quote! { (#(#head_tys,)*) };
    let (cost, body) = if journaled(p) {
        (
            " Costs one lookup per result entry written since the previous call.",
            quote! {
                let __noted = self.#name.take_journal();
                let __this = &*self;
                let __first = __noted
                    .is_none()
                    .then(|| __this.iter())
                    .into_iter()
                    .flatten()
                    .map(|(__key, __new)| (__key, <#k as ::ivm::Semiring>::zero(), __new));
                let __since = __noted.into_iter().flatten().filter_map(move |(__key, __old)| {
                    let __new = __this.get(&__key);
                    (__old != __new).then_some((__key, __old, __new))
                });
                __first.chain(__since)
            },
        )
    } else {
        (
            " Compares the whole result with the one of the previous call, which it keeps: O(|result|) per call.",
            quote! {
                let __now = Self::iter(self);
                let __now: ::std::vec::Vec<(#head_ty, #k)> = __now.collect();
                self.#name.diff(__now.into_iter()).into_iter()
            },
        )
    };
    quote! {
        /// The output tuples whose payload changed since the previous
        /// call, each with its payload then and now (zero where the tuple
        /// was not in the result, or is not now); a tuple that changed and
        /// changed back is not among them. The first call reports the
        /// whole result, against the empty one: tracking starts there, so a
        /// program that never calls it pays nothing for it.
        ///
        #[doc = #cost]
        pub fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            #body
        }
    }
}
