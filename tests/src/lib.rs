//! Cross-crate tests for the IVM compiler and runtime.
//!
//! The library holds what the tests share: [`naive`], the from-scratch
//! evaluator of a join-aggregate query over a K-database that every
//! maintenance strategy is checked against (DESIGN §8).
//!
//! The tests live in `tests/`: the query catalogue with expected classes and
//! verdicts, snapshots of `ivmc explain`, and property tests of the analysis.
//! Later work adds the property tests of every maintenance strategy against
//! the naive evaluator.

pub mod naive;
