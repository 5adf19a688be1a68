//! What a SQL view's row is made of, without code: each select item's
//! value as read off a group's key and payload, typed. The lowering
//! builds these (and reports what does not type); `emit::sql` renders
//! them as Rust.

use super::expr::Arith;
use super::types::{SqlType, Value};

/// A select item's value and its SQL type.
#[derive(Debug, Clone)]
pub struct Typed {
    /// How the value is read.
    pub value: RowValue,
    /// Its type.
    pub ty: SqlType,
}

/// How a select item's value is read off a group's key and payload.
#[derive(Debug, Clone)]
pub enum RowValue {
    /// Item `index` of the group key.
    Key(usize),
    /// A constant.
    Const(Value),
    /// `COUNT(*)`: the row count, the payload's first component.
    Count,
    /// `SUM(e)`: the signed sum of terms, in the value's type.
    Sum(Vec<(bool, Term)>),
    /// `AVG(e)`: the sum (in `sum`) over the row count.
    Avg {
        /// The type the sum is taken in.
        sum: SqlType,
        /// The sum's signed terms.
        terms: Vec<(bool, Term)>,
    },
    /// `MIN(e)` or `MAX(e)`: a payload component that keeps the order of
    /// the value's type encoded as an `i64`.
    Best(usize),
    /// `-e`, in the value's type (integers widened to `BIGINT`).
    Neg(Box<Typed>),
    /// `a + b`, `a - b`, `a * b`, both brought to the value's type.
    Arith(Arith, Box<Typed>, Box<Typed>),
    /// `a / b`: `None` where `b` is zero; both brought to `common`.
    Quotient {
        /// The operands' common type.
        common: SqlType,
        /// The dividend and the divisor.
        operands: Box<(Typed, Typed)>,
    },
}

/// A term of a sum.
#[derive(Debug, Clone)]
pub enum Term {
    /// A component of the payload.
    Component(usize),
    /// A constant, summed once per row: the row count times it (a
    /// constant reads no column, so no FROM item's lift could carry it).
    PerRow(Value),
}

/// When a field is SQL's NULL (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
    /// Never.
    Never,
    /// Where the divisor of its last division is zero.
    ZeroDivisor,
    /// While a view without GROUP BY has no rows (`SUM`, `AVG`, `MIN`
    /// and `MAX` of nothing).
    NoRows,
    /// Both.
    NoRowsOrZeroDivisor,
}

impl Nulls {
    /// Whether the field is an `Option`.
    pub fn nullable(self) -> bool {
        self != Nulls::Never
    }
}
