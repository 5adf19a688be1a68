//! IVMε for the triangle count `Q() = Σ R(a, b) · S(b, c) · T(c, a)`
//! (*Counting Triangles under Updates in Worst-Case Optimal Time*, by Kara,
//! Ngo, Nikolic, Olteanu and Zhang): heavy/light partitions by degree, a
//! view per relation pair over the pairs of heavy values, and every delta
//! evaluated over the combination of parts that keeps it sublinear:
//! O(N^max(ε, 1−ε)) amortized per update, O(N) space.
//!
//! The three relations play rotated roles: P0 = R(A, B), P1 = S(B, C),
//! P2 = T(C, A). Each is listed both ways, by first value and by second
//! value, and a value is *heavy out* in P_i when it has many tuples as a
//! first value (at least θ_out = M^ε, with hysteresis), *heavy in* when it
//! has many as a second value (θ_in = M^(1−ε)). View i is
//! W_i(x_i, x_{i+2}) = Σ_{x_{i+1}} P_i(x_i, x_{i+1}) · P_{i+1}(x_{i+1}, x_{i+2})
//! over the x_i heavy out in P_i and the x_{i+2} heavy in in P_{i+1}.
//!
//! An update of P0(a, b) needs the paths Σ_c P1(b, c) · P2(c, a): the
//! view's W_1(b, a) when b is heavy out in P1 and a heavy in in P2, else a
//! walk of the shorter of b's and a's lists, one of which is light, so
//! shorter than 3/2·max(θ_out, θ_in). That walk is the first-order delta;
//! the view only replaces it where both lists are long. Upkeep touches a
//! view only where the updated tuple joins two heavy values: as a first
//! factor when a is heavy out (over the heavy-in partners of b in P1, at
//! most N/θ_in), as a second when b is heavy in (over the heavy-out
//! partners of a in P2, at most N/θ_out). An update between light values
//! costs the first-order delta and nothing else. A view has at most
//! (N/θ_out)·(N/θ_in) = N entries.
//!
//! This keeps the paper's partitions and rebalancing but not its views:
//! its V_RS(A, C) = Σ_B R_heavy(A, B) · S_light(B, C) ranges over every C,
//! O(N^(1+min(ε, 1−ε))) space, and must be kept up under every update of a
//! light value with a heavy partner. Restricting both ends to heavy values
//! (the heavy pairs of dynamic set intersection) gives the same time bound
//! in O(N) space, and leaves updates between light values alone.
//!
//! One generic function handles an update to any role, instantiated three
//! times with the roles rotated, so the code is monomorphized for the
//! query's column types and semiring. When one relation plays all three
//! roles in one orientation (a directed graph's triangles), the three
//! partitioned copies and views would be equal: [`GraphTriangle`] keeps one
//! of each and applies one delta per update.
//!
//! | file | holds |
//! |---|---|
//! | `part.rs` | a relation listed both ways, each value heavy or light in each direction, each tuple's payload beside it in both lists |
//! | `views.rs` | the views over heavy pairs, stored by rows; the delta rule and view upkeep of one role; minor and major rebalancing of the views |
//! | `ivm_eps.rs` | [`Triangle`]: three relations, three views, the count |
//! | `graph.rs` | [`GraphTriangle`]: one relation in all three roles |
//! | `factorized.rs` | [`Factorized`]: the factorized baseline with one view |
//!
//! This file holds what they share: `Threshold`, the M and the two
//! thresholds of the partitions. The count is kept over a [`Counting`]
//! semiring.

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

/// The partition thresholds θ_out = M^ε (on the degree of a first value)
/// and θ_in = M^(1−ε) (of a second value), with M a power of two kept
/// within a factor of the database size N: ⌊M/4⌋ ≤ N < M.
///
/// A walk of a light list costs up to 3/2·θ of either kind; upkeep walks
/// heavy partners, at most N/θ_in heavy-in and N/θ_out heavy-out values
/// (each has degree at least θ/2); a view holds at most one entry per
/// pair of them, (N/θ_out)·(N/θ_in) = O(N) at any ε. So every cost is
/// O(N^max(ε, 1−ε)), and ε = 1/2 balances them at O(√N).
#[derive(Debug, Clone)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Threshold {
    eps: f64,
    m: usize,
    /// θ_out = M^ε, on the degrees of first values.
    out: Bound,
    /// θ_in = M^(1−ε), on the degrees of second values.
    into: Bound,
}

/// One threshold θ and the degrees at which a value moves: a light value
/// turns heavy at 3/2·θ, a heavy one light below 1/2·θ (the gap between
/// them pays for the move).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Bound {
    theta: f64,
    /// ⌈3/2·θ⌉: the least degree of a light value that turns heavy.
    up: usize,
    /// ⌈1/2·θ⌉: a heavy value with a lower degree turns light.
    down: usize,
}

impl Bound {
    const NEVER: Bound = Bound {
        theta: f64::INFINITY,
        up: usize::MAX,
        down: 0,
    };

    fn new(theta: f64) -> Self {
        Bound {
            theta,
            up: (1.5 * theta).ceil() as usize,
            down: (0.5 * theta).ceil() as usize,
        }
    }

    /// Minor rebalancing: the part a value of this degree must move to,
    /// if any (`Some(true)`: heavy).
    #[inline]
    fn crossing(&self, heavy: bool, degree: usize) -> Option<bool> {
        if !heavy && degree >= self.up {
            Some(true)
        } else if heavy && degree < self.down {
            Some(false)
        } else {
            None
        }
    }
}

impl Threshold {
    /// No value is ever heavy: for a relation that is not partitioned.
    const NEVER: Threshold = Threshold {
        eps: 0.5,
        m: usize::MAX,
        out: Bound::NEVER,
        into: Bound::NEVER,
    };

    fn new(eps: f64) -> Self {
        Threshold {
            eps,
            m: 1,
            out: Bound::new(1.0),
            into: Bound::new(1.0),
        }
    }

    /// Whether N is within [⌊M/4⌋, M), so no major rebalancing is due.
    #[inline]
    fn fits(&self, n: usize) -> bool {
        self.m / 4 <= n && n < self.m
    }

    /// Major rebalancing's trigger: doubles or halves M until N fits
    /// again. Returns whether M changed, when every value must be
    /// repartitioned and the views recomputed.
    fn fit(&mut self, n: usize) -> bool {
        if self.fits(n) {
            return false;
        }
        while n >= self.m {
            self.m *= 2;
        }
        while self.m > 1 && n < self.m / 4 {
            self.m /= 2;
        }
        let m = self.m as f64;
        self.out = Bound::new(m.powf(self.eps));
        self.into = Bound::new(m.powf(1.0 - self.eps));
        true
    }

    fn check(&self, n: usize) -> Result<(), String> {
        if self.fits(n) {
            Ok(())
        } else {
            Err(format!("N = {n} is outside [⌊M/4⌋, M) for M = {}", self.m))
        }
    }
}
