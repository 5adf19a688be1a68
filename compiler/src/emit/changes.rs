//! `changes()`: the output tuples whose payload changed since the previous
//! call (see `ivm::__private::Changes`).
//!
//! - A materialized result (first order, the range join) notes each
//!   entry's payload before its first write of an epoch, so a call costs
//!   the entries written.
//! - A view tree whose free levels' factors are keyed by exactly the
//!   variables at and above them (every q-hierarchical query) has its maps
//!   keep journals instead: each factor of a free level notes its payloads
//!   from before the epoch, and each level the values that lost their
//!   output. A call then starts from the changed prefixes (a changed factor
//!   entry fixes the free variables at and above its level) and
//!   enumerates the output tuples through each over the values that have
//!   output now or had it then: each changed tuple once (from the first
//!   level in preorder with a changed prefix on it), with its payloads
//!   then and now read through the journals.
//! - The insert-only top join keeps journals in its factors, and walks
//!   the output tuples through the node tuples they touched
//!   ([`top_join`]).
//! - Every other reading compares the whole result with the one of the
//!   previous call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::ir::{ChangeTracking, Program};
use crate::plan::names::fresh_name;

mod joined;
mod levels;
mod top_join;

pub use joined::tracked_joined;
pub use top_join::{LiveHooks, tracked};

use levels::Chain;

/// The fields `changes()` of a top join adds beside the maps (journals,
/// records and indexes): declarations, initial values and names. None of
/// them is part of a snapshot.
pub fn extra_fields(p: &Program) -> Vec<(TokenStream, TokenStream, Ident)> {
    match (tracked(p), tracked_joined(p)) {
        (Some(t), _) => t.fields(p),
        (_, Some(j)) => j.fields(p),
        _ => Vec::new(),
    }
}

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
    matches!(p.change_tracking(), ChangeTracking::Journal)
}

/// The free levels whose maps keep journals, if `changes()` reads them.
fn chain(p: &Program) -> Option<Chain> {
    match p.change_tracking() {
        ChangeTracking::Levels { levels, scalars } => Some(Chain { levels, scalars }),
        _ => None,
    }
}

/// The field's declaration and initial value.
pub fn field(p: &Program) -> (TokenStream, TokenStream) {
    let name = field_name(p);
    let k = &p.payload;
    let head_ty = super::head_type(p);
    let doc = if chain(p).is_some() || tracked(p).is_some() || tracked_joined(p).is_some() {
        " Whether `changes()` was called: from then on the views, relations and free levels it reads keep journals of each epoch."
    } else if journaled(p) {
        " What `changes()` reports from: from its first call on, the payload each result entry had when the epoch began, noted at the entry's first write."
    } else {
        " What `changes()` reports from: from its first call on, the result as of the previous call."
    };
    (
        quote! {
            #[doc = #doc]
            #name: ::ivm::__private::Changes<#head_ty, #k>,
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

/// The first paragraph of every `changes()` doc comment.
const CHANGES_DOC: [&str; 2] = [
    "The output tuples whose payload changed since the previous call,",
    "each with its payload then and now: see [`ivm::View::changes`].",
];

/// `changes()`, `changes_since()` and `get_then_and_now()` of a program
/// whose maps keep journals: `cost`, the doc comment's second paragraph;
/// `start`, what `changes()` does after starting the tracking and before
/// reading (ending the maps' epochs); `written`, where it can tell, an
/// expression false when no journal the walk reads was written since the
/// previous call (the call then returns no change, gathering nothing);
/// `body`, the statements of
/// `changes_since` before `candidates`, an iterator of output tuples
/// whose payload may have changed; `lookups`, each factor of an output
/// tuple's payload read then and now at the head variables, whose product
/// `get_then_and_now` returns.
pub(super) fn walking_methods(
    p: &Program,
    cost: &[&str],
    start: TokenStream,
    written: Option<TokenStream>,
    body: TokenStream,
    candidates: TokenStream,
    lookups: &[TokenStream],
) -> TokenStream {
    let name = field_name(p);
    let k = &p.payload;
    let head_ty = super::head_type(p);
    let then_and_now = match lookups.split_first() {
        None => quote! {
            (<#k as ::ivm::Semiring>::one(), <#k as ::ivm::Semiring>::one())
        },
        Some((first, [])) => first.clone(),
        Some((first, rest)) => quote! {
            let (mut __then, mut __now) = #first;
            #(
                let (__t, __n) = #rest;
                __then = ::ivm::Semiring::mul(&__then, &__t);
                __now = ::ivm::Semiring::mul(&__now, &__n);
            )*
            (__then, __now)
        },
    };
    let bind = super::head_binding(p, lookups);
    let doc = CHANGES_DOC.iter().chain(&[""]).chain(cost).map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    let gather = match written {
        Some(written) => quote! {
            let __gather = __first || #written;
            #start
            ::ivm::__private::Gathered(__gather.then(|| self.changes_since(__first)))
        },
        None => quote! {
            #start
            self.changes_since(__first)
        },
    };
    quote! {
        #(#[doc = #doc])*
        pub fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            let __first = self.#name.start();
            #gather
        }

        /// The changes of the epoch that just ended (every output tuple,
        /// against nothing, when `first`).
        fn changes_since(&self, first: bool) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            #body
            ::ivm::__private::since(
                first.then(|| self.iter()),
                #candidates,
                move |__key| self.get_then_and_now(__key),
            )
        }

        /// [`get`](Self::get) as of the start of the epoch that just ended,
        /// and now.
        fn get_then_and_now(&self, key: &#head_ty) -> (#k, #k) {
            #bind
            #then_and_now
        }
    }
}

/// The `changes()` method.
pub fn method(p: &Program) -> TokenStream {
    if let Some(c) = chain(p) {
        return levels::methods(p, &c);
    }
    if let Some(t) = tracked(p) {
        return t.methods(p);
    }
    if let Some(j) = tracked_joined(p) {
        return j.methods(p);
    }
    let name = field_name(p);
    let k = &p.payload;
    let head_ty = super::head_type(p);
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
    let doc = CHANGES_DOC.iter().map(|line| format!(" {line}"));
    quote! {
        #(#[doc = #doc])*
        ///
        #[doc = #cost]
        pub fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            #body
        }
    }
}
