//! Q1, Q3, Q6 and Q14 as a person would write them by hand for this
//! stream: filter, add into plain maps or scalars in integer units
//! (cents, and cents × hundredths for products), subtract on a delete.
//! No delete is checked, and the joins lean on the stream's order, which a
//! foreign key gives: a line comes after its order, customer and part,
//! and leaves before them. The floor a generated struct is measured
//! against.

use std::collections::{HashMap, HashSet};

use ivm::sql::{Date, Decimal};

use crate::engines::Engine;
use crate::rows::{Typed, date};

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
