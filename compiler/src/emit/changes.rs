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

use crate::ir::{ChangeTracking, FreeLevel, Id, MapId, Program, SumView, VarId};
use crate::plan::names::fresh_name;

mod joined;
mod top_join;

pub use joined::tracked_joined;
pub use top_join::tracked;

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

/// The free levels in preorder, and the scalar views.
struct Chain {
    levels: Vec<Id<FreeLevel>>,
    scalars: Vec<Id<SumView>>,
}

/// The field's declaration and initial value.
pub fn field(p: &Program) -> (TokenStream, TokenStream) {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
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

/// `changes()` and its helpers for free levels with journals.
///
/// A changed factor entry of level `j` fixes the values of `j`'s path (its
/// ancestors and itself): a *changed prefix*. Every output tuple whose
/// payload changed goes through some changed prefix, and is yielded from
/// the first level, in preorder, that has a changed prefix on it: a prefix
/// below a changed prefix of an ancestor is dropped at once, and a tuple
/// through a changed prefix of an earlier level that is no ancestor (a
/// sibling branch) is skipped as it comes. Below and beside the fixed
/// values, the enumeration walks the values with output then or now.
fn chain_methods(p: &Program, c: &Chain) -> TokenStream {
    let n = c.levels.len();
    let level_vars: Vec<&[VarId]> = c.levels.iter().map(|&m| &p.get(m).vars[..]).collect();
    // Where a variable lies in a preorder tuple: the level, and the
    // component of its values when they are tuples.
    let slot = |v: VarId| -> (usize, Option<usize>) {
        level_vars
            .iter()
            .enumerate()
            .find_map(|(i, vars)| {
                let j = vars.iter().position(|&w| w == v)?;
                Some((i, (vars.len() > 1).then_some(j)))
            })
            .expect("a free variable")
    };
    // A variable's value, cloned out of the preorder tuple `src`.
    let clone_var = |src: TokenStream, v: VarId| {
        let (i, j) = slot(v);
        let i = syn::Index::from(i);
        match j.map(syn::Index::from) {
            Some(j) => quote! { ::core::clone::Clone::clone(&#src.#i.#j) },
            None => quote! { ::core::clone::Clone::clone(&#src.#i) },
        }
    };
    // Each level's path, as preorder indexes, root first.
    let paths: Vec<Vec<usize>> = c
        .levels
        .iter()
        .map(|&m| {
            let mut path: Vec<usize> = p.level_path(m).into_iter().map(|v| slot(v).0).collect();
            path.dedup();
            path
        })
        .collect();
    let field = |i: usize| syn::Index::from(i);
    let clone_from = |src: TokenStream, positions: &[usize]| {
        let items = positions.iter().map(|&i| {
            let i = field(i);
            quote! { ::core::clone::Clone::clone(&#src.#i) }
        });
        quote! { (#(#items,)*) }
    };
    // Every map with a journal: the factors of the levels and the scalars.
    let mut journaled: Vec<MapId> = c.scalars.iter().map(|&m| m.map()).collect();
    for &m in &c.levels {
        for &f in &p.get(m).factors {
            let map = p.factor_map(f);
            if !journaled.contains(&map) {
                journaled.push(map);
            }
        }
    }
    let epochs = journaled
        .iter()
        .copied()
        .chain(c.levels.iter().map(|&m| m.map()))
        .map(|m| &p.maps[m].name)
        .map(|field| quote! { self.#field.end_epoch(); });

    // The changed prefixes of each level (its path's values, root first),
    // from its factors' journals.
    let path_ty = |j: usize| {
        let tys = paths[j]
            .iter()
            .map(|&i| super::level_type(p, level_vars[i]));
        quote! { (#(#tys,)*) }
    };
    let collect = c.levels.iter().enumerate().map(|(j, &m)| {
        let set = format_ident!("__changed_{j}");
        let ty = path_ty(j);
        let per_factor = p.get(m).factors.iter().map(|&f| {
            let map = &p.maps[p.factor_map(f)].name;
            let key = p.journal_key(f).expect("checked by `change_tracking`");
            let column = |v: VarId| {
                let col = key.iter().position(|&w| w == v).expect("checked");
                let item = super::item(&quote! { __key }, col, key.len());
                quote! { ::core::clone::Clone::clone(&#item) }
            };
            let items = paths[j].iter().map(|&i| match level_vars[i] {
                [one] => column(*one),
                several => {
                    let columns = several.iter().map(|&v| column(v));
                    quote! { (#(#columns,)*) }
                }
            });
            quote! {
                for __key in self.#map.changed_then() {
                    #set.insert((#(#items,)*), ());
                }
            }
        });
        quote! {
            let mut #set: ::ivm::__private::HashMap<#ty, ()> = ::ivm::__private::new_map();
            #(#per_factor)*
        }
    });
    // The prefixes of each level under no changed prefix of an ancestor.
    let topmost = (0..n).map(|j| {
        let list = format_ident!("__from_{j}");
        let set = format_ident!("__changed_{j}");
        let ty = path_ty(j);
        let ancestors = &paths[j][..paths[j].len() - 1];
        let above = ancestors.iter().enumerate().map(|(depth, &i)| {
            let upper = format_ident!("__changed_{i}");
            let key = clone_from(quote! { __r }, &(0..=depth).collect::<Vec<_>>());
            quote! { #upper.contains_key(&#key) }
        });
        let keep = (!ancestors.is_empty()).then(|| quote! { .filter(|__r| !(#(#above)||*)) });
        if c.scalars.is_empty() {
            quote! { let #list: ::std::vec::Vec<#ty> = #set.keys() #keep .cloned().collect(); }
        } else {
            quote! {
                let #list: ::std::vec::Vec<#ty> = if __everything {
                    ::std::vec::Vec::new()
                } else {
                    #set.keys() #keep .cloned().collect()
                };
            }
        }
    });
    // Levels whose changed prefixes a later level's tuples must be checked
    // against (an earlier level in preorder that is no ancestor).
    let skip_sets: Vec<usize> = (0..n)
        .filter(|&i| (i + 1..n).any(|j| !paths[j].contains(&i)))
        .collect();
    let shared = skip_sets.iter().map(|&i| {
        let set = format_ident!("__changed_{i}");
        quote! { let #set = ::std::rc::Rc::new(#set); }
    });

    // The output tuples (as preorder tuples `__p`) through the prefix
    // `__r` of level `fixed` (through anything, when `None`).
    let walk = |fixed: Option<usize>| -> TokenStream {
        let path: &[usize] = fixed.map_or(&[], |j| &paths[j]);
        let mut steps = Vec::new();
        for i in 0..n {
            let source = match path.iter().position(|&x| x == i) {
                Some(depth) => {
                    let depth = field(depth);
                    quote! { ::core::iter::once(::core::clone::Clone::clone(&__r.#depth)) }
                }
                None => {
                    let level = &p.maps[c.levels[i]];
                    let out = &level.name;
                    let group = level.key.iter().map(|&v| clone_var(quote! { __p }, v));
                    let group = quote! { (#(#group,)*) };
                    quote! { self.#out.values_then_and_now(&#group).cloned() }
                }
            };
            let kept = (0..i).map(|n| {
                let n = field(n);
                quote! { ::core::clone::Clone::clone(&__p.#n) }
            });
            let extend = quote! { (#(#kept,)* __x) };
            // The record's values are cloned into a step only while a step
            // at or after it reads them.
            let reads_record = path.iter().any(|&x| x >= i);
            steps.push(if i == 0 {
                quote! { #source.map(|__x| (__x,)) }
            } else if reads_record {
                quote! {
                    .flat_map({
                        let __r = ::core::clone::Clone::clone(&__r);
                        move |__p| #source.map(move |__x| #extend)
                    })
                }
            } else {
                quote! { .flat_map(move |__p| #source.map(move |__x| #extend)) }
            });
        }
        // Tuples through a changed prefix of an earlier level that is no
        // ancestor are that level's.
        let earlier: Vec<TokenStream> = fixed
            .map(|j| {
                (0..j)
                    .filter(|i| !paths[j].contains(i))
                    .map(|i| {
                        let set = format_ident!("__changed_{i}");
                        let key = clone_from(quote! { __p }, &paths[i]);
                        quote! { #set.contains_key(&#key) }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let filter = (!earlier.is_empty()).then(|| {
            let sets = (0..fixed.unwrap_or(0))
                .filter(|i| !paths[fixed.unwrap_or(0)].contains(i))
                .map(|i| format_ident!("__changed_{i}"));
            let sets2 = sets.clone();
            quote! {
                .filter({
                    #(let #sets = ::std::rc::Rc::clone(&#sets2);)*
                    move |__p| !(#(#earlier)||*)
                })
            }
        });
        quote! { #(#steps)* #filter }
    };
    let everything = walk(None);
    let from_levels = (0..n).map(|j| {
        let list = format_ident!("__from_{j}");
        let walk = walk(Some(j));
        // Each closure holds its own handles on the sets it checks.
        let sets: Vec<_> = (0..j)
            .filter(|i| !paths[j].contains(i))
            .map(|i| format_ident!("__changed_{i}"))
            .collect();
        if sets.is_empty() {
            quote! { .chain(#list.into_iter().flat_map(move |__r| #walk)) }
        } else {
            quote! {
                .chain(#list.into_iter().flat_map({
                    #(let #sets = ::std::rc::Rc::clone(&#sets);)*
                    move |__r| #walk
                }))
            }
        }
    });
    let head = p.output.head.iter().map(|&v| clone_var(quote! { __p }, v));
    let head = quote! { (#(#head,)*) };

    // Whether a scalar changed.
    let scalar_changed = c
        .scalars
        .iter()
        .map(|&m| {
            let map = &p.maps[m].name;
            quote! { self.#map.changed_then().next().is_some() }
        })
        .reduce(|a, b| quote! { #a || #b });
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
            p.get(m).factors.iter().map(|&f| {
                let map = &p.maps[p.factor_map(f)].name;
                let key = super::key_expr(p, p.journal_key(f).expect("checked"));
                quote! { self.#map.value_then_and_now(&#key) }
            })
        }))
        .collect();
    let body = if c.scalars.is_empty() {
        quote! {
            #(#collect)*
            #(#topmost)*
            #(#shared)*
            let __tuples = ::core::iter::empty() #(#from_levels)*;
        }
    } else {
        quote! {
            // A changed scalar changes every output tuple.
            let __everything = #scalar_changed;
            #(#collect)*
            #(#topmost)*
            #(#shared)*
            let __tuples = __everything
                .then(|| #everything)
                .into_iter()
                .flatten()
                #(#from_levels)*;
        }
    };
    let since = quote! {
        __tuples.filter_map(move |__p| {
            ::ivm::__private::changed(#head, |__key| self.get_then_and_now(__key))
        })
    };
    walking_methods(
        p,
        &[
            "Starts from the entries of the views and relations written since",
            "the previous call, and walks only the output tuples through",
            "them: its cost is the number of those entries plus the number",
            "of tuples it yields, each of which changed (unless the semiring",
            "lets a changed factor leave a product as it was).",
        ],
        quote! { #(#epochs)* },
        body,
        since,
        &lookups,
    )
}

/// The first paragraph of every `changes()` doc comment.
const CHANGES_DOC: [&str; 6] = [
    "The output tuples whose payload changed since the previous",
    "call, each with its payload then and now (zero where the tuple",
    "was not in the result, or is not now); a tuple that changed and",
    "changed back is not among them. The first call reports the",
    "whole result, against the empty one: tracking starts there, so a",
    "program that never calls it pays nothing for it.",
];

/// `changes()`, `changes_since()` and `get_then_and_now()` of a program
/// whose maps keep journals: `cost`, the doc comment's second paragraph;
/// `start`, what `changes()` does after starting the tracking and before
/// reading (ending the maps' epochs); `body`, the statements of
/// `changes_since` before `since`, an iterator of `(key, then, now)`
/// (it may call `get_then_and_now`); `lookups`, each factor of an output
/// tuple's payload read then and now at the head variables, whose product
/// `get_then_and_now` returns.
pub(super) fn walking_methods(
    p: &Program,
    cost: &[&str],
    start: TokenStream,
    body: TokenStream,
    since: TokenStream,
    lookups: &[TokenStream],
) -> TokenStream {
    let name = field_name(p);
    let k = &p.payload;
    let head_tys = p.output.head.iter().map(|&v| &p.vars[v].ty);
    let head_ty = quote! { (#(#head_tys,)*) };
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
    let doc = CHANGES_DOC.iter().chain(&[""]).chain(cost).map(|line| {
        if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        }
    });
    quote! {
        #(#[doc = #doc])*
        pub fn changes(&mut self) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            let __first = self.#name.start();
            #start
            self.changes_since(__first)
        }

        /// The changes of the epoch that just ended (every output tuple,
        /// against nothing, when `first`).
        fn changes_since(&self, first: bool) -> impl ::core::iter::Iterator<Item = (#head_ty, #k, #k)> + '_ {
            #body
            ::ivm::__private::since(first.then(|| self.iter()), #since)
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
    if let Some(t) = tracked(p) {
        return t.methods(p);
    }
    if let Some(j) = tracked_joined(p) {
        return j.methods(p);
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
