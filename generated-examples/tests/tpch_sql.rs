//! TPC-H Q1, Q3, Q4, Q5, Q6, Q10, Q12 and Q14 (and customers without
//! orders), the nested Q2, Q11, Q15, Q17, Q18, Q20 and Q22, Q13's outer
//! join, Q16's distinct count, Q7, Q8 and Q9 over their derived tables,
//! Q19's OR of joins and Q21's `<>`-correlated EXISTS and NOT EXISTS
//! (all 22), written
//! in SQL (`queries/tpch_sql.sql`), loaded
//! through `insert_text` with generated data at two scale factors (the
//! larger in `.ci/run` only), agree
//! with SQLite's answers over the same rows: after the load, after a part
//! of every table is deleted through `delete_text` (rows the views count
//! and rows their conditions drop), and after some rows are inserted
//! again. Integers and text must match exactly; decimals, which SQLite
//! keeps as doubles, within a relative 1e-8 (`AVG` keeps 8 fractional
//! digits here). A view with ORDER BY is compared in its order, and one
//! with LIMIT in its window: SQLite's rows sorted and cut by the view's
//! `order()`.

mod lent;

use ivm::sql::TextRetract;
use ivm_generated_examples::tpch::data::{Database, text};
use ivm_generated_examples::tpch_sql::{
    Revenue0, TpchIdleCustomers, TpchQ1, TpchQ2, TpchQ3, TpchQ4, TpchQ5, TpchQ6, TpchQ7, TpchQ8,
    TpchQ8Wide, TpchQ9, TpchQ10, TpchQ11, TpchQ12, TpchQ13, TpchQ14, TpchQ15, TpchQ16, TpchQ17,
    TpchQ17Wide, TpchQ18, TpchQ18Wide, TpchQ19, TpchQ19Wide, TpchQ20, TpchQ21, TpchQ21Wide,
    TpchQ22,
};
use rusqlite::Connection;
use rusqlite::types::Value;

/// The revenue of TPC-H Q15's `revenue0` in SQLite's spelling.
macro_rules! revenue0 {
    () => {
        "(SELECT l_suppkey AS supplier_no, SUM(l_extendedprice * (1 - l_discount)) AS total_revenue
        FROM lineitem WHERE l_shipdate >= '1996-01-01' AND l_shipdate < '1996-04-01'
        GROUP BY l_suppkey)"
    };
}

