//! Snapshots of `ivmc explain` output: the example queries of
//! `generated-examples/queries/` (rule language and SQL, TPC-H's nested
//! queries with their nested views among them) and a few rejections. A reviewer reads
//! the diff when the analysis or the wording changes.

mod common;

use ivm_compiler::pipeline::OrderedRows;
use ivm_compiler::sql::order::Keeping;
use ivm_compiler::{explain, pipeline};

fn snapshot_all(text: &str) {
    for r in pipeline::report_str(text).expect("valid queries") {
        let name = r.query.name.to_string();
        insta::assert_snapshot!(name.clone(), explain::to_text(&r));
        insta::assert_snapshot!(format!("{name}_json"), explain::to_json(&r).to_string());
    }
}

#[test]
fn example_queries() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../generated-examples/queries");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("queries folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ivm" || x == "sql"))
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    for f in files {
        snapshot_all(&std::fs::read_to_string(f).expect("readable"));
    }
}

#[test]
fn rejections() {
    let mut text = String::new();
    text += &common::item(
        "QCoreOverCount",
        "#[semiring(ivm::semiring::Count)] #[updates(insert_only)]",
        "Q(x) = S(x, y) * T(y)",
    );
    text += &common::item("PathUnderDeletes", "", "Q(x, z) = R(x, y) * S(y, z)");
    text += &common::item(
        "ExistsCoreOverMinPlus",
        "#[semiring(ivm::semiring::MinPlus)] #[updates(insert_only)]",
        "Q() = R(x) * S(x, y) * T(y)",
    );
    text += &common::item(
        "FourCycleOptedIn",
        "#[allow(intractable)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    );
    text += &common::item(
        "FourCycleViewTree",
        "#[strategy(view_tree)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    );
    text += &common::item(
        "ThetaUnderTwoLayers",
        "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]",
        "Q(a, b, c) = R(a, b) * S(b, c) * { a < c }",
    );
    text += &common::item(
        "ThetaFirstOrder",
        "#[strategy(first_order)]",
        "Q(a) = R(a, b, _) * S(b, c) * { a < c } * { b != 1 }",
    );
    text += &common::item(
        "ViewTreeForced",
        "#[strategy(view_tree)]",
        "Q() = R(a, b) * S(b, c) * T(c, a)",
    );
    snapshot_all(&text);
}

/// Atoms that bind no variable and uncorrelated semijoins: nullary factors,
/// with the local step that keeps each as one entry and its bound.
#[test]
fn nullary_factors() {
    snapshot_all(
        "query NullaryFactor {
    relation R(a: u32, b: u32);
    relation S(k: u32, x: u32);
    Q(k) = S(k, x) * R(1, _);
}
query Gated {
    relation R(a: u32, b: u32);
    relation S(c: u32, d: u32);
    Q(a) = R(a, b) * exists(S(c, d) * { c < d }) * not exists(S(_, 3));
}
",
    );
}

/// `docs/tpch.md`'s table of the 22 TPC-H queries is what explain says of
/// `generated-examples/queries/tpch_sql.sql` now: each view's strategy,
/// its update time per relation (and under the schema's keys, where
/// lower), its ORDER BY and LIMIT, and its nested views. A change of the analysis or of a query fails this test, which
/// prints the table as it now is.
#[test]
fn the_tpch_table_in_the_docs_is_explains() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let sql = std::fs::read_to_string(format!("{root}/generated-examples/queries/tpch_sql.sql"))
        .expect("the TPC-H queries");
    let doc = std::fs::read_to_string(format!("{root}/docs/tpch.md")).expect("docs/tpch.md");
    let table = tpch_table(&sql);
    assert!(
        doc.contains(&table),
        "docs/tpch.md's table is not explain's; it is now:\n\n{table}"
    );
}

