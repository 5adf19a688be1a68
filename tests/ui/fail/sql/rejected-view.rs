// A view the dichotomies reject: the rule's error, in the macro.
ivm::ivm_query!(r#"
    CREATE TABLE orders (id INT, cust INT, total BIGINT);
    CREATE TABLE customers (cust INT, nation INT);
    CREATE VIEW by_nation AS
        SELECT c.nation, SUM(o.total) FROM orders o JOIN customers c ON o.cust = c.cust
        GROUP BY c.nation;
"#);

fn main() {
    let mut v = ByNation::new();
    v.insert_orders(1, 2, 3);
}
