// Lent text columns through the macro, as docs/reference.md shows it: a
// text column takes `impl ivm::Text`, so the fields of a line read in
// place go in as `&str`, and the same row deleted with owned `String`s is
// the row inserted; a row never inserted is refused.
ivm::ivm_query!(r#"
    CREATE TABLE lines (id BIGINT, mode TEXT, note TEXT, qty INT);
    CREATE VIEW per_mode AS SELECT mode, SUM(qty) AS qty FROM lines GROUP BY mode;
"#);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut v = PerMode::new();
    let line = "7|AIR|fragile, keep dry|3";
    let f: Vec<&str> = line.split('|').collect();
    // `mode` is copied into its group; `note` is only hashed.
    v.insert_lines(f[0].parse()?, f[1], f[2], f[3].parse()?);
    assert_eq!(v.text_rows(), [["AIR", "3"]]);
    assert!(v.delete_lines(7, "AIR", "another note", 3).is_err());
    v.delete_lines(7, String::from("AIR"), String::from("fragile, keep dry"), 3)?;
    assert!(v.is_empty());
    Ok(())
}