/// The table: one row per TPC-H query, in order.
fn tpch_table(sql: &str) -> String {
    let mut rows: Vec<(u32, String)> = Vec::new();
    for r in pipeline::report_str(sql).expect("valid queries") {
        let ivm_compiler::query::Dialect::Sql { view, .. } = &r.query.dialect else {
            continue;
        };
        let Some(n) = view
            .strip_prefix("tpch_q")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let cell = |text: String| text.replace('|', "\\|");
        let verdict = |r: &pipeline::Report| match r.verdict.accepted() {
            Some(v) => {
                let keyed = explain::under_keys(r)
                    .map(|k| {
                        format!(
                            " ({} under keys)",
                            ivm_compiler::plan::verdict::power(f64::from(k))
                        )
                    })
                    .unwrap_or_default();
                format!("{} in {}{keyed}", v.strategy.keyword(), v.bounds.update)
            }
            None => "rejected".to_string(),
        };
        let order = r.order.as_ref().map_or("".to_string(), |o| {
            let rows = match o.rows {
                OrderedRows::Sorted => "sorted at reading",
                OrderedRows::Window(Keeping::Fed) => "window kept in order",
                OrderedRows::Window(Keeping::Sorted) => "window cut at reading",
            };
            format!("`{}`: {rows}", o.clause)
        });
        let nested: Vec<String> = r
            .nested
            .iter()
            .map(|n| format!("`{}`: {}", n.name, verdict(&n.report)))
            .collect();
        rows.push((
            n,
            format!(
                "| Q{n} | {} | {} | {} |",
                cell(verdict(&r)),
                cell(order),
                cell(nested.join("; "))
            ),
        ));
    }
    rows.sort();
    let mut table = String::from(
        "| query | strategy and update time | order | nested views |\n|---|---|---|---|\n",
    );
    for (_, row) in rows {
        table.push_str(&row);
        table.push('\n');
    }
    table
}

/// Declared keys give first-order deltas a bound of their own: TPC-H Q5's
/// join of six tables, O(N^3) per update by its hypergraph, is one line's
/// worth of rows per line when each order has one customer, each line one
/// supplier, each nation one region.
#[test]
fn keys_bound_the_first_order_deltas() {
    let text = "CREATE TABLE customer (c_custkey BIGINT PRIMARY KEY, c_nationkey INT NOT NULL);\n\
                CREATE TABLE orders (o_orderkey BIGINT NOT NULL, o_custkey BIGINT NOT NULL, PRIMARY KEY (o_orderkey));\n\
                CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_linenumber INT NOT NULL, l_suppkey BIGINT NOT NULL, UNIQUE (l_orderkey, l_linenumber));\n\
                CREATE TABLE supplier (s_suppkey BIGINT PRIMARY KEY, s_nationkey INT NOT NULL);\n\
                CREATE TABLE nation (n_nationkey INT PRIMARY KEY, n_name TEXT NOT NULL, n_regionkey INT NOT NULL);\n\
                CREATE TABLE region (r_regionkey INT PRIMARY KEY, r_name TEXT NOT NULL);\n\
                CREATE VIEW q5 WITH (intractable = 'allow') AS SELECT n_name, COUNT(*) AS lines\n\
                FROM customer, orders, lineitem, supplier, nation, region\n\
                WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey\n\
                AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey\n\
                AND n_regionkey = r_regionkey AND r_name = 'ASIA' GROUP BY n_name;";
    let reports = pipeline::report_str(text).expect("the view parses");
    let shown = explain::to_text(&reports[0]);
    assert!(shown.contains("update time  O(N^3)"), "{shown}");
    assert!(shown.contains("under keys   O(N) when"), "{shown}");
    assert_eq!(
        explain::to_json(&reports[0])["verdict"]["update_time_under_keys"],
        "O(N)"
    );
    insta::assert_snapshot!("keys_bound_the_first_order_deltas", shown);
}

/// `UNIQUE` over a column declared `NULL` is no key: rows may share NULL.
#[test]
fn a_unique_column_that_can_be_null_is_no_key() {
    let text = "CREATE TABLE r (a INT NULL UNIQUE, b INT UNIQUE, c INT NULL, d INT, UNIQUE (c, d));\n\
                CREATE VIEW v AS SELECT a, b, c, d, COUNT(*) AS n FROM r GROUP BY a, b, c, d;";
    let reports = pipeline::report_str(text).expect("the view parses");
    let r = &reports[0];
    let b = r
        .query
        .variables
        .iter()
        .position(|v| v.name == "b")
        .expect("a variable b");
    assert_eq!(r.analysis.hypergraph.keys[0], vec![1u64 << b]);
}
