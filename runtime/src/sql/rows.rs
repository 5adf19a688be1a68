//! What every view written in SQL does the same way, whatever its columns:
//! reading its rows off the rule it lowered to, reporting their changes,
//! and rendering them as text. Generated code implements [`Rows`] (through
//! `sql_view!`) and its inherent methods call the functions here.
//!
//! A view has one of three shapes: grouped (one row per group that has
//! rows), keyless (aggregates without GROUP BY: always exactly one row,
//! under the key `()`), or a bag (no aggregates: a row per copy in the
//! text interface, each distinct row once in `iter`).

use crate::{Semiring, View};

/// A generated SQL view's struct: the rule it holds and how a row is read
/// off a group's key and payload.
pub trait Rows {
    /// The rule the view lowered to.
    type Rule: View;
    /// The row struct, one field per select item.
    type Row;

    /// The rule.
    fn rule(&self) -> &Self::Rule;
    /// The rule, to change or to read its changes.
    fn rule_mut(&mut self) -> &mut Self::Rule;
    /// Whether `changes()` or `text_changes()` was called, which it sets.
    fn changes_started(&mut self) -> &mut bool;
    /// A group's row, read off its key and payload.
    fn row(key: &Key<Self>, payload: &Payload<Self>) -> Self::Row;
    /// A row's select items as text, in select-list order.
    fn text(row: &Self::Row) -> Vec<String>;
    /// The copies of a group's row the text interface lists: 1 unless the
    /// view is a bag.
    fn copies(payload: &Payload<Self>) -> i64 {
        let _ = payload;
        1
    }
}

/// A group key of view `V`: its GROUP BY values.
pub type Key<V> = <<V as Rows>::Rule as View>::Key;
/// A group's payload of view `V`: its row count and aggregates' components.
pub type Payload<V> = <<V as Rows>::Rule as View>::Payload;

/// The rows that went and the rows that came, as text.
pub type TextChanges = (Vec<Vec<String>>, Vec<Vec<String>>);

/// A change of one group: its key and its row then and now.
pub type Change<V> = (Key<V>, Option<<V as Rows>::Row>, Option<<V as Rows>::Row>);

/// The rows of a grouped view or a bag, each with its group key.
pub fn iter<V: Rows>(view: &V) -> impl Iterator<Item = (Key<V>, V::Row)> + '_ {
    view.rule().iter().map(|(key, payload)| {
        let row = V::row(&key, &payload);
        (key, row)
    })
}

/// The row of one group, `None` when the group has no rows.
pub fn get<V: Rows>(view: &V, key: &Key<V>) -> Option<V::Row> {
    let payload = view.rule().get(key);
    (!payload.is_zero()).then(|| V::row(key, &payload))
}

/// The changed groups of a grouped view or a bag, with their rows then and
/// now (`None` where the group had no rows, or has none now).
pub fn changes<V: Rows>(view: &mut V) -> impl Iterator<Item = Change<V>> + '_ {
    *view.changes_started() = true;
    view.rule_mut().changes().map(|(key, then, now)| {
        let row = |payload: &Payload<V>| (!payload.is_zero()).then(|| V::row(&key, payload));
        let (then, now) = (row(&then), row(&now));
        (key, then, now)
    })
}

/// Every row of a grouped view or a bag as text, a bag's once per copy.
pub fn text_rows<V: Rows>(view: &V) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (key, payload) in view.rule().iter() {
        let text = V::text(&V::row(&key, &payload));
        for _ in 0..V::copies(&payload) {
            rows.push(text.clone());
        }
    }
    rows
}

/// The rows of a grouped view or a bag that went and that came since the
/// previous call, as text (a bag's once per copy).
pub fn text_changes<V: Rows>(view: &mut V) -> TextChanges {
    let (mut gone, mut came) = (Vec::new(), Vec::new());
    *view.changes_started() = true;
    // Read in place, as `order::rank` does.
    let mut changes = view.rule_mut().changes();
    for (key, then, now) in changes.by_ref() {
        for (payload, into) in [(&then, &mut gone), (&now, &mut came)] {
            if !payload.is_zero() {
                let text = V::text(&V::row(&key, payload));
                for _ in 0..V::copies(payload) {
                    into.push(text.clone());
                }
            }
        }
    }
    (gone, came)
}

/// The one row of a keyless view.
pub fn keyless_row<V: Rows>(view: &V) -> V::Row
where
    V::Rule: View<Key = ()>,
{
    V::row(&(), &view.rule().get(&()))
}

