//! `ivmc explain` as a user runs it: files and `-e`, text and JSON, and
//! errors with file, line and column and a failing exit status.

use std::process::{Command, Output};

fn ivmc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ivmc"))
        .args(args)
        .output()
        .expect("ivmc runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const TRIANGLE: &str = "query Triangles { relation R(a: u32, b: u32); relation S(b: u32, c: u32); relation T(c: u32, a: u32); Q() = R(a, b) * S(b, c) * T(c, a); }";

#[test]
fn explain_expression_as_text() {
    let o = ivmc(&["explain", "-e", TRIANGLE]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("query Triangles\n"), "{out}");
    assert!(out.contains("fhtw             3/2"), "{out}");
    assert!(out.contains("verdict: maintained with ivm_eps"), "{out}");
    assert!(out.contains("O(N^0.5)"), "{out}");
}

#[test]
fn explain_json_is_one_object_per_query_per_line() {
    let text = format!(
        "{TRIANGLE}\n#[updates(insert_only)] #[semiring(ivm::semiring::Count)] query P {{ relation S(x: u32, y: u32); relation T(y: u32); Q(x) = S(x, y) * T(y); }}"
    );
    let o = ivmc(&["explain", "--json", "-e", &text]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["name"], "Triangles");
    assert_eq!(lines[0]["fhtw"], 1.5);
    assert_eq!(lines[0]["classes"]["acyclic"], false);
    assert_eq!(lines[0]["verdict"]["tractable"], true);
    assert_eq!(lines[0]["verdict"]["strategy"], "ivm_eps");
    assert!(lines[0]["verdict"]["witness"].is_null());
    assert_eq!(lines[1]["name"], "P");
    assert_eq!(lines[1]["classes"]["free_connex"], true);
    assert_eq!(lines[1]["classes"]["strong_connex"], false);
    assert_eq!(lines[1]["verdict"]["tractable"], false);
    assert_eq!(lines[1]["verdict"]["strategy"], "reject");
    assert!(
        lines[1]["verdict"]["witness"]
            .as_str()
            .unwrap()
            .contains("q-core")
    );
}

#[test]
fn explain_files_with_many_queries() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../generated-examples/queries");
    let o = ivmc(&[
        "explain",
        "--json",
        &format!("{dir}/graph.ivm"),
        &format!("{dir}/retail.ivm"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 7);
}

#[test]
fn bad_input_fails_with_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("ivmc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.ivm");
    std::fs::write(
        &file,
        "query Q {\n    relation R(a: u32, b: u32);\n    Q(a) = R(a, b) * Missing(b);\n}\n",
    )
    .unwrap();
    let o = ivmc(&["explain", file.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("unknown relation `Missing`"), "{err}");
    assert!(err.contains("bad.ivm:3:22"), "{err}");
    let o = ivmc(&["explain", "-e", "query Q {"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("<-e>:1:9"), "{}", stderr(&o));
    let o = ivmc(&["explain", "/nonexistent/file.ivm"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("cannot read /nonexistent/file.ivm"));
    std::fs::remove_dir_all(&dir).ok();
}
