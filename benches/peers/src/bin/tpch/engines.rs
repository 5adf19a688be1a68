//! What every engine fed typed rows implements, the generated structs'
//! implementations of it, and the drop-only engine.

use std::time::{Duration, Instant};

use ivm_generated_examples::tpch_sql::{
    TpchQ1, TpchQ2, TpchQ3, TpchQ4, TpchQ5, TpchQ6, TpchQ7, TpchQ8, TpchQ9, TpchQ10, TpchQ11,
    TpchQ12, TpchQ13, TpchQ14, TpchQ15, TpchQ16, TpchQ17, TpchQ18, TpchQ19, TpchQ20, TpchQ21,
    TpchQ22,
};

use ivm_generated_examples::tpch_sql_trusted as trusted;

use crate::rows::Typed;

/// An engine fed one typed row at a time, insert (`true`) or delete.
pub trait Engine {
    fn apply(&mut self, insert: bool, row: Typed);
}

/// Feeds `rows` to `engine`, one pass, and times it: the rows are built
/// beforehand, so only the engine's own work (and dropping what it does
/// not keep) is timed.
pub fn time<E: Engine>(rows: Vec<(bool, Typed)>, mut engine: E) -> (Duration, E) {
    let start = Instant::now();
    for (insert, row) in rows {
        engine.apply(insert, row);
    }
    (start.elapsed(), engine)
}

/// An engine fed borrowed rows: the generated structs' text columns take
/// `impl ivm::Text`, so a row read in place (here, the same typed rows,
/// lent) costs no `String` for a column the view does not keep.
pub trait Lent {
    fn apply_lent(&mut self, insert: bool, row: &Typed);
}

/// Feeds `rows` to `engine` lent, one pass, and times it.
pub fn time_lent<E: Lent>(rows: &[(bool, Typed)], mut engine: E) -> (Duration, E) {
    let start = Instant::now();
    for (insert, row) in rows {
        engine.apply_lent(*insert, row);
    }
    (start.elapsed(), engine)
}

/// Takes each row and drops it: the cost of handing over owned rows,
/// which every other engine pays too.
pub struct DropOnly;

impl Engine for DropOnly {
    fn apply(&mut self, insert: bool, row: Typed) {
        std::hint::black_box((insert, row));
    }
}

/// A text column of a row handed over: moved.
macro_rules! moved {
    ($e:expr) => {
        $e
    };
}

/// A text column of a borrowed row: lent, as `&String`.
macro_rules! lent {
    ($e:expr) => {
        &$e
    };
}

/// Calls `$v.$method` with the columns of the typed row `$r` of `$table`,
/// each text column through `$text!`: `moved!` for a row handed over,
/// `lent!` for one borrowed (`$r` a reference), whose text columns go as
/// `&String` and its others copied.
macro_rules! call {
    (Region, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m($r.regionkey, $text!($r.name), $text!($r.comment))
    };
    (Nation, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.nationkey,
            $text!($r.name),
            $r.regionkey,
            $text!($r.comment),
        )
    };
    (Supplier, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.suppkey,
            $text!($r.name),
            $text!($r.address),
            $r.nationkey,
            $text!($r.phone),
            $r.acctbal,
            $text!($r.comment),
        )
    };
    (Part, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.partkey,
            $text!($r.name),
            $text!($r.mfgr),
            $text!($r.brand),
            $text!($r.r#type),
            $r.size,
            $text!($r.container),
            $r.retailprice,
            $text!($r.comment),
        )
    };
    (PartSupp, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.partkey,
            $r.suppkey,
            $r.availqty,
            $r.supplycost,
            $text!($r.comment),
        )
    };
    (Customer, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.custkey,
            $text!($r.name),
            $text!($r.address),
            $r.nationkey,
            $text!($r.phone),
            $r.acctbal,
            $text!($r.mktsegment),
            $text!($r.comment),
        )
    };
    (Orders, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.orderkey,
            $r.custkey,
            $text!($r.orderstatus),
            $r.totalprice,
            $r.orderdate,
            $text!($r.orderpriority),
            $text!($r.clerk),
            $r.shippriority,
            $text!($r.comment),
        )
    };
    (Lineitem, $v:ident.$m:ident, $r:ident, $text:ident) => {
        $v.$m(
            $r.orderkey,
            $r.partkey,
            $r.suppkey,
            $r.linenumber,
            $r.quantity,
            $r.extendedprice,
            $r.discount,
            $r.tax,
            $text!($r.returnflag),
            $text!($r.linestatus),
            $r.shipdate,
            $r.commitdate,
            $r.receiptdate,
            $text!($r.shipinstruct),
            $text!($r.shipmode),
            $text!($r.comment),
        )
    };
}

