//! Semijoins (`exists(..)`, `not exists(..)`) against the naive
//! evaluator: every query of `queries/semijoin.ivm`, over every semiring
//! its `over:` line lists, under random update streams (see
//! [`ivm_tests::check_construct_suite`]), whatever strategy maintains the
//! rule around them.

ivm_tests::suite!("semijoin");

#[test]
fn semijoins_agree_with_the_naive_evaluator() {
    ivm_tests::check_construct_suite(cases::ENTRIES, "semijoin");
}
