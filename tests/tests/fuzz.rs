//! The CI-sized run of the end-to-end fuzzer (`fuzz/`): the queries that
//! `build.rs` generated and compiled, each driven by random update streams
//! against the naive evaluator. A mismatch fails the test with the query,
//! the seed and the shrunk calls that reproduce it.
//!
//! The soak command runs the same harness over many more queries and
//! updates: `cargo run --release -p ivm-fuzz -- --queries 2000 --steps
//! 100000 --seed S`.

mod cases {
    include!(concat!(env!("OUT_DIR"), "/fuzz_cases.rs"));
}

use ivm_fuzz::harness::{self, Config};

#[test]
fn generated_queries_agree_with_the_naive_evaluator() {
    harness::quiet_panics();
    let cfg = Config {
        steps: 5_000,
        seed: 1,
        max_episode: 120,
    };
    let outcomes = harness::run_all(cases::ENTRIES, &cfg, 2, &|o| {
        eprintln!(
            "{}: {}{} over {}, {} updates in {} episodes",
            o.name,
            o.strategy,
            if o.intractable {
                " (allow(intractable))"
            } else {
                ""
            },
            o.semiring,
            o.updates,
            o.episodes
        );
    });
    let mut strategies: Vec<&str> = outcomes.iter().map(|o| o.strategy).collect();
    strategies.sort_unstable();
    strategies.dedup();
    assert_eq!(
        strategies,
        [
            "cluster_crown",
            "crown",
            "factorized",
            "first_order",
            "ivm_eps",
            "range_join",
            "recompute",
            "two_layer",
            "view_tree"
        ],
        "every strategy is represented"
    );
    ivm_tests::assert_agree(&outcomes, "the fuzzer's CI run");
}
