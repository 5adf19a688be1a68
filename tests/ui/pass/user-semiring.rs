// A semiring of the user's own: a count of derivations that never goes
// below zero. It claims `positive`, `deletable` and `counting`, and backs
// each claim with its trait, which the generated code checks.
use ivm::{Counting, Deletable, Maintained, Positive, Semiring};

#[derive(Clone, Copy, Debug, PartialEq, Default)]
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

impl Counting for Tally {
    fn minus(&self, part: &Self) -> Self {
        Tally(self.0 - part.0)
    }
}

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

ivm::ivm_query! {
    #[semiring(Tally, positive, deletable, counting)]
    pub query Reach {
        relation Edge(a: u32, b: u32);
        relation Start(a: u32);
        Q(a) = Start(a) * Edge(a, b);
    }
}

fn main() {
    let mut q = Reach::new();
    q.insert_start(1);
    q.update_edge(1, 2, Tally(3));
    assert_eq!(q.get(&(1,)), Tally(3));
    q.delete_start(1).unwrap();
    assert!(q.is_empty());
}
