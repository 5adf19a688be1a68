//! Snapshots of `ivmc explain` output: the example queries of
//! `generated-examples/queries/` (rule language and SQL, TPC-H's nested
//! queries with their nested views among them) and a few rejections. A reviewer reads
//! the diff when the analysis or the wording changes.

mod common;

use ivm_compiler::{explain, pipeline};

fn snapshot_all(text: &str) {
    for r in pipeline::report_str(text).expect("valid queries") {
        let name = r.query.name.to_string();
        insta::assert_snapshot!(name.clone(), explain::to_text(&r));
        insta::assert_snapshot!(format!("{name}_json"), explain::to_json(&r).to_string());
    }
}

#[test]
fn example_queries() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../generated-examples/queries");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("queries folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ivm" || x == "sql"))
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    for f in files {
        snapshot_all(&std::fs::read_to_string(f).expect("readable"));
    }
}

#[test]
fn rejections() {
    let mut text = String::new();
    text += &common::item(
        "QCoreOverCount",
        "#[semiring(ivm::semiring::Count)] #[updates(insert_only)]",
        "Q(x) = S(x, y) * T(y)",
    );
    text += &common::item("PathUnderDeletes", "", "Q(x, z) = R(x, y) * S(y, z)");
    text += &common::item(
        "ExistsCoreOverMinPlus",
        "#[semiring(ivm::semiring::MinPlus)] #[updates(insert_only)]",
        "Q() = R(x) * S(x, y) * T(y)",
    );
    text += &common::item(
        "FourCycleOptedIn",
        "#[allow(intractable)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    );
    text += &common::item(
        "FourCycleViewTree",
        "#[strategy(view_tree)]",
        "Q() = R(a, b) * S(b, c) * T(c, d) * U(d, a)",
    );
    text += &common::item(
        "ThetaUnderTwoLayers",
        "#[semiring(ivm::semiring::Bool)] #[updates(insert_only)]",
        "Q(a, b, c) = R(a, b) * S(b, c) * { a < c }",
    );
    text += &common::item(
        "ThetaFirstOrder",
        "#[strategy(first_order)]",
        "Q(a) = R(a, b, _) * S(b, c) * { a < c } * { b != 1 }",
    );
    text += &common::item(
        "ViewTreeForced",
        "#[strategy(view_tree)]",
        "Q() = R(a, b) * S(b, c) * T(c, a)",
    );
    snapshot_all(&text);
}

/// Atoms that bind no variable and uncorrelated semijoins: nullary factors,
/// with the local step that keeps each as one entry and its bound.
#[test]
fn nullary_factors() {
    snapshot_all(
        "query NullaryFactor {
    relation R(a: u32, b: u32);
    relation S(k: u32, x: u32);
    Q(k) = S(k, x) * R(1, _);
}
query Gated {
    relation R(a: u32, b: u32);
    relation S(c: u32, d: u32);
    Q(a) = R(a, b) * exists(S(c, d) * { c < d }) * not exists(S(_, 3));
}
",
    );
}
