//! Snapshots of the generated code for the example queries, pretty-printed
//! (as `ivmc compile` shows it) and of their maintenance IR (as `ivmc
//! explain --ir` shows it). A reviewer reads the diff.

use ivm_compiler::driver;

fn example(name: &str) -> String {
    let path = format!(
        "{}/../generated-examples/queries/{name}.ivm",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("example query file")
}

#[test]
fn generated_code() {
    for name in ["retail", "graph", "security", "append_only", "tpch"] {
        let code = driver::compile_str(&example(name)).expect("example compiles");
        insta::assert_snapshot!(format!("{name}_rs"), code);
    }
}

#[test]
fn maintenance_ir() {
    for name in ["retail", "graph", "security", "append_only", "tpch"] {
        let text: Vec<String> = driver::ir_str(&example(name))
            .expect("example parses")
            .into_iter()
            .map(|p| p.expect("example lowers").to_string())
            .collect();
        insta::assert_snapshot!(format!("{name}_ir"), text.join("\n"));
    }
}

/// A SQL view that reads a nested view: the composite that holds its
/// parts, and each part's rule. The nested view's `lineitem` checks the
/// deletes; the view's own rule is given them checked.
const NESTED_SQL: &str = "
CREATE TABLE orders (o_orderkey BIGINT NOT NULL, o_totalprice DECIMAL(15, 2) NOT NULL);
CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_quantity DECIMAL(15, 2) NOT NULL);
CREATE VIEW large_orders WITH (intractable = 'allow') AS
SELECT o_orderkey, o_totalprice, SUM(l_quantity) AS quantity
FROM orders, lineitem
WHERE o_orderkey IN (
        SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300
    )
    AND o_orderkey = l_orderkey
GROUP BY o_orderkey, o_totalprice;
";

#[test]
fn generated_code_of_a_nested_sql_view() {
    let code = driver::compile_sql_str(NESTED_SQL).expect("the view compiles");
    insta::assert_snapshot!("nested_sql_rs", code);
    let text: Vec<String> = driver::ir_str(NESTED_SQL)
        .expect("the view parses")
        .into_iter()
        .map(|p| p.expect("the view lowers").to_string())
        .collect();
    insta::assert_snapshot!("nested_sql_ir", text.join("\n"));
}

/// A first-order view whose theta factor is complete before the join's
/// last loop: each delta tests it where its variables are bound, and a
/// failing test skips the loops inside.
const THETA_SQL: &str = "
CREATE TABLE r (a INT NOT NULL, b INT NOT NULL);
CREATE TABLE s (b INT NOT NULL, c INT NOT NULL);
CREATE TABLE t (c INT NOT NULL, d INT NOT NULL);
CREATE VIEW v WITH (intractable = 'allow') AS
SELECT t.d, COUNT(*) FROM r, s, t WHERE r.b = s.b AND s.c = t.c AND r.a <> s.c GROUP BY t.d;
";

#[test]
fn generated_code_of_a_theta_join() {
    let code = driver::compile_sql_str(THETA_SQL).expect("the view compiles");
    insta::assert_snapshot!("theta_join_rs", code);
}
