//! The `ivm_query!` procedural macro, re-exported as `ivm::ivm_query!`.
//!
//! This crate is a shell on purpose: it hands the macro's tokens to
//! [`ivm_compiler::driver::compile_tokens`] and returns what comes back, the
//! generated code or `compile_error!`s at the spans of the mistakes.
//! Everything worth testing lives in `ivm-compiler` as plain functions.

use proc_macro::TokenStream;

/// Compiles join-aggregate queries into maintenance code.
///
/// See the `ivm` crate for the query language and the generated API.
#[proc_macro]
pub fn ivm_query(input: TokenStream) -> TokenStream {
    ivm_compiler::driver::compile_tokens(input.into()).into()
}
