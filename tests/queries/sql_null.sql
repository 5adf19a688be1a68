-- The NULL suite (docs/design.md#null): views over the nullable columns
-- of table `n`, a quarter of whose fields are NULL in the random streams,
-- checked against SQLite by tests/sql_null.rs as tests/sql.rs checks the
-- main suite.

CREATE TABLE r (a INT NOT NULL, b INT, c BIGINT, PRIMARY KEY (a));
CREATE TABLE s (b INT, d DECIMAL(8, 2), e VARCHAR(4), f DATE);
CREATE TABLE t (a INT, g DOUBLE, h BOOLEAN);
CREATE TABLE u (k VARCHAR(4), w SMALLINT, x INT, y BIGINT, UNIQUE (k, w));
CREATE TABLE n (a INT NULL, v BIGINT NULL, e VARCHAR(4) NULL, m DECIMAL(8, 2) NULL);

CREATE VIEW null_bag AS SELECT a, v, e FROM n;

CREATE VIEW null_groups AS
    SELECT a, COUNT(*), COUNT(v), SUM(v), AVG(v), MIN(v), MAX(m), SUM(m) FROM n GROUP BY a;

CREATE VIEW null_whole AS SELECT COUNT(*), COUNT(e), SUM(v), MIN(m), MAX(v), AVG(m) FROM n;

CREATE VIEW null_where AS SELECT e, COUNT(*) FROM n WHERE v > 0 OR a IS NULL GROUP BY e;

CREATE VIEW null_not AS SELECT a, COUNT(*) FROM n WHERE NOT (v < 2) GROUP BY a;

CREATE VIEW null_logic AS
    SELECT COUNT(*), SUM(v) FROM n WHERE (a = 1 OR v > 2) AND NOT (e = 'x' AND m < 0);

CREATE VIEW null_is AS
    SELECT e, COUNT(*) FROM n WHERE v IS NOT NULL AND m IS NULL GROUP BY e;

CREATE VIEW null_coalesce AS
    SELECT COALESCE(a, -1) AS k, SUM(COALESCE(v, 10)), COUNT(*) FROM n GROUP BY COALESCE(a, -1);

CREATE VIEW null_join AS
    SELECT r.a, COUNT(*), SUM(n.v), MIN(n.m) FROM r JOIN n ON r.a = n.a GROUP BY r.a;

CREATE VIEW null_self_join WITH (intractable = 'allow') AS
    SELECT x.e, COUNT(*) FROM n x, n y WHERE x.a = y.a GROUP BY x.e;

CREATE VIEW null_text_join AS
    SELECT n.e, COUNT(*), MAX(n.v), SUM(s.d) FROM s, n WHERE s.e = n.e GROUP BY n.e;

CREATE VIEW null_constant AS SELECT e, COUNT(*) FROM n WHERE a = 2 AND e <> 'y' GROUP BY e;

CREATE VIEW null_case AS
    SELECT a, SUM(CASE WHEN v > 1 THEN v END), COUNT(CASE WHEN e LIKE 'x%' THEN 1 END)
    FROM n GROUP BY a;

CREATE VIEW null_cross_sum AS
    SELECT r.b, SUM(r.c * n.v), COUNT(n.m), AVG(n.v + r.a), COUNT(*)
    FROM r, n WHERE r.b = n.a GROUP BY r.b;

CREATE VIEW null_key_expr AS SELECT v + 1 AS w, COUNT(*) FROM n GROUP BY v + 1;

CREATE VIEW null_arith AS
    SELECT a, SUM(v) * 2 + COUNT(*), -SUM(m), SUM(v) / COUNT(m) FROM n GROUP BY a;

CREATE VIEW null_exists AS
    SELECT a, COUNT(*) FROM n WHERE EXISTS (SELECT * FROM r WHERE r.a = n.a) GROUP BY a;

CREATE VIEW null_in_list AS SELECT e, COUNT(*) FROM n WHERE v IN (1, 2, NULL) GROUP BY e;

CREATE VIEW null_bag_expressions AS SELECT v * 2 AS twice, COALESCE(e, 'none') AS label FROM n;

-- Outer joins: the preserved side's rows that match nothing, with NULLs.
CREATE VIEW left_count AS
    SELECT r.a, COUNT(*), COUNT(t.g), SUM(t.g) FROM r LEFT JOIN t ON r.a = t.a GROUP BY r.a;

CREATE VIEW left_bag AS SELECT r.a, r.b, s.d FROM r LEFT JOIN s ON r.b = s.b;

CREATE VIEW left_filtered AS
    SELECT r.b, COUNT(*) FROM r LEFT OUTER JOIN s ON r.b = s.b AND s.e LIKE 'x%'
    WHERE r.c > 0 AND s.d IS NULL GROUP BY r.b;

CREATE VIEW left_nullable_side AS
    SELECT r.a, COUNT(*), COUNT(n.v), MAX(n.m) FROM r LEFT JOIN n ON r.a = n.a GROUP BY r.a;

CREATE VIEW right_join AS SELECT t.a, COUNT(r.b), COUNT(*) FROM r RIGHT JOIN t ON r.a = t.a GROUP BY t.a;

CREATE VIEW left_derived AS
    SELECT cnt, COUNT(*) FROM (SELECT r.a, COUNT(s.d) AS cnt FROM r LEFT JOIN s ON r.b = s.b GROUP BY r.a) x
    GROUP BY cnt;

CREATE VIEW left_star AS SELECT * FROM t LEFT JOIN n ON t.a = n.a WHERE t.h;

-- COUNT of a column of the nullable side that cannot be NULL counts by
-- the column ON compares (docs/design.md#outer-joins): here `x.a`, NULL
-- in one group of `x`, which matches nothing; `x.k` is then not kept.
-- `COUNT(DISTINCT x.k)` and `COUNT(n.v)` (which can be NULL) stay.
CREATE VIEW left_count_by_compared AS
    SELECT cnt, COUNT(*) FROM (
        SELECT r.a, COUNT(x.k) AS cnt FROM r LEFT JOIN (SELECT n.a, COUNT(*) AS k FROM n GROUP BY n.a) x
            ON r.a = x.a AND x.k > 1
        GROUP BY r.a) y
    GROUP BY cnt;

CREATE VIEW left_count_kept AS
    SELECT r.b, COUNT(x.k) + COUNT(DISTINCT x.k), SUM(x.k)
    FROM r LEFT JOIN (SELECT n.a, COUNT(*) AS k FROM n GROUP BY n.a) x ON x.a = r.a GROUP BY r.b;

CREATE VIEW right_count_by_compared AS
    SELECT n.e, COUNT(n.v), COUNT(s.d) FROM s RIGHT JOIN n ON s.b = n.a GROUP BY n.e;

-- UNION ALL, UNION and DISTINCT.
CREATE VIEW union_all_bag AS SELECT a, b FROM r WHERE c > 0 UNION ALL SELECT b, b FROM s;

CREATE VIEW union_all_grouped AS
    SELECT k, SUM(w), COUNT(*) FROM (SELECT a AS k, v AS w FROM n UNION ALL SELECT a, c FROM r) x
    GROUP BY k;

CREATE VIEW union_distinct AS SELECT a FROM r UNION SELECT a FROM t;

CREATE VIEW distinct_bag AS SELECT DISTINCT b, c FROM r;

CREATE VIEW distinct_star AS SELECT DISTINCT * FROM n WHERE v > 0 OR v IS NULL;

CREATE VIEW count_of_union AS SELECT COUNT(*) FROM (SELECT e FROM s UNION SELECT e FROM n) u;

CREATE VIEW count_distinct AS
    SELECT a, COUNT(DISTINCT v), SUM(DISTINCT v) AS s, AVG(DISTINCT v) FROM n GROUP BY a;

CREATE VIEW count_distinct_keyless AS SELECT COUNT(DISTINCT b) AS kinds FROM r WHERE c > 0;

CREATE VIEW count_distinct_join WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(DISTINCT s.e) FROM r, s WHERE r.b = s.b GROUP BY r.a;

-- Found by the fuzzer: COALESCE of a nullable column under a product is
-- not NULL where the column is; two nullable operands of one operator
-- outside a WHERE conjunct; a constant term of a guarded sum whose first
-- FROM item the sum does not read.
CREATE VIEW coalesce_times_scalar WITH (intractable = 'allow') AS
    SELECT SUM(COALESCE(n.a, 5) * (SELECT MIN(c) FROM r)) FROM n;

CREATE VIEW two_nullable_operands AS
    SELECT SUM(v + m), COUNT(*) FROM n WHERE v > a OR e IS NULL;

CREATE VIEW guarded_constant_term WITH (intractable = 'allow') AS
    SELECT SUM(n.v + r.c - 1) FROM t, r, n WHERE n.a = r.b AND r.a = t.a;

CREATE VIEW left_qualified_star AS SELECT r.*, n.v FROM r LEFT JOIN n ON r.a = n.a;

CREATE VIEW distinct_qualified_star AS SELECT DISTINCT x.* FROM n x WHERE x.v IS NOT NULL;

-- EXISTS and NOT EXISTS correlated by a comparison other than equality,
-- over NULL: a NULL on either side satisfies no comparison, so NOT EXISTS
-- holds for an outer row whose value is NULL.
CREATE VIEW null_not_exists_other WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*) FROM r WHERE NOT EXISTS (SELECT * FROM n WHERE n.v <> r.c) GROUP BY r.a;

CREATE VIEW null_exists_below WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n WHERE EXISTS (SELECT * FROM r WHERE r.a = 1 AND r.c < n.v)
    GROUP BY n.e;

CREATE VIEW null_not_exists_nullable_outer WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n WHERE NOT EXISTS (SELECT * FROM r WHERE r.c <> n.v) GROUP BY n.e;

-- INTERSECT and EXCEPT: sets, NULL equal to NULL as in SQL's set
-- operations (a tagged UNION ALL grouped by its columns).
CREATE VIEW intersect_rows AS SELECT a, e FROM n INTERSECT SELECT b, e FROM s;

CREATE VIEW except_rows AS SELECT a FROM r EXCEPT SELECT a FROM n;

-- INTERSECT binds tighter than UNION, as in the standard and PostgreSQL;
-- SQLite reads compound SELECTs left to right, so it is told.
-- sqlite: SELECT a FROM r UNION SELECT * FROM (SELECT a FROM t INTERSECT SELECT a FROM n)
CREATE VIEW union_of_intersect AS
    SELECT a FROM r UNION SELECT a FROM t INTERSECT SELECT a FROM n;

CREATE VIEW count_of_except AS
    SELECT COUNT(*), SUM(b) FROM (SELECT b FROM r EXCEPT SELECT b FROM s) AS d;

-- GREATEST and LEAST as PostgreSQL reads them (NULL passed over, NULL
-- when every argument is), DBToaster's LISTMAX and LISTMIN, DATE_PART
-- and the casts that lose nothing. SQLite has none of the first four.
-- sqlite: SELECT a, max(COALESCE(v, a, 0), COALESCE(a, v, 0), 0) AS hi, CASE WHEN v IS NULL THEN m WHEN m IS NULL THEN v ELSE min(v, m) END AS lo, COUNT(*) FROM n GROUP BY a, hi, lo
CREATE VIEW greatest_least AS
    SELECT a, GREATEST(v, a, 0) AS hi, LEAST(v, m) AS lo, COUNT(*) FROM n
    GROUP BY a, GREATEST(v, a, 0), LEAST(v, m);

-- sqlite: SELECT b, SUM(max(1, c)), SUM(min(c, 3)) FROM r GROUP BY b
CREATE VIEW listmax_sums AS SELECT b, SUM(LISTMAX(1, c)), SUM(LISTMIN(c, 3)) FROM r GROUP BY b;

-- GREATEST, LEAST and COALESCE over aggregates, read as the row is: the
-- guarded division of DBToaster's test queries, and each rule of NULL
-- (SUM over no value is NULL; so is MIN/MAX; COALESCE skips them).
CREATE VIEW guarded_ratio AS
    SELECT a, SUM(c) / LISTMAX(1, SUM(b)) AS ratio, GREATEST(MIN(c), 0), LEAST(COUNT(*), 3, MAX(b))
    FROM r GROUP BY a;

CREATE VIEW picks_over_null AS
    SELECT e, COALESCE(SUM(v), 0) AS total, COALESCE(MAX(m), MIN(m)), GREATEST(SUM(m), 1),
        LEAST(MAX(v), SUM(v))
    FROM n GROUP BY e;

CREATE VIEW greatest_of_nulls AS
    SELECT e, GREATEST(MAX(a), MIN(v)), LEAST(MIN(a), 2, MAX(v)) FROM n GROUP BY e;

CREATE VIEW picks_keyless AS
    SELECT COALESCE(SUM(v), -1), LISTMIN(COUNT(*), MAX(v)), SUM(m) / GREATEST(COUNT(m), 1) FROM n;

-- CASE over aggregates that can be NULL: a WHEN that is NULL is not
-- taken, and a CASE with no ELSE is NULL where no WHEN is true.
CREATE VIEW case_over_nulls AS
    SELECT a, CASE WHEN SUM(v) IS NULL THEN -1 WHEN SUM(v) > 2 OR MAX(m) < 0 THEN SUM(v) END AS banded,
        CASE WHEN NOT (MIN(v) = MAX(v)) THEN COUNT(*) ELSE COUNT(v) END AS counted,
        CASE a WHEN 1 THEN MAX(m) ELSE SUM(v) END AS picked,
        CASE WHEN MAX(v) IS NOT NULL AND NOT (MAX(m) > 0) THEN 1 END AS flag
    FROM n GROUP BY a;

-- sqlite: SELECT e, COUNT(*), SUM(d) FROM s WHERE CAST(strftime('%m', f) AS INTEGER) > 6 GROUP BY e
CREATE VIEW date_part_month AS
    SELECT e, COUNT(*), SUM(d) FROM s WHERE DATE_PART('month', f) > 6 GROUP BY e;

CREATE VIEW lossless_casts AS
    SELECT CAST(a AS BIGINT) AS wide, SUM(CAST(v AS DECIMAL(10, 2))) AS exact,
        SUM(CAST(m AS DOUBLE)) AS approx, COUNT(*)
    FROM n GROUP BY CAST(a AS BIGINT);

-- Comparisons with ANY, SOME and ALL, and NOT IN over values that can be
-- NULL: EXISTS and NOT EXISTS, with ALL false wherever a compared value
-- is NULL and true over no rows. SQLite has no ANY or ALL.
-- sqlite: SELECT r.a, COUNT(*) FROM r WHERE EXISTS (SELECT * FROM n WHERE n.a = r.a AND r.c > n.v) GROUP BY r.a
CREATE VIEW any_below WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*) FROM r WHERE r.c > ANY (SELECT n.v FROM n WHERE n.a = r.a) GROUP BY r.a;

