// SQL's NULL through the macro, as docs/reference.md shows it: a nullable
// column is an `Option` in the typed updates and the text interface reads
// `NULL`; aggregates skip NULL and a field that can be NULL is an `Option`.
ivm::ivm_query!(r#"
    CREATE TABLE readings (sensor INT, value BIGINT NULL);
    CREATE TABLE sensors (sensor INT NULL, room VARCHAR(8));
    CREATE VIEW per_sensor AS
        SELECT sensor, COUNT(*) AS n, COUNT(value) AS valued, SUM(value) AS total
        FROM readings GROUP BY sensor;
    CREATE VIEW per_room AS
        SELECT r.sensor, MAX(r.value) AS top, COUNT(*) AS n
        FROM sensors s JOIN readings r ON s.sensor = r.sensor
        WHERE r.value IS NULL OR r.value > 2
        GROUP BY r.sensor;
"#);

fn main() -> Result<(), ivm::Error> {
    let mut v = PerSensor::new();
    v.insert_readings(1, None);
    v.insert_text("readings", &["2", "NULL"])?;
    v.insert_readings(2, Some(5));
    let mut rows = v.text_rows();
    rows.sort();
    assert_eq!(rows, [["1", "1", "0", "NULL"], ["2", "2", "1", "5"]]);
    let (_, row) = v.iter().find(|((s,), _)| *s == 1).unwrap();
    assert_eq!((row.valued, row.total), (0, None));
    v.delete_readings(2, None)?;
    assert!(v.delete_readings(2, None).is_err());

    // A nullable join column never matches NULL.
    let mut w = PerRoom::new();
    w.insert_sensors(Some(1), "kitchen".to_string());
    w.insert_sensors(None, "attic".to_string());
    w.insert_readings(1, None);
    w.insert_readings(1, Some(7));
    w.insert_readings(1, Some(1));
    assert_eq!(w.text_rows(), [["1", "7", "2"]]);
    Ok(())
}
