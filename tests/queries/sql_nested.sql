-- The nested SQL suite (docs/design.md#nested-sql): views with scalar
-- subqueries, HAVING, derived tables, views over views and SELECTs
-- without FROM, which tests/sql_nested.rs drives with random inserts and
-- deletes and checks against SQLite after each batch, as tests/sql.rs
-- does the main suite. Its build is kept out of the README's test command
-- for time: `cargo test -p ivm-tests --features nested-suite --test
-- sql_nested` (.ci/run runs it).

CREATE TABLE r (a INT NOT NULL, b INT, c BIGINT, PRIMARY KEY (a));
CREATE TABLE s (b INT, d DECIMAL(8, 2), e VARCHAR(4), f DATE);
CREATE TABLE t (a INT, g DOUBLE, h BOOLEAN);
CREATE TABLE u (k VARCHAR(4), w SMALLINT, x INT, y BIGINT, UNIQUE (k, w));
CREATE TABLE n (a INT NULL, v BIGINT NULL, e VARCHAR(4) NULL, m DECIMAL(8, 2) NULL);

-- Nested SQL (docs/design.md#nested-sql): each nested query is a view of
-- its own, maintained once, whose rows the view reads as a table.
CREATE VIEW scalar_uncorrelated WITH (intractable = 'allow') AS
    SELECT a, COUNT(*) AS n FROM r WHERE c > (SELECT AVG(c) FROM r) GROUP BY a;

CREATE VIEW scalar_equal_correlated WITH (intractable = 'allow') AS
    SELECT COUNT(*) FROM r r1 WHERE r1.a = (SELECT SUM(r2.b) FROM r r2 WHERE r2.a = r1.b);

CREATE VIEW scalar_count WITH (intractable = 'allow') AS
    SELECT b, SUM(c) FROM r WHERE a < (SELECT COUNT(*) FROM t) GROUP BY b;

CREATE VIEW having_keyless AS SELECT COUNT(*) AS n FROM r HAVING COUNT(*) > 2;

CREATE VIEW having_subquery WITH (intractable = 'allow') AS
    SELECT a, SUM(c) AS total FROM r GROUP BY a HAVING 4 * SUM(c) > (SELECT SUM(c) FROM r);

CREATE VIEW derived_count AS SELECT COUNT(*) FROM (SELECT * FROM r) n;

CREATE VIEW derived_sum_of_sum AS SELECT SUM(1) FROM (SELECT SUM(1) FROM r) r;

CREATE VIEW derived_join WITH (intractable = 'allow') AS
    SELECT t.a, SUM(g.total), COUNT(*)
    FROM t, (SELECT a, SUM(c) AS total FROM r GROUP BY a) g WHERE t.a = g.a GROUP BY t.a;

CREATE VIEW derived_nested AS
    SELECT COUNT(*), SUM(x.n)
    FROM (SELECT b, COUNT(*) AS n FROM (SELECT a, b FROM r WHERE c > 0) y GROUP BY b) x;

CREATE VIEW base_sums AS SELECT a, SUM(c) AS total FROM r GROUP BY a;

CREATE VIEW top_groups WITH (intractable = 'allow') AS
    SELECT a, total FROM base_sums WHERE total = (SELECT MAX(total) FROM base_sums);

CREATE VIEW in_having WITH (intractable = 'allow') AS
    SELECT a, SUM(c) FROM r WHERE b IN (SELECT a FROM t GROUP BY a HAVING COUNT(*) > 1) GROUP BY a;

CREATE VIEW in_aggregate WITH (intractable = 'allow') AS
    SELECT COUNT(*) FROM r WHERE c IN (SELECT SUM(y) FROM u WHERE u.x = r.a);

CREATE VIEW in_nested WITH (intractable = 'allow') AS
    SELECT COUNT(*), SUM(d) FROM s
    WHERE b IN (SELECT a FROM r WHERE r.c > (SELECT SUM(t.a) FROM t WHERE t.a = r.b));

-- SELECTs without FROM: one row of constants, written in.
CREATE VIEW constant_scalar AS SELECT a, COUNT(*) FROM r WHERE c > (SELECT 1) GROUP BY a;

CREATE VIEW constant_exists AS
    SELECT COUNT(*) FROM r WHERE EXISTS (SELECT 1 WHERE 2 > 1) AND b IN (SELECT 3);

CREATE VIEW constant_false AS
    SELECT b, SUM(c) FROM r WHERE a NOT IN (SELECT 1 WHERE 1 = 0) AND a < (SELECT 2 WHERE 1 = 1) GROUP BY b;

CREATE VIEW constant_derived AS
    SELECT r.a, SUM(r.c * k.w) FROM r, (SELECT 2 AS w, 3 AS m) k WHERE r.b < k.m GROUP BY r.a;

-- A scalar subquery inside the aggregates of a view without GROUP BY,
-- every select item reading it (DBToaster's `SUM(b * (SELECT ..))`).
CREATE VIEW scalar_in_sum WITH (intractable = 'allow') AS
    SELECT SUM(r1.b * (SELECT SUM(r2.a) FROM r r2 WHERE r2.b = r1.b)) FROM r r1;

CREATE VIEW scalar_in_aggregates WITH (intractable = 'allow') AS
    SELECT SUM(c * (SELECT MAX(x) FROM u)), AVG(c - (SELECT MAX(x) FROM u)) AS mean FROM r WHERE a > 0;

-- NULLs of nested views: an uncorrelated scalar subquery is one row,
-- its value NULL while its table has no rows, read anywhere.
CREATE VIEW scalar_in_groups AS
    SELECT a, COUNT(*), SUM(c * (SELECT MAX(b) FROM r)) AS scaled FROM r GROUP BY a;

CREATE VIEW scalar_under_or WITH (intractable = 'allow') AS
    SELECT a, COUNT(*) FROM r WHERE c > (SELECT AVG(v) FROM n) OR b = 1 GROUP BY a;

CREATE VIEW scalar_is_null AS
    SELECT b, COUNT(*) FROM r WHERE (SELECT MAX(v) FROM n) IS NULL GROUP BY b;

CREATE VIEW scalar_selected AS
    SELECT a, (SELECT MAX(m) FROM n) AS top, COUNT(*) FROM r GROUP BY a;

CREATE VIEW keyless_derived AS
    SELECT t.total, t.cnt FROM (SELECT SUM(v) AS total, COUNT(*) AS cnt FROM n) t;

CREATE VIEW nullable_derived AS
    SELECT k, COUNT(*) FROM (SELECT a AS k, SUM(v) AS s FROM n GROUP BY a) t
    WHERE s IS NULL OR s > 2 GROUP BY k;

CREATE VIEW quotient_derived AS
    SELECT q, COUNT(*) FROM (SELECT a, SUM(c) / SUM(b) AS q FROM r GROUP BY a) t GROUP BY q;

-- Correlated scalar subqueries in the select list: an outer join of their
-- nested view, NULL (or a count of 0) where nothing matches.
CREATE VIEW scalar_correlated_in_groups AS
    SELECT r.a, COUNT(*), SUM(r.c * (SELECT SUM(s.d) FROM s WHERE s.b = r.b)) AS weighted
    FROM r GROUP BY r.a;

CREATE VIEW scalar_correlated_count AS
    SELECT t.a, t.g, (SELECT COUNT(*) FROM r WHERE r.a = t.a) AS matches FROM t WHERE t.h;

CREATE VIEW scalar_correlated_selected AS
    SELECT u.k, (SELECT MAX(r.c) FROM r WHERE r.b = u.x) AS top FROM u;

-- Found by the fuzzer: `*` names the FROM items as written, not the
-- nested views a scalar subquery joins in.
CREATE VIEW star_beside_scalar WITH (intractable = 'allow') AS
    SELECT * FROM r WHERE a > (SELECT COUNT(*) FROM u);

CREATE VIEW qualified_star_beside_scalar WITH (intractable = 'allow') AS
    SELECT x0.w * 2 AS k0, x0.* FROM u x0
    WHERE x0.y BETWEEN -2 AND 2 AND x0.x IN (SELECT MAX(y.b) FROM s y WHERE y.e = x0.k);

-- What every branch of an OR shares is taken out of it (TPC-H Q19): the
-- join written in each branch is a join, and a branch left with nothing
-- makes the OR its shared part alone.
CREATE VIEW or_shared_join WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*), SUM(t.g) FROM r, t
    WHERE (r.a = t.a AND r.b > 2) OR (t.a = t.a AND r.a = t.a AND t.g < 0.5) OR (r.a = t.a AND t.h)
    GROUP BY r.a;

CREATE VIEW or_absorbed AS
    SELECT r.b, COUNT(*) FROM r WHERE r.c > 1 OR (r.c > 1 AND r.a < 3) GROUP BY r.b;

CREATE VIEW or_shared_subquery WITH (intractable = 'allow') AS
    SELECT u.k, COUNT(*) FROM u
    WHERE (u.x IN (SELECT b FROM r) AND u.w > 0) OR (u.x IN (SELECT b FROM r) AND u.y < 0)
    GROUP BY u.k;

-- EXISTS and NOT EXISTS correlated by a comparison other than equality
-- (TPC-H Q21): a nested view of the least and greatest value per
-- equality-correlated group, joined (or outer-joined) and compared.
CREATE VIEW exists_other_value WITH (intractable = 'allow') AS
    SELECT r.a, COUNT(*) FROM r
    WHERE EXISTS (SELECT * FROM r r2 WHERE r2.a = r.a AND r2.b <> r.b)
    GROUP BY r.a;

CREATE VIEW not_exists_other_value WITH (intractable = 'allow') AS
    SELECT r.a, r.b, r.c FROM r
    WHERE NOT EXISTS (SELECT * FROM r r2 WHERE r2.a = r.a AND r2.b <> r.b AND r2.c > 0);

CREATE VIEW exists_below WITH (intractable = 'allow') AS
    SELECT t.a, COUNT(*), SUM(t.g) FROM t
    WHERE EXISTS (SELECT * FROM u WHERE u.x = t.a AND t.g > u.w)
    GROUP BY t.a;

CREATE VIEW not_exists_above_uncorrelated WITH (intractable = 'allow') AS
    SELECT u.k, COUNT(*) FROM u
    WHERE NOT EXISTS (SELECT * FROM r WHERE r.c >= u.y)
    GROUP BY u.k;

CREATE VIEW exists_both_ways WITH (intractable = 'allow') AS
    SELECT s.e, COUNT(*) FROM s
    WHERE EXISTS (SELECT * FROM s s2 WHERE s2.e = s.e AND s2.d < s.d)
        AND NOT EXISTS (SELECT * FROM s s3 WHERE s3.e = s.e AND s3.b <> s.b AND s3.d > 0)
    GROUP BY s.e;

-- A NOT EXISTS whose outer row is always in the group it looks up (Q21's
-- late line among the late lines of its own order) joins its nested view
-- without an outer join; where the correlated column can be NULL, such a
-- row may have no group, and the outer join stays.
CREATE VIEW not_exists_own_group WITH (intractable = 'allow') AS
    SELECT s.e, COUNT(*), SUM(s.b) FROM s
    WHERE s.d > 0
        AND NOT EXISTS (SELECT * FROM s s3 WHERE s3.e = s.e AND s3.b <> s.b AND s3.d > 0)
    GROUP BY s.e;

CREATE VIEW not_exists_own_group_nullable WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n
    WHERE n.m > 0
        AND NOT EXISTS (SELECT * FROM n n2 WHERE n2.a = n.a AND n2.v <> n.v AND n2.m > 0)
    GROUP BY n.e;

-- A `<>`-correlated EXISTS whose outer value can be NULL: its nested view
-- keeps each group's only value (NULL where the group has several), and
-- a NULL outer value is unequal to no row.
CREATE VIEW exists_other_nullable_outer WITH (intractable = 'allow') AS
    SELECT n.e, COUNT(*) FROM n
    WHERE EXISTS (SELECT * FROM s WHERE s.e = n.e AND s.b <> n.v)
    GROUP BY n.e;

-- ... and whose inner value can be NULL: a group of NULLs has no value
-- unequal to anything, so its nested view keeps the extremes.
CREATE VIEW exists_other_nullable_inner WITH (intractable = 'allow') AS
    SELECT s.e, COUNT(*) FROM s
    WHERE EXISTS (SELECT * FROM n WHERE n.e = s.e AND n.v <> s.b)
    GROUP BY s.e;

-- A NOT EXISTS (or NOT IN) that equates one of its columns with two of the
-- outer query's must not make those two equal: the outer row stays where
-- they differ (fuzzer-found). Its nested view has a key column per
-- equality.
CREATE VIEW not_exists_two_keys WITH (intractable = 'allow') AS
    SELECT x.b, COUNT(*) FROM r x
    WHERE NOT EXISTS (SELECT * FROM t y WHERE y.a = x.a AND y.a = x.b)
    GROUP BY x.b;

CREATE VIEW not_in_two_keys WITH (intractable = 'allow') AS
    SELECT x.b, COUNT(*) FROM r x
    WHERE x.b NOT IN (SELECT y.a FROM t y WHERE y.a = x.a)
    GROUP BY x.b;

-- `<>`-correlated NOT EXISTS outer-joined under a three-way join; its
-- nested view's tuples carry the least and greatest values that the
-- join's other tables do not (fuzzer-found: the update of `r` looked
-- them up instead of walking them).
CREATE VIEW not_exists_other_under_join WITH (intractable = 'allow') AS
    SELECT x2.e, COUNT(*) FROM r x0, s x1, s x2
    WHERE x1.b = x0.b AND x2.b = x0.b
        AND NOT EXISTS (SELECT * FROM n y WHERE y.v <> x0.b AND y.a = x0.a)
    GROUP BY x2.e;

-- `*` names the FROM items as written, not the nested view an EXISTS
-- correlated by `<` is joined in as (fuzzer-found).
CREATE VIEW star_exists_below WITH (intractable = 'allow') AS
    SELECT * FROM r x0 WHERE EXISTS (SELECT * FROM t y WHERE y.a < x0.b);

CREATE VIEW star_above_any WITH (intractable = 'allow') AS
    SELECT * FROM r x0 WHERE x0.b > ANY (SELECT y.a FROM t y);
