//! The proof that a payload type is the catalogue semiring the compiler
//! took it for. The compiler recognises `ivm::semiring::MinPlus` by its
//! path, as written; the path may name another type (a `use` of a type of
//! the user's own, or of another catalogue type under a new name), and
//! the strategies chosen for the catalogue type would then be wrong for
//! it. Generated code calls [`catalogue`] for every catalogue type it
//! assumes, so such a query does not compile.
//!
//! Reached as `::ivm::__private::catalogue::<K>("MinPlus")`.

use crate::semiring::{
    AccessControl, Bool, Count, Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real,
};

/// A semiring of the catalogue, with its name there. Implemented only in
/// this crate, for the catalogue's types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a semiring of `ivm::semiring`, but the query was compiled for the catalogue semiring of that name",
    label = "a type of your own, or one that `ivm` does not define",
    note = "a semiring of your own states its class, as in `#[semiring(my::MinPlus, positive, idempotent)]`, and is then compiled as yours"
)]
pub trait Catalogue {
    /// The type's name in the catalogue.
    const NAME: &'static str;
}

macro_rules! catalogue {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl Catalogue for $ty {
            const NAME: &'static str = $name;
        })*
    };
}

catalogue! {
    Bool => "Bool",
    Count => "Count",
    Int => "Int",
    Real => "Real",
    MinPlus => "MinPlus",
    MaxPlus => "MaxPlus",
    MaxMin => "MaxMin",
    MinMax => "MinMax",
    MaxMax => "MaxMax",
    AccessControl => "AccessControl",
}

#[cfg(feature = "sql")]
catalogue! { crate::sql::Decimal => "Decimal" }

#[cfg(feature = "sql")]
impl<const S: u32> Catalogue for crate::sql::Fixed<S> {
    const NAME: &'static str = "Fixed";
}

impl<const M: usize> Catalogue for Covariance<M> {
    const NAME: &'static str = "Covariance";
}

/// Fails to compile unless `K` is the catalogue semiring `name`: a type
/// outside the catalogue misses the trait, and a catalogue type under
/// another catalogue type's name fails the assertion.
pub const fn catalogue<K: Catalogue>(name: &str) {
    let (a, b) = (K::NAME.as_bytes(), name.as_bytes());
    let mut same = a.len() == b.len();
    let mut i = 0;
    while same && i < a.len() {
        same = a[i] == b[i];
        i += 1;
    }
    assert!(
        same,
        "the semiring type is another catalogue semiring than the one its path names: write `ivm::semiring::<Name>` as it is"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    const _: () = catalogue::<MinPlus>("MinPlus");
    const _: () = catalogue::<Covariance<2>>("Covariance");

    #[test]
    #[should_panic(expected = "another catalogue semiring")]
    fn another_name_fails() {
        catalogue::<Int>("MinPlus");
    }
}
