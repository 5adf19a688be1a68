// SQL outside the fragment, in the macro: the error points at the literal
// and names the line and column inside it.
ivm::ivm_query!(r#"
    CREATE TABLE sales (store INT, units INT);
    CREATE VIEW busy AS
        SELECT store, SUM(units) FROM sales GROUP BY store
        HAVING SUM(units) > 10;
"#);

fn main() {}
