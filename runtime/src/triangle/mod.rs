//! IVMε for the triangle count `Q() = Σ R(a, b) · S(b, c) · T(c, a)`
//! (papers/000): each relation is partitioned on its first column into a
//! heavy and a light part by degree against the threshold θ = M^ε, three
//! views join a heavy part with the next relation's light part, and every
//! delta is evaluated over the combination of parts that keeps it
//! sublinear: O(N^max(ε, 1−ε)) amortized per update, O(N^(1+min(ε, 1−ε)))
//! space.
//!
//! The three relations play rotated roles: P0 = R(A, B), P1 = S(B, C),
//! P2 = T(C, A), each partitioned on its first column, and view i is
//! V_i(x_i, x_{i+2}) = Σ_{x_{i+1}} P_i,heavy(x_i, x_{i+1}) · P_{i+1},light(x_{i+1}, x_{i+2}).
//! One generic function handles an update to any role, instantiated three
//! times with the roles rotated, so the code is monomorphized for the
//! query's column types and semiring. When one relation plays all three
//! roles in one orientation (a directed graph's triangles), the three
//! partitioned copies and views would be equal: [`GraphTriangle`] keeps one
//! of each and applies one delta per update.
//!
//! | file | holds |
//! |---|---|
//! | `part.rs` | a relation partitioned on its first column, with each tuple's payload beside it in both lists that hold it |
//! | `views.rs` | the views, stored by rows; the delta rules of one role; minor and major rebalancing of the views |
//! | `ivm_eps.rs` | [`Triangle`]: three relations, three views, the count |
//! | `graph.rs` | [`GraphTriangle`]: one relation in all three roles |
//! | `factorized.rs` | [`Factorized`]: the factorized baseline with one view |
//!
//! This file holds what they share: `Threshold`, the M and θ = M^ε of the
//! partitions. The count is kept over a [`Counting`] semiring.

mod factorized;
mod graph;
mod ivm_eps;
mod part;
mod views;

pub use factorized::Factorized;
pub use graph::GraphTriangle;
pub use ivm_eps::Triangle;

use std::hash::Hash;

use crate::Counting;

/// What the partitions and views hold values of: hashable and cloneable
/// (a shorthand for the bounds every function here carries).
pub trait Value: Clone + Eq + Hash {}

impl<T: Clone + Eq + Hash> Value for T {}

/// `v + new·w − old·w`: one term of a sum changes from `old·w` to `new·w`.
fn replaced<K: Counting>(v: &K, old: &K, new: &K, w: &K) -> K {
    v.add(&new.mul(w)).minus(&old.mul(w))
}

/// The partition threshold θ = M^ε, with M a power of two kept within a
/// factor of the database size N: ⌊M/4⌋ ≤ N < M.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Threshold {
    eps: f64,
    m: usize,
    theta: f64,
}

impl Threshold {
    fn new(eps: f64) -> Self {
        Threshold {
            eps,
            m: 1,
            theta: 1.0,
        }
    }

    /// Major rebalancing's trigger: doubles or halves M until N fits
    /// again. Returns whether M changed, when every value must be
    /// repartitioned and the views recomputed.
    fn fit(&mut self, n: usize) -> bool {
        let before = self.m;
        while n >= self.m {
            self.m *= 2;
        }
        while self.m > 1 && n < self.m / 4 {
            self.m /= 2;
        }
        if self.m == before {
            return false;
        }
        self.theta = (self.m as f64).powf(self.eps);
        true
    }

    fn check(&self, n: usize) -> Result<(), String> {
        if self.m / 4 <= n && n < self.m {
            Ok(())
        } else {
            Err(format!("N = {n} is outside [⌊M/4⌋, M) for M = {}", self.m))
        }
    }
}
