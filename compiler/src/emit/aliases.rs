//! Names for a program's wide tuple types: its output tuple
//! (`<Query>Key`) and each declared relation's tuple
//! (`<Query><Relation>Tuple`),
//! once they have more than four items. Generated code spells such a type
//! at every map, method and iterator that holds one; a name keeps each of
//! those to one line.

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::ir::Program;
use crate::tuple::tuple;

/// Tuples of more than this many items are named.
const WIDE: usize = 4;

/// One named tuple type.
struct Alias {
    /// The type's tokens, as text: what a type is matched by.
    text: String,
    /// The type.
    ty: TokenStream,
    /// Its name.
    name: Ident,
    /// Its doc line.
    doc: String,
}

/// The program's wide tuple types with their names: the output tuple
/// first, then each relation's.
fn aliases(p: &Program) -> Vec<Alias> {
    let head = (p.head.len() > WIDE).then(|| {
        let ty = tuple(p.head.iter().map(|&v| {
            let ty = &p.vars[v].ty;
            quote! { #ty }
        }));
        let doc = format!(
            " An output tuple of [`{}`]: the head variables' values, in head order.",
            p.name
        );
        (ty, format_ident!("{}Key", p.name), doc)
    });
    let relations = p.declared().filter(|r| r.columns.len() > WIDE).map(|r| {
        let ty = tuple(r.columns.iter().map(|(_, ty)| quote! { #ty }));
        let doc = format!(" A tuple of `{}`: its columns, in order.", r.name);
        (ty, format_ident!("{}{}Tuple", p.name, r.name), doc)
    });
    head.into_iter()
        .chain(relations)
        .map(|(ty, name, doc)| Alias {
            text: ty.to_string(),
            ty,
            name,
            doc,
        })
        .collect()
}

/// `ty`, or its name when it is one of the program's wide tuple types:
/// the name of `relation`'s tuples when given and `ty` is theirs, else the
/// first that fits.
pub(super) fn named(p: &Program, ty: TokenStream, relation: Option<&Ident>) -> TokenStream {
    let text = ty.to_string();
    let own = relation.map(|r| format_ident!("{}{}Tuple", p.name, r));
    let fitting: Vec<Alias> = aliases(p).into_iter().filter(|a| a.text == text).collect();
    let chosen = own
        .and_then(|own| fitting.iter().position(|a| a.name == own))
        .or((!fitting.is_empty()).then_some(0))
        .map(|i| &fitting[i]);
    match chosen {
        Some(a) => {
            let name = &a.name;
            quote! { #name }
        }
        None => ty,
    }
}

/// The definitions of the names that `code` uses. A name of the same type
/// as an earlier one is defined as that one.
pub(super) fn definitions(p: &Program, code: &TokenStream) -> TokenStream {
    let vis = &p.vis;
    let all = aliases(p);
    let used: Vec<bool> = all.iter().map(|a| mentions(code, &a.name)).collect();
    let first_of = |i: usize| all.iter().position(|b| b.text == all[i].text).unwrap_or(i);
    let defs = all.iter().enumerate().filter_map(|(i, a)| {
        let needed = used[i] || (0..all.len()).any(|j| used[j] && j != i && first_of(j) == i);
        if !needed {
            return None;
        }
        let Alias { ty, name, doc, .. } = a;
        let ty = match first_of(i) {
            j if j == i => ty.clone(),
            j => {
                let earlier = &all[j].name;
                quote! { #earlier }
            }
        };
        Some(quote! {
            #[doc = #doc]
            #vis type #name = #ty;
        })
    });
    quote! { #(#defs)* }
}

/// Whether `code` holds the identifier `name`.
pub(super) fn mentions(code: &TokenStream, name: &Ident) -> bool {
    code.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *name,
        TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}
