//! The factorized triangle strategy against the naive evaluator: every query of
//! `queries/factorized.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("factorized");

#[test]
fn factorized_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "factorized");
}
