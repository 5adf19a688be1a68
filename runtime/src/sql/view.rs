//! [`TextView`] and [`TextRetract`]: the text interface of every view
//! written in SQL, as traits, so that a loader, a test against another
//! database or a tool is written once over any view.

use super::Order;
use crate::Result;

/// A view written in SQL, read and fed as text: what every struct that
/// `CREATE VIEW` generates implements (`docs/design.md#sql`).
///
/// The trait is object-safe: a loader can hold `Box<dyn TextView>`s of
/// different views and give each the rows of the tables it reads.
///
/// ```
/// fn load(view: &mut dyn ivm::sql::TextView, table: &str, rows: &[Vec<&str>]) -> ivm::Result<()> {
///     if view.tables().contains(&table) {
///         for row in rows {
///             view.insert_text(table, row)?;
///         }
///     }
///     Ok(())
/// }
/// ```
pub trait TextView {
    /// The view's name as `CREATE VIEW` declares it, in lower case.
    fn name(&self) -> &'static str;

    /// The view's `CREATE VIEW` statement, as the compiler read it.
    fn sql(&self) -> &'static str;

    /// The tables the view reads, by their SQL names in lower case.
    fn tables(&self) -> &'static [&'static str];

    /// Inserts one row given as text, one field per column.
    ///
    /// # Errors
    ///
    /// An unknown table, a wrong number of fields or a field that does
    /// not read as its column's type; nothing changes then.
    fn insert_text(&mut self, table: &str, fields: &[&str]) -> Result<()>;

    /// Every row, its select items rendered as text in select-list order.
    fn text_rows(&self) -> Vec<Vec<String>>;

    /// The rows that went and the rows that came since the previous call
    /// (every row came, at the first), rendered as
    /// [`text_rows`](Self::text_rows) renders them: applied to the rows of
    /// the previous call, they give the rows now.
    fn text_changes(&mut self) -> (Vec<Vec<String>>, Vec<Vec<String>>);

    /// The view's ORDER BY, LIMIT and OFFSET, `None` without them: how
    /// [`text_rows`](Self::text_rows) orders its rows, and which of them
    /// it lists.
    fn order(&self) -> Option<Order> {
        None
    }
}

/// A view written in SQL that takes deletes (every view but those
/// declared `WITH (updates = 'insert_only')`).
pub trait TextRetract: TextView {
    /// Deletes one copy of a row given as text.
    ///
    /// # Errors
    ///
    /// As [`TextView::insert_text`], and
    /// [`Error::AbsentTuple`](crate::Error::AbsentTuple) when no such row
    /// was inserted; nothing changes then.
    fn delete_text(&mut self, table: &str, fields: &[&str]) -> Result<()>;
}
