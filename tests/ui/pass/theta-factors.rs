// Theta factors (over variables of several atoms) under the strategies that
// apply them to each derivation.
use ivm::semiring::Int;

ivm::ivm_query! {
    /// Pairs of hops a -> b -> c that go forward (`a < c`), per start.
    #[allow(intractable)]
    pub query Forward {
        relation E(src: u32, dst: u32);
        Q(a) = E(a, b) * E(b, c) * { a < c };
    }

    /// The same, evaluated when read, with a lift across the atoms.
    #[strategy(recompute)]
    pub query Span {
        relation E(src: u32, dst: u32);
        Q(a) = E(a, b) * E(b, c) * { Int(i64::from(c) - i64::from(a)) };
    }
}

fn main() {
    let mut forward = Forward::new();
    let mut span = Span::new();
    for (s, d) in [(1, 2), (2, 3), (2, 0), (3, 1)] {
        forward.insert_e(s, d);
        span.insert_e(s, d);
    }
    // 1 -> 2 -> 3 goes forward; 1 -> 2 -> 0, 2 -> 3 -> 1 and 3 -> 1 -> 2 do not.
    assert_eq!(forward.get(&(1,)), Int(1));
    assert_eq!(forward.len(), 1);
    // Spans: 1->2->3: 2, 1->2->0: -1, 2->3->1: -1, 3->1->2: -1.
    assert_eq!(span.get(&(1,)), Int(1));
    assert_eq!(span.get(&(2,)), Int(-1));
    forward.delete_e(2, 3).unwrap();
    assert!(forward.is_empty());
}
