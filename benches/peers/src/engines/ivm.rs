//! The project's engines: the code `ivm_query!` generates with the default
//! strategy of each query (view tree, IVMε, two layers, CROWN), and the same
//! queries under `#[strategy(recompute)]` (the base relations only; the
//! query is evaluated by generic join when the result is read).

use ivm::semiring::MinPlus;

use crate::measure::Engine;
use crate::workloads::{Connection, Edge, Exposed, Grouped};

/// The queries, each also compiled with the recompute strategy.
pub mod queries {
    ivm::ivm_query! {
        #[semiring(ivm::semiring::Int)]
        pub query GroupedCount {
            relation R(k: u32, x: u32);
            relation S(k: u32, y: u32);
            Q(k) = R(k, x) * S(k, y);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Int)]
        #[strategy(recompute)]
        pub query GroupedCountRecompute {
            relation R(k: u32, x: u32);
            relation S(k: u32, y: u32);
            Q(k) = R(k, x) * S(k, y);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Int)]
        pub query Triangles {
            relation E(src: u32, dst: u32);
            Q() = E(a, b) * E(b, c) * E(c, a);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Int)]
        #[strategy(recompute)]
        pub query TrianglesRecompute {
            relation E(src: u32, dst: u32);
            Q() = E(a, b) * E(b, c) * E(c, a);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::MinPlus)]
        #[updates(insert_only)]
        pub query CheapestConnection {
            relation Feeder(origin: u32, feeder: u32);
            relation Route(origin: u32, hub: u32);
            relation Onward(hub: u32, onward: u32);
            Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::MinPlus)]
        #[updates(insert_only)]
        #[strategy(recompute)]
        pub query CheapestConnectionRecompute {
            relation Feeder(origin: u32, feeder: u32);
            relation Route(origin: u32, hub: u32);
            relation Onward(hub: u32, onward: u32);
            Q(origin, hub) = Feeder(origin, feeder) * Route(origin, hub) * Onward(hub, onward);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Bool)]
        #[updates(insert_only)]
        pub query ExposedAccounts {
            relation Logins(account: u64, device: u64);
            relation Flagged(device: u64);
            Q(account) = Logins(account, device) * Flagged(device);
        }
    }

    ivm::ivm_query! {
        #[semiring(ivm::semiring::Bool)]
        #[updates(insert_only)]
        #[strategy(recompute)]
        pub query ExposedAccountsRecompute {
            relation Logins(account: u64, device: u64);
            relation Flagged(device: u64);
            Q(account) = Logins(account, device) * Flagged(device);
        }
    }
}

use queries::*;

/// The project's engine for a query (`$q`), or its recompute variant.
pub struct Ivm<Q>(Q);

/// Implements [`Engine`] for a query's generated struct (`$q`) and for its
/// recompute variant (`$rc`). They differ only in how the fresh result is
/// read (see [`look!`]).
///
/// `apply` maps one update of the stream to the struct's methods, `read`
/// folds what the batch names into a checksum through `$look` (an output
/// tuple, by value, to its payload, zero when absent), and `rows` lists the
/// whole result.
macro_rules! engines {
    ($q:ident, $rc:ident, $update:ty, $row:ty,
     apply: |$db:ident, $u:ident| $apply:expr,
     read: |$look:ident, $batch:ident| $read:expr,
     rows: |$this:ident| $rows:expr) => {
        engines!(@one maintained $q, $update, $row, |$db, $u| $apply, |$look, $batch| $read, |$this| $rows);
        engines!(@one recompute $rc, $update, $row, |$db, $u| $apply, |$look, $batch| $read, |$this| $rows);
    };
    (@one $mode:ident $ty:ident, $update:ty, $row:ty,
     |$db:ident, $u:ident| $apply:expr,
     |$look:ident, $batch:ident| $read:expr,
     |$this:ident| $rows:expr) => {
        impl Engine for Ivm<$ty> {
            type Update = $update;
            type Row = $row;

            fn new() -> Self {
                Ivm($ty::new())
            }

            #[inline(never)]
            fn apply(&mut self, batch: &[$update], read: bool) -> i64 {
                let $db = &mut self.0;
                for $u in batch {
                    $apply
                }
                if !read {
                    return 0;
                }
                let $batch = batch;
                look!($mode, self.0, $look, $read)
            }

            fn rows(&mut self) -> Vec<$row> {
                let $this = &self.0;
                let mut rows: Vec<$row> = $rows;
                rows.sort_unstable();
                rows
            }
        }
    };
}

/// Evaluates `$read` with `$look` bound to a lookup of the fresh result:
/// `get` on the maintained struct; on the recompute one, `get` would
/// evaluate the query once per output tuple, so the query is evaluated
/// once per batch and the tuples are looked up in that.
macro_rules! look {
    (maintained, $db:expr, $look:ident, $read:expr) => {{
        let $look = |key| $db.get(&key);
        $read
    }};
    (recompute, $db:expr, $look:ident, $read:expr) => {{
        let result = $db.evaluate();
        let $look = |key| {
            result
                .get(&key)
                .cloned()
                .unwrap_or_else(ivm::Semiring::zero)
        };
        $read
    }};
}

// (a) Grouped count under inserts and deletes.
engines!(GroupedCount, GroupedCountRecompute, Grouped, (u32, i64),
    apply: |q, u| match (u.s, u.insert) {
        (false, true) => q.insert_r(u.k, u.v),
        (false, false) => q.delete_r(u.k, u.v).expect("a live tuple"),
        (true, true) => q.insert_s(u.k, u.v),
        (true, false) => q.delete_s(u.k, u.v).expect("a live tuple"),
    },
    read: |look, batch| batch.iter().fold(0, |acc, u| acc.wrapping_add(look((u.k,)).0)),
    rows: |q| q.iter().map(|((k,), v)| (k, v.0)).collect()
);

// (b) Triangle count under inserts and deletes.
engines!(Triangles, TrianglesRecompute, Edge, i64,
    apply: |q, e| if e.insert {
        q.insert_e(e.a, e.b);
    } else {
        q.delete_e(e.a, e.b).expect("a live edge");
    },
    read: |look, _batch| look(()).0,
    rows: |q| vec![q.get(&()).0]
);

// (c) Cheapest connection under inserts.
engines!(CheapestConnection, CheapestConnectionRecompute, Connection, (u32, u32, i64),
    apply: |q, u| match *u {
        Connection::Feeder(o, f, p) => q.update_feeder(o, f, MinPlus(p)),
        Connection::Route(o, h, p) => q.update_route(o, h, MinPlus(p)),
        Connection::Onward(h, w, p) => q.update_onward(h, w, MinPlus(p)),
    },
    read: |look, batch| batch.iter().fold(0, |acc, u| match *u {
        Connection::Route(o, h, _) => acc.wrapping_add(look((o, h)).0),
        _ => acc,
    }),
    rows: |q| q.iter().map(|((o, h), v)| (o, h, v.0)).collect()
);

// (c) Exposed accounts under inserts.
engines!(ExposedAccounts, ExposedAccountsRecompute, Exposed, u64,
    apply: |q, u| match *u {
        Exposed::Login(a, d) => q.insert_logins(a, d),
        Exposed::Flag(d) => q.insert_flagged(d),
    },
    read: |look, batch| batch.iter().fold(0, |acc, u| match *u {
        Exposed::Login(a, _) => acc + i64::from(look((a,)).0),
        Exposed::Flag(_) => acc,
    }),
    rows: |q| q.iter().filter(|(_, v)| v.0).map(|((a,), _)| a).collect()
);
