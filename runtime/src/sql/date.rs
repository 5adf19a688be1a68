//! [`Date`]: a day of the proleptic Gregorian calendar, for `DATE`
//! columns.
//!
//! The conversions between day numbers and (year, month, day) are Howard
//! Hinnant's `days_from_civil` and `civil_from_days`
//! (<https://howardhinnant.github.io/date_algorithms.html>): exact integer
//! arithmetic over 400-year eras, checked against the `time` crate day by
//! day in the tests.

use std::fmt;
use std::str::FromStr;

use super::ParseError;

/// A calendar date: a day of the proleptic Gregorian calendar (the
/// Gregorian rules extended to all years, as PostgreSQL and ISO 8601 do),
/// stored as the number of days since 1970-01-01 in an `i32`, so about 5.8
/// million years either way.
///
/// Ordered by time; `Display` and `FromStr` use `yyyy-mm-dd`. Month and
/// year arithmetic follow PostgreSQL's `date + interval`: the day is kept
/// when the target month has it, and otherwise clamped to that month's
/// last day.
///
/// ```
/// use ivm::sql::Date;
///
/// let d: Date = "1994-01-31".parse().unwrap();
/// assert_eq!(d.add_months(1).unwrap().to_string(), "1994-02-28");
/// assert_eq!(d.add_days(1).unwrap().to_string(), "1994-02-01");
/// assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
/// assert!(d < Date::from_ymd(1994, 2, 1).unwrap());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Date {
    days: i32,
}

/// Days from 0000-03-01 to 1970-01-01.
const EPOCH_SHIFT: i64 = 719_468;
/// Days in 400 Gregorian years.
const DAYS_PER_ERA: i64 = 146_097;

const fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Days in `month` (1 to 12) of `year`.
const fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a valid (year, month, day).
const fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    // Years start in March, so that the leap day ends them.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400; // [0, 399]
    let month_from_march = (if month > 2 { month - 3 } else { month + 9 }) as i64; // [0, 11]
    let day_of_year = (153 * month_from_march + 2) / 5 + day as i64 - 1; // [0, 365]
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year; // [0, 146096]
    era * DAYS_PER_ERA + day_of_era - EPOCH_SHIFT
}

/// (year, month, day) of a number of days since 1970-01-01.
const fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + EPOCH_SHIFT;
    let era = z.div_euclid(DAYS_PER_ERA);
    let day_of_era = z - era * DAYS_PER_ERA; // [0, 146096]
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146_096) / 365; // [0, 399]
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100); // [0, 365]
    let month_from_march = (5 * day_of_year + 2) / 153; // [0, 11]
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32; // [1, 31]
    let month = (if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    }) as u32; // [1, 12]
    let year = year_of_era + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

impl Date {
    /// The date `days` days after 1970-01-01 (before it when negative):
    /// `Date::from_days(0)` is 1970-01-01, `Date::from_days(8766)` is
    /// 1994-01-01. A `const fn`, so constants of generated code are written
    /// this way.
    ///
    /// ```
    /// use ivm::sql::Date;
    ///
    /// const START: Date = Date::from_days(8766);
    /// assert_eq!(START, Date::from_ymd(1994, 1, 1).unwrap());
    /// assert_eq!(Date::from_days(-1).to_string(), "1969-12-31");
    /// ```
    pub const fn from_days(days: i32) -> Date {
        Date { days }
    }

    /// The number of days since 1970-01-01 (negative before it).
    pub const fn days(&self) -> i32 {
        self.days
    }

