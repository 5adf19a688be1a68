// A semiring of the user's own may have a catalogue semiring's name: with
// its class stated it is compiled as the user's, whatever it is called,
// and gets the strategies its class allows (here a count's), not the
// catalogue `MinPlus`'s.
use ivm::{Counting, Deletable, Maintained, Positive, Semiring};

mod my {
    use super::*;

    include!("../tally.rs");

    impl Counting for Tally {
        fn minus(&self, part: &Self) -> Self {
            Tally(self.0 - part.0)
        }
    }

    pub use Tally as MinPlus;
}

use my::MinPlus;

ivm::ivm_query! {
    #[semiring(MinPlus, positive, deletable, counting)]
    pub query Reach {
        relation Edge(a: u32, b: u32);
        relation Start(a: u32);
        Q(a) = Start(a) * Edge(a, b);
    }
}

ivm::ivm_query! {
    #[semiring(my::MinPlus, positive, deletable, counting)]
    pub query Paths {
        relation Edge(a: u32, b: u32);
        Q(a) = Edge(a, b);
    }
}

fn main() {
    let mut q = Reach::new();
    q.insert_start(1);
    q.insert_edge(1, 2);
    q.insert_edge(1, 3);
    // Under the catalogue `MinPlus`, ⊕ is min: 1 + 1 would be 1.
    assert_eq!(q.get(&(1,)), MinPlus::one().add(&MinPlus::one()));
    q.delete_start(1).unwrap();
    assert!(q.is_empty());
    let _ = Paths::new();
}
