//! differential-dataflow 0.26 on timely 0.32, one worker on the calling
//! thread. One logical time per batch: the batch's updates are pushed into
//! the input sessions, every input advances to the next time and is
//! flushed, and the worker steps until the probe passes the batch's time.
//! The output's changes are captured with `inspect_batch` and applied to a
//! result map, which is what a reader then sees.
//!
//! The plans are the ones a differential-dataflow user would write:
//! - grouped count: `R` and `S` projected on `k` and joined (the join
//!   multiplies the multiplicities, so the output is `k` with multiplicity
//!   `|R_k|·|S_k|`: O(1) per update, like the view tree);
//! - triangles: the wedges `E(a, b) ⋈ E(b, c)` keyed by `(c, a)`, joined
//!   with `E` (binary joins: the wedges are materialized);
//! - cheapest connection: the minimum per origin, hub and route with
//!   `reduce`, then two joins;
//! - exposed accounts: `distinct` flags, a semijoin, `distinct` accounts.

use std::cell::RefCell;
use std::rc::Rc;

use differential_dataflow::input::{Input, InputSession};
use ivm::__private::HashMap;
use timely::communication::Allocator;
use timely::communication::allocator::thread::Thread;
use timely::dataflow::operators::probe::Handle;
use timely::worker::Worker;

use crate::engines::{
    Multiset, add_count, connection_rows, exposed_rows, grouped_rows, read_connection,
    read_exposed, read_grouped,
};
use crate::measure::Engine;
use crate::workloads::{Connection, Edge, Exposed, Grouped};

type Time = u64;

fn worker() -> Worker {
    Worker::new(
        timely::WorkerConfig::default(),
        Allocator::Thread(Thread::default()),
        Some(std::time::Instant::now()),
    )
}

/// The captured output changes of the current batch.
type Sink<D> = Rc<RefCell<Vec<(D, isize)>>>;

/// Steps the worker until the probe has passed `time`.
fn settle(worker: &mut Worker, probe: &Handle<Time>, time: Time) {
    worker.step_while(|| probe.less_than(&time));
}

// ---------------------------------------------------------------------------
// (a)

pub struct DdGrouped {
    worker: Worker,
    r: InputSession<Time, (u32, u32), isize>,
    s: InputSession<Time, (u32, u32), isize>,
    probe: Handle<Time>,
    sink: Sink<u32>,
    result: HashMap<u32, i64>,
    time: Time,
}

impl Engine for DdGrouped {
    type Update = Grouped;
    type Row = (u32, i64);

