//! The first-order delta strategy against the naive evaluator: every query of
//! `queries/first_order.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("first_order");

#[test]
fn first_order_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "first_order");
}
