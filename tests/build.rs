//! Writes the CI-sized run of the end-to-end fuzzer (a few dozen random
//! queries, every strategy represented, compiled by `ivm-compiler`) for
//! `tests/fuzz.rs` to drive, compiles each strategy's suite
//! (`queries/<strategy>.ivm`) for `tests/<strategy>.rs`, and compiles
//! `queries/clippy_clean.ivm` for `tests/regressions.rs` and the SQL suite
//! `queries/sql.sql` for `tests/sql.rs` (and, with the `nested-suite`,
//! `null-suite` and `order-suite` features, `queries/sql_nested.sql`,
//! `queries/sql_null.sql` and `queries/sql_order.sql` for
//! `tests/sql_nested.rs`, `tests/sql_null.rs` and `tests/sql_order.rs`).

use std::path::PathBuf;

/// The seed of the fuzzer's queries; the soak command draws others.
const SEED: u64 = 20261201;
/// How many queries: five per bucket of `ivm_fuzz::generate::Bucket`.
const QUERIES: usize = 55;
/// The constructs with a suite of queries in `queries/` beside the
/// strategies' (one per strategy keyword, `queries/<keyword>.ivm`).
const CONSTRUCT_SUITES: [&str; 1] = ["semijoin"];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    ivm_fuzz::codegen::write_cases(&out.join("fuzz_cases.rs"), SEED, QUERIES, "Fuzz")
        .expect("writing the fuzz cases");
    let strategies = ivm_compiler::query::Strategy::ALL.map(|s| s.keyword());
    for suite in strategies.into_iter().chain(CONSTRUCT_SUITES) {
        let path = format!("queries/{suite}.ivm");
        println!("cargo::rerun-if-changed={path}");
        let text = std::fs::read_to_string(&path).expect("a suite file");
        let compiled = ivm_fuzz::codegen::suite(&text, &path).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1);
        });
        std::fs::write(
            out.join(format!("suite_{suite}.rs")),
            ivm_fuzz::codegen::module(&compiled),
        )
        .expect("writing a suite");
    }
    // Random SQL views for `tests/sql.rs`, a new draw with
    // `IVM_SQL_SEED=<n>` (and `IVM_SQL_VIEWS=<count>`).
    println!("cargo::rerun-if-env-changed=IVM_SQL_SEED");
    println!("cargo::rerun-if-env-changed=IVM_SQL_VIEWS");
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (seed, count) = (env("IVM_SQL_SEED", SEED), env("IVM_SQL_VIEWS", 20) as usize);
    let random = ivm_fuzz::sql::views(seed, count);
    std::fs::write(out.join("sql_random.sql"), &random).expect("writing the random views");
    let code = ivm_compiler::driver::compile_str(&random).unwrap_or_else(|e| {
        eprintln!(
            "{}",
            ivm_compiler::diagnostic::render(&e, "sql_random.sql", &random)
        );
        std::process::exit(1);
    });
    let constructors: String = (0..count)
        .map(|i| format!("Box::new(Random{i}::new()),\n"))
        .collect();
    std::fs::write(
        out.join("sql_random.rs"),
        format!("{code}\n/// Every random view, fresh.\npub fn all() -> Vec<Box<dyn ::ivm::sql::TextRetract>> {{\n    vec![{constructors}]\n}}\n"),
    )
    .expect("writing the random views' code");
    let mut files = vec!["queries/clippy_clean.ivm", "queries/sql.sql"];
    // The nested SQL suite, for `tests/sql_nested.rs` (the `nested-suite`
    // feature, which `.ci/run` turns on).
    if std::env::var_os("CARGO_FEATURE_NESTED_SUITE").is_some() {
        files.push("queries/sql_nested.sql");
    }
    // The NULL suite, for `tests/sql_null.rs` (the `null-suite` feature).
    if std::env::var_os("CARGO_FEATURE_NULL_SUITE").is_some() {
        files.push("queries/sql_null.sql");
    }
    // The ORDER BY suite, for `tests/sql_order.rs` (the `order-suite`
    // feature).
    if std::env::var_os("CARGO_FEATURE_ORDER_SUITE").is_some() {
        files.push("queries/sql_order.sql");
    }
    if let Err(e) = ivm_compiler::build::compile_files(&files) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