/// SQLite's spelling of each view's SELECT (the same query with its dates
/// as text and its date arithmetic done, a view it reads written out),
/// with the positions of the columns that order its rows.
const SQLITE: [(&str, &[usize], &str); 29] = [
    (
        "tpch_q21",
        &[0],
        "SELECT s_name, COUNT(*) FROM supplier, lineitem l1, orders, nation
        WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
            AND l1.l_receiptdate > l1.l_commitdate
            AND EXISTS (SELECT * FROM lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
            AND NOT EXISTS (SELECT * FROM lineitem l3
                WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                    AND l3.l_receiptdate > l3.l_commitdate)
            AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
        GROUP BY s_name",
    ),
    (
        "tpch_q21_wide",
        &[0],
        "SELECT s_name, COUNT(*) FROM supplier, lineitem l1, orders, nation
        WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
            AND l1.l_receiptdate > l1.l_commitdate
            AND EXISTS (SELECT * FROM lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
            AND NOT EXISTS (SELECT * FROM lineitem l3
                WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                    AND l3.l_receiptdate > l3.l_commitdate)
            AND s_nationkey = n_nationkey
        GROUP BY s_name",
    ),
    (
        "tpch_q8_wide",
        &[0],
        "SELECT o_year, SUM(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / SUM(volume)
        FROM (
            SELECT CAST(strftime('%Y', o_orderdate) AS INTEGER) AS o_year,
                l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
            FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region
            WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey
                AND o_custkey = c_custkey AND c_nationkey = n1.n_nationkey
                AND n1.n_regionkey = r_regionkey AND r_name = 'AMERICA'
                AND s_nationkey = n2.n_nationkey
                AND o_orderdate BETWEEN '1995-01-01' AND '1996-12-31'
                AND p_type LIKE '%STEEL') AS all_nations
        GROUP BY o_year",
    ),
    (
        "tpch_q19_wide",
        &[],
        "SELECT SUM(l_extendedprice * (1 - l_discount)) FROM lineitem, part
        WHERE (p_partkey = l_partkey AND p_container LIKE 'SM%' AND l_quantity <= 30
                AND l_shipmode IN ('AIR', 'AIR REG', 'MAIL'))
            OR (p_partkey = l_partkey AND p_container LIKE 'MED%' AND p_size BETWEEN 1 AND 25
                AND l_shipinstruct = 'DELIVER IN PERSON')
            OR (p_partkey = l_partkey AND p_brand LIKE 'Brand#3%' AND l_quantity >= 20)",
    ),
    (
        "tpch_q7",
        &[0, 1, 2],
        "SELECT supp_nation, cust_nation, l_year, SUM(volume) FROM (
            SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation,
                CAST(strftime('%Y', l_shipdate) AS INTEGER) AS l_year,
                l_extendedprice * (1 - l_discount) AS volume
            FROM supplier, lineitem, orders, customer, nation n1, nation n2
            WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
                AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
                AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
                    OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE'))
                AND l_shipdate BETWEEN '1995-01-01' AND '1996-12-31') AS shipping
        GROUP BY supp_nation, cust_nation, l_year",
    ),
    (
        "tpch_q8",
        &[0],
        "SELECT o_year, SUM(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / SUM(volume)
        FROM (
            SELECT CAST(strftime('%Y', o_orderdate) AS INTEGER) AS o_year,
                l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
            FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region
            WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey
                AND o_custkey = c_custkey AND c_nationkey = n1.n_nationkey
                AND n1.n_regionkey = r_regionkey AND r_name = 'AMERICA'
                AND s_nationkey = n2.n_nationkey
                AND o_orderdate BETWEEN '1995-01-01' AND '1996-12-31'
                AND p_type = 'ECONOMY ANODIZED STEEL') AS all_nations
        GROUP BY o_year",
    ),
    (
        "tpch_q9",
        &[0, 1],
        "SELECT nation, o_year, SUM(amount) FROM (
            SELECT n_name AS nation, CAST(strftime('%Y', o_orderdate) AS INTEGER) AS o_year,
                l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
            FROM part, supplier, lineitem, partsupp, orders, nation
            WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
                AND p_partkey = l_partkey AND o_orderkey = l_orderkey
                AND s_nationkey = n_nationkey AND p_name LIKE '%green%') AS profit
        GROUP BY nation, o_year",
    ),
    (
        "tpch_q19",
        &[],
        "SELECT SUM(l_extendedprice * (1 - l_discount)) FROM lineitem, part
        WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12'
                AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
                AND l_quantity >= 1 AND l_quantity <= 11 AND p_size BETWEEN 1 AND 5
                AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
            OR (p_partkey = l_partkey AND p_brand = 'Brand#23'
                AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
                AND l_quantity >= 10 AND l_quantity <= 20 AND p_size BETWEEN 1 AND 10
                AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
            OR (p_partkey = l_partkey AND p_brand = 'Brand#34'
                AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
                AND l_quantity >= 20 AND l_quantity <= 30 AND p_size BETWEEN 1 AND 15
                AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')",
    ),
    (
        "tpch_q16",
        &[0, 1, 2],
        "SELECT p_brand, p_type, p_size, COUNT(DISTINCT ps_suppkey) FROM partsupp, part
        WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45'
            AND p_type NOT LIKE 'MEDIUM POLISHED%' AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
            AND ps_suppkey NOT IN (
                SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
        GROUP BY p_brand, p_type, p_size",
    ),
    (
        "tpch_q13",
        &[0],
        "SELECT c_count, COUNT(*) FROM (
            SELECT c_custkey, COUNT(o_orderkey) AS c_count
            FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey
                AND o_comment NOT LIKE '%special%requests%'
            GROUP BY c_custkey) AS c_orders
        GROUP BY c_count",
    ),
    (
        "tpch_q1",
        &[0, 1],
        "SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice),
            SUM(l_extendedprice * (1 - l_discount)),
            SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
            AVG(l_quantity), AVG(l_extendedprice), AVG(l_discount), COUNT(*)
        FROM lineitem WHERE l_shipdate <= '1998-09-02'
        GROUP BY l_returnflag, l_linestatus",
    ),
    (
        "tpch_q3",
        &[0, 2, 3],
        "SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)), o_orderdate, o_shippriority
        FROM customer, orders, lineitem
        WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
            AND o_orderdate < '1995-03-15' AND l_shipdate > '1995-03-15'
        GROUP BY l_orderkey, o_orderdate, o_shippriority",
    ),
    (
        "tpch_q6",
        &[],
        "SELECT SUM(l_extendedprice * l_discount) FROM lineitem
        WHERE l_shipdate >= '1994-01-01' AND l_shipdate < '1995-01-01'
            AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    ),
    (
        "tpch_q5",
        &[0],
        "SELECT n_name, SUM(l_extendedprice * (1 - l_discount))
        FROM customer, orders, lineitem, supplier, nation, region
        WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
            AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey
            AND n_regionkey = r_regionkey AND r_name = 'ASIA'
            AND o_orderdate >= '1994-01-01' AND o_orderdate < '1995-01-01'
        GROUP BY n_name",
    ),
    (
        "tpch_q10",
        &[0],
        "SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)), c_acctbal, n_name,
            c_address, c_phone, c_comment
        FROM customer, orders, lineitem, nation
        WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
            AND o_orderdate >= '1993-10-01' AND o_orderdate < '1994-01-01'
            AND l_returnflag = 'R' AND c_nationkey = n_nationkey
        GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment",
    ),
    (
        "tpch_q12",
        &[0],
        "SELECT l_shipmode,
            SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
                THEN 1 ELSE 0 END),
            SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH'
                THEN 1 ELSE 0 END)
        FROM orders, lineitem
        WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
            AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
            AND l_receiptdate >= '1994-01-01' AND l_receiptdate < '1995-01-01'
        GROUP BY l_shipmode",
    ),
    (
        "tpch_q14",
        &[],
        "SELECT 100.00 * SUM(CASE WHEN p_type LIKE 'PROMO%'
                THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
            / SUM(l_extendedprice * (1 - l_discount))
        FROM lineitem, part
        WHERE l_partkey = p_partkey
            AND l_shipdate >= '1995-09-01' AND l_shipdate < '1995-10-01'",
    ),
    (
        "tpch_q4",
        &[0],
        "SELECT o_orderpriority, COUNT(*) FROM orders
        WHERE o_orderdate >= '1993-07-01' AND o_orderdate < '1993-10-01'
            AND EXISTS (SELECT * FROM lineitem
                WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
        GROUP BY o_orderpriority",
    ),
    (
        "tpch_q2",
        &[3, 1],
        "SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
        FROM part, supplier, partsupp, nation, region
        WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15
            AND p_type LIKE '%BRASS' AND s_nationkey = n_nationkey
            AND n_regionkey = r_regionkey AND r_name = 'EUROPE'
            AND ps_supplycost = (
                SELECT MIN(ps_supplycost) FROM partsupp, supplier, nation, region
                WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey
                    AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
                    AND r_name = 'EUROPE')",
    ),
    (
        "tpch_q11",
        &[0],
        "SELECT ps_partkey, SUM(ps_supplycost * ps_availqty)
        FROM partsupp, supplier, nation
        WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY'
        GROUP BY ps_partkey
        HAVING SUM(ps_supplycost * ps_availqty) > (
            SELECT SUM(ps_supplycost * ps_availqty) * 0.0001
            FROM partsupp, supplier, nation
            WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY')",
    ),
    (
        "revenue0",
        &[0],
        concat!("SELECT * FROM ", revenue0!()),
    ),
    (
        "tpch_q15",
        &[0],
        concat!(
            "SELECT s_suppkey, s_name, s_address, s_phone, total_revenue FROM supplier, ",
            revenue0!(),
            " revenue0 WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM ",
            revenue0!(),
            " revenue0)"
        ),
    ),
    (
        "tpch_q17",
        &[],
        "SELECT SUM(l_extendedprice) / 7.0 FROM lineitem, part
        WHERE p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container = 'MED BOX'
            AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)",
    ),
    (
        "tpch_q17_wide",
        &[],
        "SELECT SUM(l_extendedprice) / 7.0 FROM lineitem, part
        WHERE p_partkey = l_partkey AND p_brand = 'Brand#23'
            AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)",
    ),
    (
        "tpch_q18_wide",
        &[2],
        "SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity)
        FROM customer, orders, lineitem
        WHERE o_orderkey IN (
                SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 150)
            AND c_custkey = o_custkey AND o_orderkey = l_orderkey
        GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice",
    ),
    (
        "tpch_q18",
        &[2],
        "SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity)
        FROM customer, orders, lineitem
        WHERE o_orderkey IN (
                SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300)
            AND c_custkey = o_custkey AND o_orderkey = l_orderkey
        GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice",
    ),
    (
        "tpch_q20",
        &[0, 1],
        "SELECT s_name, s_address FROM supplier, nation
        WHERE s_suppkey IN (
                SELECT ps_suppkey FROM partsupp
                WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
                    AND ps_availqty > (
                        SELECT 0.5 * SUM(l_quantity) FROM lineitem
                        WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
                            AND l_shipdate >= '1994-01-01' AND l_shipdate < '1995-01-01'))
            AND s_nationkey = n_nationkey AND n_name = 'CANADA'",
    ),
    (
        "tpch_q22",
        &[0],
        "SELECT cntrycode, COUNT(*), SUM(c_acctbal) FROM (
            SELECT substr(c_phone, 1, 2) AS cntrycode, c_acctbal FROM customer
            WHERE substr(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17')
                AND c_acctbal > (
                    SELECT AVG(c_acctbal) FROM customer
                    WHERE c_acctbal > 0.00
                        AND substr(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17'))
                AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)) AS custsale
        GROUP BY cntrycode",
    ),
    (
        "tpch_idle_customers",
        &[0],
        "SELECT c_nationkey, COUNT(*), SUM(c_acctbal) FROM customer
        WHERE NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)
        GROUP BY c_nationkey",
    ),
];