-- sqlite: SELECT u.k, COUNT(*) FROM u WHERE NOT EXISTS (SELECT * FROM n WHERE u.y < n.v OR n.v IS NULL) GROUP BY u.k
CREATE VIEW all_above WITH (intractable = 'allow') AS
    SELECT u.k, COUNT(*) FROM u WHERE u.y >= ALL (SELECT v FROM n) GROUP BY u.k;

-- sqlite: SELECT u.k, u.x FROM u WHERE u.x IN (SELECT b FROM r) AND NOT EXISTS (SELECT * FROM n WHERE n.a = u.x OR n.a IS NULL)
CREATE VIEW some_equal_all_other WITH (intractable = 'allow') AS
    SELECT u.k, u.x FROM u
    WHERE u.x = SOME (SELECT b FROM r) AND u.x <> ALL (SELECT a FROM n);

CREATE VIEW not_in_nullable_inner WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*) FROM r WHERE r.b NOT IN (SELECT a FROM n WHERE m > 0) GROUP BY r.a;

-- sqlite: SELECT n.e, COUNT(*) FROM n WHERE NOT EXISTS (SELECT * FROM r WHERE r.b > 0 AND (n.v >= r.c OR n.v IS NULL)) GROUP BY n.e
CREATE VIEW all_below_nullable_outer WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n WHERE n.v < ALL (SELECT c FROM r WHERE r.b > 0) GROUP BY n.e;