/// Implements [`Engine`] for generated structs over the tables listed,
/// each as `Variant: insert_method / delete_method`, and for their copies
/// with trusted deletes of the same name in `trusted`; a delete is checked
/// by the struct (not by the trusted copy), and the stream never deletes a
/// row it did not insert.
macro_rules! generated {
    ($($view:ident { $($table:ident: $insert:ident / $delete:ident),* })*) => {$(
        generated!(@impl $view { $($table: $insert / $delete),* });
        generated!(@impl trusted::$view { $($table: $insert / $delete),* });
    )*};
    (@impl $view:ty { $($table:ident: $insert:ident / $delete:ident),* }) => {
        impl Engine for $view {
            fn apply(&mut self, insert: bool, row: Typed) {
                match row {
                    $(Typed::$table(r) => {
                        if insert {
                            call!($table, self.$insert, r, moved)
                        } else {
                            call!($table, self.$delete, r, moved).expect("a row inserted before")
                        }
                    })*
                    #[allow(unreachable_patterns, reason = "some views read every table")]
                    _ => unreachable!("a table the view does not read"),
                }
            }
        }

        impl Lent for $view {
            fn apply_lent(&mut self, insert: bool, row: &Typed) {
                match row {
                    $(Typed::$table(r) => {
                        if insert {
                            call!($table, self.$insert, r, lent)
                        } else {
                            call!($table, self.$delete, r, lent).expect("a row inserted before")
                        }
                    })*
                    #[allow(unreachable_patterns, reason = "some views read every table")]
                    _ => unreachable!("a table the view does not read"),
                }
            }
        }
    };
}

