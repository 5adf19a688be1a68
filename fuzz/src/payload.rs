//! Payloads for the streams: how the fuzzer draws a contribution of each
//! catalogue semiring, and which deletion model the naive evaluator uses
//! for it.

use ivm::Semiring;
use ivm::semiring::{
    AccessControl, Bool, Count, Covariance, Int, MaxMax, MaxMin, MaxPlus, MinMax, MinPlus, Real,
};

use crate::naive::Retraction;
use crate::rng::Rng;

/// A catalogue semiring the fuzzer can drive.
///
/// Values are small so that no sum or product of a stream overflows and
/// every floating-point operation is exact (small integers in `f64`): the
/// naive evaluator and the generated code add and multiply in different
/// orders, and must still agree to the bit.
pub trait Payload: Semiring {
    /// The semiring's path, as a query's `#[semiring(...)]` names it.
    const PATH: &'static str;

    /// Whether the semiring is a ring: a delta may be negative, and a
    /// negative insert is a delete.
    const RING: bool;

    /// A random non-zero contribution.
    fn sample(rng: &mut Rng) -> Self;

    /// The naive evaluator's model of the runtime's retraction rule.
    fn retraction() -> Retraction<Self>;
}

impl Payload for Int {
    const PATH: &'static str = "ivm::semiring::Int";
    const RING: bool = true;

    fn sample(rng: &mut Rng) -> Int {
        Int(nonzero(rng, 3))
    }

    fn retraction() -> Retraction<Int> {
        Retraction::ring()
    }
}

impl Payload for Real {
    const PATH: &'static str = "ivm::semiring::Real";
    const RING: bool = true;

    fn sample(rng: &mut Rng) -> Real {
        Real(nonzero(rng, 3) as f64)
    }

    fn retraction() -> Retraction<Real> {
        Retraction::ring()
    }
}

impl Payload for Covariance<2> {
    const PATH: &'static str = "ivm::semiring::Covariance<2>";
    const RING: bool = true;

    fn sample(rng: &mut Rng) -> Covariance<2> {
        if rng.chance(0.3) {
            Covariance::scalar(nonzero(rng, 2) as f64)
        } else {
            Covariance::lift([rng.range(-2, 2) as f64, rng.range(-2, 2) as f64])
        }
    }

    fn retraction() -> Retraction<Covariance<2>> {
        Retraction::ring()
    }
}

impl Payload for Count {
    const PATH: &'static str = "ivm::semiring::Count";
    const RING: bool = false;

    fn sample(rng: &mut Rng) -> Count {
        Count(rng.range(1, 3) as u64)
    }

    fn retraction() -> Retraction<Count> {
        Retraction::counted()
    }
}

impl Payload for Bool {
    const PATH: &'static str = "ivm::semiring::Bool";
    const RING: bool = false;

    fn sample(_: &mut Rng) -> Bool {
        Bool(true)
    }

    fn retraction() -> Retraction<Bool> {
        Retraction::Contributions
    }
}

impl Payload for AccessControl {
    const PATH: &'static str = "ivm::semiring::AccessControl";
    const RING: bool = false;

    fn sample(rng: &mut Rng) -> AccessControl {
        // Every level but `Denied`, the zero.
        *rng.pick(&AccessControl::LEVELS[..4])
    }

    fn retraction() -> Retraction<AccessControl> {
        Retraction::Contributions
    }
}

/// The selective semirings over `i64`: contributions in a small range.
macro_rules! selective {
    ($($ty:ident: $lo:literal..=$hi:literal;)*) => {$(
        impl Payload for $ty {
            const PATH: &'static str = concat!("ivm::semiring::", stringify!($ty));
            const RING: bool = false;

            fn sample(rng: &mut Rng) -> $ty {
                $ty(rng.range($lo, $hi))
            }

            fn retraction() -> Retraction<$ty> {
                Retraction::Contributions
            }
        }
    )*};
}

selective! {
    MinPlus: -2..=5;
    MaxPlus: -2..=5;
    MaxMin: -3..=3;
    MinMax: -3..=3;
    MaxMax: -3..=3;
}

/// The paths of every semiring above, which the generator draws from.
pub const PATHS: [&str; 11] = [
    Int::PATH,
    Real::PATH,
    Covariance::<2>::PATH,
    Count::PATH,
    Bool::PATH,
    AccessControl::PATH,
    MinPlus::PATH,
    MaxPlus::PATH,
    MaxMin::PATH,
    MinMax::PATH,
    MaxMax::PATH,
];

/// A number in `-max..=max` other than zero.
fn nonzero(rng: &mut Rng, max: i64) -> i64 {
    let x = rng.range(1, max);
    if rng.chance(0.5) { x } else { -x }
}

/// Pairs of rings: two aggregates in one payload, retracted by subtraction.
macro_rules! ring_pair {
    ($($a:ty, $b:ty => $path:literal, |$rng:ident| $sample:expr;)*) => {$(
        impl Payload for ($a, $b) {
            const PATH: &'static str = $path;
            const RING: bool = true;

            fn sample($rng: &mut Rng) -> ($a, $b) {
                // Either component may be zero, not both.
                loop {
                    let v: ($a, $b) = $sample;
                    if !v.is_zero() {
                        return v;
                    }
                }
            }

            fn retraction() -> Retraction<($a, $b)> {
                Retraction::ring()
            }
        }
    )*};
}

ring_pair! {
    Int, Int => "(ivm::semiring::Int, ivm::semiring::Int)",
        |rng| (Int(rng.range(-2, 2)), Int(rng.range(-2, 2)));
    Int, Real => "(ivm::semiring::Int, ivm::semiring::Real)",
        |rng| (Int(rng.range(-2, 2)), Real(rng.range(-2, 2) as f64));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_zero<K: Payload>() {
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            assert!(!K::sample(&mut rng).is_zero(), "{}", K::PATH);
        }
    }

    #[test]
    fn samples_are_contributions() {
        never_zero::<Int>();
        never_zero::<Real>();
        never_zero::<Covariance<2>>();
        never_zero::<Count>();
        never_zero::<Bool>();
        never_zero::<AccessControl>();
        never_zero::<MinPlus>();
        never_zero::<MaxPlus>();
        never_zero::<MaxMin>();
        never_zero::<MinMax>();
        never_zero::<MaxMax>();
        never_zero::<(Int, Int)>();
        never_zero::<(Int, Real)>();
    }
}
