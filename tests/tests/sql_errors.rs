//! SQL outside the supported fragment (`docs/design.md#not-supported`) and
//! SQL that does not resolve: each gets one error that quotes the SQL at the
//! line and column of the construct and says what is not supported, never a
//! panic. Each case shows its rendered diagnostic in a snapshot.

use ivm_compiler::{diagnostic, driver};

const TABLES: &str = "CREATE TABLE orders (id INT, cust INT, total DECIMAL(10, 2), day DATE, note TEXT);\n\
                      CREATE TABLE customers (cust INT, name TEXT, nation INT);\n";

/// Compiles the tables and `view`, which must fail, and renders the
/// errors.
fn fail(view: &str) -> String {
    let text = format!("{TABLES}{view}\n");
    match driver::compile_str(&text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => diagnostic::render(&e, "q.sql", &text),
    }
}

macro_rules! sql_error {
    ($name:ident, $view:expr, $needle:expr) => {
        #[test]
        fn $name() {
            let shown = fail($view);
            assert!(
                shown.contains($needle),
                "missing {:?} in:\n{shown}",
                $needle
            );
            insta::assert_snapshot!(stringify!($name), shown);
        }
    };
}

sql_error!(
    subquery_under_or,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders\n  WHERE id = 1 OR cust IN (SELECT cust FROM customers) GROUP BY cust;",
    "a subquery is supported only as a condition of WHERE joined by AND"
);
sql_error!(
    exists_compares_across,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders o\n  WHERE EXISTS (SELECT 1 FROM customers c WHERE c.nation > o.cust AND c.cust < o.id);",
    "a subquery correlates by equalities of its columns with the outer query's"
);
sql_error!(
    wildcard_of_no_item,
    "CREATE VIEW v AS SELECT o.id, c.* FROM orders o;",
    "`c.*` names no table or alias of the view's FROM clause"
);
sql_error!(
    in_two_columns,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders o\n  WHERE o.cust IN (SELECT cust, nation FROM customers);",
    "the subquery of IN selects one column"
);
sql_error!(
    exists_join_missing_the_key,
    "CREATE VIEW v AS SELECT o.cust, COUNT(*) FROM orders o\n  WHERE EXISTS (SELECT 1 FROM customers c, orders o2 WHERE c.cust = o.cust AND o2.id = c.nation)\n  GROUP BY o.cust;",
    "`exists(customers(cust, nation) * orders(id))` in view `v` cannot be maintained efficiently"
);
sql_error!(
    not_exists_over_two_tables,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders o, customers c\n  WHERE o.id = c.nation AND NOT EXISTS (SELECT 1 FROM orders x WHERE x.cust = c.cust AND x.id = o.cust);",
    "which no one atom of the rule binds together"
);
sql_error!(
    two_correlated_scalars_selected,
    "CREATE VIEW v AS SELECT c.cust, (SELECT SUM(o.total) FROM orders o WHERE o.cust = c.cust),\n  (SELECT MAX(o.day) FROM orders o WHERE o.cust = c.cust) FROM customers c;",
    "a second correlated scalar subquery in the select list would need a second outer join"
);
sql_error!(
    scalar_subquery_under_or,
    "CREATE VIEW v WITH (intractable = 'allow') AS SELECT COUNT(*) FROM orders o\n  WHERE o.id = 1 OR o.total > (SELECT SUM(p.total) FROM orders p WHERE p.cust = o.cust);",
    "this correlated scalar subquery is NULL for an outer row"
);
sql_error!(
    correlated_count,
    "CREATE VIEW v WITH (intractable = 'allow') AS SELECT COUNT(*) FROM orders o\n  WHERE o.id < (SELECT COUNT(*) FROM customers c WHERE c.cust = o.cust);",
    "a correlated scalar subquery whose value is not NULL when no row matches"
);
sql_error!(
    scalar_compares_across,
    "CREATE VIEW v WITH (intractable = 'allow') AS SELECT COUNT(*) FROM orders o\n  WHERE o.id > (SELECT SUM(c.nation) FROM customers c WHERE c.cust > o.cust);",
    "a subquery's condition on the outer query's columns other than an equality"
);
sql_error!(
    scalar_outside_aggregates_without_group_by,
    "CREATE VIEW v AS SELECT COUNT(*), (SELECT MAX(total) FROM orders) FROM customers;",
    "a scalar subquery outside the aggregates of a view without GROUP BY"
);
sql_error!(
    not_in_aggregate,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders o\n  WHERE o.cust NOT IN (SELECT SUM(nation) FROM customers);",
    "NOT IN over an aggregate that is NULL when no row matches"
);
sql_error!(
    having_reads_ungrouped,
    "CREATE VIEW v AS SELECT cust, SUM(total) FROM orders GROUP BY cust\n  HAVING id > 2;",
    "HAVING reads `id`, which is neither a GROUP BY column nor in an aggregate"
);
sql_error!(
    view_reads_no_table,
    "CREATE VIEW v AS SELECT k.x FROM (SELECT 1 AS x) k;",
    "a view needs a FROM clause"
);
sql_error!(
    window_function,
    "CREATE VIEW v AS SELECT SUM(total) OVER (PARTITION BY cust) FROM orders;",
    "window functions are not supported"
);
sql_error!(
    full_join_on_one_side,
    "CREATE VIEW v AS SELECT c.name, COUNT(o.id) FROM customers c\n  FULL JOIN orders o ON o.cust = c.cust AND c.nation = 3 GROUP BY c.name;",
    "a condition of a FULL OUTER JOIN's ON over one side's columns alone"
);
sql_error!(
    star_over_a_join_after_an_outer_join,
    "CREATE VIEW v AS SELECT * FROM customers c\n  LEFT JOIN orders o ON o.cust = c.cust JOIN orders p ON p.id = c.cust;",
    "followed by other joins"
);
sql_error!(
    intersect_all,
    "CREATE VIEW v AS SELECT cust FROM orders INTERSECT ALL SELECT cust FROM customers;",
    "INTERSECT ALL is not supported: INTERSECT keeps each row once"
);
sql_error!(
    except_widths,
    "CREATE VIEW v AS SELECT cust, id FROM orders EXCEPT SELECT cust FROM customers;",
    "the two sides of EXCEPT select 2 and 1 columns"
);
sql_error!(
    union_of_two_types,
    "CREATE VIEW v AS SELECT cust FROM orders UNION ALL SELECT name FROM customers;",
    "the SELECTs of a UNION give column `cust` type INT in one and TEXT in another"
);
sql_error!(
    case_over_two_tables_in_a_sum,
    "CREATE VIEW v AS SELECT o.cust, SUM(CASE WHEN c.nation = o.id THEN o.total ELSE 0 END)\n  FROM orders o, customers c WHERE o.cust = c.cust GROUP BY o.cust;",
    "not a sum of products of per-table terms"
);
sql_error!(
    division_inside_arithmetic,
    "CREATE VIEW v AS SELECT cust, SUM(total) / COUNT(*) + 1 FROM orders GROUP BY cust;",
    "a division over aggregates must be the last step"
);
sql_error!(
    distinct_over_groups,
    "CREATE VIEW v AS SELECT DISTINCT COUNT(*) FROM orders GROUP BY cust;",
    "SELECT DISTINCT over aggregates or GROUP BY is not supported yet"
);
sql_error!(
    count_distinct_beside_count,
    "CREATE VIEW v AS SELECT COUNT(DISTINCT cust), COUNT(*) FROM orders;",
    "a DISTINCT aggregate beside other aggregates needs GROUP BY"
);
sql_error!(
    order_by_unselected,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders GROUP BY cust ORDER BY SUM(total) DESC;",
    "ORDER BY `SUM(total)` is not a select item"
);
sql_error!(
    order_by_position_out_of_range,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders GROUP BY cust ORDER BY 3;",
    "a position in the select list is from 1 to 2"
);
sql_error!(
    limit_not_a_number,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders GROUP BY cust ORDER BY cust LIMIT 2 + 3;",
    "LIMIT takes a whole number"
);
sql_error!(
    offset_of_one_row,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders ORDER BY 1 LIMIT 1 OFFSET 1;",
    "a view without GROUP BY has exactly one row"
);
sql_error!(
    fetch_with_ties,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders GROUP BY cust ORDER BY 2 FETCH FIRST 3 ROWS WITH TIES;",
    "FETCH .. WITH TIES and FETCH .. PERCENT are not supported"
);
sql_error!(
    limit_in_a_subquery,
    "CREATE VIEW v AS SELECT COUNT(*) FROM (SELECT cust FROM orders ORDER BY cust LIMIT 3) AS top;",
    "ORDER BY and LIMIT are not supported in a subquery"
);
sql_error!(
    reads_a_limited_view,
    "CREATE VIEW top AS SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust ORDER BY n DESC LIMIT 3;\nCREATE VIEW v AS SELECT COUNT(*) FROM top;",
    "view `top` keeps a window of its rows (LIMIT or OFFSET)"
);
sql_error!(
    unknown_table,
    "CREATE VIEW v AS SELECT COUNT(*) FROM order_lines;",
    "no table `order_lines` is declared"
);
sql_error!(
    unknown_column,
    "CREATE VIEW v AS SELECT cust, SUM(amount) FROM orders GROUP BY cust;",
    "no table in FROM has a column `amount`"
);
sql_error!(
    ambiguous_column,
    "CREATE VIEW v AS SELECT name, COUNT(*) FROM orders o, customers c\n  WHERE cust = 3 GROUP BY name;",
    "`cust` is ambiguous"
);
sql_error!(
    column_not_grouped,
    "CREATE VIEW v AS SELECT cust, day, COUNT(*) FROM orders GROUP BY cust;",
    "must be in GROUP BY"
);
sql_error!(
    syntax_error,
    "CREATE VIEW v AS SELECT cust, COUNT(* FROM orders GROUP BY cust;",
    "SQL syntax"
);
sql_error!(
    unsupported_type,
    "CREATE TABLE events (at TIMESTAMP);\nCREATE VIEW v AS SELECT COUNT(*) FROM events;",
    "type `TIMESTAMP` is not supported"
);
sql_error!(
    unknown_option,
    "CREATE VIEW v WITH (refresh = 'eager') AS SELECT COUNT(*) FROM orders;",
    "unknown view option `refresh`"
);
sql_error!(
    unknown_delete_mode,
    "CREATE VIEW v WITH (deletes = 'unchecked') AS SELECT COUNT(*) FROM orders;",
    "`deletes` takes 'checked' or 'trusted'"
);
sql_error!(
    trusted_deletes_insert_only,
    "CREATE VIEW v WITH (updates = 'insert_only', deletes = 'trusted') AS SELECT COUNT(*) FROM orders;",
    "`deletes = 'trusted'` with `updates = 'insert_only'`"
);
sql_error!(
    other_statement,
    "INSERT INTO orders VALUES (1, 2, 3.50, DATE '1994-01-01', 'x');",
    "is not supported: write CREATE TABLE and CREATE VIEW"
);
sql_error!(
    unknown_function,
    "CREATE VIEW v AS SELECT cust, STDDEV(total) FROM orders GROUP BY cust;",
    "the function `STDDEV` is not supported"
);
sql_error!(
    min_of_text,
    "CREATE VIEW v AS SELECT cust, MIN(note) FROM orders GROUP BY cust;",
    "MIN over a TEXT is not supported"
);
sql_error!(
    division_by_a_column,
    "CREATE VIEW v AS SELECT cust, SUM(total / id) FROM orders GROUP BY cust;",
    "division in a row expression is supported by a non-zero constant only"
);
sql_error!(
    compare_text_with_number,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders WHERE note < 3;",
    "cannot compare a TEXT with a BIGINT"
);
sql_error!(
    interval_on_a_column,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders WHERE day + INTERVAL '1' DAY > DATE '1994-01-01';",
    "an INTERVAL may only be added to a DATE constant, not to a column"
);
sql_error!(no_view, "", "no CREATE VIEW");
sql_error!(
    not_q_hierarchical,
    "CREATE VIEW v AS SELECT c.name, SUM(o.total) FROM orders o, customers c\n  WHERE o.cust = c.cust GROUP BY c.name;",
    "intractable"
);
sql_error!(
    group_by_an_expression_of_two_tables,
    "CREATE VIEW v WITH (intractable = 'allow') AS SELECT o.cust + c.nation AS k, COUNT(*) FROM orders o, customers c WHERE o.cust = c.cust GROUP BY k;",
    "GROUP BY an expression over columns of several tables is not supported"
);
sql_error!(
    group_by_a_position_out_of_range,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders GROUP BY 3;",
    "GROUP BY 3 names no select item: the select list has 2 items"
);
sql_error!(
    group_by_an_aggregate,
    "CREATE VIEW v AS SELECT cust, COUNT(*) AS n FROM orders GROUP BY n;",
    "GROUP BY names an aggregate"
);
sql_error!(
    group_by_a_constant,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders GROUP BY 'x';",
    "GROUP BY a constant groups nothing"
);
sql_error!(
    select_an_expression_not_grouped,
    "CREATE VIEW v AS SELECT id % 10, COUNT(*) FROM orders GROUP BY id % 5;",
    "an expression of columns must be inside an aggregate or be in GROUP BY"
);
sql_error!(
    remainder_of_a_decimal,
    "CREATE VIEW v AS SELECT COUNT(*) FROM orders WHERE total % 2 = 1;",
    "`%` takes integers, found a DECIMAL"
);
sql_error!(
    correlated_not_in_over_nullable_outer,
    "CREATE TABLE n (a INT NULL, b INT);\nCREATE VIEW v AS SELECT COUNT(*) FROM n\n  WHERE n.a NOT IN (SELECT cust FROM customers WHERE customers.nation = n.b);",
    "a correlated subquery under ALL or NOT IN over a value that can be NULL is not supported yet"
);
sql_error!(
    bare_null_selected,
    "CREATE VIEW v AS SELECT cust, NULL FROM orders GROUP BY cust;",
    "NULL alone in the select list is not supported"
);
sql_error!(
    date_part_over_an_aggregate,
    "CREATE VIEW v AS SELECT cust, DATE_PART('year', MAX(day)) FROM orders GROUP BY cust;",
    "DATE_PART over aggregates is not supported yet"
);
sql_error!(
    case_over_aggregates_with_like,
    "CREATE VIEW v AS SELECT cust, CASE WHEN MAX(note) LIKE 'a%' THEN SUM(total) END FROM orders GROUP BY cust;",
    "a WHEN of a CASE over aggregates compares values"
);
sql_error!(
    case_over_aggregates_of_two_types,
    "CREATE VIEW v AS SELECT cust, CASE WHEN COUNT(*) > 1 THEN MAX(day) ELSE SUM(total) END FROM orders GROUP BY cust;",
    "the values of this CASE are a DATE and a DECIMAL"
);
sql_error!(
    nullable_case_over_two_tables,
    "CREATE TABLE n (a INT NULL, w INT NULL);\nCREATE VIEW v AS SELECT o.cust, SUM(CASE WHEN o.id > 1 THEN n.w END)\n  FROM orders o, n WHERE o.cust = n.a GROUP BY o.cust;",
    "an aggregate over columns of several tables that can be NULL"
);
sql_error!(
    cast_that_rounds,
    "CREATE VIEW v AS SELECT cust, SUM(CAST(total AS INT)) FROM orders GROUP BY cust;",
    "CAST from DECIMAL to BIGINT is not supported"
);
sql_error!(
    greatest_of_a_count_and_a_date,
    "CREATE VIEW v AS SELECT day, GREATEST(COUNT(*), day) FROM orders GROUP BY day;",
    "the arguments of GREATEST are a BIGINT and a DATE"
);
sql_error!(
    date_part_of_an_hour,
    "CREATE VIEW v AS SELECT DATE_PART('hour', day), COUNT(*) FROM orders GROUP BY DATE_PART('hour', day);",
    "DATE_PART takes 'year', 'month' or 'day'"
);
sql_error!(
    using_a_missing_column,
    "CREATE VIEW v AS SELECT cust, COUNT(*) FROM orders JOIN customers USING (nation) GROUP BY cust;",
    "USING (nation): no table on the left of the join has column `nation`"
);
sql_error!(
    avg_beside_distinct,
    "CREATE VIEW v AS SELECT cust, COUNT(DISTINCT id), AVG(total) FROM orders GROUP BY cust;",
    "AVG beside a DISTINCT aggregate is not supported"
);
sql_error!(
    two_distinct_arguments,
    "CREATE VIEW v AS SELECT cust, COUNT(DISTINCT id), COUNT(DISTINCT day) FROM orders GROUP BY cust;",
    "COUNT, SUM or AVG of DISTINCT over one expression per view"
);
sql_error!(
    star_over_an_outer_join_on_a_padded_column,
    "CREATE VIEW v AS SELECT * FROM orders o LEFT JOIN customers c ON o.cust = c.cust\n  LEFT JOIN orders o2 ON c.nation = o2.id;",
    "`*` over an outer join of several items on one side"
);
sql_error!(
    star_over_a_full_join_of_three,
    "CREATE VIEW v AS SELECT * FROM orders o JOIN orders p ON p.id = o.id\n  FULL OUTER JOIN customers c ON o.cust = c.cust;",
    "`*` over an outer join of several items on one side"
);

sql_error!(
    key_of_an_unknown_column,
    "CREATE TABLE lines (id INT, line INT, PRIMARY KEY (id, lin));\nCREATE VIEW v AS SELECT id, COUNT(*) FROM lines GROUP BY id;",
    "table `lines` has no column `lin` for its key"
);
