-- TPC-H queries 1, 3 and 6 as the specification writes them, over its
-- schema (money as DECIMAL(15, 2), dates as DATE). What does not fit the
-- fragment is left out: Q3's ORDER BY .. LIMIT 10 (a view is the whole set
-- of groups; sort `iter()` to rank them).

CREATE TABLE customer (
    c_custkey BIGINT NOT NULL, c_name VARCHAR(25), c_address VARCHAR(40),
    c_nationkey INT, c_phone CHAR(15), c_acctbal DECIMAL(15, 2),
    c_mktsegment CHAR(10), c_comment VARCHAR(117)
);
CREATE TABLE orders (
    o_orderkey BIGINT NOT NULL, o_custkey BIGINT, o_orderstatus CHAR(1),
    o_totalprice DECIMAL(15, 2), o_orderdate DATE, o_orderpriority CHAR(15),
    o_clerk CHAR(15), o_shippriority INT, o_comment VARCHAR(79)
);
CREATE TABLE lineitem (
    l_orderkey BIGINT NOT NULL, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT,
    l_quantity DECIMAL(15, 2), l_extendedprice DECIMAL(15, 2),
    l_discount DECIMAL(15, 2), l_tax DECIMAL(15, 2),
    l_returnflag CHAR(1), l_linestatus CHAR(1),
    l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE,
    l_shipinstruct CHAR(25), l_shipmode CHAR(10), l_comment VARCHAR(44)
);

-- Q1, the pricing summary report.
CREATE VIEW tpch_q1 AS
SELECT
    l_returnflag, l_linestatus,
    SUM(l_quantity) AS sum_qty,
    SUM(l_extendedprice) AS sum_base_price,
    SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
    SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
    AVG(l_quantity) AS avg_qty,
    AVG(l_extendedprice) AS avg_price,
    AVG(l_discount) AS avg_disc,
    COUNT(*) AS count_order
FROM lineitem
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus;

-- Q3, the shipping priority query: not q-hierarchical (the customer and
-- the order key are joined and summed out below the order's date), so it
-- is maintained by first-order deltas.
CREATE VIEW tpch_q3 WITH (intractable = 'allow') AS
SELECT
    l_orderkey,
    SUM(l_extendedprice * (1 - l_discount)) AS revenue,
    o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING'
    AND c_custkey = o_custkey AND l_orderkey = o_orderkey
    AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority;

-- Q6, the forecasting revenue change query.
CREATE VIEW tpch_q6 AS
SELECT SUM(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01'
    AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
    AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
    AND l_quantity < 24;
