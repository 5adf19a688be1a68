//! The triangle count `Q() = E(a, b) * E(b, c) * E(c, a)` over `Int`,
//! compiled once per strategy the triangle benchmarks compare, and what
//! they need of each (included by `triangles.rs` and
//! `triangles_criterion.rs`).

#![allow(dead_code, reason = "each benchmark uses a part")]

use ivm::semiring::Int;

/// The triangle count over `Int` under one strategy.
macro_rules! triangle_count {
    ($name:ident, $($strategy:tt)*) => {
        ivm::ivm_query! {
            #[strategy($($strategy)*)]
            pub query $name {
                relation E(src: u32, dst: u32);
                Q() = E(a, b) * E(b, c) * E(c, a);
            }
        }
    };
}

triangle_count!(Eps0, ivm_eps(eps = 0.0));
triangle_count!(Eps25, ivm_eps(eps = 0.25));
triangle_count!(Eps50, ivm_eps(eps = 0.5));
triangle_count!(Eps75, ivm_eps(eps = 0.75));
triangle_count!(Eps100, ivm_eps(eps = 1.0));
triangle_count!(FirstOrder, first_order);
triangle_count!(Factorized, factorized);
triangle_count!(Recompute, recompute);

/// What the benchmark needs of each engine.
pub trait Engine {
    fn make() -> Self;
    fn insert(&mut self, a: u32, b: u32);
    fn delete(&mut self, a: u32, b: u32);
    /// The fresh count, `get(&())`.
    fn count(&self) -> Int;
    /// The strategy's invariants, where it has a check.
    fn check(&self) -> Option<Result<(), String>>;
}

macro_rules! engine {
    ($ty:ident, $check:expr) => {
        impl Engine for $ty {
            fn make() -> Self {
                $ty::new()
            }
            fn insert(&mut self, a: u32, b: u32) {
                self.insert_e(a, b);
            }
            fn delete(&mut self, a: u32, b: u32) {
                self.delete_e(a, b).expect("live edge");
            }
            fn count(&self) -> Int {
                self.get(&())
            }
            fn check(&self) -> Option<Result<(), String>> {
                #[allow(clippy::redundant_closure_call)]
                ($check)(self)
            }
        }
    };
}
engine!(Eps0, |e: &Eps0| Some(e.check_invariants()));
engine!(Eps25, |e: &Eps25| Some(e.check_invariants()));
engine!(Eps50, |e: &Eps50| Some(e.check_invariants()));
engine!(Eps75, |e: &Eps75| Some(e.check_invariants()));
engine!(Eps100, |e: &Eps100| Some(e.check_invariants()));
engine!(FirstOrder, |_: &FirstOrder| None);
engine!(Factorized, |e: &Factorized| Some(e.check_invariants()));
engine!(Recompute, |_: &Recompute| None);
