// SQL outside the fragment, in the macro: the error points at the literal
// and names the line and column inside it.
ivm::ivm_query!(r#"
    CREATE TABLE sales (store INT, units INT);
    CREATE TABLE stores (store INT, city TEXT);
    CREATE VIEW by_city AS
        SELECT city, SUM(units) FROM stores
            FULL JOIN sales ON sales.store = stores.store AND stores.city = 'Oslo'
        GROUP BY city;
"#);

fn main() {}
