//! The two-layer strategy against the naive evaluator: every query of
//! `queries/two_layer.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("two_layer");

#[test]
fn two_layer_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "two_layer");
}
