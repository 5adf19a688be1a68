//! The IVMε strategy against the naive evaluator: every query of
//! `queries/ivm_eps.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("ivm_eps");

#[test]
fn ivm_eps_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "ivm_eps");
}
