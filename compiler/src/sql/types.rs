//! SQL types and constants: which Rust type holds a column, and the
//! constants the lowering folds at compile time (numbers, strings, dates).

use proc_macro2::TokenStream;
use quote::quote;
use sqlparser::ast::{DataType, ExactNumberInfo};

/// A column's or an expression's SQL type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    /// `BOOLEAN`: `bool`.
    Bool,
    /// `SMALLINT`: `i16` (computed with in `i64`).
    SmallInt,
    /// `INT`, `INTEGER`: `i32` (computed with in `i64`).
    Int,
    /// `BIGINT` and every integer expression: `i64`.
    BigInt,
    /// `DECIMAL(p, s)`, `NUMERIC(p, s)` (the scale when one is declared or
    /// known): `ivm::sql::Decimal`.
    Decimal(Option<u32>),
    /// `DOUBLE`, `FLOAT`, `REAL`: `ivm::sql::Double`.
    Double,
    /// `CHAR(n)`, `VARCHAR(n)`, `TEXT`: `String`.
    Text,
    /// `DATE`: `ivm::sql::Date`.
    Date,
}

impl SqlType {
    /// The type of a declared column, or what is wrong with it.
    pub fn of(data_type: &DataType) -> Result<SqlType, String> {
        Ok(match data_type {
            DataType::Boolean | DataType::Bool => SqlType::Bool,
            DataType::SmallInt(_) | DataType::Int2(_) => SqlType::SmallInt,
            DataType::Int(_) | DataType::Integer(_) | DataType::Int4(_) => SqlType::Int,
            DataType::BigInt(_) | DataType::Int8(_) => SqlType::BigInt,
            DataType::Decimal(info) | DataType::Numeric(info) | DataType::Dec(info) => {
                SqlType::Decimal(match info {
                    ExactNumberInfo::PrecisionAndScale(_, s) => {
                        let s = u32::try_from(*s).map_err(|_| "a negative scale".to_string())?;
                        if s > 18 {
                            return Err(format!(
                                "a scale of {s} digits: at most 18 fractional digits are supported"
                            ));
                        }
                        Some(s)
                    }
                    ExactNumberInfo::Precision(_) => Some(0),
                    ExactNumberInfo::None => None,
                })
            }
            DataType::Double(_)
            | DataType::DoublePrecision
            | DataType::Float(_)
            | DataType::Real
            | DataType::Float8
            | DataType::Float64 => SqlType::Double,
            DataType::Char(_)
            | DataType::Character(_)
            | DataType::Varchar(_)
            | DataType::CharacterVarying(_)
            | DataType::Text
            | DataType::String(_) => SqlType::Text,
            DataType::Date => SqlType::Date,
            other => {
                return Err(format!(
                    "type `{other}` is not supported: use BOOLEAN, SMALLINT, INT, BIGINT, \
                     DECIMAL(p, s), DOUBLE, CHAR(n), VARCHAR(n), TEXT or DATE"
                ));
            }
        })
    }

    /// The Rust type of a column of this type.
    pub fn rust(self) -> TokenStream {
        match self {
            SqlType::Bool => quote! { bool },
            SqlType::SmallInt => quote! { i16 },
            SqlType::Int => quote! { i32 },
            SqlType::BigInt => quote! { i64 },
            SqlType::Decimal(_) => quote! { ::ivm::sql::Decimal },
            SqlType::Double => quote! { ::ivm::sql::Double },
            SqlType::Text => quote! { ::std::string::String },
            SqlType::Date => quote! { ::ivm::sql::Date },
        }
    }