-- NOT EXISTS correlated on a column that can be NULL keeps the rows where
-- it is NULL (no row of the subquery equals NULL): the subquery reads its
-- own column as an `Option`, which a NULL never equals.
CREATE VIEW not_exists_nullable_outer WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*), SUM(n.v) FROM n
    WHERE NOT EXISTS (SELECT * FROM t WHERE t.a = n.a) GROUP BY n.e;

CREATE VIEW not_exists_nullable_text AS
    SELECT n.a, n.e, COUNT(*) FROM n
    WHERE NOT EXISTS (SELECT * FROM s WHERE s.e = n.e AND s.b > 0) GROUP BY n.a, n.e;

CREATE VIEW not_exists_nullable_both WITH (intractable = 'allow') AS
    SELECT x.a, x.v FROM n x
    WHERE NOT EXISTS (SELECT * FROM n y WHERE y.v = x.v AND y.a = x.a AND y.m > 0);

-- The same column joined to another table is never NULL in the view's
-- rows: the plain anti-join.
CREATE VIEW not_exists_nullable_joined WITH (intractable = 'allow') AS
    SELECT r.b, COUNT(*) FROM r, n
    WHERE r.a = n.a AND NOT EXISTS (SELECT * FROM t WHERE t.a = n.a AND t.h)
    GROUP BY r.b;

