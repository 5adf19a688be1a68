//! Views written in SQL against SQLite: every view of `queries/sql.sql` is
//! fed random inserts and deletes (of rows inserted before, of rows never
//! inserted, of rows the view's conditions drop) through its text
//! interface, and after every batch its `text_rows()` must be SQLite's
//! answer to the same SELECT over the same rows: exactly for integers,
//! strings and dates, within a relative 1e-8 for the numbers SQLite keeps
//! as doubles (`DECIMAL` columns have no exact type there, and `AVG` is a
//! double in SQLite and a decimal of 8 fractional digits here).

#![allow(deprecated, reason = "views opted in to intractable strategies warn")]

mod sql_support;

use ivm::sql::TextRetract;
use ivm_fuzz::sqlite::{COLUMNS, Step};
use proptest::prelude::*;
use sql_support::{lists_every_view, run, steps};

mod suite {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql.rs"));
}

/// Random views of `ivm_fuzz::sql` (a new draw with `IVM_SQL_SEED`).
mod random {
    #![allow(missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/sql_random.rs"));
}

const SUITE: &str = include_str!("../queries/sql.sql");

/// Every view of the suite, fresh.
fn views() -> Vec<Box<dyn TextRetract>> {
    use suite::*;
    vec![
        Box::new(CountByA::new()),
        Box::new(SumsByA::new()),
        Box::new(WholeR::new()),
        Box::new(TwoKeys::new()),
        Box::new(Arithmetic::new()),
        Box::new(Bag::new()),
        Box::new(Constants::new()),
        Box::new(Revenue::new()),
        Box::new(Dates::new()),
        Box::new(Months::new()),
        Box::new(Doubles::new()),
        Box::new(PerA::new()),
        Box::new(ByAOfS::new()),
        Box::new(SelfJoin::new()),
        Box::new(Theta::new()),
        Box::new(ThetaMidJoin::new()),
        Box::new(Path::new()),
        Box::new(TextConstant::new()),
        Box::new(Cases::new()),
        Box::new(CaseJoin::new()),
        Box::new(Ratios::new()),
        Box::new(WholeRatio::new()),
        Box::new(ByMonth::new()),
        Box::new(Buckets::new()),
        Box::new(UnselectedKey::new()),
        Box::new(Labels::new()),
        Box::new(BagOfExpressions::new()),
        Box::new(DoubleExtremes::new()),
        Box::new(DecimalExtremes::new()),
        Box::new(Inequality::new()),
        Box::new(InequalitySelf::new()),
        Box::new(SemijoinExists::new()),
        Box::new(SemijoinNotExists::new()),
        Box::new(SemijoinIn::new()),
        Box::new(SemijoinNotIn::new()),
        Box::new(SemijoinBag::new()),
        Box::new(SemijoinReaching::new()),
        Box::new(SemijoinNotReaching::new()),
        Box::new(SemijoinTwo::new()),
        Box::new(KeyTimesSum::new()),
        Box::new(Widths::new()),
        Box::new(TextInBag::new()),
        Box::new(TextByGroup::new()),
        Box::new(ConstantBag::new()),
        Box::new(TextKeyless::new()),
        Box::new(TextCases::new()),
        Box::new(TextKeySubquery::new()),
        Box::new(ConstantSums::new()),
        Box::new(ConstantSumByA::new()),
        Box::new(ConstantRatio::new()),
        Box::new(ConstantTermJoin::new()),
        Box::new(NullaryCount::new()),
        Box::new(NullaryByB::new()),
        Box::new(GatedExists::new()),
        Box::new(GatedNotExists::new()),
        Box::new(GatedIn::new()),
        Box::new(GatedNotIn::new()),
        Box::new(GatedAndCorrelated::new()),
        Box::new(ScalarCorrelated::new()),
        Box::new(HavingSum::new()),
        Box::new(CaseOverAggregates::new()),
        Box::new(CaseKeyless::new()),
        Box::new(BaseSums::new()),
        Box::new(OverView::new()),
        Box::new(TrustedRevenue::new()),
        Box::new(TrustedWhole::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_view_agrees_with_sqlite(steps in steps()) {
        run(SUITE, views, &steps, 7)?;
    }

    #[test]
    fn every_random_view_agrees_with_sqlite(steps in steps()) {
        run(SUITE, random::all, &steps, 7)?;
    }
}

/// Every view of the file is in `views()`: none goes unchecked.
#[test]
fn the_suite_lists_every_view() {
    lists_every_view(SUITE, views);
}

/// A longer stream over skewed data: most rows land in one group.
#[test]
fn a_long_skewed_stream_agrees() {
    let steps: Vec<Step> = (0..3000u32)
        .map(|i| {
            let x = i.wrapping_mul(2_654_435_761);
            let hot = if x % 3 == 0 { 0 } else { (x >> 8) as u16 };
            Step {
                table: (x % COLUMNS.len() as u32) as usize,
                action: ((x >> 4) % 10) as u8,
                values: [hot, (x >> 12) as u16, (x >> 16) as u16, (x >> 20) as u16],
            }
        })
        .collect();
    run(SUITE, views, &steps, 100).unwrap();
}
