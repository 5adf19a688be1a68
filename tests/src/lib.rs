//! Cross-crate tests for the IVM compiler and runtime.
//!
//! The tests live in `tests/`: the query catalogue with expected classes and
//! verdicts, snapshots of `ivmc explain`, and property tests of the analysis.
//! Later work adds the naive evaluator and the property tests of every
//! maintenance strategy against it.
