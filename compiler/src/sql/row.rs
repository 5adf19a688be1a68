//! What a SQL view's row is made of, without code: each select item's
//! value as read off a group's key and payload, typed. The lowering
//! builds these (and reports what does not type); `emit::sql` renders
//! them as Rust.

use super::expr::{Arith, Cmp};
use super::types::{SqlType, Value};

/// A select item's value and its SQL type.
#[derive(Debug, Clone)]
pub struct Typed {
    /// How the value is read.
    pub value: RowValue,
    /// Its type.
    pub ty: SqlType,
    /// Whether it can be SQL's NULL (an `Option` of the type).
    pub nullable: bool,
}

impl Typed {
    /// A value that is never NULL.
    pub fn new(value: RowValue, ty: SqlType) -> Self {
        Typed {
            value,
            ty,
            nullable: false,
        }
    }
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
    /// `SUM(e)`: the signed sum of terms, in the value's type; NULL where
    /// the count in component `present` (if any) is zero: no row, or no
    /// row whose `e` is not NULL.
    Sum {
        /// The sum's signed terms.
        terms: Vec<(bool, Term)>,
        /// The component counting the values summed, where the sum can be
        /// NULL.
        present: Option<usize>,
    },
    /// `AVG(e)`: the sum (in `sum`) over the count in component `count`
    /// (of the rows, or of the rows whose `e` is not NULL); NULL where
    /// that is zero.
    Avg {
        /// The type the sum is taken in.
        sum: SqlType,
        /// The sum's signed terms.
        terms: Vec<(bool, Term)>,
        /// The component counting the values averaged.
        count: usize,
    },
    /// `MIN(e)` or `MAX(e)`: a payload component that keeps the order of
    /// the value's type encoded as an `i64`; NULL where it is the
    /// semiring's zero (no value).
    Best(usize),
    /// A nullable operand known to hold a value, as generated code binds
    /// it (`__n0`) to compute an operator over it.
    Bound(usize),
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
    /// `GREATEST(..)`, `LEAST(..)` or `COALESCE(..)` of values read off
    /// the group (`SUM(x) / LISTMAX(1, SUM(y))`), each brought to the
    /// value's type.
    Pick(Pick, Vec<Typed>),
    /// `CASE WHEN c THEN v .. [ELSE e] END` over aggregates: the value of
    /// the first arm whose condition is true, else `otherwise` (NULL
    /// where there is none); each value brought to the CASE's type.
    Case {
        /// Each `WHEN` condition and its `THEN` value, in order.
        arms: Vec<(RowCond, Typed)>,
        /// The `ELSE` value.
        otherwise: Option<Box<Typed>>,
    },
}

/// A condition of a [`RowValue::Case`], in SQL's three-valued logic: an
/// arm is taken where its condition is true, not where it is NULL.
#[derive(Debug, Clone)]
pub enum RowCond {
    /// `a op b`, both brought to `common`; NULL where either is.
    Cmp {
        /// The comparison.
        op: Cmp,
        /// The type both sides are compared in.
        common: SqlType,
        /// The two sides.
        operands: Box<(Typed, Typed)>,
    },
    /// `v IS NULL`.
    IsNull(Box<Typed>),
    /// `v IS NOT NULL`.
    IsNotNull(Box<Typed>),
    /// `a AND b`.
    And(Box<RowCond>, Box<RowCond>),
    /// `a OR b`.
    Or(Box<RowCond>, Box<RowCond>),
    /// `NOT c`.
    Not(Box<RowCond>),
}

impl RowCond {
    /// Whether the condition can be NULL.
    pub fn nullable(&self) -> bool {
        match self {
            RowCond::Cmp { operands, .. } => operands.0.nullable || operands.1.nullable,
            RowCond::IsNull(_) | RowCond::IsNotNull(_) => false,
            RowCond::And(a, b) | RowCond::Or(a, b) => a.nullable() || b.nullable(),
            RowCond::Not(c) => c.nullable(),
        }
    }
}

/// Which argument of several a [`RowValue::Pick`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The largest that is not NULL (PostgreSQL's rule); NULL if all are.
    Greatest,
    /// The smallest that is not NULL; NULL if all are.
    Least,
    /// The first that is not NULL; NULL if all are.
    Coalesce,
}

impl Pick {
    /// The SQL function's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Pick::Greatest => "GREATEST",
            Pick::Least => "LEAST",
            Pick::Coalesce => "COALESCE",
        }
    }
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
