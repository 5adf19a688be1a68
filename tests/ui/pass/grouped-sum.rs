use ivm::semiring::Int;

ivm::ivm_query! {
    /// Revenue per store.
    pub query Revenue {
        relation Sales(store: u32, item: u64);
        relation Prices(store: u32, item: u64);
        Q(store) = Sales(store, item) * Prices(store, item);
    }
}

fn main() {
    let mut q = Revenue::new();
    q.update_sales(1, 7, Int(3));
    q.update_prices(1, 7, Int(100));
    assert_eq!(q.get(&(1,)), Int(300));
    assert!(q.delete_prices(1, 8).is_err());
    assert_eq!(q.iter().collect::<Vec<_>>(), vec![((1,), Int(300))]);
}
