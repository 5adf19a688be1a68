//! Compiles the example queries with `ivm-compiler`'s build API: one
//! formatted `.rs` file per `.ivm` file in `OUT_DIR`.

fn main() {
    let files = [
        "queries/retail.ivm",
        "queries/graph.ivm",
        "queries/security.ivm",
        "queries/append_only.ivm",
        "queries/tpch.ivm",
        "queries/tpch_sql.sql",
        "queries/higher_order.ivm",
    ];
    if let Err(e) = ivm_compiler::build::compile_files(&files) {
        // The error already shows file, line, column and the source.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
