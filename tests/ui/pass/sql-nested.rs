// Nested SQL through the macro: a view over a view, HAVING, and a
// correlated scalar subquery, each nested view kept inside the struct.
ivm::ivm_query!(r#"
    CREATE TABLE sales (store INT, units INT);
    CREATE VIEW per_store AS SELECT store, SUM(units) AS total FROM sales GROUP BY store;
    CREATE VIEW busy AS
        SELECT store, COUNT(*) AS n FROM sales GROUP BY store HAVING SUM(units) > 10;
    CREATE VIEW top WITH (intractable = 'allow') AS
        SELECT store, total FROM per_store WHERE total = (SELECT MAX(total) FROM per_store);
    CREATE VIEW above_average WITH (intractable = 'allow') AS
        SELECT s.store, COUNT(*) AS n FROM sales s
        WHERE s.units > (SELECT AVG(t.units) FROM sales t WHERE t.store = s.store)
        GROUP BY s.store;
    CREATE VIEW busy_appends WITH (updates = 'insert_only') AS
        SELECT store, COUNT(*) AS n FROM sales GROUP BY store HAVING SUM(units) > 10;
"#);

#[allow(deprecated)]
fn main() -> Result<(), ivm::Error> {
    let (mut busy, mut top, mut above) = (Busy::new(), Top::new(), AboveAverage::new());
    for (store, units) in [(1, 4), (1, 9), (2, 3), (2, 2), (3, 20)] {
        busy.insert_sales(store, units);
        top.insert_sales(store, units);
        above.insert_sales(store, units);
    }
    let mut rows = busy.text_rows();
    rows.sort();
    assert_eq!(rows, [["1", "2"], ["3", "1"]]);
    assert_eq!(top.text_rows(), [["3", "20"]]);
    let mut rows = above.text_rows();
    rows.sort();
    assert_eq!(rows, [["1", "1"], ["2", "1"]]);
    // The maximum moves when store 3's row goes; the nested view is read
    // through the composite.
    top.delete_sales(3, 20)?;
    assert_eq!(top.text_rows(), [["1", "13"]]);
    assert_eq!(top.rule().top_per_store().len(), 2);
    assert!(top.delete_sales(3, 20).is_err());
    // Insert-only: the view has no deletes, though its rule takes the
    // nested groups' rows that go as they change.
    let mut appends = BusyAppends::new();
    for units in [4, 5, 6] {
        appends.insert_sales(7, units);
    }
    assert_eq!(appends.text_rows(), [["7", "3"]]);
    Ok(())
}