    fn new() -> Self {
        let mut worker = worker();
        let sink: Sink<u32> = Rc::default();
        let out = sink.clone();
        let (r, s, probe) = worker.dataflow::<Time, _, _>(move |scope| {
            let (r_in, r) = scope.new_collection::<(u32, u32), isize>();
            let (s_in, s) = scope.new_collection::<(u32, u32), isize>();
            let r = r.map(|(k, _)| (k, ())).arrange_by_key();
            let s = s.map(|(k, _)| (k, ())).arrange_by_key();
            let (probe, _) = r
                .join_core(s, |k, _, _| Some(*k))
                .inspect_batch(move |_, xs| {
                    out.borrow_mut().extend(xs.iter().map(|(k, _, d)| (*k, *d)));
                })
                .probe();
            (r_in, s_in, probe)
        });
        DdGrouped {
            worker,
            r,
            s,
            probe,
            sink,
            result: HashMap::default(),
            time: 0,
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Grouped], read: bool) -> i64 {
        for u in batch {
            let d = if u.insert { 1 } else { -1 };
            if u.s {
                self.s.update((u.k, u.v), d);
            } else {
                self.r.update((u.k, u.v), d);
            }
        }
        self.time += 1;
        for input in [&mut self.r, &mut self.s] {
            input.advance_to(self.time);
            input.flush();
        }
        settle(&mut self.worker, &self.probe, self.time);
        for (k, d) in self.sink.borrow_mut().drain(..) {
            add_count(&mut self.result, k, d as i64);
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

pub struct DdTriangle {
    worker: Worker,
    e: InputSession<Time, (u32, u32), isize>,
    probe: Handle<Time>,
    sink: Sink<()>,
    count: i64,
    time: Time,
}

impl Engine for DdTriangle {
    type Update = Edge;
    type Row = i64;

    fn new() -> Self {
        let mut worker = worker();
        let sink: Sink<()> = Rc::default();
        let out = sink.clone();
        let (e, probe) = worker.dataflow::<Time, _, _>(move |scope| {
            let (e_in, e) = scope.new_collection::<(u32, u32), isize>();
            // E(a, b) by b, E(b, c) by b: the wedges a -> b -> c, by (c, a).
            let by_dst = e.clone().map(|(a, b)| (b, a)).arrange_by_key();
            let by_src = e.clone().arrange_by_key();
            let closing = e.map(|(c, a)| ((c, a), ())).arrange_by_key();
            let wedges = by_dst
                .join_core(by_src, |_b, a, c| Some(((*c, *a), ())))
                .arrange_by_key();
            let (probe, _) = wedges
                .join_core(closing, |_, _, _| Some(()))
                .inspect_batch(move |_, xs| {
                    out.borrow_mut().extend(xs.iter().map(|(_, _, d)| ((), *d)));
                })
                .probe();
            (e_in, probe)
        });
        DdTriangle {
            worker,
            e,
            probe,
            sink,
            count: 0,
            time: 0,
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Edge], _read: bool) -> i64 {
        for u in batch {
            self.e.update((u.a, u.b), if u.insert { 1 } else { -1 });
        }
        self.time += 1;
        self.e.advance_to(self.time);
        self.e.flush();
        settle(&mut self.worker, &self.probe, self.time);
        for ((), d) in self.sink.borrow_mut().drain(..) {
            self.count += d as i64;
        }
        self.count
    }

    fn rows(&mut self) -> Vec<i64> {
        vec![self.count]
    }
}

// ---------------------------------------------------------------------------
// (c) Cheapest connection.

pub struct DdConnection {
    worker: Worker,
    feeder: InputSession<Time, (u32, u32, i64), isize>,
    route: InputSession<Time, (u32, u32, i64), isize>,
    onward: InputSession<Time, (u32, u32, i64), isize>,
    probe: Handle<Time>,
    sink: Sink<((u32, u32), i64)>,
    result: Multiset<(u32, u32), i64>,
    time: Time,
}

fn min_value<K, V: Copy>(_key: &K, input: &[(&V, isize)], output: &mut Vec<(V, isize)>) {
    // The input is sorted by value, and holds only values with a non-zero
    // (here: positive) multiplicity.
    output.push((*input[0].0, 1));
}

impl Engine for DdConnection {
    type Update = Connection;
    type Row = (u32, u32, i64);

    fn new() -> Self {
        let mut worker = worker();
        let sink: Sink<((u32, u32), i64)> = Rc::default();
        let out = sink.clone();
        let (feeder, route, onward, probe) = worker.dataflow::<Time, _, _>(move |scope| {
            let (f_in, f) = scope.new_collection::<(u32, u32, i64), isize>();
            let (r_in, r) = scope.new_collection::<(u32, u32, i64), isize>();
            let (o_in, o) = scope.new_collection::<(u32, u32, i64), isize>();
            let feeder = f.map(|(origin, _, p)| (origin, p)).reduce(min_value);
            let onward = o.map(|(hub, _, p)| (hub, p)).reduce(min_value);
            let route = r
                .map(|(origin, hub, p)| ((origin, hub), p))
                .reduce(min_value);
            let (probe, _) = route
                .map(|((origin, hub), p)| (origin, (hub, p)))
                .join_map(feeder, |origin, &(hub, p), f| (hub, (*origin, p + f)))
                .join_map(onward, |hub, &(origin, p), w| ((origin, *hub), p + w))
                .inspect_batch(move |_, xs| {
                    out.borrow_mut().extend(xs.iter().map(|(x, _, d)| (*x, *d)));
                })
                .probe();
            (f_in, r_in, o_in, probe)
        });
        DdConnection {
            worker,
            feeder,
            route,
            onward,
            probe,
            sink,
            result: Multiset::default(),
            time: 0,
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Connection], read: bool) -> i64 {
        for u in batch {
            match *u {
                Connection::Feeder(o, f, p) => self.feeder.update((o, f, p), 1),
                Connection::Route(o, h, p) => self.route.update((o, h, p), 1),
                Connection::Onward(h, w, p) => self.onward.update((h, w, p), 1),
            }
        }
        self.time += 1;
        for input in [&mut self.feeder, &mut self.route, &mut self.onward] {
            input.advance_to(self.time);
            input.flush();
        }
        settle(&mut self.worker, &self.probe, self.time);
        for ((key, value), d) in self.sink.borrow_mut().drain(..) {
            self.result.update(key, value, d);
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

pub struct DdExposed {
    worker: Worker,
    logins: InputSession<Time, (u64, u64), isize>,
    flagged: InputSession<Time, u64, isize>,
    probe: Handle<Time>,
    sink: Sink<u64>,
    result: HashMap<u64, i64>,
    time: Time,
}

impl Engine for DdExposed {
    type Update = Exposed;
    type Row = u64;

    fn new() -> Self {
        let mut worker = worker();
        let sink: Sink<u64> = Rc::default();
        let out = sink.clone();
        let (logins, flagged, probe) = worker.dataflow::<Time, _, _>(move |scope| {
            let (l_in, logins) = scope.new_collection::<(u64, u64), isize>();
            let (f_in, flagged) = scope.new_collection::<u64, isize>();
            let (probe, _) = logins
                .map(|(account, device)| (device, account))
                .semijoin(flagged.distinct())
                .map(|(_, account)| account)
                .distinct()
                .inspect_batch(move |_, xs| {
                    out.borrow_mut().extend(xs.iter().map(|(a, _, d)| (*a, *d)));
                })
                .probe();
            (l_in, f_in, probe)
        });
        DdExposed {
            worker,
            logins,
            flagged,
            probe,
            sink,
            result: HashMap::default(),
            time: 0,
        }
    }

    #[inline(never)]
    fn apply(&mut self, batch: &[Exposed], read: bool) -> i64 {
        for u in batch {
            match *u {
                Exposed::Login(a, d) => self.logins.update((a, d), 1),
                Exposed::Flag(d) => self.flagged.update(d, 1),
            }
        }
        self.time += 1;
        self.logins.advance_to(self.time);
        self.logins.flush();
        self.flagged.advance_to(self.time);
        self.flagged.flush();
        settle(&mut self.worker, &self.probe, self.time);
        for (a, d) in self.sink.borrow_mut().drain(..) {
            add_count(&mut self.result, a, d as i64);
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
