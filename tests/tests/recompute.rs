//! The recompute strategy against the naive evaluator: every query of
//! `queries/recompute.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("recompute");

#[test]
fn recompute_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "recompute");
}
