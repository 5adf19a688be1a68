//! The end-to-end fuzzer of the IVM compiler: random queries in, generated
//! code compiled and run, results compared with the naive evaluator.
//!
//! The property tests of `ivm-tests` check a fixed list of query shapes;
//! a shape nobody listed can still be miscompiled. This crate closes that
//! gap the way Csmith and SQLancer do for C compilers and databases:
//!
//! 1. [`generate`] draws random rules (1–4 relations of arity 1–3, 1–5
//!    atoms, self-joins, paths, stars, cycles, triangles and free-form
//!    shapes, random heads, every catalogue semiring, both update models,
//!    every strategy keyword) and keeps those the compiler accepts, spread
//!    over every strategy;
//! 2. [`codegen`] compiles each with `ivm-compiler` (the same pipeline as
//!    `build.rs` and `ivmc compile`), wraps the generated struct in a
//!    [`Target`] impl, so the [`harness`] can drive any query through one
//!    trait, and describes the query to the naive evaluator from the
//!    compiler's checked query (the strategy suites of `ivm-tests` go
//!    through the same [`codegen::suite`] from their `.ivm` text);
//! 3. [`harness`] drives each query with random update [`stream`]s
//!    (inserts, deletes and retractions of present and absent tuples, zero
//!    and negative deltas, skewed values, `bulk_load` and `apply`) against
//!    [`naive::Naive`], comparing `iter()`, `get`, `len`, `is_empty` and
//!    every `Result` after each step; a mismatch is shrunk to a short
//!    stream and printed as the Rust calls that reproduce it.
//!
//! Two ways to run it:
//!
//! - the CI-sized run is part of `cargo test --workspace`: `ivm-tests`'
//!   `build.rs` writes a few dozen queries from a fixed seed with
//!   [`codegen::write_cases`], and `tests/tests/fuzz.rs` drives them;
//! - the soak command, `cargo run --release -p ivm-fuzz -- --queries 2000
//!   --steps 100000 --seed S`, writes batches of queries into a scratch
//!   crate under `target/ivm-fuzz/`, builds it with cargo and runs it,
//!   for as long as asked ([`soak`]); a share of each batch is random SQL
//!   views ([`sql`]), checked against SQLite (`sqlite`, the feature of
//!   that name).
//!
//! The modules the generated crates use ([`naive`], [`rng`], [`column`],
//! [`payload`], [`stream`], [`harness`]) depend on the runtime only; the
//! generator, the code writer and the soak command need the compiler and
//! sit behind the `host` feature.

#![forbid(unsafe_code)]

pub mod column;
pub mod harness;
pub mod naive;
pub mod payload;
pub mod rng;
pub mod stream;

#[cfg(feature = "host")]
pub mod codegen;
#[cfg(feature = "host")]
pub mod generate;
#[cfg(feature = "host")]
pub mod soak;
#[cfg(feature = "host")]
pub mod sql;
#[cfg(feature = "sqlite")]
pub mod sqlite;

pub use column::Column;
pub use harness::{Case, Entry, Relation, SemijoinCase, Target};
pub use payload::Payload;
