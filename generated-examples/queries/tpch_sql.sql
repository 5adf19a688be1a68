-- The 22 TPC-H queries, as the specification writes them, over its schema
-- (money as DECIMAL(15, 2), dates as DATE), with the substitution
-- parameters of its validation run, ORDER BY and LIMIT included
-- (docs/design.md#order-by-and-limit): `iter()` and `text_rows()` list
-- the rows in order, and a LIMIT keeps its window as rows come and go.
-- The primary keys are the specification's: not enforced, they give
-- `ivmc explain` the bounds that hold when the data obey them
-- (docs/design.md#keys).

CREATE TABLE customer (
    c_custkey BIGINT NOT NULL, c_name VARCHAR(25), c_address VARCHAR(40),
    c_nationkey INT, c_phone CHAR(15), c_acctbal DECIMAL(15, 2),
    c_mktsegment CHAR(10), c_comment VARCHAR(117),
    PRIMARY KEY (c_custkey)
);
CREATE TABLE orders (
    o_orderkey BIGINT NOT NULL, o_custkey BIGINT, o_orderstatus CHAR(1),
    o_totalprice DECIMAL(15, 2), o_orderdate DATE, o_orderpriority CHAR(15),
    o_clerk CHAR(15), o_shippriority INT, o_comment VARCHAR(79),
    PRIMARY KEY (o_orderkey)
);
CREATE TABLE lineitem (
    l_orderkey BIGINT NOT NULL, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT,
    l_quantity DECIMAL(15, 2), l_extendedprice DECIMAL(15, 2),
    l_discount DECIMAL(15, 2), l_tax DECIMAL(15, 2),
    l_returnflag CHAR(1), l_linestatus CHAR(1),
    l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE,
    l_shipinstruct CHAR(25), l_shipmode CHAR(10), l_comment VARCHAR(44),
    PRIMARY KEY (l_orderkey, l_linenumber)
);

CREATE TABLE part (
    p_partkey BIGINT NOT NULL, p_name VARCHAR(55), p_mfgr CHAR(25), p_brand CHAR(10),
    p_type VARCHAR(25), p_size INT, p_container CHAR(10), p_retailprice DECIMAL(15, 2),
    p_comment VARCHAR(23),
    PRIMARY KEY (p_partkey)
);
CREATE TABLE supplier (
    s_suppkey BIGINT NOT NULL, s_name CHAR(25), s_address VARCHAR(40), s_nationkey INT,
    s_phone CHAR(15), s_acctbal DECIMAL(15, 2), s_comment VARCHAR(101),
    PRIMARY KEY (s_suppkey)
);
CREATE TABLE nation (
    n_nationkey INT NOT NULL, n_name CHAR(25), n_regionkey INT, n_comment VARCHAR(152),
    PRIMARY KEY (n_nationkey)
);
CREATE TABLE region (
    r_regionkey INT NOT NULL, r_name CHAR(25), r_comment VARCHAR(152),
    PRIMARY KEY (r_regionkey)
);
CREATE TABLE partsupp (
    ps_partkey BIGINT NOT NULL, ps_suppkey BIGINT NOT NULL, ps_availqty INT,
    ps_supplycost DECIMAL(15, 2), ps_comment VARCHAR(199),
    PRIMARY KEY (ps_partkey, ps_suppkey)
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
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY (3)
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus;

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
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate
LIMIT 10;

-- Q6, the forecasting revenue change query.
CREATE VIEW tpch_q6 AS
SELECT SUM(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01'
    AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
    AND l_discount BETWEEN .06 - 0.01 AND .06 + 0.01
    AND l_quantity < 24;

-- Q5, the local supplier volume query: a cycle (customer and supplier of
-- one nation), maintained by first-order deltas.
CREATE VIEW tpch_q5 WITH (intractable = 'allow') AS
SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
    AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey
    AND n_regionkey = r_regionkey AND r_name = 'ASIA'
    AND o_orderdate >= DATE '1994-01-01'
    AND o_orderdate < DATE '1994-01-01' + INTERVAL '1' YEAR
GROUP BY n_name
ORDER BY revenue DESC;

-- Q10, the returned item reporting query.
CREATE VIEW tpch_q10 WITH (intractable = 'allow') AS
SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue,
    c_acctbal, n_name, c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
    AND o_orderdate >= DATE '1993-10-01'
    AND o_orderdate < DATE '1993-10-01' + INTERVAL '3' MONTH
    AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC
LIMIT 20;

-- Q12, the shipping modes and order priority query.
CREATE VIEW tpch_q12 WITH (intractable = 'allow') AS
SELECT l_shipmode,
    SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
        THEN 1 ELSE 0 END) AS high_line_count,
    SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH'
        THEN 1 ELSE 0 END) AS low_line_count
FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
    AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
    AND l_receiptdate >= DATE '1994-01-01'
    AND l_receiptdate < DATE '1994-01-01' + INTERVAL '1' YEAR
GROUP BY l_shipmode
ORDER BY l_shipmode;

-- Q14, the promotion effect query: q-hierarchical (one join variable,
-- nothing free), so a view tree in O(1) per update.
CREATE VIEW tpch_q14 AS
SELECT 100.00 * SUM(CASE WHEN p_type LIKE 'PROMO%'
        THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
    / SUM(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM lineitem, part
WHERE l_partkey = p_partkey
    AND l_shipdate >= DATE '1995-09-01'
    AND l_shipdate < DATE '1995-09-01' + INTERVAL '1' MONTH;

-- Q4, the order priority checking query: orders with a line received
-- after its commit date, an EXISTS subquery (a semijoin). Grouped by
-- priority, it is not q-hierarchical (the order key is summed out and
-- the priority is not in the semijoin); opted in, each update costs a
-- lookup per order of its key, one in TPC-H's data.
CREATE VIEW tpch_q4 WITH (intractable = 'allow') AS
SELECT o_orderpriority, COUNT(*) AS order_count
FROM orders
WHERE o_orderdate >= DATE '1993-07-01'
    AND o_orderdate < DATE '1993-07-01' + INTERVAL '3' MONTH
    AND EXISTS (
        SELECT * FROM lineitem
        WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate
    )
GROUP BY o_orderpriority
ORDER BY o_orderpriority;

-- Customers without orders, by nation (part of Q22, whose scalar
-- subquery is out of reach): a NOT EXISTS subquery.
CREATE VIEW tpch_idle_customers WITH (intractable = 'allow') AS
SELECT c_nationkey, COUNT(*) AS customers, SUM(c_acctbal) AS balance
FROM customer
WHERE NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)
GROUP BY c_nationkey;

-- The nested queries, each inner query a nested view maintained once
-- (docs/design.md#nested-sql). Every one opts in to the first-order
-- strategy: its conditions compare a column with a nested value
-- (`l_quantity < (SELECT ..)`), which no strategy of bounded delay
-- maintains.

-- Q2, the minimum cost supplier.
CREATE VIEW tpch_q2 WITH (intractable = 'allow') AS
SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
FROM part, supplier, partsupp, nation, region
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15
    AND p_type LIKE '%BRASS' AND s_nationkey = n_nationkey
    AND n_regionkey = r_regionkey AND r_name = 'EUROPE'
    AND ps_supplycost = (
        SELECT MIN(ps_supplycost)
        FROM partsupp, supplier, nation, region
        WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey
            AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
            AND r_name = 'EUROPE')
ORDER BY s_acctbal DESC, n_name, s_name, p_partkey
LIMIT 100;

-- Q11, the important stock identification.
CREATE VIEW tpch_q11 WITH (intractable = 'allow') AS
SELECT ps_partkey, SUM(ps_supplycost * ps_availqty) AS value
FROM partsupp, supplier, nation
WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY'
GROUP BY ps_partkey
HAVING SUM(ps_supplycost * ps_availqty) > (
    SELECT SUM(ps_supplycost * ps_availqty) * 0.0001
    FROM partsupp, supplier, nation
    WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY')
ORDER BY value DESC;

-- Q15, the top supplier, with its view.
CREATE VIEW revenue0 (supplier_no, total_revenue) AS
SELECT l_suppkey, SUM(l_extendedprice * (1 - l_discount))
FROM lineitem
WHERE l_shipdate >= DATE '1996-01-01' AND l_shipdate < DATE '1996-01-01' + INTERVAL '3' MONTH
GROUP BY l_suppkey;
CREATE VIEW tpch_q15 WITH (intractable = 'allow') AS
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue
FROM supplier, revenue0
WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM revenue0)
ORDER BY s_suppkey;
DROP VIEW revenue0;

-- Q17, the small-quantity-order revenue.
CREATE VIEW tpch_q17 WITH (intractable = 'allow') AS
SELECT SUM(l_extendedprice) / 7.0 AS avg_yearly
FROM lineitem, part
WHERE p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container = 'MED BOX'
    AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey);

-- Q18, the large volume customer.
CREATE VIEW tpch_q18 WITH (intractable = 'allow') AS
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity)
FROM customer, orders, lineitem
WHERE o_orderkey IN (
        SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300)
    AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate
LIMIT 100;

-- Q20, the potential part promotion.
CREATE VIEW tpch_q20 WITH (intractable = 'allow') AS
SELECT s_name, s_address
FROM supplier, nation
WHERE s_suppkey IN (
        SELECT ps_suppkey FROM partsupp
        WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
            AND ps_availqty > (
                SELECT 0.5 * SUM(l_quantity) FROM lineitem
                WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
                    AND l_shipdate >= DATE '1994-01-01'
                    AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR))
    AND s_nationkey = n_nationkey AND n_name = 'CANADA'
ORDER BY s_name;

-- Q22, the global sales opportunity.
CREATE VIEW tpch_q22 WITH (intractable = 'allow') AS
SELECT cntrycode, COUNT(*) AS numcust, SUM(c_acctbal) AS totacctbal
FROM (
    SELECT SUBSTRING(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal
    FROM customer
    WHERE SUBSTRING(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17')
        AND c_acctbal > (
            SELECT AVG(c_acctbal) FROM customer
            WHERE c_acctbal > 0.00
                AND SUBSTRING(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17'))
        AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)
    ) AS custsale
GROUP BY cntrycode
ORDER BY cntrycode;

-- Q13, the customer distribution: an outer join, and a derived table
-- that names its columns.
CREATE VIEW tpch_q13 AS
SELECT c_count, COUNT(*) AS custdist
FROM (
    SELECT c_custkey, COUNT(o_orderkey)
    FROM customer LEFT OUTER JOIN orders ON
        c_custkey = o_custkey
        AND o_comment NOT LIKE '%special%requests%'
    GROUP BY c_custkey
    ) AS c_orders (c_custkey, c_count)
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC;

-- Q16, the parts/supplier relationship: a count of distinct suppliers.
CREATE VIEW tpch_q16 WITH (intractable = 'allow') AS
SELECT p_brand, p_type, p_size, COUNT(DISTINCT ps_suppkey) AS supplier_cnt
FROM partsupp, part
WHERE p_partkey = ps_partkey
    AND p_brand <> 'Brand#45'
    AND p_type NOT LIKE 'MEDIUM POLISHED%'
    AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
    AND ps_suppkey NOT IN (
        SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size
ORDER BY supplier_cnt DESC, p_brand, p_type, p_size;

-- Q7, Q8 and Q9 as the specification prints them: an aggregate over a
-- derived table of a many-way join, each row's year from EXTRACT.

-- Q7, the volume shipping query.
CREATE VIEW tpch_q7 WITH (intractable = 'allow') AS
select supp_nation, cust_nation, l_year, sum(volume) as revenue
from (
    select n1.n_name as supp_nation, n2.n_name as cust_nation,
        extract(year from l_shipdate) as l_year,
        l_extendedprice * (1 - l_discount) as volume
    from supplier, lineitem, orders, customer, nation n1, nation n2
    where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey
        and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey
        and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
            or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
        and l_shipdate between date '1995-01-01' and date '1996-12-31'
    ) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year;

-- Q8, the national market share query.
CREATE VIEW tpch_q8 WITH (intractable = 'allow') AS
select o_year,
    sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (
    select extract(year from o_orderdate) as o_year,
        l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation
    from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
        and o_custkey = c_custkey and c_nationkey = n1.n_nationkey
        and n1.n_regionkey = r_regionkey and r_name = 'AMERICA'
        and s_nationkey = n2.n_nationkey
        and o_orderdate between date '1995-01-01' and date '1996-12-31'
        and p_type = 'ECONOMY ANODIZED STEEL'
    ) as all_nations
group by o_year
order by o_year;

-- Q9, the product type profit measure query.
CREATE VIEW tpch_q9 WITH (intractable = 'allow') AS
select nation, o_year, sum(amount) as sum_profit
from (
    select n_name as nation, extract(year from o_orderdate) as o_year,
        l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
    from part, supplier, lineitem, partsupp, orders, nation
    where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey
        and p_partkey = l_partkey and o_orderkey = l_orderkey and s_nationkey = n_nationkey
        and p_name like '%green%'
    ) as profit
group by nation, o_year
order by nation, o_year desc;

-- Q19, the discounted revenue query: its join is written in each branch
-- of the OR, and taken out of it.
CREATE VIEW tpch_q19 WITH (intractable = 'allow') AS
select sum(l_extendedprice* (1 - l_discount)) as revenue
from lineitem, part
where (
        p_partkey = l_partkey and p_brand = 'Brand#12'
        and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
        and l_quantity >= 1 and l_quantity <= 1 + 10
        and p_size between 1 and 5
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    ) or (
        p_partkey = l_partkey and p_brand = 'Brand#23'
        and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
        and l_quantity >= 10 and l_quantity <= 10 + 10
        and p_size between 1 and 10
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    ) or (
        p_partkey = l_partkey and p_brand = 'Brand#34'
        and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
        and l_quantity >= 20 and l_quantity <= 20 + 10
        and p_size between 1 and 15
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    );

-- Q21, the suppliers who kept orders waiting: EXISTS and NOT EXISTS
-- correlated by `<>`, each a nested view of the least and greatest
-- supplier per order.
CREATE VIEW tpch_q21 WITH (intractable = 'allow') AS
select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
    and o_orderkey = l1.l_orderkey
    and o_orderstatus = 'F'
    and l1.l_receiptdate > l1.l_commitdate
    and exists (
        select * from lineitem l2
        where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey
    )
    and not exists (
        select * from lineitem l3
        where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
            and l3.l_receiptdate > l3.l_commitdate
    )
    and s_nationkey = n_nationkey
    and n_name = 'SAUDI ARABIA'
group by s_name
order by numwait desc, s_name
limit 100;

-- Q8, Q19 and Q21 again with parameters that select rows at the small
-- scales of the tests (any steel part; broader branches; any nation):
-- with the validation run's, they are empty below scale factor 0.01.
CREATE VIEW tpch_q8_wide WITH (intractable = 'allow') AS
select o_year,
    sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from (
    select extract(year from o_orderdate) as o_year,
        l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation
    from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey
        and o_custkey = c_custkey and c_nationkey = n1.n_nationkey
        and n1.n_regionkey = r_regionkey and r_name = 'AMERICA'
        and s_nationkey = n2.n_nationkey
        and o_orderdate between date '1995-01-01' and date '1996-12-31'
        and p_type like '%STEEL'
    ) as all_nations
group by o_year
order by o_year;

CREATE VIEW tpch_q19_wide WITH (intractable = 'allow') AS
select sum(l_extendedprice* (1 - l_discount)) as revenue
from lineitem, part
where (
        p_partkey = l_partkey and p_container like 'SM%'
        and l_quantity <= 30 and l_shipmode in ('AIR', 'AIR REG', 'MAIL')
    ) or (
        p_partkey = l_partkey and p_container like 'MED%'
        and p_size between 1 and 25 and l_shipinstruct = 'DELIVER IN PERSON'
    ) or (
        p_partkey = l_partkey and p_brand like 'Brand#3%' and l_quantity >= 20
    );

CREATE VIEW tpch_q21_wide WITH (intractable = 'allow') AS
select s_name, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
    and o_orderkey = l1.l_orderkey
    and o_orderstatus = 'F'
    and l1.l_receiptdate > l1.l_commitdate
    and exists (
        select * from lineitem l2
        where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey
    )
    and not exists (
        select * from lineitem l3
        where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
            and l3.l_receiptdate > l3.l_commitdate
    )
    and s_nationkey = n_nationkey
group by s_name
order by numwait desc, s_name
limit 100;

-- Q17 and Q18 again with parameters that select rows at the small scales
-- of the tests (one brand of any container; orders of over 150 units):
-- with the validation run's, both are empty below scale factor 0.01.
CREATE VIEW tpch_q17_wide WITH (intractable = 'allow') AS
SELECT SUM(l_extendedprice) / 7.0 AS avg_yearly
FROM lineitem, part
WHERE p_partkey = l_partkey AND p_brand = 'Brand#23'
    AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM lineitem WHERE l_partkey = p_partkey);

CREATE VIEW tpch_q18_wide WITH (intractable = 'allow') AS
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity)
FROM customer, orders, lineitem
WHERE o_orderkey IN (
        SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 150)
    AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate
LIMIT 100;
