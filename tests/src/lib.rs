//! Cross-crate tests for the IVM compiler and runtime.
//!
//! The library holds what the tests share: [`naive`], the from-scratch
//! evaluator of a join-aggregate query over a K-database that every
//! maintenance strategy is checked against
//! (`docs/design.md#how-correctness-is-checked`), re-exported from
//! `ivm-fuzz`, whose end-to-end fuzzer drives it too; and [`check_suite`],
//! the one harness of the strategy tests.
//!
//! # The strategy suites
//!
//! Each strategy has a suite of queries, `queries/<strategy>.ivm`, each
//! written once; a query whose doc comment has a line `over: Int, Count,
//! ...` is compiled once per semiring listed. `build.rs` checks and compiles
//! them with `ivm-compiler` (its own parser and checker give the naive
//! evaluator its view of each query, so nothing is stated twice) and writes,
//! for each query, its code and the harness's view of its struct
//! (`ivm_fuzz::codegen`). `tests/<strategy>.rs` includes the suite with
//! [`suite!`] and runs [`check_suite`]: random update streams (inserts,
//! deletes, retractions of absent tuples, batches, bulk loads, skewed and
//! self-joined data) against the naive evaluator after every call, as the
//! end-to-end fuzzer does.
//!
//! The other tests live in `tests/`: the query catalogue with expected
//! classes and verdicts, snapshots of `ivmc explain` and of generated code,
//! property tests of the analysis, the CI-sized run of the end-to-end
//! fuzzer (`fuzz.rs`, over the queries `build.rs` generates), compile-pass
//! and compile-fail cases (`ui.rs`) and one regression test per bug the
//! fuzzer found (`regressions.rs`).

pub use ivm_fuzz::naive;

pub mod crash;

use ivm_fuzz::Entry;
use ivm_fuzz::harness::{self, Config, Outcome};

/// Includes the compiled suite of a strategy as a module `cases`, whose
/// `ENTRIES` [`check_suite`] drives: `ivm_tests::suite!("view_tree");`.
#[macro_export]
macro_rules! suite {
    ($strategy:literal) => {
        #[allow(deprecated, reason = "suites opt in to intractable queries on purpose")]
        mod cases {
            include!(concat!(env!("OUT_DIR"), "/suite_", $strategy, ".rs"));
        }
    };
}

/// Updates per query in the README's test command, unless `IVM_STEPS`
/// says otherwise. `.ci/run` runs the suites again with `IVM_STEPS=10000`:
/// enough for every rebalancing of IVMε's partitions and for the skewed
/// and self-joined streams to meet each path. Half of that keeps the
/// README's command within its time.
const STEPS: u64 = 5_000;

/// The updates per query of this run: `IVM_STEPS`, or [`STEPS`].
fn steps() -> u64 {
    match std::env::var("IVM_STEPS") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("IVM_STEPS={s}: expected a number of updates")),
        Err(_) => STEPS,
    }
}

/// Drives every query of a suite against the naive evaluator; panics with
/// the shrunk reproduction of each disagreement, or if a query did not get
/// `strategy` (the suite would then test another strategy than its name).
pub fn check_suite(entries: &'static [Entry], strategy: &str) {
    check_entries(entries, strategy, Some(strategy));
}

/// Drives every query of the suite `what` against the naive evaluator, as
/// [`check_suite`] does, whatever strategy each query got: for suites of
/// a construct every strategy meets (semijoins).
pub fn check_construct_suite(entries: &'static [Entry], what: &str) {
    check_entries(entries, what, None);
}

fn check_entries(entries: &'static [Entry], what: &str, strategy: Option<&str>) {
    harness::quiet_panics();
    let steps = steps();
    let cfg = Config {
        steps,
        seed: 7,
        max_episode: 120,
    };
    let outcomes = harness::run_all(entries, &cfg, 2, &|_| {});
    assert!(!outcomes.is_empty(), "the suite has queries");
    let misplaced: Vec<String> = outcomes
        .iter()
        .filter(|o| strategy.is_some_and(|s| o.strategy != s))
        .map(|o| format!("{} got {}", o.name, o.strategy))
        .collect();
    assert!(
        misplaced.is_empty(),
        "queries of the {what} suite maintained otherwise: {}",
        misplaced.join(", ")
    );
    for o in &outcomes {
        assert!(
            o.failure.is_some() || o.updates >= steps,
            "{} ran {} updates, fewer than {steps}",
            o.name,
            o.updates
        );
    }
    assert_agree(&outcomes, &format!("the {what} suite"));
}

/// Panics, with the shrunk reproduction of each, if any of `outcomes`
/// disagreed with the naive evaluator; `what` names where they come from.
pub fn assert_agree(outcomes: &[Outcome], what: &str) {
    let failures: Vec<&str> = outcomes
        .iter()
        .filter_map(|o| o.failure.as_deref())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} queries of {what} disagree with the naive evaluator:\n\n{}",
        failures.len(),
        outcomes.len(),
        failures.join("\n")
    );
}
