//! Compiles the example queries with `ivm-compiler`'s build API: one
//! formatted `.rs` file per `.ivm` file in `OUT_DIR`.

use std::path::PathBuf;

fn main() {
    let mut files: Vec<PathBuf> = [
        "queries/retail.ivm",
        "queries/graph.ivm",
        "queries/security.ivm",
        "queries/append_only.ivm",
        "queries/tpch.ivm",
        "queries/tpch_sql.sql",
        "queries/higher_order.ivm",
    ]
    .map(PathBuf::from)
    .to_vec();
    if std::env::var_os("CARGO_FEATURE_TRUSTED_TPCH").is_some() {
        files.push(trusted_tpch());
    }
    if let Err(e) = ivm_compiler::build::compile_files(&files) {
        // The error already shows file, line, column and the source.
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// `queries/tpch_sql.sql` with every `tpch_*` view declared
/// `deletes = 'trusted'`, written to `OUT_DIR/tpch_sql_trusted.sql`: the
/// same views for the benchmark that measures what checking deletes
/// costs (feature `trusted-tpch`).
fn trusted_tpch() -> PathBuf {
    let source = "queries/tpch_sql.sql";
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).expect("queries/tpch_sql.sql is readable");
    let trusted: Vec<String> = text
        .lines()
        .map(|line| match line.strip_prefix("CREATE VIEW tpch_") {
            Some(_) if line.contains(" WITH (") => {
                line.replacen(" WITH (", " WITH (deletes = 'trusted', ", 1)
            }
            Some(_) => line.replacen(" AS", " WITH (deletes = 'trusted') AS", 1),
            None => line.to_owned(),
        })
        .collect();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("tpch_sql_trusted.sql");
    std::fs::write(&out, trusted.join("\n") + "\n").expect("OUT_DIR is writable");
    out
}
