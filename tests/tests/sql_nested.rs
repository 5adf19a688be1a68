//! The nested SQL suite (`queries/sql_nested.sql`,
//! `docs/design.md#nested-sql`) against SQLite, as `tests/sql.rs` checks
//! the main suite: random inserts and deletes through the text interface,
//! and after every batch each view's rows against SQLite's. Built only
//! with the `nested-suite` feature, which `.ci/run` turns on (`cargo test
//! -p ivm-tests --features nested-suite --test sql_nested`): its build
//! would make the README's test command too slow.

#![allow(deprecated, reason = "views opted in to intractable strategies warn")]

mod sql_support;

use ivm::sql::TextRetract;
use proptest::prelude::*;
use sql_support::{lists_every_view, run, steps};

mod suite {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql_nested.rs"));
}

const SUITE: &str = include_str!("../queries/sql_nested.sql");

/// Every view of the suite, fresh.
fn views() -> Vec<Box<dyn TextRetract>> {
    use suite::*;
    vec![
        Box::new(ScalarUncorrelated::new()),
        Box::new(ScalarEqualCorrelated::new()),
        Box::new(ScalarCount::new()),
        Box::new(HavingKeyless::new()),
        Box::new(HavingSubquery::new()),
        Box::new(DerivedCount::new()),
        Box::new(DerivedSumOfSum::new()),
        Box::new(DerivedJoin::new()),
        Box::new(DerivedNested::new()),
        Box::new(BaseSums::new()),
        Box::new(TopGroups::new()),
        Box::new(InHaving::new()),
        Box::new(InAggregate::new()),
        Box::new(InNested::new()),
        Box::new(ConstantScalar::new()),
        Box::new(ConstantExists::new()),
        Box::new(ConstantFalse::new()),
        Box::new(ConstantDerived::new()),
        Box::new(ScalarInSum::new()),
        Box::new(ScalarInAggregates::new()),
        Box::new(ScalarInGroups::new()),
        Box::new(ScalarUnderOr::new()),
        Box::new(ScalarIsNull::new()),
        Box::new(ScalarSelected::new()),
        Box::new(KeylessDerived::new()),
        Box::new(NullableDerived::new()),
        Box::new(QuotientDerived::new()),
        Box::new(ScalarCorrelatedInGroups::new()),
        Box::new(ScalarCorrelatedCount::new()),
        Box::new(ScalarCorrelatedSelected::new()),
        Box::new(StarBesideScalar::new()),
        Box::new(QualifiedStarBesideScalar::new()),
        Box::new(OrSharedJoin::new()),
        Box::new(OrAbsorbed::new()),
        Box::new(OrSharedSubquery::new()),
        Box::new(ExistsOtherValue::new()),
        Box::new(NotExistsOtherValue::new()),
        Box::new(ExistsBelow::new()),
        Box::new(NotExistsAboveUncorrelated::new()),
        Box::new(ExistsBothWays::new()),
        Box::new(NotExistsOwnGroup::new()),
        Box::new(NotExistsOwnGroupNullable::new()),
        Box::new(ExistsOtherNullableOuter::new()),
        Box::new(ExistsOtherNullableInner::new()),
        Box::new(NotExistsTwoKeys::new()),
        Box::new(NotInTwoKeys::new()),
        Box::new(NotExistsOtherUnderJoin::new()),
        Box::new(StarExistsBelow::new()),
        Box::new(StarAboveAny::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_nested_view_agrees_with_sqlite(steps in steps()) {
        run(SUITE, views, &steps, 7)?;
    }
}

/// Every view of the file is in `views()`: none goes unchecked.
#[test]
fn the_suite_lists_every_view() {
    lists_every_view(SUITE, views);
}
