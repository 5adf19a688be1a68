// A semiring of the user's own claims `positive`, `deletable` and
// `counting`, and backs each claim with its trait, which the generated code
// checks.
use ivm::{Counting, Deletable, Maintained, Positive, Semiring};

include!("../tally.rs");

impl Counting for Tally {
    fn minus(&self, part: &Self) -> Self {
        Tally(self.0 - part.0)
    }
}

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