    /// The date `year`-`month`-`day`, or `None` when there is no such day
    /// (month outside 1 to 12, day outside the month: 1994-02-29 does not
    /// exist, 1996-02-29 does) or it is too far from 1970 for the `i32`
    /// day count.
    ///
    /// ```
    /// use ivm::sql::Date;
    ///
    /// assert_eq!(Date::from_ymd(1970, 1, 2), Some(Date::from_days(1)));
    /// assert_eq!(Date::from_ymd(1994, 2, 29), None);
    /// assert!(Date::from_ymd(2000, 2, 29).is_some());
    /// ```
    pub const fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        let year = year as i64;
        if month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        let days = days_from_civil(year, month, day);
        if days < i32::MIN as i64 || days > i32::MAX as i64 {
            return None;
        }
        Some(Date { days: days as i32 })
    }

    /// The year, month and day at once.
    const fn ymd(&self) -> (i32, u32, u32) {
        let (year, month, day) = civil_from_days(self.days as i64);
        // |year| stays below 5.9 million for any i32 day count.
        (year as i32, month, day)
    }

    /// The year (astronomical numbering: the year before 1 is 0, as ISO
    /// 8601 counts; PostgreSQL calls it 1 BC).
    pub const fn year(&self) -> i32 {
        self.ymd().0
    }

    /// The month, 1 to 12.
    pub const fn month(&self) -> u32 {
        self.ymd().1
    }

    /// The day of the month, 1 to 31.
    pub const fn day(&self) -> u32 {
        self.ymd().2
    }

    /// The date `days` days later (earlier when negative), or `None` when
    /// it leaves the range of `Date`.
    pub const fn add_days(&self, days: i64) -> Option<Date> {
        let Some(sum) = (self.days as i64).checked_add(days) else {
            return None;
        };
        if sum < i32::MIN as i64 || sum > i32::MAX as i64 {
            return None;
        }
        Some(Date { days: sum as i32 })
    }

    /// The date `months` months later (earlier when negative), as
    /// PostgreSQL's `date + interval 'n months'`: the same day of the
    /// target month, or its last day when it is shorter. `None` when the
    /// result leaves the range of `Date`.
    ///
    /// ```
    /// use ivm::sql::Date;
    ///
    /// let d = Date::from_ymd(1994, 1, 31).unwrap();
    /// assert_eq!(d.add_months(1), Date::from_ymd(1994, 2, 28));
    /// assert_eq!(d.add_months(-2), Date::from_ymd(1993, 11, 30));
    /// assert_eq!(d.add_months(3), Date::from_ymd(1994, 4, 30));
    /// ```
    pub const fn add_months(&self, months: i32) -> Option<Date> {
        self.shift_months(months as i64)
    }

    /// The date `years` years later (earlier when negative), as
    /// PostgreSQL's `date + interval 'n years'`: February 29 becomes
    /// February 28 in a year that is not a leap year. `None` when the result
    /// leaves the range of `Date`.
    ///
    /// ```
    /// use ivm::sql::Date;
    ///
    /// let leap = Date::from_ymd(2020, 2, 29).unwrap();
    /// assert_eq!(leap.add_years(1), Date::from_ymd(2021, 2, 28));
    /// assert_eq!(leap.add_years(4), Date::from_ymd(2024, 2, 29));
    /// ```
    pub const fn add_years(&self, years: i32) -> Option<Date> {
        self.shift_months(years as i64 * 12)
    }

    const fn shift_months(&self, months: i64) -> Option<Date> {
        let (year, month, day) = civil_from_days(self.days as i64);
        // |year × 12| < 2⁴⁰ and |months| ≤ 12 × 2³¹: no overflow in i64.
        let index = year * 12 + (month as i64 - 1) + months;
        let (year, month) = (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32);
        let last = days_in_month(year, month);
        let day = if day > last { last } else { day };
        let days = days_from_civil(year, month, day);
        if days < i32::MIN as i64 || days > i32::MAX as i64 {
            return None;
        }
        Some(Date { days: days as i32 })
    }
}

impl fmt::Display for Date {
    /// `yyyy-mm-dd`, as `1994-01-31`. Years outside 0 to 9999 get more
    /// digits and, before year 0, a minus sign (`-0044-03-15`, `12345-01-01`),
    /// as ISO 8601's expanded years; [`FromStr`] reads back the four-digit
    /// ones only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = self.ymd();
        if year < 0 {
            write!(f, "{year:05}-{month:02}-{day:02}")
        } else {
            write!(f, "{year:04}-{month:02}-{day:02}")
        }
    }
}

impl fmt::Debug for Date {
    /// `Date(1994-01-31)`: the calendar date, not the day count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Date({self})")
    }
}

impl FromStr for Date {
    type Err = ParseError;