/// The schema's `CREATE TABLE` statements, which SQLite reads as well.
fn schema() -> String {
    let sql: String = include_str!("../queries/tpch_sql.sql")
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .map(|l| format!("{l}\n"))
        .collect();
    sql.split(';')
        .filter(|s| s.trim_start().starts_with("CREATE TABLE"))
        .collect::<Vec<_>>()
        .join(";\n")
}

struct Copies {
    views: Vec<Box<dyn TextRetract>>,
    sql: Connection,
}

/// The views of one test: the flat queries or the nested ones, so that the
/// two halves run side by side.
#[derive(Clone, Copy)]
enum Views {
    /// Joins, semijoins and derived tables, without a nested view.
    Flat,
    /// The queries with nested views (IN, scalar subqueries, HAVING, a
    /// derived aggregate), Q13's outer join and Q16's distinct count.
    Nested,
}

impl Views {
    fn build(self) -> Vec<Box<dyn TextRetract>> {
        match self {
            Views::Flat => vec![
                Box::new(TpchQ1::new()),
                Box::new(TpchQ3::new()),
                Box::new(TpchQ6::new()),
                Box::new(TpchQ5::new()),
                Box::new(TpchQ10::new()),
                Box::new(TpchQ12::new()),
                Box::new(TpchQ14::new()),
                Box::new(TpchQ4::new()),
                Box::new(TpchIdleCustomers::new()),
                Box::new(TpchQ7::new()),
                Box::new(TpchQ8::new()),
                Box::new(TpchQ9::new()),
                Box::new(TpchQ19::new()),
                Box::new(TpchQ8Wide::new()),
                Box::new(TpchQ19Wide::new()),
                Box::new(TpchQ21::new()),
                Box::new(TpchQ21Wide::new()),
            ],
            Views::Nested => vec![
                Box::new(TpchQ2::new()),
                Box::new(TpchQ11::new()),
                Box::new(Revenue0::new()),
                Box::new(TpchQ15::new()),
                Box::new(TpchQ17::new()),
                Box::new(TpchQ18::new()),
                Box::new(TpchQ17Wide::new()),
                Box::new(TpchQ18Wide::new()),
                Box::new(TpchQ20::new()),
                Box::new(TpchQ22::new()),
                Box::new(TpchQ13::new()),
                Box::new(TpchQ16::new()),
            ],
        }
    }
}

