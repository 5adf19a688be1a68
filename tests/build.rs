//! Writes the CI-sized run of the end-to-end fuzzer (a few dozen random
//! queries, every strategy represented, compiled by `ivm-compiler`) for
//! `tests/fuzz.rs` to drive, and compiles `queries/*.ivm` for
//! `tests/regressions.rs`.

use std::path::PathBuf;

/// The seed of the fuzzer's queries; the soak command draws others.
const SEED: u64 = 20261201;
/// How many queries: five per bucket of `ivm_fuzz::generate::Bucket`.
const QUERIES: usize = 45;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    ivm_fuzz::codegen::write_cases(&out.join("fuzz_cases.rs"), SEED, QUERIES, "Fuzz")
        .expect("writing the fuzz cases");
    if let Err(e) = ivm_compiler::build::compile_files(&["queries/clippy_clean.ivm"]) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
