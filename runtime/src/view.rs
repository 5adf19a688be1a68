//! [`View`] and [`Retract`]: what every struct `ivm_query!` (or `build.rs`,
//! or `ivmc compile`) generates implements, so that code written once
//! (loaders, benchmarks, the fuzzer, sharding) works over any query.
//!
//! The generated struct has the same methods inherently, with the
//! relation-specific ones (`update_<relation>`, `delete_<relation>`, ...)
//! besides; the traits name the part every query shares, over its change
//! enum (`<Query>Change`), its output tuple and its payload.

use std::hash::{BuildHasher, Hash};

/// The hasher of [`Route::by`]: a fixed seed, the same in every process.
const ROUTES: foldhash::fast::FixedState =
    foldhash::fast::FixedState::with_seed(0x1f3d_5b79_a2c4_e681);

use crate::{Error, Semiring};

/// A maintained query: its result, read with constant delay where the
/// strategy promises it, and kept fresh by batches of single-tuple updates.
///
/// ```
/// use ivm::View;
/// use ivm::semiring::Int;
///
/// ivm::ivm_query! {
///     pub query Revenue {
///         relation Sales(store: u32, item: u64);
///         relation Prices(store: u32, item: u64);
///         Q(store) = Sales(store, item) * Prices(store, item);
///     }
/// }
///
/// /// The total of any query's result, whatever its shape.
/// fn total<V: View<Payload = Int>>(view: &V) -> i64 {
///     view.iter().map(|(_, payload)| payload.0).sum()
/// }
///
/// let mut q = Revenue::default();
/// q.apply([
///     RevenueChange::Sales { store: 1, item: 7, delta: Int(3) },
///     RevenueChange::Prices { store: 1, item: 7, delta: Int(250) },
/// ]);
/// assert_eq!(total(&q), 750);
/// assert_eq!(View::get(&q, &(1,)), Int(750));
/// ```
pub trait View: Default {
    /// One single-tuple update of one of the query's relations: the
    /// generated `<Query>Change` enum.
    type Change;
    /// An output tuple: the head variables' values, in head order (`()`
    /// for a nullary head).
    type Key;
    /// The payload semiring.
    type Payload: Semiring;

    /// Applies a batch of updates in order, each `R(t) ⊕= delta`.
    fn apply<I: IntoIterator<Item = Self::Change>>(&mut self, changes: I);

    /// The result: each output tuple with its non-zero payload.
    fn iter(&self) -> impl Iterator<Item = (Self::Key, Self::Payload)> + '_;

    /// One output tuple's payload; zero when it is not in the result.
    fn get(&self, key: &Self::Key) -> Self::Payload;

    /// The number of output tuples.
    fn len(&self) -> usize;

    /// Whether the result is empty.
    fn is_empty(&self) -> bool;

    /// The output tuples whose payload changed since the previous call,
    /// each with its payload then and now (zero for a tuple not in the
    /// result then, or not now); a tuple that changed and changed back is
    /// not among them. The first call reports the whole result, against
    /// the empty one (tracking starts there: a program that never calls
    /// it pays nothing for it), and so does the first call after a
    /// `restore`.
    fn changes(&mut self) -> impl Iterator<Item = (Self::Key, Self::Payload, Self::Payload)> + '_;

    /// [`Retract::retract`] where the query takes retractions, `None`
    /// where it does not: how the durable log replays a retraction
    /// without knowing the query's update model. Generated code fills it
    /// in.
    #[doc(hidden)]
    fn __retract(&mut self, change: Self::Change) -> Option<Result<(), Error>> {
        let _ = change;
        None
    }
}

/// A query maintained under inserts and deletes (`#[updates(insert_delete)]`):
/// an earlier update can be taken back.
pub trait Retract: View {
    /// Retracts one earlier update that added this change's `delta` to its
    /// tuple (`retract_<relation>`).
    ///
    /// # Errors
    ///
    /// [`Error::AbsentTuple`] when no such contribution is alive; nothing
    /// changes then.
    fn retract(&mut self, change: Self::Change) -> Result<(), Error>;
}