    /// Reads exactly `yyyy-mm-dd`: a four-digit year (0000 to 9999), a
    /// two-digit month and a two-digit day, of a day that exists. Rejects
    /// `1994-2-3`, `1994-02-30`, signs, spaces and trailing text (a time of
    /// day included).
    ///
    /// ```
    /// use ivm::sql::Date;
    ///
    /// assert_eq!("1996-02-29".parse::<Date>().unwrap().day(), 29);
    /// assert!("1994-2-3".parse::<Date>().is_err());
    /// assert!("1994-02-30".parse::<Date>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Date, ParseError> {
        let bytes = text.as_bytes();
        let well_formed = bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && bytes
                .iter()
                .enumerate()
                .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit());
        if !well_formed {
            return Err(ParseError::new("not a date (yyyy-mm-dd)"));
        }
        let number = |range: std::ops::Range<usize>| {
            bytes[range]
                .iter()
                .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'))
        };
        let year = number(0..4) as i32;
        Date::from_ymd(year, number(5..7), number(8..10)).ok_or(ParseError::new(
            "not a date: no such day in the calendar (yyyy-mm-dd)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn reference(date: Date) -> time::Date {
        let julian_day_of_epoch = 2_440_588;
        time::Date::from_julian_day(julian_day_of_epoch + date.days()).unwrap()
    }

    #[test]
    fn agrees_with_time_every_day_from_1900_to_2100() {
        let first = Date::from_ymd(1900, 1, 1).unwrap();
        let last = Date::from_ymd(2100, 12, 31).unwrap();
        assert_eq!(first.days(), -25567);
        assert_eq!(last.days(), 47846);
        let mut expected = time::Date::from_calendar_date(1900, time::Month::January, 1).unwrap();
        for days in first.days()..=last.days() {
            let date = Date::from_days(days);
            let (year, month, day) = (date.year(), date.month(), date.day());
            assert_eq!(
                (year, month, u8::try_from(day).unwrap()),
                (
                    expected.year(),
                    u8::from(expected.month()).into(),
                    expected.day()
                ),
                "day {days}"
            );
            assert_eq!(Date::from_ymd(year, month, day), Some(date));
            assert_eq!(reference(date), expected);
            let text = date.to_string();
            assert_eq!(text.parse::<Date>(), Ok(date));
            assert_eq!(
                text,
                format!(
                    "{:04}-{:02}-{:02}",
                    expected.year(),
                    u8::from(expected.month()),
                    expected.day()
                )
            );
            // The next day by calendar, not by count.
            assert_eq!(date.add_days(1), Some(Date::from_days(days + 1)));
            expected = expected.next_day().unwrap();
        }
    }

    #[test]
    fn rejects_days_that_do_not_exist() {
        for (year, month, day) in [
            (1994, 2, 29),
            (1900, 2, 29),
            (1994, 2, 30),
            (1994, 4, 31),
            (1994, 0, 1),
            (1994, 13, 1),
            (1994, 1, 0),
            (1994, 1, 32),
        ] {
            assert_eq!(
                Date::from_ymd(year, month, day),
                None,
                "{year}-{month}-{day}"
            );
        }
        assert!(Date::from_ymd(2000, 2, 29).is_some());
        assert!(Date::from_ymd(1996, 2, 29).is_some());
    }

    #[test]
    fn parses_exactly_yyyy_mm_dd() {
        assert_eq!("1994-01-01".parse(), Ok(Date::from_days(8766)));
        assert_eq!("0000-01-01".parse::<Date>().unwrap().year(), 0);
        assert_eq!(
            "9999-12-31".parse::<Date>().unwrap().to_string(),
            "9999-12-31"
        );
        for bad in [
            "",
            "1994-2-3",
            "1994-02-3",
            "94-02-03",
            "1994/02/03",
            "1994-02-03 ",
            " 1994-02-03",
            "1994-02-03T00:00",
            "19940203",
            "+994-02-03",
            "-994-02-03",
            "1994-0a-03",
            "1994-02-0٣",
            "1994-02--3",
        ] {
            assert_eq!(
                bad.parse::<Date>().unwrap_err().reason(),
                "not a date (yyyy-mm-dd)",
                "{bad:?}"
            );
        }
        for bad in [
            "1994-02-30",
            "1994-02-29",
            "1994-00-10",
            "1994-13-01",
            "1994-01-00",
            "1994-01-32",
        ] {
            assert_eq!(
                bad.parse::<Date>().unwrap_err().reason(),
                "not a date: no such day in the calendar (yyyy-mm-dd)",
                "{bad:?}"
            );
        }
    }

    #[test]
    fn months_and_years_clamp_the_day() {
        let ymd = |y, m, d| Date::from_ymd(y, m, d).unwrap();
        assert_eq!(ymd(1994, 1, 31).add_months(1), Some(ymd(1994, 2, 28)));
        assert_eq!(ymd(1996, 1, 31).add_months(1), Some(ymd(1996, 2, 29)));
        assert_eq!(ymd(1994, 3, 31).add_months(-1), Some(ymd(1994, 2, 28)));
        assert_eq!(ymd(1994, 12, 15).add_months(1), Some(ymd(1995, 1, 15)));
        assert_eq!(ymd(1994, 1, 15).add_months(-1), Some(ymd(1993, 12, 15)));
        assert_eq!(ymd(1994, 1, 15).add_months(-13), Some(ymd(1992, 12, 15)));
        assert_eq!(ymd(1994, 1, 15).add_months(0), Some(ymd(1994, 1, 15)));
        assert_eq!(ymd(1994, 5, 31).add_months(120), Some(ymd(2004, 5, 31)));
        assert_eq!(ymd(2020, 2, 29).add_years(1), Some(ymd(2021, 2, 28)));
        assert_eq!(ymd(2020, 2, 29).add_years(-4), Some(ymd(2016, 2, 29)));
        assert_eq!(ymd(2020, 2, 29).add_years(-20), Some(ymd(2000, 2, 29)));
        assert_eq!(ymd(2020, 2, 29).add_years(80), Some(ymd(2100, 2, 28)));
        assert_eq!(ymd(1994, 1, 1).add_years(1), Some(ymd(1995, 1, 1)));
        assert_eq!(ymd(1994, 1, 1).add_days(-1), Some(ymd(1993, 12, 31)));
        assert_eq!(ymd(1994, 1, 1).add_days(365), Some(ymd(1995, 1, 1)));
    }

    #[test]
    fn the_edges_of_the_range() {
        let (min, max) = (Date::from_days(i32::MIN), Date::from_days(i32::MAX));
        assert_eq!(min.add_days(-1), None);
        assert_eq!(max.add_days(1), None);
        assert_eq!(max.add_days(i64::MAX), None);
        assert_eq!(min.add_days(i64::MIN), None);
        assert_eq!(
            max.add_days(-(i64::from(i32::MAX) - i64::from(i32::MIN))),
            Some(min)
        );
        assert_eq!(max.add_years(1), None);
        assert_eq!(min.add_months(-1), None);
        assert_eq!(max.add_years(i32::MIN), None);
        assert_eq!(min.add_years(i32::MAX), None);
        assert_eq!(max.add_months(i32::MIN), None);
        assert_eq!(Date::from_ymd(i32::MAX, 1, 1), None);
        assert_eq!(Date::from_ymd(i32::MIN, 1, 1), None);
        for edge in [min, max] {
            assert_eq!(
                Date::from_ymd(edge.year(), edge.month(), edge.day()),
                Some(edge)
            );
        }
        assert_eq!(
            Date::from_ymd(-44, 3, 15).unwrap().to_string(),
            "-0044-03-15"
        );
        assert_eq!(
            Date::from_ymd(12345, 1, 1).unwrap().to_string(),
            "12345-01-01"
        );
        assert_eq!(Date::from_ymd(5, 1, 1).unwrap().to_string(), "0005-01-01");
        assert_eq!(format!("{:?}", Date::from_days(0)), "Date(1970-01-01)");
    }

    proptest! {
        #[test]
        fn every_day_count_round_trips(days in any::<i32>()) {
            let date = Date::from_days(days);
            prop_assert_eq!(Date::from_ymd(date.year(), date.month(), date.day()), Some(date));
            prop_assert!(date.day() <= days_in_month(i64::from(date.year()), date.month()));
        }

        #[test]
        fn agrees_with_time_within_its_range(days in -3_000_000i32..2_900_000) {
            let date = Date::from_days(days);
            let expected = reference(date);
            prop_assert_eq!(
                (date.year(), date.month(), date.day()),
                (expected.year(), u32::from(u8::from(expected.month())), u32::from(expected.day()))
            );
        }

        #[test]
        fn add_months_agrees_with_clamping_by_hand(days in -800_000i32..800_000, months in -30_000i32..30_000) {
            let date = Date::from_days(days);
            let shifted = date.add_months(months).unwrap();
            let total = i64::from(date.year()) * 12 + i64::from(date.month()) - 1 + i64::from(months);
            prop_assert_eq!(i64::from(shifted.year()), total.div_euclid(12));
            prop_assert_eq!(i64::from(shifted.month()), total.rem_euclid(12) + 1);
            let last = days_in_month(i64::from(shifted.year()), shifted.month());
            prop_assert_eq!(shifted.day(), date.day().min(last));
            prop_assert_eq!(date.add_years(months / 12), date.add_months(months / 12 * 12));
        }
    }
}
