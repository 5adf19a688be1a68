//! Example queries for the IVM compiler.
//!
//! `queries/` holds `.ivm` files in the project's query language; run
//! `cargo run -p ivm-compiler --bin ivmc -- explain generated-examples/queries/*.ivm`
//! to see how each is classified and which strategy maintains it. Once code
//! generation lands, this crate's `build.rs` compiles them into Rust and its
//! examples run the generated code.
