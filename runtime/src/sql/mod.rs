//! The column types and helpers of code generated from SQL
//! (`docs/design.md#sql`), under the default `sql` feature.
//!
//! A `CREATE TABLE` column becomes one Rust type: `BOOLEAN` is `bool`,
//! `SMALLINT`, `INT` and `BIGINT` are `i16`, `i32` and `i64`, `TEXT` and
//! the character types are `String`, and the three types that need more
//! than the standard library offers are here:
//!
//! - [`Decimal`] for `DECIMAL(p, s)` and `NUMERIC`: exact fixed point, with
//!   PostgreSQL's scale rules, and a payload semiring like
//!   [`Int`](crate::semiring::Int), so sums of money never drift however
//!   many inserts and deletes they go through;
//! - [`Fixed`], the payload of a `SUM` over decimals of a declared scale:
//!   the same exact values at a scale the compiler fixes, so that adding
//!   a row's term is an integer addition (the [`fixed`] module);
//! - [`Double`] for `DOUBLE`, `FLOAT` and `REAL`: an `f64` with a total
//!   order, so it can be a key (`Eq + Hash + Ord`);
//! - [`Date`] for `DATE`: a day of the proleptic Gregorian calendar, with
//!   the month and year arithmetic of `DATE + INTERVAL`.
//!
//! [`like`] evaluates `LIKE` conditions, [`and`] and [`or`] SQL's
//! three-valued logic over nullable columns, and [`FromSqlText`] reads one field
//! of `insert_text`/`delete_text` by its column type. [`TextView`] and
//! [`TextRetract`] are the text interface of every generated view, for
//! code written once over any of them.
//!
//! ```
//! use ivm::sql::{Date, Decimal, FromSqlText, like};
//!
//! let price: Decimal = "17.25".parse().unwrap();
//! let discount = Decimal::new(5, 2); // 0.05
//! assert_eq!((price * (Decimal::from(1) - discount)).to_string(), "16.3875");
//!
//! let shipped = Date::from_sql_text("1994-01-31").unwrap();
//! assert_eq!(shipped.add_months(1), Date::from_ymd(1994, 2, 28));
//!
//! assert!(like("forest green", "%green"));
//! ```

use std::fmt;

mod date;
mod decimal;
mod double;
mod extreme;
pub mod fixed;
mod null;
#[doc(hidden)]
pub mod order;
#[doc(hidden)]
pub mod rows;
mod text;
mod view;

pub use date::Date;
pub use decimal::Decimal;
pub use double::Double;
pub use extreme::{greatest, greatest_of, greatest_or, least, least_of, least_or};
pub use fixed::Fixed;
pub use null::{and, or};
pub use order::{Order, OrderKey};
pub use text::{FromSqlText, like, read_field, substring};
pub use view::{TextRetract, TextView};

/// Why a text could not be read as a [`Decimal`], a [`Double`] or a
/// [`Date`]: a short reason in lower case, such as `not a date
/// (yyyy-mm-dd)`, fit to follow a colon in a longer message.
///
/// ```
/// use ivm::sql::Decimal;
///
/// let err = "1.2.3".parse::<Decimal>().unwrap_err();
/// assert_eq!(err.reason(), "not a decimal number (such as -17.25)");
/// assert_eq!(String::from(err), "not a decimal number (such as -17.25)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    reason: &'static str,
}

impl ParseError {
    pub(crate) const fn new(reason: &'static str) -> ParseError {
        ParseError { reason }
    }

    /// What is wrong with the text.
    pub fn reason(&self) -> &'static str {
        self.reason
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl std::error::Error for ParseError {}

impl From<ParseError> for String {
    /// The reason, as [`FromSqlText`] reports it.
    fn from(err: ParseError) -> String {
        err.reason.to_owned()
    }
}
