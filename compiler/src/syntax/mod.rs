//! What the user wrote: the query language's syntax tree, its parser, and the
//! checks that turn it into a [`Query`](crate::query::Query).
//!
//! The same grammar is read from a `TokenStream` (inside `ivm_query!`) and
//! from text (`.ivm` files, `ivmc -e`); spans survive in both cases so every
//! error points at the narrowest construct that is wrong.

pub mod ast;
mod check;
mod errors;
mod local;
pub(crate) mod names;
mod nullary;
mod parse;
mod semijoin;

pub use check::{check, semiring_of};
pub use parse::{parse_file, parse_str, parse_tokens};
