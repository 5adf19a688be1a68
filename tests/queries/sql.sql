-- The SQL suite: views over every part of the supported fragment
-- (docs/design.md#sql), which tests/sql.rs drives with random inserts and
-- deletes and checks, after each batch, against SQLite's answer to the
-- same SELECT. A `-- sqlite:` line before a view gives SQLite's spelling
-- where the dialects differ (dates are text there).

CREATE TABLE r (a INT NOT NULL, b INT, c BIGINT, PRIMARY KEY (a));
CREATE TABLE s (b INT, d DECIMAL(8, 2), e VARCHAR(4), f DATE);
CREATE TABLE t (a INT, g DOUBLE, h BOOLEAN);
CREATE TABLE u (k VARCHAR(4), w SMALLINT, x INT, y BIGINT, UNIQUE (k, w));
CREATE TABLE n (a INT NULL, v BIGINT NULL, e VARCHAR(4) NULL, m DECIMAL(8, 2) NULL);

CREATE VIEW count_by_a AS SELECT a, COUNT(*) AS n FROM r GROUP BY a;

CREATE VIEW sums_by_a AS
    SELECT a, SUM(c) AS total, SUM(b * c), AVG(c), MIN(c), MAX(b), COUNT(c)
    FROM r WHERE c > -2 GROUP BY a;

CREATE VIEW whole_r AS SELECT SUM(c), COUNT(*), AVG(b), MIN(c), MAX(c) FROM r;

CREATE VIEW two_keys AS SELECT b, a, SUM(c) FROM r WHERE NOT (a = b) GROUP BY b, a;

CREATE VIEW arithmetic AS
    SELECT a, SUM(c) - 2 * COUNT(*) AS x, SUM(c) * 3, -SUM(b), SUM(c + 2 * b - 1) AS y
    FROM r GROUP BY a;

CREATE VIEW bag AS SELECT a, b FROM r WHERE a IN (1, 2, 3);

CREATE VIEW constants AS SELECT a, COUNT(*) FROM r WHERE b = 3 AND c <> -1 GROUP BY a;

CREATE VIEW revenue AS
    SELECT r.b, SUM(r.c * s.d) AS rev, SUM(r.c * s.d + r.c) AS rev_plus, SUM(r.c * s.d - s.d) AS net, COUNT(*)
    FROM r JOIN s ON r.b = s.b
    WHERE s.e LIKE 'x%'
    GROUP BY r.b;

-- sqlite: SELECT e, MIN(f), MAX(d), SUM(d), AVG(d), COUNT(*) FROM s WHERE f BETWEEN '2020-01-10' AND '2020-03-01' GROUP BY e
CREATE VIEW dates AS
    SELECT e, MIN(f), MAX(d), SUM(d), AVG(d), COUNT(*)
    FROM s WHERE f BETWEEN DATE '2020-01-10' AND DATE '2020-03-01'
    GROUP BY e;

-- sqlite: SELECT b, COUNT(*), MAX(f) FROM s WHERE CAST(strftime('%m', f) AS INTEGER) = 2 OR f >= '2020-03-11' GROUP BY b
CREATE VIEW months AS
    SELECT b, COUNT(*), MAX(f) FROM s
    WHERE EXTRACT(MONTH FROM f) = 2 OR f >= DATE '2020-01-01' + INTERVAL '2' MONTH + INTERVAL '10' DAY
    GROUP BY b;

CREATE VIEW doubles AS
    SELECT h, SUM(g), AVG(g), COUNT(*) FROM t WHERE g > 0.5 OR NOT h GROUP BY h;

CREATE VIEW per_a AS
    SELECT r.a, SUM(t.g * r.c), COUNT(*) FROM r, t WHERE r.a = t.a GROUP BY r.a;

CREATE VIEW by_a_of_s WITH (intractable = 'allow') AS
    SELECT r.a, SUM(s.d), COUNT(*) FROM r, s WHERE r.b = s.b GROUP BY r.a;

CREATE VIEW self_join WITH (intractable = 'allow') AS
    SELECT x.a, COUNT(*), SUM(y.c) FROM r x, r y WHERE x.b = y.a GROUP BY x.a;

CREATE VIEW theta WITH (strategy = 'first_order') AS
    SELECT r.a, COUNT(*) FROM r, t WHERE r.a = t.a AND r.c < t.g GROUP BY r.a;

-- A theta factor tested in the loop that completes it, before the loops
-- inside (δu: `r.c <> u.y` once `r` is found, before `s` is walked).
CREATE VIEW theta_mid_join WITH (intractable = 'allow') AS
    SELECT s.e, COUNT(*), SUM(r.c) FROM r, s, u WHERE r.b = s.b AND u.x = r.a AND r.c <> u.y GROUP BY s.e;

CREATE VIEW path WITH (intractable = 'allow') AS
    SELECT COUNT(*), SUM(s.d * t.g) FROM r, s, t WHERE r.b = s.b AND r.a = t.a AND t.h;

CREATE VIEW text_constant AS SELECT b, COUNT(*), MIN(f) FROM s WHERE e = 'xy' AND b <> 2 GROUP BY b;

CREATE VIEW cases AS
    SELECT a, SUM(CASE WHEN b > 1 THEN c ELSE 0 END) AS hi,
        SUM(CASE b WHEN 0 THEN 1 WHEN 1 THEN 2 ELSE c END), COUNT(*)
    FROM r GROUP BY a;

CREATE VIEW case_join AS
    SELECT r.b, SUM(CASE WHEN s.e LIKE 'x%' THEN r.c * s.d ELSE 0 END) AS promo,
        SUM(CASE WHEN r.a = 1 THEN s.d ELSE r.c END), COUNT(*)
    FROM r, s WHERE r.b = s.b GROUP BY r.b;

CREATE VIEW ratios AS
    SELECT a, 100.00 * SUM(c) / SUM(b), SUM(c) / COUNT(*), SUM(b) / 2, SUM(c) * 1.0 / COUNT(*)
    FROM r GROUP BY a;

CREATE VIEW whole_ratio AS SELECT SUM(d) / COUNT(*), SUM(d) / SUM(d), COUNT(*) FROM s;

-- GROUP BY expressions of one table's columns: by alias, by position, as
-- written, and not selected at all.
CREATE VIEW by_month AS
    SELECT EXTRACT(MONTH FROM f) AS month, COUNT(*), SUM(d) FROM s GROUP BY month;

CREATE VIEW buckets AS
    SELECT a % 2 AS parity, c / 2, SUM(b), MIN(c) FROM r GROUP BY 1, c / 2;

CREATE VIEW unselected_key AS SELECT COUNT(*), SUM(c) FROM r GROUP BY c - b;

CREATE VIEW labels WITH (intractable = 'allow') AS
    SELECT CASE WHEN r.c > 1 THEN 'big' ELSE 'small' END AS size, NOT t.h, COUNT(*), SUM(t.g)
    FROM r JOIN t ON r.a = t.a
    GROUP BY size, NOT t.h;

CREATE VIEW bag_of_expressions AS SELECT a % 3, c + 1 AS next, b FROM r WHERE c >= 0;

CREATE VIEW double_extremes AS SELECT h, MIN(g), MAX(g * 2), COUNT(*) FROM t GROUP BY h;

CREATE VIEW decimal_extremes WITH (intractable = 'allow') AS
    SELECT r.a, MIN(s.d), MAX(s.d * 2), SUM(s.d) FROM r, s WHERE r.b = s.b GROUP BY r.a;

CREATE VIEW inequality WITH (intractable = 'allow') AS
    SELECT SUM(r.c * t.g), COUNT(*) FROM r, t WHERE r.a < t.a;

CREATE VIEW inequality_self WITH (intractable = 'allow') AS
    SELECT COUNT(*), SUM(x.c * y.c) FROM r x, r y WHERE x.b >= y.b;

-- Semijoins: EXISTS, NOT EXISTS, IN and NOT IN subqueries in WHERE.
CREATE VIEW semijoin_exists AS
    SELECT b, COUNT(*), SUM(c) FROM r
    WHERE EXISTS (SELECT * FROM s WHERE s.b = r.b AND s.d > 1)
    GROUP BY b;

CREATE VIEW semijoin_not_exists AS
    SELECT r.b, COUNT(*), MAX(r.c) FROM r
    WHERE NOT EXISTS (SELECT * FROM s WHERE s.b = r.b)
    GROUP BY r.b;

CREATE VIEW semijoin_in AS
    SELECT a, SUM(g), COUNT(*) FROM t WHERE a IN (SELECT a FROM r WHERE c > 0) GROUP BY a;

CREATE VIEW semijoin_not_in WITH (intractable = 'allow') AS
    SELECT b, COUNT(*) FROM r WHERE c > -3 AND a NOT IN (SELECT a FROM t WHERE h) GROUP BY b;

CREATE VIEW semijoin_bag WITH (intractable = 'allow') AS
    SELECT a, b FROM r WHERE b IN (SELECT s.b FROM s JOIN s s2 ON s.b = s2.b WHERE s.e <> s2.e);

-- A table of the subquery that misses the correlated column: an update of
-- `t` may turn the semijoin at many values of `r.b`.
CREATE VIEW semijoin_reaching WITH (intractable = 'allow') AS
    SELECT a, COUNT(*), SUM(c) FROM r
    WHERE EXISTS (SELECT * FROM s, t WHERE s.b = r.b AND t.a = s.b + 1 AND t.h)
    GROUP BY a;

CREATE VIEW semijoin_not_reaching WITH (intractable = 'allow') AS
    SELECT b, COUNT(*) FROM r
    WHERE NOT EXISTS (SELECT * FROM s, r x WHERE s.b = r.b AND x.a = s.b + 1 AND x.c > 0)
    GROUP BY b;

CREATE VIEW semijoin_two WITH (intractable = 'allow') AS
    SELECT t.a, COUNT(*) FROM t
    WHERE EXISTS (SELECT * FROM r WHERE r.a = t.a AND r.b > 1)
      AND NOT EXISTS (SELECT * FROM r x WHERE x.a = t.a AND x.c = 2)
    GROUP BY t.a;

-- Integers of every width in arithmetic with aggregates: computed in i64.
CREATE VIEW key_times_sum AS SELECT a, a * SUM(b) FROM r GROUP BY a;

CREATE VIEW widths AS
    SELECT w, w * SUM(x) + SUM(y), -w, COUNT(*) - w, SUM(w * x) / (w + 3) FROM u GROUP BY w;

-- Constants in the select list: a row owns its text.
CREATE VIEW text_in_bag AS SELECT 'ab', a FROM r;

CREATE VIEW text_by_group AS SELECT 'ab', COUNT(*) FROM r GROUP BY a;

CREATE VIEW constant_bag AS SELECT '' AS empty, 2 FROM t WHERE a = 1;

CREATE VIEW text_keyless AS SELECT 'ab' AS label, COUNT(*), 7, 1.5, TRUE FROM r;

-- A cross product (kept small by a1's condition: the bag lists a row per
-- copy).
CREATE VIEW text_cases WITH (intractable = 'allow') AS
    SELECT CASE WHEN a0.x > 1 THEN 'yes' ELSE 'no' END, 'ba' FROM u a0, u a1 WHERE a1.w = 2 AND a1.x = 3;

-- A text group key, a self-join, and a subquery over two tables whose
-- correlated value is text.
CREATE VIEW text_key_subquery WITH (intractable = 'allow') AS
    SELECT MIN(a0.y / 2), SUM(a0.y + a1.b), COUNT(a0.k) + 2, a0.k
    FROM u a0, s a1
    WHERE a0.w > a1.b
      AND a1.e IN (SELECT s00.k FROM u s00, u s01 WHERE s00.y = s01.w AND s01.x > s01.w)
    GROUP BY a0.k;

-- Sums of constants: a constant is summed once per row.
CREATE VIEW constant_sums AS
    SELECT SUM(1), SUM(2.5), AVG(1), SUM(c + 1 - 3), SUM(1) - COUNT(*), SUM(-2) FROM r;

CREATE VIEW constant_sum_by_a AS SELECT a, SUM(1), SUM(1.0E0) FROM r GROUP BY a;

CREATE VIEW constant_ratio AS SELECT (100000 * SUM(1)) / b FROM r GROUP BY b;

CREATE VIEW constant_term_join WITH (intractable = 'allow') AS
    SELECT r.b, SUM(r.c + s.d + 1), SUM(r.c - 2 + s.b), AVG(r.c + s.b - 1) FROM r, s WHERE r.b = s.b GROUP BY r.b;

-- A FROM item whose columns are all constants or unread: a nullary factor.
CREATE VIEW nullary_count AS SELECT COUNT(*) FROM r, s WHERE r.a = 1;

CREATE VIEW nullary_by_b AS SELECT s.b, SUM(s.d) FROM s, t WHERE t.a = 2 AND t.h GROUP BY s.b;

-- Uncorrelated subqueries: the whole result is gated on whether the
-- subquery has a row.
CREATE VIEW gated_exists AS
    SELECT a, COUNT(*) FROM r WHERE EXISTS (SELECT * FROM s WHERE s.b > 2) GROUP BY a;

CREATE VIEW gated_not_exists AS
    SELECT b, SUM(c) FROM r WHERE NOT EXISTS (SELECT * FROM t WHERE t.h) GROUP BY b;

CREATE VIEW gated_in AS SELECT a, b FROM r WHERE 3 IN (SELECT b FROM s WHERE s.e <> 'x');

CREATE VIEW gated_not_in AS SELECT COUNT(*) FROM t WHERE 1 NOT IN (SELECT a FROM r);

CREATE VIEW gated_and_correlated AS
    SELECT t.a, COUNT(*) FROM t
    WHERE EXISTS (SELECT * FROM r WHERE r.a = t.a)
      AND NOT EXISTS (SELECT * FROM s WHERE s.b = 1)
    GROUP BY t.a;

-- Nested SQL (docs/design.md#nested-sql), a few views; the rest of the
-- nested forms are in sql_nested.sql (tests/sql_nested.rs, which .ci/run
-- runs).
CREATE VIEW scalar_correlated WITH (intractable = 'allow') AS
    SELECT a, SUM(c) AS total FROM r
    WHERE b <= (SELECT SUM(s.d) FROM s WHERE s.b = r.b) GROUP BY a;

CREATE VIEW having_sum AS
    SELECT a, SUM(c) AS total, COUNT(*) FROM r GROUP BY a HAVING SUM(c) > 2 AND a <> 3;

-- CASE over aggregates, read as the row is: a group's only value (NULL
-- where it has several), bands of a sum, a simple CASE of the count, a
-- date, and a CASE of a view without GROUP BY.
CREATE VIEW case_over_aggregates AS
    SELECT e, CASE WHEN MIN(b) = MAX(b) THEN MIN(b) END AS only_b,
        CASE WHEN SUM(d) > 1 AND NOT (MAX(b) < 3) THEN SUM(d) WHEN COUNT(*) = 1 THEN -1 ELSE 0 END
            AS banded,
        CASE COUNT(*) WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS size,
        CASE WHEN MAX(f) > DATE '2020-02-15' THEN MAX(f) END AS late
    FROM s GROUP BY e;

CREATE VIEW case_keyless AS
    SELECT CASE WHEN COUNT(*) > 2 OR SUM(c) < 0 THEN SUM(c) ELSE COUNT(*) END AS c FROM r;

CREATE VIEW base_sums AS SELECT a, SUM(c) AS total FROM r GROUP BY a;

CREATE VIEW over_view AS SELECT COUNT(*) AS n, SUM(total) FROM base_sums WHERE total > 0;

-- Deletes trusted (docs/design.md#how-a-delete-is-checked): the tables
-- keep nothing, and the stream deletes only rows it inserted.
CREATE VIEW trusted_revenue WITH (deletes = 'trusted') AS
    SELECT r.b, SUM(r.c * s.d) AS rev, MIN(s.d), MAX(r.c), COUNT(*)
    FROM r JOIN s ON r.b = s.b
    GROUP BY r.b;

CREATE VIEW trusted_whole WITH (deletes = 'trusted') AS SELECT SUM(c), AVG(b), MIN(c), COUNT(*) FROM r;
