//! Q1, Q3, Q6, Q10 and Q14 in differential-dataflow, one worker. Each is
//! given the columns its plan reads, in the generator's integer units,
//! which spares it cloning and hashing the rest; sums are multiplicities.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use differential_dataflow::input::{Input, InputSession};
use ivm_generated_examples::tpch::data::Database;
use timely::communication::Allocator;
use timely::communication::allocator::thread::Thread;
use timely::dataflow::operators::probe::Handle;
use timely::worker::Worker;

use crate::rows::{Op, Ref, Table};

type Time = u64;

/// The columns of a line the plans read: order, part, flag, status,
/// quantity, price, discount, tax, ship date.
pub type Line = (i64, i64, char, char, i64, i64, i64, i64, i32);

/// The columns of an order the plans read: order, customer, date,
/// priority.
type Order = (i64, i64, i32, i32);

/// A plan: its inputs (customer and segment, orders, lines, part and
/// type), probe and the result its output changes accumulate into.
pub struct Dd<K> {
    worker: Worker,
    customers: InputSession<Time, (i64, String), isize>,
    orders: InputSession<Time, Order, isize>,
    lines: InputSession<Time, Line, isize>,
    parts: InputSession<Time, (i64, String), isize>,
    probe: Handle<Time>,
    sink: Rc<RefCell<Vec<(K, isize)>>>,
    result: HashMap<K, i64>,
    time: Time,
}

enum Columns {
    C((i64, String)),
    O(Order),
    L(Line),
    P((i64, String)),
}