impl Copies {
    fn new(views: Views) -> Copies {
        let sql = Connection::open_in_memory().unwrap();
        sql.execute_batch(&schema()).unwrap();
        sql.execute_batch("PRAGMA case_sensitive_like = ON")
            .unwrap();
        // The deletes find their row by key.
        sql.execute_batch(
            "CREATE INDEX customer_key ON customer (c_custkey);
            CREATE INDEX orders_key ON orders (o_orderkey);
            CREATE INDEX lineitem_key ON lineitem (l_orderkey, l_partkey, l_suppkey, l_linenumber);
            CREATE INDEX part_key ON part (p_partkey);
            CREATE INDEX supplier_key ON supplier (s_suppkey);
            CREATE INDEX partsupp_key ON partsupp (ps_partkey, ps_suppkey);",
        )
        .unwrap();
        Copies {
            views: views.build(),
            sql,
        }
    }

    fn insert(&mut self, table: &str, fields: &[String]) {
        let fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        for view in &mut self.views {
            if view.tables().contains(&table) {
                view.insert_text(table, &fields).unwrap();
            }
        }
        let holes = vec!["?"; fields.len()].join(", ");
        self.sql
            .execute(
                &format!("INSERT INTO {table} VALUES ({holes})"),
                rusqlite::params_from_iter(fields),
            )
            .unwrap();
    }