/// Where a sharded run sends one change: the partition plan of its query
/// (`docs/design.md#the-partition-plan`), for one relation's updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// To the worker `hash % workers`: the relation is hash-partitioned on
    /// a column, whose value hashes to this.
    Hash(u64),
    /// To every worker: the relation is replicated.
    Every,
    /// To the first worker: the query runs on one.
    First,
}

impl Route {
    /// The route of a change whose partitioning column holds `key`.
    ///
    /// The hash is foldhash's fast hash with a fixed seed: the same in
    /// every process of one build, so that the processes of a sharded run
    /// agree on where a change goes, and a few nanoseconds for the small
    /// keys routes are taken on (SipHash costs several times that).
    ///
    /// ```
    /// use ivm::Route;
    /// assert_eq!(Route::by(&7_u32), Route::by(&7_u32));
    /// ```
    pub fn by<T: Hash + ?Sized>(key: &T) -> Route {
        Route::Hash(ROUTES.hash_one(key))
    }

    /// The worker among `workers` (at least one) that holds the change,
    /// or `None` for every worker.
    pub fn worker(self, workers: usize) -> Option<usize> {
        match self {
            // The remainder is below `workers`, so it fits a `usize`.
            Route::Hash(h) => Some((h % workers.max(1) as u64) as usize),
            Route::Every => None,
            Route::First => Some(0),
        }
    }
}

/// A query whose changes a sharded run can route to workers: every
/// generated struct. Each derivation of an output tuple then happens on
/// one worker, and the result is the ⊕ of the workers' results per
/// output tuple.
///
/// ```
/// use ivm::{Route, Routed};
/// use ivm::semiring::Int;
///
/// ivm::ivm_query! {
///     pub query Revenue {
///         relation Sales(store: u32, item: u64);
///         relation Prices(store: u32, item: u64);
///         Q(store) = Sales(store, item) * Prices(store, item);
///     }
/// }
///
/// let change = RevenueChange::Sales { store: 1, item: 7, delta: Int(3) };
/// assert_eq!(Revenue::route(&change), Route::by(&1_u32));
/// ```
pub trait Routed: View {
    /// Where `change` goes.
    fn route(change: &Self::Change) -> Route;
}