/// The columns of a row the plans read; `None` for the tables none reads
/// (every customer has a nation, so Q10's plan needs none).
fn columns(db: &Database, Ref(table, i): Ref) -> Option<Columns> {
    Some(match table {
        Table::Customer => {
            let c = &db.customers[i];
            Columns::C((c.custkey, c.mktsegment.clone()))
        }
        Table::Orders => {
            let o = &db.orders[i];
            Columns::O((o.orderkey, o.custkey, o.orderdate, o.shippriority))
        }
        Table::Lineitem => {
            let l = &db.lineitems[i];
            Columns::L((
                l.orderkey,
                l.partkey,
                l.returnflag,
                l.linestatus,
                l.quantity,
                l.extendedprice,
                l.discount,
                l.tax,
                l.shipdate,
            ))
        }
        Table::Part => {
            let p = &db.parts[i];
            Columns::P((p.partkey, p.r#type.clone()))
        }
        Table::Region | Table::Nation | Table::Supplier | Table::PartSupp => return None,
    })
}

impl<K: Clone + Eq + std::hash::Hash + 'static> Dd<K> {
    /// Runs the stream `ops`, `batch` rows per logical time (1: a fresh
    /// result after every row), and returns the time taken and the result.
    pub fn run(mut self, db: &Database, ops: &[Op], batch: usize) -> (Duration, HashMap<K, i64>) {
        let inputs: Vec<(isize, Columns)> = ops
            .iter()
            .filter_map(|&(insert, r)| Some((if insert { 1 } else { -1 }, columns(db, r)?)))
            .collect();
        let n = inputs.len();
        let start = Instant::now();
        for (i, (diff, columns)) in inputs.into_iter().enumerate() {
            match columns {
                Columns::C(c) => self.customers.update(c, diff),
                Columns::O(o) => self.orders.update(o, diff),
                Columns::L(l) => self.lines.update(l, diff),
                Columns::P(p) => self.parts.update(p, diff),
            }
            if (i + 1) % batch == 0 || i + 1 == n {
                self.step();
            }
        }
        let elapsed = start.elapsed();
        self.result.retain(|_, v| *v != 0);
        (elapsed, self.result)
    }

    /// Closes the current time and folds its output into the result.
    fn step(&mut self) {
        self.time += 1;
        self.customers.advance_to(self.time);
        self.orders.advance_to(self.time);
        self.lines.advance_to(self.time);
        self.parts.advance_to(self.time);
        self.customers.flush();
        self.orders.flush();
        self.lines.flush();
        self.parts.flush();
        let (probe, time) = (&self.probe, self.time);
        self.worker.step_while(|| probe.less_than(&time));
        for (k, d) in self.sink.borrow_mut().drain(..) {
            *self.result.entry(k).or_default() += d as i64;
        }
    }
}

fn worker() -> Worker {
    Worker::new(
        timely::WorkerConfig::default(),
        Allocator::Thread(Thread::default()),
        Some(Instant::now()),
    )
}

/// Builds a plan over the four inputs whose output, a collection of keys
/// with their sums as multiplicities, `$body` gives.
macro_rules! dd_plan {
    ($k:ty, |$c:ident, $o:ident, $l:ident, $p:ident| $body:expr) => {{
        let mut worker = worker();
        let sink: Rc<RefCell<Vec<($k, isize)>>> = Rc::default();
        let out = sink.clone();
        let (customers, orders, lines, parts, probe) =
            worker.dataflow::<Time, _, _>(move |scope| {
                let (c_in, $c) = scope.new_collection::<(i64, String), isize>();
                let (o_in, $o) = scope.new_collection::<Order, isize>();
                let (l_in, $l) = scope.new_collection::<Line, isize>();
                let (p_in, $p) = scope.new_collection::<(i64, String), isize>();
                let (probe, _) = $body
                    .inspect_batch(move |_, xs| {
                        out.borrow_mut()
                            .extend(xs.iter().map(|(k, _, d)| (k.clone(), *d)));
                    })
                    .probe();
                (c_in, o_in, l_in, p_in, probe)
            });
        Dd {
            worker,
            customers,
            orders,
            lines,
            parts,
            probe,
            sink,
            result: HashMap::new(),
            time: 0,
        }
    }};
}

/// Q1: per flag, status and sum (quantity, price, discounted price,
/// charge, discount, count: the order of `hand::Q1::groups`), in the
/// generator's units and their products.
pub fn q1() -> Dd<(char, char, u8)> {
    dd_plan!((char, char, u8), |_c, _o, l, _p| l
        .filter(|&(.., ship)| ship <= 19980902)
        .explode(|(_, _, flag, status, qty, price, disc, tax, _)| {
            [
                qty * 100,
                price,
                price * (100 - disc),
                price * (100 - disc) * (100 + tax),
                disc,
                1,
            ]
            .into_iter()
            .enumerate()
            .map(move |(i, v)| ((flag, status, i as u8), v as isize))
        }))
}

/// Q3: revenue per qualifying order (key: order, date as `yyyymmdd`,
/// priority), in cents × hundredths.
pub fn q3() -> Dd<(i64, i32, i32)> {
    dd_plan!((i64, i32, i32), |c, o, l, _p| {
        let building = c
            .filter(|(_, segment)| segment == "BUILDING")
            .map(|(custkey, _)| (custkey, ()))
            .arrange_by_key();
        let orders = o
            .filter(|&(_, _, day, _)| day < 19950315)
            .map(|(orderkey, custkey, day, priority)| (custkey, (orderkey, day, priority)))
            .arrange_by_key();
        let placed = building
            .join_core(orders, |_, _, &(orderkey, day, priority)| {
                Some((orderkey, (day, priority)))
            })
            .arrange_by_key();
        let shipped = l
            .filter(|&(.., ship)| ship > 19950315)
            .explode(|(orderkey, _, _, _, _, price, disc, _, _)| {
                Some(((orderkey, ()), (price * (100 - disc)) as isize))
            })
            .arrange_by_key();
        placed.join_core(shipped, |&orderkey, &(day, priority), _| {
            Some((orderkey, day, priority))
        })
    })
}

/// Q6: the revenue of the qualifying lines, in cents × hundredths.
pub fn q6() -> Dd<()> {
    dd_plan!((), |_c, _o, l, _p| l
        .filter(|&(_, _, _, _, qty, _, disc, _, ship)| {
            (19940101..19950101).contains(&ship) && (5..=7).contains(&disc) && qty < 24
        })
        .explode(|(_, _, _, _, _, price, disc, _, _)| Some((
            (),
            (price * disc) as isize
        ))))
}

/// Q10: revenue of the returned lines per customer (the other group
/// columns are the customer's, so the customer key stands for them).
pub fn q10() -> Dd<i64> {
    dd_plan!(i64, |c, o, l, _p| {
        let customers = c.map(|(custkey, _)| (custkey, ())).arrange_by_key();
        let orders = o
            .filter(|&(_, _, day, _)| (19931001..19940101).contains(&day))
            .map(|(orderkey, custkey, _, _)| (custkey, orderkey))
            .arrange_by_key();
        let placed = customers
            .join_core(orders, |&custkey, _, &orderkey| Some((orderkey, custkey)))
            .arrange_by_key();
        let returned = l
            .filter(|&(_, _, flag, ..)| flag == 'R')
            .explode(|(orderkey, _, _, _, _, price, disc, _, _)| {
                Some(((orderkey, ()), (price * (100 - disc)) as isize))
            })
            .arrange_by_key();
        placed.join_core(returned, |_, &custkey, _| Some(custkey))
    })
}

/// Q14: the revenue of the month's lines by whether their part is a
/// promotion's, in cents × hundredths.
pub fn q14() -> Dd<bool> {
    dd_plan!(bool, |_c, _o, l, p| {
        let promo = p
            .map(|(partkey, kind)| (partkey, kind.starts_with("PROMO")))
            .arrange_by_key();
        let shipped = l
            .filter(|&(.., ship)| (19950901..19951001).contains(&ship))
            .explode(|(_, partkey, _, _, _, price, disc, _, _)| {
                Some(((partkey, ()), (price * (100 - disc)) as isize))
            })
            .arrange_by_key();
        promo.join_core(shipped, |_, &promo, _| Some(promo))
    })
}