/// The changes of a keyless view: its one row as new at the first call,
/// then its change, if any.
pub fn keyless_changes<V: Rows>(view: &mut V) -> impl Iterator<Item = Change<V>> + '_
where
    V::Rule: View<Key = ()>,
{
    let first = !std::mem::replace(view.changes_started(), true);
    let changed: Vec<_> = view.rule_mut().changes().collect();
    let out: Vec<Change<V>> = if first {
        vec![((), None, Some(keyless_row(view)))]
    } else {
        changed
            .into_iter()
            .map(|(key, then, now)| (key, Some(V::row(&(), &then)), Some(V::row(&(), &now))))
            .collect()
    };
    out.into_iter()
}

/// The text changes of a keyless view: its one row came at the first
/// call; later, the row it was and the row it is, when it changed.
pub fn keyless_text_changes<V: Rows>(view: &mut V) -> TextChanges
where
    V::Rule: View<Key = ()>,
{
    let (mut gone, mut came) = (Vec::new(), Vec::new());
    for (_, then, now) in keyless_changes(view) {
        gone.extend(then.map(|row| V::text(&row)));
        came.extend(now.map(|row| V::text(&row)));
    }
    (gone, came)
}

/// One column of `sql_view!` and `sql_nested_view!` where its kind
/// matters: a `TEXT` column (`name: String as text = "name"`) is a
/// parameter that takes a `&str` as well as a `String`, so that a caller
/// whose rows are borrowed allocates nothing for a column the view does
/// not read, and `insert_text` passes such a field on as it is, unread.
#[doc(hidden)]
#[macro_export]
macro_rules! __sql_column {
    (param $ty:ty) => { $ty };
    (param $ty:ty, text) => {
        impl $crate::Text
    };
    (read $field:ident, $table:literal, $sqlcol:literal, $ty:ty) => {
        $crate::sql::read_field::<$ty>($field, $table, $sqlcol)?
    };
    (read $field:ident, $table:literal, $sqlcol:literal, $ty:ty, text) => { $field };
}

/// The API of a nested view (`docs/design.md#nested-sql`), which only the
/// struct of the view that reads it uses: typed `insert_<table>` (and
/// `delete_<table>`), the reading of rows (`iter`, `get`, `len`,
/// `changes`, `text_rows`), [`Rows`], `Default` and the snapshot. None of
/// the text interface, change enum or traits of a view a user feeds.
///
/// ```text
/// sql_nested_view! {
///     V over VRule;
///     rows VRow { a, total }, key = (i32,), payload = Int, grouped;
///     tables { "r" (a: i32 = "a", name: String as text = "name", price: Decimal = "price" at scale 2) => insert_r / delete_r }
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __sql_nested_view {
    (
        $name:ident over $rule:ident;
        rows $row:ident { $($field:ident),* }, key = $key:ty, payload = $payload:ty, $shape:ident $(|$p:ident| $copies:expr)?;
        tables { $(
            $table:literal ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+) => $insert:ident $(/ $delete:ident)?
        ),+ $(,)? }
    ) => {
        #[allow(dead_code, reason = "generated API: not every method is used")]
        #[allow(clippy::too_many_arguments, reason = "one parameter per column")]
        impl $name {
            /// Empty tables.
            pub fn new() -> Self {
                $name { rule: $rule::new(), changes_started: false }
            }

            $($crate::__sql_nested_view!(@table $table ($($col: $ty $(as $text)? = $sqlcol $(at scale $scale)?),+) => $insert $(/ $delete)?);)+

            $crate::__sql_view!(@reading $shape unordered, $key, $row, $rule);

            /// The maintained rule this nested view lowered to.
            pub fn rule(&self) -> &$rule {
                &self.rule
            }
        }

        $crate::__sql_view!(@rows $name over $rule, $row { $($field),* }, $key, $payload $(|$p| $copies)?);

        $crate::__impl_snapshot!($name, <$rule as $crate::snapshot::Snapshot>::PLAN);
    };
    // One table's typed insert and delete, or insert alone.
    (@table $table:literal ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+) => $insert:ident / $delete:ident) => {
        $crate::__sql_nested_view!(@table $table ($($col: $ty $(as $text)? = $sqlcol $(at scale $scale)?),+) => $insert);
        #[doc = ::core::concat!(" Deletes one copy of a row of `", $table, "` inserted before.")]
        ///
        /// # Errors
        ///
        /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when there
        /// is no such row; nothing changes then.
        pub fn $delete(&mut self, $($col: $crate::__sql_column!(param $ty $(, $text)?)),+) -> $crate::Result<()> {
            $($(let $col = $crate::sql::rows::AtScale::at_scale($col, $scale).expect(
                ::core::concat!("ivm: a value too large for a DECIMAL of scale ", $scale),
            );)?)+
            self.rule.$delete($($col),+)
        }
    };
    (@table $table:literal ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+) => $insert:ident) => {
        #[doc = ::core::concat!(" Inserts one row into `", $table, "`.")]
        pub fn $insert(&mut self, $($col: $crate::__sql_column!(param $ty $(, $text)?)),+) {
            $($(let $col = $crate::sql::rows::AtScale::at_scale($col, $scale).expect(
                ::core::concat!("ivm: a value too large for a DECIMAL of scale ", $scale),
            );)?)+
            self.rule.$insert($($col),+)
        }
    };
}

