//! The inequality join (`MapKind::RangeSums`, `PathBody::Range`): each
//! side's range-sum trie and the path of an update, read through the
//! materialized result (`emit/first_order.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{AtomId, Program, RangeStep, RangeSums};

/// The field type of one side: its payloads by its compared variable.
pub fn field_type(p: &Program, sums: &RangeSums) -> TokenStream {
    let (ty, k) = (&p.vars[sums.var].ty, &p.payload);
    quote! { ::ivm::__private::RangeSums<#ty, #k> }
}

/// An update of one side's tuple from `__old` to `__new`: the change times
/// the other side's sum beyond the tuple's key goes to the result, then the
/// change goes into this side's sums. (In a self-join the earlier atom's
/// path reads the later atom's side before it changes, the later one the
/// earlier's after: the exact delta.)
pub fn path(p: &Program, atom: AtomId, step: &RangeStep) -> TokenStream {
    let k = &p.payload;
    let var = p.get(step.own).var;
    let vars = &p.atoms[atom].vars;
    let column = vars
        .iter()
        .position(|&v| v == var)
        .expect("the compared variable is a column of the atom");
    let key = super::item(&quote! { __tuple }, column, vars.len());
    let (own, other, result) = (
        &p.maps[step.own].name,
        &p.maps[step.other].name,
        &p.maps[step.result].name,
    );
    let beyond = quote::format_ident!(
        "{}",
        match (step.smaller, step.strict) {
            (true, true) => "above",
            (true, false) => "from",
            (false, true) => "below",
            (false, false) => "up_to",
        }
    );
    let note = super::changes::note(p, result, &quote! { () });
    quote! {{
        let __key = #key;
        let __beyond: #k = self.#other.#beyond(__key);
        if !::ivm::Semiring::is_zero(&__beyond) {
            let __old_term = ::ivm::Semiring::mul(__old, &__beyond);
            let __new_term = ::ivm::Semiring::mul(__new, &__beyond);
            #note
            self.#result.replace(__result_key, &__old_term, &__new_term);
        }
        self.#own.add(__key, &::ivm::Ring::sub(__new, __old));
    }}
}
