//! Semijoins (`ir::Semijoin`): the structs of their bodies' and domains'
//! counts, held in fields; the path by which an update of a relation they
//! read reaches those counts (`PathBody::Semijoin`); and the two methods
//! per semijoin that read the indicator and feed its relation when it
//! turns.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::method;
use crate::ir::{KeyColumn, Program, RelId, Semijoin};

/// The items of every subprogram's struct, emitted beside the outer one.
pub fn items(p: &Program) -> TokenStream {
    let items = p
        .semijoins
        .iter()
        .flat_map(Semijoin::parts)
        .map(|part| super::emit(&part.program));
    quote! { #(#items)* }
}

/// The fields holding the subprograms: `(field, type, initial value,
/// doc)`.
pub fn fields(p: &Program) -> Vec<(TokenStream, TokenStream)> {
    let mut out = Vec::new();
    for s in &p.semijoins {
        for part in s.parts() {
            let name = &part.field;
            let ty = &part.program.name;
            let what = if s.domain().is_some_and(|d| d.field == part.field) {
                "the values of"
            } else {
                "the derivations of"
            };
            let doc = format!(
                " For `{}`: {what} `{}`, counted per ({}).",
                s.text,
                part.program.rule,
                part.program.var_list(&part.program.head)
            );
            out.push((
                quote! { #[doc = #doc] #name: #ty, },
                quote! { #name: #ty::new(), },
            ));
        }
    }
    out
}

/// The names of the fields holding the subprograms, in the order of
/// [`fields`].
pub fn field_names(p: &Program) -> impl Iterator<Item = &syn::Ident> {
    p.semijoins
        .iter()
        .flat_map(Semijoin::parts)
        .map(|part| &part.field)
}

/// Per semijoin: `<rel>_holds(&key)`, the indicator at a value of the
/// correlated variables, and `<rel>_settle(key, held)`, which feeds the
/// semijoin's relation where the indicator turned from `held`.
pub fn methods(p: &Program) -> TokenStream {
    let k = &p.payload;
    let methods = p.semijoins.iter().map(|s| {
        let r = &p.relations[s.relation];
        let key_ty = super::relation_type(p, r);
        let holds = method(&r.snake, "holds");
        let settle = method(&r.snake, "settle");
        let feed = method("feed", &r.snake);
        let count = &s.body.field;
        let indicator = match s.domain() {
            None => quote! {
                !::ivm::Semiring::is_zero(&self.#count.get(__key))
            },
            Some(d) => {
                let domain = &d.field;
                quote! {
                    !::ivm::Semiring::is_zero(&self.#domain.get(__key))
                        && ::ivm::Semiring::is_zero(&self.#count.get(__key))
                }
            }
        };
        let holds_doc = format!(" Whether `{}` holds at `key`.", s.text);
        let settle_doc = format!(
            " After an update of the counts behind `{}` at `key`, where it held `held` before: feeds `{}` if that changed.",
            s.text, r.name
        );
        quote! {
            #[doc = #holds_doc]
            fn #holds(&self, __key: &#key_ty) -> bool {
                #indicator
            }

            #[doc = #settle_doc]
            fn #settle(&mut self, __key: #key_ty, __held: bool) {
                if self.#holds(&__key) != __held {
                    let (__zero, __one) = (<#k as ::ivm::Semiring>::zero(), <#k as ::ivm::Semiring>::one());
                    if __held {
                        self.#feed(__key, &__one, &__zero);
                    } else {
                        self.#feed(__key, &__zero, &__one);
                    }
                }
            }
        }
    });
    quote! { #(#methods)* }
}

/// The key a tuple holds, `Some` where each column read as `Some(v)`
/// holds a value: `match (c0, c1) { (Some(__k0), __k1) => Some((__k0,
/// __k1)), _ => None }`.
fn optional_key(key: &[KeyColumn], column: &dyn Fn(usize) -> TokenStream) -> TokenStream {
    let scrutinee = super::tuple(key.iter().map(|c| column(c.column)));
    let bound: Vec<syn::Ident> = (0..key.len()).map(|i| format_ident!("__k{i}")).collect();
    let patterns = key.iter().zip(&bound).map(|(c, k)| {
        if c.unwrapped {
            quote! { ::core::option::Option::Some(#k) }
        } else {
            quote! { #k }
        }
    });
    let pattern = super::tuple(patterns);
    let value = super::tuple(bound.iter().map(|k| quote! { #k }));
    quote! {
        match #scrutinee {
            #pattern => ::core::option::Option::Some(#value),
            _ => ::core::option::Option::None,
        }
    }
}

/// What an update of relation `r` does to semijoin `i`: where the tuple
/// comes or goes, each count that reads `r` takes ±1, and each value of
/// the correlated variables the tuple binds is settled.
pub fn path(p: &Program, i: usize, r: RelId) -> TokenStream {
    let s = &p.semijoins[i];
    let rel = &p.relations[r];
    let n = rel.columns.len();
    // The tuple holds its text as `&str` where the relation keeps no tuple
    // and only semijoins read it (`StepTuple::Lent`).
    let lent = matches!(
        super::relation::step_tuple(p, r),
        super::relation::StepTuple::Lent
    );
    let text = |c: usize| crate::ir::is_string_type(&rel.columns[c].1);
    let column = |c: usize| {
        let field = super::item(&quote! { __tuple }, c, n);
        if crate::ir::is_copy_type(&rel.columns[c].1) {
            quote! { #field }
        } else if lent && text(c) {
            quote! { ::std::string::String::from(#field) }
        } else {
            quote! { ::core::clone::Clone::clone(&#field) }
        }
    };
    // What the bodies are given: a text column lent (their parameter takes
    // `impl ivm::Text`), copied only where a body keeps it.
    let given = |c: usize| {
        let field = super::item(&quote! { __tuple }, c, n);
        match (text(c), lent) {
            (true, true) => quote! { #field },
            (true, false) => quote! { &#field },
            (false, _) => column(c),
        }
    };
    // The values of the correlated variables the tuple binds, one per
    // atom of `r` in a count, each settled once.
    let mut keys: Vec<&Vec<KeyColumn>> = Vec::new();
    let mut updates = Vec::new();
    for part in s.parts() {
        let Some(read) = part.reads.iter().find(|x| x.relation == r) else {
            continue;
        };
        for key in &read.keys {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let field = &part.field;
        let update = method("update", &read.snake);
        let cols = (0..n).map(given);
        updates.push(quote! { self.#field.#update(#(#cols,)* __count); });
    }
    let holds = method(&p.relations[s.relation].snake, "holds");
    let settle = method(&p.relations[s.relation].snake, "settle");
    // Where an atom reads a column as `Some(v)`, a tuple whose column is
    // `None` holds no value of the key: each key is an `Option` then.
    let optional = keys.iter().any(|k| k.iter().any(|c| c.unwrapped));
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for (j, key) in keys.iter().enumerate() {
        let at = format_ident!("__at{j}");
        let held = format_ident!("__held{j}");
        before.push(if optional {
            let value = optional_key(key, &column);
            quote! {
                let #at = #value;
                let #held = #at.as_ref().map(|__at| self.#holds(__at));
            }
        } else {
            let value = super::tuple(key.iter().map(|c| column(c.column)));
            quote! {
                let #at = #value;
                let #held = self.#holds(&#at);
            }
        });
        // A value equal to an earlier atom's is settled once, as that one.
        let earlier: Vec<TokenStream> = (0..j)
            .map(|e| {
                let other = format_ident!("__at{e}");
                quote! { #at != #other }
            })
            .collect();
        let settle_call = if optional {
            quote! {
                if let (::core::option::Option::Some(__at), ::core::option::Option::Some(__held)) = (#at, #held) {
                    self.#settle(__at, __held);
                }
            }
        } else {
            quote! { self.#settle(#at, #held); }
        };
        after.push(if earlier.is_empty() {
            settle_call
        } else {
            quote! {
                if #(#earlier)&&* {
                    #settle_call
                }
            }
        });
    }
    // `settle` takes its value: the values are compared with each other
    // and with the unkeyed values below before any is settled, so the last
    // is settled first (settling distinct values commutes).
    after.reverse();
    // A body atom over `r` that misses a correlated variable changes the
    // count at values the tuple does not fix: the body's own `changes()`
    // lists them. Its epoch starts here (what other relations' keyed
    // paths changed since is settled already), and each value whose count
    // turned, and that no keyed atom above settled, is settled with the
    // count it had.
    let unkeyed = s
        .body
        .reads
        .iter()
        .any(|read| read.relation == r && read.unkeyed);
    debug_assert!(
        s.domain()
            .iter()
            .flat_map(|d| &d.reads)
            .all(|read| !read.unkeyed),
        "a domain's one atom binds every correlated variable"
    );
    let (start, turned) = if unkeyed {
        let body = &s.body.field;
        let key_ty = super::relation_type(p, &p.relations[s.relation]);
        let held = match s.domain() {
            None => quote! { !::ivm::Semiring::is_zero(&__then) },
            Some(d) => {
                let domain = &d.field;
                quote! {
                    !::ivm::Semiring::is_zero(&self.#domain.get(&__key))
                        && ::ivm::Semiring::is_zero(&__then)
                }
            }
        };
        let settled: Vec<TokenStream> = (0..keys.len())
            .map(|j| {
                let at = format_ident!("__at{j}");
                if optional {
                    quote! { #at.as_ref() != ::core::option::Option::Some(&__key) }
                } else {
                    quote! { __key != #at }
                }
            })
            .collect();
        let settle_one = quote! {
            let __held = #held;
            self.#settle(__key, __held);
        };
        let settle_one = if settled.is_empty() {
            settle_one
        } else {
            quote! {
                if #(#settled)&&* {
                    #settle_one
                }
            }
        };
        (
            quote! { self.#body.changes().for_each(::core::mem::drop); },
            quote! {
                let __turned: ::std::vec::Vec<(#key_ty, ::ivm::semiring::Int)> = self
                    .#body
                    .changes()
                    .filter(|(_, __then, __now)| {
                        ::ivm::Semiring::is_zero(__then) != ::ivm::Semiring::is_zero(__now)
                    })
                    .map(|(__key, __then, _)| (__key, __then))
                    .collect();
                for (__key, __then) in __turned {
                    #settle_one
                }
            },
        )
    } else {
        (quote! {}, quote! {})
    };
    quote! {
        if ::ivm::Semiring::is_zero(__old) != ::ivm::Semiring::is_zero(__new) {
            let __count = ::ivm::semiring::Int(if ::ivm::Semiring::is_zero(__new) { -1 } else { 1 });
            #start
            #(#before)*
            #(#updates)*
            #turned
            #(#after)*
        }
    }
}
