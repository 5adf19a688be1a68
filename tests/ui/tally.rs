// `Tally`, a semiring of the user's own for the ui cases: a count of
// derivations that never goes below zero, positive, with O(1) deletes.
// Included by `pass/user-semiring.rs` and `fail/api/unbacked-class-claim.rs`.
// It derives serde's traits because the test build turns on `ivm`'s `serde`
// feature, under which every payload type must serialize (snapshots).

#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Tally(u64);

impl Semiring for Tally {
    fn zero() -> Self {
        Tally(0)
    }
    fn one() -> Self {
        Tally(1)
    }
    fn add(&self, other: &Self) -> Self {
        Tally(self.0 + other.0)
    }
    fn mul(&self, other: &Self) -> Self {
        Tally(self.0 * other.0)
    }
}

impl Positive for Tally {}

/// The sum and the number of live contributions.
impl Maintained for Tally {
    type State = (u64, u64);
    fn value(state: &(u64, u64)) -> Self {
        Tally(state.0)
    }
    fn insert(state: &mut (u64, u64), v: &Self) {
        *state = (state.0 + v.0, state.1 + 1);
    }
    fn retract(state: &mut (u64, u64), v: &Self) -> bool {
        if state.1 == 0 || state.0 < v.0 || v.0 == 0 {
            return false;
        }
        *state = (state.0 - v.0, state.1 - 1);
        true
    }
    fn is_empty(state: &(u64, u64)) -> bool {
        state.1 == 0
    }
}

impl Deletable for Tally {}
