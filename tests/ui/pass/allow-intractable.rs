//! A query rejected under deletes compiles with `#[allow(intractable)]`,
//! maintained by first-order deltas, and its result is right.

use ivm::semiring::Int;

ivm::ivm_query! {
    #[allow(intractable)]
    pub query MatMul {
        relation A(i: u32, j: u32);
        relation B(j: u32, k: u32);
        Q(i, k) = A(i, j) * B(j, k);
    }
}

fn main() {
    let mut q = MatMul::new();
    q.update_a(0, 0, Int(2));
    q.update_a(0, 1, Int(3));
    q.update_b(0, 5, Int(10));
    q.update_b(1, 5, Int(100));
    assert_eq!(q.get(&(0, 5)), Int(320));
    q.delete_b(1, 5).unwrap(); // B(1, 5) is now 99
    assert_eq!(q.get(&(0, 5)), Int(2 * 10 + 3 * 99));
    q.retract_b(1, 5, Int(99)).unwrap();
    assert_eq!(q.get(&(0, 5)), Int(20));
    assert_eq!(q.len(), 1);
}