/// Implements a generated query's `apply` (inherent), [`View`], and under
/// inserts and deletes [`Retract`], from its change enum's variants and the
/// method each one calls:
///
/// ```text
/// impl_view!(Query, Key, Payload, QueryChange {
///     Sales = 0 { store, item, delta } by store => update_sales / retract_sales,
///     Prices = 1 { store, item, delta } to every => update_prices / retract_prices,
/// });
/// ```
///
/// Each variant's route ([`Routed`]) is `by <field>` (hash-partitioned on
/// that field), `to every` (replicated) or `to first` (one worker).
///
/// A query without deletes names its update methods only. The indexes
/// number the variants for serde (`impl_change_state!`). `Default` is
/// `new()`. `View`'s
/// other methods forward to the inherent ones of the same names. Generated
/// code reaches it as `::ivm::__private::impl_view!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_view {
    // Under inserts and deletes.
    ($query:ident, $key:ty, $payload:ty, $change:ident {
        $($variant:ident = $index:literal { $($field:ident),* } $how:ident $to:ident => $update:ident / $retract:ident),+ $(,)?
    }) => {
        $crate::__impl_change_state!($change { $($variant = $index { $($field),* }),+ });
        $crate::__impl_view!(@route $query, $change { $($variant { $($field),* } $how $to),+ });
        $crate::__impl_view!(@apply $query, $change { $($variant { $($field),* } => $update),+ });
        $crate::__impl_view!(@view $query, $key, $payload, $change, {
            fn __retract(&mut self, change: $change) -> ::core::option::Option<$crate::Result<()>> {
                ::core::option::Option::Some(<$query as $crate::Retract>::retract(self, change))
            }
        });
        impl $crate::Retract for $query {
            fn retract(&mut self, change: $change) -> $crate::Result<()> {
                match change {
                    $($change::$variant { $($field),* } => self.$retract($($field),*),)+
                }
            }
        }
    };
    // Under inserts only.
    ($query:ident, $key:ty, $payload:ty, $change:ident {
        $($variant:ident = $index:literal { $($field:ident),* } $how:ident $to:ident => $update:ident),+ $(,)?
    }) => {
        $crate::__impl_change_state!($change { $($variant = $index { $($field),* }),+ });
        $crate::__impl_view!(@route $query, $change { $($variant { $($field),* } $how $to),+ });
        $crate::__impl_view!(@apply $query, $change { $($variant { $($field),* } => $update),+ });
        $crate::__impl_view!(@view $query, $key, $payload, $change, {});
    };
    (@route $query:ident, $change:ident { $($variant:ident { $($field:ident),* } $how:ident $to:ident),+ }) => {
        impl $crate::Routed for $query {
            fn route(change: &$change) -> $crate::Route {
                match change {
                    $($change::$variant { $($field),* } => {
                        let _ = ($($field,)*);
                        $crate::__impl_view!(@to $how $to)
                    })+
                }
            }
        }
    };
    (@to by $field:ident) => { $crate::Route::by($field) };
    (@to to every) => { $crate::Route::Every };
    (@to to first) => { $crate::Route::First };
    (@apply $query:ident, $change:ident { $($variant:ident { $($field:ident),* } => $update:ident),+ }) => {
        #[allow(dead_code, reason = "generated API: not every method is used")]
        impl $query {
            /// Applies a batch of updates in order.
            pub fn apply<I: ::core::iter::IntoIterator<Item = $change>>(&mut self, changes: I) {
                for change in changes {
                    match change {
                        $($change::$variant { $($field),* } => self.$update($($field),*),)+
                    }
                }
            }
        }
    };
    (@view $query:ident, $key:ty, $payload:ty, $change:ident, { $($more:tt)* }) => {
        impl ::core::default::Default for $query {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $crate::View for $query {
            $($more)*

            type Change = $change;
            type Key = $key;
            type Payload = $payload;

            fn apply<I: ::core::iter::IntoIterator<Item = $change>>(&mut self, changes: I) {
                $query::apply(self, changes);
            }

            fn iter(&self) -> impl ::core::iter::Iterator<Item = ($key, $payload)> + '_ {
                $query::iter(self)
            }

            fn get(&self, key: &$key) -> $payload {
                $query::get(self, key)
            }

            fn len(&self) -> usize {
                $query::len(self)
            }

            fn is_empty(&self) -> bool {
                $query::is_empty(self)
            }

            fn changes(&mut self) -> impl ::core::iter::Iterator<Item = ($key, $payload, $payload)> + '_ {
                $query::changes(self)
            }
        }
    };
}

/// A value for a text (`String`) column of a generated update method:
/// a `String`, which is moved in, or a `&str` (or `&String`, `Box<str>`,
/// `Cow<str>`), which is copied only if a view keeps the column.
///
/// Every `update_<relation>`, `insert_<relation>`, `retract_<relation>`
/// and `delete_<relation>` takes its text columns as `impl Text`. Where a
/// relation keeps no tuple (its fingerprints, or nothing under trusted
/// deletes), a column that no view reads is only hashed where it is, so a
/// caller whose rows are borrowed (the fields of a line it read) allocates
/// nothing for it. Either form gives the same fingerprint, so a row
/// inserted from a `&str` can be deleted from a `String`, and back.
///
/// ```
/// use ivm::Text;
///
/// fn keep(column: impl Text) -> String {
///     column.into()
/// }
/// assert_eq!(keep("TRUCK"), "TRUCK");
/// assert_eq!(keep(String::from("MAIL")), "MAIL");
/// ```
pub trait Text: AsRef<str> + Into<String> {}

impl<T: AsRef<str> + Into<String>> Text for T {}
