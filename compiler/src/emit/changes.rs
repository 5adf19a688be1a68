//! `changes()`: the output tuples whose payload changed since the previous
//! call (see `ivm::__private::Changes`).
//!
//! - A materialized result (first order, the range join) notes each
//!   entry's payload before its first write of an epoch, so a call costs
//!   the entries written.
//! - A view tree whose free variables form a chain (every q-hierarchical
//!   query with one root) has its maps keep journals instead: each factor
//!   of a free level notes its payloads from before the epoch, and each
//!   level the values that lost their output. A call then starts from the
//!   changed prefixes (a changed factor entry fixes the free variables at
//!   and above its level), keeps only the topmost of those on each path,
//!   and enumerates the output tuples below each over the values that have
//!   output now or had it then: each changed tuple once, with its payloads
//!   then and now read through the journals.
//! - Every other reading compares the whole result with the one of the
//!   previous call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use crate::ir::{ChangeTracking, MapId, MapKind, Program, VarId};
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
    matches!(p.change_tracking(), ChangeTracking::Journal)
}

/// The chain of free levels whose maps keep journals, if `changes()`
/// reads them.
fn chain(p: &Program) -> Option<Chain> {
    match p.change_tracking() {
        ChangeTracking::Levels { levels, scalars } => Some(Chain { levels, scalars }),
        _ => None,
    }
}

/// The chain of free levels, root first, and the scalar views.
struct Chain {
    levels: Vec<MapId>,
    scalars: Vec<MapId>,
}

