//! Names the compiler makes up for relations and variables it adds.

/// `base` if nothing uses it, else `base_2`, `base_3`, ...: the first free.
///
/// A number, not a trailing `_`, tells two names apart, so that a name
/// joined with another (`{name}_changed`, `{name}_by_{key}`) never holds
/// `__`, which Rust's `non_snake_case` lint refuses.
pub(crate) fn unused(base: &str, used: impl Fn(&str) -> bool) -> String {
    if !used(base) {
        return base.to_owned();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|s| !used(s))
        .expect("some suffix is free")
}
