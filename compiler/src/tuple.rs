//! Rust tuples of any length in generated code: flat up to 12 items,
//! nested in chunks of 12 beyond, since the standard library implements
//! `Hash`, `Eq` and `Clone` for tuples of up to 12. Types, values and
//! patterns all nest the same way, so that a key built by [`tuple`]
//! destructures with a pattern built by [`tuple`].

use proc_macro2::TokenStream;
use quote::quote;

/// Items as one Rust tuple, of types or of values: flat up to 12 items,
/// nested in chunks of 12 beyond (the standard library implements `Hash`,
/// `Eq` and `Clone` for tuples of up to 12), so that a relation may have
/// any number of columns (up to 144).
pub fn tuple(items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let items: Vec<TokenStream> = items.into_iter().collect();
    if items.len() <= 12 {
        return quote! { (#(#items,)*) };
    }
    let chunks = items.chunks(12).map(|chunk| tuple(chunk.to_vec()));
    quote! { (#(#chunks,)*) }
}

/// Item `i` of a tuple of `n` items built by [`tuple`]: `t.3`, or
/// `t.1.3` for item 15 of 16.
pub fn item(base: &TokenStream, i: usize, n: usize) -> TokenStream {
    if n <= 12 {
        let i = syn::Index::from(i);
        return quote! { #base.#i };
    }
    let (chunk, at) = (syn::Index::from(i / 12), syn::Index::from(i % 12));
    quote! { #base.#chunk.#at }
}
