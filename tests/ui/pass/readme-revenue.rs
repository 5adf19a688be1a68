// The README's first example, as written there.
use ivm::semiring::Int;

ivm::ivm_query! {
    /// Revenue per store of the sales at full price.
    pub query Revenue {
        relation Sales(store: u32, item: u64, units: i64, promo: bool);
        relation Prices(store: u32, item: u64, cents: i64);
        Q(store) = Sales(store, item, n, false) * { Int(n) } * Prices(store, item, p) * { Int(p) };
    }
}

fn main() -> Result<(), ivm::Error> {
    let mut q = Revenue::new();
    q.insert_sales(1, 7, 3, false); // 3 units of item 7 sold in store 1
    q.insert_sales(1, 7, 5, true); // a promotion: does not count
    q.insert_prices(1, 7, 250); // at 2.50
    assert_eq!(q.get(&(1,)), Int(750));
    q.delete_sales(1, 7, 3, false)?; // the sale is taken back
    assert!(q.is_empty());
    Ok(())
}
