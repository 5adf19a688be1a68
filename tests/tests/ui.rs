//! Compile-pass and compile-fail cases of `ivm_query!`: every rejection
//! and every kind of malformed input shows its message at the right span
//! (the `.stderr` files; regenerate with `TRYBUILD=overwrite`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*/*.rs");
}