/// Hands the rows of nested view `V` that went and came since the
/// previous call to `feed`, each with its number of copies, negative for
/// rows that went (`docs/design.md#nested-sql`): the rows its readers keep
/// as a table's. A group whose row did not change is not handed over; a
/// bag's row that gained or lost copies is handed over once, with the
/// difference.
pub fn settle<V: Rows>(view: &mut V, mut feed: impl FnMut(&V::Row, i64))
where
    V::Row: PartialEq,
{
    *view.changes_started() = true;
    // Read in place, as `order::rank` does.
    let mut changes = view.rule_mut().changes();
    for (key, then, now) in changes.by_ref() {
        let copies = |payload: &Payload<V>| {
            if payload.is_zero() {
                0
            } else {
                V::copies(payload)
            }
        };
        let (was, is) = (copies(&then), copies(&now));
        let gone = (was > 0).then(|| V::row(&key, &then));
        let came = (is > 0).then(|| V::row(&key, &now));
        match (gone, came) {
            (Some(gone), Some(came)) if gone == came => {
                if is != was {
                    feed(&came, is - was);
                }
            }
            (gone, came) => {
                if let Some(row) = gone {
                    feed(&row, -was);
                }
                if let Some(row) = came {
                    feed(&row, is);
                }
            }
        }
    }
}

/// [`settle`] for a nested view without GROUP BY, whose one row always
/// exists: at the first call (when tracking starts) the row comes; later,
/// when it changed, the row it was goes and the row it is comes.
pub fn settle_keyless<V: Rows>(view: &mut V, mut feed: impl FnMut(&V::Row, i64))
where
    V::Rule: View<Key = ()>,
    V::Row: PartialEq,
{
    let first = !std::mem::replace(view.changes_started(), true);
    let changed: Vec<_> = view.rule_mut().changes().collect();
    if first {
        feed(&keyless_row(view), 1);
        return;
    }
    for (_, then, now) in changed {
        let (gone, came) = (V::row(&(), &then), V::row(&(), &now));
        if gone != came {
            feed(&gone, -1);
            feed(&came, 1);
        }
    }
}

/// A field of a row as the text interface renders it: numbers as Rust
/// prints them, dates as `yyyy-mm-dd`, `NULL` for SQL's NULL (`None`).
pub trait SqlText {
    /// The field as text.
    fn sql_text(&self) -> String;
}