-- ... or an EXISTS on it, whose column the rule reads as `Some(e)`: the
-- NOT EXISTS's domain reads it so too (fuzzer-found).
CREATE VIEW exists_and_not_on_nullable WITH (intractable = 'allow') AS
    SELECT n.a, COUNT(*) FROM n
    WHERE EXISTS (SELECT * FROM s WHERE s.e = n.e) AND NOT EXISTS (SELECT * FROM s y WHERE y.e = n.e AND y.b > 1)
    GROUP BY n.a;

-- ... or a join of two columns that can be NULL, which the rule reads as
-- `Some(a)` in both atoms: the NOT EXISTS's domain and its updates read
-- the column so too (fuzzer-found).
CREATE VIEW not_exists_on_nullable_join WITH (intractable = 'allow') AS
    SELECT x1.e, COUNT(*) FROM n x0 JOIN n x1 ON x1.a = x0.a
    WHERE NOT EXISTS (SELECT * FROM t WHERE t.a = x1.a AND t.g > 0) GROUP BY x1.e;

CREATE VIEW not_in_on_nullable_join WITH (intractable = 'allow') AS
    SELECT x1.e, COUNT(*), SUM(x0.v) FROM n x0 JOIN n x1 ON x1.a = x0.a
    WHERE x1.a NOT IN (SELECT y.a FROM n y WHERE y.v > 0) GROUP BY x1.e;

