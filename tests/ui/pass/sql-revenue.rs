// The README's SQL example, as written there.
use ivm::sql::{Date, Decimal};

ivm::ivm_query!(r#"
    CREATE TABLE sales (store INT, item BIGINT, units INT, price DECIMAL(10, 2), day DATE);
    CREATE VIEW revenue_by_store AS
        SELECT store, SUM(units * price) AS revenue, COUNT(*) AS sales, MAX(day) AS last
        FROM sales WHERE day >= DATE '1994-01-01' + INTERVAL '1' YEAR
        GROUP BY store;
"#);

fn main() -> Result<(), ivm::Error> {
    let mut v = RevenueByStore::new();
    v.insert_text("sales", &["1", "7", "3", "2.50", "1995-03-01"])?;
    v.insert_sales(1, 8, 2, Decimal::new(125, 2), Date::from_ymd(1995, 6, 1).unwrap());
    let ((store,), row) = v.iter().next().unwrap();
    assert_eq!((store, row.revenue, row.sales), (1, Decimal::new(1000, 2), 2));
    assert_eq!(v.text_rows(), [["1", "10.00", "2", "1995-06-01"]]);
    v.delete_text("sales", &["1", "7", "3", "2.50", "1995-03-01"])?;
    // A row before 1995 is stored but not counted; deleting it works.
    v.insert_text("sales", &["2", "7", "1", "9.99", "1994-12-31"])?;
    assert_eq!(v.len(), 1);
    v.delete_sales(2, 7, 1, Decimal::new(999, 2), Date::from_ymd(1994, 12, 31).unwrap())?;
    assert!(v.delete_text("sales", &["2", "7", "1", "9.99", "1994-12-31"]).is_err());
    Ok(())
}
