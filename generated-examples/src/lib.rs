//! Example queries compiled by this crate's `build.rs`.
//!
//! Each module includes the code generated from one file of `queries/`;
//! `ivmc compile queries/retail.ivm` prints the same code. The queries in
//! `queries/planned/` use strategies whose code generation is not
//! implemented yet; `ivmc explain` shows their plans.
//!
//! ```
//! use ivm::semiring::Int;
//! use ivm_generated_examples::retail::RevenueByStore;
//!
//! let mut revenue = RevenueByStore::new();
//! revenue.update_sales(1, 100, Int(3)); // 3 units of item 100 in store 1
//! revenue.update_prices(1, 100, Int(250)); // at 2.50
//! assert_eq!(revenue.get(&(1,)), Int(750));
//! revenue.delete_sales(1, 100).unwrap(); // one unit returned
//! assert_eq!(revenue.get(&(1,)), Int(500));
//! ```

/// Retail dashboards: revenue per store and in total, the cheapest offer
/// per product, regression statistics per region.
pub mod retail {
    include!(concat!(env!("OUT_DIR"), "/retail.rs"));
}

/// Graph analytics with self-joins.
pub mod graph {
    include!(concat!(env!("OUT_DIR"), "/graph.rs"));
}

/// Access control levels.
pub mod security {
    include!(concat!(env!("OUT_DIR"), "/security.rs"));
}