-- Two equalities with one outer column that can be NULL: one `let`, its
-- inner columns equal (fuzzer-found).
CREATE VIEW any_correlated_twice WITH (intractable = 'allow') AS
    SELECT n.v, COUNT(*) FROM n
    WHERE n.e = ANY (SELECT y.e FROM s y WHERE y.e = n.e AND y.b > 0) GROUP BY n.v;

-- NOT IN and <> ALL over an outer value that can be NULL: where it is
-- NULL, the row stays only while the subquery has no row.
CREATE VIEW not_in_nullable_outer WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n WHERE n.a NOT IN (SELECT b FROM s WHERE s.d > 0) GROUP BY n.e;

CREATE VIEW not_all_nullable_both WITH (intractable = 'allow') AS
    SELECT n.a, n.v FROM n WHERE n.v <> ALL (SELECT y.v FROM n y WHERE y.m < 1);

-- JOIN .. USING and NATURAL JOIN: ON joins of the shared columns, which
-- `*` and unqualified names read once (NULL never joins).
CREATE VIEW using_nullable AS
    SELECT a, COUNT(*), SUM(c) FROM n JOIN r USING (a) GROUP BY a;

CREATE VIEW natural_text AS SELECT e, b, v FROM s NATURAL JOIN n;

CREATE VIEW natural_star AS SELECT * FROM r NATURAL JOIN t;

CREATE VIEW left_using AS SELECT a, b, g FROM r LEFT JOIN t USING (a);

-- A distinct aggregate beside COUNT, SUM, MIN and MAX: those are summed
-- up per group and distinct value in the nested view, then per group.
CREATE VIEW distinct_beside_others AS
    SELECT e, COUNT(DISTINCT v) AS users, COUNT(*), COUNT(m), SUM(m), MIN(v), MAX(a)
    FROM n GROUP BY e;

CREATE VIEW distinct_sum_beside_count WITH (intractable = 'allow') AS
    SELECT r.b, SUM(DISTINCT r.c), AVG(DISTINCT r.c), COUNT(*) * 2, MAX(s.d) FROM r, s
    WHERE r.b = s.b GROUP BY r.b;

-- Several outer joins: the last one's preserved side holds the others,
-- rewritten in turn inside its nested views.
CREATE VIEW two_left_joins WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*), COUNT(s.b), COUNT(t.a), SUM(t.g)
    FROM r LEFT JOIN s ON r.b = s.b LEFT JOIN t ON r.a = t.a GROUP BY r.a;