    /// Deletes the row whose first `key` columns are `fields`' (the key of
    /// its table).
    fn delete(&mut self, table: &str, fields: &[String], key: &[&str]) {
        let text: Vec<&str> = fields.iter().map(String::as_str).collect();
        for view in &mut self.views {
            if view.tables().contains(&table) {
                view.delete_text(table, &text).unwrap();
            }
        }
        let condition = key
            .iter()
            .map(|c| format!("{c} = ?"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let keys: Vec<&str> = text[..key.len()].to_vec();
        let n = self
            .sql
            .execute(
                &format!("DELETE FROM {table} WHERE {condition}"),
                rusqlite::params_from_iter(keys),
            )
            .unwrap();
        assert_eq!(n, 1, "one {table} row");
    }

    fn check(&self, when: &str) {
        for view in &self.views {
            let (_, key, select) = SQLITE
                .iter()
                .find(|(name, _, _)| *name == view.name())
                .unwrap();
            let mut ours: Vec<Vec<String>> = view.text_rows();
            let mut statement = self.sql.prepare(select).unwrap();
            let width = statement.column_count();
            let mut theirs: Vec<Vec<Value>> = statement
                .query_map([], |row| {
                    (0..width).map(|i| row.get::<_, Value>(i)).collect()
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            match view.order() {
                // In the view's order, and cut to its window: SQLite's
                // spelling has no ORDER BY or LIMIT.
                Some(order) => theirs = ivm_fuzz::sqlite::in_order(theirs, &order),
                // Both sides in the order of their group keys.
                None => {
                    ours.sort_by_key(|r| key.iter().map(|&i| r[i].clone()).collect::<Vec<_>>());
                    theirs.sort_by_key(|r| key.iter().map(|&i| render(&r[i])).collect::<Vec<_>>());
                }
            }
            assert_eq!(ours.len(), theirs.len(), "{} rows {when}", view.name());
            for (a, b) in ours.iter().zip(&theirs) {
                for (x, y) in a.iter().zip(b) {
                    assert!(
                        agrees(x, y),
                        "{} {when}: ours {a:?}, SQLite {b:?}",
                        view.name()
                    );
                }
            }
        }
    }
}

/// A key cell of SQLite's as the views render it.
fn render(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        Value::Integer(i) => i.to_string(),
        other => panic!("a key of text or integers, not {other:?}"),
    }
}

fn agrees(ours: &str, theirs: &Value) -> bool {
    match theirs {
        Value::Null => ours == "NULL",
        Value::Integer(i) => ours
            .parse::<i64>()
            .map(|o| o == *i)
            .unwrap_or_else(|_| ours.parse::<f64>().is_ok_and(|o| o == *i as f64)),
        Value::Real(r) => ours
            .parse::<f64>()
            .is_ok_and(|o| (o - r).abs() <= 1e-8 * o.abs().max(r.abs()).max(1.0)),
        Value::Text(t) => ours == t,
        Value::Blob(_) => false,
    }
}

fn run(scale: f64, seed: u64, views: Views) {
    let db = Database::generate(scale, seed);
    let mut copies = Copies::new(views);
    for r in &db.regions {
        copies.insert("region", &text::region(r));
    }
    for n in &db.nations {
        copies.insert("nation", &text::nation(n));
    }
    for s in &db.suppliers {
        copies.insert("supplier", &text::supplier(s));
    }
    for p in &db.parts {
        copies.insert("part", &text::part(p));
    }
    for c in &db.customers {
        copies.insert("customer", &text::customer(c));
    }
    for p in &db.partsupps {
        copies.insert("partsupp", &text::partsupp(p));
    }
    for o in &db.orders {
        copies.insert("orders", &text::order(o));
    }
    for l in &db.lineitems {
        copies.insert("lineitem", &text::lineitem(l));
    }
    copies.check("after the load");
    // Every third row of every table goes, then every ninth comes back.
    for l in db.lineitems.iter().step_by(3) {
        copies.delete(
            "lineitem",
            &text::lineitem(l),
            &["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber"],
        );
    }
    for o in db.orders.iter().step_by(3) {
        copies.delete("orders", &text::order(o), &["o_orderkey"]);
    }
    for c in db.customers.iter().step_by(3) {
        copies.delete("customer", &text::customer(c), &["c_custkey"]);
    }
    for p in db.parts.iter().step_by(3) {
        copies.delete("part", &text::part(p), &["p_partkey"]);
    }
    for s in db.suppliers.iter().step_by(3) {
        copies.delete("supplier", &text::supplier(s), &["s_suppkey"]);
    }
    for p in db.partsupps.iter().step_by(3) {
        copies.delete(
            "partsupp",
            &text::partsupp(p),
            &["ps_partkey", "ps_suppkey"],
        );
    }
    for n in db.nations.iter().step_by(7) {
        copies.delete("nation", &text::nation(n), &["n_nationkey"]);
    }
    copies.check("after the deletes");
    for l in db.lineitems.iter().step_by(9) {
        copies.insert("lineitem", &text::lineitem(l));
    }
    for o in db.orders.iter().step_by(9) {
        copies.insert("orders", &text::order(o));
    }
    for c in db.customers.iter().step_by(9) {
        copies.insert("customer", &text::customer(c));
    }
    for p in db.parts.iter().step_by(9) {
        copies.insert("part", &text::part(p));
    }
    for s in db.suppliers.iter().step_by(9) {
        copies.insert("supplier", &text::supplier(s));
    }
    for p in db.partsupps.iter().step_by(9) {
        copies.insert("partsupp", &text::partsupp(p));
    }
    for n in db.nations.iter().step_by(14) {
        copies.insert("nation", &text::nation(n));
    }
    copies.check("after the inserts");
}

#[test]
fn flat_tpch_from_sql_agrees_with_sqlite_at_scale_0_001() {
    run(0.001, 11, Views::Flat);
}

#[test]
fn nested_tpch_from_sql_agrees_with_sqlite_at_scale_0_001() {
    run(0.001, 11, Views::Nested);
}

/// Twice the rows: in `.ci/run`, kept out of the README's command, where
/// they alone took a tenth of the time the tests run.
#[test]
#[ignore = "CI: twice the scale; `.ci/run` runs it"]
fn flat_tpch_from_sql_agrees_with_sqlite_at_scale_0_002() {
    run(0.002, 12, Views::Flat);
}

/// As [`flat_tpch_from_sql_agrees_with_sqlite_at_scale_0_002`].
#[test]
#[ignore = "CI: twice the scale; `.ci/run` runs it"]
fn nested_tpch_from_sql_agrees_with_sqlite_at_scale_0_002() {
    run(0.002, 12, Views::Nested);
}

/// A view with nested views restored from a snapshot goes on as the one
/// it was taken from: the nested views' changes are tracked again from
/// the restored state, and no row of theirs is fed twice. So does a view
/// with LIMIT (Q3; Q18's nested one too), whose window is rebuilt from the
/// restored rows before anything reads it.
#[test]
fn nested_and_limited_views_go_on_after_a_restore() {
    fn check<V: TextRetract + ivm::snapshot::Snapshot + Default>(db: &Database) {
        let mut view = V::default();
        let lines: Vec<Vec<String>> = db.lineitems.iter().map(text::lineitem).collect();
        let load = |v: &mut V, table: &str, rows: &[Vec<String>]| {
            for r in rows {
                let fields: Vec<&str> = r.iter().map(String::as_str).collect();
                if v.tables().contains(&table) {
                    v.insert_text(table, &fields).unwrap();
                }
            }
        };
        let customers: Vec<Vec<String>> = db.customers.iter().map(text::customer).collect();
        let orders: Vec<Vec<String>> = db.orders.iter().map(text::order).collect();
        let parts: Vec<Vec<String>> = db.parts.iter().map(text::part).collect();
        let suppliers: Vec<Vec<String>> = db.suppliers.iter().map(text::supplier).collect();
        load(&mut view, "supplier", &suppliers);
        load(&mut view, "customer", &customers);
        load(&mut view, "orders", &orders);
        load(&mut view, "part", &parts);
        load(&mut view, "lineitem", &lines[..lines.len() / 2]);
        let mut bytes = Vec::new();
        view.snapshot(&mut bytes).unwrap();
        let mut restored = V::restore(bytes.as_slice()).unwrap();
        assert_eq!(restored.text_rows(), view.text_rows());
        for v in [&mut view, &mut restored] {
            load(v, "lineitem", &lines[lines.len() / 2..]);
            for r in lines.iter().step_by(3) {
                let fields: Vec<&str> = r.iter().map(String::as_str).collect();
                v.delete_text("lineitem", &fields).unwrap();
            }
        }
        let (a, b) = (view.text_rows(), restored.text_rows());
        assert!(!a.is_empty());
        assert_eq!(a, b, "{}", view.name());
    }
    let db = Database::generate(0.001, 5);
    check::<TpchQ3>(&db);
    check::<TpchQ17Wide>(&db);
    check::<TpchQ18Wide>(&db);
    check::<TpchQ15>(&db);
}
