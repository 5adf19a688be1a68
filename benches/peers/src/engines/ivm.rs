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

// ---------------------------------------------------------------------------
// (a)

macro_rules! grouped_updates {
    ($q:expr, $batch:expr) => {
        for u in $batch {
            match (u.s, u.insert) {
                (false, true) => $q.insert_r(u.k, u.v),
                (false, false) => $q.delete_r(u.k, u.v).expect("a live tuple"),
                (true, true) => $q.insert_s(u.k, u.v),
                (true, false) => $q.delete_s(u.k, u.v).expect("a live tuple"),
            }
        }
    };
}

impl Engine for Ivm<GroupedCount> {
    type Update = Grouped;
    type Row = (u32, i64);

    fn new() -> Self {
        Ivm(GroupedCount::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Grouped], read: bool) -> i64 {
        grouped_updates!(self.0, batch);
        if !read {
            return 0;
        }
        batch
            .iter()
            .fold(0, |acc, u| acc.wrapping_add(self.0.get(&(u.k,)).0))
    }

    fn rows(&mut self) -> Vec<(u32, i64)> {
        let mut rows: Vec<_> = self.0.iter().map(|((k,), v)| (k, v.0)).collect();
        rows.sort_unstable();
        rows
    }
}

impl Engine for Ivm<GroupedCountRecompute> {
    type Update = Grouped;
    type Row = (u32, i64);

    fn new() -> Self {
        Ivm(GroupedCountRecompute::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Grouped], read: bool) -> i64 {
        grouped_updates!(self.0, batch);
        if !read {
            return 0;
        }
        let result = self.0.evaluate();
        batch.iter().fold(0, |acc, u| {
            acc.wrapping_add(result.get(&(u.k,)).map_or(0, |v| v.0))
        })
    }

    fn rows(&mut self) -> Vec<(u32, i64)> {
        let mut rows: Vec<_> = self.0.iter().map(|((k,), v)| (k, v.0)).collect();
        rows.sort_unstable();
        rows
    }
}

// ---------------------------------------------------------------------------
// (b)

macro_rules! edge_updates {
    ($q:expr, $batch:expr) => {
        for e in $batch {
            if e.insert {
                $q.insert_e(e.a, e.b);
            } else {
                $q.delete_e(e.a, e.b).expect("a live edge");
            }
        }
    };
}

impl Engine for Ivm<Triangles> {
    type Update = Edge;
    type Row = i64;

    fn new() -> Self {
        Ivm(Triangles::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Edge], read: bool) -> i64 {
        edge_updates!(self.0, batch);
        if read { self.0.get(&()).0 } else { 0 }
    }

    fn rows(&mut self) -> Vec<i64> {
        vec![self.0.get(&()).0]
    }
}

impl Engine for Ivm<TrianglesRecompute> {
    type Update = Edge;
    type Row = i64;

    fn new() -> Self {
        Ivm(TrianglesRecompute::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Edge], read: bool) -> i64 {
        edge_updates!(self.0, batch);
        if read { self.0.get(&()).0 } else { 0 }
    }

    fn rows(&mut self) -> Vec<i64> {
        vec![self.0.get(&()).0]
    }
}

// ---------------------------------------------------------------------------
// (c) Cheapest connection.

macro_rules! connection_updates {
    ($q:expr, $batch:expr) => {
        for u in $batch {
            match *u {
                Connection::Feeder(o, f, p) => $q.update_feeder(o, f, MinPlus(p)),
                Connection::Route(o, h, p) => $q.update_route(o, h, MinPlus(p)),
                Connection::Onward(h, w, p) => $q.update_onward(h, w, MinPlus(p)),
            }
        }
    };
}

impl Engine for Ivm<CheapestConnection> {
    type Update = Connection;
    type Row = (u32, u32, i64);

    fn new() -> Self {
        Ivm(CheapestConnection::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Connection], read: bool) -> i64 {
        connection_updates!(self.0, batch);
        if !read {
            return 0;
        }
        batch.iter().fold(0, |acc, u| match *u {
            Connection::Route(o, h, _) => acc.wrapping_add(self.0.get(&(o, h)).0),
            _ => acc,
        })
    }

    fn rows(&mut self) -> Vec<(u32, u32, i64)> {
        let mut rows: Vec<_> = self.0.iter().map(|((o, h), v)| (o, h, v.0)).collect();
        rows.sort_unstable();
        rows
    }
}

impl Engine for Ivm<CheapestConnectionRecompute> {
    type Update = Connection;
    type Row = (u32, u32, i64);

    fn new() -> Self {
        Ivm(CheapestConnectionRecompute::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Connection], read: bool) -> i64 {
        connection_updates!(self.0, batch);
        if !read {
            return 0;
        }
        let result = self.0.evaluate();
        batch.iter().fold(0, |acc, u| match *u {
            Connection::Route(o, h, _) => acc.wrapping_add(result.get(&(o, h)).map_or(0, |v| v.0)),
            _ => acc,
        })
    }

    fn rows(&mut self) -> Vec<(u32, u32, i64)> {
        let mut rows: Vec<_> = self.0.iter().map(|((o, h), v)| (o, h, v.0)).collect();
        rows.sort_unstable();
        rows
    }
}

// ---------------------------------------------------------------------------
// (c) Exposed accounts.

macro_rules! exposed_updates {
    ($q:expr, $batch:expr) => {
        for u in $batch {
            match *u {
                Exposed::Login(a, d) => $q.insert_logins(a, d),
                Exposed::Flag(d) => $q.insert_flagged(d),
            }
        }
    };
}

impl Engine for Ivm<ExposedAccounts> {
    type Update = Exposed;
    type Row = u64;

    fn new() -> Self {
        Ivm(ExposedAccounts::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Exposed], read: bool) -> i64 {
        exposed_updates!(self.0, batch);
        if !read {
            return 0;
        }
        batch.iter().fold(0, |acc, u| match *u {
            Exposed::Login(a, _) => acc + i64::from(self.0.get(&(a,)).0),
            Exposed::Flag(_) => acc,
        })
    }

    fn rows(&mut self) -> Vec<u64> {
        let mut rows: Vec<_> = self
            .0
            .iter()
            .filter(|(_, v)| v.0)
            .map(|((a,), _)| a)
            .collect();
        rows.sort_unstable();
        rows
    }
}

impl Engine for Ivm<ExposedAccountsRecompute> {
    type Update = Exposed;
    type Row = u64;

    fn new() -> Self {
        Ivm(ExposedAccountsRecompute::new())
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Exposed], read: bool) -> i64 {
        exposed_updates!(self.0, batch);
        if !read {
            return 0;
        }
        let result = self.0.evaluate();
        batch.iter().fold(0, |acc, u| match *u {
            Exposed::Login(a, _) => acc + i64::from(result.get(&(a,)).is_some_and(|v| v.0)),
            Exposed::Flag(_) => acc,
        })
    }

    fn rows(&mut self) -> Vec<u64> {
        let mut rows: Vec<_> = self
            .0
            .iter()
            .filter(|(_, v)| v.0)
            .map(|((a,), _)| a)
            .collect();
        rows.sort_unstable();
        rows
    }
}
