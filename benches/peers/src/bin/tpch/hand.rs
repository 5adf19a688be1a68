//! Q1, Q3, Q4, Q5, Q6, Q10, Q12 and Q14 as a person would write them by
//! hand for this stream: filter, add into plain maps or scalars in
//! integer units (cents, and cents × hundredths for products), subtract on
//! a delete.
//! No delete is checked, and the joins lean on the stream's order, which a
//! foreign key gives: a line comes after its order, customer and part,
//! and leaves before them. The floor a generated struct is measured
//! against; [`Checked`] adds to a loop the check of its deletes that a
//! checked view makes, the floor of such a view.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use ivm::__private::Fingerprints;
use ivm::semiring::Int;
use ivm::sql::{Date, Decimal};

use crate::engines::Engine;
use crate::rows::{Table, Typed, date};

/// The value in cents: every money column is `DECIMAL(15, 2)`.
fn cents(d: Decimal) -> i64 {
    d.scaled_mantissa(2)
}

fn sign(insert: bool) -> i64 {
    if insert { 1 } else { -1 }
}

/// Q1's sums per flag and status.
#[derive(Default)]
pub struct Q1 {
    /// The sums of the quantity (in hundredths), price (in cents),
    /// discounted price (in cents × hundredths), charge (in cents ×
    /// 10^4), discount (in hundredths), and the count of lines.
    pub groups: HashMap<(String, String), [i64; 6]>,
}

impl Q1 {
    const SHIPPED_BY: Date = date(19980902);
}

impl Engine for Q1 {
    fn apply(&mut self, insert: bool, row: Typed) {
        let Typed::Lineitem(l) = row else { return };
        if l.shipdate > Q1::SHIPPED_BY {
            return;
        }
        let (price, disc, tax) = (cents(l.extendedprice), cents(l.discount), cents(l.tax));
        let disc_price = price * (100 - disc);
        let values = [
            cents(l.quantity),
            price,
            disc_price,
            disc_price * (100 + tax),
            disc,
            1,
        ];
        let sums = self.groups.entry((l.returnflag, l.linestatus)).or_default();
        for (sum, v) in sums.iter_mut().zip(values) {
            *sum += sign(insert) * v;
        }
    }
}

/// Q3's revenue per qualifying order, in cents × hundredths.
#[derive(Default)]
pub struct Q3 {
    building: HashSet<i64>,
    /// The orders placed before the date: customer, date, priority.
    orders: HashMap<i64, (i64, Date, i32)>,
    pub revenue: HashMap<(i64, Date, i32), i64>,
}

impl Q3 {
    const DAY: Date = date(19950315);
}

impl Engine for Q3 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Customer(c) if c.mktsegment == "BUILDING" => {
                if insert {
                    self.building.insert(c.custkey);
                } else {
                    self.building.remove(&c.custkey);
                }
            }
            Typed::Orders(o) if o.orderdate < Q3::DAY => {
                if insert {
                    let placed = (o.custkey, o.orderdate, o.shippriority);
                    self.orders.insert(o.orderkey, placed);
                } else {
                    self.orders.remove(&o.orderkey);
                }
            }
            Typed::Lineitem(l) if l.shipdate > Q3::DAY => {
                let Some(&(custkey, day, priority)) = self.orders.get(&l.orderkey) else {
                    return;
                };
                if self.building.contains(&custkey) {
                    let revenue = cents(l.extendedprice) * (100 - cents(l.discount));
                    *self.revenue.entry((l.orderkey, day, priority)).or_default() +=
                        sign(insert) * revenue;
                }
            }
            _ => {}
        }
    }
}

/// Q4's count of the quarter's orders with a late line, per priority.
#[derive(Default)]
pub struct Q4 {
    /// The quarter's orders: their priority and their number of late
    /// lines.
    orders: HashMap<i64, (String, i64)>,
    pub counts: HashMap<String, i64>,
}

impl Q4 {
    const PLACED: std::ops::Range<Date> = date(19930701)..date(19931001);
}

impl Engine for Q4 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Orders(o) if Q4::PLACED.contains(&o.orderdate) => {
                if insert {
                    self.orders.insert(o.orderkey, (o.orderpriority, 0));
                } else {
                    self.orders.remove(&o.orderkey);
                }
            }
            Typed::Lineitem(l) if l.commitdate < l.receiptdate => {
                let Some((priority, late)) = self.orders.get_mut(&l.orderkey) else {
                    return;
                };
                let was = *late > 0;
                *late += sign(insert);
                if was != (*late > 0) {
                    let count = match self.counts.get_mut(priority.as_str()) {
                        Some(count) => count,
                        None => self.counts.entry(priority.clone()).or_default(),
                    };
                    *count += sign(!was);
                }
            }
            _ => {}
        }
    }
}

