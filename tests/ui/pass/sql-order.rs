// ORDER BY .. LIMIT through the macro, as docs/reference.md shows it: the
// window is kept in order as rows come and go, ties break by the select
// items, and `changes()` reports the rows that entered and left it.
ivm::ivm_query!(
    r#"
    CREATE TABLE sales (store INT, units BIGINT);
    CREATE VIEW top_stores AS
        SELECT store, SUM(units) AS units FROM sales
        GROUP BY store ORDER BY units DESC LIMIT 2;
    CREATE VIEW by_store AS
        SELECT store, COUNT(*) FROM sales GROUP BY store ORDER BY 1 DESC;
"#
);

fn main() -> Result<(), ivm::Error> {
    let mut v = TopStores::new();
    for (store, units) in [(1, 5), (2, 9), (3, 5)] {
        v.insert_sales(store, units);
    }
    assert_eq!(v.text_rows(), [["2", "9"], ["1", "5"]]);
    let _ = v.text_changes();
    v.insert_sales(3, 1);
    let (gone, came) = v.text_changes();
    assert_eq!(
        (gone, came),
        (
            vec![vec!["1".to_string(), "5".to_string()]],
            vec![vec!["3".to_string(), "6".to_string()]]
        )
    );
    assert_eq!(
        v.iter().map(|((store,), _)| store).collect::<Vec<_>>(),
        [2, 3]
    );
    assert!(v.get(&(1,)).is_none());
    // The window has two rows; the whole result, behind `ivm::View`, three.
    assert_eq!((v.len(), ivm::View::len(&v)), (2, 3));
    v.delete_sales(2, 9)?;
    assert_eq!(v.text_rows(), [["3", "6"], ["1", "5"]]);

    // ORDER BY alone: every row, sorted when read.
    let mut w = ByStore::new();
    for store in [1, 2, 2, 3] {
        w.insert_sales(store, 1);
    }
    assert_eq!(w.text_rows(), [["3", "1"], ["2", "2"], ["1", "1"]]);
    Ok(())
}
