//! Compile-pass and compile-fail cases of `ivm_query!`: every rejection
//! and every kind of malformed input shows its message at the right span
//! (the `.stderr` files; regenerate with `TRYBUILD=overwrite`).
//!
//! trybuild builds every case as a crate of its own, which takes about a
//! minute and a half on two cores from a fresh clone: the test is ignored
//! by `cargo test --workspace` (kept under five minutes) and run by
//! `.ci/run` as `cargo test -p ivm-tests --test ui -- --ignored`.

#[test]
#[ignore = "slow (a crate per case): .ci/run runs it with --ignored"]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*/*.rs");
}
