//! `relation_methods!`: the public update methods of one relation of a
//! generated struct, written once here instead of once per relation in
//! every generated file.
//!
//! A relation `R(a, b)` gets `update_r(a, b, delta)` (`R(a, b) ⊕= delta`),
//! `insert_r(a, b)` (an update by one) and, under inserts and deletes,
//! `retract_r(a, b, delta)` and `delete_r(a, b)` (a retraction of one).
//! Where the relation's tuples live in a base map whose changes propagate
//! through `on_r_changed`, the macro writes all four; otherwise generated
//! code writes `update_r` and `retract_r` itself and the macro adds the
//! two shortcuts.

/// The update methods of one relation: see the module's doc.
///
/// ```text
/// // Kept in `self.sales`, changes carried by `self.on_sales_changed`:
/// relation_methods!(Sales(store: u32, item: u64) => sales, on_sales_changed; delta: Int;
///     update_sales, insert_sales, retract_sales, delete_sales);
/// // Kept as its tuples' fingerprints (under inserts and deletes), the
/// // views told the update's delta, or the tuple's old and new payloads:
/// relation_methods!(Sales(store: u32, item: u64) => fingerprints sales, on_sales_changed;
///     delta: Int; update_sales, insert_sales, retract_sales, delete_sales);
/// relation_methods!(Sales(store: u32, item: u64) => fingerprints with payloads sales,
///     on_sales_changed; delta: Int; update_sales, insert_sales, retract_sales, delete_sales);
/// // The same, with the tuple the views are given (here without the
/// // unread `note`, taken as `impl Text`)
/// // and the one the fingerprint hashes (every column, as the row's
/// // tuple type hashes):
/// relation_methods!(Sales(store: u32, item: u64, note: impl Text)
///     as (store, item, ()), hashing (&store, &item, AsRef::<str>::as_ref(&note))
///     => fingerprints sales, on_sales_changed; delta: Int;
///     update_sales, insert_sales, retract_sales, delete_sales);
/// // The shortcuts only, over generated `update_sales` and `retract_sales`:
/// relation_methods!(Sales(store: u32, item: u64);
///     update_sales, insert_sales, retract_sales, delete_sales);
/// ```
///
/// The retraction pair is left out under inserts only. A relation of more
/// than twelve columns, or with a text column (whose parameter takes a
/// `&str` as well as a `String`), passes its tuple after `as`.
#[doc(hidden)]
#[macro_export]
macro_rules! __relation_methods {
    // Kept as fingerprints (`Fingerprints`, under inserts and deletes):
    // the tuple without `as`, hashed as it is.
    ($relation:ident($($col:ident: $ty:ty),+) => fingerprints $base:ident, $on_changed:ident; delta: $k:ty;
        $($names:ident),+) => {
        $crate::__relation_methods!($relation($($col: $ty),+) as ($($col,)+), hashing ($(&$col,)+) => fingerprints $base, $on_changed; delta: $k; $($names),+);
    };
    ($relation:ident($($col:ident: $ty:ty),+) => fingerprints with payloads $base:ident, $on_changed:ident; delta: $k:ty;
        $($names:ident),+) => {
        $crate::__relation_methods!($relation($($col: $ty),+) as ($($col,)+), hashing ($(&$col,)+) => fingerprints with payloads $base, $on_changed; delta: $k; $($names),+);
    };
    // Kept as fingerprints, the views told the update's delta.
    ($relation:ident($($col:ident: $ty:ty),+) as $tuple:expr, hashing $hashed:expr => fingerprints $base:ident, $on_changed:ident; delta: $k:ty;
        $($names:ident),+) => {
        $crate::__relation_methods!(@fingerprints(<$k as $crate::Maintained>::RETRACTS_EXACTLY)
            $relation($($col: $ty),+) as $tuple, hashing $hashed => $base, $on_changed; delta: $k; $($names),+);
    };
    // Kept as fingerprints, for views that read the tuple's old and new
    // payloads (a semijoin's counts, which change only when the tuple
    // turns live or dead): the map says what they were.
    ($relation:ident($($col:ident: $ty:ty),+) as $tuple:expr, hashing $hashed:expr => fingerprints with payloads $base:ident, $on_changed:ident; delta: $k:ty;
        $($names:ident),+) => {
        $crate::__relation_methods!(@fingerprints(false)
            $relation($($col: $ty),+) as $tuple, hashing $hashed => $base, $on_changed; delta: $k; $($names),+);
    };
    // Kept as fingerprints: the map hashes `$hashed`, the row's columns
    // where they are (text borrowed as `&str`, which hashes as a `String`
    // does), so no column is cloned; the views are then given `$tuple`,
    // the columns they read, moved. With `$by_delta`, the views are told
    // the delta (`0 → delta` for an insert), without waiting for the map;
    // without, the payloads before and after that the map gives back.
    (@fingerprints($by_delta:expr) $relation:ident($($col:ident: $ty:ty),+) as $tuple:expr, hashing $hashed:expr => $base:ident, $on_changed:ident; delta: $k:ty;
        $update:ident, $insert:ident, $retract:ident, $delete:ident) => {
        #[doc = ::core::concat!(
            " `", ::core::stringify!($relation), "(", ::core::stringify!($($col),+),
            ") ⊕= delta`: adds one contribution `delta` to the tuple's payload (a zero `delta` changes nothing).",
        )]
        #[inline]
        pub fn $update(&mut self, $($col: $ty,)+ delta: $k) {
            // Where the semiring retracts exactly or linearly
            // (`Maintained::RETRACTS_EXACTLY`), the views change by `delta`
            // whatever the tuple's payload was (`ir::Kept::Fingerprinted`):
            // each update is a contribution of its own to their states, as
            // under trusted deletes, and a retraction the map accepts takes
            // one back. So they need not wait for the map's answer: the
            // processor overlaps its probe, a cache miss in a large
            // relation, with their work.
            if $by_delta {
                if !$crate::Semiring::is_zero(&delta) {
                    self.$base.add_delta(&$hashed, &delta);
                    let tuple = $tuple;
                    self.$on_changed(&tuple, &<$k as $crate::Semiring>::zero(), &delta);
                }
            } else {
                let changed = self.$base.add(&$hashed, &delta);
                if let ::core::option::Option::Some((old, new)) = changed {
                    let tuple = $tuple;
                    self.$on_changed(&tuple, &old, &new);
                }
            }
        }
        #[doc = ::core::concat!(
            " Retracts one earlier `", ::core::stringify!($update), "` of `",
            ::core::stringify!($relation), "(", ::core::stringify!($($col),+), ")` with this `delta`.",
        )]
        ///
        /// # Errors
        ///
        /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when no
        /// such contribution is alive; nothing changes then. The relation
        /// keeps its tuples' fingerprints, not the tuples: see
        /// `docs/design.md#how-a-delete-is-checked` for the one case this
        /// cannot tell.
        #[inline]
        pub fn $retract(&mut self, $($col: $ty,)+ delta: $k) -> $crate::Result<()> {
            let relation = ::core::stringify!($relation);
            // By `delta`, as in the update, once the map has found it live.
            if $by_delta {
                self.$base.retract_delta(&$hashed, &delta, relation)?;
                if !$crate::Semiring::is_zero(&delta) {
                    let tuple = $tuple;
                    self.$on_changed(&tuple, &delta, &<$k as $crate::Semiring>::zero());
                }
            } else {
                let changed = self.$base.retract(&$hashed, &delta, relation)?;
                if let ::core::option::Option::Some((old, new)) = changed {
                    let tuple = $tuple;
                    self.$on_changed(&tuple, &old, &new);
                }
            }
            ::core::result::Result::Ok(())
        }
        $crate::__relation_methods!($relation($($col: $ty),+); $update, $insert, $retract, $delete);
    };
    // Kept in a base map: the tuple without `as`.
    ($relation:ident($($col:ident: $ty:ty),+) => $base:ident, $on_changed:ident; delta: $k:ty;
        $($names:ident),+) => {
        $crate::__relation_methods!($relation($($col: $ty),+) as ($($col,)+) => $base, $on_changed; delta: $k; $($names),+);
    };
    // Kept in a base map, under inserts only.
    ($relation:ident($($col:ident: $ty:ty),+) as $tuple:expr => $base:ident, $on_changed:ident; delta: $k:ty;
        $update:ident, $insert:ident) => {
        $crate::__relation_methods!(@update $relation($($col: $ty),+) as $tuple => $base, $on_changed; delta: $k; $update);
        $crate::__relation_methods!($relation($($col: $ty),+); $update, $insert);
    };
    // Kept in a base map, under inserts and deletes.
    ($relation:ident($($col:ident: $ty:ty),+) as $tuple:expr => $base:ident, $on_changed:ident; delta: $k:ty;
        $update:ident, $insert:ident, $retract:ident, $delete:ident) => {
        $crate::__relation_methods!(@update $relation($($col: $ty),+) as $tuple => $base, $on_changed; delta: $k; $update);
        #[doc = ::core::concat!(
            " Retracts one earlier `", ::core::stringify!($update), "` of `",
            ::core::stringify!($relation), "(", ::core::stringify!($($col),+), ")` with this `delta`.",
        )]
        ///
        /// # Errors
        ///
        /// [`ivm::Error::AbsentTuple`](::ivm::Error::AbsentTuple) when no
        /// such contribution is alive; nothing changes then.
        #[inline]
        pub fn $retract(&mut self, $($col: $ty,)+ delta: $k) -> $crate::Result<()> {
            let tuple = $tuple;
            let retracted = self.$base.retract(&tuple, &delta, ::core::stringify!($relation))?;
            if let ::core::option::Option::Some((old, new)) = retracted {
                self.$on_changed(&tuple, &old, &new);
            }
            ::core::result::Result::Ok(())
        }
        $crate::__relation_methods!($relation($($col: $ty),+); $update, $insert, $retract, $delete);
    };
    (@update $relation:ident($($col:ident: $ty:ty),+) as $tuple:expr => $base:ident, $on_changed:ident; delta: $k:ty;
        $update:ident) => {
        #[doc = ::core::concat!(
            " `", ::core::stringify!($relation), "(", ::core::stringify!($($col),+),
            ") ⊕= delta`: adds one contribution `delta` to the tuple's payload (a zero `delta` changes nothing).",
        )]
        #[inline]
        pub fn $update(&mut self, $($col: $ty,)+ delta: $k) {
            let tuple = $tuple;
            let added = self.$base.add(::core::clone::Clone::clone(&tuple), &delta);
            if let ::core::option::Option::Some((old, new)) = added {
                self.$on_changed(&tuple, &old, &new);
            }
        }
    };
    // The shortcuts, under inserts only.
    ($relation:ident($($col:ident: $ty:ty),+); $update:ident, $insert:ident) => {
        #[doc = ::core::concat!(
            " Inserts `", ::core::stringify!($relation), "(", ::core::stringify!($($col),+),
            ")` once: `", ::core::stringify!($update), "(..., one)`.",
        )]
        #[inline]
        pub fn $insert(&mut self, $($col: $ty),+) {
            self.$update($($col,)+ $crate::Semiring::one());
        }
    };
    // The shortcuts, under inserts and deletes.
    ($relation:ident($($col:ident: $ty:ty),+); $update:ident, $insert:ident, $retract:ident, $delete:ident) => {
        $crate::__relation_methods!($relation($($col: $ty),+); $update, $insert);
        #[doc = ::core::concat!(
            " Retracts one earlier `", ::core::stringify!($insert), "` of `",
            ::core::stringify!($relation), "(", ::core::stringify!($($col),+),
            ")`: `", ::core::stringify!($retract), "(..., one)`, with its errors.",
        )]
        #[inline]
        pub fn $delete(&mut self, $($col: $ty),+) -> $crate::Result<()> {
            self.$retract($($col,)+ $crate::Semiring::one())
        }
    };
}
