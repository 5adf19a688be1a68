//! dbsp 0.349 (Feldera's engine), one worker: `Runtime::init_circuit(1,
//! ..)` runs the circuit on a worker thread of its own. A batch is pushed
//! into the input handles and committed with one `transaction()`; the
//! output's changes are read through `accumulate_output()` and applied to a
//! result map, which is what a reader then sees. The plans are the same as
//! differential-dataflow's (see `dd.rs`), with `aggregate(Min)` for the
//! minimum.

use dbsp::operator::Min;
use dbsp::typed_batch::{IndexedZSetReader, SpineSnapshot};
use dbsp::utils::{Tup2, Tup3};
use dbsp::{DBSPHandle, OrdZSet, OutputHandle, Runtime, ZSetHandle, ZWeight};
use ivm::__private::HashMap;

use crate::engines::{
    Multiset, add_count, connection_rows, exposed_rows, grouped_rows, read_connection,
    read_exposed, read_grouped,
};
use crate::measure::Engine;
use crate::workloads::{Connection, Edge, Exposed, Grouped};

type Output<K> = OutputHandle<SpineSnapshot<OrdZSet<K>>>;

/// An input handle with the batch's updates gathered first, then appended
/// at once.
struct Input<K> {
    handle: ZSetHandle<K>,
    pending: Vec<Tup2<K, ZWeight>>,
}

impl<K: dbsp::DBData> Input<K> {
    fn new(handle: ZSetHandle<K>) -> Self {
        Input {
            handle,
            pending: Vec::new(),
        }
    }

    fn push(&mut self, k: K, w: ZWeight) {
        self.pending.push(Tup2(k, w));
    }

    fn send(&mut self) {
        if !self.pending.is_empty() {
            self.handle.append(&mut self.pending);
        }
    }
}

/// The output changes of the last transaction.
fn changes<K: dbsp::DBData>(out: &Output<K>) -> impl Iterator<Item = (K, ZWeight)> {
    out.concat()
        .iter()
        .map(|(k, (), w)| (k, w))
        .collect::<Vec<_>>()
        .into_iter()
}

// ---------------------------------------------------------------------------
// (a)

pub struct DbspGrouped {
    circuit: DBSPHandle,
    r: Input<Tup2<u32, u32>>,
    s: Input<Tup2<u32, u32>>,
    out: Output<u32>,
    result: HashMap<u32, i64>,
}

impl Engine for DbspGrouped {
    type Update = Grouped;
    type Row = (u32, i64);

    fn new() -> Self {
        let (circuit, (r, s, out)) = Runtime::init_circuit(1, |c| {
            let (r, r_in) = c.add_input_zset::<Tup2<u32, u32>>();
            let (s, s_in) = c.add_input_zset::<Tup2<u32, u32>>();
            let r = r.map_index(|Tup2(k, _)| (*k, ()));
            let s = s.map_index(|Tup2(k, _)| (*k, ()));
            let q = r.join(&s, |k, (), ()| *k);
            Ok((r_in, s_in, q.accumulate_output()))
        })
        .expect("the dbsp circuit");
        DbspGrouped {
            circuit,
            r: Input::new(r),
            s: Input::new(s),
            out,
            result: HashMap::default(),
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Grouped], read: bool) -> i64 {
        for u in batch {
            let w = if u.insert { 1 } else { -1 };
            if u.s {
                self.s.push(Tup2(u.k, u.v), w);
            } else {
                self.r.push(Tup2(u.k, u.v), w);
            }
        }
        self.r.send();
        self.s.send();
        self.circuit.transaction().expect("a dbsp transaction");
        for (k, w) in changes(&self.out) {
            add_count(&mut self.result, k, w);
        }
        if !read {
            return 0;
        }
        read_grouped(&self.result, batch)
    }

    fn rows(&mut self) -> Vec<(u32, i64)> {
        grouped_rows(&self.result)
    }
}

// ---------------------------------------------------------------------------
// (b)

pub struct DbspTriangle {
    circuit: DBSPHandle,
    e: Input<Tup2<u32, u32>>,
    out: Output<()>,
    count: i64,
}

impl Engine for DbspTriangle {
    type Update = Edge;
    type Row = i64;

    fn new() -> Self {
        let (circuit, (e, out)) = Runtime::init_circuit(1, |c| {
            let (e, e_in) = c.add_input_zset::<Tup2<u32, u32>>();
            let by_dst = e.map_index(|Tup2(a, b)| (*b, *a));
            let by_src = e.map_index(|Tup2(a, b)| (*a, *b));
            let closing = e.map_index(|Tup2(c, a)| (Tup2(*c, *a), ()));
            let wedges = by_dst.join_index(&by_src, |_b, a, c| Some((Tup2(*c, *a), ())));
            let triangles = wedges.join(&closing, |_, (), ()| ());
            Ok((e_in, triangles.accumulate_output()))
        })
        .expect("the dbsp circuit");
        DbspTriangle {
            circuit,
            e: Input::new(e),
            out,
            count: 0,
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Edge], _read: bool) -> i64 {
        for u in batch {
            self.e.push(Tup2(u.a, u.b), if u.insert { 1 } else { -1 });
        }
        self.e.send();
        self.circuit.transaction().expect("a dbsp transaction");
        for ((), w) in changes(&self.out) {
            self.count += w;
        }
        self.count
    }