    /// The Rust type of a column of this type, an `Option` of it where
    /// the column is nullable.
    pub fn rust_nullable(self, nullable: bool) -> TokenStream {
        let ty = self.rust();
        if nullable {
            quote! { ::core::option::Option<#ty> }
        } else {
            ty
        }
    }

    /// Integers of every width are computed with as `i64`.
    pub fn is_integer(self) -> bool {
        matches!(self, SqlType::SmallInt | SqlType::Int | SqlType::BigInt)
    }

    /// The scale at which a `SUM` of this type is kept in fixed point (an
    /// `ivm::sql::Fixed`): a `DECIMAL` of a declared scale, up to the 28
    /// digits a decimal holds (docs/design.md#sums-in-fixed-point).
    pub fn fixed_scale(self) -> Option<u32> {
        match self {
            SqlType::Decimal(Some(s)) if s <= 28 => Some(s),
            _ => None,
        }
    }

    /// Integers, decimals and doubles.
    pub fn is_number(self) -> bool {
        self.is_integer() || matches!(self, SqlType::Decimal(_) | SqlType::Double)
    }

    /// The type an expression of this type is computed in (integers widen
    /// to `i64`).
    pub fn computed(self) -> SqlType {
        if self.is_integer() {
            SqlType::BigInt
        } else {
            self
        }
    }

    /// The type both operands of an arithmetic or comparison of `self` and
    /// `other` are brought to, if any: integers widen to decimals, decimals
    /// to doubles.
    pub fn common(self, other: SqlType) -> Option<SqlType> {
        use SqlType::*;
        let (a, b) = (self.computed(), other.computed());
        Some(match (a, b) {
            _ if a == b => a,
            (Decimal(x), Decimal(y)) => Decimal(x.zip(y).map(|(x, y)| x.max(y))),
            (BigInt, Decimal(s)) | (Decimal(s), BigInt) => Decimal(s),
            (Double, t) | (t, Double) if t.is_number() => Double,
            _ => return None,
        })
    }

    /// The SQL name of the type, for messages.
    pub fn name(self) -> &'static str {
        match self {
            SqlType::Bool => "BOOLEAN",
            SqlType::SmallInt => "SMALLINT",
            SqlType::Int => "INT",
            SqlType::BigInt => "BIGINT",
            SqlType::Decimal(_) => "DECIMAL",
            SqlType::Double => "DOUBLE",
            SqlType::Text => "TEXT",
            SqlType::Date => "DATE",
        }
    }
}

/// A constant, folded at compile time.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// An exact decimal: `mantissa / 10^scale`.
    Decimal {
        /// The digits, signed.
        mantissa: i128,
        /// How many of them are fractional.
        scale: u32,
    },
    /// A floating-point number.
    Double(f64),
    /// A string.
    Text(String),
    /// A date, as days since 1970-01-01.
    Date(i32),
    /// `TRUE` or `FALSE`.
    Bool(bool),
}

impl Value {
    /// The constant's type.
    pub fn ty(&self) -> SqlType {
        match self {
            Value::Int(_) => SqlType::BigInt,
            Value::Decimal { scale, .. } => SqlType::Decimal(Some(*scale)),
            Value::Double(_) => SqlType::Double,
            Value::Text(_) => SqlType::Text,
            Value::Date(_) => SqlType::Date,
            Value::Bool(_) => SqlType::Bool,
        }
    }

    /// Whether it is a numeric zero.
    pub fn is_zero(&self) -> bool {
        match self {
            Value::Int(i) => *i == 0,
            Value::Decimal { mantissa, .. } => *mantissa == 0,
            Value::Double(d) => *d == 0.0,
            _ => false,
        }
    }

    /// Parses a numeric literal: an integer, a decimal (`0.06`) or, with an
    /// exponent, a double.
    pub fn number(text: &str) -> Option<Value> {
        if text.contains(['e', 'E']) {
            return text.parse().ok().map(Value::Double);
        }
        match text.split_once('.') {
            None => text.parse().ok().map(Value::Int),
            Some((int, frac)) => {
                if !frac.chars().all(|c| c.is_ascii_digit()) || frac.len() > 18 {
                    return None;
                }
                let digits = format!("{int}{frac}");
                let mantissa: i128 = if digits.is_empty() {
                    return None;
                } else {
                    digits.parse().ok()?
                };
                Some(Value::Decimal {
                    mantissa,
                    scale: frac.len() as u32,
                })
            }
        }
    }

