// More than twelve output columns: keys, free levels and rows are nested
// tuples (Rust implements `Hash` and `Eq` for tuples of up to twelve), in
// the rule language (a view tree, a materialized result) and in SQL.
use ivm::semiring::Int;

ivm::ivm_query! {
    query Wide {
        relation W(c1: u32, c2: u32, c3: u32, c4: u32, c5: u32, c6: u32, c7: u32, c8: u32, c9: u32, c10: u32, c11: u32, c12: u32, c13: u32);
        relation V(c1: u32, d: u32);
        Q(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13) = W(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13) * V(c1, d);
    }

    #[allow(intractable)]
    query WideResult {
        relation W(c1: u32, c2: u32, c3: u32, c4: u32, c5: u32, c6: u32, c7: u32, c8: u32, c9: u32, c10: u32, c11: u32, c12: u32, c13: u32);
        relation U(c13: u32, e: u32);
        relation T(e: u32, f: u32);
        Q(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, f) = W(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13) * U(c13, e) * T(e, f);
    }
}

ivm::ivm_query!(r#"
    CREATE TABLE w (c1 INT, c2 INT, c3 INT, c4 INT, c5 INT, c6 INT, c7 INT, c8 INT, c9 INT, c10 INT, c11 INT, c12 INT, c13 INT);
    CREATE VIEW wide_rows AS
        SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13 FROM w WHERE c1 > 0;
    CREATE VIEW wide_groups AS
        SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, COUNT(*) FROM w
        GROUP BY c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13;
"#);

fn main() -> Result<(), ivm::Error> {
    let key = ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), (13,));
    let mut q = Wide::new();
    q.insert_w(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    q.insert_v(1, 7);
    q.insert_v(1, 8);
    assert_eq!(q.iter().collect::<Vec<_>>(), [(key, Int(2))]);
    assert_eq!(q.get(&key), Int(2));
    assert_eq!(q.changes().count(), 1);
    q.delete_v(1, 7)?;
    assert_eq!(q.changes().collect::<Vec<_>>(), [(key, Int(2), Int(1))]);
    assert_eq!(q.len(), 1);

    let mut r = WideResult::new();
    r.insert_w(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    r.insert_u(13, 20);
    r.insert_t(20, 99);
    let out = ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), (99,));
    assert_eq!(r.get(&out), Int(1));
    assert_eq!(r.changes().count(), 1);

    let fields = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"];
    let mut v = WideRows::new();
    v.insert_text("w", &fields)?;
    v.insert_text("w", &fields)?;
    assert_eq!(v.text_rows().len(), 2);
    assert_eq!(v.text_changes().1.len(), 2);
    v.delete_text("w", &fields)?;
    assert_eq!(v.text_rows(), [fields]);
    let mut g = WideGroups::new();
    g.insert_text("w", &fields)?;
    g.insert_text("w", &fields)?;
    let mut row: Vec<&str> = fields.to_vec();
    row.push("2");
    assert_eq!(g.text_rows(), [row]);
    Ok(())
}