/// Q5's revenue per Asian nation whose customers bought from its own
/// suppliers, in cents × hundredths.
#[derive(Default)]
pub struct Q5 {
    asia: HashSet<i32>,
    /// The Asian nations' names.
    nations: HashMap<i32, String>,
    /// Each supplier's nation.
    suppliers: HashMap<i64, i32>,
    /// Each customer's nation.
    customers: HashMap<i64, i32>,
    /// The year's orders of Asian customers: the customer's nation.
    orders: HashMap<i64, i32>,
    pub revenue: HashMap<String, i64>,
}

impl Q5 {
    const PLACED: std::ops::Range<Date> = date(19940101)..date(19950101);
}

impl Engine for Q5 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Region(r) if r.name == "ASIA" => {
                if insert {
                    self.asia.insert(r.regionkey);
                } else {
                    self.asia.remove(&r.regionkey);
                }
            }
            Typed::Nation(n) if self.asia.contains(&n.regionkey) => {
                if insert {
                    self.nations.insert(n.nationkey, n.name);
                } else {
                    self.nations.remove(&n.nationkey);
                }
            }
            Typed::Supplier(s) => {
                if insert {
                    self.suppliers.insert(s.suppkey, s.nationkey);
                } else {
                    self.suppliers.remove(&s.suppkey);
                }
            }
            Typed::Customer(c) => {
                if insert {
                    self.customers.insert(c.custkey, c.nationkey);
                } else {
                    self.customers.remove(&c.custkey);
                }
            }
            Typed::Orders(o) if Q5::PLACED.contains(&o.orderdate) => {
                let Some(&nation) = self.customers.get(&o.custkey) else {
                    return;
                };
                if !self.nations.contains_key(&nation) {
                    return;
                }
                if insert {
                    self.orders.insert(o.orderkey, nation);
                } else {
                    self.orders.remove(&o.orderkey);
                }
            }
            Typed::Lineitem(l) => {
                let Some(&nation) = self.orders.get(&l.orderkey) else {
                    return;
                };
                if self.suppliers.get(&l.suppkey) != Some(&nation) {
                    return;
                }
                let revenue = cents(l.extendedprice) * (100 - cents(l.discount));
                let name = &self.nations[&nation];
                match self.revenue.get_mut(name) {
                    Some(sum) => *sum += sign(insert) * revenue,
                    None => {
                        self.revenue.insert(name.clone(), sign(insert) * revenue);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Q6's revenue, in cents × hundredths.
#[derive(Default)]
pub struct Q6 {
    pub revenue: i64,
}

impl Q6 {
    const SHIPPED: std::ops::Range<Date> = date(19940101)..date(19950101);
}

impl Engine for Q6 {
    fn apply(&mut self, insert: bool, row: Typed) {
        let Typed::Lineitem(l) = row else { return };
        let disc = cents(l.discount);
        if Q6::SHIPPED.contains(&l.shipdate) && (5..=7).contains(&disc) && cents(l.quantity) < 2400
        {
            self.revenue += sign(insert) * cents(l.extendedprice) * disc;
        }
    }
}

/// Q10's revenue of returned lines per customer, over the quarter's
/// orders, in cents × hundredths.
#[derive(Default)]
pub struct Q10 {
    /// The quarter's orders: their customer.
    orders: HashMap<i64, i64>,
    pub revenue: HashMap<i64, i64>,
}

impl Q10 {
    const PLACED: std::ops::Range<Date> = date(19931001)..date(19940101);
}

impl Engine for Q10 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Orders(o) if Q10::PLACED.contains(&o.orderdate) => {
                if insert {
                    self.orders.insert(o.orderkey, o.custkey);
                } else {
                    self.orders.remove(&o.orderkey);
                }
            }
            Typed::Lineitem(l) if l.returnflag == "R" => {
                let Some(&custkey) = self.orders.get(&l.orderkey) else {
                    return;
                };
                let revenue = cents(l.extendedprice) * (100 - cents(l.discount));
                *self.revenue.entry(custkey).or_default() += sign(insert) * revenue;
            }
            _ => {}
        }
    }
}