    fn rows(&mut self) -> Vec<i64> {
        vec![self.count]
    }
}

// ---------------------------------------------------------------------------
// (c) Cheapest connection.

pub struct DbspConnection {
    circuit: DBSPHandle,
    feeder: Input<Tup3<u32, u32, i64>>,
    route: Input<Tup3<u32, u32, i64>>,
    onward: Input<Tup3<u32, u32, i64>>,
    out: Output<Tup3<u32, u32, i64>>,
    result: Multiset<(u32, u32), i64>,
}

impl Engine for DbspConnection {
    type Update = Connection;
    type Row = (u32, u32, i64);

    fn new() -> Self {
        let (circuit, (feeder, route, onward, out)) = Runtime::init_circuit(1, |c| {
            let (f, f_in) = c.add_input_zset::<Tup3<u32, u32, i64>>();
            let (r, r_in) = c.add_input_zset::<Tup3<u32, u32, i64>>();
            let (o, o_in) = c.add_input_zset::<Tup3<u32, u32, i64>>();
            let feeder = f
                .map_index(|Tup3(origin, _, p)| (*origin, *p))
                .aggregate(Min);
            let onward = o.map_index(|Tup3(hub, _, p)| (*hub, *p)).aggregate(Min);
            let route = r
                .map_index(|Tup3(origin, hub, p)| (Tup2(*origin, *hub), *p))
                .aggregate(Min);
            let q = route
                .map_index(|(Tup2(origin, hub), p)| (*origin, Tup2(*hub, *p)))
                .join_index(&feeder, |origin, Tup2(hub, p), f| {
                    Some((*hub, Tup2(*origin, p + f)))
                })
                .join(&onward, |hub, Tup2(origin, p), w| {
                    Tup3(*origin, *hub, p + w)
                });
            Ok((f_in, r_in, o_in, q.accumulate_output()))
        })
        .expect("the dbsp circuit");
        DbspConnection {
            circuit,
            feeder: Input::new(feeder),
            route: Input::new(route),
            onward: Input::new(onward),
            out,
            result: Multiset::default(),
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Connection], read: bool) -> i64 {
        for u in batch {
            match *u {
                Connection::Feeder(o, f, p) => self.feeder.push(Tup3(o, f, p), 1),
                Connection::Route(o, h, p) => self.route.push(Tup3(o, h, p), 1),
                Connection::Onward(h, w, p) => self.onward.push(Tup3(h, w, p), 1),
            }
        }
        self.feeder.send();
        self.route.send();
        self.onward.send();
        self.circuit.transaction().expect("a dbsp transaction");
        for (Tup3(o, h, v), w) in changes(&self.out) {
            self.result.update((o, h), v, w as isize);
        }
        if !read {
            return 0;
        }
        read_connection(&self.result, batch)
    }

    fn rows(&mut self) -> Vec<(u32, u32, i64)> {
        connection_rows(&self.result)
    }
}

// ---------------------------------------------------------------------------
// (c) Exposed accounts.

pub struct DbspExposed {
    circuit: DBSPHandle,
    logins: Input<Tup2<u64, u64>>,
    flagged: Input<u64>,
    out: Output<u64>,
    result: HashMap<u64, i64>,
}

impl Engine for DbspExposed {
    type Update = Exposed;
    type Row = u64;

    fn new() -> Self {
        let (circuit, (logins, flagged, out)) = Runtime::init_circuit(1, |c| {
            let (l, l_in) = c.add_input_zset::<Tup2<u64, u64>>();
            let (f, f_in) = c.add_input_zset::<u64>();
            let flagged = f.distinct().map_index(|d| (*d, ()));
            let q = l
                .map_index(|Tup2(account, device)| (*device, *account))
                .join(&flagged, |_, account, ()| *account)
                .distinct();
            Ok((l_in, f_in, q.accumulate_output()))
        })
        .expect("the dbsp circuit");
        DbspExposed {
            circuit,
            logins: Input::new(logins),
            flagged: Input::new(flagged),
            out,
            result: HashMap::default(),
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Exposed], read: bool) -> i64 {
        for u in batch {
            match *u {
                Exposed::Login(a, d) => self.logins.push(Tup2(a, d), 1),
                Exposed::Flag(d) => self.flagged.push(d, 1),
            }
        }
        self.logins.send();
        self.flagged.send();
        self.circuit.transaction().expect("a dbsp transaction");
        for (a, w) in changes(&self.out) {
            add_count(&mut self.result, a, w);
        }
        if !read {
            return 0;
        }
        read_exposed(&self.result, batch)
    }

    fn rows(&mut self) -> Vec<u64> {
        exposed_rows(&self.result)
    }
}
