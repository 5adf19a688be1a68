//! The range-join strategy against the naive evaluator: every query of
//! `queries/range_join.ivm`, over every semiring its `over:` line lists,
//! under random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("range_join");

#[test]
fn range_join_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "range_join");
}