generated! {
    TpchQ1 { Lineitem: insert_lineitem / delete_lineitem }
    TpchQ3 {
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ4 { Orders: insert_orders / delete_orders, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ5 {
        Region: insert_region / delete_region,
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ6 { Lineitem: insert_lineitem / delete_lineitem }
    TpchQ10 {
        Nation: insert_nation / delete_nation,
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ12 { Orders: insert_orders / delete_orders, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ14 { Part: insert_part / delete_part, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ17 { Part: insert_part / delete_part, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ18 {
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ7 {
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ8 {
        Region: insert_region / delete_region,
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Part: insert_part / delete_part,
        Customer: insert_customer / delete_customer,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ15 { Supplier: insert_supplier / delete_supplier, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ19 { Part: insert_part / delete_part, Lineitem: insert_lineitem / delete_lineitem }
    TpchQ21 {
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ9 {
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Part: insert_part / delete_part,
        PartSupp: insert_partsupp / delete_partsupp,
        Orders: insert_orders / delete_orders,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ20 {
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Part: insert_part / delete_part,
        PartSupp: insert_partsupp / delete_partsupp,
        Lineitem: insert_lineitem / delete_lineitem
    }
    TpchQ2 {
        Region: insert_region / delete_region,
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        Part: insert_part / delete_part,
        PartSupp: insert_partsupp / delete_partsupp
    }
    TpchQ11 {
        Nation: insert_nation / delete_nation,
        Supplier: insert_supplier / delete_supplier,
        PartSupp: insert_partsupp / delete_partsupp
    }
    TpchQ13 { Customer: insert_customer / delete_customer, Orders: insert_orders / delete_orders }
    TpchQ16 {
        Supplier: insert_supplier / delete_supplier,
        Part: insert_part / delete_part,
        PartSupp: insert_partsupp / delete_partsupp
    }
    TpchQ22 { Customer: insert_customer / delete_customer, Orders: insert_orders / delete_orders }
}

/// The views of `tpch_sql.sql` declared `WITH (updates = 'insert_only')`,
/// through the macro: a view keeps no row that nothing reads back (Q1 and
/// Q6 keep none at all), where the views of `tpch_sql.sql` keep every row
/// so that a delete can be checked. Fed the load only.
pub mod insert_only {
    #![allow(deprecated, reason = "Q3 is taken on with intractable = 'allow'")]

    use super::Engine;
    use crate::rows::Typed;

    ivm::ivm_query!(
        r#"
        CREATE TABLE customer (
            c_custkey BIGINT, c_name VARCHAR(25), c_address VARCHAR(40), c_nationkey INT,
            c_phone CHAR(15), c_acctbal DECIMAL(15, 2), c_mktsegment CHAR(10),
            c_comment VARCHAR(117));
        CREATE TABLE orders (
            o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus CHAR(1),
            o_totalprice DECIMAL(15, 2), o_orderdate DATE, o_orderpriority CHAR(15),
            o_clerk CHAR(15), o_shippriority INT, o_comment VARCHAR(79));
        CREATE TABLE lineitem (
            l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT,
            l_quantity DECIMAL(15, 2), l_extendedprice DECIMAL(15, 2),
            l_discount DECIMAL(15, 2), l_tax DECIMAL(15, 2), l_returnflag CHAR(1),
            l_linestatus CHAR(1), l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE,
            l_shipinstruct CHAR(25), l_shipmode CHAR(10), l_comment VARCHAR(44));
        CREATE VIEW q1_insert_only WITH (updates = 'insert_only') AS
        SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
            SUM(l_extendedprice) AS sum_base_price,
            SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
            SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
            AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price,
            AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
        FROM lineitem
        WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
        GROUP BY l_returnflag, l_linestatus;
        CREATE VIEW q3_insert_only WITH (updates = 'insert_only', intractable = 'allow') AS
        SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue,
            o_orderdate, o_shippriority
        FROM customer, orders, lineitem
        WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey
            AND l_orderkey = o_orderkey AND o_orderdate < DATE '1995-03-15'
            AND l_shipdate > DATE '1995-03-15'
        GROUP BY l_orderkey, o_orderdate, o_shippriority;
        CREATE VIEW q6_insert_only WITH (updates = 'insert_only') AS
        SELECT SUM(l_extendedprice * l_discount) AS revenue
        FROM lineitem
        WHERE l_shipdate >= DATE '1994-01-01'
            AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
            AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24;
    "#
    );

    /// Implements [`Engine`] for insert-only views, which have no delete.
    macro_rules! insert_only {
        ($($view:ty { $($table:ident: $insert:ident),* })*) => {$(
            impl Engine for $view {
                fn apply(&mut self, insert: bool, row: Typed) {
                    assert!(insert, "an insert-only view is fed the load only");
                    match row {
                        $(Typed::$table(r) => call!($table, self.$insert, r, moved),)*
                        #[allow(unreachable_patterns, reason = "Q1 and Q6 read one table")]
                        _ => unreachable!("a table the view does not read"),
                    }
                }
            }
        )*};
    }

    insert_only! {
        Q1InsertOnly { Lineitem: insert_lineitem }
        Q3InsertOnly {
            Customer: insert_customer,
            Orders: insert_orders,
            Lineitem: insert_lineitem
        }
        Q6InsertOnly { Lineitem: insert_lineitem }
    }
}
