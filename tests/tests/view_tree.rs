//! The view-tree strategy against the naive evaluator: every query of
//! `queries/view_tree.ivm`, over every semiring its `over:` line lists, under
//! random update streams (see [`ivm_tests::check_suite`]).

use cases::groupedint::GroupedInt;
use cases::nullarycount::NullaryCount;
use ivm::semiring::{Count, Int};

ivm_tests::suite!("view_tree");

#[test]
fn view_tree_agrees_with_the_naive_evaluator() {
    ivm_tests::check_suite(cases::ENTRIES, "view_tree");
}

// Overflow in `Int` and `Count` arithmetic panics with the semiring's
// message instead of wrapping, in a base tuple's sum and in a view.

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊕")]
fn int_overflow_in_a_base_tuple_is_detected() {
    let mut q = GroupedInt::default();
    q.update_r(1, 1, Int(i64::MAX));
    q.update_r(1, 1, Int(1));
}

#[test]
#[should_panic(expected = "ivm: Int overflow in ⊗")]
fn int_overflow_in_a_view_is_detected() {
    let mut q = GroupedInt::default();
    q.update_r(1, 1, Int(i64::MAX / 2));
    q.update_s(1, 1, Int(3));
}

#[test]
#[should_panic(expected = "ivm: Count overflow")]
fn count_overflow_is_detected() {
    let mut q = NullaryCount::default();
    q.update_t(1, Count(u64::MAX));
    q.update_r(1, 1, Count(2));
    q.update_s(1, 1, Count(1));
}
