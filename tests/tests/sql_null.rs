//! The NULL suite (`queries/sql_null.sql`, `docs/design.md#null`) against
//! SQLite, as `tests/sql.rs` checks the main suite: random inserts and
//! deletes through the text interface (a quarter of the nullable fields
//! NULL), and after every batch each view's rows against SQLite's. Built
//! only with the `null-suite` feature, which `.ci/run` turns on (`cargo
//! test -p ivm-tests --features null-suite --test sql_null`): its build
//! would make the README's test command too slow.

#![allow(deprecated, reason = "views opted in to intractable strategies warn")]

mod sql_support;

use ivm::sql::TextRetract;
use proptest::prelude::*;
use sql_support::{lists_every_view, run, steps};

mod suite {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql_null.rs"));
}

const SUITE: &str = include_str!("../queries/sql_null.sql");

/// Every view of the suite, fresh.
fn views() -> Vec<Box<dyn TextRetract>> {
    use suite::*;
    vec![
        Box::new(NullBag::new()),
        Box::new(NullGroups::new()),
        Box::new(NullWhole::new()),
        Box::new(NullWhere::new()),
        Box::new(NullNot::new()),
        Box::new(NullLogic::new()),
        Box::new(NullIs::new()),
        Box::new(NullCoalesce::new()),
        Box::new(NullJoin::new()),
        Box::new(NullSelfJoin::new()),
        Box::new(NullTextJoin::new()),
        Box::new(NullConstant::new()),
        Box::new(NullCase::new()),
        Box::new(NullCrossSum::new()),
        Box::new(NullKeyExpr::new()),
        Box::new(NullArith::new()),
        Box::new(NullExists::new()),
        Box::new(NullInList::new()),
        Box::new(NullBagExpressions::new()),
        Box::new(LeftCount::new()),
        Box::new(LeftBag::new()),
        Box::new(LeftFiltered::new()),
        Box::new(LeftNullableSide::new()),
        Box::new(RightJoin::new()),
        Box::new(LeftDerived::new()),
        Box::new(LeftStar::new()),
        Box::new(LeftCountByCompared::new()),
        Box::new(LeftCountKept::new()),
        Box::new(RightCountByCompared::new()),
        Box::new(UnionAllBag::new()),
        Box::new(UnionAllGrouped::new()),
        Box::new(UnionDistinct::new()),
        Box::new(DistinctBag::new()),
        Box::new(DistinctStar::new()),
        Box::new(CountOfUnion::new()),
        Box::new(CountDistinct::new()),
        Box::new(CountDistinctKeyless::new()),
        Box::new(CountDistinctJoin::new()),
        Box::new(CoalesceTimesScalar::new()),
        Box::new(TwoNullableOperands::new()),
        Box::new(GuardedConstantTerm::new()),
        Box::new(LeftQualifiedStar::new()),
        Box::new(DistinctQualifiedStar::new()),
        Box::new(NullNotExistsOther::new()),
        Box::new(NullExistsBelow::new()),
        Box::new(NullNotExistsNullableOuter::new()),
        Box::new(IntersectRows::new()),
        Box::new(ExceptRows::new()),
        Box::new(UnionOfIntersect::new()),
        Box::new(CountOfExcept::new()),
        Box::new(GreatestLeast::new()),
        Box::new(GuardedRatio::new()),
        Box::new(PicksOverNull::new()),
        Box::new(PicksKeyless::new()),
        Box::new(GreatestOfNulls::new()),
        Box::new(NotExistsNullableOuter::new()),
        Box::new(NotExistsNullableText::new()),
        Box::new(NotExistsNullableBoth::new()),
        Box::new(NotExistsNullableJoined::new()),
        Box::new(ExistsAndNotOnNullable::new()),
        Box::new(NotExistsOnNullableJoin::new()),
        Box::new(NotInOnNullableJoin::new()),
        Box::new(AnyCorrelatedTwice::new()),
        Box::new(NotInNullableOuter::new()),
        Box::new(NotAllNullableBoth::new()),
        Box::new(LeftJoinOnPadded::new()),
        Box::new(ThreeJoinsOnPadded::new()),
        Box::new(LeftJoinOnPaddedNullable::new()),
        Box::new(LeftJoinOnNullable::new()),
        Box::new(FullJoinOfThree::new()),
        Box::new(RightJoinAfterJoin::new()),
        Box::new(FullJoinAfterLeft::new()),
        Box::new(JoinAfterLeftJoin::new()),
        Box::new(LeftJoinOnPreservedCondition::new()),
        Box::new(LeftJoinOnNullableCondition::new()),
        Box::new(ItemAfterLeftJoin::new()),
        Box::new(ListmaxSums::new()),
        Box::new(CaseOverNulls::new()),
        Box::new(DatePartMonth::new()),
        Box::new(LosslessCasts::new()),
        Box::new(AnyBelow::new()),
        Box::new(AllAbove::new()),
        Box::new(SomeEqualAllOther::new()),
        Box::new(NotInNullableInner::new()),
        Box::new(AllBelowNullableOuter::new()),
        Box::new(UsingNullable::new()),
        Box::new(NaturalText::new()),
        Box::new(NaturalStar::new()),
        Box::new(LeftUsing::new()),
        Box::new(DistinctBesideOthers::new()),
        Box::new(DistinctSumBesideCount::new()),
        Box::new(TwoLeftJoins::new()),
        Box::new(ThreeLeftJoins::new()),
        Box::new(FullJoin::new()),
        Box::new(FullCounts::new()),
        Box::new(FullGrouped::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_null_view_agrees_with_sqlite(steps in steps()) {
        run(SUITE, views, &steps, 7)?;
    }
}

/// Every view of the file is in `views()`: none goes unchecked.
#[test]
fn the_suite_lists_every_view() {
    lists_every_view(SUITE, views);
}
