//! Cross-crate tests for the IVM compiler and runtime.
//!
//! The library holds what the tests share: [`naive`], the from-scratch
//! evaluator of a join-aggregate query over a K-database that every
//! maintenance strategy is checked against (DESIGN §8). It lives in
//! `ivm-fuzz`, whose end-to-end fuzzer drives it too, and is re-exported
//! here.
//!
//! The tests live in `tests/`: the query catalogue with expected classes and
//! verdicts, snapshots of `ivmc explain`, property tests of the analysis and
//! of every strategy against the naive evaluator, the CI-sized run of the
//! end-to-end fuzzer (`fuzz.rs`, over the queries `build.rs` generates) and
//! one regression test per bug it found (`regressions.rs`).

pub use ivm_fuzz::naive;
