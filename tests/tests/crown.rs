//! The CROWN strategy against the naive evaluator: every query of
//! `queries/crown.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("crown");

#[test]
fn crown_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "crown");
}