/// Q12's counts of late lines per ship mode, of urgent or high priority
/// orders and of the others.
#[derive(Default)]
pub struct Q12 {
    /// Whether each order's priority is urgent or high.
    high: HashMap<i64, bool>,
    /// The counts of `MAIL` and of `SHIP`, high and low.
    pub counts: [(i64, i64); 2],
}

impl Q12 {
    pub const MODES: [&str; 2] = ["MAIL", "SHIP"];
    const RECEIVED: std::ops::Range<Date> = date(19940101)..date(19950101);
}

impl Engine for Q12 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Orders(o) => {
                if insert {
                    let high = o.orderpriority == "1-URGENT" || o.orderpriority == "2-HIGH";
                    self.high.insert(o.orderkey, high);
                } else {
                    self.high.remove(&o.orderkey);
                }
            }
            Typed::Lineitem(l)
                if l.commitdate < l.receiptdate
                    && l.shipdate < l.commitdate
                    && Q12::RECEIVED.contains(&l.receiptdate) =>
            {
                let Some(mode) = Q12::MODES.iter().position(|&m| m == l.shipmode) else {
                    return;
                };
                let Some(&high) = self.high.get(&l.orderkey) else {
                    return;
                };
                let counts = &mut self.counts[mode];
                if high {
                    counts.0 += sign(insert);
                } else {
                    counts.1 += sign(insert);
                }
            }
            _ => {}
        }
    }
}

/// Q14's revenue of the month's lines of promoted parts and of all of
/// them, in cents × hundredths.
#[derive(Default)]
pub struct Q14 {
    /// Whether each part's type is a promotion's.
    promo: HashMap<i64, bool>,
    pub promo_revenue: i64,
    pub revenue: i64,
}

impl Q14 {
    const SHIPPED: std::ops::Range<Date> = date(19950901)..date(19951001);
}

impl Engine for Q14 {
    fn apply(&mut self, insert: bool, row: Typed) {
        match row {
            Typed::Part(p) => {
                if insert {
                    self.promo.insert(p.partkey, p.r#type.starts_with("PROMO"));
                } else {
                    self.promo.remove(&p.partkey);
                }
            }
            Typed::Lineitem(l) if Q14::SHIPPED.contains(&l.shipdate) => {
                let revenue = sign(insert) * cents(l.extendedprice) * (100 - cents(l.discount));
                self.revenue += revenue;
                if self.promo.get(&l.partkey) == Some(&true) {
                    self.promo_revenue += revenue;
                }
            }
            _ => {}
        }
    }
}

/// A hand-written loop whose deletes are checked as the generated views
/// check theirs: each table's rows are counted under their fingerprints
/// (`ivm`'s own map, the one a checked view keeps for a table nothing
/// reads back), and a delete of a row that is not there is refused before
/// the loop sees it. What a checked view must do beyond the loop's work,
/// and no more: the floor of a checked view.
pub struct Checked<E> {
    pub inner: E,
    /// One map per table, by [`Table`] as a number.
    tables: [Fingerprints<Int>; 8],
    /// The deletes refused; the stream deletes only rows it inserted.
    pub refused: usize,
}

impl<E> Checked<E> {
    pub fn new(inner: E) -> Self {
        Checked {
            inner,
            tables: std::array::from_fn(|_| Fingerprints::new()),
            refused: 0,
        }
    }

    /// Counts a copy of the row in, or takes one away; `false` when a
    /// delete's row is not there.
    fn check<R: Hash>(&mut self, table: Table, insert: bool, row: &R) -> bool {
        let rows = &mut self.tables[table as usize];
        if insert {
            rows.add_delta(row, &Int(1));
            true
        } else {
            rows.retract_delta(row, &Int(1), "checked loop").is_ok()
        }
    }
}

impl<E: Engine> Engine for Checked<E> {
    fn apply(&mut self, insert: bool, row: Typed) {
        let present = match &row {
            Typed::Region(r) => self.check(Table::Region, insert, r),
            Typed::Nation(r) => self.check(Table::Nation, insert, r),
            Typed::Supplier(r) => self.check(Table::Supplier, insert, r),
            Typed::Part(r) => self.check(Table::Part, insert, r),
            Typed::PartSupp(r) => self.check(Table::PartSupp, insert, r),
            Typed::Customer(r) => self.check(Table::Customer, insert, r),
            Typed::Orders(r) => self.check(Table::Orders, insert, r),
            Typed::Lineitem(r) => self.check(Table::Lineitem, insert, r),
        };
        if present {
            self.inner.apply(insert, row);
        } else {
            self.refused += 1;
        }
    }
}
