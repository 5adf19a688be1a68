//! Example queries compiled by this crate's `build.rs`.
//!
//! Each module includes the code generated from one file of `queries/`;
//! `ivmc compile queries/retail.ivm` prints the same code.
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

/// Append-only logs, maintained under inserts only: CROWN over `Bool`, two
/// layers over `MinPlus`, clusters over `MaxMax`.
pub mod append_only {
    include!(concat!(env!("OUT_DIR"), "/append_only.rs"));
}

/// TPC-H queries 1, 3 and 6 over the benchmark's schema, and [`data`], a
/// generator of its tables.
// `ShippingPriority` is taken on with `#[allow(intractable)]`, which still
// warns (as a deprecated constant) where the code is compiled.
#[allow(deprecated)]
pub mod tpch {
    use ivm::semiring::{Count, Int};

    include!(concat!(env!("OUT_DIR"), "/tpch.rs"));

    pub mod data;
}

/// Queries the dichotomies reject, taken on with `#[allow(intractable)]`:
/// the 3-path count and matrix multiplication, each as a view tree over a
/// general variable order (the compiler's choice) and with first-order
/// deltas (`benches/higher_order.rs` measures them side by side).
// Taken on with `#[allow(intractable)]`, which warns.
#[allow(deprecated)]
pub mod higher_order {
    include!(concat!(env!("OUT_DIR"), "/higher_order.rs"));
}

/// TPC-H queries 1, 3, 5, 6, 10, 12 and 14, and the nested 2, 11, 15,
/// 17, 18, 20 and 22 (each with its nested views inside,
/// `docs/design.md#nested-sql`), written in SQL
/// (`queries/tpch_sql.sql`), over the schema's own types: `TpchQ1`,
/// `TpchQ3`, ..., fed as text with [`tpch::data::text`].
// Views taken on with `intractable = 'allow'` warn.
#[allow(deprecated)]
pub mod tpch_sql {
    include!(concat!(env!("OUT_DIR"), "/tpch_sql.rs"));
}

/// The views of [`tpch_sql`] declared `deletes = 'trusted'`
/// (`docs/design.md#how-a-delete-is-checked`): what the peer benchmark
/// measures checked deletes against. Feature `trusted-tpch`.
#[cfg(feature = "trusted-tpch")]
#[allow(deprecated)]
pub mod tpch_sql_trusted {
    include!(concat!(env!("OUT_DIR"), "/tpch_sql_trusted.rs"));
}
