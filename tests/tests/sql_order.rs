//! The ORDER BY suite (`queries/sql_order.sql`,
//! `docs/design.md#order-by-and-limit`) against SQLite: random inserts and
//! deletes through the text interface, and after every batch each view's
//! rows against SQLite's in order (SQLite's sorted by the view's order and
//! cut to its window by the harness). Built only with the `order-suite`
//! feature, which `.ci/run` turns on: its build would make the README's
//! test command too slow.

#![allow(deprecated, reason = "views opted in to intractable strategies warn")]

mod sql_support;

use ivm::sql::TextRetract;
use proptest::prelude::*;
use sql_support::{lists_every_view, run, steps};

mod suite {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql_order.rs"));
}

const SUITE: &str = include_str!("../queries/sql_order.sql");

/// Every view of the suite, fresh.
fn views() -> Vec<Box<dyn TextRetract>> {
    use suite::*;
    vec![
        Box::new(SortedGroups::new()),
        Box::new(SortedBag::new()),
        Box::new(TopGroups::new()),
        Box::new(WindowOffset::new()),
        Box::new(BagLimit::new()),
        Box::new(BareLimit::new()),
        Box::new(OffsetOnly::new()),
        Box::new(NullsDefault::new()),
        Box::new(NullsMoved::new()),
        Box::new(ByExpression::new()),
        Box::new(JoinedTop::new()),
        Box::new(NestedTop::new()),
        Box::new(OuterTop::new()),
        Box::new(UnionTop::new()),
        Box::new(DistinctFirst::new()),
        Box::new(KeylessOrdered::new()),
        Box::new(RecomputedTop::new()),
        Box::new(RecomputedBag::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_ordered_view_agrees_with_sqlite(steps in steps()) {
        run(SUITE, views, &steps, 7)?;
    }
}

/// Every view of the file is in `views()`: none goes unchecked.
#[test]
fn the_suite_lists_every_view() {
    lists_every_view(SUITE, views);
}
