-- The ORDER BY suite (docs/design.md#order-by-and-limit): views with
-- ORDER BY, LIMIT and OFFSET over every shape (grouped, bag, nested,
-- outer join, union) and column type, checked against SQLite in order by
-- tests/sql_order.rs, whose windows move as rows come and go.

CREATE TABLE r (a INT NOT NULL, b INT, c BIGINT, PRIMARY KEY (a));
CREATE TABLE s (b INT, d DECIMAL(8, 2), e VARCHAR(4), f DATE);
CREATE TABLE t (a INT, g DOUBLE, h BOOLEAN);
CREATE TABLE u (k VARCHAR(4), w SMALLINT, x INT, y BIGINT, UNIQUE (k, w));
CREATE TABLE n (a INT NULL, v BIGINT NULL, e VARCHAR(4) NULL, m DECIMAL(8, 2) NULL);

-- ORDER BY alone: sorted at reading.
CREATE VIEW sorted_groups AS
    SELECT a, COUNT(*) AS rows, SUM(c) AS total FROM r GROUP BY a ORDER BY total DESC, a;

CREATE VIEW sorted_bag AS SELECT e, f, d FROM s ORDER BY f, 3 DESC;

-- A top-k of groups, by an aggregate.
CREATE VIEW top_groups AS
    SELECT a, SUM(c) AS total FROM r GROUP BY a ORDER BY total DESC LIMIT 3;

-- A window past an offset, by a decimal sum and a date.
CREATE VIEW window_offset AS
    SELECT e, SUM(d) AS amount, MAX(f) AS latest FROM s GROUP BY e
    ORDER BY amount, latest DESC LIMIT 2 OFFSET 1;

-- A bag: copies count towards the limit.
CREATE VIEW bag_limit AS SELECT b, c FROM r ORDER BY c DESC, b LIMIT 4;

-- LIMIT without ORDER BY: the rows in the order of their select items.
CREATE VIEW bare_limit AS SELECT k, w FROM u LIMIT 3;

-- OFFSET alone.
CREATE VIEW offset_only AS SELECT x, COUNT(*) FROM u GROUP BY x ORDER BY 2 DESC, 1 OFFSET 2;

-- NULL: smallest by default, moved by NULLS FIRST and NULLS LAST.
CREATE VIEW nulls_default AS SELECT a, v FROM n ORDER BY v DESC LIMIT 5;

CREATE VIEW nulls_moved AS
    SELECT e, SUM(v) AS total FROM n GROUP BY e ORDER BY total NULLS LAST, e DESC NULLS FIRST LIMIT 3;

-- Doubles and booleans, by an expression of the select list.
CREATE VIEW by_expression AS
    SELECT h, SUM(g) AS weight, COUNT(*) FROM t GROUP BY h ORDER BY SUM(g) DESC LIMIT 1;

-- A join, by a column it selects under another name.
CREATE VIEW joined_top AS
    SELECT r.a AS key, COUNT(*) AS pairs, SUM(t.g) FROM r, t WHERE r.a = t.a
    GROUP BY r.a ORDER BY pairs DESC, key LIMIT 2;

-- Nested: a derived table's counts, ranked.
CREATE VIEW nested_top WITH (intractable = 'allow') AS
    SELECT cnt, COUNT(*) AS groups FROM (SELECT b, COUNT(*) AS cnt FROM r GROUP BY b) AS per_b
    GROUP BY cnt ORDER BY groups DESC, cnt LIMIT 2;

-- An outer join, ranked with its NULLs.
CREATE VIEW outer_top AS
    SELECT r.a, COUNT(s.b) AS matches FROM r LEFT JOIN s ON r.b = s.b
    GROUP BY r.a ORDER BY matches DESC, r.a LIMIT 3;

-- A UNION ALL, ordered as a whole.
CREATE VIEW union_top AS
    SELECT a FROM r UNION ALL SELECT a FROM t ORDER BY a DESC LIMIT 4;

-- DISTINCT, with FETCH FIRST.
CREATE VIEW distinct_first AS
    SELECT DISTINCT e FROM s ORDER BY e FETCH FIRST 2 ROWS ONLY;

-- One row, ordered and limited to itself: nothing to keep.
CREATE VIEW keyless_ordered AS SELECT COUNT(*), SUM(c) FROM r ORDER BY 1 LIMIT 1;

-- A rule that finds its changes by comparing whole results: the window
-- is cut from the rows sorted at reading.
CREATE VIEW recomputed_top WITH (strategy = 'recompute') AS
    SELECT b, SUM(c) AS total FROM r GROUP BY b ORDER BY total DESC LIMIT 2 OFFSET 1;

CREATE VIEW recomputed_bag WITH (strategy = 'recompute') AS
    SELECT a, b FROM r ORDER BY b DESC LIMIT 3;
