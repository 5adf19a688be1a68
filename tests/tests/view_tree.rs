//! The view-tree strategy against the naive evaluator: every query of
//! `queries/view_tree.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

ivm_tests::suite!("view_tree");

#[test]
fn view_tree_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "view_tree");
}