macro_rules! sql_text_by_display {
    ($($ty:ty),* $(,)?) => {$(
        impl SqlText for $ty {
            fn sql_text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

sql_text_by_display!(
    bool,
    i16,
    i32,
    i64,
    String,
    super::Date,
    super::Decimal,
    super::Double,
);

/// A `DECIMAL(p, s)` column's value brought to the scale the view stores
/// it at, NULL (`None`) staying NULL: what the typed updates call.
pub trait AtScale: Sized {
    /// The value at `scale`, or `None` where it does not fit there.
    fn at_scale(self, scale: u32) -> Option<Self>;
}

impl AtScale for super::Decimal {
    #[inline]
    fn at_scale(self, scale: u32) -> Option<Self> {
        self.rescale(scale)
    }
}

impl AtScale for Option<super::Decimal> {
    #[inline]
    fn at_scale(self, scale: u32) -> Option<Self> {
        match self {
            Some(value) => value.rescale(scale).map(Some),
            None => Some(None),
        }
    }
}

impl<T: SqlText> SqlText for Option<T> {
    fn sql_text(&self) -> String {
        match self {
            Some(value) => value.sql_text(),
            None => String::from("NULL"),
        }
    }
}

/// The API of a view written in SQL around its rule: the typed
/// `insert_<table>`/`delete_<table>`, `iter`, `get`, `len`, `is_empty`,
/// `changes`, the text interface, `ivm::sql::TextView` (and
/// `TextRetract`), its change enum (a row of one of its tables) with
/// `ivm::View` (and `Retract`), `ivm::Routed`, `Default` and the
/// snapshot. The view's
/// struct (fields `rule` and `changes_started`), its row struct and its
/// `row(key, payload)` are generated code's own.
///
/// ```text
/// sql_view! {
///     V = "v", "CREATE VIEW v AS ..." over VRule;
///     rows VRow { a, total }, key = (i32,), payload = Int, grouped;
///     change VChange {
///         R = 0 "r" (a: i32 = "a", price: Decimal = "price" at scale 2) by a => insert_r / delete_r,
///     }
/// }
/// ```
///
/// The shape is `grouped`, `keyless`, or `bag |payload| copies`; a view
/// without deletes names its insert methods only. Each table's route is
/// its rule relation's (`by <column>`, with the column's `at scale` for a
/// DECIMAL, `to every` or `to first`).
#[doc(hidden)]
#[macro_export]
macro_rules! __sql_view {
    // Under inserts and deletes.
    (
        $name:ident = $sql_name:literal, $sql:literal over $rule:ident;
        rows $row:ident { $($field:ident),* }, key = $key:ty, payload = $payload:ty, $shape:ident $(|$p:ident| $copies:expr)?, $order:ident;
        change $change:ident { $(
            $variant:ident = $index:literal $table:literal
            ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+)
            $how:ident $to:ident $(at scale $rscale:literal)? => $insert:ident / $delete:ident
        ),+ $(,)? }
    ) => {
        $crate::__sql_view!(@common $name = $sql_name, $sql over $rule;
            rows $row { $($field),* }, key = $key, payload = $payload, $shape $(|$p| $copies)?, $order;
            change $change { $($variant = $index $table ($($col: $ty $(as $text)? = $sqlcol $(at scale $scale)?),+) $how $to $(at scale $rscale)? => $insert),+ }
            retract {
                fn __retract(&mut self, change: $change) -> ::core::option::Option<$crate::Result<()>> {
                    ::core::option::Option::Some(<Self as $crate::Retract>::retract(self, change))
                }
            }
        );
        #[allow(dead_code, reason = "generated API: not every method is used")]
        #[allow(clippy::too_many_arguments, reason = "one parameter per column")]
        impl $name {
            $(
                #[doc = ::core::concat!(
                    " Deletes one copy of a row of `", $table,
                    "` inserted before, whether or not the view's conditions keep it.",
                )]
                ///
                /// # Errors
                ///
                /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when
                /// there is no such row; nothing changes then.
                pub fn $delete(&mut self, $($col: $crate::__sql_column!(param $ty $(, $text)?)),+) -> $crate::Result<()> {
                    $($(let $col = $crate::sql::rows::AtScale::at_scale($col, $scale).expect(
                        ::core::concat!("ivm: a value too large for a DECIMAL of scale ", $scale),
                    );)?)+
                    let result = self.rule.$delete($($col),+);
                    $crate::__sql_view!(@after $order self);
                    result
                }
            )+

            /// Deletes one copy of a row given as text, as `insert_text`
            /// reads it.
            ///
            /// # Errors
            ///
            /// As `insert_text`, and [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple)
            /// when no such row was inserted; nothing changes then.
            pub fn delete_text(&mut self, table: &str, fields: &[&str]) -> $crate::Result<()> {
                $(if table.eq_ignore_ascii_case($table) {
                    let &[$($col),+] = fields else {
                        return $crate::__sql_view!(@field_count $table, fields, $($sqlcol),+);
                    };
                    return self.$delete($($crate::__sql_column!(read $col, $table, $sqlcol, $ty $(, $text)?)),+);
                })+
                ::core::result::Result::Err($crate::Error::UnknownTable { table: ::std::string::String::from(table) })
            }
        }

        impl $crate::sql::TextRetract for $name {
            fn delete_text(&mut self, table: &str, fields: &[&str]) -> $crate::Result<()> {
                $name::delete_text(self, table, fields)
            }
        }

        impl $crate::Retract for $name {
            fn retract(&mut self, change: $change) -> $crate::Result<()> {
                match change {
                    $($change::$variant { $($col),+ } => self.$delete($($col),+),)+
                }
            }
        }
    };
    // Under inserts only.
    (
        $name:ident = $sql_name:literal, $sql:literal over $rule:ident;
        rows $row:ident { $($field:ident),* }, key = $key:ty, payload = $payload:ty, $shape:ident $(|$p:ident| $copies:expr)?, $order:ident;
        change $change:ident { $(
            $variant:ident = $index:literal $table:literal
            ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+)
            $how:ident $to:ident $(at scale $rscale:literal)? => $insert:ident
        ),+ $(,)? }
    ) => {
        $crate::__sql_view!(@common $name = $sql_name, $sql over $rule;
            rows $row { $($field),* }, key = $key, payload = $payload, $shape $(|$p| $copies)?, $order;
            change $change { $($variant = $index $table ($($col: $ty $(as $text)? = $sqlcol $(at scale $scale)?),+) $how $to $(at scale $rscale)? => $insert),+ }
            retract {}
        );
    };
    // A route over the column's value as the view stores it: a DECIMAL
    // rescaled first, so that equal stored values route alike.
    (@to by $column:ident at scale $scale:literal) => {
        $crate::Route::by(&$crate::sql::rows::AtScale::at_scale(*$column, $scale).expect(
            ::core::concat!("ivm: a value too large for a DECIMAL of scale ", $scale),
        ))
    };
    (@to $how:ident $to:ident) => {
        $crate::__impl_view!(@to $how $to)
    };
    (@field_count $table:literal, $fields:ident, $($sqlcol:literal),+) => {
        ::core::result::Result::Err($crate::Error::FieldCount {
            table: $table,
            expected: [$($sqlcol),+].len(),
            found: $fields.len(),
        })
    };
    (@common
        $name:ident = $sql_name:literal, $sql:literal over $rule:ident;
        rows $row:ident { $($field:ident),* }, key = $key:ty, payload = $payload:ty, $shape:ident $(|$p:ident| $copies:expr)?, $order:ident;
        change $change:ident { $(
            $variant:ident = $index:literal $table:literal
            ($($col:ident: $ty:ty $(as $text:ident)? = $sqlcol:literal $(at scale $scale:literal)?),+)
            $how:ident $to:ident $(at scale $rscale:literal)? => $insert:ident
        ),+ }
        retract { $($retract:tt)* }
    ) => {
        #[allow(dead_code, reason = "generated API: not every method is used")]
        #[allow(clippy::too_many_arguments, reason = "one parameter per column")]
        impl $name {
            /// The tables the view reads, by their SQL names: what
            /// `insert_text` accepts.
            pub const TABLES: &'static [&'static str] = &[$($table),+];

            /// An empty database.
            pub fn new() -> Self {
                $crate::__sql_view!(@new $order $name $rule)
            }

            $(
                #[doc = ::core::concat!(" Inserts one row into `", $table, "` (one more copy of it).")]
                pub fn $insert(&mut self, $($col: $crate::__sql_column!(param $ty $(, $text)?)),+) {
                    // A `DECIMAL(p, s)` value is stored at scale `s`, rounded
                    // half away from zero as PostgreSQL stores it.
                    $($(let $col = $crate::sql::rows::AtScale::at_scale($col, $scale).expect(
                        ::core::concat!("ivm: a value too large for a DECIMAL of scale ", $scale),
                    );)?)+
                    self.rule.$insert($($col),+);
                    $crate::__sql_view!(@after $order self);
                }
            )+

            $crate::__sql_view!(@reading $shape $order, $key, $row, $rule);

            /// Inserts one row given as text: one field per column, in the
            /// order of `CREATE TABLE`, each read by its column's type
            /// (integers, decimals such as `-17.25`, dates `yyyy-mm-dd`,
            /// strings as they are). The table's name is matched without
            /// regard to case.
            ///
            /// # Errors
            ///
            /// [`ivm::Error::UnknownTable`](::ivm::Error::UnknownTable),
            /// [`ivm::Error::FieldCount`](::ivm::Error::FieldCount) or
            /// [`ivm::Error::BadField`](::ivm::Error::BadField); nothing
            /// changes then.
            pub fn insert_text(&mut self, table: &str, fields: &[&str]) -> $crate::Result<()> {
                $(if table.eq_ignore_ascii_case($table) {
                    let &[$($col),+] = fields else {
                        return $crate::__sql_view!(@field_count $table, fields, $($sqlcol),+);
                    };
                    self.$insert($($crate::__sql_column!(read $col, $table, $sqlcol, $ty $(, $text)?)),+);
                    return ::core::result::Result::Ok(());
                })+
                ::core::result::Result::Err($crate::Error::UnknownTable { table: ::std::string::String::from(table) })
            }

            /// The maintained rule this view lowered to.
            pub fn rule(&self) -> &$rule {
                &self.rule
            }
        }

        $crate::__sql_view!(@rows $name over $rule, $row { $($field),* }, $key, $payload $(|$p| $copies)?);

        impl $crate::sql::TextView for $name {
            fn name(&self) -> &'static str {
                $sql_name
            }
            fn sql(&self) -> &'static str {
                $sql
            }
            fn tables(&self) -> &'static [&'static str] {
                Self::TABLES
            }
            fn insert_text(&mut self, table: &str, fields: &[&str]) -> $crate::Result<()> {
                $name::insert_text(self, table, fields)
            }
            fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
                $name::text_rows(self)
            }
            fn text_changes(
                &mut self,
            ) -> $crate::sql::rows::TextChanges {
                $name::text_changes(self)
            }
            $crate::__sql_view!(@order_of $order);
        }

        $crate::__sql_view!(@ranking $order $name $rule);

        #[doc = ::core::concat!(
            " A row of a table [`", ::core::stringify!($name),
            "`] reads: [`View::apply`](::ivm::View::apply) inserts one copy of it.",
        )]
        #[derive(Clone, Debug, PartialEq)]
        #[allow(dead_code, reason = "generated API: not every table's rows are used")]
        pub enum $change {
            $(
                #[doc = ::core::concat!(" A row of `", $table, "`, its columns in the order of `CREATE TABLE`.")]
                #[allow(missing_docs, reason = "the variant's doc names its fields")]
                $variant { $($col: $ty),+ },
            )+
        }

        $crate::__impl_change_state!($change { $($variant = $index { $($col),+ }),+ });

        impl $crate::Routed for $name {
            fn route(change: &$change) -> $crate::Route {
                match change {
                    $($change::$variant { $($col),+ } => {
                        let _ = ($($col,)+);
                        $crate::__sql_view!(@to $how $to $(at scale $rscale)?)
                    })+
                }
            }
        }

        impl $crate::View for $name {
            type Change = $change;
            type Key = $key;
            type Payload = $payload;

            fn apply<I: ::core::iter::IntoIterator<Item = $change>>(&mut self, changes: I) {
                for change in changes {
                    match change {
                        $($change::$variant { $($col),+ } => self.$insert($($col),+),)+
                    }
                }
            }
            fn iter(&self) -> impl ::core::iter::Iterator<Item = ($key, $payload)> + '_ {
                <$rule as $crate::View>::iter(&self.rule)
            }
            fn get(&self, key: &$key) -> $payload {
                <$rule as $crate::View>::get(&self.rule, key)
            }
            fn len(&self) -> usize {
                <$rule as $crate::View>::len(&self.rule)
            }
            fn is_empty(&self) -> bool {
                <$rule as $crate::View>::is_empty(&self.rule)
            }
            fn changes(&mut self) -> impl ::core::iter::Iterator<Item = ($key, $payload, $payload)> + '_ {
                $crate::__sql_view!(@payload_changes $order self $rule)
            }
            $($retract)*
        }

        // The view's snapshot is its rule's state (and a flag that starts
        // fresh): the plan is the rule's plan.
        $crate::__impl_snapshot!($name, <$rule as $crate::snapshot::Snapshot>::PLAN);
    };
    // `Rows` (how generic code reads the view) and `Default`.
    (@rows $name:ident over $rule:ident, $row:ident { $($field:ident),* }, $key:ty, $payload:ty $(|$p:ident| $copies:expr)?) => {
        impl $crate::sql::rows::Rows for $name {
            type Rule = $rule;
            type Row = $row;

            fn rule(&self) -> &$rule {
                &self.rule
            }
            fn rule_mut(&mut self) -> &mut $rule {
                &mut self.rule
            }
            fn changes_started(&mut self) -> &mut bool {
                &mut self.changes_started
            }
            fn row(key: &$key, payload: &$payload) -> $row {
                $name::row(key, payload)
            }
            fn text(row: &$row) -> ::std::vec::Vec<::std::string::String> {
                ::std::vec![$($crate::sql::rows::SqlText::sql_text(&row.$field)),*]
            }
            $(fn copies($p: &$payload) -> i64 {
                $copies
            })?
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }
    };
    // What ORDER BY, LIMIT and OFFSET add (`sorted`: ORDER BY alone,
    // sorted at reading; `ranked`: LIMIT or OFFSET, kept in order): at
    // `new()`, after each update, in `View::changes`, `TextView::order`
    // and the access `ivm::sql::order` reads the ordered rows through.
    (@new windowed $name:ident $rule:ident) => {
        $name {
            rule: $rule::new(),
            changes_started: false,
            ranked: ::core::default::Default::default(),
        }
    };
    (@new ranked $name:ident $rule:ident) => {{
        let mut view = $name {
            rule: $rule::new(),
            changes_started: false,
            ranked: ::core::default::Default::default(),
        };
        $crate::sql::order::rank(&mut view);
        view
    }};
    (@new $order:ident $name:ident $rule:ident) => {
        $name { rule: $rule::new(), changes_started: false }
    };
    (@after ranked $this:tt) => {
        $crate::sql::order::rank($this)
    };
    (@after $order:ident $this:tt) => {};
    (@payload_changes ranked $this:tt $rule:ident) => {
        $crate::sql::order::payload_changes($this)
    };
    (@payload_changes $order:ident $this:tt $rule:ident) => {
        <$rule as $crate::View>::changes(&mut $this.rule)
    };
    (@order_of unordered) => {};
    (@order_of $order:ident) => {
        fn order(&self) -> ::core::option::Option<$crate::sql::Order> {
            ::core::option::Option::Some(<Self as $crate::sql::order::Ordered>::ORDER)
        }
    };
    (@ranking ranked $name:ident $rule:ident) => {
        $crate::__sql_view!(@ranking_fed true $name $rule);
    };
    (@ranking windowed $name:ident $rule:ident) => {
        $crate::__sql_view!(@ranking_fed false $name $rule);
    };
    (@ranking_fed $fed:literal $name:ident $rule:ident) => {
        impl $crate::sql::order::Ranking for $name {
            const FED: bool = $fed;
            fn ranked(&self) -> &$crate::sql::order::Ranked<Self> {
                &self.ranked
            }
            fn parts(&mut self) -> (&mut $rule, &mut $crate::sql::order::Ranked<Self>) {
                (&mut self.rule, &mut self.ranked)
            }
        }
    };
    (@ranking $order:ident $name:ident $rule:ident) => {};
    (@reading $shape:ident sorted, $key:ty, $row:ident, $rule:ident) => {
        /// The rows in ORDER BY order (ties broken by the select items
        /// in order), each with its group key: sorted at each call,
        /// O(n log n); a bag's each distinct row once.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ($key, $row)> + '_ {
            $crate::sql::order::sorted(self).into_iter().map(|(key, row, _)| (key, row))
        }
        /// Every row rendered as text, its select items in order
        /// (numbers as Rust prints them, dates as `yyyy-mm-dd`, `NULL`
        /// for SQL's NULL), in ORDER BY order; a bag's row once per copy.
        pub fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
            $crate::sql::order::sorted_text_rows(self)
        }
        $crate::__sql_view!(@groups $key, $row, $rule);
    };
    (@reading $shape:ident windowed, $key:ty, $row:ident, $rule:ident) => {
        $crate::__sql_view!(@reading $shape ranked, $key, $row, $rule);
    };
    (@reading $shape:ident ranked, $key:ty, $row:ident, $rule:ident) => {
        /// The rows of the window (LIMIT and OFFSET) in ORDER BY order,
        /// each with its group key: O(offset + limit) where the rows are
        /// kept in order, O(n log n) where they are sorted at reading
        /// (`ivmc explain` says which); a bag's each distinct row once.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ($key, $row)> + '_ {
            $crate::sql::order::iter(self)
        }
        /// The row of one group, `None` unless it is in the window.
        pub fn get(&self, key: &$key) -> ::core::option::Option<$row> {
            $crate::sql::order::get(self, key)
        }
        /// The number of distinct rows in the window.
        pub fn len(&self) -> usize {
            $crate::sql::order::len(self)
        }
        /// Whether the window has no rows.
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
        /// The rows that entered, left or changed within the window since
        /// the previous call: each group's key with its row then and now
        /// (`None` outside the window); the first call reports every row
        /// of the window. Costs a reading of the window.
        pub fn changes(
            &mut self,
        ) -> impl ::core::iter::Iterator<Item = ($key, ::core::option::Option<$row>, ::core::option::Option<$row>)> + '_ {
            $crate::sql::order::changes(self)
        }
        /// The window's rows rendered as text, its select items in order
        /// (numbers as Rust prints them, dates as `yyyy-mm-dd`, `NULL`
        /// for SQL's NULL), in ORDER BY order; a bag's row once per copy.
        pub fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
            $crate::sql::order::text_rows(self)
        }
        /// [`changes`](Self::changes) as text: the rows that left the
        /// window and the rows that entered it (a bag's row once per copy
        /// there), each rendered as `text_rows` renders it.
        pub fn text_changes(
            &mut self,
        ) -> $crate::sql::rows::TextChanges {
            $crate::sql::order::text_changes(self)
        }
    };
    (@reading keyless unordered, $key:ty, $row:ident, $rule:ident) => {
        /// The view's one row (a view without GROUP BY always has one,
        /// as in SQL), under the key `()`.
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ((), $row)> + '_ {
            ::core::iter::once(((), $crate::sql::rows::keyless_row(self)))
        }
        /// The row of key `()`.
        pub fn get(&self, key: &()) -> ::core::option::Option<$row> {
            let () = key;
            ::core::option::Option::Some($crate::sql::rows::keyless_row(self))
        }
        /// The number of rows: always 1.
        pub fn len(&self) -> usize {
            1
        }
        /// Whether the view has no rows: never.
        pub fn is_empty(&self) -> bool {
            false
        }
        /// The row then and now, if it changed since the previous call;
        /// the first call reports it as new. See the rule's `changes()`.
        pub fn changes(
            &mut self,
        ) -> impl ::core::iter::Iterator<Item = ((), ::core::option::Option<$row>, ::core::option::Option<$row>)> + '_ {
            $crate::sql::rows::keyless_changes(self)
        }
        /// Every row rendered as text, its select items in order
        /// (numbers as Rust prints them, dates as `yyyy-mm-dd`, `NULL`
        /// for SQL's NULL): the one row.
        pub fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
            ::std::vec![<Self as $crate::sql::rows::Rows>::text(&$crate::sql::rows::keyless_row(self))]
        }
        /// [`changes`](Self::changes) as text: the row that went and the
        /// row that came, each rendered as `text_rows` renders it.
        pub fn text_changes(
            &mut self,
        ) -> $crate::sql::rows::TextChanges {
            $crate::sql::rows::keyless_text_changes(self)
        }
    };
    (@reading $shape:ident unordered, $key:ty, $row:ident, $rule:ident) => {
        /// The rows, each with its group key (the GROUP BY values, in
        /// order); a bag's each distinct row once (`text_rows` lists a
        /// row once per copy).
        pub fn iter(&self) -> impl ::core::iter::Iterator<Item = ($key, $row)> + '_ {
            $crate::sql::rows::iter(self)
        }
        /// Every row rendered as text, its select items in order
        /// (numbers as Rust prints them, dates as `yyyy-mm-dd`, `NULL`
        /// for SQL's NULL), in no particular order of rows; a bag's row
        /// once per copy.
        pub fn text_rows(&self) -> ::std::vec::Vec<::std::vec::Vec<::std::string::String>> {
            $crate::sql::rows::text_rows(self)
        }
        $crate::__sql_view!(@groups $key, $row, $rule);
    };
    // The reading of a grouped view or a bag, but for `iter` and
    // `text_rows`, whose order of rows differs.
    (@groups $key:ty, $row:ident, $rule:ident) => {
        /// The row of one group, `None` when the group has no rows.
        pub fn get(&self, key: &$key) -> ::core::option::Option<$row> {
            $crate::sql::rows::get(self, key)
        }
        /// The number of groups.
        pub fn len(&self) -> usize {
            <$rule as $crate::View>::len(&self.rule)
        }
        /// Whether the view has no rows.
        pub fn is_empty(&self) -> bool {
            <$rule as $crate::View>::is_empty(&self.rule)
        }
        /// The rows that changed since the previous call: each group's key
        /// with its row then and now (`None` where the group had no rows,
        /// or has none now); the first call reports every row. See the
        /// rule's `changes()`.
        pub fn changes(
            &mut self,
        ) -> impl ::core::iter::Iterator<Item = ($key, ::core::option::Option<$row>, ::core::option::Option<$row>)> + '_ {
            $crate::sql::rows::changes(self)
        }
        /// [`changes`](Self::changes) as text: the rows that went and the
        /// rows that came (a bag's row once per copy), each rendered as
        /// `text_rows` renders it.
        pub fn text_changes(
            &mut self,
        ) -> $crate::sql::rows::TextChanges {
            $crate::sql::rows::text_changes(self)
        }
    };
}
