//! The README's `changes()` example, as written there, on `OpenStock`
//! (`queries/retail.ivm`).

use ivm::semiring::Int;
use ivm_generated_examples::retail::OpenStock;

#[test]
fn opening_a_store_changes_its_rows() {
    let mut q = OpenStock::new();
    q.insert_stock(1, 10);
    q.insert_stock(1, 11);
    // The first call reports the whole result: empty, as no store is open.
    assert_eq!(q.changes().count(), 0);
    q.insert_open(1);
    let mut changed: Vec<_> = q.changes().collect();
    changed.sort_by_key(|(key, _, _)| *key);
    assert_eq!(
        changed,
        [((1, 10), Int(0), Int(1)), ((1, 11), Int(0), Int(1)),]
    );
    // Nothing since.
    assert_eq!(q.changes().count(), 0);
    // A change and its undoing within one epoch are not reported.
    q.update_open(1, Int(2));
    q.update_open(1, Int(-2));
    q.insert_stock(1, 12);
    assert_eq!(q.changes().collect::<Vec<_>>(), [((1, 12), Int(0), Int(1))]);
    // A store that closes: its rows go.
    q.delete_open(1).unwrap();
    let mut gone: Vec<_> = q.changes().collect();
    gone.sort_by_key(|(key, _, _)| *key);
    assert_eq!(
        gone,
        [
            ((1, 10), Int(1), Int(0)),
            ((1, 11), Int(1), Int(0)),
            ((1, 12), Int(1), Int(0)),
        ]
    );
}
