//! What a failed update returns to the caller.
//!
//! Every fallible method of generated code (`delete_*`, `retract_*`,
//! updates over semirings that can overflow, and the text interface of
//! views written in SQL, `insert_text`/`delete_text`) returns
//! `Result<_, Error>`, and a call that returns an error has changed nothing:
//! the maintained state is the one before the call.

use std::fmt;

/// `Result` with this crate's [`Error`]: what a fallible method of
/// generated code returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why an update was refused. The maintained state is unchanged.
///
/// ```
/// let err = ivm::Error::AbsentTuple { relation: "Orders" };
/// assert!(err.to_string().starts_with("cannot delete from `Orders`"));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A delete or retraction named a tuple, or a contribution of a tuple,
    /// that is not alive: it was never inserted with that payload, or it was
    /// already deleted. In a ring this means the tuple is absent; in a
    /// positive semiring it means no earlier insertion with that payload is
    /// left to take back. The state is unchanged.
    AbsentTuple {
        /// The relation the delete was addressed to, as declared in the
        /// query.
        relation: &'static str,
    },
    /// Payload arithmetic left the range of its 64-bit representation (the
    /// `Count` and `Int` semirings, and the finite values of the tropical
    /// ones). The state is unchanged.
    Overflow {
        /// The relation whose update overflowed, as declared in the query.
        relation: &'static str,
    },
    /// `insert_text` or `delete_text` named a table that the SQL of the
    /// view does not declare. The state is unchanged.
    UnknownTable {
        /// The name as given (table names are matched case-insensitively).
        table: String,
    },
    /// `insert_text` or `delete_text` was given a number of fields that is
    /// not the number of columns of the table. The state is unchanged.
    FieldCount {
        /// The table, as declared in the SQL (lower case).
        table: &'static str,
        /// Its number of columns.
        expected: usize,
        /// The number of fields given.
        found: usize,
    },
    /// A field of `insert_text` or `delete_text` could not be read as the
    /// type of its column. The state is unchanged.
    BadField {
        /// The table, as declared in the SQL (lower case).
        table: &'static str,
        /// The column whose field it is.
        column: &'static str,
        /// The field as given.
        value: String,
        /// What is wrong with it, such as `not a date (yyyy-mm-dd)`.
        reason: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::AbsentTuple { relation } => write!(
                f,
                "cannot delete from `{relation}`: no live insertion of that tuple with that \
                 payload; delete only what was inserted and not yet deleted"
            ),
            Error::Overflow { relation } => write!(
                f,
                "payload overflow while updating `{relation}`: the result does not fit in 64 \
                 bits; use a semiring with a wider range, such as `ivm::semiring::Real`"
            ),
            Error::UnknownTable { table } => write!(
                f,
                "unknown table `{table}`: name a table declared by `CREATE TABLE` in the \
                 view's SQL"
            ),
            Error::FieldCount {
                table,
                expected,
                found,
            } => write!(
                f,
                "wrong number of fields for `{table}`: it has {expected} column{}, {found} \
                 field{} given; give one field per column, in the order of `CREATE TABLE`",
                if *expected == 1 { "" } else { "s" },
                if *found == 1 { " was" } else { "s were" },
            ),
            Error::BadField {
                table,
                column,
                value,
                reason,
            } => write!(
                f,
                "cannot read {value:?} as column `{column}` of `{table}`: {reason}; \
                 write the field as its column's type expects"
            ),
        }
    }
}

impl std::error::Error for Error {}
