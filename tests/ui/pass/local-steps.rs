// Constants, `_`, a repeated variable, a condition and a lift, under the
// macro: the factors' expressions resolve where the query is written.
use ivm::semiring::Int;

ivm::ivm_query! {
    query Revenue {
        relation Lineitem(order: u32, quantity: i64, price: i64, discount: i64, status: String);
        relation Orders(order: u32, customer: u32, day: u32);
        Q(o) = Lineitem(o, q, p, d, "F") * Orders(o, c, _) * { q < 24 } * { Int(p * d) };
    }
}

ivm::ivm_query! {
    query Loops {
        relation E(src: u32, dst: u32);
        Q() = E(x, x);
    }
}

fn main() {
    let mut q = Revenue::new();
    q.insert_orders(1, 7, 3);
    q.insert_lineitem(1, 5, 100, 2, "F".to_string());
    q.insert_lineitem(1, 30, 100, 2, "F".to_string());
    q.insert_lineitem(1, 5, 100, 2, "O".to_string());
    assert_eq!(q.get(&(1,)), Int(200));
    q.delete_lineitem(1, 5, 100, 2, "F".to_string()).unwrap();
    assert!(q.is_empty());

    let mut l = Loops::new();
    l.insert_e(1, 1);
    l.insert_e(1, 2);
    assert_eq!(l.get(&()), Int(1));
}