/// The field's declaration and initial value.
pub fn field(p: &Program) -> (TokenStream, TokenStream) {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let doc = if chain(p).is_some() {
        " Whether `changes()` was called: from then on the views, relations and free levels it reads keep journals of each epoch."
    } else if journaled(p) {
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

/// `changes()` and its helpers for a chain of free levels.
fn chain_methods(p: &Program, c: &Chain) -> TokenStream {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys: Vec<_> = p.output.head.iter().map(|&v| &p.vars[v].ty).collect();
    let head_ty = quote! { (#(#head_tys,)*) };
    let vars: Vec<VarId> = c
        .levels
        .iter()
        .map(|&m| match p.maps[m].kind {
            MapKind::Free { var, .. } => var,
            _ => unreachable!("free levels"),
        })
        .collect();
    let at = |v: VarId| vars.iter().position(|&w| w == v).expect("a head variable");
    let field = |i: usize| syn::Index::from(i);
    // The prefix tuple `(v0, .., vj)` from `__p`, owned.
    let clone_from = |src: TokenStream, positions: &[usize]| {
        let items = positions.iter().map(|&i| {
            let i = field(i);
            quote! { ::core::clone::Clone::clone(&#src.#i) }
        });
        quote! { (#(#items,)*) }
    };
    // Every map with a journal: the factors of the levels and the scalars.
    let mut journaled: Vec<MapId> = c.scalars.clone();
    for &m in &c.levels {
        if let MapKind::Free { factors, .. } = &p.maps[m].kind {
            for &f in factors {
                let map = p.factor_map(f);
                if !journaled.contains(&map) {
                    journaled.push(map);
                }
            }
        }
    }
    let epochs = journaled
        .iter()
        .chain(&c.levels)
        .map(|&m| &p.maps[m].name)
        .map(|field| quote! { self.#field.end_epoch(); });

    // The changed prefixes of each level, from its factors' journals.
    let mut collect = Vec::new();
    let mut topmost = Vec::new();
    let mut sets = Vec::new();
    for (j, &m) in c.levels.iter().enumerate() {
        let set = format_ident!("__changed_{j}");
        let list = format_ident!("__from_{j}");
        let prefix_tys = vars[..=j].iter().map(|&v| &p.vars[v].ty);
        let prefix_ty = quote! { (#(#prefix_tys,)*) };
        let MapKind::Free { factors, .. } = &p.maps[m].kind else {
            unreachable!("free levels")
        };
        let per_factor = factors.iter().map(|&f| {
            let map = &p.maps[p.factor_map(f)].name;
            let key = p.journal_key(f).expect("checked by `chain`");
            let items = vars[..=j].iter().map(|&v| {
                let col = key
                    .iter()
                    .position(|&w| w == v)
                    .expect("checked by `chain`");
                let item = super::item(&quote! { __key }, col, key.len());
                quote! { ::core::clone::Clone::clone(&#item) }
            });
            quote! {
                for __key in self.#map.changed_then() {
                    #set.insert((#(#items,)*), ());
                }
            }
        });
        collect.push(quote! {
            let mut #set: ::ivm::__private::HashMap<#prefix_ty, ()> = ::ivm::__private::new_map();
            #(#per_factor)*
        });
        // A prefix under a changed prefix of a level above is left to it.
        let above = (0..j).map(|i| {
            let upper = format_ident!("__changed_{i}");
            let key = clone_from(quote! { __p }, &(0..=i).collect::<Vec<_>>());
            quote! { #upper.contains_key(&#key) }
        });
        let keep = (j > 0).then(|| quote! { .filter(|__p| !(#(#above)||*)) });
        topmost.push(quote! {
            let #list: ::std::vec::Vec<#prefix_ty> = if __everything {
                ::std::vec::Vec::new()
            } else {
                #set.keys() #keep .cloned().collect()
            };
        });
        sets.push(list);
    }

    // The full prefixes below a prefix `__p` of level `j`, unless `j` is
    // the last level (then `__p` is one).
    let below = |j: usize| -> Option<TokenStream> {
        let mut inner: Option<TokenStream> = None;
        for i in (j + 1..c.levels.len()).rev() {
            let level = &p.maps[c.levels[i]];
            let group: Vec<usize> = level.key.iter().map(|&v| at(v)).collect();
            let group = clone_from(quote! { __p }, &group);
            let next = {
                let items = (0..i).map(|n| {
                    let n = field(n);
                    quote! { ::core::clone::Clone::clone(&__p.#n) }
                });
                quote! { (#(#items,)* ::core::clone::Clone::clone(__x)) }
            };
            let out = &level.name;
            let step = quote! {
                self.#out
                    .values_then_and_now(&#group)
                    .map(move |__x| #next)
            };
            inner = Some(match inner {
                None => step,
                Some(inner) => quote! { #step.flat_map(move |__p| #inner) },
            });
        }
        inner
    };
    let from_levels = sets.iter().enumerate().map(|(j, list)| match below(j) {
        Some(below) => quote! { .chain(#list.into_iter().flat_map(move |__p| #below)) },
        None => quote! { .chain(#list) },
    });
    let root = &p.maps[c.levels[0]].name;
    let everything = below(0).map(|below| quote! { .flat_map(move |__p| #below) });
    let head_positions: Vec<usize> = p.output.head.iter().map(|&v| at(v)).collect();
    let head = clone_from(quote! { __p }, &head_positions);

    // The scalar then, and whether it changed.
    let scalar_changed = c
        .scalars
        .iter()
        .map(|&m| {
            let map = &p.maps[m].name;
            quote! { self.#map.changed_then().next().is_some() }
        })
        .reduce(|a, b| quote! { #a || #b })
        .unwrap_or_else(|| quote! { false });
    // Every factor of an output tuple's payload: the scalars, then each
    // level's factors, each read then and now with one probe.
    let lookups: Vec<TokenStream> = c
        .scalars
        .iter()
        .map(|&m| {
            let map = &p.maps[m].name;
            quote! { self.#map.value_then_and_now(&()) }
        })
        .chain(c.levels.iter().flat_map(|&m| {
            let MapKind::Free { factors, .. } = &p.maps[m].kind else {
                unreachable!("free levels")
            };
            factors.iter().map(|&f| {
                let map = &p.maps[p.factor_map(f)].name;
                let key = super::key_expr(p, p.journal_key(f).expect("checked by `chain`"));
                quote! { self.#map.value_then_and_now(&#key) }
            })
        }))
        .collect();
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
    let key_names = p.output.head.iter().map(|&v| &p.vars[v].name);
    quote! {
        /// The output tuples whose payload changed since the previous
        /// call, each with its payload then and now (zero where the tuple
        /// was not in the result, or is not now); a tuple that changed and
        /// changed back is not among them. The first call reports the
        /// whole result, against the empty one: tracking starts there, so a
        /// program that never calls it pays nothing for it.
        ///
        /// Starts from the entries of the views and relations written since
        /// the previous call, and walks only the output tuples below them:
        /// its cost is the number of those entries plus the number of
        /// tuples it yields, each of which changed (unless the semiring
        /// lets a changed factor leave a product as it was).
        pub fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            let __first = self.#name.start();
            #(#epochs)*
            self.changes_since(__first)
        }

        /// The changes of the epoch that just ended (every output tuple,
        /// against nothing, when `first`).
        fn changes_since(&self, first: bool) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            let __all = first
                .then(|| self.iter())
                .into_iter()
                .flatten()
                .map(|(__key, __now)| (__key, <#k as ::ivm::Semiring>::zero(), __now));
            // A changed scalar changes every output tuple.
            let __everything = #scalar_changed;
            #(#collect)*
            #(#topmost)*
            let __prefixes = __everything
                .then(|| {
                    self.#root
                        .values_then_and_now(&())
                        .map(|__x| (::core::clone::Clone::clone(__x),))
                        #everything
                })
                .into_iter()
                .flatten()
                #(#from_levels)*;
            let __since = __prefixes.filter_map(move |__p| {
                let __key = #head;
                let (__then, __now) = self.get_then_and_now(&__key);
                (__then != __now).then_some((__key, __then, __now))
            });
            __all.chain(__since)
        }

        /// [`get`](Self::get) as of the start of the epoch that just ended,
        /// and now.
        fn get_then_and_now(&self, key: &#head_ty) -> (#k, #k) {
            let (#(#key_names,)*) = key;
            #then_and_now
        }
    }
}

/// The `changes()` method.
pub fn method(p: &Program) -> TokenStream {
    if let Some(c) = chain(p) {
        return chain_methods(p, &c);
    }
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