    /// The value brought to type `ty` (a numeric widening), if it can be.
    pub fn cast(&self, ty: SqlType) -> Option<Value> {
        Some(match (self, ty.computed()) {
            (v, t) if v.ty().computed() == t => self.clone(),
            (Value::Int(i), SqlType::Decimal(s)) => {
                let s = s.unwrap_or(0);
                Value::Decimal {
                    mantissa: i128::from(*i).checked_mul(10i128.checked_pow(s)?)?,
                    scale: s,
                }
            }
            (Value::Decimal { mantissa, scale }, SqlType::Decimal(Some(s))) if s >= *scale => {
                Value::Decimal {
                    mantissa: mantissa.checked_mul(10i128.checked_pow(s - scale)?)?,
                    scale: s,
                }
            }
            (Value::Decimal { .. }, SqlType::Decimal(_)) => self.clone(),
            (Value::Int(i), SqlType::Double) => Value::Double(*i as f64),
            (Value::Decimal { mantissa, scale }, SqlType::Double) => {
                Value::Double(*mantissa as f64 / 10f64.powi(*scale as i32))
            }
            _ => return None,
        })
    }

    /// The constant as a Rust expression of the type columns of its type
    /// have (integers as `ty`'s width).
    pub fn rust(&self, ty: SqlType) -> TokenStream {
        match (self, ty) {
            (Value::Int(i), SqlType::SmallInt) => {
                let i = *i as i16;
                quote! { #i }
            }
            (Value::Int(i), SqlType::Int) => {
                let i = *i as i32;
                quote! { #i }
            }
            (Value::Int(i), _) => quote! { #i },
            (Value::Decimal { mantissa, scale }, _) => {
                let m = *mantissa as i64;
                quote! { ::ivm::sql::Decimal::new(#m, #scale) }
            }
            (Value::Double(d), _) => quote! { ::ivm::sql::Double(#d) },
            (Value::Text(s), _) => quote! { #s },
            (Value::Date(d), _) => quote! { ::ivm::sql::Date::from_days(#d) },
            (Value::Bool(b), _) => quote! { #b },
        }
    }
}

/// Days since 1970-01-01 of a `yyyy-mm-dd` date.
pub fn parse_date(text: &str) -> Option<i32> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year: i32 = text[..4].parse().ok()?;
    let month: u8 = text[5..7].parse().ok()?;
    let day: u8 = text[8..].parse().ok()?;
    let month = time::Month::try_from(month).ok()?;
    let date = time::Date::from_calendar_date(year, month, day).ok()?;
    Some(days(date))
}

fn days(date: time::Date) -> i32 {
    date.to_julian_day() - EPOCH_JULIAN_DAY
}

/// The Julian day of 1970-01-01.
const EPOCH_JULIAN_DAY: i32 = 2_440_588;

/// The date `days` after 1970-01-01 moved by `months` months, the day
/// clamped to the end of the month (as PostgreSQL does: 1994-01-31 plus a
/// month is 1994-02-28).
pub fn add_months(days: i32, months: i32) -> Option<i32> {
    let date = time::Date::from_julian_day(days + EPOCH_JULIAN_DAY).ok()?;
    let index = date.year() * 12 + i32::from(u8::from(date.month())) - 1 + months;
    let (year, month) = (index.div_euclid(12), (index.rem_euclid(12) + 1) as u8);
    let month = time::Month::try_from(month).ok()?;
    let last = time::util::days_in_month(month, year);
    let moved = time::Date::from_calendar_date(year, month, date.day().min(last)).ok()?;
    Some(self::days(moved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_and_move_by_months() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("1969-12-31"), Some(-1));
        assert_eq!(parse_date("1994-02-30"), None);
        assert_eq!(parse_date("1994-2-03"), None);
        let jan31 = parse_date("1994-01-31").unwrap();
        assert_eq!(add_months(jan31, 1), parse_date("1994-02-28"));
        assert_eq!(add_months(jan31, 12), parse_date("1995-01-31"));
        assert_eq!(add_months(jan31, -2), parse_date("1993-11-30"));
        let leap = parse_date("2020-02-29").unwrap();
        assert_eq!(add_months(leap, 12), parse_date("2021-02-28"));
    }

    #[test]
    fn numbers_are_integers_decimals_or_doubles() {
        assert_eq!(Value::number("24"), Some(Value::Int(24)));
        assert_eq!(
            Value::number("0.06"),
            Some(Value::Decimal {
                mantissa: 6,
                scale: 2
            })
        );
        assert_eq!(Value::number("1e3"), Some(Value::Double(1000.0)));
        assert_eq!(
            Value::Int(3).cast(SqlType::Decimal(Some(2))),
            Some(Value::Decimal {
                mantissa: 300,
                scale: 2
            })
        );
    }
}