CREATE VIEW three_left_joins WITH (intractable = 'allow') AS
    SELECT r.a, r.c, n.v, s.d, u.k
    FROM r LEFT JOIN n ON r.a = n.a LEFT JOIN s ON r.b = s.b LEFT JOIN u ON r.c = u.y;

-- An outer join whose ON compares a column an earlier outer join pads
-- with NULL: the earlier ones are a nested view whose padded columns can
-- be NULL, which matches nothing (a chain of optional lookups).
CREATE VIEW left_join_on_padded WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*), COUNT(t.a), COUNT(s.e)
    FROM r LEFT JOIN t ON t.a = r.b LEFT JOIN s ON s.b = t.a GROUP BY r.a;

CREATE VIEW three_joins_on_padded WITH (intractable = 'allow') AS
    SELECT r.a, n.e, s.d, u.k
    FROM r LEFT JOIN n ON n.a = r.a LEFT JOIN s ON s.e = n.e LEFT JOIN u ON u.x = s.b;

CREATE VIEW left_join_on_padded_nullable WITH (intractable = 'allow') AS
    SELECT t.a, t.g, n.v, r.b FROM t LEFT JOIN n ON n.a = t.a LEFT JOIN r ON r.c = n.v;

-- A FULL OUTER JOIN of more than two items, and a RIGHT JOIN after other
-- joins: the items on the side that must be one are a nested view first.
CREATE VIEW full_join_of_three WITH (intractable = 'allow') AS
    SELECT r.a, t.g, s.d FROM r JOIN t ON t.a = r.a FULL OUTER JOIN s ON s.b = r.b;

CREATE VIEW right_join_after_join WITH (intractable = 'allow') AS
    SELECT s.e, COUNT(*), COUNT(r.a), SUM(t.g)
    FROM r JOIN t ON t.a = r.a RIGHT JOIN s ON s.b = r.b GROUP BY s.e;

CREATE VIEW full_join_after_left WITH (intractable = 'allow') AS
    SELECT COUNT(*), COUNT(n.v), COUNT(s.d), SUM(r.c)
    FROM r LEFT JOIN n ON n.a = r.a FULL JOIN s ON s.b = r.b;

-- ON's conditions over the preserved side alone decide whether its row
-- can match: one that fails them stays, padded, whatever the other side
-- holds (a third nested view of those rows).
CREATE VIEW left_join_on_preserved_condition WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*), COUNT(s.d), SUM(s.d)
    FROM r LEFT JOIN s ON s.b = r.b AND r.c > 0 GROUP BY r.a;

CREATE VIEW left_join_on_nullable_condition WITH (intractable = 'allow') AS
    SELECT n.e, n.v, t.g FROM n LEFT JOIN t ON t.a = n.a AND n.v > 1 AND t.h;

-- Joins after an outer join: the FROM up to it is a nested view, which
-- the rest joins as a table.
CREATE VIEW join_after_left_join WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*), COUNT(t.g), SUM(s.d)
    FROM r LEFT JOIN t ON t.a = r.a JOIN s ON s.b = r.b GROUP BY r.a;

CREATE VIEW item_after_left_join WITH (intractable = 'allow') AS
    SELECT n.e, t.g, u.k FROM n LEFT JOIN t ON t.a = n.a, u WHERE u.x = n.a;

-- An outer join on a column of the preserved side that can be NULL:
-- its NULL matches nothing, and the row stays, padded.
CREATE VIEW left_join_on_nullable WITH (intractable = 'allow') AS
    SELECT n.e, n.a, t.g FROM n LEFT JOIN t ON t.a = n.a;

-- FULL OUTER JOIN: the matched rows, and each side's unmatched rows with
-- NULL in the other side's columns, three nested views feeding one table.
CREATE VIEW full_join AS SELECT r.a, s.b, s.d FROM r FULL OUTER JOIN s ON r.b = s.b;

CREATE VIEW full_counts AS
    SELECT COUNT(*), COUNT(r.a), COUNT(t.a), SUM(t.g) FROM r FULL JOIN t ON r.a = t.a;

CREATE VIEW full_grouped WITH (intractable = 'allow') AS
    SELECT t.h, COUNT(r.c), MAX(r.b) FROM r FULL JOIN t ON r.a = t.a AND r.c < t.g
    WHERE t.h OR r.b > 0 GROUP BY t.h;
